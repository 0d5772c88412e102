"""Background jobs owned by the process, not by whoever asked for them.

The app runs long work — building a sample or uploaded workspace, re-indexing, a benchmark, a
method run that waits on an LLM — as a :class:`Job` of one :class:`JobManager` per server
process. A job runs in its own thread, so it survives what ends a Streamlit script run (a click,
a page switch, a closed tab); the sessions it belongs to see it (progress fraction, message, elapsed time,
an ETA from the measured rate) and may cancel it. A second request for the same *key* (the same
workspace build, the same benchmark run) joins the running job instead of starting another.

Each job remembers the browser sessions it belongs to (:attr:`Job.sessions`): the one that started it and
every one that joined it by asking for the same key (a workspace build two students wait on). Jobs the server
started itself (no session: the samples built at ``egx app``'s start) belong to every session. A session is
shown its own jobs in full and only the number of the others (:meth:`JobManager.split`): on a shared classroom
server nobody reads another student's questions, run names or errors.

A session cancels only what is its alone (:meth:`Job.stop_for`): a job it started and nobody else waits on. On
a shared job (another session waits on it too, or the server started it) it *stops waiting* instead: the job
runs on for the others and leaves this session's list, and asking for the same key again does not pull the
session back in (a page rerun would otherwise re-join at once); :meth:`Job.rejoin` does.

A job's thread only *watches* heavy work: builds, benchmarks and training run in a worker process
(:mod:`core.background.workers`) at a lower CPU priority and with one core left to the server, which the thread
kills on cancel. Method runs that wait on an LLM stay threads: they mostly wait (on an HTTP server or the
local model's own native threads, outside the GIL), and their result is a large object graph the page
reads in place — sending it back from another process would cost more than the run.

Cancelling is cooperative: :meth:`Job.cancel` sets an event, and the job's next progress report
(:meth:`Job.progress`, or :meth:`Job.check`) raises :class:`~core.errors.Cancelled`, which unwinds
through the work's own cleanup (a workspace build deletes its temporary folder; a benchmark keeps
the JSONL lines already written). Work that waits on something slow without reporting (an LLM
attempt) reads :attr:`Job.cancel_event` itself (:func:`core.backends.llm_guard.question_scope`).

When the process exits normally (the server's Ctrl-C or SIGTERM: Streamlit stops and the interpreter
exits), every job still running is cancelled and waited for, up to :data:`EXIT_WAIT_S` seconds, so
each worker process is killed and its half-written output removed the way the Cancel button does; a
process killed outright takes its workers along through their parent-death signal (:mod:`core.background.workers`).

Pure Python: no Streamlit here (``components/resources.py`` holds the per-server instance).
"""

from __future__ import annotations

import atexit
import itertools
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

from core.background.eta import RateMeter
from core.errors import Cancelled, EgxError

JobState = Literal["running", "done", "failed", "cancelled"]
#: What :meth:`Job.stop_for` did: cancelled the job (the session's alone) or detached the session (a shared job).
StopOutcome = Literal["cancelled", "detached"]
#: How many finished jobs a manager remembers (newest first); running jobs are never dropped.
KEEP_FINISHED = 32

#: Seconds an exiting process waits for its cancelled jobs to end (a worker is killed within its poll, 0.1 s;
#: a method run stops at its next progress report or LLM poll).
EXIT_WAIT_S = 10.0
#: Seconds between the wakes of a main thread waiting on a job (:meth:`Job.wait`): how late a signal that
#: another thread took is handled at most.
WAKE_S = 0.2

_ids = itertools.count(1)
#: A new job's message until it reports its first step.
STARTING = "Starting…"


class JobBusyError(EgxError):
    """Work with inputs of its own was submitted under the key of a job that is still running."""

    def __init__(self, title: str) -> None:
        super().__init__(f"{title} is running right now (in this or another browser tab); wait for it to "
                         "finish or pick another name.")
        self.title = title
_CURRENT: ContextVar[Job | None] = ContextVar("egx_current_job", default=None)


def current_job() -> Job | None:
    """The job whose thread is running this code (None outside any job): deep code (a method's
    stage, an LLM wait) reports its stage and tokens to it and stops when it is cancelled."""
    return _CURRENT.get()


@dataclass(frozen=True)
class JobStatus:
    """A consistent snapshot of a job, safe to read from any thread."""

    id: int
    key: str
    title: str
    kind: str
    state: JobState
    fraction: float | None  #: 0..1 of the work done; None while the amount of work is unknown
    message: str
    elapsed: float  #: seconds since the job started (until it finished, once finished)
    eta: float | None  #: seconds left at the measured rate; None until it can be measured
    error: str  #: the failure or cancellation message ("" while running or when done)
    cancel_requested: bool
    since_finished: float | None = None  #: seconds since it finished (None while running)
    extra: tuple[tuple[str, object], ...] = ()  #: the job's counters and labels (stage, tokens, …)
    sessions: frozenset[str] = frozenset()  #: the sessions it belongs to (empty: the server's own, everyone's)
    detached: frozenset[str] = frozenset()  #: the sessions that stopped waiting on it (:meth:`Job.stop_for`)

    def belongs_to(self, session: str) -> bool:
        """Whether ``session`` started or joined this job, or it is the server's own (no session), and has not
        stopped waiting on it."""
        return session not in self.detached and (not self.sessions or session in self.sessions)

    def shared_for(self, session: str) -> bool:
        """Whether the job is not ``session``'s alone (the server's own, or another session waits on it too):
        then ``session`` may only stop waiting on it, never cancel it (:meth:`Job.stop_for`)."""
        return not self.sessions or bool(self.sessions - {session})

    def get(self, name: str, default: object = None) -> object:
        return dict(self.extra).get(name, default)

    @property
    def running(self) -> bool:
        return self.state == "running"


class Job:
    """One unit of background work: ``fn(job)`` in its own thread, reporting through the job.

    ``fn`` reports progress with :meth:`progress` (``(message, fraction)``, the signature of
    :data:`core.index.indexing.Progress`) or :meth:`report`, and returns the job's result.
    """

    def __init__(self, key: str, title: str, fn: Callable[[Job], Any], *, kind: str = "job",
                 clock: Callable[[], float] = time.monotonic, session: str = "",
                 extra: Mapping[str, Any] | None = None) -> None:
        self.id = next(_ids)
        self.key = key
        self.title = title
        self.kind = kind
        self.cancel_event = threading.Event()
        self._fn = fn
        self._clock = clock
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._state: JobState = "running"
        self._fraction: float | None = None
        self._message = STARTING
        self._started = clock()
        self._finished: float | None = None
        self._rate = RateMeter()  # the fraction's moves, for the time left
        self._result: Any = None
        self._error = ""
        self._exc: BaseException | None = None
        self.extra: dict[str, Any] = dict(extra or {})  #: what the owner shows next to the job (stage, tokens, …)
        self._sessions: set[str] = {session} if session else set()
        self._detached: set[str] = set()  # sessions that stopped waiting on this job (it ran on for others)
        self._thread = threading.Thread(target=self._run, name=f"egx-job-{self.id}", daemon=True)

    # ------------------------------------------------------------------ running
    def start(self) -> Job:
        _STARTED.add(self)
        self._thread.start()
        return self

    def _run(self) -> None:
        _CURRENT.set(self)  # this thread's own context: set once, never reset
        try:
            result = self._fn(self)
        except Cancelled as exc:
            self._finish("cancelled", error=str(exc) or "Cancelled.", exc=_released(exc))
        except EgxError as exc:  # jobs are the app's: their status speaks its words (no flags, no paths)
            self._finish("failed", error=exc.in_app(), exc=_released(exc))
        except BaseException as exc:  # a job thread must record its failure, never die silently
            self._finish("failed", error=f"{type(exc).__name__}: {exc}", exc=_released(exc))
        else:
            self._finish("done", result=result)

    def _finish(self, state: JobState, *, result: Any = None, error: str = "",
                exc: BaseException | None = None) -> None:
        with self._lock:
            if state == "done":
                self._fraction = 1.0
            self._state = state
            self._result = result
            self._error = error
            self._exc = exc
            self._finished = self._clock()
        self._done.set()

    # ------------------------------------------------------------------ reporting (from the job's thread)
    def check(self) -> None:
        """Raise :class:`Cancelled` when a cancel was requested (call it between units of work)."""
        if self.cancel_event.is_set():
            raise Cancelled(f"{self.title}: cancelled. What was finished before is kept.")

    def report(self, message: str | None = None, fraction: float | None = None, **extra: Any) -> None:
        """Record progress (any argument may be left out), then :meth:`check` for a cancel."""
        now = self._clock()
        with self._lock:
            if message is not None:
                self._message = message
            if fraction is not None:
                self._fraction = self._rate.add(now, fraction)  # never backwards
            self.extra.update(extra)
        self.check()

    def expect(self, seconds: float) -> None:
        """The job's own estimate of its whole time, from now (:meth:`RateMeter.expect`): its time left leans on it
        while little is done."""
        with self._lock:
            self._rate.expect(self._clock(), seconds)

    def count(self, **increments: int) -> None:
        """Add to counters shown next to the job (``llm_calls=1, tokens=312``)."""
        with self._lock:
            for k, v in increments.items():
                self.extra[k] = int(self.extra.get(k, 0)) + int(v)

    def progress(self, message: str, fraction: float) -> None:
        """``progress(message, fraction)``: the callback core's long functions accept."""
        self.report(message, fraction)

    # ------------------------------------------------------------------ control and reading (any thread)
    def add_session(self, session: str) -> None:
        """``session`` waits on this job too (it asked for the same key): it is listed as its job from now on.
        A server's own job (no session) stays everyone's. A session that stopped waiting (:meth:`stop_for`) is
        not added back by asking again: a rerun of the page it stopped waiting on asks at once; :meth:`rejoin`
        adds it back."""
        with self._lock:
            if session and self._sessions and session not in self._detached:
                self._sessions.add(session)

    def rejoin(self, session: str) -> None:
        """``session`` waits on this job again after it stopped waiting (its "wait for it again")."""
        with self._lock:
            self._detached.discard(session)
            if session and self._sessions:
                self._sessions.add(session)

    def stop_for(self, session: str) -> StopOutcome:
        """What ``session``'s Cancel does: cancel the job when it is ``session``'s alone (it started or joined it
        and nobody else waits on it), else detach ``session`` from it (a build another session waits on too, or
        the server's own sample build), so it runs on for the others and leaves ``session``'s list.

        Returns
        -------
        "cancelled" or "detached"
        """
        with self._lock:
            shared = not self._sessions or bool(self._sessions - {session})
            if shared:
                self._sessions.discard(session)
                self._detached.add(session)
                return "detached"
        self.cancel()
        return "cancelled"

    @property
    def sessions(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._sessions)

    def cancel(self) -> None:
        """Ask the job to stop at its next progress report, for everyone who waits on it (the server's exit, a
        job's own owner; a session's Cancel button goes through :meth:`stop_for`)."""
        self.cancel_event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job finished (True) or ``timeout`` passed (False).

        In the main thread it wakes every :data:`WAKE_S` seconds. Linux hands a signal sent to the process
        to any of its threads; when a job's thread took a SIGTERM or a Ctrl-C, a main thread asleep in one
        untimed wait never ran the handler, and the process (a script's owner of the job, its worker with
        it) ran on for the job's whole length."""
        if threading.current_thread() is not threading.main_thread():
            return self._done.wait(timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            step = WAKE_S if deadline is None else min(WAKE_S, deadline - time.monotonic())
            if step <= 0:
                return self._done.is_set()
            if self._done.wait(step):
                return True

    @property
    def finished(self) -> bool:
        return self._done.is_set()

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def result(self) -> Any:
        """The value ``fn`` returned; raises what it raised (or :class:`EgxError` while running)."""
        if not self._done.is_set():
            raise EgxError(f"{self.title} is still running; wait for it to finish.")
        if self._exc is not None:
            raise self._exc
        return self._result

    def status(self) -> JobStatus:
        now = self._clock()
        with self._lock:
            end = self._finished if self._finished is not None else now
            f = self._fraction
            eta = self._rate.seconds_left(now) if self._state == "running" else None
            return JobStatus(self.id, self.key, self.title, self.kind, self._state, f, self._message,
                             end - self._started, eta, self._error, self.cancel_event.is_set(),
                             None if self._finished is None else now - self._finished,
                             tuple(sorted(self.extra.items())), frozenset(self._sessions),
                             frozenset(self._detached))

    def __repr__(self) -> str:
        s = self.status()
        return f"Job({self.key!r}, {s.state}, fraction={s.fraction}, {s.message!r})"


class JobManager:
    """The jobs of one process: start or join by key, list, cancel.

    Examples
    --------
    >>> jobs = JobManager()
    >>> job = jobs.submit("demo", "Count", lambda j: sum(range(10)))
    >>> job.wait(5) and job.result()
    45
    """

    def __init__(self, *, keep_finished: int = KEEP_FINISHED, session: Callable[[], str] = lambda: "") -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}  # newest job per key
        self._keep = keep_finished
        self._session = session

    def submit(self, key: str, title: str, fn: Callable[[Job], Any], *, kind: str = "job",
               restart: bool = True, join: bool = True, session: str | None = None,
               extra: Mapping[str, Any] | None = None) -> Job:
        """Start ``fn`` as job ``key`` — or return the job running under ``key`` (joining it).

        The job belongs to ``session`` (None: the manager's ``session()``, the asking browser session; ``""``:
        the server's own job, everyone's); a session that joins a job (or is handed a finished one back) is
        added to the sessions it belongs to, so a shared build stays visible to everyone who waits on it.

        Parameters
        ----------
        restart
            When the last job under ``key`` has finished: start a new one (True), or hand the
            finished one back (False; the caller reads its result, error or cancellation).
        join
            When a job runs under ``key``: return it (True: the same work, e.g. one workspace build
            asked for twice), or raise :class:`JobBusyError` (False: ``fn`` carries inputs of its own,
            e.g. another upload under the same name, which must never silently become the first one).

        Raises
        ------
        JobBusyError
            ``join=False`` and a job runs under ``key``.
        """
        who = self._session() if session is None else session
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not job.finished and not join:
                raise JobBusyError(job.title)
            if job is not None and (not job.finished or not restart):
                job.add_session(who)
                return job
            job = Job(key, title, fn, kind=kind, session=who, extra=extra)
            self._jobs.pop(key, None)
            self._jobs[key] = job
            self._prune()
        return job.start()

    def get(self, key: str) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def jobs(self) -> list[Job]:
        """Running jobs first (oldest first), then finished ones (newest first)."""
        with self._lock:
            self._prune()
            all_jobs = list(self._jobs.values())
        running = sorted((j for j in all_jobs if not j.finished), key=lambda j: j.id)
        done = sorted((j for j in all_jobs if j.finished), key=lambda j: -j.id)
        return running + done

    def cancel(self, key: str) -> bool:
        """Ask job ``key`` to stop; False when no such job is running."""
        job = self.get(key)
        if job is None or job.finished:
            return False
        job.cancel()
        return True

    def forget(self, key: str) -> None:
        """Drop a finished job (a running one is kept: it still owns its work)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.finished:
                del self._jobs[key]

    def running(self) -> list[Job]:
        return [j for j in self.jobs() if not j.finished]

    def split(self, session: str) -> tuple[list[Job], list[Job]]:
        """(the jobs ``session`` started or joined plus the server's own, less those it stopped waiting on; the
        other jobs), each in :meth:`jobs` order. A display shows the first in full and of the second only how
        many there are."""
        mine: list[Job] = []
        others: list[Job] = []
        for j in self.jobs():
            (mine if j.status().belongs_to(session) else others).append(j)
        return mine, others

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Cancel every running job and wait up to ``timeout`` s for them; True when all ended."""
        deadline = time.monotonic() + timeout
        jobs = self.running()
        for j in jobs:
            j.cancel()
        return all(j.wait(max(0.0, deadline - time.monotonic())) for j in jobs)

    def _prune(self) -> None:
        done = sorted((j for j in self._jobs.values() if j.finished), key=lambda j: j.id)
        for j in done[:max(0, len(done) - self._keep)]:
            del self._jobs[j.key]


def _released(exc: BaseException) -> BaseException:
    """``exc`` with the local variables of its traceback's frames (and its causes') cleared: a finished job keeps
    its exception to re-raise, and the frames would keep what the work held alive as long as the job is listed —
    an in-process build's spaCy pool (two workers, ~660 MB) for each of the last 32 jobs. File and line stay."""
    import traceback

    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if e.__traceback__ is not None:
            traceback.clear_frames(e.__traceback__)
        e = e.__cause__ or e.__context__
    return exc


#: every job this process started that still exists (weakly: a finished job nobody keeps goes); a running
#: job is held by its own thread
_STARTED: weakref.WeakSet[Job] = weakref.WeakSet()


@atexit.register
def _cancel_at_exit() -> None:
    """Cancel the jobs still running when the process exits, and wait for them (bounded): job threads are
    daemons, which the interpreter would otherwise freeze mid-work, their workers' half-written output left
    behind."""
    running = [j for j in list(_STARTED) if not j.finished]
    for j in running:
        j.cancel()
    deadline = time.monotonic() + EXIT_WAIT_S
    for j in running:
        j.wait(max(0.0, deadline - time.monotonic()))


def format_seconds(seconds: float | None) -> str:
    """``75.2`` → ``"1 min 15 s"``; None → ``""`` (for ETAs and elapsed times)."""
    if seconds is None:
        return ""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"
