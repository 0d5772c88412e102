"""An app build runs in a child process within a memory and a time cap, so one upload cannot take the
server down; past either (or cancelled) it ends with a message naming the cause and the setting, and
leaves nothing behind."""

from __future__ import annotations

import threading

import pytest

from core.backends.registry import get_embedder
from core.errors import Cancelled, EgxError, WorkspaceError
from core.fsio import held_if_free
from core.index.isolated import (
    BuildLimits,
    BuildSpec,
    build_isolated,
    drop_upload_dir,
    new_upload_dir,
    sweep_uploads,
    uploads_root,
)
from core.index.workspace import Workspace
from tests.conftest import SAMPLE_DATA

DEMO = (str(SAMPLE_DATA / "demo" / "corpus.json"), str(SAMPLE_DATA / "demo" / "triples.csv"))


def _spec(tmp_path, inputs=DEMO) -> BuildSpec:
    return BuildSpec(tuple(inputs), str(tmp_path / "ws" / "demo2"), "demo2", "hashing", "rules")


def _no_debris(tmp_path) -> None:
    assert not (tmp_path / "ws" / "demo2").exists()
    assert [p.name for p in (tmp_path / "ws").iterdir() if not p.name.endswith(".lock")] == []


def test_a_build_in_a_child_process_makes_the_workspace(tmp_path):
    seen: list[float] = []
    figures = build_isolated(_spec(tmp_path), limits=BuildLimits(), progress=lambda m, f: seen.append(f))
    ws = Workspace.open(tmp_path / "ws" / "demo2")
    assert ws.graph.n_edges > 0 and seen and seen[-1] == 1.0
    assert 0 < figures["peak_mb"] < BuildLimits().memory_mb


def test_past_the_memory_cap_the_child_is_killed_and_nothing_is_written(tmp_path):
    (tmp_path / "ws").mkdir()
    with pytest.raises(WorkspaceError, match=r"used more than 30 MB of memory \(EGX_BUILD_MEMORY_MB\).*Nothing was "
                                             r"saved; the server and any previous workspace are untouched"):
        build_isolated(_spec(tmp_path), limits=BuildLimits(memory_mb=30))  # the interpreter alone passes 30 MB
    _no_debris(tmp_path)


def test_past_the_time_cap_and_on_cancel_the_child_is_killed(tmp_path):
    (tmp_path / "ws").mkdir()
    with pytest.raises(WorkspaceError, match=r"ran past 0\.05 s \(EGX_BUILD_TIMEOUT_S\)"):
        build_isolated(_spec(tmp_path), limits=BuildLimits(timeout_s=0.05))  # a worker builds the demo in ~0.2 s
    _no_debris(tmp_path)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled, match="cancelled; nothing was saved"):
        build_isolated(_spec(tmp_path), limits=BuildLimits(), cancel=cancel)
    _no_debris(tmp_path)


def test_the_builds_own_error_comes_back_as_it_was(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("head,relation,tail\n...,r,b\n")
    with pytest.raises(EgxError, match=r"bad\.csv.*line 2"):
        build_isolated(_spec(tmp_path, (str(bad),)), limits=BuildLimits())


def test_limits_from_the_environment_name_a_bad_value(monkeypatch):
    monkeypatch.setenv("EGX_BUILD_MEMORY_MB", "lots")
    with pytest.raises(WorkspaceError, match=r"EGX_BUILD_MEMORY_MB='lots' is not a positive number"):
        BuildLimits.from_env()
    monkeypatch.setenv("EGX_BUILD_MEMORY_MB", "512")
    monkeypatch.setenv("EGX_BUILD_TIMEOUT_S", "60")
    assert BuildLimits.from_env() == BuildLimits(512.0, 60.0)


def test_uploads_a_killed_server_left_are_swept_and_held_ones_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    held, lock = new_upload_dir()
    orphan = uploads_root() / "upload-orphan"
    orphan.mkdir()
    (orphan / "huge.json").write_text("[]")
    result: list[list[str]] = []
    t = threading.Thread(target=lambda: result.append(sweep_uploads()))  # the server's start, another thread
    t.start()
    t.join(30)
    assert result == [["upload-orphan"]] and held.exists() and not orphan.exists()
    lock.release()
    assert sweep_uploads() == [held.name] and not held.exists()


def test_a_dropped_upload_leaves_no_upload_lock_file(tmp_path, monkeypatch):
    """Before: every upload of a running `egx app` left its `.upload-*.lock` in $EGX_HOME/uploads."""
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    folders = [new_upload_dir() for _ in range(3)]
    for folder, _ in folders:
        (folder / "doc.txt").write_text("text")
    assert len(list(uploads_root().glob(".upload-*.lock"))) == 3
    for folder, lock in folders:
        drop_upload_dir(folder, lock)
    assert sorted(p.name for p in uploads_root().iterdir()) == []


def test_an_upload_dropped_by_another_thread_is_released_and_leaves_no_lock_file(tmp_path, monkeypatch):
    """The app's own path: the page's script thread stages the upload, the build job's thread drops it. Before,
    the thread-local lock's release in the job's thread did nothing: the folder stayed locked (no sweep could take
    it) and its `.upload-*.lock` stayed (audit 57 found 6 of its ~12 uploads')."""
    monkeypatch.setenv("EGX_HOME", str(tmp_path / "home"))
    folder, lock = new_upload_dir()
    t = threading.Thread(target=drop_upload_dir, args=(folder, lock))
    t.start()
    t.join(30)
    assert list(uploads_root().iterdir()) == []
    with held_if_free(folder) as held:  # nobody holds it any more
        assert held


def test_a_sample_builds_in_a_child_process_once(tmp_path):
    """The app's sample builds run in the child too (stop 38): built from the recipe once, then found built."""
    target = tmp_path / "ws" / "demo"
    build_isolated(BuildSpec.sample("demo", target, "hashing"), limits=BuildLimits())
    ws = Workspace.open(target)
    assert ws.manifest.get("sample") is True and ws.manifest.get("recipe_hash")
    assert ws.index_problem(get_embedder("hashing")) is None
    mtime = (target / "manifest.json").stat().st_mtime_ns
    build_isolated(BuildSpec.sample("demo", target, "hashing"), limits=BuildLimits())
    assert (target / "manifest.json").stat().st_mtime_ns == mtime  # found built, not rebuilt


def test_a_reindex_in_a_child_process_and_a_killed_one_leaves_the_workspace_as_it_was(tmp_path):
    from core.index.create import create_workspace

    target = tmp_path / "ws" / "demo2"
    create_workspace(list(DEMO), target, name="demo2", embedder=None)  # the graph, no index yet
    before = sorted(p.name for p in target.iterdir())
    with pytest.raises(WorkspaceError, match=r"used more than 30 MB of memory"):
        build_isolated(BuildSpec.index(target, "hashing"), limits=BuildLimits(memory_mb=30))
    assert sorted(p.name for p in target.iterdir()) == before  # no half-built index folder left
    assert Workspace.open(target).index_problem(get_embedder("hashing")) == "no index has been built yet"
    build_isolated(BuildSpec.index(target, "hashing"), limits=BuildLimits())
    assert Workspace.open(target).index_problem(get_embedder("hashing")) is None


def test_an_unknown_build_kind_is_named(tmp_path):
    with pytest.raises(EgxError, match=r"unknown build kind 'nope'; one of create, sample, index"):
        build_isolated(BuildSpec((), str(tmp_path / "x"), "x", "hashing", kind="nope"), limits=BuildLimits())
