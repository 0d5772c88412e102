"""`egx samples build` and `egx app`'s prebuild: `make app` starts the server at once and lets it build the
bundled samples in the background; `egx app --build-first` builds them with a terminal progress bar before."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from core import cli
from core.cli import app as app_command
from core.cli.app import BUILD_SAMPLES_ENV
from tests.conftest import SAMPLE_DATA


@pytest.fixture
def demo_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$EGX_SAMPLE_DATA with the demo recipe only; the app's embedder is the hashing one."""
    sd = tmp_path / "sample_data"
    shutil.copytree(SAMPLE_DATA / "demo", sd / "demo")
    monkeypatch.setenv("EGX_SAMPLE_DATA", str(sd))
    monkeypatch.setenv("EGX_EMBEDDER", "hashing")
    # `egx app` sets it in this process for the server it would exec: put back as it was after each test
    monkeypatch.setenv(BUILD_SAMPLES_ENV, "0")
    home = tmp_path / "home"
    monkeypatch.setenv("EGX_HOME", str(home))
    return home / "workspaces"


def test_samples_build_draws_a_bar_and_is_quick_once_built(demo_only: Path, capsys) -> None:
    assert cli.main(["samples", "build"]) == 0
    out, err = capsys.readouterr()
    assert "sample demo: ready (87 nodes, 90 edges, 23 chunks, index: hashing)" in out
    assert "sample demo: 100%|" in err and "Embedded 23 chunks" in err  # the terminal bar, with its ETA slot
    # and what the methods keep in the workspace, so no page starts a long job nobody asked for
    assert "prepared" in out and "dominance model" in out and "FastInsight" in out
    manifest = demo_only / "demo" / "manifest.json"
    first = manifest.stat().st_mtime_ns
    assert cli.main(["samples", "build", "demo"]) == 0
    out, err = capsys.readouterr()
    assert "sample demo: ready" in out and "100%" not in err and "prepared" not in out  # nothing to build: no bar
    assert manifest.stat().st_mtime_ns == first


def test_samples_build_prebuilds_the_node_vectors(demo_only: Path, capsys) -> None:
    """`egx samples build` (what `egx app` runs before the server starts) embeds FastInsight's node texts for
    the app's embedder, with a progress bar, so no page has anything of it left to offer or build."""
    from core.backends.registry import get_embedder
    from core.index.workspace import Workspace
    from core.methods.fastinsight.node_vectors import has_node_vectors

    assert cli.main(["samples", "build", "demo"]) == 0
    out, err = capsys.readouterr()
    assert "Embedding 87 KG node texts for FastInsight" in out and "sample demo: Embedding 87 KG node" in err
    assert has_node_vectors(Workspace.open(demo_only / "demo"), get_embedder("hashing"))


def test_samples_build_unknown_name(demo_only: Path, capsys) -> None:
    assert cli.main(["samples", "build", "nope"]) == 2
    assert "Unknown sample workspace 'nope'. Valid sample workspaces: 'demo'." in capsys.readouterr().err


def test_app_build_first_builds_the_samples_before_the_server_starts(demo_only: Path,
                                                                     monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    seen: list[tuple[bool, str | None]] = []
    monkeypatch.setattr(app_command, "serve", lambda cmd: seen.append(
        ((demo_only / "demo" / "manifest.json").is_file(), os.environ.get(BUILD_SAMPLES_ENV))) or 0)
    assert cli.main(["app", "--port", "8999", "--build-first"]) == 0
    assert seen == [(True, None)]  # built before streamlit was started; the server has nothing left to build
    err = capsys.readouterr().err
    assert "Preparing the bundled samples for the hashing embedder" in err and "sample demo: 100%|" in err


def test_app_starts_the_server_at_once_and_leaves_the_builds_to_it(demo_only: Path,
                                                                   monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """`make app` kept the port closed for 9½ minutes on a fresh machine: now nothing is built before the
    server starts, and the server is told to build the samples itself (components/startup.py)."""
    seen: list[tuple[bool, str | None, list[str]]] = []
    monkeypatch.setattr(app_command, "serve", lambda cmd: seen.append(
        ((demo_only / "demo").exists(), os.environ.get(BUILD_SAMPLES_ENV), cmd[1:4])) or 0)
    assert cli.main(["app", "--port", "8999"]) == 0
    # Streamlit's command line with the builds started as soon as the server runs (components/serve.py)
    assert seen == [(False, "1", ["-m", "components.serve", "run"])]
    assert "built for the hashing embedder by the server, in the background" in capsys.readouterr().err


def test_app_no_prebuild_starts_at_once_and_builds_nothing(demo_only: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[bool, str | None]] = []
    monkeypatch.setenv(BUILD_SAMPLES_ENV, "1")  # left over from an earlier `egx app` in this environment
    monkeypatch.setattr(app_command, "serve", lambda cmd: seen.append(
        ((demo_only / "demo").exists(), os.environ.get(BUILD_SAMPLES_ENV))) or 0)
    assert cli.main(["app", "--no-prebuild"]) == 0
    assert seen == [(False, None)]


def test_app_build_first_and_no_prebuild_exclude_each_other(demo_only: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["app", "--no-prebuild", "--build-first"])
    assert exc.value.code == 2
    assert "argument --build-first: not allowed with argument --no-prebuild" in capsys.readouterr().err


def test_samples_build_no_prepare_leaves_the_preparations_to_first_use(demo_only: Path, capsys) -> None:
    from core.backends.registry import get_embedder
    from core.index.workspace import Workspace
    from core.methods.registry import METHODS
    from core.methods.run import prepare_workspace

    assert cli.main(["samples", "build", "--no-prepare"]) == 0
    assert "prepared" not in capsys.readouterr().out
    ws = Workspace.open(demo_only / "demo")
    titles = prepare_workspace(ws, get_embedder("hashing"))
    assert titles and len(titles) == len(set(titles)) and len(titles) <= len(METHODS)
    assert prepare_workspace(ws, get_embedder("hashing")) == []  # kept in the workspace: nothing twice


def test_the_server_builds_the_demo_before_any_browser_connects(tmp_path: Path) -> None:
    """A real `egx app` (hashing embedder, the demo only): the port answers, and the demo gets built with nobody
    having opened the app; the server then stops cleanly on SIGTERM."""
    import signal
    import subprocess
    import sys
    import time
    import urllib.request

    from tests.app.browser_support import free_port
    from tests.conftest import ROOT

    sd = tmp_path / "sample_data"
    shutil.copytree(SAMPLE_DATA / "demo", sd / "demo")
    home = tmp_path / "home"
    port = free_port()
    env = {**os.environ, "EGX_SAMPLE_DATA": str(sd), "EGX_HOME": str(home), "EGX_EMBEDDER": "hashing",
           "EGX_RERANKER": "biencoder", "EGX_LLM": "none", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "core.cli", "app", "--port", str(port)], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        t0 = time.monotonic()
        status = 0
        while time.monotonic() - t0 < 60 and status != 200:
            try:
                status = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).status
            except OSError:
                time.sleep(0.2)
        assert status == 200, log.read_text(errors="replace")
        assert time.monotonic() - t0 < 30  # the port answers at once (it used to wait for the builds)
        manifest = home / "workspaces" / "demo" / "manifest.json"
        while time.monotonic() - t0 < 120 and not manifest.is_file():
            time.sleep(0.3)
        assert manifest.is_file(), log.read_text(errors="replace")  # built with no browser connected
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, log.read_text(errors="replace")
