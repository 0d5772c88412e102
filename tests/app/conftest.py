"""Fixtures for the app tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import app_test

from tests.app.browser_support import app_server


class _NavigationPagesManager(PagesManager):
    """PagesManager as a running server has it once app.py has called ``st.navigation``.

    AppTest resets ``PagesManager.uses_pages_directory`` before every run, and with a ``pages/``
    folder next to app.py that puts each run in Streamlit's legacy "MPA v1" mode, which executes a
    page file without app.py. A live server leaves that mode for good at the first
    ``st.navigation`` call, so later runs (clicks, uploads) go through app.py. This makes AppTest
    runs match the server. (The legacy first run itself is covered by the browser test, which opens
    the Data page URL on a fresh server.)
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        PagesManager.uses_pages_directory = False


@pytest.fixture(autouse=True)
def _navigation_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_test, "PagesManager", _NavigationPagesManager)


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    """st.cache_* live in the process, across AppTest instances: start every test empty."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``EGX_HOME`` under ``tmp_path``, the fast hashing embedder and bi-encoder stand-in
    reranker (tests of the real defaults unset them), no LLM settings."""
    h = tmp_path / "egx_home"
    monkeypatch.setenv("EGX_HOME", str(h))
    monkeypatch.setenv("EGX_EMBEDDER", "hashing")
    monkeypatch.setenv("EGX_RERANKER", "biencoder")
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
