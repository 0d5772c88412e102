"""An LLM server's reply is read at most EGX_LLM_MAX_REPLY_MB bytes, and a reply cut at
max_tokens (finish_reason "length") is never cached and is shown cut."""

from __future__ import annotations

import time

import pytest

from core.backends.base import ChatMessage
from core.backends.llm_cache import CachedLLM, DiskCache
from core.backends.llm_openai import OpenAILLM
from core.errors import LLMError
from core.methods.answering import answer_question
from core.methods.base import Backends
from tests.fake_openai import fake_openai_server

MSG = [ChatMessage("user", "Who played Agent Smith?")]


def _llm(server) -> OpenAILLM:
    return OpenAILLM(model="fake-model", base_url=server.base_url, api_key="sk-x", timeout=60)


@pytest.mark.parametrize("no_length", [False, True], ids=["declared", "streamed"])
def test_a_reply_over_the_byte_cap_is_refused_without_reading_it_all(monkeypatch, no_length):
    """Before: a 30 MB reply was read and parsed whole (one BubbleRAG question took 730 s)."""
    monkeypatch.setenv("EGX_LLM_MAX_REPLY_MB", "0.05")
    with fake_openai_server({"content": "x" * 3_000_000, "no_length": no_length}) as server:
        llm = _llm(server)
        t0 = time.monotonic()
        with pytest.raises(LLMError, match=r"(sent|announced) a reply of .*0\.05 MB.*EGX_LLM_MAX_REPLY_MB"):
            llm.chat(MSG)
        assert time.monotonic() - t0 < 30  # a hang guard; the refusal reads at most 50 kB
        server.reply({"content": "Hugo Weaving"})
        assert llm.chat(MSG).text == "Hugo Weaving"  # the same client, under the cap


def test_a_reply_cut_at_max_tokens_is_flagged_not_cached_and_shown_cut(monkeypatch, tmp_path):
    """Before: "The answer is Erm" was the answer, and was served from the cache after the server was fixed."""
    with fake_openai_server({"content": "The answer is Erm", "finish": "length"}) as server:
        cached = CachedLLM(_llm(server), cache=DiskCache(tmp_path / "cache"))
        r = cached.chat(MSG, max_tokens=8)
        assert r.truncated and any("truncated" in n for n in r.notes)
        assert not list((tmp_path / "cache").rglob("*.json"))  # not kept
        ans = answer_question("Who?", [("c1", "T", "Hugo Weaving played Agent Smith.")],
                              Backends(None, cached))  # type: ignore[arg-type]
        assert ans.mode == "llm" and ans.text == "The answer is Erm …" and "token limit" in ans.fallback
        server.reply({"content": "Hugo Weaving"})  # the server fixed: asked again, not served the cut reply
        r2 = cached.chat(MSG, max_tokens=8)
        assert r2.text == "Hugo Weaving" and not r2.truncated and not r2.cached
        assert cached.chat(MSG, max_tokens=8).cached  # a whole reply is kept
