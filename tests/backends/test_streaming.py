"""Answers streamed as the LLM writes them (core.backends.streaming): the openai backend reads server-sent
events and feeds the growing text to the reply sink; JSON (constrained) requests never stream; the cache
and the returned reply hold the whole text; the answer stage sends its text to the caller's sink or to the
background job running it."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.backends.base import ChatMessage
from core.backends.registry import get_llm
from core.backends.streaming import answer_sink, reply_sink, stream_answers, streaming_reply
from core.background.jobs import JobManager
from core.methods.llm_steps import ask_json, ask_text
from core.trace import Step
from tests.fake_openai import fake_openai_server

ANSWER = "Hugo Weaving played Agent Smith, the main villain of The Matrix."
MSG = [ChatMessage("user", "Who played the villain?")]


def _llm(server, tmp_path: Path, **kw):  # type: ignore[no-untyped-def]
    from core.backends.llm_openai import OpenAILLM

    return OpenAILLM(model="fake", base_url=server.base_url, api_key="sk-fake", **kw)


def test_a_sink_gets_the_growing_text_and_the_reply_is_whole(tmp_path: Path) -> None:
    with fake_openai_server({"content": ANSWER}) as server:
        llm = _llm(server, tmp_path)
        seen: list[str] = []
        with streaming_reply(seen.append):
            r = llm.chat(MSG)
        body = server.requests[-1]["body"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert r.text == ANSWER and not r.truncated
    assert r.completion_tokens == len(ANSWER.split()) and r.prompt_tokens == 17  # the stream's usage chunk
    assert len(seen) == len(ANSWER.split()) and seen[-1] == ANSWER
    assert all(ANSWER.startswith(s) for s in seen) and [len(s) for s in seen] == sorted(len(s) for s in seen)


def test_no_sink_no_stream_and_json_never_streams(tmp_path: Path) -> None:
    with fake_openai_server({"content": '{"answer": "Hugo Weaving"}'}) as server:
        llm = _llm(server, tmp_path)
        assert llm.chat(MSG).text == '{"answer": "Hugo Weaving"}'
        assert "stream" not in server.requests[-1]["body"]
        seen: list[str] = []
        with streaming_reply(seen.append):
            r = llm.chat(MSG, json_schema={"type": "object"})
        assert "stream" not in server.requests[-1]["body"] and seen == []  # constrained: not worth reading early
        assert r.text == '{"answer": "Hugo Weaving"}'
    assert reply_sink() is None  # the block reset it


def test_a_server_without_stream_options_still_streams(tmp_path: Path) -> None:
    with fake_openai_server({"content": ANSWER, "reject_stream_options": True}) as server:
        seen: list[str] = []
        with streaming_reply(seen.append):
            r = _llm(server, tmp_path).chat(MSG)
        assert server.chat_requests == 2 and "stream_options" not in server.requests[-1]["body"]
    assert r.text == ANSWER and seen[-1] == ANSWER
    assert "server rejected stream_options; retried without them" in r.notes


def test_a_length_stop_is_kept_when_streamed(tmp_path: Path) -> None:
    with fake_openai_server({"content": ANSWER, "finish": "length"}) as server:
        with streaming_reply(lambda _: None):
            r = _llm(server, tmp_path).chat(MSG)
    assert r.truncated and r.text == ANSWER


def test_the_cache_keeps_the_whole_streamed_reply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EGX_LLM_CACHE_DIR", str(tmp_path / "llm-cache"))
    with fake_openai_server({"content": ANSWER}) as server:
        monkeypatch.setenv("EGX_OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("EGX_OPENAI_MODEL", "fake")
        monkeypatch.setenv("EGX_OPENAI_API_KEY", "sk-fake")
        llm = get_llm("openai", cache=True)
        seen: list[str] = []
        with streaming_reply(seen.append):
            first = llm.chat(MSG)
        again: list[str] = []
        with streaming_reply(again.append):
            second = llm.chat(MSG)
        assert server.chat_requests == 1  # the second came from the cache
    assert first.text == second.text == ANSWER and second.cached
    assert seen[-1] == ANSWER and again == []  # a cached reply arrives whole


def test_the_answer_stage_streams_to_the_callers_sink(tmp_path: Path) -> None:
    with fake_openai_server({"content": ANSWER}) as server:
        llm = _llm(server, tmp_path)
        got: list[tuple[str, str]] = []
        with stream_answers(lambda stage, text: got.append((stage, text))):
            step = Step("answer", "Unified evidence graph and answer")
            out = ask_text(llm, "system", "user", step=step, stream=True)
            plain = ask_text(llm, "system", "user")  # a stage that does not write the answer
            ask_json(llm, "system", "user", {"type": "object"})
        streamed = [r["body"].get("stream") for r in server.requests]
        assert streamed[0] is True and streamed[1:] == [None] * (len(streamed) - 1)  # JSON retries included
    assert out.data == ANSWER and plain.data == ANSWER
    assert got and {s for s, _ in got} == {"Unified evidence graph and answer"} and got[-1][1] == ANSWER


def test_in_a_background_job_the_answer_goes_to_the_jobs_status(tmp_path: Path) -> None:
    with fake_openai_server({"content": ANSWER, "stream_delay": 0.05}) as server:
        llm = _llm(server, tmp_path)

        def work(job):  # type: ignore[no-untyped-def]
            assert answer_sink("Answer") is not None
            return ask_text(llm, "s", "u", step=Step("answer", "Answer from the top passages"), stream=True).data

        job = JobManager().submit("m", "Dense with LLM openai", work, kind="method")
        partial = ""
        while not job.wait(0.02):
            partial = partial or str(job.status().get("answer_text") or "")
        s = job.status()
    assert job.result() == ANSWER
    assert s.get("answer_text") == ANSWER and s.get("answer_stage") == "Answer from the top passages"
    assert partial and ANSWER.startswith(partial)
    assert answer_sink("Answer") is None  # outside a job and without a sink: nowhere


def test_a_cancel_stops_a_streaming_reply(tmp_path: Path) -> None:
    from core.errors import Cancelled

    with fake_openai_server({"content": ANSWER * 5, "stream_delay": 0.05}) as server:
        llm = _llm(server, tmp_path)

        def work(job):  # type: ignore[no-untyped-def]
            return ask_text(llm, "s", "u", step=Step("answer", "Answer"), stream=True).data

        job = JobManager().submit("c", "Run", work, kind="method")
        while not job.status().get("answer_text"):
            assert not job.wait(0.02)
        job.cancel()
        assert job.wait(10)
    with pytest.raises(Cancelled):
        job.result()
    assert len(str(job.status().get("answer_text"))) < len(ANSWER * 5)


@pytest.mark.parametrize("action", [{"html": True}, {"json": {"object": "error", "detail": "model is loading"}}])
def test_a_streamed_request_answered_by_no_event_stream_is_a_bad_reply(tmp_path: Path, action: dict) -> None:
    """A proxy's web page (or an error object) where events were asked for: the same LLMReplyError as without
    streaming — never an empty answer, which would keep the circuit breaker closed."""
    from core.backends.llm_errors import LLMReplyError

    with fake_openai_server(action) as server:
        with streaming_reply(lambda _: None), \
                pytest.raises(LLMReplyError, match=r"instead of a chat completion|not a chat completion"):
            _llm(server, tmp_path).chat(MSG)


def test_a_server_that_ignores_stream_still_answers(tmp_path: Path) -> None:
    from tests.fake_openai import completion

    with fake_openai_server({"json": completion(ANSWER)}) as server:
        seen: list[str] = []
        with streaming_reply(seen.append):
            r = _llm(server, tmp_path).chat(MSG)
    assert r.text == ANSWER and seen == [ANSWER] and r.prompt_tokens == 17


class _WordsLlama:
    """A stand-in for ``llama_cpp.Llama`` that streams ``text`` one word per chunk (no model is loaded)."""

    def __init__(self, text: str) -> None:
        self.text, self.calls = text, []

    def create_chat_completion(self, **kw):  # type: ignore[no-untyped-def]
        self.calls.append(kw)
        words = [w + " " for w in self.text.split(" ")]
        words[-1] = words[-1].rstrip()
        return iter([{"choices": [{"delta": {"content": w}, "finish_reason": None}]} for w in words]
                    + [{"choices": [{"delta": {}, "finish_reason": "stop"}]}])

    def tokenize(self, b: bytes, add_bos: bool = False) -> list[int]:
        return list(range(len(b.split())))


def test_the_local_backend_feeds_the_sink_but_not_for_json() -> None:
    import threading

    from core.backends.llm_local import LlamaCppLLM

    fake = _WordsLlama(ANSWER)
    llm = LlamaCppLLM(size="0.5b", timeout=30)
    llm._load = lambda: (fake, threading.Lock())  # type: ignore[method-assign]
    seen: list[str] = []
    with streaming_reply(seen.append):
        r = llm.chat(MSG)
        llm.chat(MSG, json_schema={"type": "object"})  # constrained decoding: no partial text
    assert r.text == ANSWER and seen[-1] == ANSWER and len(seen) == len(ANSWER.split())
    assert all(ANSWER.startswith(s) for s in seen)


# --- a stream that breaks off is no answer ------------------------------------------------------------
# Before: a stream that stopped mid-reply (no finish reason, no [DONE]) was taken as the whole answer,
# shown unflagged and cached, and the cache kept serving it after the server recovered.

BROKEN = {"content": ANSWER, "break_after": 3}


def test_a_stream_that_breaks_off_is_an_error_not_an_answer(tmp_path: Path) -> None:
    from core.backends.llm_errors import LLMTransportError

    with fake_openai_server(BROKEN) as server:
        seen: list[str] = []
        with streaming_reply(seen.append), pytest.raises(
                LLMTransportError, match=r"broke off the reply stream of model 'fake' after 3 pieces, without a "
                                         r"finish reason; the partial reply is not used\. Try again"):
            _llm(server, tmp_path).chat(MSG)
    assert seen and seen[-1] != ANSWER  # the partial text was shown while it came, never returned


def test_a_broken_stream_is_retried_and_the_whole_reply_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EGX_LLM_CACHE_DIR", str(tmp_path / "llm-cache"))
    monkeypatch.setenv("EGX_LLM_RETRIES", "1")
    with fake_openai_server(BROKEN, {"content": ANSWER}) as server:
        monkeypatch.setenv("EGX_OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("EGX_OPENAI_MODEL", "fake")
        monkeypatch.setenv("EGX_OPENAI_API_KEY", "sk-fake")
        llm = get_llm("openai", cache=True)
        with streaming_reply(lambda _: None):
            r = llm.chat(MSG)
        assert server.chat_requests == 2
    assert r.text == ANSWER and r.attempts == 2 and "broke off the reply stream" in r.notes[0]


def test_a_broken_stream_is_never_cached_and_the_recovered_server_is_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.backends.embedders import HashingEmbedder
    from core.methods.answering import answer_question
    from core.methods.base import Backends

    cache = tmp_path / "llm-cache"
    monkeypatch.setenv("EGX_LLM_CACHE_DIR", str(cache))
    monkeypatch.setenv("EGX_LLM_RETRIES", "1")
    with fake_openai_server(BROKEN) as server:
        monkeypatch.setenv("EGX_OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("EGX_OPENAI_MODEL", "fake")
        monkeypatch.setenv("EGX_OPENAI_API_KEY", "sk-fake")
        llm = get_llm("openai", cache=True)
        passages = [("c1", "The Matrix", "Hugo Weaving played Agent Smith, the villain.")]
        with stream_answers(lambda stage, text: None):
            broken = answer_question("Who played the villain?", passages, Backends(HashingEmbedder(dim=64), llm))
        assert broken.mode == "extractive" and "broke off the reply stream" in broken.fallback
        assert not list(cache.rglob("*.json"))  # nothing of it kept
        server.reply({"content": ANSWER})  # the server recovered
        with stream_answers(lambda stage, text: None):
            fixed = answer_question("Who played the villain?", passages, Backends(HashingEmbedder(dim=64), llm))
        assert server.chat_requests == 3  # 1 + 1 retry of the broken one, then the recovered server
    assert fixed.mode == "llm" and fixed.text == ANSWER and not fixed.fallback and fixed.cached is False
