"""Node-level R@10 / nDCG@10 (FastInsight §4.3.1, Table 3) for every method: any result with a ``node_ranking``
(KG node rows, best first) is scored node by node against the gold nodes the evaluation computes itself — every
node extracted from a gold passage (§4.2.2) —, beside the passage-level figures; a result without one has no
node-level figure (never a zero) and the record keeps why."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.eval.metrics import ndcg_at_k, recall_at_k
from core.eval.pair import evaluate_result
from core.eval.report import NODE_METRICS_NOTE, markdown_report, node_rows, summarize
from core.eval.result_metrics import (
    EMPTY_NODE_RANKING,
    NO_GOLD_NODE,
    NO_NODE_RANKING,
    NODE_METRICS,
    node_metrics,
    node_scores,
)
from core.eval.runner import run_benchmark
from core.graph.graph_builder import GraphBuilder
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends, Gold
from core.methods.baselines.common import NODE_LEVEL_OFF
from core.methods.fastinsight import FastInsightConfig
from core.methods.fastinsight import run as fastinsight
from core.methods.fastinsight.node_graph import node_graph
from core.methods.kg_nodes import gold_nodes
from core.methods.run import run_method

NODE_R, NODE_NDCG = NODE_METRICS
DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    emb = HashingEmbedder(dim=128)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path_factory.mktemp("ws"))
    return ws, Backends(emb, NoLLM(), BiEncoderReranker(emb))


@dataclass(frozen=True)
class Ranked:
    """A result of any method that hands over KG nodes (the contract: ``node_ranking``, optionally a note)."""

    node_ranking: tuple[int, ...]
    node_ranking_note: str = ""


def _toy():
    """Five entities from three passages: A(p1, p3) B(p1, p2) C(p2, p3) D(p3) E(p3)."""
    b = GraphBuilder(name="toy")
    p = {c: b.add_chunk(c.upper(), f"passage {c}", chunk_id=c) for c in ("p1", "p2", "p3")}
    b.add_triple("A", "r", "B", chunk_id=p["p1"])
    b.add_triple("B", "r", "C", chunk_id=p["p2"])
    b.add_triple("C", "r", "D", chunk_id=p["p3"])
    b.add_triple("E", "r", "A", chunk_id=p["p3"])
    g = b.build()
    return SimpleNamespace(graph=g), {n: i for i, n in enumerate(g.node_names)}


# ------------------------------------------------------------------------------------ the contract, by hand
def test_node_figures_of_any_result_equal_a_hand_computation_on_a_toy_kg():
    ws, v = _toy()
    # gold passage p2: its gold nodes are B and C (the nodes extracted from it); the ranking D, B, A, C, B
    # hits at ranks 2 and 4 (B's repeat counts once): recall 2 / min(10, 2), DCG 1/log2(3) + 1/log2(5) over
    # the ideal 1/log2(2) + 1/log2(3)
    got = node_scores(ws, ["p2"], result=Ranked((v["D"], v["B"], v["A"], v["C"], v["B"])))
    assert got.note == "" and got.notes() == {}
    assert got.metrics[NODE_R] == pytest.approx(1.0)
    assert got.metrics[NODE_NDCG] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3)))
    # gold p1 and p3: gold nodes A, B, C, D, E (all five); the ranking E, A finds 2 of min(10, 5)
    got = node_scores(ws, ["p1", "p3"], result=Ranked((v["E"], v["A"])))
    assert got.metrics[NODE_R] == pytest.approx(2 / 5)
    assert got.metrics[NODE_NDCG] == pytest.approx((1 + 1 / math.log2(3)) / sum(1 / math.log2(i + 2) for i in range(5)))
    assert node_metrics(ws, ["p2"], result=Ranked((v["A"],))) == {NODE_R: 0.0, NODE_NDCG: 0.0}  # a real zero


def test_a_blank_node_figure_says_why_and_is_never_zero():
    ws, v = _toy()
    none = node_scores(ws, ["p2"], result=object())  # a method without the contract
    assert none.metrics == {} and none.note == NO_NODE_RANKING
    assert none.notes() == {NODE_R: NO_NODE_RANKING, NODE_NDCG: NO_NODE_RANKING}
    own = node_scores(ws, ["p2"], result=Ranked((), "BubbleRAG exited early"))
    assert own.metrics == {} and own.note == "BubbleRAG exited early"
    assert node_scores(ws, ["p2"], result=Ranked(())).note == EMPTY_NODE_RANKING
    assert node_scores(ws, ["no-such-passage"], result=Ranked((v["A"],))).note == NO_GOLD_NODE
    assert node_scores(ws, [], result=Ranked((v["A"],))) == node_scores(ws, [], result=object())  # no gold: nothing
    assert node_scores(ws, [], result=object()).metrics == {} and node_scores(ws, [], result=object()).note == ""


# ------------------------------------------------------------------------------------ the gold-node rule
def test_the_gold_node_rule_is_fastinsights_and_the_provenance_index_agrees(demo, tmp_path):
    mq = ensure_sample_workspace("musique", None, root=tmp_path)  # the graph only: no index is needed
    for ws in (demo[0], mq):
        g = ws.graph
        ng = node_graph(g)
        prov = g.chunk_provenance()
        sets = [list(q.gold_chunks) for q in load_questions(ws)] + [[c.id] for c in g.chunks[:200]]
        assert sum(1 for s in sets if s) >= 5
        for gold in sets:
            got = gold_nodes(g, gold)
            assert np.array_equal(got, ng.gold_nodes(gold))  # FastInsight's own rule, on its node graph
            assert got.tolist() == sorted({v for c in gold for v in prov.get(c, ([], []))[0]})  # the store's index


# ------------------------------------------------------------------------------------ FastInsight unchanged
def _stored(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))["questions"]


@pytest.mark.parametrize("sample, stored", [("demo", "fastinsight_node_figures_demo_1f20ee3.json"),
                                            ("musique", "fastinsight_node_figures_musique_1f20ee3.json")])
def test_fastinsight_node_figures_are_the_ones_before_the_contract(sample, stored, tmp_path):
    """The figures FastInsight's own ``node_sets`` gave before the evaluation computed the gold nodes itself
    (stored at 1f20ee3 with the hashing embedder). Tolerance 1e-9: the figures are ratios of counts and logs,
    exact up to float rounding; the rankings behind them are the hashing embedder's (deterministic)."""
    emb = HashingEmbedder(dim=128)
    ws = ensure_sample_workspace(sample, emb, root=tmp_path)
    b = Backends(emb, NoLLM(), BiEncoderReranker(emb))
    want = _stored(stored)
    qs = {q.id: q for q in load_questions(ws)}
    nonzero = 0
    for qid, w in want.items():
        q = qs[qid]
        r = fastinsight(q.question, ws, backends=b)
        assert [ws.graph.node_ids[v] for v in r.node_ranking[:10]] == w["top10"], qid
        got = node_metrics(ws, q.gold_chunks, result=r)
        assert set(got) == {k for k in NODE_METRICS if k in w}, qid
        for k in got:
            assert got[k] == pytest.approx(w[k], abs=1e-9), (qid, k)
        nonzero += got.get(NODE_R, 0) > 0
    assert nonzero >= 3  # the comparison is not only made on zeros


def test_fastinsight_on_passages_has_no_node_figure_and_says_why(demo):
    ws, b = demo
    q = next(q for q in load_questions(ws) if q.gold_chunks)
    r = fastinsight(q.question, ws, config=FastInsightConfig(graph="passages"), backends=b)
    s = node_scores(ws, q.gold_chunks, result=r)
    assert r.searched == "passages" and s.metrics == {} and "graph='passages'" in s.note


# ------------------------------------------------------------------------------------ every method
@pytest.mark.parametrize("method", ["dense", "rerank", "ppr", "fastinsight", "bubblerag", "sgrag", "reg"])
def test_every_method_hands_over_nodes_or_says_why(demo, method):
    ws, b = demo
    q = next(q for q in load_questions(ws) if q.id == "lothair-mother")
    cfg = {"node_level": True} if method in ("dense", "rerank") else {}
    from core.methods.registry import get_method

    r = run_method(method, q.question, ws, b, config=get_method(method).make_config(**cfg))
    ranking = list(r.node_ranking)
    assert all(0 <= v < ws.graph.n_nodes for v in ranking) and len(set(ranking)) == len(ranking)
    s = node_scores(ws, q.gold_chunks, result=r)
    if ranking:
        assert set(s.metrics) == set(NODE_METRICS) and s.note == ""
        top = [str(v) for v in ranking[:10]]
        gold = {str(v) for v in gold_nodes(ws.graph, q.gold_chunks).tolist()}
        assert s.metrics[NODE_R] == pytest.approx(recall_at_k(top, gold, 10))
        assert s.metrics[NODE_NDCG] == pytest.approx(ndcg_at_k(top, gold, 10))
    else:
        assert s.metrics == {} and s.note and s.note == r.node_ranking_note


def test_each_methods_node_ranking_is_what_it_hands_over(demo):
    ws, b = demo
    g = ws.graph
    q = next(q for q in load_questions(ws) if q.id == "lothair-mother")
    bub = run_method("bubblerag", q.question, ws, b)
    assert bub.ranked and not bub.early_exit
    first = list(dict.fromkeys(v for r in bub.ranked for v in r.ceg.nodes))  # the ranked CEGs' nodes, in rank order
    assert list(bub.node_ranking[:len(first)]) == first
    assert set(bub.node_ranking) == set(first) | set(bub.evidence_nodes)  # then the rest of G_final
    reg = run_method("reg", q.question, ws, b)
    ends = [int(x) for t in reg.kept for x in (g.edge_head[t.edge], g.edge_tail[t.edge])]
    assert list(reg.node_ranking) == list(dict.fromkeys(ends))  # the kept triples' entities, in score order
    sg = run_method("sgrag", q.question, ws, b)
    assert list(sg.node_ranking) == list(dict.fromkeys(v for s in sg.assembly.subgraphs for _, v in s.mapping))
    ppr = run_method("ppr", q.question, ws, b)
    top = ppr.trace.stage("ppr")[0].data["top_nodes"]
    assert [g.node_names[v] for v in ppr.node_ranking] == [t["node"] for t in top if t["score"] > 0]


def test_dense_and_rerank_rank_no_node_unless_asked(demo):
    ws, b = demo
    q = load_questions(ws)[0]
    for m in ("dense", "rerank"):
        r = run_method(m, q.question, ws, b)
        assert r.node_ranking == () and r.node_ranking_note == NODE_LEVEL_OFF
        assert "node_search" not in [s.stage for s in r.trace.steps]
        rec, _ = evaluate_result(r, ws, Gold.from_question(q))
        assert NODE_R not in rec["metrics"] and rec["metrics_notes"] == {NODE_R: NODE_LEVEL_OFF, NODE_NDCG: NODE_LEVEL_OFF}


def test_a_corpus_graph_gives_every_method_a_blank_with_the_reason(demo, tmp_path):
    from core.index.create import create_workspace
    from core.index.questions import Question
    from core.methods.registry import get_method
    from tests.methods.fastinsight.helpers import write_corpus_graph

    backends = demo[1]
    corpus_ws = create_workspace(write_corpus_graph(tmp_path / "in"), tmp_path / "cg", name="cg",
                                 embedder=backends.embedder)

    gold = (corpus_ws.graph.chunks[0].id,)
    q = Question("q1", "Which prompting strategy does agentic RAG use?", "", gold)
    for m in ("dense", "rerank", "ppr", "fastinsight"):
        cfg = get_method(m).make_config(**({"node_level": True} if m in ("dense", "rerank") else {}))
        r = run_method(m, q.question, corpus_ws, backends, config=cfg)
        rec, _ = evaluate_result(r, corpus_ws, Gold.from_question(q))
        assert NODE_R not in rec["metrics"] and "R@10" in rec["metrics"], m
        assert "corpus graph" in rec["metrics_notes"][NODE_R], (m, rec["metrics_notes"])
    summary = summarize([rec])
    rows = node_rows(summary)
    assert rows[0]["node R@10"] is None and rows[0]["n (nodes)"] == 0 and "corpus graph" in rows[0]["why blank"]


# ------------------------------------------------------------------------------------ summary, report, bench
def test_summary_and_report_give_node_figures_their_count_and_blanks_their_reason():
    recs = [
        {"question_id": "q1", "method": "fastinsight", "seconds": 0.1, "answer_judged": False,
         "metrics": {"R@10": 0.5, "nDCG@10": 0.4, NODE_R: 0.3, NODE_NDCG: 0.2}},
        {"question_id": "q2", "method": "fastinsight", "seconds": 0.1, "answer_judged": False,
         "metrics": {"R@10": 1.0, "nDCG@10": 0.4}, "metrics_notes": {NODE_R: NO_GOLD_NODE, NODE_NDCG: NO_GOLD_NODE}},
        {"question_id": "q1", "method": "dense", "seconds": 0.1, "answer_judged": False,
         "metrics": {"R@10": 0.5, "nDCG@10": 0.4}, "metrics_notes": {NODE_R: NODE_LEVEL_OFF, NODE_NDCG: NODE_LEVEL_OFF}},
    ]
    s = summarize(recs)
    fi, dense = s["methods"]["fastinsight"], s["methods"]["dense"]
    assert fi["metrics"][NODE_R] == 0.3 and fi["node_level"] == {"n": 1, "passage_n": 2, "blank": {NO_GOLD_NODE: 1}}
    assert NODE_R not in dense["metrics"] and dense["node_level"] == {"n": 0, "passage_n": 1,
                                                                        "blank": {NODE_LEVEL_OFF: 1}}
    md = markdown_report(s)
    header = next(line for line in md.splitlines() if line.startswith("| method | n |"))
    assert "node R@10" not in header  # the passage table keeps to passages
    assert "## Node level (FastInsight §4.3.1, Table 3)" in md and NODE_METRICS_NOTE in md
    # 2 questions: no interval (core.eval.summary_stats.MIN_INTERVAL_QUESTIONS)
    assert f"| fastinsight | 1 | 30.0 | 20.0 | 75.0 | 2 | {NO_GOLD_NODE} (1 q.) |" in md
    assert f"| dense | 0 | – | – | 50.0 | 1 | {NODE_LEVEL_OFF} (1 q.) |" in md  # blank, not 0
    plain = [dict(r, metrics={"R@10": 0.5}) for r in recs[2:]]
    plain[0].pop("metrics_notes")
    assert "Node level" not in markdown_report(summarize(plain))  # a run that says nothing about nodes
    assert node_rows(summarize(plain)) == []


def test_bench_on_the_demo_kg_scores_every_method_on_nodes_with_node_level(demo, tmp_path):
    ws, b = demo
    out = tmp_path / "out"
    from core.methods.baselines import DenseConfig, RerankConfig

    rep = run_benchmark(ws, load_questions(ws), ["dense", "rerank", "ppr", "fastinsight", "bubblerag", "reg"], b,
                        out_dir=out, limit=3, configs={"dense": DenseConfig(node_level=True),
                                                       "rerank": RerankConfig(node_level=True)})
    by = {}
    for r in rep.records:
        by.setdefault(r["method"], []).append(r)
    for m, rs in by.items():  # every question has a gold node here: a figure, or the method's reason
        assert all(NODE_R in r["metrics"] or r.get("metrics_notes", {}).get(NODE_R) for r in rs), m
    for m in ("dense", "rerank", "ppr", "fastinsight"):
        assert all(NODE_R in r["metrics"] for r in by[m]), m
    summary = json.loads((out / "summary.json").read_text())
    for m, rs in by.items():
        scored = [r["metrics"][NODE_R] for r in rs if NODE_R in r["metrics"]]
        assert summary["methods"][m]["node_level"]["n"] == len(scored)
        if scored:
            assert summary["methods"][m]["metrics"][NODE_R] == pytest.approx(sum(scored) / len(scored))
    assert "## Node level" in (out / "report.md").read_text()


def test_a_new_method_with_a_node_ranking_is_scored_with_no_other_change(demo, tmp_path):
    """The contract is the attribute alone: a method registered from outside (as HippoRAG 2 will be) whose result
    has ``node_ranking`` gets node figures in a benchmark without any change to the evaluation."""
    import dataclasses

    from core.methods.registry import registered
    from tests.fakes import TOY_METHOD, ToyResult, toy_run

    @dataclasses.dataclass(frozen=True, eq=False)
    class NodeToyResult(ToyResult):
        node_ranking: tuple[int, ...] = ()

    def run(query, workspace, *, config=None, backends):  # type: ignore[no-untyped-def]
        r = toy_run(query, workspace, config=config, backends=backends)
        first = workspace.graph.chunks[-1].id  # the toy's first passage: hand over the nodes extracted from it
        nodes = tuple(gold_nodes(workspace.graph, [first]).tolist())
        fields = {f.name: getattr(r, f.name) for f in dataclasses.fields(r)}
        return NodeToyResult(**{**fields, "method": "toynodes"}, node_ranking=nodes)

    ws, b = demo
    with registered(dataclasses.replace(TOY_METHOD, name="toynodes", run=run)):
        rep = run_benchmark(ws, load_questions(ws), ["toynodes"], b, out_dir=tmp_path / "out", limit=5)
    assert len(rep.records) == 5
    for r in rep.records:  # a figure wherever the question has a gold node
        assert (NODE_R in r["metrics"]) == bool(gold_nodes(ws.graph, r["gold"]).size), r["question_id"]
    assert rep.summary["methods"]["toynodes"]["node_level"]["n"] == 5
