"""`egx app` and .streamlit/config.toml start Streamlit without file watching (with it, the
server log of a lecture filled with 64,934 "Inotify queue overflowed" lines)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest

from core import cli
from core.cli import app as app_command
from tests.conftest import ROOT


def test_egx_app_turns_file_watching_off(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    monkeypatch.setattr(app_command, "serve", lambda cmd: seen.append(list(cmd)) or 0)
    # the prebuild has its own tests (test_samples_prebuild.py); here it would embed both samples with
    # bge-small into this test's fresh home, about 4.5 minutes of a CI run
    assert cli.main(["app", "--port", "8765", "--no-prebuild"]) == 0
    (cmd,) = seen
    assert cmd[1:4] == ["-m", "components.serve", "run"] and cmd[4].endswith("app.py")
    i = cmd.index("--server.fileWatcherType")
    assert cmd[i + 1] == "none"
    assert cmd[cmd.index("--server.port") + 1] == "8765" and cmd[cmd.index("--server.address") + 1] == "127.0.0.1"


def test_config_file_turns_file_watching_off() -> None:
    """`streamlit run app.py` from the checkout (make app, the browser tests) reads .streamlit/config.toml."""
    conf = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert conf["server"]["fileWatcherType"] == "none"
    # and Streamlit itself reads it so: its effective configuration, from the checkout root
    out = subprocess.run([sys.executable, "-m", "streamlit", "config", "show"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    block = out.stdout.split("[server]", 1)[1]
    assert 'fileWatcherType = "none"' in block.split("\n[", 1)[0]


def test_no_full_collection_after_every_script_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streamlit's ``gc.collect(2)`` after every run held the GIL ~0.3 s per timed redraw of the job banner and
    panels; while a job ran, a Compare click waited for them (benchmarks/README.md, "A page while a server
    job runs"). Off in ``egx app``, in .streamlit/config.toml, and in Streamlit's effective configuration."""
    seen: list[list[str]] = []
    monkeypatch.setattr(app_command, "serve", lambda cmd: seen.append(list(cmd)) or 0)
    assert cli.main(["app", "--port", "8765", "--no-prebuild"]) == 0
    (cmd,) = seen
    assert cmd[cmd.index("--runner.postScriptGC") + 1] == "false"
    conf = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert conf["runner"]["postScriptGC"] is False
    # Streamlit reads it so from the checkout root (`config show` leaves this option out)
    code = ("from streamlit import config as c; c.get_config_options(force_reparse=True); "
            "print(c.get_option('runner.postScriptGC'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


#: Starts a child (as the prebuild's worker pool would be), prints its pid, then serves a "server" that prints
#: its own process id and how many children it has.
SERVES = """
import subprocess, sys
from core.cli.app import serve
left = subprocess.Popen(["sleep", "300"])
print(left.pid, flush=True)
serve([sys.executable, "-c", "import os, psutil; print(os.getpid(), len(psutil.Process().children()))"])
"""


@pytest.mark.skipif(os.name != "posix", reason="exec replaces the process on POSIX only")
def test_egx_app_becomes_the_server_and_leaves_no_child_of_the_prebuild() -> None:
    """Ctrl-C and SIGTERM reach the server itself (no egx parent to die and leave it serving), and what the
    prebuild started does not live on as the server's unknown child."""
    import psutil

    p = subprocess.Popen([sys.executable, "-c", SERVES], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    out, _ = p.communicate(timeout=120)
    left, (pid, children) = int(out.split()[0]), map(int, out.split()[1:])
    assert pid == p.pid and children == 0
    assert not psutil.pid_exists(left) or psutil.Process(left).status() == psutil.STATUS_ZOMBIE
