"""The local llama.cpp backend stops generating when the app's run is cancelled: the
model lock and the CPU are free at once, not after the attempt's timeout. A stand-in for
``llama_cpp.Llama`` streams tokens forever; no model is loaded."""

from __future__ import annotations

import threading

import pytest

from core.backends.base import ChatMessage
from core.backends.llm_local import LlamaCppLLM
from core.background.jobs import Job
from core.errors import Cancelled, LLMError


class EndlessLlama:
    """Streams one token per chunk forever, counting what it streamed."""

    def __init__(self, cancel_after: int, job: Job | None) -> None:
        self.streamed = 0
        self.cancel_after = cancel_after
        self.job = job

    def create_chat_completion(self, **kw):
        assert kw["stream"] is True

        def chunks():
            while True:
                self.streamed += 1
                if self.job is not None and self.streamed == self.cancel_after:
                    self.job.cancel()  # the user presses Cancel while the model generates
                yield {"choices": [{"delta": {"content": "x"}, "finish_reason": None}]}

        return chunks()

    def tokenize(self, b: bytes, add_bos: bool = False) -> list[int]:
        return list(range(len(b)))


def _local(fake: EndlessLlama) -> LlamaCppLLM:
    llm = LlamaCppLLM(size="0.5b", timeout=30)
    lock = threading.Lock()
    llm._load = lambda: (fake, lock)  # type: ignore[method-assign]
    return llm


def test_a_cancelled_job_stops_the_generation_at_the_next_token_and_frees_the_model():
    box: dict = {}

    def work(job: Job) -> None:
        fake = box["fake"] = EndlessLlama(cancel_after=5, job=job)
        llm = box["llm"] = _local(fake)
        try:
            llm.chat([ChatMessage("user", "go")], max_tokens=10_000)
        except Cancelled as exc:
            box["error"] = str(exc)
            raise

    job = Job("k", "LLM run", work, kind="method").start()
    assert job.wait(10)
    assert "stopped generating: the run was cancelled (5 tokens generated)" in box["error"]
    assert box["fake"].streamed == 5
    lock = box["llm"]._load()[1]
    assert lock.acquire(timeout=0.1)  # the model is free for the next run


def test_without_a_job_the_timeout_still_bounds_generation():
    fake = EndlessLlama(cancel_after=0, job=None)
    llm = _local(fake)
    llm.timeout = 0.05
    with pytest.raises(LLMError, match=r"timed out after 0\.05 s"):
        llm.chat([ChatMessage("user", "go")], max_tokens=10**9)
