"""Triage tables (one row per question × method) and their CSV / JSON downloads."""

from __future__ import annotations

import csv
import io
import json

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.eval.diagnose import diagnose
from core.eval.result_metrics import retrieval_metrics
from core.eval.runner import run_benchmark
from core.eval.triage import (
    RETRIEVED,
    RETRIEVED_K,
    TRIAGE_COLUMNS,
    benchmark_rows,
    csv_cell,
    failures,
    result_row,
    to_csv,
    to_json,
)
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends, Diagnosis, Gold
from core.methods.run import run_method


def _record(**over):
    diag = Diagnosis("bubblerag", "answer_wrong", "Every gold passage is in the top 5, but the answer is wrong.",
                     {"answer": {"judged": True, "em": 0.0, "f1": 0.6667, "text": "Weaving", "gold": ["Hugo Weaving"]}})
    rec = {"question_id": "matrix-villain", "method": "bubblerag", "question": "Who played the villain?",
           "gold": ["c1", "c2"], "answers": ["Hugo Weaving"], "ranked": ["c9", "c1", "c5", "c1"],
           "metrics": {"R@2": 0.5, "R@5": 0.5, "R@10": 0.5}, "answer": "Weaving", "seconds": 0.1234567,
           "diagnosis": diag.to_dict(), "error": None}
    rec.update(over)
    return rec


def _csv_rows(data: bytes) -> list[list[str]]:
    assert data.startswith(b"\xef\xbb\xbf")  # UTF-8 with a BOM: spreadsheets read it as UTF-8
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def test_benchmark_row_from_a_record():
    titles = {"c1": "The Matrix", "c2": "Agent Smith", "c9": "Speed", "c5": "John Wick"}
    (row,) = benchmark_rows([_record()], title_of=titles.get)
    assert list(row)[:len(TRIAGE_COLUMNS)] == list(TRIAGE_COLUMNS)
    assert row["verdict"] == "retrieved, answer partly right (F1 0.67)" and row["verdict key"] == "answer_partial"
    assert (row["EM"], row["F1"], row["answer match"]) == (0.0, 0.67, "partial match (part of the gold answer)")
    assert row["gold ranks"] == [2, None]  # the first position of c1; c2 never retrieved
    assert row["gold passages"] == ["The Matrix", "Agent Smith"]
    assert row[RETRIEVED] == ["Speed", "The Matrix", "John Wick", "The Matrix"]
    assert (row["answer"], row["gold answer"], row["aliases"]) == ("Weaving", "Hugo Weaving", [])
    assert (row["R@5"], row["seconds"], row["id"]) == (50.0, 0.123, "matrix-villain")


def test_an_answer_no_llm_wrote_has_blank_em_f1_in_the_triage():
    """``results.jsonl`` and the pages give an extractive answer no EM / F1; ``triage.csv`` wrote 0.0 for both (an
    audit), zeros a spreadsheet would average in. The kind of match stays."""
    (row,) = benchmark_rows([_record(answer="The villain was played by Hugo Weaving.", answer_judged=False,
                                     em=None, f1=None)])
    assert (row["EM"], row["F1"]) == (None, None) and row["answer match"] == "holds the gold answer"
    assert [r for r in _csv_rows(to_csv([row]))][1][TRIAGE_COLUMNS.index("EM")] == ""


def test_record_titles_win_and_unknown_ids_show_as_ids():
    rec = _record(gold_titles=["Matrix (film)", "Smith"], ranked_titles=["A", "B", "C", "D"])
    (row,) = benchmark_rows([rec], title_of=lambda c: "never asked")
    assert row["gold passages"] == ["Matrix (film)", "Smith"] and row[RETRIEVED] == ["A", "B", "C", "D"]
    (row,) = benchmark_rows([_record()], title_of=lambda c: None)
    assert row["gold passages"] == ["c1", "c2"]


def test_a_gold_document_of_several_passages_is_named_as_the_document():
    """An audit read "gold passages: Golden Strings Prize (1 of 2)" as "only the first passage is gold": a document
    the record lists under ``gold_documents`` is named with all its passages; its rank stays the counted one's."""
    rec = _record(gold_titles=["The Matrix (1 of 3)", "Agent Smith"],
                  gold_documents=[{"title": "The Matrix", "passages": ["c1", "c7", "c8"], "counted_as": "c1"}])
    (row,) = benchmark_rows([rec])
    assert row["gold passages"] == ["The Matrix (any of its 3 passages)", "Agent Smith"]
    assert row["gold ranks"] == [2, None]


def test_error_record_and_failures_filter():
    ok = _record(question_id="q2", answer="Hugo Weaving", diagnosis={"stage": "ok", "summary": "fine", "evidence": {}})
    err = _record(question_id="q3", diagnosis=None, error="QueryError: empty", answer="")
    nog = _record(question_id="q4", diagnosis={"stage": "no_gold", "summary": "none", "evidence": {}})
    rows = benchmark_rows([_record(), ok, err, nog])
    assert [r["verdict key"] for r in rows] == ["answer_partial", "ok", "error", "no_gold"]
    assert rows[2]["why"] == "QueryError: empty" and rows[2]["verdict"] == "method failed"
    assert [r["id"] for r in failures(rows)] == ["matrix-villain", "q3"]


@pytest.mark.parametrize(("text", "cell"), [
    ("=1+2", "'=1+2"), ("+1", "'+1"), ("-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\t=1"), ("\r=1", "'\r=1"), ("Hugo Weaving", "Hugo Weaving"), ("a=b", "a=b"), ("", ""),
])
def test_csv_cell_defuses_formulas(text, cell):
    assert csv_cell(text) == cell


def test_csv_cell_keeps_numbers_and_joins_lists():
    assert csv_cell(-3) == -3 and csv_cell(0.5) == 0.5 and csv_cell(None) == "" and csv_cell(float("nan")) == ""
    assert csv_cell([1, None, 7]) == "1 | not retrieved | 7"
    assert csv_cell(["=evil", "ok"]) == "'=evil | ok"  # the joined cell starts with the formula: defused


def test_to_csv_round_trip_is_utf8_and_safe():
    rows = benchmark_rows([_record(question="Qui a joué «l'agent Smith» ? =HYPERLINK(\"x\")",
                                   answer="=HYPERLINK(\"http://evil\")", answers=["Hugo Weaving", "Hugó"])])
    table = _csv_rows(to_csv(rows))
    assert table[0] == list(TRIAGE_COLUMNS)
    row = dict(zip(table[0], table[1]))
    assert row["question"] == "Qui a joué «l'agent Smith» ? =HYPERLINK(\"x\")"  # not at the start: left alone
    assert row["answer"] == "'=HYPERLINK(\"http://evil\")"
    assert row["aliases"] == "Hugó" and row["gold ranks"] == "2 | not retrieved"
    assert all(not c.startswith(("=", "+", "-", "@")) for c in table[1])
    assert _csv_rows(to_csv([])) == [list(TRIAGE_COLUMNS)]  # an empty table still has its header


def test_to_json_keeps_lists_and_text():
    rows = benchmark_rows([_record(answer="=1+1", seconds=float("nan"))])
    doc = json.loads(to_json(rows, run="r1").decode("utf-8"))
    assert doc["run"] == "r1" and doc["columns"] == list(TRIAGE_COLUMNS)
    assert doc["rows"][0]["answer"] == "=1+1" and doc["rows"][0]["gold ranks"] == [2, None]
    assert doc["rows"][0]["seconds"] is None  # NaN is no JSON number


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    emb = HashingEmbedder(dim=128)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path_factory.mktemp("ws"))
    return ws, Backends(emb, NoLLM(), BiEncoderReranker(emb))


def test_benchmark_records_carry_titles_and_rows_match_the_ranking(demo, tmp_path):
    ws, b = demo
    rep = run_benchmark(ws, load_questions(ws), ["dense", "ppr"], b, out_dir=tmp_path / "out", limit=3)
    rows = benchmark_rows(rep.records)
    assert len(rows) == 6
    g = ws.graph
    for rec, row in zip(rep.records, rows):
        assert rec["gold_titles"] == [g.chunk(c).title for c in rec["gold"]]
        assert row[RETRIEVED] == [g.chunk(c).title for c in rec["ranked"][:RETRIEVED_K]]
        for cid, rank in zip(rec["gold"], row["gold ranks"]):
            assert rank is None or (rec["ranked"][rank - 1] == cid and cid not in rec["ranked"][:rank - 1])
            assert rank is not None or cid not in rec["ranked"]
        assert row["verdict key"] in {"ok", "ranked_out", "not_in_graph", "answer_wrong", "answer_partial", "no_anchor"}
        assert row["gold answer"] == rec["answers"][0]
    summary_counts = {m: sum(s["diagnosis"].values()) for m, s in rep.summary["methods"].items()}
    assert summary_counts == {"dense": 3, "ppr": 3}


def test_result_row_of_a_live_run(demo):
    ws, b = demo
    q = load_questions(ws)[0]
    gold = Gold.from_question(q)
    res = run_method("dense", q.question, ws, b)
    diag = diagnose(res, ws, gold)
    row = result_row(res, gold, diag, question=q.question, title_of=lambda c: ws.graph.chunk(c).title,
                     metrics=retrieval_metrics([c.chunk_id for c in res.ranked_chunks], gold.chunk_ids))
    assert row["method"] == "dense" and row["id"] == q.id and row["gold answer"] == q.answer
    assert row[RETRIEVED] == [ws.graph.chunk(c.chunk_id).title for c in res.ranked_chunks[:RETRIEVED_K]]
    assert len(row["scores"]) == len(row[RETRIEVED])
    assert row["verdict key"] in {"ok", "ranked_out", "not_in_graph", "answer_wrong", "answer_partial"}
    typed = result_row(res, Gold("custom", ()), None, question="typed")
    assert typed["verdict key"] == "no_gold" and typed["answer match"] == "" and typed["EM"] is None
