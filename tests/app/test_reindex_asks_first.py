"""An embedder switch starts no long re-index unasked (MuSiQue → MiniLM once started a 7-minute job on a click
in the sidebar): above ``EGX_ASK_BEFORE_S`` the sidebar says what would be built, its estimate and the button;
the page says the workspace is not ready for this embedder; switching back needs nothing.

The demo (hashing, 200 texts) re-indexes in well under a second, so ``EGX_ASK_BEFORE_S=0`` makes it count as
long; "minilm" is a hashing embedder of another dimension here (another model id, no model to load)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import jobs_view
from components import state as S
from core.index.manifest import read_manifest
from tests.app.helpers import plain, run_page


@pytest.fixture
def other_embedder(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from core.backends import registry

    orig = registry.get_embedder
    monkeypatch.setenv("EGX_BUILD_ISOLATED", "0")  # the stand-in exists in this process only

    def get(name: str = registry.DEFAULT_EMBEDDER, **kw):  # type: ignore[no-untyped-def]
        return orig("hashing", dim=96) if name == "minilm" else orig(name, **kw)

    monkeypatch.setattr(registry, "get_embedder", get)
    return home


def _sidebar(at: AppTest) -> str:
    return plain(" ".join(m.value for m in [*at.sidebar.info, *at.sidebar.markdown, *at.sidebar.caption]))


def _page(at: AppTest) -> str:
    return plain(" ".join(m.value for m in [*at.main.info, *at.main.markdown, *at.main.caption]))


def _index_model(home: Path) -> str:
    return str(read_manifest(home / "workspaces" / "demo")["index"]["model_id"])


def _switch(at: AppTest, name: str) -> AppTest:
    at.sidebar.selectbox(key=S.widget_key(S.EMBEDDER)).set_value(name).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _workspace_jobs() -> list[str]:
    return [j.key for j in jobs_view.jobs().jobs() if j.key.startswith("workspace:")]


def test_a_long_reindex_waits_for_the_click_and_switching_back_needs_nothing(
        other_embedder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = run_page()  # the demo, built for hashing (the app's embedder here)
    assert _index_model(other_embedder) == "hashing-v1-d256-s0"
    built = _workspace_jobs()
    monkeypatch.setenv("EGX_ASK_BEFORE_S", "0")

    _switch(at, "minilm")
    assert "Not indexed for minilm yet" in _sidebar(at) and "expected to take **about" in _sidebar(at)
    assert "200 texts (87 nodes, 90 edges, 23 passages)" in _sidebar(at) and "just now on this machine" in _sidebar(at)  # its basis
    assert "not ready for the embedder minilm" in _page(at) and "needs nothing" in _page(at)
    assert "Build it now" in [b.label for b in at.sidebar.button]
    at.run()  # a rerun (another widget, a page switch) starts nothing either
    assert _workspace_jobs() == built and _index_model(other_embedder) == "hashing-v1-d256-s0"

    _switch(at, "hashing")  # back: the workspace as it is, no job, no offer
    assert "Not indexed" not in _sidebar(at) and "not ready" not in _page(at)
    assert "303" not in _sidebar(at) and "87 nodes · 90 edges" in _sidebar(at)
    assert _workspace_jobs() == built

    _switch(at, "minilm")
    next(b for b in at.sidebar.button if b.label == "Build it now").click().run()
    deadline = time.monotonic() + 120
    while _index_model(other_embedder) != "hashing-v1-d96-s0" and time.monotonic() < deadline:
        time.sleep(0.3)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert _index_model(other_embedder) == "hashing-v1-d96-s0"
    assert "not ready" not in _page(at) and "index: hashing" in _sidebar(at)


def test_a_short_reindex_starts_without_asking(other_embedder: Path) -> None:
    """Under the threshold (30 s by default; the demo's measured re-index takes well under a second) the switch
    re-indexes at once, as before."""
    at = run_page()
    _switch(at, "minilm")
    assert "Not indexed" not in _sidebar(at) and "not ready" not in _page(at)
    assert _index_model(other_embedder) == "hashing-v1-d96-s0"


def test_an_unbuilt_sample_opened_with_another_embedder_waits_for_the_click(
        other_embedder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """MuSiQue opened with MiniLM before anything had built it started its whole build (~7 min) unasked. Now
    the sidebar says what would be built, its estimate (the recipe's texts, measured) and the button; the
    page says what is missing; a rerun starts nothing; the click builds it. The demo stands in for MuSiQue
    (``EGX_ASK_BEFORE_S=0``: its second-long build counts as long)."""
    from tests.app.helpers import app

    monkeypatch.setenv("EGX_ASK_BEFORE_S", "0")
    at = app()
    at.session_state[S.EMBEDDER] = "minilm"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "is not built for minilm yet" in _sidebar(at) and "expected to take **about" in _sidebar(at)
    assert "200 texts (87 nodes, 90 edges, 23 passages)" in _sidebar(at) and "just now on this machine" in _sidebar(at)
    assert "not built for the embedder minilm" in _page(at)
    assert "Build it now" in [b.label for b in at.sidebar.button]
    manifest = other_embedder / "workspaces" / "demo" / "manifest.json"
    at.run()  # a rerun (another widget, a page switch) starts nothing either
    assert not _workspace_jobs() and not manifest.exists()

    next(b for b in at.sidebar.button if b.label == "Build it now").click().run()
    deadline = time.monotonic() + 120
    while not manifest.exists() and time.monotonic() < deadline:
        time.sleep(0.3)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert _index_model(other_embedder) == "hashing-v1-d96-s0"
    assert "not built" not in _page(at) and "87 nodes · 90 edges" in _sidebar(at)


def test_the_samples_the_server_builds_itself_are_not_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """``make app`` builds the samples for the default embedder as the server's own jobs: a page that opens one
    before its turn waits on it without asking; with another embedder, or without those builds, it asks."""
    from components import startup, workspaces

    monkeypatch.setenv("EGX_EMBEDDER", "hashing")
    monkeypatch.setenv(startup.ENV, "1")
    assert workspaces._server_builds("hashing") and not workspaces._server_builds("minilm")
    monkeypatch.setenv(startup.ENV, "0")
    assert not workspaces._server_builds("hashing")
