"""Deep links: a page's URL carries the workspace, the question and (where a page shows one method's
evidence) the method, so a shared link opens the same view, and the page keeps the URL current."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from components import state as S
from tests.app.browser_support import page_app_script
from tests.app.helpers import plain

QUESTION = "Which river flows through the city where <b>Lothair II</b> was born?"  # not a demo question: typed


def _open(page: str, **params: str) -> AppTest:
    at = AppTest.from_string(page_app_script(page), default_timeout=120)
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_shared_link_opens_the_same_view_and_the_page_keeps_it_current(home: Path) -> None:
    at = _open("pages/evidence_chains.py", workspace="demo", q=QUESTION, method="dense")
    assert at.session_state[S.widget_key(S.REG_METHOD)] == "dense"
    assert QUESTION in [t.value for t in at.text_input]  # not one of the workspace's questions: typed
    assert at.session_state[S.widget_key(S.WORKSPACE)] == "demo"
    assert (at.query_params["workspace"], at.query_params["q"], at.query_params["method"]) == ("demo", QUESTION, "dense")
    at.selectbox(key=S.widget_key(S.REG_METHOD)).set_value("ppr").run()
    assert at.query_params["method"] == "ppr" and at.query_params["q"] == QUESTION  # the URL follows the page
    assert at.session_state[S.widget_key(S.REG_METHOD)] == "ppr"  # and the old link is not applied again


def test_a_link_to_an_unknown_workspace_says_so_and_keeps_the_question(home: Path) -> None:
    """A name in a URL may never have existed (a typo): "no longer exists" would be a guess, and a wrong one."""
    at = _open("pages/granker.py", workspace="no-such-workspace", q=QUESTION)
    shown = [w.value for w in at.warning if "no-such-workspace" in w.value]
    assert len(shown) == 1 and shown[0].startswith("There is no workspace “no-such-workspace”"), shown
    assert "no longer exists" not in shown[0] and "Pick another workspace in the sidebar" in shown[0]
    assert f"this page shows “{at.session_state[S.widget_key(S.WORKSPACE)]}”" in shown[0]
    assert QUESTION in [t.value for t in at.text_input]
    assert at.query_params["workspace"] == at.session_state[S.widget_key(S.WORKSPACE)] != "no-such-workspace"


def test_home_names_the_workspace_in_the_address_bar(home) -> None:
    """A reload or a bookmark of Home keeps the workspace (it came back as the demo)."""
    at = _open("pages/home.py")
    assert at.query_params["workspace"] == "demo" and "q" not in at.query_params


def test_a_reload_keeps_the_recorded_llm_and_a_link_never_starts_a_live_one(home: Path) -> None:
    """An audit pressed F5 after choosing the tour's recorded runs and got LLM "none" with no word: the URL now
    carries the sidebar's backends where they differ from the server's defaults, and a new session (a reload)
    reads them. A link may not choose a live LLM or a model path (it would cost the server, or load a file)."""
    at = _open("pages/granker.py", workspace="demo")
    assert "llm" not in at.query_params  # the default: nothing to carry
    at.selectbox(key=S.widget_key(S.LLM)).set_value("recorded").run()
    assert at.query_params["llm"] == "recorded"
    reloaded = _open("pages/granker.py", **{k: at.query_params[k] for k in at.query_params})
    assert reloaded.session_state[S.LLM] == "recorded" and reloaded.query_params["llm"] == "recorded"
    assert any("Recorded LLM run" in c.value for c in reloaded.sidebar.caption)
    reloaded.selectbox(key=S.widget_key(S.LLM)).set_value("none").run()
    assert "llm" not in reloaded.query_params  # the sidebar is the truth once the session runs
    for params in ({"llm": "local"}, {"llm": "openai"}, {"reranker": "st:/etc/passwd"}, {"embedder": "../x"}):
        at = _open("pages/granker.py", workspace="demo", **params)
        assert at.session_state[S.LLM] == S.default_llm() and not set(params) & set(at.query_params), params
        assert at.session_state[S.RERANKER] == S.default_reranker()
        assert at.session_state[S.EMBEDDER] == S.default_embedder()
        # ... and the page says so, naming what a link may choose (an audit's `llm=bogus` passed in silence)
        (kind, name), = params.items()
        said = [plain(w.value) for w in at.warning if "was not applied" in w.value]
        assert said and f"{kind} “{name}”" in said[0], [w.value for w in at.warning]
    bogus = _open("pages/granker.py", workspace="demo", llm="bogus")
    assert any("a link may choose none, recorded" in w.value for w in bogus.warning)


def test_a_link_to_an_unknown_method_says_so(home: Path) -> None:
    """An audit's `method=bogus` was ignored in silence while `llm=bogus` was reported: said the same way, and the
    page keeps its own method."""
    at = _open("pages/evidence_chains.py", workspace="demo", q=QUESTION, method="bogus")
    said = [plain(w.value) for w in at.warning if "was not applied" in w.value]
    assert len(said) == 1 and said[0].startswith("The link's method “bogus” (a link may choose dense, "), said
    assert at.session_state[S.widget_key(S.REG_METHOD)] != "bogus"
    assert QUESTION in [t.value for t in at.text_input]  # the rest of the link still applies
    both = _open("pages/granker.py", workspace="demo", q=QUESTION, method="bogus", llm="bogus")
    said = [plain(w.value) for w in both.warning if "was not applied" in w.value]
    assert len(said) == 1 and "llm “bogus”" in said[0] and "method “bogus”" in said[0], said
    ok = _open("pages/evidence_chains.py", workspace="demo", q=QUESTION, method="ppr")
    assert not [w.value for w in ok.warning if "was not applied" in w.value]


def test_the_url_follows_the_active_workspace_on_a_page_without_a_question(home: Path) -> None:
    """A build on the Data page made the new workspace active while the URL still named the old one, and a reload went
    back to it (an audit); a switch there did the same. The link's question goes with the old workspace."""
    at = _open("pages/data.py", workspace="demo", q=QUESTION)
    assert at.query_params["workspace"] == "demo"
    other = "musique"
    at.selectbox(key=S.widget_key(S.WORKSPACE)).set_value(other).run()
    assert not at.exception, [e.value for e in at.exception]
    name = at.session_state[S.widget_key(S.WORKSPACE)]
    assert name == other and at.query_params["workspace"] == name and "q" not in at.query_params


def test_a_reload_keeps_the_ranking_pages_preset_alpha_and_n(home: Path) -> None:
    """An audit pressed F5 on the Ranking page with the OR preset and got α = 1 back: the URL now carries the preset,
    α and n where they differ from the run's, and a new session (a reload) reads them; a value that is no preset or
    no number in range is left out."""
    at = _open("pages/bubble_ranking.py", workspace="demo", preset="OR", alpha="0", n="2")
    assert at.session_state[S.BUBBLE_ALPHA] == 0.0 and at.session_state[S.BUBBLE_N] == 2
    assert at.session_state[S.BUBBLE_PRESET] == "OR"
    assert (at.query_params["preset"], at.query_params["alpha"], at.query_params["n"]) == ("OR", "0", "2")
    assert any("Best CEG at α = 0:" in m.value for m in at.markdown)
    bad = _open("pages/bubble_ranking.py", workspace="demo", preset="XOR", alpha="1e9", n="many")
    assert S.BUBBLE_PRESET not in bad.session_state or not bad.session_state[S.BUBBLE_PRESET]
    assert "alpha" not in bad.query_params and "n" not in bad.query_params and "preset" not in bad.query_params


def test_a_page_without_a_question_puts_a_workspace_other_than_the_default_in_the_url(home: Path) -> None:
    """An audit built its own workspace, opened the Benchmark page anew and was on the demo, told only by the
    sidebar: a workspace other than the one a new session opens rides in the URL, so a reload keeps it."""
    at = _open("pages/benchmark.py")
    assert "workspace" not in at.query_params  # the default: a new session opens it anyway
    at.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("musique").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["workspace"] == "musique"
    again = _open("pages/benchmark.py", workspace="musique")  # the reload: a new session with that URL
    assert again.session_state[S.widget_key(S.WORKSPACE)] == "musique"


def test_a_page_reached_from_the_menu_writes_the_workspace_back_into_the_url(home: Path) -> None:
    """The sidebar's menu opens a page without the query: an audit followed a link to its own workspace, clicked
    Benchmark in the menu, reloaded and was on the demo (the page had left the URL bare: the link applied earlier
    was another page's)."""
    at = _open("pages/benchmark.py", workspace="musique")  # the link, applied (on any page)
    assert at.session_state[S.widget_key(S.WORKSPACE)] == "musique"
    at.query_params.clear()  # the menu's navigation: the next page's URL carries no query
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params.get("workspace") == "musique", dict(at.query_params)


def test_a_link_may_name_a_workspace_question_by_its_id(home: Path) -> None:
    """An audit opened ``/compare?…&q=q3`` and got "Your question: q3" with "no gold evidence": ``q`` may carry the
    id of one of the workspace's questions, and the page then shows that question (and writes its text back)."""
    at = _open("pages/compare.py", workspace="demo", q="lothair-mother")
    assert [b.value for b in at.selectbox if b.label == "Question"] == ["When did Lothair II's mother die?"]
    assert at.query_params["q"] == "When did Lothair II's mother die?"
    typed = _open("pages/granker.py", workspace="demo", q="no-such-id")  # not an id: typed, as before
    assert "no-such-id" in [t.value for t in typed.text_input]
