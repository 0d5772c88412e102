"""Dense retrieval and Re2 on the KG node index (``node_level``, FastInsight §4.3.1 Table 3: every retriever on
the same nodes): brute-force numpy oracles over the node vectors FastInsight searches, the passages unchanged,
and the node vectors prepared once and shared with FastInsight."""

from __future__ import annotations

import numpy as np
import pytest

from core.backends.llm import NoLLM
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.baselines import DENSE, RERANK, dense, rerank
from core.methods.fastinsight import METHOD as FASTINSIGHT
from core.methods.fastinsight.node_graph import node_graph
from core.methods.fastinsight.node_vectors import node_vectors
from core.methods.kg_nodes import has_node_vectors, kg_node_vectors, node_text, node_vectors_name
from core.methods.run import pending_preparations, prepare_method
from tests.methods.fastinsight.helpers import MLPReranker

Q = "When did Lothair II's mother die?"


def _cosine(ws, emb, query: str) -> np.ndarray:
    """The question's cosine with every node text, from vectors embedded here (float64 sums)."""
    v = emb.embed(list(node_graph(ws.graph).passages)).astype(np.float64)
    return v @ np.asarray(emb.embed_queries([query])[0], dtype=np.float64)


def test_dense_on_nodes_is_a_brute_force_cosine_top_10_over_fastinsights_node_vectors(demo_ws, backends, hashing):
    res = dense.run(Q, demo_ws, config=dense.DenseConfig(node_level=True), backends=backends)
    sims = _cosine(demo_ws, hashing, Q)
    want = np.lexsort((np.arange(sims.size), -sims))[:10]  # score desc, node row asc
    got = list(res.node_ranking)
    assert len(got) == len(set(got)) == 10
    # float32 vectors against float64 sums: the same top 10 and the same scores in order (1e-6: rounding only)
    np.testing.assert_allclose(sims[got], sims[want], atol=1e-6)
    if sims[want[-1]] - np.sort(sims)[::-1][10] > 1e-6:  # no near-tie at the cut: the same nodes
        assert set(got) == set(want.tolist())
    # the vectors searched are FastInsight's, in its file
    step = res.trace.stage("node_search")[0].data
    assert step["nodes"] == got and step["names"] == [demo_ws.graph.node_names[v] for v in got]
    fi = node_vectors(demo_ws, hashing)[1].vectors
    assert np.array_equal(kg_node_vectors(demo_ws, hashing).vectors, fi)
    assert (demo_ws.index_dir / "extra" / f"{node_vectors_name(512)}.faiss").exists()
    np.testing.assert_allclose(fi.astype(np.float64) @ hashing.embed_queries([Q])[0], sims, atol=1e-5)


def test_rerank_on_nodes_reranks_the_top_candidate_nodes_like_brute_force(demo_ws, hashing):
    rr = MLPReranker(dim=32)
    b = Backends(hashing, NoLLM(), rr)
    res = rerank.run(Q, demo_ws, config=rerank.RerankConfig(candidates=20, top_k=6, node_level=True), backends=b)
    sims = _cosine(demo_ws, hashing, Q)
    cands = np.lexsort((np.arange(sims.size), -sims))[:20].tolist()
    scores = np.asarray(rr.head(rr.features(Q, [node_text(demo_ws.graph, v) for v in cands])), dtype=np.float64)
    got = list(res.node_ranking)
    assert len(got) == 6 and set(got) <= set(cands)
    at = {v: i for i, v in enumerate(cands)}
    # the reranker's scores of the kept nodes are the six best, best first (ties: either order)
    np.testing.assert_allclose([scores[at[v]] for v in got], np.sort(scores)[::-1][:6], atol=1e-9)
    step = res.trace.stage("node_rerank")[0].data
    assert step["nodes"] == got and step["reranker"] == "mlp"


def test_the_node_level_pass_leaves_the_passages_alone(demo_ws, backends):
    for m, cfg in ((dense, dense.DenseConfig), (rerank, rerank.RerankConfig)):
        off = m.run(Q, demo_ws, config=cfg(), backends=backends)
        on = m.run(Q, demo_ws, config=cfg(node_level=True), backends=backends)
        assert on.ranked_chunks == off.ranked_chunks and on.answer == off.answer
        assert off.node_ranking == () and on.node_ranking and on.node_ranking_note == ""


def test_node_vectors_are_prepared_once_for_every_method_that_ranks_nodes(tmp_path, hashing):
    ws = ensure_sample_workspace("demo", hashing, root=tmp_path)
    b = Backends(hashing, NoLLM(), None)
    on = DENSE.make_config(node_level=True)
    assert pending_preparations(DENSE, ws, b) == []  # off by default: nothing to embed
    (p,) = pending_preparations(DENSE, ws, b, on)
    (fi,) = pending_preparations(FASTINSIGHT, ws, b)
    assert p.key == fi.key  # one job in the app serves both
    assert p.title.startswith("Embedding 87 KG node texts for dense retrieval (node level)")
    assert p.estimate_s is not None and p.estimate_s > 0
    prepare_method(DENSE, ws, b, on)
    assert has_node_vectors(ws, hashing)
    assert pending_preparations(FASTINSIGHT, ws, b) == [] == pending_preparations(RERANK, ws, b,
                                                                                 RERANK.make_config(node_level=True))


@pytest.mark.parametrize("method", [dense, rerank])
def test_node_level_on_a_corpus_graph_says_why_there_is_no_node(corpus_ws, backends, method):
    cfg = method.DenseConfig(node_level=True) if method is dense else method.RerankConfig(node_level=True)
    res = method.run("Which prompting strategy does agentic RAG use?", corpus_ws, config=cfg, backends=backends)
    assert res.node_ranking == () and "corpus graph" in res.node_ranking_note
    assert "corpus graph" in res.trace.stage("node_search")[0].data["why"]
