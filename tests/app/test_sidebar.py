"""The shared sidebar: backend choices, what the info box says, and secrets that must never show."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state as S
from tests.app.helpers import app, plain, run_page

SECRET = "sk-test-DO-NOT-SHOW-4242"
_TEXT_ELEMENTS = ("markdown", "caption", "info", "error", "warning", "success", "text", "code", "exception",
                  "metric", "title", "header", "subheader")


def everything_shown(at: AppTest) -> str:
    parts: list[str] = []
    for kind in _TEXT_ELEMENTS:
        for el in at.get(kind):
            parts.append(str(getattr(el, "value", "")))
            parts.append(str(getattr(el, "label", "")))
    for kind in ("selectbox", "text_input", "radio", "checkbox", "slider"):
        for w in at.get(kind):
            parts += [str(w.label), str(w.value), str(getattr(w, "options", ""))]
    for frame in at.get("iframe"):
        parts.append(frame.proto.srcdoc)
    return "\n".join(parts)


def test_unconfigured_openai_falls_back_visibly_and_hides_the_key(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EGX_LLM", "openai")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    at = run_page("pages/data.py")
    assert at.sidebar.selectbox(key=S.widget_key(S.LLM)).value == "openai"
    assert any("No model name" in plain(e.value) for e in at.sidebar.error)
    info = plain(at.sidebar.info[0].value)
    assert "LLM: none" in info and "'openai' is not usable" in info
    settings = plain(" ".join(c.value for c in at.sidebar.caption))
    assert "API key: set in the environment" in settings and "model: not set" in settings
    assert SECRET not in everything_shown(at)


def test_configured_openai_shows_endpoint_without_credentials(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EGX_LLM", "openai")
    monkeypatch.setenv("EGX_OPENAI_MODEL", "qwen2.5:1.5b")
    monkeypatch.setenv("EGX_OPENAI_BASE_URL", "http://user:hunter2@127.0.0.1:9/v1?token=abc")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    at = run_page()
    assert not at.sidebar.error
    info = plain(at.sidebar.info[0].value)
    assert "LLM: openai" in info and "OpenAI-compatible endpoint" in info
    settings = plain(" ".join(c.value for c in at.sidebar.caption))
    assert "Endpoint: http://127.0.0.1:9/v1" in settings and "model: qwen2.5:1.5b" in settings
    shown = everything_shown(at)
    assert SECRET not in shown and "hunter2" not in shown and "token=abc" not in shown


def test_llm_reranker_without_an_llm_uses_the_stand_in(home: Path) -> None:
    at = run_page(**{S.RERANKER: "llm"})
    assert at.sidebar.selectbox(key=S.widget_key(S.RERANKER)).value == "llm"
    info = plain(at.sidebar.info[0].value)
    assert "Reranker: biencoder" in info and "needs an LLM" in info


def test_custom_embedder_name_from_the_environment(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EGX_EMBEDDER", "st:/nonexistent/model")
    at = app().run()
    assert not at.exception
    assert at.sidebar.selectbox(key=S.widget_key(S.EMBEDDER)).value == "st"
    assert at.sidebar.text_input(key=S.widget_key(S.EMBEDDER_MODEL)).value == "/nonexistent/model"
    assert at.sidebar.error and "could not be loaded" in plain(at.sidebar.error[0].value)
    assert any("Pick another embedder" in plain(e.value) for e in at.main.error)


def test_sidebar_names_the_graph_store(home: Path, falkordb_server) -> None:
    """A workspace whose graph lives in FalkorDB says so (URL, no password); the sample says 'in memory'."""
    from core.backends.registry import get_embedder
    from core.index.create import create_workspace
    from tests.conftest import SAMPLE_DATA

    url = falkordb_server.url("sidebar_demo")
    create_workspace([SAMPLE_DATA / "demo" / "corpus.json", SAMPLE_DATA / "demo" / "triples.csv"],
                     home / "workspaces" / "stored", embedder=get_embedder("hashing"), store=url)
    at = run_page()
    assert "graph store: in memory" in plain(" ".join(c.value for c in at.sidebar.caption))
    at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("stored").run()
    assert not at.exception, [e.value for e in at.exception]
    assert f"graph store: FalkorDB {url}" in plain(" ".join(c.value for c in at.sidebar.caption))
