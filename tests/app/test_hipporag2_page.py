"""The HippoRAG 2 page (AppTest): every stage's panel for the demo's Keanu question, the knobs, the stated fallbacks,
and the Compare page's "Step through" into it."""

from __future__ import annotations

import re
from pathlib import Path

from components import state as S
from core.methods.registry import METHODS
from tests.app.helpers import plain, run_page, switch

PAGE = "pages/hipporag2.py"
KEANU = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_page_steps_through_every_stage_on_the_demo(home: Path) -> None:
    at = _ok(run_page(PAGE))
    assert at.title[0].value == "HippoRAG 2"
    assert at.selectbox(key=S.widget_key(S.HIPPORAG2_QUESTION)).value == KEANU
    assert [h.value for h in at.subheader] == ["1 · Query-to-triple linking", "2 · Recognition memory", "3 · Seeds",
                                               "4 · PPR mass", "5 · Ranked passages", "6 · Answer"]
    linked = at.dataframe[0].value
    assert len(linked) == 5 and set(linked["kept"]) == {"(unfiltered)"}
    # `none` mode: recognition memory's fallback is stated, not hidden
    assert any("Not filtered" in w.value and "none" in w.value for w in at.warning)
    seeds = at.dataframe[1].value
    assert list(seeds.columns) == ["phrase", "weight", "kept facts", "passages"] and len(seeds) == 5
    assert {m.label for m in at.metric} >= {"Phrase seed mass", "Passage seed mass"}
    assert [c.key for c in at.get("plotly_chart")] == [S.HIPPORAG2_MASS_CHART]
    ranked = at.dataframe[2].value
    assert len(ranked) == 10 and set(ranked.loc[ranked["gold"] == "✓", "passage"]) == {"The Matrix", "Agent Smith"}
    captions = [plain(c.value) for c in at.caption]
    # the gold passages best first, each by its label (audit 55 read "rank 17; … rank 8")
    gold_line = next(c for c in captions if c.startswith("Gold passages, best first: "))
    shown = re.findall(r"(The Matrix|Agent Smith) — rank (\d+)", gold_line)
    assert {t for t, _ in shown} == {"The Matrix", "Agent Smith"}, gold_line
    assert [int(r) for _, r in shown] == sorted(int(r) for _, r in shown), gold_line
    assert any("Extractive answer (no LLM)" in c for c in captions)
    # the page's own budget said beside the answer, with Compare's cap (an audit read 5 here and up to 15 there)
    assert any(c.startswith("This page runs the method at its paper's own budget: its answer step was handed 5 "
                            "passages (no LLM: its extracted sentence comes from the top 3 of them). Compare and the "
                            "Benchmark open at “bubblerag” (at most 15 chunks") for c in captions)
    # the answer's own note gives the same two numbers (an audit read "the top 3 passages" beside "read 5")
    assert any("sentence of the top 3 of the 5 passages handed to the answer step" in c for c in captions), captions
    # passages unrelated to the question hold mass too, and the chart says why (an audit's lecturer asked)
    assert any(c.startswith("Every passage node starts with some of the reset") for c in captions)
    assert any(m.value.startswith("Gold answer: **Hugo Weaving**") for m in at.markdown)


def test_the_knobs_change_the_run(home: Path) -> None:
    at = _ok(run_page(PAGE))
    assert [s.label for s in at.slider] == ["linking top-k (facts and phrase seeds)", "passage node weight", "damping"]
    at.slider(key=S.widget_key(S.HIPPORAG2_LINKING)).set_value(2)
    _ok(at.run())
    assert len(at.dataframe[0].value) == 2 and len(at.dataframe[1].value) <= 2
    at.checkbox(key=S.widget_key(S.HIPPORAG2_MEMORY)).uncheck()
    _ok(at.run())
    assert any("w/o filter" in w.value for w in at.warning)


def test_another_question_of_the_workspace(home: Path) -> None:
    """Picking the demo's Lothair question reruns every panel for it (its gold passage is ranked)."""
    at = _ok(run_page(PAGE))
    at.selectbox(key=S.widget_key(S.HIPPORAG2_QUESTION)).set_value("When did Lothair II's mother die?")
    _ok(at.run())
    ranked = at.dataframe[2].value
    assert "Ermengarde of Tours" in set(ranked["passage"])


def test_compare_steps_through_into_the_page(home: Path) -> None:
    at = _ok(run_page("pages/compare.py"))
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["hipporag2"])
    _ok(at.run())
    step = next(b for b in at.button if b.label == f"Step through → {METHODS['hipporag2'].title}")
    _ok(step.click().run())
    assert at.title[0].value == "HippoRAG 2"
    assert at.session_state[S.HIPPORAG2_QUESTION] == at.session_state[S.COMPARE_QUESTION]


def test_the_page_is_in_the_navigation(home: Path) -> None:
    at = _ok(run_page())
    _ok(switch(at, PAGE))
    assert at.title[0].value == "HippoRAG 2"
