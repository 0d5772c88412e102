"""An LLM attempt the guard stops waiting for ends with its connection and its thread.

The audit's reproducer: against a server that trickles a few bytes at a time (each read well within the
read timeout, the whole reply far past the attempt's limit), one question left 3 threads and 3 connections
open after its answer (one per attempt: 1 + 2 retries) — 130 s later they still ran, and an app server
accumulated them. The server runs in a child process here, so every connection to it counted is the
client's (this process's); threads are the guard's attempt threads started during the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.backends.base import ChatMessage
from core.backends.llm_errors import LLMTransportError
from core.backends.llm_guard import GuardedLLM, LLMSettings, question_scope
from core.backends.llm_openai import OpenAILLM
from core.background.jobs import JobManager
from core.errors import Cancelled

ROOT = Path(__file__).resolve().parents[2]
MSG = [ChatMessage("user", "Who played Agent Smith?")]
#: 8 bytes every 0.3 s: the ~700-byte reply would take ~26 s, each attempt may take 1 s
TRICKLE = {"trickle": 0.3, "content": "Hugo Weaving " * 40}
#: how long an abandoned attempt may take to be gone: its thread ends in milliseconds once its socket is
#: shut; the margin is for a loaded 2-core machine, far below the trickle's ~26 s
GONE_S = 10.0


def open_to(url: str) -> int:
    """This process's TCP connections to the server at ``url`` (other tests' sockets are not counted)."""
    import psutil

    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    return sum(1 for c in psutil.Process().net_connections(kind="tcp") if c.raddr and c.raddr.port == port)


def new_attempt_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    """Attempt threads alive now that were not before (another test's may still end meanwhile)."""
    return [t for t in threading.enumerate() if t.name == "egx-llm-attempt" and t not in before]


def settled(url: str, before: set[threading.Thread]) -> tuple[int, int]:
    """(connections to ``url``, new attempt threads) once both are 0, or as they are after :data:`GONE_S`."""
    deadline = time.monotonic() + GONE_S
    now = (open_to(url), len(new_attempt_threads(before)))
    while now != (0, 0) and time.monotonic() < deadline:
        time.sleep(0.05)
        now = (open_to(url), len(new_attempt_threads(before)))
    return now


@pytest.fixture
def trickling() -> Iterator[str]:
    """The base URL of a scripted server (tests/fake_openai.py) in a child process that trickles every reply."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_openai", json.dumps([TRICKLE])], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()  # the server ends when its stdin closes
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def guarded(url: str, retries: int = 2) -> GuardedLLM:
    llm = GuardedLLM(OpenAILLM(model="fake-model", base_url=url, api_key="sk-x"),
                     LLMSettings(timeout=1.0, retries=retries, backoff=0.01, budget=60.0))
    llm.prepare()  # the HTTP client exists before the count, as in a running app
    return llm


def test_timed_out_attempts_leave_no_socket_and_no_thread(trickling):
    llm = guarded(trickling)
    before = set(threading.enumerate())
    assert open_to(trickling) == 0
    with question_scope(llm) as scope, pytest.raises(LLMTransportError, match=r"did not finish its reply within 1 s"):
        llm.chat(MSG)
    assert scope.attempts == 3  # 1 + 2 retries, each abandoned at its deadline
    assert settled(trickling, before) == (0, 0)


def test_a_cancelled_attempt_leaves_no_socket_and_no_thread(trickling):
    llm = guarded(trickling, retries=0)
    llm.settings = LLMSettings(timeout=60.0, retries=0)  # only the cancel can end this attempt
    before = set(threading.enumerate())
    job = JobManager().submit("c", "Run", lambda job: llm.chat(MSG), kind="method")
    deadline = time.monotonic() + GONE_S
    while not open_to(trickling) and time.monotonic() < deadline:  # the attempt is reading the trickle
        time.sleep(0.02)
    assert open_to(trickling) == 1 and len(new_attempt_threads(before)) == 1
    job.cancel()
    assert job.wait(GONE_S)
    with pytest.raises(Cancelled):
        job.result()
    assert settled(trickling, before) == (0, 0)
