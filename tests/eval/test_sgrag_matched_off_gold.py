"""SG-RAG's diagnosis when exact subgraphs matched but brought no lost gold passage says so in its label, its summary
and the failure chart alike: an audit read "anchors not connected" and "sgrag's stage: no exact subgraph" above "30
exact subgraph(s) matched, but none passes through the gold passage tea06" — a chunk id, where every other verdict
names a title, and the other lost gold passage (“Bellcastle Holdings”) unnamed."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.eval.diagnose import diagnose
from core.eval.report import summarize
from core.eval.report_charts import failure_figure
from core.eval.triage import benchmark_rows
from core.eval.verdicts import diagnosis_verdict, record_verdict, verdict_label
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends, Gold
from core.methods.sgrag import run

QG = {"nodes": [{"id": "q0", "label": "UNK", "unknown": True}], "edges": [["q1", "q0"]], "by": "heuristic"}


def _record(stage: str = "not_connected", **evidence: object) -> dict:
    """A ``results.jsonl`` record as audit 29's run wrote SG-RAG's q04 (before its summary named titles)."""
    ev = {"mappings": [{"query_label": "Marrowind Tea Company", "node": "Marrowind Tea Company", "similarity": 0.99,
                        "doubtful": False}], "fallback": False, "subgraphs": 30, "query_graph": QG, "gold": "tea06",
          **evidence}
    return {"question_id": "q04", "method": "sgrag", "question": "In what year was the chairman … born?",
            "gold": ["tea04", "tea05", "tea06"], "answers": ["1880"],
            "gold_titles": ["Edmund Fenwhistle", "Bellcastle Holdings", "Perpetua Vane"],
            "ranked": ["tea04", "tea00"], "ranked_titles": ["Edmund Fenwhistle", "Marrowind Tea Company"],
            "metrics": {"R@5": 1 / 3}, "answer": "He took charge in 1899.", "answer_judged": False, "seconds": 0.1,
            "diagnosis": {"method": "sgrag", "stage": stage, "evidence": ev,
                          "summary": "30 exact subgraph(s) matched, but none passes through the gold passage tea06.",
                          "gold_ranks": {"tea04": 1, "tea05": None, "tea06": None}}}


def test_an_older_record_reads_matched_off_the_gold_naming_every_lost_passage_by_title():
    rec = _record()
    v = record_verdict(rec)
    assert v.key == "not_connected"  # the bucket is unchanged: counts and charts keep it
    assert v.label == "matched, not through the gold passages" and v.label != verdict_label("not_connected")
    why = benchmark_rows([rec])[0]["why"]
    assert "tea06" not in why and "“Bellcastle Holdings” and “Perpetua Vane”" in why
    assert why.startswith("30 exact subgraphs matched the query graph, but none brought the gold passages")


def test_the_fallback_and_a_table5_baseline_keep_their_own_words():
    fallback = _record(fallback=True, subgraphs=0, fallback_reason="no exact subgraph matched")
    fallback["diagnosis"]["summary"] = "No subgraph of the graph matched the query graph exactly; the 1-hop fallback…"
    assert record_verdict(fallback).label == "anchors not connected"
    assert benchmark_rows([fallback])[0]["why"] == fallback["diagnosis"]["summary"]
    baseline = _record(baseline="Entity-based Retrieval")
    assert record_verdict(baseline).label == "anchors not connected"


def test_the_failure_chart_and_the_report_name_both_cases_of_the_bucket():
    rec = _record()
    summary = summarize([rec], settings={})
    assert summary["methods"]["sgrag"]["diagnosis"] == {"not_connected": 1}
    names = {t.name for t in failure_figure(summary).data}
    assert names == {"anchors not connected or matched off the gold"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    h = HashingEmbedder()
    return ensure_sample_workspace("demo", h, root=Path(tmp_path_factory.mktemp("ws_demo"))), Backends(h, NoLLM())


def test_a_live_diagnosis_names_each_lost_passage_by_title_and_what_the_matches_reached(demo):
    ws, b = demo
    r = run("Which film starred Keanu Reeves?", ws, backends=b)
    assert not r.fallback and r.assembly.found > 0
    d = diagnose(r, ws, Gold("qx", ("hugo-weaving", "backpropagation"), ()), cut=5)
    assert d.stage == "not_connected" and d.gold_ranks == {"hugo-weaving": None, "backpropagation": None}
    v = diagnosis_verdict(d)
    assert v.label == "matched, not through the gold passages"  # Compare shows no "no exact subgraph" stage line
    assert "none passes through the gold passage “Backpropagation”" in d.summary
    assert "“Hugo Weaving” was not retrieved either: a match reaches its entity Hugo Weaving" in d.summary
    assert "backpropagation" not in d.summary and "hugo-weaving" not in d.summary  # titles, not chunk ids
    assert d.evidence["gold_lost"] == ["hugo-weaving", "backpropagation"]
