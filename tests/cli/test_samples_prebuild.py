"""`egx samples build` and `egx app`'s prebuild: `make app` builds the bundled samples
with a terminal progress bar before the browser opens, so a lecture never waits on a build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core import cli
from core.cli import app as app_command
from tests.conftest import SAMPLE_DATA


@pytest.fixture
def demo_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$EGX_SAMPLE_DATA with the demo recipe only; the app's embedder is the hashing one."""
    sd = tmp_path / "sample_data"
    shutil.copytree(SAMPLE_DATA / "demo", sd / "demo")
    monkeypatch.setenv("EGX_SAMPLE_DATA", str(sd))
    monkeypatch.setenv("EGX_EMBEDDER", "hashing")
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


def test_app_builds_the_samples_before_the_server_starts(demo_only: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(app_command, "serve", lambda cmd: seen.append((demo_only / "demo" / "manifest.json").is_file()) or 0)
    assert cli.main(["app", "--port", "8999"]) == 0
    assert seen == [True]  # built before streamlit was started
    err = capsys.readouterr().err
    assert "Preparing the bundled samples for the hashing embedder" in err and "sample demo: 100%|" in err


def test_app_no_prebuild_starts_at_once(demo_only: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(app_command, "serve", lambda cmd: seen.append((demo_only / "demo").exists()) or 0)
    assert cli.main(["app", "--no-prebuild"]) == 0
    assert seen == [False]


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
