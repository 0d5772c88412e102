"""Node-level R@10 / nDCG@10 (FastInsight §4.3.1): a FastInsight run on KG nodes is scored node by node
against the gold nodes (every node extracted from a gold passage, §4.2.2), beside the passage-level
figures; a run that retrieved passages has no node-level figure (not a zero)."""

from __future__ import annotations

import json
import math

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.eval.datasets import load_questions
from core.eval.report import markdown_report, summarize
from core.eval.result_metrics import NODE_METRICS, node_metrics
from core.eval.runner import run_benchmark
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.fastinsight import FastInsightConfig
from core.methods.fastinsight import run as fastinsight

NODE_R, NODE_NDCG = NODE_METRICS


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    emb = HashingEmbedder(dim=128)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path_factory.mktemp("ws"))
    return ws, Backends(emb, NoLLM(), BiEncoderReranker(emb))


def brute_force(ws, node_ranking, gold_chunks, k=10):
    """Capped recall and binary nDCG of the top ``k`` node ids, straight from the KG's provenance."""
    g = ws.graph
    gold_ids = {g.node_ids[v] for v in range(g.n_nodes) if set(g.node_chunks[v]) & set(gold_chunks)}
    top = list(node_ranking)[:k]
    hits = [1.0 if n in gold_ids else 0.0 for n in top]
    recall = sum(hits) / min(k, len(gold_ids))
    dcg = sum(h / math.log2(i + 2) for i, h in enumerate(hits))
    idcg = sum(1 / math.log2(i + 2) for i in range(min(k, len(gold_ids))))
    return recall, dcg / idcg


def test_node_metrics_equal_a_brute_force_count_on_every_demo_question(demo):
    ws, b = demo
    qs = [q for q in load_questions(ws) if q.gold_chunks]
    assert len(qs) >= 3
    nonzero = 0
    for q in qs:
        r = fastinsight(q.question, ws, backends=b)
        assert r.searched == "kg_nodes" and r.node_ranking
        got = node_metrics(ws, q.gold_chunks, result=r)
        want = brute_force(ws, r.node_ranking, q.gold_chunks)
        assert got[NODE_R] == pytest.approx(want[0]) and got[NODE_NDCG] == pytest.approx(want[1]), q.id
        assert 0.0 <= got[NODE_R] <= 1.0 and 0.0 <= got[NODE_NDCG] <= 1.0
        nonzero += got[NODE_R] > 0
    assert nonzero  # the oracle is not only checked on zeros


def test_a_run_on_passages_or_without_gold_has_no_node_figure(demo):
    ws, b = demo
    q = next(q for q in load_questions(ws) if q.gold_chunks)
    on_passages = fastinsight(q.question, ws, config=FastInsightConfig(graph="passages"), backends=b)
    assert on_passages.searched == "passages" and node_metrics(ws, q.gold_chunks, result=on_passages) == {}
    on_nodes = fastinsight(q.question, ws, backends=b)
    assert node_metrics(ws, [], result=on_nodes) == {}
    assert node_metrics(ws, q.gold_chunks, result=object()) == {}  # a method that has no node ranking


def test_a_gold_passage_without_nodes_gives_no_node_figure(demo):
    ws, b = demo
    q = next(q for q in load_questions(ws) if q.gold_chunks)
    r = fastinsight(q.question, ws, backends=b)
    assert node_metrics(ws, ["no-such-passage"], result=r) == {}  # no gold node: undefined, not 0


def test_summary_report_carry_node_figures_only_for_the_node_run():
    recs = [{"question_id": "q1", "method": m, "metrics": met, "seconds": 0.1, "answer_judged": False}
            for m, met in (("fastinsight", {"R@10": 0.5, "nDCG@10": 0.4, NODE_R: 0.3, NODE_NDCG: 0.2}),
                           ("dense", {"R@10": 0.5, "nDCG@10": 0.4}))]
    s = summarize(recs)
    assert s["methods"]["fastinsight"]["metrics"][NODE_R] == 0.3 and NODE_R not in s["methods"]["dense"]["metrics"]
    md = markdown_report(s)
    header = next(line for line in md.splitlines() if line.startswith("| method | n |"))
    assert "| nDCG@10 | node R@10 | node nDCG@10 |" in header
    assert "| fastinsight | 1 | 50.0 | 40.0 | 30.0 | 20.0 |" in md
    assert "| dense | 1 | 50.0 | 40.0 | – | – |" in md  # nothing, not zeros
    assert "node R@10 / node nDCG@10 (FastInsight §4.3.1" in md
    assert "node R@10" not in markdown_report(summarize(recs[1:]))


def test_bench_on_the_demo_kg_reports_node_figures_for_fastinsight_only(demo, tmp_path):
    ws, b = demo
    rep = run_benchmark(ws, load_questions(ws), ["dense", "fastinsight"], b, out_dir=tmp_path / "out", limit=3)
    recs = {(r["method"], r["question_id"]): r for r in rep.records}
    fi = [r for (m, _), r in recs.items() if m == "fastinsight"]
    assert fi and all({NODE_R, NODE_NDCG} <= set(r["metrics"]) for r in fi)
    assert all(NODE_R not in r["metrics"] for (m, _), r in recs.items() if m == "dense")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    got = summary["methods"]["fastinsight"]["metrics"]
    assert got[NODE_R] == pytest.approx(sum(r["metrics"][NODE_R] for r in fi) / len(fi))
    assert NODE_R not in summary["methods"]["dense"]["metrics"]
    assert "node R@10" in (tmp_path / "out" / "report.md").read_text()
