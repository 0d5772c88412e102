"""Navigation that keeps context, through the whole app (AppTest).

First: opening a question from the Benchmark page (a table row, "Open in comparison") or from the
Compare page ("Step through →") takes its workspace and method along: the target page runs on the
workspace the question belongs to, never on the demo graph. Second: every page keeps its settings when
you leave it and come back, and a page's question is kept per workspace.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state as S
from core.methods.registry import METHODS
from tests.app.helpers import ROOT, plain, run_page, switch

MUSIQUE_Q = "Who was the first president of the association which published Journal of Psychotherapy Integration?"


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def _workspace(at: AppTest) -> str:
    return at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).value


def _pick_workspace(at: AppTest, name: str) -> AppTest:
    return _ok(at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value(name).run())


def _musique_benchmark(at: AppTest, run: str = "mq") -> AppTest:
    """A one-question dense benchmark of the MuSiQue sample, loaded on the Benchmark page."""
    _ok(switch(at, "pages/benchmark.py"))
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense"])
    at.number_input(key=S.widget_key(S.BENCH_LIMIT, "bench")).set_value(1)
    at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).set_value(run)
    _ok(at.run())
    _ok(at.button(key=S.BENCH_RUN).click().run())
    assert any("1 runs now" in s.value for s in at.success)
    return at


# ---------------------------------------------------------- the workspace travels with the question
def test_benchmark_opens_a_musique_question_on_musique_even_from_the_demo(home: Path) -> None:
    """The report of a MuSiQue run stays loaded when the sidebar is on the demo (a lecture switches
    back and forth); "Open in comparison" must run the question on MuSiQue with its diagnosis."""
    at = run_page(**{S.WORKSPACE: "musique"})
    _musique_benchmark(at)
    q = at.selectbox(key=S.BENCH_OPEN_PICK).value
    assert q == MUSIQUE_Q
    _pick_workspace(at, "demo")
    assert at.title[0].value == "Benchmark" and at.get("plotly_chart")  # the report is still shown
    _ok(at.button(key=S.BENCH_OPEN).click().run())
    assert at.title[0].value == "Compare methods"
    assert _workspace(at) == "musique"
    assert at.session_state[S.COMPARE_QUESTION] == q
    assert not any("no gold evidence" in i.value for i in at.info)
    assert "verdict" in at.dataframe[0].value.columns  # the diagnosis is there


def test_benchmark_row_opens_its_question_with_its_method(home: Path) -> None:
    at = run_page(**{S.WORKSPACE: "musique"})
    _musique_benchmark(at)
    # the row's method is compared even when the Compare page had it switched off
    at.session_state[S.COMPARE_METHODS] = ["ppr"]
    at.session_state[S.widget_key(S.COMPARE_METHODS, "compare")] = ["ppr"]
    _pick_workspace(at, "demo")
    at.session_state[S.BENCH_TABLE] = {"selection": {"rows": [0], "columns": []}}  # a click on the first row
    _ok(at.run())
    assert at.title[0].value == "Compare methods"
    assert _workspace(at) == "musique"
    assert at.session_state[S.COMPARE_QUESTION] == MUSIQUE_Q
    assert set(at.dataframe[0].value["method"]) == {"HippoRAG PPR", "Naive RAG"}  # the papers' names (Compare's table)


def test_compare_step_through_keeps_the_workspace_and_question(home: Path) -> None:
    at = run_page("pages/compare.py", **{S.WORKSPACE: "musique"})
    assert _workspace(at) == "musique"
    assert at.session_state[S.COMPARE_QUESTION] == MUSIQUE_Q  # MuSiQue's own first question
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["fastinsight"])
    _ok(at.run())
    step = next(b for b in at.button if b.label == f"Step through → {METHODS['fastinsight'].title}")
    _ok(step.click().run())
    assert at.title[0].value == "GRanker vs plain reranking"
    assert _workspace(at) == "musique"
    assert at.selectbox(key=S.widget_key(S.GRANKER_QUESTION)).value == MUSIQUE_Q


def test_a_question_from_another_workspace_is_not_carried_over(home: Path) -> None:
    """The demo's typed question must not follow the user to MuSiQue (it answered the Keanu question on
    MuSiQue); switching back brings the demo's question back."""
    at = run_page("pages/compare.py")
    assert at.session_state[S.COMPARE_QUESTION] != MUSIQUE_Q
    demo_q = at.session_state[S.COMPARE_QUESTION]
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense"])
    _ok(at.run())
    _pick_workspace(at, "musique")
    assert at.session_state[S.COMPARE_QUESTION] == MUSIQUE_Q
    assert at.selectbox(key=S.widget_key(S.COMPARE_QUESTION, "compare")).value == MUSIQUE_Q
    _pick_workspace(at, "demo")
    assert at.session_state[S.COMPARE_QUESTION] == demo_q


def test_a_deleted_workspace_is_named_not_silently_replaced(home: Path) -> None:
    at = run_page("pages/home.py")
    at.session_state[S.PENDING_WORKSPACE] = "gone*[x](y)"  # a name from an uploaded trace: shown as typed
    _ok(switch(at, "pages/compare.py"))
    assert _workspace(at) == "demo"
    shown = [w.value for w in at.warning if "no longer exists" in w.value]
    assert shown and plain(shown[0]).startswith("Workspace “gone*[x](y)” no longer exists"), shown
    assert "\\\\" not in shown[0]  # escapes are not doubled (repr of an escaped string)


@pytest.mark.parametrize("page", ["pages/granker.py", "pages/evidence_chains.py", "pages/subgraph.py"])
def test_step_through_pages_take_the_question_on_its_workspace(home: Path, page: str) -> None:
    at = run_page(**{S.WORKSPACE: "musique"})  # builds the sample
    _pick_workspace(at, "demo")
    at.session_state[S.HANDOFF_QUESTION] = S.Handoff(MUSIQUE_Q, "musique", "")
    at.session_state[S.PENDING_WORKSPACE] = "musique"
    _ok(at.switch_page(str(ROOT / page)).run())
    assert _workspace(at) == "musique"
    assert S.HANDOFF_QUESTION not in at.session_state


# ----------------------------------------------------------------------------------- settings stick
def _second(at: AppTest, kind: str, key: str) -> object:
    return getattr(at, kind)(key=key).options[1]


#: page → the settings changed on it: (widget kind, widget key, new value or a function of the AppTest).
SETTINGS: dict[str, list[tuple[str, str, object]]] = {
    "pages/data.py": [("text_input", S.widget_key(S.DATA_SEARCH), "matrix"),
                      ("checkbox", S.widget_key(S.DATA_EDGE_LABELS), False)],
    "pages/bubble_anchors.py": [("text_input", S.widget_key(S.BUBBLE_QUESTION, "anchors"), "Who directed The Matrix?"),
                                ("select_slider", S.widget_key(S.BUBBLE_STAGE),
                                 lambda at: at.select_slider(key=S.widget_key(S.BUBBLE_STAGE)).options[2])],
    "pages/bubble_expansion.py": [("slider", S.widget_key(S.BUBBLE_H), 3), ("slider", S.widget_key(S.BUBBLE_B), 4),
                                  ("checkbox", S.widget_key(S.BUBBLE_PAUSE_AT_COLLISION), False)],
    "pages/bubble_ranking.py": [("segmented_control", S.widget_key(S.BUBBLE_PRESET), "OR"),
                                ("slider", S.widget_key(S.BUBBLE_N), 2)],
    "pages/bubble_ask.py": [("text_input", S.widget_key(S.BUBBLE_QUESTION, "ask"), "Who directed The Matrix?")],
    "pages/granker.py": [("selectbox", S.widget_key(S.GRANKER_QUESTION),
                          lambda at: _second(at, "selectbox", S.widget_key(S.GRANKER_QUESTION))),
                         ("slider", S.widget_key(S.GRANKER_ALPHA), 0.5), ("slider", S.widget_key(S.GRANKER_BETA), 2.0)],
    "pages/subgraph.py": [("selectbox", S.widget_key(S.SGRAG_QUESTION),
                           lambda at: _second(at, "selectbox", S.widget_key(S.SGRAG_QUESTION))),
                          ("checkbox", S.widget_key(S.SGRAG_DOMINANCE), False)],
    "pages/evidence_chains.py": [("selectbox", S.widget_key(S.REG_QUESTION),
                                  lambda at: _second(at, "selectbox", S.widget_key(S.REG_QUESTION))),
                                 ("radio", S.widget_key(S.REG_FORMAT), "triples"),
                                 ("selectbox", S.widget_key(S.REG_METHOD), "dense")],
    "pages/compare.py": [("multiselect", S.widget_key(S.COMPARE_METHODS, "compare"), ["dense", "ppr"]),
                         ("number_input", S.widget_key(S.COMPARE_CUT, "compare"), 3),
                         ("selectbox", S.widget_key(S.COMPARE_QUESTION, "compare"),
                          lambda at: _second(at, "selectbox", S.widget_key(S.COMPARE_QUESTION, "compare")))],
    "pages/benchmark.py": [("multiselect", S.widget_key(S.BENCH_METHODS, "bench"), ["dense"]),
                           ("text_input", S.widget_key(S.BENCH_OUT, "bench"), "my-run")],
}


@pytest.mark.parametrize("page", list(SETTINGS))
def test_settings_stick_when_you_leave_and_come_back(home: Path, page: str) -> None:
    """FastInsight's question, α, β; SG-RAG's question; ReG's question and evidence
    format; every page's settings — the same after a visit to another page (via the sidebar)."""
    at = run_page(page)
    want = {}
    for kind, key, value in SETTINGS[page]:
        v = value(at) if callable(value) else value
        getattr(at, kind)(key=key).set_value(v)
        _ok(at.run())
        want[(kind, key)] = v
    assert {k: getattr(at, k[0])(key=k[1]).value for k in want} == want
    _ok(switch(at, "pages/home.py"))
    _ok(switch(at, page))
    assert {k: getattr(at, k[0])(key=k[1]).value for k in want} == want


def test_subgraph_page_offers_the_workspace_questions_on_musique(home: Path) -> None:
    """SG-RAG answered the demo's Keanu question on MuSiQue: it now starts on MuSiQue's own questions."""
    at = run_page("pages/subgraph.py")
    assert at.selectbox(key=S.widget_key(S.SGRAG_QUESTION)).value.startswith("Which film starred Keanu Reeves")
    _pick_workspace(at, "musique")
    box = at.selectbox(key=S.widget_key(S.SGRAG_QUESTION))
    assert box.value == MUSIQUE_Q and len(box.options) == 101  # the 100 MuSiQue questions + "type your own"
    assert not any("Keanu" in m.value for m in at.markdown)
    _pick_workspace(at, "demo")
    assert at.selectbox(key=S.widget_key(S.SGRAG_QUESTION)).value.startswith("Which film starred Keanu Reeves")


def test_replaying_a_musique_trace_from_the_demo_runs_on_musique(home: Path) -> None:
    """A saved trace carries its workspace: replayed on the Ask page while the sidebar is on the demo,
    its question runs on MuSiQue (and is not dropped by the per-workspace question memory)."""
    from core.trace import Trace

    at = run_page(**{S.WORKSPACE: "musique"})  # builds the sample
    _pick_workspace(at, "demo")
    _ok(switch(at, "pages/bubble_ask.py"))
    trace = Trace("bubblerag", MUSIQUE_Q, workspace="musique", config={"h": 2, "B": 5})
    at.file_uploader(key=S.BUBBLE_TRACE_UPLOAD).upload("t.json", trace.to_json().encode(), "application/json").run()
    _ok(at.button(key=S.sub(S.BUBBLE_TRACE_UPLOAD, "replay")).click().run())
    assert _workspace(at) == "musique"
    assert at.text_input(key=S.widget_key(S.BUBBLE_QUESTION, "ask")).value == MUSIQUE_Q


def test_evidence_chains_page_takes_the_handed_method(home: Path) -> None:
    at = run_page("pages/compare.py", **{S.REG_METHOD: "dense"})  # the page last showed dense's evidence
    q = at.session_state[S.COMPARE_QUESTION]
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense", "reg"])
    _ok(at.run())
    _ok(next(b for b in at.button if b.label == f"Step through → {METHODS['reg'].title}").click().run())
    assert at.title[0].value == "Evidence chains"
    assert at.selectbox(key=S.widget_key(S.REG_METHOD)).value == "reg"
    assert q in (at.session_state.get(S.REG_QUESTION), at.session_state.get(S.REG_CUSTOM))


def test_every_page_is_headed_by_its_name_in_the_sidebar(home: Path) -> None:
    """The tour's step 3 was headed "Ranking and reasoning expansion" under a sidebar entry "Ranking and reasoning"
    (an audit): every page's title is its navigation name (components.navigation.entries, the one list both come
    from), Home's the app's name. Read from the pages as drawn."""
    from components import navigation

    entries = navigation.entries()
    assert {path for _, path, _, _ in entries} >= {p for pages in navigation.SECTIONS.values() for p, _, _ in pages}
    at = run_page()
    drawn = {}
    for _, path, title, _ in entries:
        _ok(switch(at, path))
        drawn[path] = (at.title[0].value, title)
    differ = {path: pair for path, pair in drawn.items() if pair[0] != pair[1] and path != navigation.HOME}
    assert not differ, differ
    assert drawn[navigation.HOME] == (navigation.TITLE, "Home")
    assert drawn["pages/bubble_ranking.py"] == ("Ranking and reasoning", "Ranking and reasoning")
    assert navigation.HEADINGS == {navigation.HOME: navigation.TITLE}  # no other page headed apart from its name
