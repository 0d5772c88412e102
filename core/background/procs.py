"""Processes egx starts end when their owner ends: start a child that dies with its parent, kill a process
tree, count what a command left running.

egx starts child processes of four kinds, and each must end with whatever started it — a normal exit, an
exception, Ctrl-C (SIGINT), SIGTERM, the app's Cancel, a memory or time cap, or its owner killed outright
(SIGKILL, the out-of-memory killer), which runs no cleanup at all:

=====================================  ======================================================================
the child                              how it notices that its owner is gone
=====================================  ======================================================================
app workers (:mod:`core.background.workers`)      Linux ``PR_SET_PDEATHSIG`` (SIGKILL) plus a parent watcher thread,
                                       both armed by the child itself (:func:`die_with_parent`); its own
                                       process group, which cancel and the caps kill whole
spaCy pool workers and multiprocessing a parent watcher thread only (:func:`die_with_parent` with
``resource_tracker``                   ``kernel=False``), SIGINT ignored; the tracker ends when the last of
                                       them has (it reads a pipe they hold until it closes)
foreign programs (FalkorDB's           a tie (:func:`tied`): a small Python prelude arms
``redis-server``, the test servers)    ``PR_SET_PDEATHSIG`` and then ``exec``s the program, which keeps it
local Ray                              Ray's own fate sharing (its head processes arm ``PR_SET_PDEATHSIG``;
                                       its workers end with the raylet), and a :class:`Sweeper` for its
                                       agents, which outlived their raylet by a minute and more: a process
                                       that kills them once its pipe from the owner closes
=====================================  ======================================================================

Why two mechanisms: the kernel's parent-death signal is immediate and needs nothing from the child, but
Linux sends it when the *thread* that started the child ends, not the process; a spaCy pool may be started
by an app job's thread that ends long before the pool does, so those workers poll their parent process
id instead (:data:`WATCH_S`), which changes only when the whole owner is gone. A watcher thread needs the
interpreter, so a foreign program gets the kernel signal through :func:`tied`, started from a thread that
lives as long as the program (the main thread, or the thread that waits on it).

SIGTERM and SIGHUP end a Python process without running any ``finally``; :func:`terminate_as_interrupt`
turns them into :class:`Terminated` (a ``KeyboardInterrupt``) for the span of a command, so a ``kill`` cleans
up exactly as Ctrl-C does (temporary folders removed, pools stopped, the lock released).

Processes are counted with ``psutil`` (:func:`descendants`, :func:`tagged`, :func:`rss_mb`): a child
that outlived its owner is re-parented and is no longer anybody's descendant, so the tests and
``benchmarks/orphans.py`` give the command an environment tag (:data:`TAG_VAR`) and look for the tag.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import wraps
from types import FrameType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: Seconds between two looks of a parent watcher at its parent process id.
WATCH_S = 0.2
#: The exit status of a child that ended because its owner was gone.
ORPHANED_EXIT = 3
#: The environment variable that marks a command and everything it starts (tests, ``benchmarks/orphans.py``).
TAG_VAR = "EGX_PROC_TAG"
_PR_SET_PDEATHSIG = 1

# The tie's prelude: standard library only (it runs before anything of egx is importable, with -I), arms the
# kernel's parent-death signal, gives up when the parent is already gone, then becomes the program.
_TIE = """\
import ctypes, os, sys
parent, sig, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
if ctypes.CDLL(None, use_errno=True).prctl(1, sig, 0, 0, 0) != 0:
    sys.exit(f"egx: cannot tie {argv[0]} to its owner: prctl(PR_SET_PDEATHSIG) failed ({os.strerror(ctypes.get_errno())})")
if os.getppid() != parent:
    os._exit(3)
os.execvp(argv[0], argv)
"""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: raised like Ctrl-C's ``KeyboardInterrupt``, so the same cleanup runs."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


def can_tie() -> bool:
    """Whether this system has the kernel's parent-death signal (Linux)."""
    return sys.platform.startswith("linux")


def set_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when the thread that started it ends
    (``prctl(PR_SET_PDEATHSIG)``); False where there is no such call (not Linux)."""
    if not can_tie():
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl(PR_SET_PDEATHSIG) failed: {os.strerror(err)}")
    return True


def die_with_parent(parent_pid: int, *, kernel: bool = True, poll_s: float = WATCH_S) -> None:
    """Make this process end when ``parent_pid`` is no longer its parent (the owner ended, however).

    Call it first thing in a child. With ``kernel`` the kernel kills this process at once when the thread
    that started it ends (:func:`set_death_signal`: only right when that thread lives as long as the child);
    in every case a daemon thread looks at the parent process id every ``poll_s`` seconds and, once it
    changed (the child was re-parented), kills what this process started and exits with
    :data:`ORPHANED_EXIT`. It works while the main thread ignores SIGINT or is busy in a long computation
    (it needs the interpreter lock once per look).

    Parameters
    ----------
    parent_pid
        The owner's process id as the owner saw it (``os.getpid()`` there): when it differs from
        ``os.getppid()`` already, the owner is gone before the watch began and this process exits now.
    """
    if kernel:
        set_death_signal(signal.SIGKILL)
    if os.getppid() != parent_pid:
        _orphaned()
    threading.Thread(target=_watch_parent, args=(parent_pid, poll_s), name="egx-parent-watch", daemon=True).start()


def _watch_parent(parent_pid: int, poll_s: float) -> None:
    while os.getppid() == parent_pid:
        time.sleep(poll_s)
    _orphaned()


def _orphaned() -> None:
    """The owner is gone: what this process started goes first (a pool's workers, a tracker), then this."""
    with contextlib.suppress(Exception):
        kill_tree(os.getpid(), include_self=False, timeout=2.0)
    os._exit(ORPHANED_EXIT)


def tied(cmd: Sequence[str], *, sig: int = signal.SIGKILL) -> list[str]:
    """``cmd`` as a command that the kernel ends with ``sig`` when this process — precisely, the thread that
    starts it — ends, even by SIGKILL: a prelude arms ``PR_SET_PDEATHSIG`` and ``exec``s ``cmd`` (the signal
    survives the ``exec``; same process id, so ``Popen.pid``, ``terminate()`` and process groups work as
    before). Unchanged where the kernel has no such signal (not Linux).

    Start it from a thread that lives as long as the program (the main thread, or the one that waits on it).

    Examples
    --------
    >>> tied(["redis-server", "--port", "6380"])[-3:]
    ['redis-server', '--port', '6380']
    """
    if not can_tie():
        return list(cmd)
    return [sys.executable, "-I", "-c", _TIE, str(os.getpid()), str(int(sig)), *cmd]


# The sweeper: every half second it looks at the owner's children whose command line holds the mark, and at
# all their descendants, remembering each process it saw, until its input ends — the owner closed the pipe,
# or ended however it ended, the kernel closing its end — then kills those still running (the same processes:
# a process id may have been reused since). It remembers rather than looks at the end: by then the owner's
# children may be gone and theirs re-parented out of the tree.
_SWEEP = """\
import os, select, sys
import psutil
owner, mark = int(sys.argv[1]), sys.argv[2]
seen, fd = {}, sys.stdin.fileno()

def look():
    try:
        kids = psutil.Process(owner).children()
    except psutil.Error:
        return
    for kid in kids:
        try:
            if kid.pid == os.getpid() or mark not in " ".join(kid.cmdline()):
                continue
            for p in [kid, *kid.children(recursive=True)]:
                seen.setdefault(p.pid, p.create_time())
        except psutil.Error:
            pass

while not (select.select([fd], [], [], 0.5)[0] and not os.read(fd, 4096)):
    look()
look()
killed = []
for pid, created in seen.items():
    try:
        p = psutil.Process(pid)
        if abs(p.create_time() - created) < 0.01:
            p.kill()
            killed.append(p)
    except psutil.Error:
        pass
psutil.wait_procs(killed, timeout=5)
"""


class Sweeper:
    """A small process that kills what this process started running ``mark`` (a program's folder: its command
    line holds it) and everything those started in turn, once this process is gone — however it ended,
    SIGKILL included — or when :meth:`close` is called: for processes the kernel cannot tie to this one
    because another program starts them (local Ray's agents and workers, started by its raylet).

    Start it before the program: it looks at this process's children every half second from then on,
    remembering each process it saw in their trees. It waits on a pipe from this process (end of file: this
    process closed it or ended), in a session of its own (a terminal's Ctrl-C must not take it first), and
    ends once it has swept.
    """

    def __init__(self, mark: str) -> None:
        import subprocess

        self.mark = mark
        self._proc: Any = subprocess.Popen([sys.executable, "-I", "-c", _SWEEP, str(os.getpid()), mark],
                                           stdin=subprocess.PIPE, start_new_session=True)

    def close(self, timeout: float = 10.0) -> None:
        """Sweep now: kill what is still running of it, and wait (bounded) for the sweeper to end."""
        import subprocess

        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


def kill_tree(pid: int, *, include_self: bool = True, timeout: float = 5.0) -> list[int]:
    """SIGKILL every descendant of ``pid`` (and ``pid`` itself with ``include_self``), all found before any
    is signalled, so none escapes by being re-parented; wait up to ``timeout`` s for them (0: do not wait;
    a child of this process that is waited for is reaped here, so leave out one a ``Popen`` still waits on).
    Returns the process ids signalled (gone already: skipped)."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = root.children(recursive=True)
    except psutil.Error:
        return []
    if include_self:
        procs.append(root)
    sent = []
    for p in procs:
        with contextlib.suppress(psutil.Error):
            p.kill()
            sent.append(p)
    if timeout > 0:
        psutil.wait_procs(sent, timeout=timeout)
    return [p.pid for p in sent]


def descendants(pid: int | None = None) -> list[Any]:
    """The live descendants of ``pid`` (default: this process) as ``psutil.Process`` objects; zombies (ended,
    waiting to be reaped, holding no memory) are left out."""
    import psutil

    try:
        kids = psutil.Process(pid if pid is not None else os.getpid()).children(recursive=True)
    except psutil.Error:
        return []
    return [p for p in kids if _alive(p)]


def tagged(tag: str) -> list[Any]:
    """The live processes whose environment holds ``EGX_PROC_TAG=<tag>`` (:data:`TAG_VAR`), this one left
    out: a command started with the tag, and whatever it left behind wherever it was re-parented. (Not a
    program that writes its process title over its environment, as ``redis-server`` does.)"""
    import psutil

    out = []
    for p in psutil.process_iter():
        if p.pid == os.getpid():
            continue
        try:
            if p.environ().get(TAG_VAR) == tag and _alive(p):
                out.append(p)
        except psutil.Error:  # gone meanwhile, or another user's
            continue
    return out


def wait_gone(find: Any, timeout: float, poll_s: float = 0.1) -> list[Any]:
    """Poll ``find()`` (e.g. ``lambda: tagged(tag)``) until it returns nothing or ``timeout`` s passed; returns
    what it found last (empty: all gone)."""
    deadline = time.monotonic() + timeout
    while True:
        left = list(find())
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(poll_s)


def rss_mb(procs: Iterable[Any]) -> float:
    """Resident memory of ``procs`` together, in MB (a process gone meanwhile counts 0)."""
    import psutil

    total = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total / 2**20


def describe(procs: Iterable[Any]) -> list[str]:
    """``"pid 123 (python -m core.background.workers, 312 MB)"`` per process: what a test failure or a report names."""
    import psutil

    out = []
    for p in procs:
        try:
            cmd = " ".join(p.cmdline())[:100] or p.name()
            out.append(f"pid {p.pid} ({cmd}, {p.memory_info().rss / 2**20:.0f} MB)")
        except psutil.Error:
            out.append(f"pid {p.pid} (gone)")
    return out


def _alive(p: Any) -> bool:
    import psutil

    try:
        return bool(p.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


@contextlib.contextmanager
def terminate_as_interrupt(signals: Sequence[int] = (signal.SIGTERM, signal.SIGHUP)) -> Iterator[None]:
    """Within the block, ``signals`` raise :class:`Terminated` (a ``KeyboardInterrupt``) in the main thread,
    so a ``kill`` runs the cleanup of Ctrl-C; the previous handlers come back after. Outside the main thread
    (where Python cannot take a signal) it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum: int, frame: FrameType | None) -> None:
        raise Terminated(signum)

    previous = {}
    for s in signals:
        with contextlib.suppress(ValueError, OSError):
            previous[s] = signal.signal(s, raise_terminated)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def interruptible(fn: F) -> F:
    """``fn`` run within :func:`terminate_as_interrupt` (a command's ``run``: ``kill`` cleans up like Ctrl-C)."""
    @wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with terminate_as_interrupt():
            return fn(*args, **kwargs)
    return run  # type: ignore[return-value]
