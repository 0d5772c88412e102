"""core.eval.recorded_answers: a reproduction's answer cells that the paper's budget left without a recorded reply,
filled from the recorded runs of the same method on the same questions (marked, footnoted)."""

from __future__ import annotations

import copy

from core.eval.recorded_answers import NO_RECORDED_PROMPT, fill_recorded_answers, recorded_cell, sample_golds
from core.eval.reproduce_record import stored_reproduction


def _f1(record, row):
    t = next(t for t in record["tables"] if t["id"] == "BubbleRAG Table 2")
    return next(r for r in t["records"] if r["row"] == row and r["metric_id"] == "F1")


def test_naive_rag_and_hipporag2_get_the_recorded_runs_f1_with_bubblerags_n():
    rec = stored_reproduction("bubblerag")["modes"]["recorded"]
    before = copy.deepcopy(rec)
    filled = fill_recorded_answers(rec)
    assert rec == before  # the record itself is not changed
    assert _f1(rec, "Naive RAG")["blank"].startswith(NO_RECORDED_PROMPT)
    for row in ("Naive RAG", "HippoRAG2"):
        cell = _f1(filled, row)
        assert cell["n"] == _f1(filled, "BubbleRAG")["n"] == 20
        assert cell["low"] <= cell["ours"] <= cell["high"] and (cell["basis"], cell["basis_budget"]) == ("recorded at 5 passages", "5 passages")
        assert "5 passages handed to the answer" in cell["basis_why"]
    assert round(_f1(filled, "Naive RAG")["ours"], 1) == 26.5
    assert _f1(filled, "BubbleRAG") == _f1(rec, "BubbleRAG")  # a figure of the run stays as it was
    none = stored_reproduction("bubblerag")["modes"]["none"]
    assert fill_recorded_answers(none) is none  # LLM none: nothing recorded to fill from


def test_a_cell_needs_two_recorded_answers_and_an_answer_metric():
    runs = {"q1": {"answer": "Paris", "gold_answer": "Paris"}, "q2": {"answer": "Rome", "gold_answer": "Oslo"}}
    got = recorded_cell("dense", ["q1", "q2", "q3"], {}, runs, "F1")
    assert got is not None and (got["ours"], got["n"]) == (50.0, 2) and "2 of these 3 questions" in got["why"]
    assert recorded_cell("dense", ["q1"], {}, runs, "F1") is None
    assert recorded_cell("dense", ["q1", "q2"], {}, runs, "ACC_L") is None
    assert recorded_cell("dense", ["q1", "q2"], {"q2": ("Oslo", "Rome")}, runs, "EM")["ours"] == 100.0


def test_sample_golds_read_the_aliases_and_nothing_for_an_unknown_workspace():
    golds = sample_golds("musique")
    assert len(golds) == 100 and all(golds.values())
    assert sample_golds("no-such-sample") == {}
