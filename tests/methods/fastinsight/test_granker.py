"""GRanker (FastInsight §3.3, Algorithm 2): P, smoothing, α = 0, heads, cross-encoder path."""

from __future__ import annotations

import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_reranker
from core.backends.rerankers import BiEncoderReranker
from core.errors import ConfigError
from core.graph.passage_graph import PassageGraph
from core.methods.base import Backends
from core.methods.baselines import rerank
from core.methods.fastinsight import FastInsightConfig, run
from core.methods.fastinsight.granker import (
    FeatureCache,
    granker,
    granker_scores,
    propagation_matrix,
    smooth_features,
)
from tests.methods.fastinsight.helpers import CountingReranker, MLPReranker, random_graph


def _p_by_the_book(a: np.ndarray, deg: np.ndarray) -> np.ndarray:
    """Algorithm 2 lines 2–5 written out element by element."""
    k = a.shape[0]
    w = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if a[i, j]:
                w[i, j] = a[i, j] / deg[j]
    p = np.zeros((k, k))
    for i in range(k):
        s = w[i].sum()
        if s > 0:
            p[i] = w[i] / s
        else:
            p[i, i] = 1.0  # no neighbour: keeps its own features
    return p


@pytest.mark.parametrize("seed", range(5))
def test_propagation_matrix_matches_algorithm_2(seed):
    rng = np.random.default_rng(seed)
    k = 12
    a = np.triu((rng.random((k, k)) < 0.25).astype(float), 1)
    a = a + a.T
    deg = a.sum(axis=1) + rng.integers(0, 6, size=k)  # full-graph degree >= subgraph degree
    p = propagation_matrix(a, deg)
    np.testing.assert_allclose(p, _p_by_the_book(a, deg), atol=1e-12)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.isfinite(p).all()


def test_rows_without_neighbours_keep_their_own_features():
    a = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float)
    p = propagation_matrix(a, np.array([1, 3, 7]))
    h = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, -2.0]])
    hs = smooth_features(h, p, 0.7)
    np.testing.assert_allclose(hs[2], h[2])
    np.testing.assert_allclose(hs[0], 0.3 * h[0] + 0.7 * h[1])


def test_degrees_come_from_the_full_graph():
    """A neighbour with many links outside N_ret weighs less (W = A·D⁻¹ with full degrees)."""
    # 0 is linked to 1 and 2; 2 is also linked to 3..9 (outside N_ret).
    pg = PassageGraph.from_edges(10, [(0, 1), (0, 2)] + [(2, j) for j in range(3, 10)],
                                 passages=[f"p{i}" for i in range(10)])
    r = granker("q", [0, 1, 2], pg, BiEncoderReranker(HashingEmbedder(dim=16)), alpha=0.2)
    assert r.degrees.tolist() == [2, 1, 8]
    np.testing.assert_allclose(r.propagation[0], [0, (1 / 1) / (1 / 1 + 1 / 8), (1 / 8) / (1 / 1 + 1 / 8)])


def test_alpha_zero_is_plain_reranking_exactly():
    pg = random_graph(30, 0.2, seed=1)
    rr = MLPReranker()
    nodes = np.arange(30)[::-1]
    r = granker("graph retrieval", nodes, pg, rr, alpha=0.0)
    plain = rr.head(rr.features("graph retrieval", [pg.passages[i] for i in nodes]))
    np.testing.assert_array_equal(r.scores, plain)
    np.testing.assert_array_equal(r.ranking, nodes[np.argsort(-plain, kind="stable")])
    np.testing.assert_array_equal(granker_scores(r.features, r.propagation, rr.head, alpha=0.0), plain)
    assert not np.array_equal(granker("graph retrieval", nodes, pg, rr, alpha=0.5).scores, plain)


def test_alpha_zero_fastinsight_ranks_like_re2_on_the_same_candidates(demo_ws, backends):
    """On passages (Re2 ranks passages, so FastInsight must search the passage graph to compare)."""
    q = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
    fi = run(q, demo_ws, config=FastInsightConfig(graph="passages", alpha=0.0, b_max=10, top_k=10), backends=backends)
    re2 = rerank.run(q, demo_ws, config=rerank.RerankConfig(candidates=10, top_k=10), backends=backends)
    assert [c.chunk_id for c in fi.ranked_chunks] == [c.chunk_id for c in re2.ranked_chunks]
    assert [c.score for c in fi.ranked_chunks] == [c.score for c in re2.ranked_chunks]


def test_linear_head_feature_smoothing_equals_score_smoothing():
    pg = random_graph(25, 0.2, seed=2)
    rr = BiEncoderReranker(HashingEmbedder(dim=64))
    r = granker("evidence chain", np.arange(25), pg, rr, alpha=0.3)
    plain = r.plain_scores
    np.testing.assert_allclose(r.scores, 0.7 * plain + 0.3 * r.propagation @ plain, atol=1e-5)


def test_nonlinear_head_smooths_features_not_scores():
    pg = random_graph(25, 0.3, seed=4)
    rr = MLPReranker()
    r = granker("evidence chain", np.arange(25), pg, rr, alpha=0.5)
    score_smoothing = 0.5 * r.plain_scores + 0.5 * r.propagation @ r.plain_scores
    expected = rr.head(0.5 * r.features + 0.5 * r.propagation @ r.features)
    np.testing.assert_allclose(r.scores, expected, atol=1e-5)
    assert np.abs(r.scores - score_smoothing).max() > 1e-3


def test_hf_cross_encoder_through_granker(tiny_bert_dir):
    import torch
    from transformers import AutoModelForSequenceClassification

    rr = get_reranker(f"cross-encoder:{tiny_bert_dir}", device="cpu", batch_size=3)
    texts = ["keanu reeves starred in the matrix", "hugo weaving played agent smith", "plants need light",
             "the matrix was directed by the wachowskis", "lothair ii mother ermengarde"]
    pg = PassageGraph.from_edges(5, [(0, 1), (0, 3), (1, 3)], passages=texts)
    q = "who played agent smith in the matrix"
    r = granker(q, [4, 3, 2, 1, 0], pg, rr, alpha=0.2)
    full = AutoModelForSequenceClassification.from_pretrained(tiny_bert_dir).eval()
    with torch.inference_mode():
        logits = full(**rr.encode_pairs(q, [texts[i] for i in [4, 3, 2, 1, 0]])).logits[:, 0].numpy()
        np.testing.assert_allclose(r.plain_scores, logits, atol=1e-5)  # α = 0 scores are the model's logits
        h = torch.from_numpy(r.features)
        smoothed = 0.8 * h + 0.2 * torch.from_numpy(r.propagation).float() @ h
        # the head is BERT's pooler (dense + tanh) then the classifier, applied to smoothed [CLS] features
        expected = full.classifier(full.bert.pooler(smoothed.unsqueeze(1)))[:, 0].numpy()
    np.testing.assert_allclose(r.scores, expected, atol=1e-5)
    assert r.features.shape == (5, 32) and r.scores[2] == pytest.approx(r.plain_scores[2], abs=1e-6)  # isolated


def test_feature_cache_encodes_each_passage_once():
    pg = random_graph(20, 0.2, seed=5)
    rr = CountingReranker()
    cache = FeatureCache(rr, "q", pg.passages)
    granker("q", [0, 1, 2], pg, rr, features=cache)
    granker("q", [2, 1, 0, 3, 4], pg, rr, features=cache)
    assert cache.encoded == 5 and len(rr.seen) == 5


def test_bad_inputs_have_pinned_messages():
    pg = random_graph(5, 0.5, seed=0)
    rr = BiEncoderReranker(HashingEmbedder(dim=16))
    with pytest.raises(ConfigError, match=r"^alpha \(GRanker smoothing factor\) must be in \[0, 1\], got 1\.5\.$"):
        granker("q", [0, 1], pg, rr, alpha=1.5)
    with pytest.raises(ValueError, match=r"^N_ret must not repeat a node$"):
        granker("q", [0, 0], pg, rr)
    with pytest.raises(ValueError, match=r"^node 9 is not in the passage graph \(0\.\.4\)$"):
        granker("q", [0, 9], pg, rr)
    with pytest.raises(ValueError, match=r"^adjacency must be \(k, k\) and degrees \(k,\), got \(2, 2\) and \(3,\)$"):
        propagation_matrix(np.zeros((2, 2)), np.ones(3))
    r = granker("q", [], pg, rr)
    assert r.ranking.size == 0 and r.scores.size == 0


def test_reranker_is_reported_with_its_smoothing_caveat(demo_ws, hashing):
    res = run("Who played Agent Smith?", demo_ws, backends=Backends(hashing, backends_llm(), None))
    assert res.reranker.startswith("biencoder (biencoder:hashing")
    assert "feature smoothing equals score smoothing" in res.reranker_description and res.linear_head
    assert any(s.fallback.startswith("no reranker configured") for s in res.trace.steps)


def backends_llm():
    from core.backends.llm import NoLLM

    return NoLLM()
