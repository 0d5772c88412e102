"""A method run with an LLM as a background job: the job shows the stage that waits on
the LLM, the LLM calls and tokens so far, and a cancel stops a slow reply at once with a clear message."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from core.backends.registry import get_embedder, get_llm, get_reranker
from core.background.jobs import JobManager
from core.errors import Cancelled
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.run import run_method
from tests.fake_openai import FakeOpenAIServer, openai_env

QUESTION = "When did Lothair II's mother die?"


@pytest.fixture
def backends(openai_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    for k, v in openai_env(openai_server).items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("EGX_LLM_TIMEOUT", "30")
    monkeypatch.setenv("EGX_LLM_RETRIES", "0")
    emb = get_embedder("hashing")
    ws = ensure_sample_workspace("demo", emb, root=tmp_path)
    return ws, Backends(emb, get_llm("openai"), get_reranker("biencoder", embedder=emb))


def test_job_reports_stage_calls_and_tokens(backends, openai_server: FakeOpenAIServer) -> None:
    ws, b = backends
    openai_server.reply({"content": '{"keywords": []}'})
    job = JobManager().submit("run", "BubbleRAG", lambda j: run_method("bubblerag", QUESTION, ws, b), kind="method")
    assert job.wait(60), job.status()
    s = job.status()
    assert s.state == "done", s.error
    assert s.get("llm_calls") == openai_server.chat_requests > 0
    assert s.get("prompt_tokens", 0) > 0  # the fake server reports usage
    assert s.get("stages_done", 0) >= 3


def test_cancel_stops_a_slow_llm_reply_at_once(backends, openai_server: FakeOpenAIServer) -> None:
    ws, b = backends
    openai_server.reply({"sleep": 20, "content": "{}"})  # every reply takes 20 s
    job = JobManager().submit("run", "BubbleRAG", lambda j: run_method("bubblerag", QUESTION, ws, b), kind="method")
    deadline = time.monotonic() + 30
    while job.status().get("waiting") != "LLM" and time.monotonic() < deadline:
        time.sleep(0.05)
    s = job.status()
    assert s.get("waiting") == "LLM" and s.get("stage"), s  # e.g. "Pre-retrieval and sufficiency check"
    t0 = time.monotonic()
    job.cancel()
    assert job.wait(5)
    assert time.monotonic() - t0 < 2.0  # not after the 20 s reply or the 30 s timeout
    s = job.status()
    assert s.state == "cancelled"
    assert s.error == "BubbleRAG: cancelled. What was finished before is kept."
    with pytest.raises(Cancelled):
        job.result()
    time.sleep(0.5)
    assert openai_server.chat_requests <= 1  # no later stage asked the LLM after the cancel


def test_without_a_job_nothing_changes(backends, openai_server: FakeOpenAIServer) -> None:
    ws, b = backends
    openai_server.reply({"content": '{"keywords": []}'})
    res = run_method("bubblerag", QUESTION, ws, b)
    assert res.trace.steps
