"""STeX (FastInsight §3.4, Algorithm 3) against a line-by-line transcription, plus its guards."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from core.errors import ConfigError
from core.graph.passage_graph import PassageGraph
from core.methods.fastinsight.stex import stex
from tests.methods.fastinsight.helpers import random_graph, unit_vectors


def _algorithm_3(g: nx.Graph, v_q, vectors, n_ret: list[int], beta: float) -> dict[int, tuple[float, float, float]]:
    """Algorithm 3 transcribed with networkx: candidate → (S_n, I_Sim, I_Struct)."""
    n_stex = {j for i in n_ret for j in g.neighbors(i)} - set(n_ret)
    r_max = len(n_ret)
    out = {}
    for n in n_stex:
        i_struct = 0.0
        a_n = [v for v in n_ret if g.has_edge(n, v)]
        if r_max > 1:
            r_best = min(n_ret.index(v) + 1 for v in a_n)
            i_struct = 1 - (r_best - 1) / (r_max - 1)
        c_max = min(g.degree(n), r_max)
        if c_max > 1:
            i_struct += (len(a_n) - 1) / (c_max - 1)
        i_sim = float(v_q @ vectors[n])
        out[n] = (i_sim + beta * i_struct, i_sim, i_struct)
    return out


@pytest.mark.parametrize(("seed", "k", "beta"), [(0, 10, 1.0), (1, 1, 1.0), (2, 25, 0.5), (3, 5, 3.0), (4, 2, 0.0)])
def test_stex_matches_algorithm_3_on_random_graphs(seed, k, beta):
    pg = random_graph(80, 0.06, seed=seed)
    vecs = unit_vectors(80, 16, seed)
    v_q = unit_vectors(1, 16, seed + 100)[0]
    n_ret = np.random.default_rng(seed).permutation(80)[:k].tolist()
    res = stex(v_q, vecs, pg, n_ret, beta=beta)
    oracle = _algorithm_3(pg.to_networkx(), v_q, vecs, n_ret, beta)
    assert set(res.candidates.tolist()) == set(oracle)
    for c, s, i_sim, i_struct in zip(res.candidates, res.scores, res.i_sim, res.i_struct):
        assert (s, i_sim, i_struct) == pytest.approx(oracle[int(c)], abs=1e-6)
    assert (np.diff(res.scores) <= 1e-12).all()  # best first
    assert np.isfinite(res.scores).all() and ((res.bridge_term >= 0) & (res.bridge_term <= 1)).all()


def test_worked_example_with_both_terms():
    # N_ret = [0, 1, 2] (ranks 1..3); candidate 3 touches 1 and 2 and has degree 3 (also 4).
    pg = PassageGraph.from_edges(5, [(1, 3), (2, 3), (3, 4), (0, 4)])
    vecs = np.zeros((5, 2), dtype=np.float32)
    vecs[3] = [0.5, 0]
    vecs[4] = [0.1, 0]
    res = stex(np.array([1.0, 0.0]), vecs, pg, [0, 1, 2], beta=1.0)
    by = {int(c): i for i, c in enumerate(res.candidates)}
    i3, i4 = by[3], by[4]
    # node 3: r_best = 2 → 1 − 1/2 = 0.5; C_max = min(3, 3) = 3, |A| = 2 → 1/2; I_Sim 0.5
    assert (res.rank_term[i3], res.bridge_term[i3], res.scores[i3]) == pytest.approx((0.5, 0.5, 1.5))
    # node 4: r_best = 1 → 1; C_max = min(2, 3) = 2, |A| = 1 → 0; I_Sim 0.1
    assert (res.rank_term[i4], res.bridge_term[i4], res.scores[i4]) == pytest.approx((1.0, 0.0, 1.1))
    assert res.candidates.tolist() == [3, 4] and res.r_best.tolist() == [2, 1] and res.c_max.tolist() == [3, 2]


def test_guards_r_max_and_c_max():
    # R_max = 1: no rank term (it would divide by zero); a leaf candidate has C_max = 1: no bridging term.
    pg = PassageGraph.from_edges(3, [(0, 1), (0, 2), (1, 2)])
    vecs = np.eye(3, dtype=np.float32)
    res = stex(vecs[2], vecs, pg, [0], beta=1.0)
    assert res.r_max == 1 and (res.rank_term == 0).all()
    assert (res.c_max == 1).all() and (res.bridge_term == 0).all()
    assert res.candidates.tolist() == [2, 1] and res.scores.tolist() == [1.0, 0.0]
    leaf = PassageGraph.from_edges(4, [(0, 1), (1, 2), (0, 3)])
    r2 = stex(np.ones(2), np.ones((4, 2)), leaf, [0, 1], beta=1.0)
    assert dict(zip(r2.candidates.tolist(), r2.c_max.tolist())) == {2: 1, 3: 1}
    assert (r2.bridge_term == 0).all()


def test_beta_zero_orders_neighbours_by_similarity_only():
    pg = random_graph(60, 0.1, seed=7)
    vecs = unit_vectors(60, 8, 7)
    v_q = unit_vectors(1, 8, 70)[0]
    res = stex(v_q, vecs, pg, list(range(10)), beta=0.0)
    np.testing.assert_array_equal(res.scores, res.i_sim)
    assert (np.diff(res.i_sim) <= 0).all()


def test_no_candidates_and_bad_inputs():
    pg = PassageGraph.from_edges(3, [(0, 1)])
    vecs = np.eye(3, dtype=np.float32)
    assert len(stex(vecs[0], vecs, pg, [0, 1])) == 0  # nothing outside N_ret is adjacent
    assert len(stex(vecs[0], vecs, pg, [])) == 0
    with pytest.raises(ConfigError, match=r"^beta \(STeX score ratio\) must be a finite number >= 0, got -1\.0\.$"):
        stex(vecs[0], vecs, pg, [0], beta=-1.0)
    with pytest.raises(ValueError, match=r"^node_vectors must be \(3, 3\), got \(2, 3\)$"):
        stex(vecs[0], vecs[:2], pg, [0])
    with pytest.raises(ValueError, match=r"^N_ret must not repeat a node$"):
        stex(vecs[0], vecs, pg, [0, 0])
