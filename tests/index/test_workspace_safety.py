"""Overwrite deletes only workspaces; commits survive kills and
concurrency; a damaged workspace says so and names the command that rebuilds it."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from core.backends.registry import get_embedder
from core.errors import EgxError, WorkspaceError
from core.index.commit import recover
from core.index.create import create_workspace
from core.index.listing import list_workspaces, workspace_names
from core.index.samples import ensure_sample_workspace
from core.index.workspace import Workspace
from tests.conftest import ROOT, SAMPLE_DATA

DEMO = [SAMPLE_DATA / "demo" / "corpus.json", SAMPLE_DATA / "demo" / "triples.csv"]
SMALL = SAMPLE_DATA / "demo" / "triples.csv"


@pytest.fixture
def hashing():
    return get_embedder("hashing")


def visible(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock"))


# ----------------------------------------------------------------------------- overwrite
def test_overwrite_refuses_a_folder_that_is_not_a_workspace(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "thesis.txt").write_text("four years of work")
    with pytest.raises(WorkspaceError, match=re.escape(
            f"{victim} is not an egx workspace (it has no manifest.json written by egx; it holds 'thesis.txt'), so "
            "--overwrite will not replace it. Nothing was deleted. Pick another --workspace folder.")):
        create_workspace([SMALL], victim, overwrite=True)
    assert visible(victim) == ["thesis.txt"] and visible(tmp_path) == ["victim"]


@pytest.mark.parametrize("ref", ["..", ".", "/"])
def test_overwrite_refuses_parent_current_and_root(tmp_path, monkeypatch, ref):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (tmp_path / "a" / "thesis.txt").write_text("keep")
    monkeypatch.chdir(work)
    with pytest.raises(WorkspaceError, match=rf"^Refusing to build a workspace at '{re.escape(ref)}' .*: that names an "
                                             r"existing folder above or at your working directory, not a workspace "
                                             r"folder\. Nothing was deleted\."):
        create_workspace([SMALL], ref, overwrite=True)
    assert (tmp_path / "a" / "thesis.txt").read_text() == "keep"


def test_overwrite_refuses_a_file_and_replaces_an_empty_folder(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(WorkspaceError, match=r"exists and is not a folder\. Nothing was changed"):
        create_workspace([SMALL], f, overwrite=True)
    (tmp_path / "empty").mkdir()
    assert create_workspace([SMALL], tmp_path / "empty", overwrite=True).graph.n_edges > 0


# ----------------------------------------------------------------------------- kills
KILL_BETWEEN_RENAMES = """
import os, sys
import core.index.commit as C
import core.index.create as W
C.exchange = lambda a, b: False  # a file system without atomic exchange: the two-rename commit
real = os.rename
def rename(a, b):
    real(a, b)
    if ".old-" in str(b):
        os._exit(137)  # killed between the two renames
os.rename = rename
W.create_workspace([sys.argv[2]], sys.argv[1], overwrite=True)
"""

KILL_DURING_BUILD = """
import os, sys
import core.index.create as W
def die(*a, **k):
    os._exit(137)
W.save_graph = die  # killed while writing the new workspace
W.create_workspace([sys.argv[2]], sys.argv[1], overwrite=True)
"""


def run_child(code: str, *args: str) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=ROOT, timeout=120).returncode


def test_a_kill_between_the_two_renames_is_recovered_on_the_next_open(tmp_path):
    root = tmp_path / "workspaces"
    old = create_workspace(DEMO, root / "mine")
    assert run_child(KILL_BETWEEN_RENAMES, str(root / "mine"), str(SMALL)) == 137
    assert not (root / "mine").exists()  # the dangerous moment, frozen
    assert [p.name.split("-")[0] for p in root.iterdir() if ".old-" in p.name] == [".mine.old"]
    assert workspace_names(root) == []  # debris is never listed ...
    ws = Workspace.open(root / "mine")  # ... and the next open puts the previous workspace back
    assert ws.graph.content_hash == old.graph.content_hash
    assert visible(root) == ["mine"]


def test_listing_recovers_too_and_never_lists_debris(tmp_path):
    root = tmp_path / "workspaces"
    create_workspace(DEMO, root / "mine")
    assert run_child(KILL_BETWEEN_RENAMES, str(root / "mine"), str(SMALL)) == 137
    names = [w.name for w in list_workspaces(root)]
    assert "mine" in names and not any(n.startswith(".") for n in names)
    assert visible(root) == ["mine"]


def test_a_killed_build_leaves_debris_that_the_next_open_removes(tmp_path):
    root = tmp_path / "workspaces"
    create_workspace(DEMO, root / "mine")
    assert run_child(KILL_DURING_BUILD, str(root / "mine"), str(SMALL)) == 137
    assert any(".building-" in p.name for p in root.iterdir())
    assert Workspace.open(root / "mine").graph.n_chunks == 23  # the previous state, intact
    assert visible(root) == ["mine"]


def test_recover_keeps_its_hands_off_while_a_build_holds_the_lock(tmp_path):
    from core.index.commit import workspace_lock

    root = tmp_path / "workspaces"
    create_workspace(DEMO, root / "mine")
    building = root / ".mine.building-1-2-0123456789"
    building.mkdir()
    held = threading.Event()
    release = threading.Event()

    def builder() -> None:
        with workspace_lock(root / "mine"):
            held.set()
            release.wait(10)

    t = threading.Thread(target=builder)
    t.start()
    held.wait(10)
    assert recover(root / "mine") == []  # someone is building: its folder is not debris
    assert building.exists()
    release.set()
    t.join()
    assert recover(root / "mine") == ["removed .mine.building-1-2-0123456789"]


def test_recover_never_touches_a_users_look_alike_folders(tmp_path):
    root = tmp_path / "workspaces"
    create_workspace(DEMO, root / "mine")
    mine = [root / ".mine.old-2023", root / ".mine.building-1-2-0123456789", root / ".mine.old-notes"]
    for p in mine:
        p.mkdir()
        (p / "notes.txt").write_text("mine, not egx's")
    assert recover(root / "mine") == []
    assert all((p / "notes.txt").exists() for p in mine)


KILL_DURING_INDEX = """
import os, sys
from core.backends.registry import get_embedder
import core.index.workspace as W
ws = W.Workspace.open(sys.argv[1])
real = W.build_indexes
def die(*a, **k):
    real(*a, **k)
    os._exit(137)  # index written, manifest not yet
W.build_indexes = die
ws.ensure_index(get_embedder("hashing", dim=64))
"""


def test_a_kill_during_an_index_rebuild_keeps_the_previous_index(tmp_path, hashing):
    ws = create_workspace(DEMO, tmp_path / "w", embedder=hashing)
    before = ws.index("edges").vectors.copy()
    assert run_child(KILL_DURING_INDEX, str(tmp_path / "w")) == 137
    assert len([p for p in (tmp_path / "w").iterdir() if p.name.startswith("index")]) == 2
    again = Workspace.open(tmp_path / "w")
    assert again.index_problem(hashing) is None
    np.testing.assert_array_equal(again.index("edges").vectors, before)
    assert sorted(p.name for p in (tmp_path / "w").iterdir() if p.name.startswith("index")) == ["index"]


# ----------------------------------------------------------------------------- threads
def run_threads(n: int, fn) -> list[object]:  # type: ignore[no-untyped-def]
    out: list[object] = [None] * n
    barrier = threading.Barrier(n)

    def work(i: int) -> None:
        barrier.wait()
        try:
            out[i] = fn(i)
        except BaseException as exc:
            out[i] = exc

    ts = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out


def test_threads_rebuilding_one_workspace_take_turns(tmp_path, hashing):
    create_workspace(DEMO, tmp_path / "w", embedder=hashing)
    res = run_threads(4, lambda i: create_workspace(DEMO, tmp_path / "w", embedder=hashing, overwrite=True))
    assert all(isinstance(r, Workspace) for r in res), res
    assert Workspace.open(tmp_path / "w").index_problem(hashing) is None
    assert visible(tmp_path) == ["w"]


def test_two_uploads_under_one_name_never_replace_each_other(tmp_path, hashing):
    inputs = {0: DEMO, 1: [SMALL]}
    res = run_threads(2, lambda i: create_workspace(inputs[i], tmp_path / "w", embedder=hashing))
    won = [i for i, r in enumerate(res) if isinstance(r, Workspace)]
    lost = [r for r in res if isinstance(r, WorkspaceError)]
    assert len(won) == 1 and len(lost) == 1, res
    assert re.fullmatch(rf"{re.escape(str(tmp_path / 'w'))} already exists\. Pick another name, or pass "
                        r"overwrite=True / --overwrite\.", str(lost[0]))
    from core.graph.formats.load import load_inputs

    assert Workspace.open(tmp_path / "w").graph.content_hash == load_inputs(inputs[won[0]]).graph.content_hash


def test_threads_re_indexing_one_workspace_build_it_once(tmp_path, hashing):
    create_workspace(DEMO, tmp_path / "w", embedder=hashing)
    other = get_embedder("hashing", dim=64)
    wss = [Workspace.open(tmp_path / "w") for _ in range(4)]
    res = run_threads(4, lambda i: wss[i].ensure_index(other))
    assert not any(isinstance(r, BaseException) for r in res), res
    assert sum(1 for r in res if r) == 1  # one thread built; the others found it built
    assert Workspace.open(tmp_path / "w").index_problem(other) is None
    assert sorted(p.name for p in (tmp_path / "w").iterdir() if p.name.startswith("index")) == \
        [Workspace.open(tmp_path / "w").index_dir.name]


def test_five_sessions_opening_a_fresh_home_build_the_sample_once(tmp_path, hashing, monkeypatch):
    import core.index.samples as W

    calls: list[int] = []
    real = W.create_workspace

    def counting(*a, **k):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(W, "create_workspace", counting)
    res = run_threads(5, lambda i: ensure_sample_workspace("demo", hashing, root=tmp_path))
    assert all(isinstance(r, Workspace) for r in res), res
    assert len(calls) == 1
    assert visible(tmp_path) == ["demo"]


# ----------------------------------------------------------------------------- damage
def damage_graph(ws: Path, how: str) -> None:
    g = ws / "graph.json.gz"
    if how == "truncated":
        g.write_bytes(g.read_bytes()[: g.stat().st_size // 2])
    elif how == "not-json":
        g.write_bytes(gzip.compress(b"<html>not json</html>"))
    elif how == "not-gzip":
        g.write_bytes(b"plain bytes")
    elif how == "wrong-shape":
        g.write_bytes(gzip.compress(b'{"format": "egx-graph", "nodes": 3}'))


@pytest.mark.parametrize("how", ["truncated", "not-json", "not-gzip", "wrong-shape"])
def test_a_damaged_graph_file_says_so_and_names_the_rebuild_command(tmp_path, how):
    ws = create_workspace(DEMO, tmp_path / "w")
    damage_graph(ws.path, how)
    with pytest.raises(WorkspaceError, match=rf"^This workspace is damaged: {re.escape(str(ws.path / 'graph.json.gz'))} "
                                             r"cannot be read \(.+\)\. Rebuild it with `egx index corpus\.json "
                                             rf"triples\.csv --workspace {re.escape(str(ws.path))} --overwrite`\.$"):
        Workspace.open(ws.path).graph  # noqa: B018


@pytest.mark.parametrize("how", ["truncated", "garbage", "missing", "other-size"])
def test_a_damaged_faiss_index_says_so_and_names_the_rebuild_command(tmp_path, hashing, how):
    ws = create_workspace(DEMO, tmp_path / "w", embedder=hashing)
    f = ws.index_dir / "chunks.faiss"
    if how == "truncated":
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    elif how == "garbage":
        f.write_bytes(os.urandom(f.stat().st_size))
    elif how == "missing":
        f.unlink()
    else:
        from core.index.vector_index import VectorIndex

        VectorIndex(np.eye(4, 256, dtype=np.float32)).save(f)
    fresh = Workspace.open(ws.path)
    with pytest.raises(WorkspaceError, match=r"^This workspace is damaged: .*chunks\.faiss.*Rebuild the index with "
                                             rf"`egx index --workspace {re.escape(str(ws.path))} --rebuild`\.$"):
        fresh.index("chunks")
    if how != "missing":  # the named command repairs it
        fresh.ensure_index(hashing, rebuild=True)
        assert Workspace.open(ws.path).index("chunks").size == 23


def test_a_damaged_sample_is_rebuilt_on_open(tmp_path, hashing):
    ws = ensure_sample_workspace("demo", hashing, root=tmp_path)
    damage_graph(ws.path, "truncated")
    assert ensure_sample_workspace("demo", hashing, root=tmp_path).graph.n_chunks == 23


def test_a_sample_hint_names_the_sample(tmp_path, hashing):
    from core.index.graph_files import rebuild_hint

    ws = ensure_sample_workspace("demo", hashing, root=tmp_path)
    assert rebuild_hint(ws.path, ws.manifest) == "`egx index --sample demo --rebuild`"


def test_errors_are_egx_errors():
    assert issubclass(WorkspaceError, EgxError)


# ----------------------------------------------------------------------------- memory
def test_an_index_built_in_place_equals_one_built_from_an_array():
    from core.index.vector_index import VectorIndex

    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((500, 16)).astype(np.float32)
    a = VectorIndex(vecs)
    b = VectorIndex.build(500, 16, lambda out: out.__setitem__(slice(None), vecs))
    np.testing.assert_allclose(a.vectors, b.vectors, atol=1e-7)
    q = rng.standard_normal((3, 16)).astype(np.float32)
    np.testing.assert_array_equal(a.search(q, 5)[1], b.search(q, 5)[1])
    assert not b.vectors.flags.writeable and not b.vectors.flags.owndata  # a view of FAISS's storage
    del a, b  # the view keeps its index alive


# ----------------------------------------------------------------------------- readers during a rebuild
def _two_builds(tmp_path: Path, hashing) -> tuple[Path, Path]:
    """The workspace at ``w`` (the demo triples) and a finished rebuild of it with other content beside it."""
    create_workspace([SMALL], tmp_path / "w", embedder=hashing)
    rows = SMALL.read_text().splitlines()
    other = tmp_path / "other.csv"
    other.write_text("\n".join(rows[: max(3, len(rows) // 2)]) + "\n")
    create_workspace([other], tmp_path / "new", embedder=hashing)
    return tmp_path / "w", tmp_path / "new"


def test_a_reader_sees_the_old_or_the_new_workspace_while_a_commit_renames_twice(tmp_path, hashing):
    """Where folders cannot be swapped atomically a commit is two renames; a reader that loaded its graph
    between them once failed with "This workspace is damaged". It now waits them out and reads the new one."""
    from core.fsio import temp_sibling
    from core.index.commit import workspace_lock

    path, new = _two_builds(tmp_path, hashing)
    want = Workspace.open(new).graph.content_hash
    ws = Workspace.open(path)  # its manifest read; the graph not yet
    away, done = threading.Event(), threading.Event()

    def commit_by_two_renames() -> None:
        with workspace_lock(path):
            trash = temp_sibling(path, "old")
            os.rename(path, trash)
            away.set()
            threading.Event().wait(0.5)  # the gap, stretched
            os.rename(new, path)
        done.set()

    t = threading.Thread(target=commit_by_two_renames)
    t.start()
    away.wait(10)
    try:
        g = ws.graph
    finally:
        t.join()
    assert done.is_set() and g.content_hash == want == ws.meta.content_hash
    assert ws.index("nodes").size == g.n_nodes


def test_a_reader_never_pairs_the_old_manifest_with_the_new_graph(tmp_path, hashing):
    from core.index.commit import commit

    path, new = _two_builds(tmp_path, hashing)
    ws = Workspace.open(path)
    old_hash = ws.meta.content_hash
    commit(new, path)  # atomic swap, after this reader read its manifest
    assert ws.graph.content_hash == ws.meta.content_hash != old_hash
    assert ws.index("edges").size == ws.graph.n_edges


def test_a_missing_graph_file_of_an_unchanged_workspace_is_still_damaged(tmp_path, hashing):
    path, _ = _two_builds(tmp_path, hashing)
    ws = Workspace.open(path)
    (path / "graph.json.gz").unlink()
    with pytest.raises(WorkspaceError, match=r"^This workspace is damaged: .*graph\.json\.gz is missing"):
        ws.graph  # noqa: B018
