"""Recall@k, nDCG@k, Topological Recall and MissTR (FastInsight §4.3) against brute force."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from core.eval.metrics import (
    miss_tr,
    ndcg_at_k,
    path_uncertainty,
    ranking_metrics,
    recall_at_k,
    topological_recall,
    tr_decomposition,
)
from core.graph.passage_graph import PassageGraph
from tests.methods.fastinsight.helpers import random_graph


def _u_brute_force(g: nx.Graph, retrieved, target) -> float:
    """Definition 7 by enumeration: every seed, every shortest path, the cheapest one."""
    best = math.inf
    for j in retrieved:
        if j == target:
            return 0.0
        if not nx.has_path(g, j, target):
            continue
        for path in nx.all_shortest_paths(g, j, target):
            best = min(best, sum(math.log1p(g.degree(k)) for k in path if k != target))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_uncertainty_matches_enumeration_on_random_graphs(seed):
    pg = random_graph(45, 0.07, seed=seed)
    g = pg.to_networkx()
    rng = np.random.default_rng(seed)
    retrieved = rng.choice(45, size=6, replace=False).tolist()
    for target in range(45):
        assert path_uncertainty(pg, retrieved, target) == pytest.approx(_u_brute_force(g, retrieved, target))


@pytest.mark.parametrize("seed", range(8))
def test_corollary_1_tr_equals_recall_plus_miss_tr(seed):
    rng = np.random.default_rng(seed)
    pg = random_graph(60, float(rng.uniform(0.02, 0.12)), seed=seed)
    retrieved = rng.choice(60, size=int(rng.integers(1, 20)), replace=False).tolist()
    oracle = rng.choice(60, size=int(rng.integers(1, 8)), replace=False).tolist()
    d = tr_decomposition(pg, retrieved, oracle)
    found = len(set(oracle) & set(retrieved))
    assert d.recall == found / len(oracle)
    assert d.tr == pytest.approx(d.recall + d.miss_tr, abs=1e-12)
    assert d.tr == pytest.approx(topological_recall(pg, retrieved, oracle))
    miss = [o for o in oracle if o not in retrieved]
    expected_miss = len(miss) / len(oracle) * topological_recall(pg, retrieved, miss) if miss else 0.0
    assert d.miss_tr == pytest.approx(expected_miss)
    assert 0.0 <= d.tr <= 1.0 and 0.0 <= d.miss_tr <= 1.0 - d.recall + 1e-12


def test_tr_worked_examples():
    # path 0 – 1 – 2 – 3, retrieved {0}: u(1) = ln 2 (deg 0 = 1), u(2) = ln 2 + ln 3
    pg = PassageGraph.from_edges(5, [(0, 1), (1, 2), (2, 3)])
    assert path_uncertainty(pg, [0], 1) == pytest.approx(math.log(2))
    assert path_uncertainty(pg, [0], 2) == pytest.approx(math.log(2) + math.log(3))
    assert path_uncertainty(pg, [0], 4) == math.inf  # unreachable → no credit
    assert topological_recall(pg, [0], [0]) == 1.0
    assert topological_recall(pg, [0], [4]) == 0.0
    assert topological_recall(pg, [0], [1, 4]) == pytest.approx(0.5 / (1 + math.log(2)))
    assert miss_tr(pg, [0, 1], [0, 1]) == 0.0
    assert topological_recall(pg, [], [1]) == 0.0


def test_a_far_cheap_seed_beats_a_near_hub():
    # target 0; seed 1 is adjacent but a hub (degree 31); seed 5 (degree 1) is 3 hops away via degree-2 nodes
    edges = [(0, 1)] + [(1, j) for j in range(10, 40)] + [(0, 2), (2, 3), (3, 5)]
    pg = PassageGraph.from_edges(40, edges)
    assert path_uncertainty(pg, [1], 0) == pytest.approx(math.log(32))
    assert path_uncertainty(pg, [1, 5], 0) == pytest.approx(math.log(2) + 2 * math.log(3))


def test_recall_and_ndcg():
    assert recall_at_k(["a", "b", "c"], {"a", "z"}, k=2) == 0.5
    assert recall_at_k(list("abcdefghij"), set("abcdefghijkl"), k=10) == 1.0  # capped
    assert ndcg_at_k(["a", "b"], {"a", "b"}, k=10) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "a"], {"a", "b"}, k=10) == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(["a", "a"], {"a", "b"}, k=10) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(["x"] * 10 + ["a"], {"a"}, k=10) == 0.0


def test_ranking_metrics_bundle():
    pg = PassageGraph.from_edges(4, [(0, 1), (1, 2)])
    m = ranking_metrics(pg, [0, 3], [0, 1], k=2)
    assert (m.recall, m.ndcg) == (0.5, pytest.approx(1 / (1 + 1 / math.log2(3))))
    assert m.tr == pytest.approx(m.recall + m.miss_tr)


def test_bad_inputs_have_pinned_messages():
    pg = PassageGraph.from_edges(3, [(0, 1)])
    with pytest.raises(ValueError, match=r"^the gold set is empty: Recall, nDCG and TR are undefined without gold"):
        recall_at_k(["a"], set())
    with pytest.raises(ValueError, match=r"^k must be at least 1, got 0$"):
        ndcg_at_k(["a"], {"a"}, k=0)
    with pytest.raises(ValueError, match=r"^the oracle set is empty: Topological Recall is undefined"):
        topological_recall(pg, [0], [])
    with pytest.raises(ValueError, match=r"^node 7 is not in the graph \(0\.\.2\)$"):
        path_uncertainty(pg, [7], 0)


def test_the_report_says_under_its_table_that_recall_is_capped() -> None:
    """An engineer recomputed R@2 on questions with 3 gold passages as hits / |gold| and got other numbers (an
    audit): report.md says, under its retrieval table, what R@k divides by. The report's figure is the capped one."""
    from core.eval.metrics import CAPPED_RECALL_NOTE
    from core.eval.report import markdown_report, summarize

    gold, ranked = ["g1", "g2", "g3"], ["g1", "x", "g2"]
    r2 = recall_at_k(ranked, set(gold), k=2)
    assert r2 == 0.5  # 1 hit / min(2, 3); uncapped it would be 1 / 3
    rec = {"question_id": "q1", "method": "dense", "question": "q?", "gold": gold, "answers": [], "ranked": ranked,
           "scores": [], "metrics": {"R@2": r2}, "answer": "", "answer_judged": False, "em": None, "f1": None,
           "seconds": 0.1, "stages": {}, "tokens": {"total": 0}, "fallbacks": [], "diagnosis": None, "error": None}
    text = markdown_report(summarize([rec], settings={"workspace": "w"}))
    assert CAPPED_RECALL_NOTE == "R@k is capped: hits in the top k / min(k, number of gold passages)"
    table = text.index("| method | n | R@2")
    retrieval_end = text.index("\n## ", table) if "\n## " in text[table:] else len(text)
    assert CAPPED_RECALL_NOTE in text[table:retrieval_end], text
    assert "| dense | 1 | 50.0 |" in text
