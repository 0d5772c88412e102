"""core/background/procs.py: a child tied to its owner ends when the owner is killed outright, a watching child ends when
re-parented (even ignoring SIGINT), a process tree dies whole, SIGTERM cleans up like Ctrl-C, and what a
command started is found by its tag wherever it was re-parented."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import psutil
import pytest

from core.background import procs
from core.background.procs import (
    ORPHANED_EXIT,
    TAG_VAR,
    Terminated,
    describe,
    kill_tree,
    rss_mb,
    tagged,
    terminate_as_interrupt,
    tied,
    wait_gone,
)
from tests.procs_support import ROOT, new_tag, wait_until

linux_only = pytest.mark.skipif(not procs.can_tie(), reason="the kernel's parent-death signal is Linux's")

#: An owner that starts ``sleep 300`` twice, the first tied to it, and prints both process ids.
OWNER_OF_SLEEPS = """
import subprocess, sys, time
from core.background.procs import tied
a = subprocess.Popen(tied(["sleep", "300"]))
b = subprocess.Popen(["sleep", "300"])
print(a.pid, b.pid, flush=True)
time.sleep(300)
"""

#: An owner whose child ignores SIGINT, watches it (kernel signal or not: argv[1]) and prints its pid.
OWNER_OF_A_WATCHER = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", '''
import os, signal, sys, time
from core.background.procs import die_with_parent
signal.signal(signal.SIGINT, signal.SIG_IGN)
die_with_parent(int(sys.argv[1]), kernel=sys.argv[2] == "1")
print("watching", flush=True)
time.sleep(300)
''', str(__import__("os").getpid()), sys.argv[1]], stdout=subprocess.PIPE, text=True)
assert child.stdout.readline().strip() == "watching"
print(child.pid, flush=True)
time.sleep(300)
"""


def _owner(code: str, *args: str) -> tuple[subprocess.Popen[str], list[int]]:
    owner = subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert owner.stdout is not None
    return owner, [int(x) for x in owner.stdout.readline().split()]


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@linux_only
def test_a_tied_program_dies_with_its_owner_killed_outright_and_an_untied_one_does_not():
    owner, (tied_pid, free_pid) = _owner(OWNER_OF_SLEEPS)
    try:
        wait_until(lambda: psutil.Process(tied_pid).name() == "sleep", 30, "the tied program after its exec")
        owner.kill()
        owner.wait(30)
        assert not wait_gone(lambda: [tied_pid] if _alive(tied_pid) else [], 30)
        assert _alive(free_pid)  # the control: what the tie changes
    finally:
        for pid in (tied_pid, free_pid):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@linux_only
@pytest.mark.parametrize("kernel", [True, False])
def test_a_watching_child_that_ignores_sigint_still_ends_with_its_owner(kernel: bool):
    owner, (child,) = _owner(OWNER_OF_A_WATCHER, "1" if kernel else "0")
    try:
        os.kill(child, signal.SIGINT)  # ignored: it keeps running
        owner.kill()
        owner.wait(30)
        left = wait_gone(lambda: [child] if _alive(child) else [], 30)
        assert not left, f"the watching child (kernel signal: {kernel}) outlived its owner"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def test_a_child_whose_owner_is_gone_before_it_watches_ends_at_once():
    code = "import sys; from core.background.procs import die_with_parent; die_with_parent(1, kernel=False); print('ran')"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == ORPHANED_EXIT and "ran" not in out.stdout


@linux_only
def test_a_tied_program_is_the_same_process_and_never_runs_once_its_owner_is_gone():
    p = subprocess.Popen(tied([sys.executable, "-c", "import os; print(os.getpid())"]), stdout=subprocess.PIPE,
                         text=True)
    out, _ = p.communicate(timeout=60)
    assert int(out) == p.pid  # exec'd in place: terminate(), the pid and process groups reach the program
    cmd = tied(["echo", "ran"])
    cmd[cmd.index(str(os.getpid()))] = "1"  # as if the owner had ended before the tie was armed
    out2 = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out2.returncode == ORPHANED_EXIT and out2.stdout == ""


def test_without_the_kernel_signal_a_command_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(procs, "can_tie", lambda: False)
    assert tied(["redis-server", "--port", "1"]) == ["redis-server", "--port", "1"]
    assert procs.set_death_signal() is False


def test_kill_tree_reaches_a_grandchild_in_a_session_of_its_own():
    code = ("import subprocess, time; g = subprocess.Popen(['sleep', '300'], start_new_session=True); "
            "print(g.pid, flush=True); time.sleep(300)")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    grandchild = int(child.stdout.readline())
    try:
        assert sorted(kill_tree(child.pid, timeout=10)) == sorted([child.pid, grandchild])
        assert not _alive(child.pid) and not wait_gone(lambda: [grandchild] if _alive(grandchild) else [], 30)
    finally:
        for pid in (child.pid, grandchild):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        child.wait(10)


def test_sigterm_within_the_block_is_an_interrupt_and_the_old_handler_comes_back():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt) as ei, terminate_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises within the sleep
    assert isinstance(ei.value, Terminated) and ei.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before


def test_outside_the_main_thread_the_handlers_are_left_alone():
    seen: list[object] = []

    def other() -> None:
        with terminate_as_interrupt():
            seen.append(signal.getsignal(signal.SIGTERM))

    t = threading.Thread(target=other)
    t.start()
    t.join(10)
    assert seen == [signal.getsignal(signal.SIGTERM)]


def test_tagged_finds_what_a_command_started_and_counts_its_memory():
    tag = new_tag()
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], env={**os.environ, TAG_VAR: tag})
    try:
        found = wait_until(lambda: tagged(tag), 30, "the tagged process")
        assert [q.pid for q in found] == [p.pid]
        # found as soon as it is exec'd, before Python has loaded (0.13 MB once on a loaded machine): its memory is
        # counted once the interpreter is up
        assert wait_until(lambda: rss_mb(tagged(tag)) > 1, 30, "the tagged process's memory")
        assert describe(found)[0].startswith(f"pid {p.pid} (")
        assert tagged(new_tag()) == []
    finally:
        p.kill()
        p.wait(10)
    assert wait_gone(lambda: tagged(tag), 10) == []


#: An owner that starts a sweeper for programs run from a folder named "sweepme", then one such program, which
#: starts a grandchild in a session of its own (as Ray's raylet starts its agents); prints both pids.
OWNER_OF_A_SWEPT_TREE = """
import subprocess, sys, time
from core.background.procs import Sweeper
sweeper = Sweeper("/sweepme/")
time.sleep(0.2)
code = "import subprocess, time; g = subprocess.Popen(['sleep', '300'], start_new_session=True); print(g.pid, flush=True); time.sleep(300)"
child = subprocess.Popen([sys.executable, "-c", code, "/sweepme/"], stdout=subprocess.PIPE, text=True)
grandchild = int(child.stdout.readline())
other = subprocess.Popen(["sleep", "300"])
time.sleep(1.5)  # three looks of the sweeper
print(child.pid, grandchild, other.pid, flush=True)
if sys.argv[1] == "close":
    sweeper.close()
    print("closed", flush=True)
time.sleep(300)
"""


@pytest.mark.parametrize("how", ["owner killed", "close"])
def test_a_sweeper_kills_the_marked_programs_and_what_they_started(how: str):
    owner, (child, grandchild, other) = _owner(OWNER_OF_A_SWEPT_TREE, "close" if how == "close" else "kill")
    try:
        if how == "close":
            assert owner.stdout is not None and owner.stdout.readline().strip() == "closed"
        else:
            owner.kill()
            owner.wait(30)
        assert not wait_gone(lambda: [p for p in (child, grandchild) if _alive(p)], 30)
        if how == "close":
            assert _alive(other)  # not a marked program: left to its owner
    finally:
        for pid in (child, grandchild, other):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if owner.poll() is None:
            owner.kill()
        owner.wait(30)
