"""The pages with an LLM path show a visible fallback, never a traceback, when the endpoint misbehaves
(an OpenAI-compatible endpoint that answered HTTP 200 with an HTML page once crashed
three pages with ``'str' object has no attribute 'choices'``). Also: the sidebar's LLM limits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state as S
from tests.app.helpers import go_live, plain, run_page, switch
from tests.fake_openai import FAULTS, FakeOpenAIServer, fake_openai_server, openai_env

LLM_PAGES = ("pages/bubble_anchors.py", "pages/bubble_ask.py", "pages/compare.py", "pages/evidence_chains.py",
             "pages/subgraph.py", "pages/granker.py")


@pytest.fixture
def html_endpoint(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """LLM 'openai' pointed at a server that answers every request with a web page; tiny limits."""
    with fake_openai_server(FAULTS["html"]) as server:
        for k, v in openai_env(server).items():
            monkeypatch.setenv(k, v)
        monkeypatch.setenv("EGX_LLM", "openai")
        monkeypatch.setenv("EGX_LLM_TIMEOUT", "0.5")
        monkeypatch.setenv("EGX_LLM_RETRIES", "1")
        monkeypatch.setenv("EGX_JOB_INLINE_WAIT", "120")  # LLM runs are jobs: these tests read their outcome
        yield server


def _texts(at: AppTest) -> str:
    return " ".join(plain(m.value) for m in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info])


def _no_traceback(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert "Traceback" not in _texts(at) and "object has no attribute" not in _texts(at)


def test_bubblerag_pages_show_the_fallback_when_the_endpoint_returns_html(html_endpoint) -> None:
    at = run_page()
    assert at.sidebar.selectbox(key=S.widget_key(S.LLM)).value == "openai"
    _no_traceback(switch(at, "pages/bubble_anchors.py"))
    # a live LLM's run waits for the click, with what it may take (an audit's Ask page started one on opening)
    assert html_endpoint.chat_requests == 0 and "Nothing is started until you ask" in _texts(at)
    _no_traceback(go_live(at))
    text = _texts(at)
    assert ("Pre-retrieval and sufficiency check: fallback — LLM output unusable: http://127.0.0.1:"
            in text) and "answered HTTP 200 with an HTML page instead of a chat completion" in text
    _no_traceback(switch(at, "pages/bubble_ask.py"))
    text = _texts(at)
    assert "Extractive answer (no LLM" in text  # the LLM failed: the answer is an extract, and says so
    # the breaker opened at the third failure: the later stages, the answer too, fell back at once
    assert "Unified evidence graph and answer: fallback — LLM call skipped: the circuit breaker" in text
    table = next(d.value for d in at.dataframe if "fallback" in d.value.columns)
    assert table["fallback"].str.contains("circuit breaker").sum() >= 4
    assert html_endpoint.chat_requests == 3  # one run shared by the pages; then the breaker


@pytest.mark.parametrize("page", LLM_PAGES)
def test_every_llm_page_survives_an_html_endpoint(html_endpoint, page: str) -> None:
    at = run_page(page)
    _no_traceback(at)
    assert html_endpoint.chat_requests <= 3


def test_sidebar_llm_limits_seeded_from_the_environment_and_applied(html_endpoint,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from components import resources

    built: list = []
    make = resources.llm
    monkeypatch.setattr(resources, "llm",
                        lambda name, limits=None, cache=None: built.append(make(name, limits, cache)) or built[-1])
    at = run_page()
    assert at.sidebar.number_input(key=S.widget_key(S.LLM_TIMEOUT)).value == 0.5
    assert at.sidebar.number_input(key=S.widget_key(S.LLM_RETRIES)).value == 1
    assert at.sidebar.number_input(key=S.widget_key(S.LLM_BUDGET)).value == 300.0
    at.sidebar.number_input(key=S.widget_key(S.LLM_BUDGET)).set_value(42.0).run()
    at.sidebar.number_input(key=S.widget_key(S.LLM_TIMEOUT)).set_value(0.0).run()  # 0 = the backend's default
    _no_traceback(at)
    # what the sidebar resolved on the last run (Home may load the tour's recorded LLM in the background on a
    # server's first visit, from another thread: not the sidebar's)
    llm = [b for b in built if getattr(b, "name", "") != "recorded"][-1]
    assert llm.settings.budget == 42.0 and llm.settings.timeout is None and llm.settings.retries == 1
    assert llm.timeout == 60.0


def test_no_limits_widgets_without_an_llm(home: Path) -> None:
    at = run_page()
    assert not [w for w in at.sidebar.number_input if w.key == S.widget_key(S.LLM_TIMEOUT)]
