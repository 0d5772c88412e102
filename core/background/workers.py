"""Heavy server work in a worker process: lower CPU priority, fewer threads, memory and time caps, cancel.

The app's server is one Python process; a workspace build, a benchmark or a training run inside it takes
the cores and the GIL every page needs (a benchmark made each click wait 200 s and more). :func:`run_worker`
runs such work in a child Python process instead and watches it:

* **priority**: the child lowers its own CPU priority (``os.setpriority``, nice ``EGX_WORKER_NICE``, default
  10), so a page's click runs first whenever both want a core;
* **threads**: the child's kernel pools (OpenMP/MKL/BLAS for torch and numpy, onnxruntime and llama.cpp
  through ``EGX_THREADS``) get ``EGX_WORKER_THREADS`` threads, default one less than the CPUs the server may
  use (at least 1), so the server keeps a core;
* **memory**: the resident memory of the child and its own children, sampled every 0.1 s, must stay under
  the kind's cap (``EGX_BUILD_MEMORY_MB``, ``EGX_BENCH_MEMORY_MB``, ``EGX_TRAIN_MEMORY_MB``; default 4096);
* **time**: the whole run must end within the kind's time cap (``…_TIMEOUT_S``; default 3600 s, a
  benchmark 6 h);
* **cancel**: a set ``cancel`` event kills the child (and what it started) at once;
* **owner gone**: the child ends with the thread that started it — the kernel's parent-death signal and a
  parent watcher (:func:`core.background.procs.die_with_parent`), armed first thing in the child — so a server killed
  outright (SIGKILL, the out-of-memory killer) leaves no worker behind. A cancel, a cap or an interrupt of the
  watching thread kills the child's whole tree (its process group and any descendant outside it).

What a kind does lives with its code: the engine's kinds are found by name in :data:`KINDS`
(``"module:function"``, imported in the child only), and a method's heavy work (ReG's retriever training, SG-RAG's
dominance model) is a :class:`WorkerTask` its package declares (:attr:`core.methods.base.Method.tasks`), whose
function travels to the child with the spec. Either way ``task(spec, progress) -> dict`` gets the JSON spec and a ``progress(message, fraction)``
callback, and returns a JSON-able result. Each task leaves nothing half-written when killed: a build and a
trained model are written to a hidden sibling and renamed into place when complete; a benchmark appends one
finished JSONL line at a time (a rerun resumes). The child reports progress and its outcome as JSON lines on
stdout; objects cannot cross the process boundary, so models travel by registry name.

Run as ``python -m core.background.workers`` with ``{"kind": …, "spec": …}`` as JSON on stdin (what the parent does).
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import Cancelled, EgxError, InputFormatError, InputReadError, WorkspaceError

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
#: seconds between two memory samples of the child
POLL_S = 0.1
#: the CPU priority a worker runs at unless ``EGX_WORKER_NICE`` says otherwise (0 = the server's, 19 = lowest)
DEFAULT_NICE = 10

#: What a worker can run: kind → ``"module:function"`` (imported in the child only, so this table costs nothing).
KINDS: dict[str, str] = {
    "build": "core.index.isolated:build_task",
    "bench": "core.batch.tasks:bench_task",
    "reproduce": "core.batch.tasks:reproduce_task",
    "probe": "core.background.workers:probe_task",
}
#: The settings prefix of each kind's caps (``<PREFIX>_MEMORY_MB``, ``<PREFIX>_TIMEOUT_S``).
LIMIT_PREFIX = {"build": "EGX_BUILD", "bench": "EGX_BENCH", "reproduce": "EGX_BENCH"}
#: Time caps that differ from :class:`WorkerLimits`' default: a benchmark of many questions may run for hours.
DEFAULT_TIMEOUT_S = {"bench": 6 * 3600.0, "reproduce": 6 * 3600.0}

Progress = Callable[[str, float], None]
#: Seconds to start a worker (interpreter, torch, the workspace and embedder) on a 2-core machine without a GPU:
#: the fixed part of every estimate of a worker's run.
WORKER_START_S = 8.0


@dataclass(frozen=True)
class WorkerTask:
    """Heavy work a method package runs in a worker (:attr:`core.methods.base.Method.tasks`).

    ``kind`` names it in messages and logs; ``function`` (``"module:function"`` under ``core.methods``) is imported
    in the child only, as a :data:`KINDS` entry is; ``limit_prefix`` names the settings of its caps
    (``<PREFIX>_MEMORY_MB``, ``<PREFIX>_TIMEOUT_S``; training: ``EGX_TRAIN``); ``timeout_s`` is its time cap when
    the setting is unset (None: :class:`WorkerLimits`' default).
    """

    kind: str
    function: str
    limit_prefix: str = "EGX_WORKER"
    timeout_s: float | None = None

    def __post_init__(self) -> None:
        module, sep, name = self.function.partition(":")
        if not (sep and name and module.startswith("core.methods.")):
            raise EgxError(f"worker task {self.kind!r}: function {self.function!r} must be 'module:function' in a "
                           "method package, e.g. 'core.methods.reg.training_jobs:train_reg_task'")


@dataclass(frozen=True)
class WorkerLimits:
    """The caps of one worker run (settings: ``<PREFIX>_MEMORY_MB``, ``<PREFIX>_TIMEOUT_S``; builds use
    ``EGX_BUILD``)."""

    memory_mb: float = 4096.0
    timeout_s: float = 3600.0
    prefix: str = "EGX_BUILD"

    @classmethod
    def from_env(cls, prefix: str = "EGX_BUILD", *, timeout_s: float | None = None) -> WorkerLimits:
        """The caps from the environment; a value that is not a positive number is a :class:`WorkspaceError`
        naming the variable. ``timeout_s`` replaces the default time cap (not a set variable)."""
        out: dict[str, Any] = {"prefix": prefix}
        if timeout_s is not None:
            out["timeout_s"] = timeout_s
        for field, var in (("memory_mb", f"{prefix}_MEMORY_MB"), ("timeout_s", f"{prefix}_TIMEOUT_S")):
            raw = os.environ.get(var, "").strip()
            if not raw:
                continue
            try:
                value = float(raw)
            except ValueError:
                value = -1.0
            if not value > 0 or value != value:
                raise WorkspaceError(f"{var}={raw!r} is not a positive number; set it to e.g. "
                                     f"{getattr(cls(), field):g}, or unset it.")
            out[field] = value
        return cls(**out)

    @classmethod
    def for_kind(cls, kind: str | WorkerTask) -> WorkerLimits:
        """The caps of a :data:`KINDS` name, or of a method's :class:`WorkerTask` (its own prefix and time cap)."""
        if isinstance(kind, WorkerTask):
            return cls.from_env(kind.limit_prefix, timeout_s=kind.timeout_s)
        return cls.from_env(LIMIT_PREFIX.get(kind, "EGX_WORKER"), timeout_s=DEFAULT_TIMEOUT_S.get(kind))


def _int_setting(var: str, default: int, lo: int, hi: int) -> int:
    raw = os.environ.get(var, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = lo - 1
    if not lo <= value <= hi:
        raise WorkspaceError(f"{var}={raw!r} is not an integer from {lo} to {hi}; set it to e.g. {default}, "
                             "or unset it.")
    return value


def worker_nice() -> int:
    """The CPU priority of a worker (``EGX_WORKER_NICE``, 0–19, default 10): higher is lower priority."""
    return _int_setting("EGX_WORKER_NICE", DEFAULT_NICE, 0, 19)


def worker_idle() -> bool:
    """Whether workers run in Linux's ``SCHED_IDLE`` class besides their nice value (``EGX_WORKER_SCHED``:
    ``idle`` or ``nice``)."""
    return os.environ.get("EGX_WORKER_SCHED", "nice").strip().lower() == "idle"


def worker_threads() -> int:
    """Kernel threads of a worker (``EGX_WORKER_THREADS``; default the server's usable CPUs less one, at
    least 1), so that the server keeps a core for the pages while a job runs."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return _int_setting("EGX_WORKER_THREADS", max(1, cpus - 1), 1, 4096)


#: the variables the kernel libraries read for their pool sizes (torch and numpy via OpenMP / MKL / BLAS;
#: onnxruntime and llama.cpp via the project's own ``EGX_THREADS``, :func:`core.backends.device.cpu_threads`)
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "EGX_THREADS")
#: the variable that tells a worker which process started it (:func:`core.background.procs.die_with_parent`)
PARENT_VAR = "EGX_WORKER_PARENT"


def child_env(threads: int) -> dict[str, str]:
    """The environment of a worker: the server's, this checkout first on the path, the thread caps."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    for var in THREAD_VARS:
        env[var] = str(threads)
    env["TOKENIZERS_PARALLELISM"] = "false"  # HF tokenizers would start a pool of their own
    env[PARENT_VAR] = str(os.getpid())  # the child watches this process and ends with it
    return env


def _rss_mb(proc: Any) -> float:
    """Resident memory of ``proc`` and all its descendants, in MB (0 when it is gone)."""
    import psutil

    total = 0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0.0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


@dataclass(frozen=True)
class Words:
    """How a worker's ending is told: ``subject`` ("The build of “demo2”"), and what a stopped run leaves
    (``kept``: "Nothing was saved; the server and any previous workspace are untouched.")."""

    subject: str
    kept: str

    def cancelled(self) -> str:
        return f"{self.subject} was cancelled; {self.kept[:1].lower()}{self.kept[1:]}"


def parse_line(line: str) -> dict[str, Any] | None:
    """One line of a worker's stdout as a message (``{"m": …, "p": …}`` progress, ``{"done": true, "result":
    …}`` or ``{"error": …}``); None for anything else (a library printing to stdout)."""
    try:
        msg = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return None
    return msg if isinstance(msg, dict) else None


def run_worker(kind: str | WorkerTask, spec: Mapping[str, Any], *, words: Words, limits: WorkerLimits | None = None,
               progress: Progress | None = None, cancel: threading.Event | None = None,
               on_start: Callable[[int], None] | None = None,
               cleanup: Callable[[], object] | None = None) -> dict[str, Any]:
    """Run task ``kind`` on ``spec`` in a worker process within ``limits``; returns its figures
    (``{"peak_mb": …, "seconds": …, "result": <the task's result>}``).

    Parameters
    ----------
    kind
        A name of :data:`KINDS`, or a method's :class:`WorkerTask`.
    spec
        The task's JSON-able input.
    words
        How the messages name the work and what a stopped run leaves.
    progress
        ``progress(message, fraction)`` for every progress line of the child.
    cancel
        Set it to kill the child.
    on_start
        Called with the child's process id once it runs (tests, and the server's log).
    cleanup
        Called once the child has ended, however it ended (removes what a killed task left half-written).

    Raises
    ------
    WorkspaceError
        The child passed the memory or time cap (naming it and its setting), or died.
    EgxError
        The task's own error (bad input, a model that cannot load), as the child reported it.
    Cancelled
        ``cancel`` was set.
    """
    import psutil

    if isinstance(kind, WorkerTask):
        task = kind
        kind = task.kind
        lim = limits or WorkerLimits.for_kind(task)
        extra = {"function": task.function}
    else:
        if kind not in KINDS:
            raise EgxError(f"unknown worker kind {kind!r}; one of {', '.join(KINDS)}")
        lim = limits or WorkerLimits.for_kind(kind)
        extra = {}
    payload = json.dumps({"kind": kind, "spec": dict(spec), "nice": worker_nice(), "idle": worker_idle(), **extra})
    child = subprocess.Popen([sys.executable, "-m", "core.background.workers"], cwd=str(ROOT), env=child_env(worker_threads()),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, encoding="utf-8", start_new_session=True)
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    if on_start is not None:
        on_start(child.pid)
    child.stdin.write(payload)
    child.stdin.close()
    outcome: dict[str, Any] = {}
    err_tail: list[str] = []

    def read_stdout() -> None:
        for line in child.stdout:  # type: ignore[union-attr]
            msg = parse_line(line)
            if msg is None:
                continue
            if "p" in msg and progress is not None:
                try:
                    progress(str(msg.get("m", "")), float(msg["p"]))
                except Cancelled:  # a job's progress raises once it is cancelled; the loop below kills
                    pass
            elif "error" in msg or "done" in msg:
                outcome.update(msg)

    def read_stderr() -> None:
        for line in child.stderr:  # type: ignore[union-attr]
            err_tail.append(line)
            del err_tail[:-20]

    readers = [threading.Thread(target=f, daemon=True) for f in (read_stdout, read_stderr)]
    for t in readers:
        t.start()
    proc = psutil.Process(child.pid)
    t0, peak, stop = time.monotonic(), 0.0, ""
    try:
        while child.poll() is None:
            peak = max(peak, _rss_mb(proc))
            took = time.monotonic() - t0
            if peak > lim.memory_mb:
                stop = (f"used more than {lim.memory_mb:,.0f} MB of memory ({lim.prefix}_MEMORY_MB) and was stopped; "
                        f"use a smaller input, or raise {lim.prefix}_MEMORY_MB")
            elif took > lim.timeout_s:
                stop = (f"ran past {lim.timeout_s:g} s ({lim.prefix}_TIMEOUT_S) and was stopped; use a smaller "
                        f"input, or raise {lim.prefix}_TIMEOUT_S")
            elif cancel is not None and cancel.is_set():
                stop = "cancelled"
            if stop:
                kill(child)
                break
            time.sleep(POLL_S)
    except BaseException:  # the watching thread itself was interrupted: never leave the child running
        kill(child)
        raise
    finally:
        child.wait()
        for t in readers:
            t.join(5)
        if cleanup is not None:
            cleanup()
    if stop == "cancelled":
        raise Cancelled(words.cancelled())
    if stop:
        raise WorkspaceError(f"{words.subject} {stop}. {words.kept}")
    if "error" in outcome:  # the task's own refusal, in both wordings (the app shows EgxError.in_app)
        error = InputReadError if outcome.get("input") else EgxError  # unreadable input stays told apart
        raise error(str(outcome["error"]), app=str(outcome["app"]) if outcome.get("app") else None)
    if child.returncode != 0 or not outcome.get("done"):
        tail = "".join(err_tail).strip().splitlines()[-1:] or ["no message"]
        log.warning("worker %s (%s) ended with status %s: %s", kind, words.subject, child.returncode,
                    "".join(err_tail)[-4000:])
        # the last line of a traceback names the error and often a server path: the browser gets its type only
        what = tail[0].split(":", 1)[0].strip()[:80] or "no message"
        raise WorkspaceError(f"{words.subject} ended without finishing (exit status {child.returncode}: {what}). "
                             f"{words.kept} Try again; the server's log has the details.")
    figures: dict[str, Any] = {"peak_mb": round(peak, 1), "seconds": round(time.monotonic() - t0, 2)}
    if "result" in outcome:
        figures["result"] = outcome["result"]
    return figures


def kill(child: subprocess.Popen[str]) -> None:
    """End the child and anything it started: its descendants (found first, so none escapes by being
    re-parented, even one that left the group) and its own process group."""
    from core.background.procs import kill_tree

    kill_tree(child.pid, include_self=False, timeout=0.0)  # the child itself: below, and reaped by its Popen
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        child.kill()


# ------------------------------------------------------------------------------------ the child's side
def emit(msg: Mapping[str, Any]) -> None:
    """One JSON line to the parent."""
    sys.stdout.write(json.dumps(msg, default=str) + "\n")
    sys.stdout.flush()


def lower_priority(nice: int, *, idle: bool = False) -> int:
    """Lower this process's CPU priority to ``nice`` (never raise it: a server started at nice 15 keeps its
    workers at 15) and, with ``idle``, move it to Linux's ``SCHED_IDLE`` class (it runs only on a core no
    normal task wants). Called before any thread starts: the kernel's pools inherit it. Returns the nice
    value now in force."""
    try:
        now = os.getpriority(os.PRIO_PROCESS, 0)
        if nice > now:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        if idle and hasattr(os, "SCHED_IDLE"):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return os.getpriority(os.PRIO_PROCESS, 0)
    except (AttributeError, OSError):  # no priorities here (not POSIX): run at the server's
        return 0


def task_function(kind: str, function: str = "") -> Callable[[dict[str, Any], Progress], dict[str, Any]]:
    """The function of ``kind`` (:data:`KINDS`), or a method's ``function`` (:attr:`WorkerTask.function`), imported."""
    import importlib

    if function:
        WorkerTask(kind, function)  # the same check as the parent's: only a method package's function runs
    module, _, name = (function or KINDS[kind]).partition(":")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def probe_task(spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """What a worker runs at (its CPU priority and thread caps), after ``steps`` progress reports ``sleep`` s
    apart; ``fail`` raises that as the task's own error, ``crash`` as an unexpected one. For checking the
    mechanism (tests, and a look at a deployment's settings) without loading any model."""
    for i in range(int(spec.get("steps", 0))):
        time.sleep(float(spec.get("sleep", 0.0)))
        progress(f"step {i + 1}", (i + 1) / int(spec["steps"]))
    if spec.get("fail"):
        raise EgxError(str(spec["fail"]), app=str(spec["fail_app"]) if spec.get("fail_app") else None)
    if spec.get("crash"):
        raise RuntimeError(str(spec["crash"]))
    idle = hasattr(os, "SCHED_IDLE") and os.sched_getscheduler(0) == os.SCHED_IDLE
    return {"nice": os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else 0,
            "sched": "idle" if idle else "normal", "threads": {v: os.environ.get(v, "") for v in THREAD_VARS}}


def main(argv: Sequence[str] | None = None) -> None:
    from core.background.procs import die_with_parent

    parent = os.environ.get(PARENT_VAR, "")
    if parent.isdigit():  # before anything slow: a server killed while this starts leaves nothing running
        die_with_parent(int(parent))
    raw = json.loads(sys.stdin.read())
    lower_priority(int(raw.get("nice", DEFAULT_NICE)), idle=bool(raw.get("idle", False)))
    kind = str(raw.get("kind", ""))
    function = str(raw.get("function", ""))
    try:
        if not function and kind not in KINDS:
            raise EgxError(f"unknown worker kind {kind!r}; one of {', '.join(KINDS)}")
        result = task_function(kind, function)(raw.get("spec") or {}, lambda m, f: emit({"m": m, "p": f}))
    except EgxError as exc:
        emit({"error": str(exc), **({"app": exc.app_message} if exc.app_message else {}),
              **({"input": True} if isinstance(exc, InputFormatError) else {})})
        raise SystemExit(2) from None
    emit({"done": True, "result": result})


if __name__ == "__main__":
    main()
