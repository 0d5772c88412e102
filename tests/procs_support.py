"""What the process-lifecycle tests share: start a command under an environment tag, wait (with a deadline,
never a fixed sleep) until it has started what the test is about, end it one way or another, and list what
is left of it.

A child that outlived its owner is re-parented (to init or a subreaper) and is nobody's descendant any
more, so what a command started is found by its tag (:func:`core.background.procs.tagged`), wherever it ended up. A
program that writes its process title over its environment (``redis-server``) loses the tag: it is found by
its working folder instead (:func:`working_in`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.background.procs import TAG_VAR, describe, rss_mb, tagged, wait_gone

ROOT = Path(__file__).resolve().parents[1]
#: Seconds a command may take to start what a test waits for (a spaCy pool, a worker): generous, a loaded
#: 2-core machine took 3-9 s to reach a spaCy pool from a cold start.
START_S = 180.0
#: Seconds what an ended command started may take to go: the parent watchers look every 0.2 s; a worker
#: killed while it still imports spaCy arms its watcher only after that (about 1.5 s measured when idle).
GONE_S = 60.0
#: The ways an owner ends, as a terminal and ``kill`` end it: Ctrl-C reaches the whole foreground process
#: group; ``kill -TERM`` and ``kill -9`` reach the one process.
ENDINGS = ("ctrl-c", "sigterm", "sigkill")


def new_tag() -> str:
    return f"egx-test-{uuid.uuid4().hex[:12]}"


def kind(p: Any) -> str:
    """What a process of ours is: ``pool`` (a spaCy pool worker), ``tracker`` (multiprocessing's resource
    tracker), ``worker`` (an app worker, ``core.background.workers``), ``redis``, ``ray``, ``streamlit``, else ``other``."""
    try:
        cmd = " ".join(p.cmdline())
    except Exception:
        return "gone"
    for needle, name in (("multiprocessing.spawn", "pool"), ("resource_tracker", "tracker"),
                         ("core.background.workers", "worker"), ("redis-server", "redis"), ("raylet", "ray"),
                         ("gcs_server", "ray"), ("ray::", "ray"), ("/ray/", "ray"), ("streamlit", "streamlit")):
        if needle in cmd:
            return name
    return "other"


def kinds(procs: Iterable[Any]) -> Counter[str]:
    return Counter(kind(p) for p in procs)


def wait_until(check: Callable[[], Any], timeout: float, what: str, poll_s: float = 0.1,
               proc: subprocess.Popen[bytes] | None = None, log: Path | None = None) -> Any:
    """Poll ``check()`` until it returns something true (returned); past ``timeout`` s, or when ``proc``
    ended meanwhile, fail naming ``what`` (and the end of ``log``)."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        tail = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the command ended (status {proc.returncode}) before {what}:\n{tail}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout:g} s:\n{tail}")
        time.sleep(poll_s)


@dataclass
class Owner:
    """A command started under its own tag (and, like a terminal's job, in its own process group)."""

    proc: subprocess.Popen[bytes]
    tag: str
    log: Path
    seen: Counter[str] = field(default_factory=Counter)  #: the kinds of process seen while it ran
    peak_mb: float = 0.0  #: their resident memory together, at the look that found the most
    also: Callable[[], list[Any]] | None = None  #: finds those of its processes the tag misses

    def ours(self) -> list[Any]:
        found = {p.pid: p for p in tagged(self.tag)}
        if self.also is not None:
            found.update((p.pid, p) for p in self.also())
        return list(found.values())

    def look(self) -> list[Any]:
        procs = self.ours()
        self.seen |= kinds(procs)
        self.peak_mb = max(self.peak_mb, rss_mb(procs))
        return procs

    def wait_for(self, want: Counter[str] | dict[str, int], timeout: float = START_S) -> list[Any]:
        """Wait until at least ``want`` processes of each kind run (e.g. ``{"pool": 2, "tracker": 1}``)."""
        return wait_until(lambda: (procs := self.look()) and all(kinds(procs)[k] >= n for k, n in want.items())
                          and procs, timeout, f"processes {dict(want)} of the command", proc=self.proc, log=self.log)

    def end(self, how: str) -> None:
        """End the owner: ``ctrl-c`` (SIGINT to its process group, as a terminal does), ``sigterm``, ``sigkill``."""
        if how == "ctrl-c":
            os.killpg(self.proc.pid, signal.SIGINT)
        elif how == "sigterm":
            self.proc.send_signal(signal.SIGTERM)
        elif how == "sigkill":
            self.proc.send_signal(signal.SIGKILL)
        else:
            raise ValueError(f"unknown ending {how!r}; one of {', '.join(ENDINGS)}")

    def leftovers(self, timeout: float = GONE_S) -> list[Any]:
        """What is still running of the command ``timeout`` s after it ended (empty: nothing)."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        return wait_gone(self.ours, timeout)

    def stop(self) -> None:
        """Kill whatever is left (a failed test must not leave its own orphans)."""
        for p in self.ours():
            try:
                p.kill()
            except Exception:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)


def working_in(folder: Path) -> Callable[[], list[Any]]:
    """A finder of the live processes whose working folder is ``folder`` or inside it."""
    import psutil

    def find() -> list[Any]:
        out = []
        for p in psutil.process_iter():
            try:
                if Path(p.cwd()).is_relative_to(folder) and p.status() != psutil.STATUS_ZOMBIE:
                    out.append(p)
            except (psutil.Error, OSError):
                continue
        return out
    return find


def holding_files_in(folder: Path) -> Callable[[], list[Any]]:
    """A finder of the live processes (other than this one) with a file open under ``folder``: Ray's, whose
    titles replace their environment and command line, by their session folder (``RAY_TMPDIR``)."""
    import psutil

    def find() -> list[Any]:
        out = []
        for p in psutil.process_iter():
            if p.pid == os.getpid():
                continue
            try:
                if any(Path(f.path).is_relative_to(folder) for f in p.open_files()):
                    out.append(p)
            except (psutil.Error, OSError):
                continue
        return out
    return find


def start(cmd: Sequence[str], tmp: Path, env: dict[str, str] | None = None, *, name: str = "owner",
          also: Callable[[], list[Any]] | None = None) -> Owner:
    """Start ``cmd`` from the repository root, tagged, in a new process group, its output in ``tmp/NAME.log``."""
    tag = new_tag()
    log = tmp / f"{name}.log"
    full = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **(env or {}), TAG_VAR: tag}
    with open(log, "wb") as out:
        proc = subprocess.Popen(list(cmd), cwd=ROOT, env=full, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    return Owner(proc, tag, log, also=also)


def egx(*args: str) -> list[str]:
    return [sys.executable, "-m", "core.cli", *args]


def assert_nothing_left(owner: Owner, how: str) -> None:
    """The owner ended ``how`` and nothing it started is running; the message names what is."""
    left = owner.leftovers()
    assert not left, (f"after {how}, still running ({rss_mb(left):.0f} MB): {describe(left)}; "
                      f"while it ran: {dict(owner.seen)}")
    assert owner.proc.poll() is not None, f"the command itself did not end after {how}"
