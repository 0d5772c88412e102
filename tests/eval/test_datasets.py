"""Gold evidence matched to workspace chunks (MuSiQue paragraphs, supporting_facts titles)."""

from __future__ import annotations

import pytest

from core.errors import InputFormatError
from core.eval.datasets import load_questions, parse_questions
from core.index.workspace import ensure_sample_workspace


def test_musique_gold_passages_all_match(tmp_path):
    ws = ensure_sample_workspace("musique", None, root=tmp_path)  # graph only, no index
    qs = load_questions(ws)
    assert len(qs) == 100 and all(q.gold_chunks and not q.unmatched for q in qs)
    assert sum(len(q.gold_chunks) for q in qs) == 237
    q0 = qs[0]
    assert q0.id == "2hop__150763_14904" and all(ws.graph.chunk(c) for c in q0.gold_chunks)


def test_demo_supporting_facts_match_by_title(tmp_path):
    ws = ensure_sample_workspace("demo", None, root=tmp_path)
    qs = {q.id: q for q in load_questions(ws)}
    titles = {ws.graph.chunk(c).title for c in qs["matrix-villain"].gold_chunks}
    assert titles == {"The Matrix", "Agent Smith"} and qs["matrix-villain"].answer == "Hugo Weaving"


def test_unmatched_gold_is_kept_apart(tmp_path):
    g = ensure_sample_workspace("demo", None, root=tmp_path).graph
    qs = parse_questions([{"question": "q?", "supporting_facts": [["The Matrix", 0], ["Atlantis", 1]]}], g)
    assert qs[0].unmatched == ("Atlantis",) and len(qs[0].gold_chunks) == 1


def test_bad_question_files(tmp_path):
    g = ensure_sample_workspace("demo", None, root=tmp_path).graph
    with pytest.raises(InputFormatError, match=r"^q\.json: the top level is not a list\. Expected a JSON list"):
        parse_questions({"question": "x"}, g, source="q.json")
    with pytest.raises(InputFormatError, match=r'^q\.json, record 1: a record has neither "paragraphs" nor '
                                               r'"supporting_facts"\. Expected HippoRAG-format questions'):
        parse_questions([{"question": "x"}], g, source="q.json")
