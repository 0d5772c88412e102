"""Dense retrieval and Re2 against brute force on the same index."""

from __future__ import annotations

import numpy as np
import pytest

from core.backends.llm import NoLLM
from core.errors import ConfigError, QueryError
from core.methods.base import Backends, MethodResult
from core.methods.baselines import dense, rerank
from core.methods.registry import get_method
from tests.methods.fastinsight.helpers import MLPReranker

Q = "When did Lothair II's mother die?"


def _brute_force_order(ws, emb, query):
    sims = ws.index("chunks").vectors @ emb.embed([query])[0]
    return np.argsort(-sims, kind="stable"), sims


def test_dense_is_exact_top_k(demo_ws, backends, hashing):
    res = dense.run(Q, demo_ws, config=dense.DenseConfig(top_k=5), backends=backends)
    order, sims = _brute_force_order(demo_ws, hashing, Q)
    assert isinstance(res, MethodResult) and res.method == "dense"
    assert [c.chunk_id for c in res.ranked_chunks] == [demo_ws.graph.chunks[i].id for i in order[:5]]
    np.testing.assert_allclose([c.score for c in res.ranked_chunks], sims[order[:5]], atol=1e-5)
    assert res.reranker == "none (this method does not rerank)"
    assert [s.stage for s in res.trace.steps] == ["vector_search", "answer"]


def test_rerank_reranks_the_top_candidates(demo_ws, hashing):
    rr = MLPReranker(dim=32)
    b = Backends(hashing, NoLLM(), rr)
    res = rerank.run(Q, demo_ws, config=rerank.RerankConfig(candidates=8, top_k=4), backends=b)
    order, _ = _brute_force_order(demo_ws, hashing, Q)
    cands = [demo_ws.graph.chunks[i] for i in order[:8]]
    scores = rr.head(rr.features(Q, [c.passage for c in cands]))
    expected = [cands[i].id for i in np.argsort(-scores, kind="stable")[:4]]
    assert [c.chunk_id for c in res.ranked_chunks] == expected
    assert res.reranker == "mlp (mlp-test)" and res.reranker_description == rr.description
    assert res.details["candidates"] == 8 and set(res.details["vector_rank"]) == set(expected)
    step = res.trace.stage("rerank")[0]
    assert step.data["linear_head"] is False and len(step.data["ranking"]) == 8


def test_rerank_defaults_follow_the_paper():
    assert (rerank.RerankConfig().candidates, rerank.RerankConfig().top_k) == (100, 10)


def test_rerank_without_reranker_uses_the_stand_in_visibly(demo_ws, hashing):
    res = get_method("rerank").run(Q, demo_ws, backends=Backends(hashing, NoLLM(), None))
    assert res.reranker.startswith("biencoder (")
    assert res.trace.steps[0].fallback.startswith("no reranker configured; using the bi-encoder stand-in")


def test_bad_inputs(demo_ws, backends):
    with pytest.raises(QueryError, match=r"^The question is empty"):
        dense.run("", demo_ws, backends=backends)
    with pytest.raises(ConfigError, match=r"^RerankConfig\.candidates = 0 is out of range; use an integer >= 1\.$"):
        rerank.RerankConfig(candidates=0)
    with pytest.raises(ConfigError, match=r"^dense takes a DenseConfig, got RerankConfig\.$"):
        dense.run(Q, demo_ws, config=rerank.RerankConfig(), backends=backends)  # type: ignore[arg-type]
