"""An embedder switch starts no long re-index unasked (MuSiQue → MiniLM once started a 7-minute job on a click
in the sidebar): above ``EGX_ASK_BEFORE_S`` the page says the workspace is not ready for this embedder, what would
be built and its estimate, with the one **Build it now** button right under it (it was ~3,300 px down the
sidebar, under every job card); switching back needs nothing; the click starts the build and the page shows its
progress.

The demo (hashing, 200 texts) re-indexes in well under a second, so ``EGX_ASK_BEFORE_S=0`` makes it count as
long; "minilm" is a hashing embedder of another dimension here (another model id, no model to load)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import jobs_view
from components import state as S
from core.index.manifest import read_manifest
from tests.app.helpers import gate_index_builds, plain, run_page


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


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Re-indexes wait for the returned event before embedding, so "the page shows its progress" is a fact."""
    import core.index.workspace

    event = gate_index_builds(monkeypatch, core.index.workspace)
    yield event
    event.set()


def _offer_button(at: AppTest):  # type: ignore[no-untyped-def]
    """The one Build it now button: in the main pane, none in the sidebar."""
    assert "Build it now" not in [b.label for b in at.sidebar.button]
    offers = [b for b in at.main.button if b.label == "Build it now"]
    assert len(offers) == 1, [b.label for b in at.main.button]
    return offers[0]


def test_a_long_reindex_waits_for_the_click_and_switching_back_needs_nothing(
        other_embedder: Path, gate: threading.Event, monkeypatch: pytest.MonkeyPatch) -> None:
    gate.set()  # the demo's own first build is not held
    at = run_page()  # the demo, built for hashing (the app's embedder here)
    assert _index_model(other_embedder) == "hashing-v1-d256-s0"
    built = _workspace_jobs()
    monkeypatch.setenv("EGX_ASK_BEFORE_S", "0")
    monkeypatch.setenv("EGX_JOB_INLINE_WAIT", "0")

    _switch(at, "minilm")
    page = _page(at)
    assert "not ready for the embedder minilm" in page and "needs nothing" in page
    assert "expected to take **about" in page and "Nothing is started until you ask".lower() in page.lower()
    assert "200 texts (87 nodes, 90 edges, 23 passages)" in page and "just now on this machine" in page  # its basis
    assert "in the sidebar starts it" not in page and "**Build it now** below starts it" in page
    assert "Not indexed" not in _sidebar(at)  # the offer is on the page only
    _offer_button(at)
    at.run()  # a rerun (another widget, a page switch) starts nothing either
    assert _workspace_jobs() == built and _index_model(other_embedder) == "hashing-v1-d256-s0"

    _switch(at, "hashing")  # back: the workspace as it is, no job, no offer
    assert "not ready" not in _page(at) and not [b for b in at.button if b.label == "Build it now"]
    assert "303" not in _sidebar(at) and "87 nodes · 90 edges" in _sidebar(at)
    assert _workspace_jobs() == built

    _switch(at, "minilm")
    gate.clear()
    _offer_button(at).click().run()
    assert not at.exception, [e.value for e in at.exception]
    # the click started the workspace's re-index job, and the page shows its live panel instead of the offer
    key = next(k for k in _workspace_jobs() if k.endswith(":minilm"))
    job = jobs_view.jobs().get(key)
    assert job is not None and not job.finished
    shown = _page(at) + " " + " ".join(p.proto.text for p in at.main.get("progress"))
    assert "Indexing “Demo" in shown and "runs in the background on the server" in shown, shown
    assert "not ready" not in shown and not [b for b in at.main.button if b.label == "Build it now"]
    assert "Cancel" in [b.label for b in at.main.button]
    gate.set()
    deadline = time.monotonic() + 120
    while _index_model(other_embedder) != "hashing-v1-d96-s0" and time.monotonic() < deadline:
        time.sleep(0.3)
    assert job.wait(60)
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
    the page says what is missing, what would be built and its estimate (the recipe's texts, measured), with the
    button under it; a rerun starts nothing; the click builds it. The demo stands in for MuSiQue
    (``EGX_ASK_BEFORE_S=0``: its second-long build counts as long)."""
    from tests.app.helpers import app

    monkeypatch.setenv("EGX_ASK_BEFORE_S", "0")
    at = app()
    at.session_state[S.EMBEDDER] = "minilm"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    page = _page(at)
    assert "not built for the embedder minilm" in page and "expected to take **about" in page
    assert "200 texts (87 nodes, 90 edges, 23 passages)" in page and "just now on this machine" in page
    assert "**Build it now** below starts it" in page and "not built for minilm" not in _sidebar(at)
    _offer_button(at)
    manifest = other_embedder / "workspaces" / "demo" / "manifest.json"
    at.run()  # a rerun (another widget, a page switch) starts nothing either
    assert not _workspace_jobs() and not manifest.exists()

    _offer_button(at).click().run()
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
