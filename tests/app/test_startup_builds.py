"""`egx app` opens the port at once and the server builds the bundled samples itself, as its own jobs: the demo
first, then the others, then what each method keeps in them — shown in every session's sidebar and banner, the
picker saying which sample is still being built (before, `make app` kept the port closed for 9½ minutes on a
fresh machine while it built them).

Two small samples here: the demo and a copy named "aaa" (sorted before it, to show the demo still goes first);
the copy's index build waits for a gate, so "still building" is a fact, not a race."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import jobs_view, startup
from tests.app.helpers import app, plain
from tests.conftest import SAMPLE_DATA

RUN_TIMEOUT = 60


@pytest.fixture
def two_samples(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    import core.index.create
    import core.index.indexing

    sd = tmp_path / "sample_data"
    shutil.copytree(SAMPLE_DATA / "demo", sd / "demo")
    shutil.copytree(SAMPLE_DATA / "demo", sd / "aaa")
    recipe = json.loads((sd / "aaa" / "workspace.json").read_text(encoding="utf-8"))
    (sd / "aaa" / "workspace.json").write_text(json.dumps({**recipe, "name": "aaa", "title": "Another demo"}),
                                               encoding="utf-8")
    monkeypatch.setenv("EGX_SAMPLE_DATA", str(sd))
    monkeypatch.setenv(startup.ENV, "1")
    monkeypatch.setenv("EGX_BUILD_ISOLATED", "0")  # the gate reaches into the build: keep it in this process
    gate = threading.Event()
    orig = core.index.indexing.build_indexes

    def gated(path, graph, embedder, *, progress=None, **kw):  # type: ignore[no-untyped-def]
        if "aaa" in Path(path).name:
            if progress:
                progress("Embedding nodes (gated by the test)", 0.0)
            gate.wait(60)
        return orig(path, graph, embedder, progress=progress, **kw)

    monkeypatch.setattr(core.index.create, "build_indexes", gated)
    yield gate
    gate.set()
    thread = startup.start_sample_builds()
    if thread is not None:
        thread.join(60)


def _sidebar(at: AppTest) -> str:
    sb = at.sidebar
    parts = [m.value for m in [*sb.markdown, *sb.caption, *sb.success]] + [p.proto.text for p in sb.get("progress")]
    return plain(" ".join(parts))


def _banner(at: AppTest) -> str:
    return plain(" ".join(m.value for m in at.main.markdown))


def _job(name: str):  # type: ignore[no-untyped-def]
    return next((j for j in jobs_view.jobs().jobs() if j.key.startswith("workspace:") and
                 Path(j.key.removeprefix("workspace:").rsplit(":", 1)[0]).name == name), None)


def test_the_server_builds_the_samples_itself_demo_first_each_with_its_preparations(
        two_samples: threading.Event, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.backends.registry import get_embedder
    from core.index.workspace import Workspace
    from core.methods.fastinsight.node_vectors import has_node_vectors

    first = app()
    first.run(timeout=RUN_TIMEOUT)  # the first session's first run starts the server's builds
    assert not first.exception, [e.value for e in first.exception]
    deadline = time.monotonic() + 60
    while _job("aaa") is None and time.monotonic() < deadline:
        time.sleep(0.1)
    demo, other = _job("demo"), _job("aaa")
    assert demo is not None and other is not None and demo.id < other.id  # the demo first, though "aaa" sorts first
    # and the demo prepared before the next sample's build: the guided demo's first steps waited on its node
    # vectors behind the MuSiQue build on a fresh server (an audit)
    assert has_node_vectors(Workspace.open(home / "workspaces" / "demo"), get_embedder("hashing"))
    assert not other.sessions  # the server's own: everyone's

    newcomer = app()  # another browser: the server's build is listed and in the banner, with the picker saying so
    newcomer.run(timeout=RUN_TIMEOUT)
    assert not newcomer.exception, [e.value for e in newcomer.exception]
    assert "Building workspace “Another demo”" in _sidebar(newcomer) and "of other sessions" not in _sidebar(newcomer)
    assert "**Building workspace “Another demo”** on the server: " in _banner(newcomer)
    # what the banner points to is there: the sidebar offers "Stop waiting" on the server's own job, no Cancel.
    # The line says that first; why (the server's own job) is in its tooltip: the line was cut at 1440 px in
    # "(the server's own…"
    line = next(m for m in newcomer.main.markdown if "on the server: " in m.value)
    assert plain(line.value).endswith("Stop waiting in the sidebar"), line.value
    assert "the server's own" not in line.value and "Cancel in the sidebar" not in line.value
    assert "Stop waiting, no Cancel: it is the server's own job." in line.proto.help
    assert "Stop waiting" in [b.label for b in newcomer.sidebar.button]
    picker = newcomer.sidebar.selectbox[0]
    assert "Another demo  (being built on the server…)" in picker.options

    # the guided demo shows the demo: the server's build of another sample stays in the sidebar, off the banner that
    # sat on top of the tour's first steps for 40 s in an audit
    from components import state as S
    from components import tour

    # the test's own models: the tour's bundled ones would re-index the demo this test checks the builds of
    monkeypatch.setattr(tour, "_tour_models", lambda: {"embedder": "hashing", "reranker": "biencoder"})
    touring = app()
    touring.run(timeout=RUN_TIMEOUT)
    touring.button(key=S.sub(S.TOUR, "start")).click().run(timeout=RUN_TIMEOUT)
    assert not touring.exception, [e.value for e in touring.exception]
    assert touring.session_state[S.TOUR].step == 0
    assert "Building workspace “Another demo”" not in _banner(touring), _banner(touring)
    assert "Building workspace “Another demo”" in _sidebar(touring)
    # and in the sidebar it is folded (its card took a third of a projector's sidebar on every step, an audit)
    assert [e.label for e in touring.sidebar.expander if "server preparation" in e.label] == [
        "1 server preparation of other workspaces"], [e.label for e in touring.sidebar.expander]

    two_samples.set()
    thread = startup.start_sample_builds()
    assert thread is not None
    thread.join(120)
    assert not thread.is_alive()
    emb = get_embedder("hashing")
    for name in ("demo", "aaa"):  # built and prepared: no page has anything left to build or offer
        assert has_node_vectors(Workspace.open(home / "workspaces" / name), emb)
    keys = [j.key for j in jobs_view.jobs().jobs()]
    assert any(k.startswith("fastinsight-nodes:") and "/aaa:" in k for k in keys)
    newcomer.run(timeout=RUN_TIMEOUT)
    assert "being built" not in " ".join(newcomer.sidebar.selectbox[0].options)
    assert "Building workspace “Another demo”" in _sidebar(newcomer)  # it saw the build run: its outcome stays listed
    # a browser opened after the server's builds ended lists none of them (audit 42's second user found the server's
    # sample builds listed, with Dismiss, in a session that never waited on them)
    late = app()
    late.run(timeout=RUN_TIMEOUT)
    assert not late.exception, [e.value for e in late.exception]
    assert "Building workspace" not in _sidebar(late) and "Dismiss" not in [b.label for b in late.sidebar.button]


def test_a_second_start_on_built_samples_submits_nothing(home: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    sd = tmp_path / "sample_data"
    shutil.copytree(SAMPLE_DATA / "demo", sd / "demo")
    monkeypatch.setenv("EGX_SAMPLE_DATA", str(sd))
    assert startup.build_samples("hashing")  # a fresh home: the demo and its preparations
    assert startup.build_samples("hashing") == []  # built and prepared: only checked


def test_without_egx_app_s_switch_the_server_builds_nothing(home: Path) -> None:
    assert startup.start_sample_builds() is None


def test_the_server_starts_no_long_preparation_unasked(home: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A preparation estimated over ``EGX_ASK_BEFORE_S`` (here 0 s, so the demo's sub-second ones count as long,
    like MuSiQue's 14-minute node vectors) is not the server's to start: only the sample itself is built, and
    the pages offer the rest (Build it now)."""
    from core.backends.registry import get_embedder
    from core.index.workspace import Workspace
    from core.methods.fastinsight.node_vectors import has_node_vectors

    sd = tmp_path / "sample_data"
    shutil.copytree(SAMPLE_DATA / "demo", sd / "demo")
    monkeypatch.setenv("EGX_SAMPLE_DATA", str(sd))
    monkeypatch.setenv("EGX_ASK_BEFORE_S", "0")
    keys = startup.build_samples("hashing")
    assert [k.split(":")[0] for k in keys] == ["workspace"], keys
    assert not has_node_vectors(Workspace.open(home / "workspaces" / "demo"), get_embedder("hashing"))


def test_the_workspace_box_names_a_long_titled_workspace_without_its_parenthesis() -> None:
    """The sidebar's box shows ~30 characters: an audit read "MuSiQue (100 questions, 1,890 p…"; the sizes are
    in the caption under it."""
    from pathlib import Path

    from components.sidebar import _workspace_label
    from core.index.listing import WorkspaceInfo

    infos = {n: WorkspaceInfo(n, t, Path("/nowhere") / n, built=True, sample=False) for n, t in (
        ("musique", "MuSiQue (100 questions, 1,890 passages, GPT-3.5 OpenIE KG)"), ("short", "Films (2)"),
        ("plain", "An observatory and its astronomers of the north ridge"))}
    fmt = _workspace_label(infos)
    assert fmt("musique") == "MuSiQue"
    assert fmt("short") == "Films (2)"  # short enough to show whole
    assert fmt("plain") == "An observatory and its astronomers of the north…"[:48]
