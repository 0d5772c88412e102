"""`egx ask --llm openai` end to end against a real OpenAI-compatible server (llama-cpp-python's, serving
the 0.5B GGUF) for SG-RAG and ReG, at their defaults.

BubbleRAG is not asked here: the transport (a chat request with a JSON schema, the usage counts, the LLM cache)
is the same for every method and these two cover it, while BubbleRAG's nine LLM stages took 178 s of a CI worker
even at d=1, n=1. BubbleRAG's stages meet the same 0.5B model in
tests/methods/bubblerag/test_local_llm.py, and the transport is unit-tested against tests/fake_openai.py."""

from __future__ import annotations

import json

import pytest

from core.cli import main
from tests.llama_server import llama_server

pytestmark = [pytest.mark.slow, pytest.mark.model]

QUESTION = "When did Lothair II's mother die?"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with llama_server(tmp_path_factory.mktemp("llama")) as s:
        yield s


@pytest.mark.parametrize("method, settings", [
    ("sgrag", []),
    ("reg", []),
])
def test_ask_through_a_real_openai_compatible_server(server, monkeypatch, capsys, tmp_path, method, settings):
    for k, v in server.env().items():
        monkeypatch.setenv(k, v)
    trace = tmp_path / "trace.json"
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--method", method, "--llm",
                 "openai", "--json", "--trace", str(trace), "--llm-timeout", "120", *settings]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["answer"]
    steps = json.loads(trace.read_text())["steps"]
    asked = [s for s in steps if s["llm_cache"]]
    assert asked, "the server answered at least one LLM stage"
    assert sum(s["prompt_tokens"] + s["completion_tokens"] for s in asked) > 0  # the server's usage counts
    assert out["llm"]["failed_attempts"] == 0 and out["llm"]["calls"] >= 1
    # transport problems would read "LLM call failed"; a small model's odd JSON may fall back, visibly
    assert not [f for f in out["fallbacks"] if "LLM call failed" in f or "circuit breaker" in f], out["fallbacks"]
    # asked again: every stage whose replies were usable is answered from the LLM cache, no server request
    trace2 = tmp_path / "trace2.json"
    assert main(["ask", QUESTION, "--workspace", "demo", "--embedder", "hashing", "--method", method, "--llm",
                 "openai", "--json", "--trace", str(trace2), *settings]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["answer"] == out["answer"] and again["llm"]["cache_hits"] >= 1
    clean = {s["stage"] for s in asked if not s["fallback"]}
    steps2 = json.loads(trace2.read_text())["steps"]
    assert clean and all(s["cached"] is True for s in steps2 if s["stage"] in clean and s["llm_cache"])
