"""``fastinsight.run``: the method contract on a KG workspace and on a corpus graph."""

from __future__ import annotations

import re

import numpy as np
import pytest

from core.backends.llm import NoLLM
from core.backends.registry import get_reranker
from core.errors import ConfigError, QueryError
from core.methods.base import Backends, MethodResult
from core.methods.fastinsight import FastInsightConfig, passage_graph, run
from core.methods.registry import get_method
from core.trace import Trace

MATRIX_Q = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"


def test_contract_trace_and_reranker_on_a_kg_passage_graph(demo_ws, backends):
    """``graph="passages"``: the derived passage graph (the default, KG nodes, is in test_node_graph.py)."""
    res = run(MATRIX_Q, demo_ws, config=FastInsightConfig(graph="passages"), backends=backends)
    assert isinstance(res, MethodResult) and res.method == "fastinsight" and res.query == MATRIX_Q
    assert len(res.ranked_chunks) == 10 and len(res.retrieved) == demo_ws.graph.n_chunks  # 23 passages < b_max
    assert [c.chunk_id for c in res.ranked_chunks] == list(res.retrieved[:10])
    scores = [c.score for c in res.ranked_chunks]
    assert scores == sorted(scores, reverse=True) and np.isfinite(scores).all()
    assert res.reranker == f"biencoder ({backends.reranker.model_id})"
    assert res.trace.backends["reranker"] == res.reranker
    stages = [s.stage for s in res.trace.steps]
    assert stages[:4] == ["passage_graph", "reranker", "vector_search", "granker"]
    assert stages.count("granker") == len(res.engine.rounds) == stages.count("stex") + 1
    assert stages[-2:] == ["retrieved", "answer"]
    pg_step = res.trace.stage("passage_graph")[0]
    assert pg_step.data["source"] == "shared_entity" and pg_step.data["params"]["max_entity_passages"] == 20
    ans = res.trace.stage("answer")[0]
    assert ans.data["mode"] == "extractive" and "no LLM generation" in ans.data["how"]
    assert ans.fallback == "no LLM configured (backend 'none'): extractive answer"
    # the extractive answer is a sentence of one of the top 3 passages (core.methods.extractive)
    quoted = re.sub(r" \[[^\]]*\]", "", res.answer)  # a pronoun's bracket ("He [Hugo Weaving] is") is no quote
    assert res.answer and any(quoted in demo_ws.graph.chunk(c.chunk_id).text for c in res.ranked_chunks[:3])
    assert Trace.from_dict(res.trace.to_dict()).steps[3].data == res.trace.steps[3].data  # JSON round trip


def test_contract_on_kg_nodes(demo_ws, backends):
    res = run(MATRIX_Q, demo_ws, backends=backends)
    assert isinstance(res, MethodResult) and res.searched == "kg_nodes"
    assert len(res.ranked_chunks) == 10 and len(res.retrieved) == demo_ws.graph.n_chunks  # 87 nodes reach all 23
    assert [c.chunk_id for c in res.ranked_chunks] == list(res.retrieved[:10])
    scores = [c.score for c in res.ranked_chunks]
    assert scores == sorted(scores, reverse=True) and np.isfinite(scores).all()
    stages = [s.stage for s in res.trace.steps]
    assert stages.count("granker") == len(res.engine.rounds) == stages.count("stex") + 1
    quoted = re.sub(r" \[[^\]]*\]", "", res.answer)  # a pronoun's bracket ("He [Hugo Weaving] is") is no quote
    assert res.answer and any(quoted in demo_ws.graph.chunk(c.chunk_id).text for c in res.ranked_chunks[:3])
    assert Trace.from_dict(res.trace.to_dict()).steps[-3].data == res.trace.steps[-3].data  # node_passages, JSON


def test_registry_runs_it(demo_ws, backends):
    res = get_method("fastinsight").run(MATRIX_Q, demo_ws, backends=backends)
    assert res.method == "fastinsight"


def test_corpus_graph_workspace(corpus_ws, backends):
    res = run("Which prompting strategy does agentic RAG use?", corpus_ws,
              config=FastInsightConfig(batch=2, b_max=6, top_k=5), backends=backends)
    assert passage_graph(corpus_ws.graph).source == "corpus_graph"
    assert [r.size for r in res.engine.rounds] == [2, 4, 6]
    assert len(res.ranked_chunks) == 5 and len(res.retrieved) == 6
    assert res.trace.stage("passage_graph")[0].data["source"] == "corpus_graph"


def test_results_are_reproducible(demo_ws, backends):
    a = run(MATRIX_Q, demo_ws, backends=backends)
    b = run(MATRIX_Q, demo_ws, backends=backends)
    assert a.ranked_chunks == b.ranked_chunks and a.retrieved == b.retrieved


def test_index_features_equal_reranker_features(demo_ws, backends):
    """The bi-encoder's features read from the chunk index give the same ranking as embedding again."""
    from core.methods.fastinsight.granker import granker
    from core.methods.reranking import FeatureCache, index_feature_source

    pg = passage_graph(demo_ws.graph)
    vecs = demo_ws.index("chunks").vectors
    src = index_feature_source(backends.reranker, backends.embedder.model_id, vecs, MATRIX_Q)
    assert src is not None
    nodes = np.arange(pg.n)
    a = granker(MATRIX_Q, nodes, pg, backends.reranker, features=FeatureCache(backends.reranker, MATRIX_Q, pg.passages,
                                                                               precomputed=src))
    b = granker(MATRIX_Q, nodes, pg, backends.reranker)
    np.testing.assert_allclose(a.scores, b.scores, atol=1e-5)
    assert index_feature_source(backends.reranker, "another-model", vecs, MATRIX_Q) is None


def test_cross_encoder_is_a_one_setting_switch(demo_ws, hashing, tiny_bert_dir):
    rr = get_reranker(f"cross-encoder:{tiny_bert_dir}", device="cpu")
    res = run(MATRIX_Q, demo_ws, config=FastInsightConfig(b_max=20), backends=Backends(hashing, NoLLM(), rr))
    assert res.reranker == f"cross-encoder:{tiny_bert_dir} (cross-encoder:{tiny_bert_dir})"
    assert "Cross-encoder" in res.reranker_description
    assert res.engine.encoded == 20 and res.trace.stage("reranker")[0].data["features_from_index"] is False


def test_config_defaults_and_help():
    cfg = FastInsightConfig()
    assert (cfg.graph, cfg.batch, cfg.b_max, cfg.alpha, cfg.beta) == ("kg_nodes", 10, 100, 0.2, 1.0)
    helps = FastInsightConfig.help()
    assert set(helps) >= {"graph", "batch", "b_max", "alpha", "beta"} and all(helps.values())


@pytest.mark.parametrize(("kw", "msg"), [
    ({"alpha": 2.0}, r"^FastInsightConfig\.alpha = 2\.0 is out of range; use a number in \[0, 1\]\.$"),
    ({"b_max": 0}, r"^FastInsightConfig\.b_max = 0 is out of range; use an integer >= 1\.$"),
    ({"on_exhausted": "x"}, r"^FastInsightConfig\.on_exhausted = 'x' is out of range; use 'vector' or 'stop'\.$"),
    ({"graph": "chunks"}, r"^FastInsightConfig\.graph = 'chunks' is out of range; use 'kg_nodes' or 'passages'\.$"),
])
def test_bad_config_has_pinned_messages(kw, msg):
    with pytest.raises(ConfigError, match=msg):
        FastInsightConfig(**kw)


def test_bad_query_and_config_type(demo_ws, backends):
    with pytest.raises(QueryError, match=r"^The question is empty\. Type a question to retrieve passages for\.$"):
        run("   ", demo_ws, backends=backends)
    with pytest.raises(ConfigError, match=r"^fastinsight takes a FastInsightConfig, got dict\.$"):
        run("q", demo_ws, config={"alpha": 0.1}, backends=backends)  # type: ignore[arg-type]
