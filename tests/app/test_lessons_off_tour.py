"""Off the guided demo, Ask and Compare show the lesson on their runs folded ("What these runs teach"), when the
question has a gold answer in the workspace, without starting a none-mode run for it; Ask's source passages mark
the gold ones (an audit: a lecturer opening Compare directly got no lesson, and the lesson spoke of gold ranks the
table did not show)."""

from __future__ import annotations

from pathlib import Path

import pytest

from components import state as S
from components import tour
from tests.app.helpers import plain, run_page

pytestmark = pytest.mark.model  # the recorded runs replay with the models they were recorded with

DEMO = {S.WORKSPACE: tour.WORKSPACE, S.LLM: tour.LLM, S.EMBEDDER: "bge-small", S.RERANKER: "ms-marco-minilm"}


def _lesson(at):  # type: ignore[no-untyped-def]
    (box,) = [e for e in at.expander if e.label == "What these runs teach"]
    assert not box.proto.expanded  # folded: the page's own content comes first
    return "\n".join(plain(str(m.value)) for m in box.markdown)


def test_ask_off_the_tour_folds_the_lesson_and_marks_the_gold_sources(home: Path) -> None:
    at = run_page("pages/bubble_ask.py", **DEMO, **{S.BUBBLE_QUESTION: tour.KEANU})
    assert S.TOUR not in at.session_state
    text = _lesson(at)
    assert "Where the evidence is: " in text and "The recorded 1.5B model answered" in text, text
    assert "Without an LLM" not in text  # no none-mode run was started for it
    frames = [d.value for d in at.dataframe if "chunk id" in d.value.columns and "source" in d.value.columns]
    assert frames and "gold" in frames[0].columns, [list(d.value.columns) for d in at.dataframe]
    marked = frames[0][frames[0]["gold"] == "✓"]
    assert len(marked), "the Keanu question's gold passages are among BubbleRAG's sources"
    for _, row in marked.iterrows():  # each ✓ passage at the rank the lesson states for it
        assert f"“{row['passage']}” at rank {row['rank']} " in text, (row["passage"], row["rank"], text)


def test_compare_off_the_tour_folds_the_lesson_under_its_table(home: Path) -> None:
    at = run_page("pages/compare.py", **DEMO, **{S.COMPARE_QUESTION: tour.KEANU, S.COMPARE_METHODS: ["dense"]})
    text = _lesson(at)
    assert "Where the evidence is: " in text and "The recorded 1.5B model answered" in text, text
    assert not [c for c in at.main.get("markdown") if str(getattr(c, "value", "")).startswith("**What these runs teach**")]


def test_no_lesson_without_a_gold_answer(home: Path) -> None:
    at = run_page("pages/compare.py", **DEMO, **{S.COMPARE_QUESTION: S.CUSTOM_QUESTION,
                                                S.COMPARE_CUSTOM: "Who directed The Matrix?",
                                                S.COMPARE_METHODS: ["dense"]})
    assert not [e for e in at.expander if e.label == "What these runs teach"]


@pytest.mark.parametrize("page,key,expected", [
    ("pages/granker.py", S.GRANKER_QUESTION, "GRanker"),
    ("pages/subgraph.py", S.SGRAG_QUESTION, "the unknown “"),  # by what it stands for, no "UNK q3" (audit 57)
    ("pages/evidence_chains.py", S.REG_QUESTION, "chain"),
])
def test_the_other_papers_pages_fold_their_own_lesson_off_the_tour(home: Path, page: str, key: str,
                                                                    expected: str) -> None:
    # an audit moved GRanker's α off the tour and got no rank-move summary: the lesson was the tour's alone
    at = run_page(page, **DEMO, **{key: tour.KEANU})
    assert S.TOUR not in at.session_state
    text = _lesson(at)
    assert expected in text and "The recorded 1.5B model answered" in text, text
    assert "Where the evidence is: " not in text  # the page's own lines, not BubbleRAG's
