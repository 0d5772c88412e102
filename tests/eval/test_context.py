"""What each method handed its answer, in a benchmark (core/eval/context.py): the record's ``context``, ctx recall /
ctx all gold, their summary, the report's section, the triage columns, and the budget a run is made under."""

from __future__ import annotations

import json

import pytest

from core.cli import main
from core.eval.context import CTX_ALL_GOLD, CTX_RECALL, context_lines, context_metrics, summarize_context
from core.eval.report import markdown_report, summarize
from core.eval.triage import CONTEXT_COLUMNS, benchmark_rows


def _record(method: str, qid: str, chunk_ids: list[str], tokens: int, gold: list[str], budget: str = "15") -> dict:
    """A hand-made results.jsonl record with a context (what evaluate_result writes)."""
    ctx = {"chunks": len(chunk_ids), "tokens": tokens, "chunk_ids": chunk_ids, "budget": budget}
    return {"question_id": qid, "method": method, "question": f"q {qid}", "gold": gold, "answers": [], "ranked": chunk_ids,
            "scores": [], "metrics": context_metrics(chunk_ids, gold), "answer": "", "answer_judged": False,
            "em": None, "f1": None, "seconds": 0.1, "stages": {}, "tokens": {"total": 0}, "fallbacks": [],
            "diagnosis": None, "error": None, "context": ctx}


def test_context_metrics_on_a_hand_made_context():
    assert context_metrics(["a", "b", "x"], ["a", "b"]) == {CTX_RECALL: 1.0, CTX_ALL_GOLD: 1.0}
    assert context_metrics(["a", "x"], ["a", "b", "c", "d"]) == {CTX_RECALL: 0.25, CTX_ALL_GOLD: 0.0}
    assert context_metrics([], ["a"]) == {CTX_RECALL: 0.0, CTX_ALL_GOLD: 0.0}
    assert context_metrics(["a"], []) == {}  # no gold: no figure rather than a zero


def test_the_summary_and_report_state_the_budget_and_what_each_method_handed():
    recs = [_record("dense", "1", ["a", "b"], 200, ["a"]), _record("dense", "2", ["c", "d", "e", "f"], 500, ["x"]),
            _record("dense", "3", ["g", "h", "i"], 300, ["g", "h"]), _record("sgrag", "1", ["a"], 40, ["a", "z"])]
    s = summarize(recs, settings={"workspace": "w", "budget": "15", "budget_limits": {"chunks": 15, "tokens": None}})
    d = s["methods"]["dense"]
    assert d["context"] == {"n": 3, "budget": "15", "chunks": {"median": 3.0, "max": 4}, "tokens": {"median": 300.0,
                                                                                                   "max": 500}}
    assert d["metrics"][CTX_RECALL] == pytest.approx((1 + 0 + 1) / 3) and d["metrics"][CTX_ALL_GOLD] == pytest.approx(2 / 3)
    assert s["methods"]["sgrag"]["metrics"][CTX_RECALL] == 0.5
    text = markdown_report(s)
    assert "## What each method handed its answer" in text and "Answer budget: 15 — custom: ≤ 15 chunks" in text
    assert "| dense | 3 | 3 | 4 | 300 | 500 | 66.7 | 66.7 |" in text
    assert "| sgrag | 1 | 1 | 1 | 40 | 40 | 50.0 | 0.0 |" in text
    assert summarize_context([{"context": None}]) is None
    lines = context_lines({"settings": {}, "methods": {"x": {"metrics": {}}}})
    assert any("Answer budget: own — each method answered from its own paper default" in x for x in lines)


def test_triage_rows_carry_the_budget_and_the_context():
    rows = benchmark_rows([_record("dense", "1", ["a", "b"], 200, ["a", "q"], budget="bubblerag")])
    assert [c for c in CONTEXT_COLUMNS if c in rows[0]] == list(CONTEXT_COLUMNS)
    assert (rows[0]["budget"], rows[0]["context chunks"], rows[0]["context tokens"], rows[0][CTX_RECALL]) == \
        ("bubblerag", 2, 200, 50.0)
    old = _record("dense", "1", ["a"], 10, ["a"])
    del old["context"]
    assert "budget" not in benchmark_rows([old])[0]  # a record made before contexts: no such columns


_BENCH = ["bench", "--workspace", "demo", "--embedder", "hashing", "--limit", "2"]


def test_bench_under_a_budget_records_it_and_refuses_to_resume_under_another(tmp_path, capsys):
    out = tmp_path / "b"
    assert main([*_BENCH, "--methods", "dense,sgrag,reg", "--budget", "bubblerag", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Answer budget: bubblerag — BubbleRAG §4.1: ≤ 15 chunks (≤ 15 chunks)." in text
    settings = json.loads((out / "run.json").read_text())["settings"]
    assert settings["budget"] == "bubblerag" and settings["cut"] == 15  # the diagnosis cut follows the budget
    recs = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(recs) == 6 and all(r["context"]["budget"] == "bubblerag" and r["context"]["chunks"] <= 15 for r in recs)
    assert all(CTX_RECALL in r["metrics"] and r["context"]["chunks"] == len(r["context"]["chunk_ids"]) for r in recs)
    # a run is never resumed under another budget, nor under none (own)
    for other in (["--budget", "10"], []):
        assert main([*_BENCH, "--methods", "dense,sgrag,reg", *other, "--cut", "15", "--out", str(out)]) == 2
        assert "holds a benchmark run with other settings (budget" in capsys.readouterr().err
    assert main([*_BENCH, "--methods", "dense,sgrag,reg", "--budget", "bubblerag", "--out", str(out)]) == 0
    assert "0 runs now, 6 already done" in capsys.readouterr().out


def test_bench_refuses_a_bad_budget_and_a_method_without_the_hook_before_running(tmp_path, capsys):
    assert main([*_BENCH, "--methods", "dense", "--budget", "lots", "--out", str(tmp_path / "x")]) == 2
    assert "Budget 'lots' is not a budget; use a preset" in capsys.readouterr().err
    from core.methods.registry import registered
    from tests.fakes import TOY_METHOD

    with registered(TOY_METHOD):
        assert main([*_BENCH, "--methods", "dense,toy", "--budget", "sgrag", "--out", str(tmp_path / "y")]) == 2
        assert "Method 'toy' declares no budget hook" in capsys.readouterr().err
        assert main([*_BENCH, "--methods", "dense,toy", "--out", str(tmp_path / "z")]) == 0  # under own it runs
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_ask_under_a_budget_shows_what_the_answer_was_handed(capsys):
    q = "When did Lothair II's mother die?"
    assert main(["ask", q, "--workspace", "demo", "--embedder", "hashing", "--method", "dense", "--json"]) == 0
    own = json.loads(capsys.readouterr().out)["context"]
    assert own["budget"] == "own" and own["chunks"] == 5  # alone: the paper default
    assert main(["ask", q, "--workspace", "demo", "--embedder", "hashing", "--method", "dense", "--budget", "2,150tok",
                 "--json"]) == 0
    ctx = json.loads(capsys.readouterr().out)["context"]
    assert ctx["budget"] == "2,150tok" and ctx["chunks"] <= 2 and ctx["tokens"] <= 150
    assert ctx["chunk_ids"] == own["chunk_ids"][:ctx["chunks"]]
    assert main(["ask", q, "--workspace", "demo", "--embedder", "hashing", "--method", "dense", "--budget", "2"]) == 0
    assert "answer context — 2 chunk(s)" in capsys.readouterr().out


def test_ablate_runs_every_row_under_the_budget(tmp_path, capsys):
    out = tmp_path / "a"
    assert main(["ablate", "--method", "fastinsight", "--workspace", "demo", "--embedder", "hashing", "--limit", "2",
                 "--budget", "3", "--out", str(out)]) == 0
    rows = [p for p in out.iterdir() if (p / "run.json").exists()]
    assert len(rows) >= 2
    for row in rows:
        assert json.loads((row / "run.json").read_text())["settings"]["budget"] == "3"
        recs = [json.loads(x) for x in (row / "results.jsonl").read_text().splitlines()]
        assert recs and all(r["context"]["chunks"] <= 3 and r["context"]["budget"] == "3" for r in recs)


def test_the_report_says_fastinsights_tr_is_measured_on_its_own_graph():
    """An audit read FastInsight's TR 74 beside 94-100 for every other method (its R@10 100) as a loss: TR walks
    the graph each method searched, FastInsight's KG node graph; the report says so only when FastInsight has a TR."""
    from core.eval.summary_stats import tr_note

    with_tr = {"methods": {"dense": {"metrics": {"TR": 1.0}}, "fastinsight": {"metrics": {"TR": 0.74}}}}
    assert "fastinsight's on its own graph" in tr_note(with_tr)
    assert tr_note({"methods": {"dense": {"metrics": {"TR": 1.0}}}}) == ""
    assert tr_note({"methods": {"fastinsight": {"metrics": {"TR": None}}}}) == ""
    recs = [{**_record(m, "1", ["a"], 10, ["a"]), "metrics": {"R@5": 1.0, "TR": 1.0}} for m in ("dense", "fastinsight")]
    assert "measured on the graph each method searched" in markdown_report(summarize(recs, settings={"workspace": "w"}))


def test_a_method_handed_far_more_tokens_under_a_chunk_budget_is_named():
    """Audit 55: under "≤ 15 chunks" ReG's chains ran to a median of 1,893 tokens while the passage methods were
    handed about 1,350 (the max 4,893) — equal in chunks, not in tokens, and nothing said so."""
    from core.eval.context import UNEVEN_TOKENS, uneven_tokens_note

    tokens = {"dense": 1350, "rerank": 1340, "bubblerag": 1420, "sgrag": 300, "reg": 1893}
    passages = ["dense", "rerank"]
    note = uneven_tokens_note(tokens, passages, None)
    assert note.startswith("Equal in chunks, not in tokens: reg 1,893 tokens of evidence against the passage "
                           "methods' median of 1,345"), note
    assert "sgrag (≤ 1,200 tokens)" in note
    assert uneven_tokens_note(tokens, passages, 1200) == ""  # a token cap makes them equal in tokens already
    # fewer tokens (triples are short) or a few more (BubbleRAG's triples beside its passages) are no larger context
    assert uneven_tokens_note({"dense": 1350, "bubblerag": 1420, "sgrag": 300}, ["dense"], None) == ""
    assert "reg" in uneven_tokens_note({"dense": 1000, "reg": 1000 * UNEVEN_TOKENS}, ["dense"], None)
    assert uneven_tokens_note({"reg": 5000, "sgrag": 300}, [], None) == ""  # no passage method to compare with


def test_a_benchmark_run_records_each_method_s_evidence_and_its_report_names_a_larger_context():
    from core.eval.context import context_lines, summarize_context

    def run(evidence, tokens):  # type: ignore[no-untyped-def]
        return summarize_context([{"context": {"chunks": 15, "tokens": t, "budget": "bubblerag", "evidence": evidence}}
                                  for t in tokens])

    summary = {"settings": {"budget": "bubblerag"},
               "methods": {"dense": {"context": run("passages", [1300, 1400])},
                           "reg": {"context": run("chains", [1800, 4893])}}}
    assert summary["methods"]["reg"]["context"]["evidence"] == "chains"
    assert any(line.startswith("Equal in chunks, not in tokens: reg 3,346") for line in context_lines(summary))
    del summary["methods"]["dense"]["context"]["evidence"]  # a run recorded before the evidence was: nothing said
    assert not any(line.startswith("Equal in chunks") for line in context_lines(summary))
