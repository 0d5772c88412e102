"""The Compare-methods page (issue 6): every method side by side on one question (AppTest)."""

from __future__ import annotations

import pytest

from components import state as S
from core.methods.registry import method_names
from tests.app.helpers import run_page

PAGE = "pages/compare.py"


def test_compare_page_runs_every_method_with_diagnosis(home):
    at = run_page(PAGE)
    assert at.title[0].value == "Compare methods"
    assert at.selectbox(key="egx.compare.question.w.compare").value == at.session_state[S.COMPARE_QUESTION]
    # one summary table + one ranked table per method (+ the stage tables in expanders)
    assert len(at.dataframe) >= 1 + len(method_names())
    summary = at.dataframe[0].value
    assert list(summary["method"]) == method_names()
    assert {"R@5", "verdict", "seconds", "LLM tokens"} <= set(summary.columns)
    # a verdict box per method (success / error / info)
    boxes = len(at.success) + len(at.error) + len(at.info)
    assert boxes >= len(method_names())
    assert len(at.get("iframe")) == 1  # one overlaid evidence drawing
    doc = at.get("iframe")[0].proto.srcdoc
    assert "reached by:" in doc and "several methods" in doc
    # step-through buttons for methods that have a page
    labels = [b.label for b in at.button]
    assert any("BubbleRAG step by step" in x for x in labels) and any("GRanker" in x for x in labels)


def test_compare_page_custom_question_and_method_subset(home):
    at = run_page(PAGE)
    at.selectbox(key="egx.compare.question.w.compare").set_value("(type your own question)").run()
    at.text_input(key="egx.compare.custom.w.compare").set_value("Who directed The Matrix?").run()
    at.multiselect(key="egx.compare.methods.w.compare").set_value(["dense", "ppr"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert list(at.dataframe[0].value["method"]) == ["dense", "ppr"]
    assert "verdict" not in at.dataframe[0].value.columns  # no gold for a typed question
    assert any("no gold evidence" in i.value for i in at.info)


def test_open_in_step_page_hands_the_question_over(home):
    at = run_page(PAGE)
    q = at.session_state[S.COMPARE_QUESTION]
    btn = next(b for b in at.button if "BubbleRAG step by step" in b.label)
    btn.click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state[S.BUBBLE_QUESTION] == q and at.session_state[S.HANDOFF_QUESTION] == q


def test_open_granker_page_with_the_same_question(home):
    at = run_page(PAGE)
    q = at.session_state[S.COMPARE_QUESTION]
    next(b for b in at.button if "GRanker" in b.label).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "GRanker vs plain reranking"
    assert at.selectbox(key="egx.granker.question").value == q


@pytest.mark.slow
@pytest.mark.parametrize(("label", "key"), [("SG-RAG subgraph", "egx.sgrag.question"),
                                         ("ReG evidence chains", "egx.reg.custom_question")])
def test_open_sgrag_and_reg_pages_with_the_same_question(home, label, key):
    at = run_page(PAGE)
    q = at.session_state[S.COMPARE_QUESTION]
    next(b for b in at.button if label in b.label).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value != "Compare methods" and at.session_state[key] == q
