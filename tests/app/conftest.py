"""Fixtures for the app tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.browser_support import app_server


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    """st.cache_* live in the process, across AppTest instances: start every test empty."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture
def tour_warmup() -> None:
    """Ask for this to let Home work ahead for the tour in the background (``prefetch.home_fetches``: the first steps'
    runs on the tour's models, else ``prefetch.warm_models``)."""


@pytest.fixture(autouse=True)
def _no_tour_warmup(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Home works ahead for the tour in background threads of the process (on the app's defaults it replays the
    first steps' runs, else it loads the tour's models: ``components.prefetch``): in another test those threads call
    what the test monkeypatches (``resources.llm``, the embedders) after the test has moved on. Off unless a test asks
    for ``tour_warmup``."""
    if "tour_warmup" in request.fixturenames:
        return
    from components import prefetch

    monkeypatch.setattr(prefetch, "home_fetches", lambda: False)
    monkeypatch.setattr(prefetch, "warm_models", lambda: False)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``EGX_HOME`` under ``tmp_path``, the fast hashing embedder and bi-encoder stand-in
    reranker (tests of the real defaults unset them), no LLM settings."""
    h = tmp_path / "egx_home"
    monkeypatch.setenv("EGX_HOME", str(h))
    monkeypatch.setenv("EGX_EMBEDDER", "hashing")
    monkeypatch.setenv("EGX_RERANKER", "biencoder")
    # Builds and LLM runs are background jobs; a page waits this long for one before it shows the live
    # panel. AppTests read outcomes, so they wait (a loaded CI machine can take > 8 s for MuSiQue);
    # the job tests set their own (0) to test the panel.
    monkeypatch.setenv("EGX_JOB_INLINE_WAIT", "600")
    for var in ("EGX_LLM", "EGX_OPENAI_MODEL", "OPENAI_MODEL", "EGX_OPENAI_BASE_URL", "OPENAI_BASE_URL",
                "OPENAI_API_KEY", "EGX_OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return h


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, float]]:
    """A running ``streamlit run app.py`` (isolated home, hashing embedder, no LLM) for browser
    tests: yields its base URL and the ``time.monotonic()`` at which it was launched."""
    with app_server(tmp_path) as running:
        yield running
