"""core.background.jobs: background jobs with progress, ETA, cancel, join-by-key, errors, and no leaked threads."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from core.background.jobs import Job, JobBusyError, JobManager, format_seconds
from core.errors import Cancelled, EgxError, WorkspaceError


def _gated(gate: threading.Event, steps: int = 4):
    """Work that reports ``steps`` progress points, waiting for ``gate`` after the first."""
    def fn(job: Job) -> str:
        for i in range(steps):
            job.progress(f"step {i}", i / steps)
            gate.wait(5)
        return "built"
    return fn


def test_progress_result_and_thread_ends() -> None:
    jobs = JobManager()
    gate = threading.Event()
    job = jobs.submit("ws:a", "Build a", _gated(gate))
    assert job.status().state == "running" and job.thread.is_alive()
    gate.set()
    assert job.wait(5)
    s = job.status()
    assert (s.state, s.fraction, s.error) == ("done", 1.0, "")
    assert job.result() == "built"
    job.thread.join(2)
    assert not job.thread.is_alive()
    assert not [t for t in threading.enumerate() if t.name == f"egx-job-{job.id}"]


def test_second_submit_joins_the_running_job() -> None:
    jobs = JobManager()
    gate = threading.Event()
    calls = []

    def fn(job: Job) -> int:
        calls.append(1)
        gate.wait(5)
        return len(calls)

    first = jobs.submit("ws:musique", "Build", fn)
    second = jobs.submit("ws:musique", "Build", fn)
    assert second is first
    gate.set()
    assert first.wait(5) and first.result() == 1 and len(calls) == 1
    # finished: restart=False hands the finished job back, restart=True runs again
    assert jobs.submit("ws:musique", "Build", fn, restart=False) is first
    again = jobs.submit("ws:musique", "Build", fn)
    assert again is not first and again.wait(5) and again.result() == 2


def test_work_with_inputs_of_its_own_never_joins_a_running_job() -> None:
    """An upload or a benchmark under a name that is running carries other inputs: refused, not joined."""
    jobs = JobManager()
    gate = threading.Event()
    first = jobs.submit("upload:notes", "Building “notes” from an upload", lambda job: gate.wait(5))
    with pytest.raises(JobBusyError, match=r"^Building “notes” from an upload is running right now .*pick another name"):
        jobs.submit("upload:notes", "Building “notes” from an upload", lambda job: 2, join=False)
    gate.set()
    assert first.wait(5)
    again = jobs.submit("upload:notes", "Building “notes” from an upload", lambda job: 2, join=False)
    assert again is not first and again.wait(5) and again.result() == 2


def test_cancel_stops_at_the_next_progress_report() -> None:
    jobs = JobManager()
    reached = []

    def fn(job: Job) -> None:
        for i in range(1000):
            job.progress(f"item {i}", i / 1000)
            reached.append(i)
            if i == 3:
                job.cancel()  # as a click from another session would

    job = jobs.submit("bench:x", "Benchmark x", fn)
    assert job.wait(5)
    s = job.status()
    assert s.state == "cancelled" and s.cancel_requested
    assert "cancelled" in s.error and "kept" in s.error
    assert reached == [0, 1, 2, 3]
    with pytest.raises(Cancelled, match="Benchmark x: cancelled"):
        job.result()
    assert jobs.cancel("bench:x") is False  # nothing running any more


def test_manager_cancel_and_shutdown_end_every_thread() -> None:
    jobs = JobManager()
    gate = threading.Event()

    def fn(job: Job) -> None:
        while True:
            job.progress("waiting", 0.5)
            gate.wait(0.01)

    a, b = jobs.submit("a", "A", fn), jobs.submit("b", "B", fn)
    assert jobs.cancel("a") is True and a.wait(5)
    assert [j.key for j in jobs.running()] == ["b"]
    assert jobs.shutdown(5)
    for j in (a, b):
        j.thread.join(2)
        assert not j.thread.is_alive() and j.status().state == "cancelled"


def test_errors_are_recorded_with_their_message() -> None:
    jobs = JobManager()

    def bad(job: Job) -> None:
        raise WorkspaceError("t.csv, line 3: found 2 columns")

    def crash(job: Job) -> None:
        raise ZeroDivisionError("division by zero")

    j1, j2 = jobs.submit("x", "X", bad), jobs.submit("y", "Y", crash)
    assert j1.wait(5) and j2.wait(5)
    assert (j1.status().state, j1.status().error) == ("failed", "t.csv, line 3: found 2 columns")
    with pytest.raises(WorkspaceError, match="found 2 columns"):
        j1.result()
    assert j2.status().error == "ZeroDivisionError: division by zero"
    assert not j1.thread.is_alive() or j1.thread.join(2) is None


def test_result_while_running_is_an_error() -> None:
    gate = threading.Event()
    job = JobManager().submit("k", "Slow", _gated(gate))
    with pytest.raises(EgxError, match="Slow is still running"):
        job.result()
    gate.set()
    job.wait(5)


def test_eta_from_measured_rate_with_a_fake_clock() -> None:
    now = [100.0]
    job = Job("k", "Build", lambda j: None, clock=lambda: now[0])
    assert job.status().eta is None and job.status().fraction is None
    job.report("embedding", 0.10)
    now[0] += 1.0
    job.report(fraction=0.15)
    assert job.status().eta is None  # under ETA_MIN_SECONDS of measurement
    now[0] += 9.0  # 10 s for 0.10 → 0.30: 0.02 per second, 0.70 left → 35 s
    job.report(fraction=0.30)
    s = job.status()
    assert s.eta == pytest.approx(35.0)
    assert s.elapsed == pytest.approx(10.0)
    job.report(fraction=0.2)  # progress never goes backwards
    assert job.status().fraction == pytest.approx(0.30)


def test_eta_restarts_after_a_pause_that_dwarfs_the_progress_before_it() -> None:
    """A build's bar jumps over its read-inputs share at once, then its first batch loads a model: the rate
    is measured after that pause, not over it."""
    now = [0.0]
    job = Job("k", "Build", lambda j: None, clock=lambda: now[0])
    job.report("reading", 0.0)
    now[0] += 0.05
    job.report("extracting", 0.03)  # the read-inputs share, in a blink
    now[0] += 6.0  # the model loads inside the first batch
    job.report(fraction=0.05)
    for _ in range(4):  # then 1 s a batch, 0.02 each: 0.87 left at 0.02/s ≈ 43.5 s
        now[0] += 1.0
        job.report(fraction=job.status().fraction + 0.02)
    assert job.status().eta == pytest.approx((1 - 0.13) / 0.02)
    # over the pause the same reports would have said (6 + 4 + 0.05) s for 0.13: ≈ 67 s left


def test_no_estimate_while_a_pause_outlasts_the_quick_moves_before_it() -> None:
    """An audit's 28-passage build read "about 2 min 24 s left" 1.4 s before it ended: the bar moved 3 % in a blink
    (reading the files), then sat while spaCy loaded, and a rate measured up to *now* grew while it sat."""
    now = [0.0]
    job = Job("k", "Build", lambda j: None, clock=lambda: now[0])
    job.report("reading", 0.0)
    for f in (0.01, 0.02, 0.03):
        now[0] += 0.02
        job.report(fraction=f)
    for _ in range(6):  # the pause: nothing measured long enough, nothing said
        now[0] += 0.5
        assert job.status().eta is None
    now[0] += 1.0
    job.report(fraction=0.10)  # a pause that dwarfs what came before: measured from here on
    for _ in range(3):
        now[0] += 1.0
        job.report(fraction=job.status().fraction + 0.1)
    assert job.status().eta == pytest.approx(2.0 * 0.6 / 0.2)  # after the first of these: 0.1 a second
    now[0] += 0.5  # between reports the estimate counts down instead of growing
    assert job.status().eta == pytest.approx(6.0 - 0.5)


def test_eta_keeps_its_rate_through_ordinary_slower_steps() -> None:
    now = [0.0]
    job = Job("k", "Ask", lambda j: None, clock=lambda: now[0])
    job.report("start", 0.0)
    for step in (2.0, 2.0, 5.0, 2.0):  # one slower step is no pause that restarts the measurement
        now[0] += step
        job.report(fraction=job.status().fraction + 0.1)
    assert job.status().eta == pytest.approx(9.0 * 0.6 / 0.3)  # measured after the first step: 0.3 in 9 s


def test_eta_leaves_the_first_units_warm_up_out_once_enough_came_after_it() -> None:
    """A benchmark's first pair loads the models: 4 s, then 0.5 s a pair. An audit read "48 s left" with 24 to go."""
    now = [0.0]
    job = Job("k", "Benchmark", lambda j: None, clock=lambda: now[0])
    job.report("start", 0.0)
    now[0] += 4.0
    job.report(fraction=0.02)  # the first pair, with the warm-up
    now[0] += 0.5
    job.report(fraction=0.04)
    assert job.status().eta == pytest.approx(4.5 * 0.96 / 0.04)  # too little after the first pair: over all of it
    for _ in range(4):
        now[0] += 0.5
        job.report(fraction=job.status().fraction + 0.02)
    assert job.status().eta == pytest.approx(0.88 / 0.04)  # 0.02 per 0.5 s after the first pair: 22 s


def _benchmark_with_slow_first_round(job: Job, now: list[float], *, until: float) -> float:
    """88 pairs (11 questions × 8 methods): the first question's 8 load the methods' models, 0.8 s each, then
    0.24 s a pair; reported after each pair until ``until`` seconds. Returns the true seconds left then."""
    job.report("start", 0.0)
    t, times = 0.0, []
    for i in range(88):
        t += 0.8 if i < 8 else 0.24
        times.append(t)
    for i, t in enumerate(times):
        if t > until:
            break
        now[0] = t
        job.report(fraction=(i + 1) / 88)
    return times[-1] - now[0]


def test_eta_leans_on_the_jobs_own_estimate_while_little_is_done() -> None:
    """An audit's 11-question benchmark was estimated at 32 s before it ran (29 s in all); measured on the first
    question, whose runs load every method's models, the time left read 42 s with 23 to go."""
    now = [0.0]
    plain = Job("k", "Benchmark", lambda j: None, clock=lambda: now[0])
    truth = _benchmark_with_slow_first_round(plain, now, until=8.0)
    measured = plain.status().eta
    now[0] = 0.0
    told = Job("k2", "Benchmark", lambda j: None, clock=lambda: now[0])
    told.expect(32.0)
    _benchmark_with_slow_first_round(told, now, until=8.0)
    blended = told.status().eta
    assert measured is not None and blended is not None
    assert abs(blended - truth) < abs(measured - truth) / 2  # at least twice as close as the rate alone
    # near the end the measured rate speaks: the two agree within a second
    now[0] = 0.0
    late_plain = Job("k3", "Benchmark", lambda j: None, clock=lambda: now[0])
    _benchmark_with_slow_first_round(late_plain, now, until=24.0)
    now[0] = 0.0
    late_told = Job("k4", "Benchmark", lambda j: None, clock=lambda: now[0])
    late_told.expect(32.0)
    _benchmark_with_slow_first_round(late_told, now, until=24.0)
    assert late_told.status().eta == pytest.approx(late_plain.status().eta, abs=1.0)


def test_an_expected_end_already_passed_says_nothing() -> None:
    now = [0.0]
    job = Job("k", "Benchmark", lambda j: None, clock=lambda: now[0])
    job.expect(2.0)
    assert job.status().eta == pytest.approx(2.0)  # before any progress: the estimate said before Run
    now[0] = 3.0
    assert job.status().eta is None  # overdue, nothing measured: no figure rather than "0 s left"


def test_finished_jobs_are_pruned_running_ones_kept() -> None:
    jobs = JobManager(keep_finished=2)
    gate = threading.Event()
    running = jobs.submit("long", "Long", _gated(gate))
    for i in range(5):
        jobs.submit(f"k{i}", "quick", lambda j, i=i: i).wait(5)
    keys = [j.key for j in jobs.jobs()]
    assert keys[0] == "long" and len(keys) == 3  # the running one, then the 2 newest finished
    jobs.forget("long")  # a running job is never forgotten
    assert jobs.get("long") is running
    gate.set()
    running.wait(5)


def test_format_seconds() -> None:
    assert [format_seconds(x) for x in (None, 4.4, 75.2, 3725)] == ["", "4 s", "1 min 15 s", "1 h 02 min"]


#: A process whose job runs until cancelled (its cleanup writes argv[1]); the main thread leaves at once.
EXITS_WITH_A_RUNNING_JOB = """
import sys, time
from pathlib import Path
from core.background.jobs import JobManager

def work(job):
    try:
        while True:
            job.check()
            time.sleep(0.05)
    finally:
        Path(sys.argv[1]).write_text(job.status().title)

JobManager().submit("k", "Long work", work)
print("running", flush=True)
"""


def test_a_process_that_exits_cancels_its_running_jobs_and_lets_them_clean_up(tmp_path) -> None:
    """Job threads are daemons: without the exit hook the interpreter froze them mid-work, and a job's cleanup
    (a worker killed, a half-built folder removed) never ran when the server stopped."""
    import os
    import subprocess
    import sys

    from tests.procs_support import ROOT

    marker = tmp_path / "cleaned"
    out = subprocess.run([sys.executable, "-c", EXITS_WITH_A_RUNNING_JOB, str(marker)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0 and out.stdout.strip() == "running", out.stderr
    assert marker.read_text() == "Long work"


@pytest.mark.parametrize("ending", ["cancelled", "failed"])
def test_a_finished_job_keeps_its_error_but_not_what_its_work_held(ending: str) -> None:
    """The exception a finished job keeps (to re-raise) held its traceback's frames, and with them what the work
    held: an in-process build's spaCy pool stayed running for as long as the job was listed."""
    import gc
    import weakref

    class Held:
        pass

    refs: list[weakref.ref[Held]] = []

    def work(job: Job) -> None:
        held = Held()
        refs.append(weakref.ref(held))
        if ending == "cancelled":
            job.cancel()
            job.check()
        raise WorkspaceError("the build stopped")

    jobs = JobManager()
    job = jobs.submit("k", "Work", work)
    assert job.wait(5) and job.status().state == ending
    gc.collect()
    assert refs[0]() is None
    with pytest.raises(Cancelled if ending == "cancelled" else WorkspaceError):
        job.result()


def test_a_job_belongs_to_the_session_that_started_it_and_those_that_joined() -> None:
    """Per-session jobs on a shared server: the starter and every session that asked for the same key see it;
    the others count it only; the server's own jobs (no session) are everyone's."""
    who = ["alice"]
    jobs = JobManager(session=lambda: who[0])
    gate = threading.Event()
    try:
        build = jobs.submit("workspace:musique", "Build MuSiQue", _gated(gate))
        question = jobs.submit("method:q1", "BubbleRAG on a private question", _gated(gate))
        server = jobs.submit("workspace:demo", "Build the demo", _gated(gate), session="")
        assert build.sessions == {"alice"} and not server.sessions
        who[0] = "bob"
        assert jobs.submit("workspace:musique", "Build MuSiQue", _gated(gate)) is build  # bob waits on it too
        assert build.sessions == {"alice", "bob"} and question.sessions == {"alice"}
        mine, others = jobs.split("bob")
        assert [j.key for j in mine] == ["workspace:musique", "workspace:demo"]
        assert [j.key for j in others] == ["method:q1"]
        assert [j.key for j in jobs.split("alice")[0]] == ["workspace:musique", "method:q1", "workspace:demo"]
        assert jobs.split("carol") == ([server], [build, question])
        assert server.status().belongs_to("carol") and not question.status().belongs_to("bob")
        jobs.submit("workspace:demo", "Build the demo", _gated(gate))  # joining the server's job keeps it everyone's
        assert not server.sessions
    finally:
        gate.set()
        assert jobs.shutdown(5)


def test_a_session_cancels_only_its_own_job_and_stops_waiting_on_a_shared_one() -> None:
    """Cancel on a shared build (one two sessions wait on, or the server's own) once cancelled it for everyone;
    now the session stops waiting: the job runs on for the others and leaves its list, asking for the same key
    again does not pull it back (its page reruns at once), rejoin does; the last waiter's Cancel cancels."""
    who = ["alice"]
    jobs = JobManager(session=lambda: who[0])
    gate = threading.Event()
    try:
        build = jobs.submit("workspace:musique", "Build MuSiQue", _gated(gate))
        server = jobs.submit("workspace:demo", "Build the demo", _gated(gate), session="")
        assert not build.status().shared_for("alice") and server.status().shared_for("alice")
        who[0] = "bob"
        assert jobs.submit("workspace:musique", "Build MuSiQue", _gated(gate)) is build
        assert build.status().shared_for("alice") and build.status().shared_for("bob")
        # alice started it, but bob waits on it too: her Cancel detaches her
        assert build.stop_for("alice") == "detached"
        assert not build.cancel_event.is_set() and not build.finished and build.sessions == {"bob"}
        assert build not in jobs.split("alice")[0] and build in jobs.split("alice")[1]
        who[0] = "alice"
        assert jobs.submit("workspace:musique", "Build MuSiQue", _gated(gate)) is build  # her page reruns
        assert build.sessions == {"bob"} and not build.status().belongs_to("alice")
        build.rejoin("alice")
        assert build.sessions == {"alice", "bob"} and build.status().belongs_to("alice")
        # the server's own build: nobody cancels it from a page; stopping to wait hides it from that session only
        assert server.stop_for("bob") == "detached" and not server.cancel_event.is_set()
        assert server not in jobs.split("bob")[0] and server in jobs.split("carol")[0]
        assert not server.sessions  # still everyone else's
        # bob stops waiting too; alice is the last one: her Cancel cancels it
        assert build.stop_for("bob") == "detached" and build.sessions == {"alice"}
        assert build.stop_for("alice") == "cancelled"
        gate.set()
        assert build.wait(5) and build.status().state == "cancelled"
        assert server.wait(5) and server.status().state == "done"
    finally:
        gate.set()
        assert jobs.shutdown(5)


def test_a_restart_belongs_to_the_session_that_restarted() -> None:
    who = ["alice"]
    jobs = JobManager(session=lambda: who[0])
    first = jobs.submit("bench", "Benchmark", lambda j: 1)
    assert first.wait(5)
    who[0] = "bob"
    second = jobs.submit("bench", "Benchmark", lambda j: 2)
    assert second is not first and second.wait(5) and second.sessions == {"bob"}
    assert jobs.split("alice") == ([], [second])


def test_extra_labels_are_there_from_the_start() -> None:
    jobs = JobManager()
    job = jobs.submit("m", "Replay", lambda j: None, extra={"replay": True})
    assert job.wait(5) and job.status().get("replay") is True


def test_a_signal_another_thread_took_still_interrupts_a_wait_in_the_main_thread() -> None:
    """Linux hands a process's SIGTERM or Ctrl-C to any of its threads. One taken by a job's thread (sent here
    to it alone, ``pthread_kill``) must still run its handler in the main thread while it waits on the job:
    an untimed wait slept through it, and CI's owner process ran on for its job's ten minutes."""
    import signal

    class Woken(Exception):
        pass

    def handler(signum: int, frame: object) -> None:
        raise Woken

    release = threading.Event()

    def main_waits() -> bool:
        frame = sys._current_frames().get(threading.main_thread().ident or 0)
        while frame is not None:
            if frame.f_code.co_name == "wait" and frame.f_code.co_filename.endswith("jobs.py"):
                return True
            frame = frame.f_back
        return False

    def work(job: Job) -> None:
        while not main_waits():
            time.sleep(0.01)
        signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)  # to this thread only, never the main one
        release.wait(30)  # a wait that slept through the signal is released here, and the test fails below

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        job = JobManager().submit("quiet", "Quiet", work)
        with pytest.raises(Woken):
            job.wait()
        assert not job.finished, "the wait ended only with the job: the signal waited for it"
    finally:
        release.set()
        signal.signal(signal.SIGUSR1, previous)
    assert job.wait(10)


def test_one_move_of_the_fraction_gives_no_eta() -> None:
    """A build's bar moved once, 0 → 3 % (its read-inputs share, over a model loading), and its ETA said "about 2 min
    01 s left" of a build that ended 1 s later (an audit): one move is no rate."""
    now = [0.0]
    job = Job("k", "Build", lambda j: None, clock=lambda: now[0])
    job.report("reading", 0.0)
    now[0] += 3.75
    job.report("extracting 0/12 chunks", 0.03)
    assert job.status().eta is None
    now[0] += 1.0
    job.report("embedding", 0.5)
    assert job.status().eta is not None


def test_a_job_slower_than_its_estimate_is_not_given_less_than_the_estimates_share_of_the_work_left() -> None:
    """An audit's benchmark was estimated at 24 s (measured on another workspace, an idle machine) and took 53 s on a
    loaded one: the time left read "about 12 s" at 1 % done and "16 s" at 5 % with 14 s gone, time passing eating
    the estimate. From half the estimate's time on, the time left is at least the estimate's share of the work left
    (before, a slow first question is warm-up: the test above)."""
    now = [0.0]
    job = Job("k", "Benchmark", lambda j: None, clock=lambda: now[0])
    job.expect(24.0)
    job.report("start", 0.0)
    for t, f in ((12.0, 0.01), (13.0, 0.02), (14.0, 0.05)):
        now[0] = t
        job.report(fraction=f)
        eta = job.status().eta
        assert eta is not None and eta >= 24.0 * (1.0 - f) * 0.95, (t, f, eta)
    assert job.status().eta > 24.0 - 14.0 + 5.0  # the old reading: the estimate's end less the time gone


def _steady_then(job: Job, now: list[float], later_step: float) -> float:
    """20 moves of 0.02 a second (to 40 %), then 6 moves of 0.02 each ``later_step`` seconds; the true seconds left
    at that pace."""
    job.report("embedding", 0.0)
    for _ in range(20):
        now[0] += 1.0
        job.report(fraction=job.status().fraction + 0.02)
    for _ in range(6):
        now[0] += later_step
        job.report(fraction=job.status().fraction + 0.02)
    return (1.0 - job.status().fraction) / 0.02 * later_step


def test_a_slowdown_half_way_shows_in_the_time_left() -> None:
    """An audit's background sample build read "about 50 s left" at 51 % and took about 150 s more: the build the
    auditor started beside it slowed it down, and the rate of the idle first half still spoke."""
    now = [0.0]
    job = Job("k", "Build", lambda j: None, clock=lambda: now[0])
    truth = _steady_then(job, now, later_step=2.5)
    eta = job.status().eta
    assert eta is not None and eta == pytest.approx(truth, rel=0.05), (eta, truth)  # the whole stretch's rate: ≈ 33 s


def test_a_speed_up_does_not_shorten_the_time_left() -> None:
    """Only a slowdown replaces the whole stretch's rate: a recent speed-up keeps the longer estimate (a time left
    that grows back after a drop is what a user distrusts)."""
    now = [0.0]
    job = Job("k", "Build", lambda j: None, clock=lambda: now[0])
    _steady_then(job, now, later_step=0.4)
    f = job.status().fraction
    span_rate = now[0] - 1.0  # measured from the first move on (its warm-up left out)
    assert job.status().eta == pytest.approx(span_rate / (f - 0.02) * (1.0 - f))
