"""Heavy jobs run in a worker process at a lower CPU priority with fewer threads, report progress as JSON lines,
die when cancelled, and come back with the task's own message or one in the app's words."""

from __future__ import annotations

import os
import threading
import time

import psutil
import pytest

from core.background.jobs import JobManager
from core.background.workers import KINDS, Words, WorkerLimits, parse_line, run_worker, worker_nice, worker_threads
from core.errors import Cancelled, EgxError, WorkspaceError

WORDS = Words("The probe", "Nothing was saved.")


def test_the_worker_runs_at_the_lower_priority_with_the_thread_caps(monkeypatch):
    monkeypatch.setenv("EGX_WORKER_NICE", "12")
    monkeypatch.setenv("EGX_WORKER_THREADS", "1")
    out = run_worker("probe", {}, words=WORDS)
    assert out["result"]["nice"] == max(12, os.getpriority(os.PRIO_PROCESS, 0))
    assert set(out["result"]["threads"].values()) == {"1"}  # OpenMP, MKL, BLAS, EGX_THREADS (onnx, llama.cpp)
    assert os.getpriority(os.PRIO_PROCESS, 0) < 12  # the server's own priority is untouched
    assert out["result"]["sched"] == "normal"
    monkeypatch.setenv("EGX_WORKER_SCHED", "idle")  # Linux's idle class: only cores no normal task wants
    assert run_worker("probe", {}, words=WORDS)["result"]["sched"] == "idle"


def test_defaults_leave_the_server_a_core(monkeypatch):
    monkeypatch.delenv("EGX_WORKER_NICE", raising=False)
    monkeypatch.delenv("EGX_WORKER_THREADS", raising=False)
    assert worker_nice() == 10
    assert worker_threads() == max(1, len(os.sched_getaffinity(0)) - 1)
    monkeypatch.setenv("EGX_WORKER_NICE", "-5")
    with pytest.raises(WorkspaceError, match=r"EGX_WORKER_NICE='-5' is not an integer from 0 to 19"):
        worker_nice()


def test_progress_lines_are_parsed_and_other_output_ignored():
    assert parse_line('{"m": "epoch 3/80", "p": 0.5}\n') == {"m": "epoch 3/80", "p": 0.5}
    assert parse_line("Some library printing to stdout\n") is None
    assert parse_line("[1, 2]") is None
    seen: list[tuple[str, float]] = []
    run_worker("probe", {"steps": 3}, words=WORDS, progress=lambda m, f: seen.append((m, f)))
    assert [m for m, _ in seen] == ["step 1", "step 2", "step 3"]
    assert seen[-1][1] == pytest.approx(1.0) and [f for _, f in seen] == sorted(f for _, f in seen)


def test_cancel_kills_the_child_at_once():
    cancel = threading.Event()
    pids: list[int] = []
    seen: list[str] = []

    def progress(m: str, f: float) -> None:
        seen.append(m)
        cancel.set()  # cancel once it runs

    t0 = time.monotonic()
    with pytest.raises(Cancelled, match="The probe was cancelled; nothing was saved"):
        run_worker("probe", {"steps": 100, "sleep": 0.2}, words=WORDS, progress=progress, cancel=cancel,
                   on_start=pids.append)
    assert time.monotonic() - t0 < 10 and seen
    assert not psutil.pid_exists(pids[0]) or psutil.Process(pids[0]).status() == psutil.STATUS_ZOMBIE


def test_a_cancelled_job_kills_its_worker_and_cleans_up():
    cleaned: list[bool] = []
    pids: list[int] = []

    def work(job):
        return run_worker("probe", {"steps": 100, "sleep": 0.2}, words=WORDS, progress=job.progress,
                          cancel=job.cancel_event, on_start=pids.append, cleanup=lambda: cleaned.append(True))

    jobs = JobManager()
    job = jobs.submit("probe", "Probe", work, kind="bench")
    deadline = time.monotonic() + 30
    while not job.status().fraction and time.monotonic() < deadline:
        time.sleep(0.05)
    job.cancel()
    assert job.wait(10)
    s = job.status()
    assert s.state == "cancelled" and "nothing was saved" in s.error and cleaned == [True]
    assert not psutil.pid_exists(pids[0]) or psutil.Process(pids[0]).status() == psutil.STATUS_ZOMBIE


def test_the_tasks_own_error_comes_back_as_it_was():
    with pytest.raises(EgxError, match=r"^The workspace has no questions with answers\.$"):
        run_worker("probe", {"fail": "The workspace has no questions with answers."}, words=WORDS)


def test_the_tasks_own_error_keeps_its_app_wording():
    with pytest.raises(EgxError) as ei:
        run_worker("probe", {"fail": "use another --out folder", "fail_app": "pick another run name"}, words=WORDS)
    assert str(ei.value) == "use another --out folder" and ei.value.in_app() == "pick another run name"


def test_a_crash_is_told_in_the_apps_words_without_server_paths():
    with pytest.raises(WorkspaceError) as ei:
        run_worker("probe", {"crash": "cannot open /srv/egx/secret/model.bin"}, words=WORDS)
    msg = str(ei.value)
    assert msg.startswith("The probe ended without finishing (exit status 1: RuntimeError). Nothing was saved.")
    assert "/srv" not in msg and "Traceback" not in msg


def test_past_the_memory_cap_the_worker_is_stopped_naming_the_setting():
    with pytest.raises(WorkspaceError, match=r"The probe used more than 5 MB of memory \(EGX_TRAIN_MEMORY_MB\)"):
        run_worker("probe", {"steps": 50, "sleep": 0.1}, words=WORDS,
                   limits=WorkerLimits(memory_mb=5, prefix="EGX_TRAIN"))  # an interpreter alone passes 5 MB


def test_every_kind_names_an_importable_task_and_an_unknown_kind_is_refused():
    from core.background.workers import task_function

    for kind in KINDS:
        assert callable(task_function(kind))
    with pytest.raises(EgxError, match=r"unknown worker kind 'nope'; one of build, bench"):
        run_worker("nope", {}, words=WORDS)


def test_limits_per_kind_come_from_their_own_settings(monkeypatch):
    monkeypatch.setenv("EGX_BENCH_MEMORY_MB", "2048")
    assert WorkerLimits.for_kind("bench") == WorkerLimits(2048.0, 6 * 3600.0, "EGX_BENCH")
    from core.methods.registry import get_method  # training is the method's own task, with the training caps

    assert WorkerLimits.for_kind(get_method("reg").task("train-reg")).prefix == "EGX_TRAIN"
