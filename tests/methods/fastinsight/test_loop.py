"""The FastInsight loop (Algorithm 1): budget, batches, GRanker after every batch, exhaustion."""

from __future__ import annotations

import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.rerankers import BiEncoderReranker
from core.errors import ConfigError
from core.graph.passage_graph import PassageGraph
from core.methods.fastinsight.granker import granker
from core.methods.fastinsight.loop import fastinsight, iter_fastinsight, vector_search
from core.methods.fastinsight.stex import stex
from tests.methods.fastinsight.helpers import CountingReranker, random_graph

EMB = HashingEmbedder(dim=64)


def _setup(n=150, p=0.04, seed=0):
    pg = random_graph(n, p, seed=seed)
    return pg, EMB.embed(list(pg.passages)), EMB.embed(["graph evidence retrieval"])[0]


@pytest.mark.parametrize(("batch", "b_max", "sizes"), [(10, 100, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]),
                                                       (10, 25, [10, 20, 25]), (4, 3, [3]), (7, 7, [7])])
def test_budget_and_batches(batch, b_max, sizes):
    pg, vecs, q = _setup()
    rounds = list(iter_fastinsight(pg, "graph evidence retrieval", q, vecs, BiEncoderReranker(EMB),
                                   batch=batch, b_max=b_max))
    assert [r.size for r in rounds] == sizes
    assert all(r.added.size <= batch for r in rounds)


def test_every_round_follows_algorithm_1():
    pg, vecs, q = _setup(seed=1)
    rr = BiEncoderReranker(EMB)
    rounds = list(iter_fastinsight(pg, "graph evidence retrieval", q, vecs, rr, batch=10, b_max=60, alpha=0.2, beta=1.0))
    ids, _ = vector_search(q, vecs, 10)
    assert rounds[0].added.tolist() == ids.tolist() and rounds[0].proposed is None  # line 1
    prev = rounds[0].ranking
    for r in rounds[1:]:
        expected = stex(q, vecs, pg, prev, beta=1.0)  # line 4 on the ranking GRanker produced
        np.testing.assert_array_equal(r.proposed.candidates, expected.candidates)
        if not r.fallback:
            np.testing.assert_array_equal(r.added, expected.candidates[:10])  # lines 5–6
        g = granker("graph evidence retrieval", np.concatenate([prev, r.added]), pg, rr, alpha=0.2)  # line 7
        np.testing.assert_array_equal(r.ranking, g.ranking)
        np.testing.assert_allclose(r.granker.scores, g.scores)
        assert np.isfinite(r.granker.scores).all()
        assert len(set(r.ranking.tolist())) == r.ranking.size
        prev = r.ranking


def test_each_passage_is_encoded_once():
    pg, vecs, q = _setup(seed=2)
    rr = CountingReranker(BiEncoderReranker(EMB))
    res = fastinsight(pg, "graph evidence retrieval", q, vecs, rr, batch=10, b_max=50)
    assert len(rr.seen) == 50 == res.encoded == res.ranking.size


def test_runs_are_reproducible():
    pg, vecs, q = _setup(seed=3)
    a = fastinsight(pg, "graph evidence retrieval", q, vecs, BiEncoderReranker(EMB), b_max=40)
    b = fastinsight(pg, "graph evidence retrieval", q, vecs, BiEncoderReranker(EMB), b_max=40)
    np.testing.assert_array_equal(a.ranking, b.ranking)
    np.testing.assert_array_equal(a.scores, b.scores)


def test_exhausted_graph_falls_back_to_vector_search_or_stops():
    # two components: {0..4} in a path, {5..9} isolated; initial retrieval lands in the path
    texts = ["graph evidence"] * 5 + [f"unrelated {i}" for i in range(5)]
    pg = PassageGraph.from_edges(10, [(i, i + 1) for i in range(4)], passages=texts)
    vecs = EMB.embed(texts)
    q = EMB.embed(["graph evidence"])[0]
    rounds = list(iter_fastinsight(pg, "graph evidence", q, vecs, BiEncoderReranker(EMB), batch=2, b_max=8))
    assert [r.size for r in rounds] == [2, 3, 4, 5, 7, 8]  # a path offers one new neighbour per round
    fb = [r for r in rounds if r.fallback]
    assert fb and fb[0].fallback.startswith("STeX found no unretrieved neighbour of the 5 retrieved passages; "
                                            "added the next 2 by vector similarity instead.")
    stopped = list(iter_fastinsight(pg, "graph evidence", q, vecs, BiEncoderReranker(EMB), batch=2, b_max=8,
                                    on_exhausted="stop"))
    assert stopped[-1].size == 5


def test_budget_is_capped_by_the_corpus():
    pg, vecs, q = _setup(n=12)
    res = fastinsight(pg, "graph", q, vecs, BiEncoderReranker(EMB), batch=5, b_max=100)
    assert res.ranking.size == 12


def test_vector_search_is_exact_with_deterministic_ties():
    vecs = np.array([[1, 0], [1, 0], [0, 1], [0.9, 0.1]], dtype=np.float32)
    ids, scores = vector_search(np.array([1.0, 0.0]), vecs, 3)
    assert ids.tolist() == [0, 1, 3] and scores[0] == 1.0
    mask = np.array([True, False, False, False])
    assert vector_search(np.array([1.0, 0.0]), vecs, 2, exclude=mask)[0].tolist() == [1, 3]


@pytest.mark.parametrize(("kw", "msg"), [
    ({"batch": 0}, r"^batch \(BATCH\) must be at least 1, got 0\.$"),
    ({"b_max": 0}, r"^b_max \(node budget\) must be at least 1, got 0\.$"),
    ({"alpha": -0.1}, r"^alpha \(GRanker smoothing factor\) must be in \[0, 1\], got -0\.1\.$"),
    ({"beta": float("inf")}, r"^beta \(STeX score ratio\) must be a finite number >= 0, got inf\.$"),
    ({"on_exhausted": "wait"}, r"^on_exhausted must be 'vector' or 'stop', got 'wait'\.$"),
])
def test_bad_parameters_have_pinned_messages(kw, msg):
    pg, vecs, q = _setup(n=20)
    with pytest.raises(ConfigError, match=msg):
        list(iter_fastinsight(pg, "q", q, vecs, BiEncoderReranker(EMB), **kw))


def test_vectors_must_match_the_graph():
    pg, vecs, q = _setup(n=20)
    with pytest.raises(ValueError, match=r"^node_vectors must have one row per passage \(20\), got shape \(19, 64\)$"):
        list(iter_fastinsight(pg, "q", q, vecs[:19], BiEncoderReranker(EMB)))
