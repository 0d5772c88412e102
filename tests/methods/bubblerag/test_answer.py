"""§3.6 chunk ranking: the paper's context (G_final's chunks only, the default) and our interleaved
"+dense fill" option, checked against a hand-worked case."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from core.errors import ConfigError
from core.graph.graph_builder import GraphBuilder
from core.methods.bubblerag.answer import EvidenceGraph, rank_evidence_chunks


@pytest.fixture
def graph_and_vectors():
    """Five chunks; c0 and c1 are cited by the evidence (c0 twice), c2..c4 only pre-retrieved.
    Query cosine: c3 0.9 > c1 0.8 > c4 0.7 > c2 0.5 > c0 0.1."""
    b = GraphBuilder(name="chunks")
    ids = [b.add_chunk(f"t{i}", f"text {i}", chunk_id=f"c{i}") for i in range(5)]
    b.add_triple("a", "r", "b", chunk_id=ids[0])
    b.add_triple("b", "r", "c", chunk_id=ids[0])
    b.add_triple("c", "r", "d", chunk_id=ids[1])
    g = b.build()
    sims = [0.1, 0.8, 0.5, 0.9, 0.7]
    vecs = np.array([[s, np.sqrt(1 - s * s)] for s in sims], dtype=np.float32)
    order = [g.chunk_index[f"c{i}"] for i in range(5)]
    cv = np.zeros_like(vecs)
    cv[order] = vecs
    ev = EvidenceGraph(nodes=(), edges=tuple(range(g.n_edges)), node_rank={}, edge_rank=dict.fromkeys(range(g.n_edges), 1))
    return g, cv, np.array([1.0, 0.0], dtype=np.float32), ev


def test_interleave_alternates_support_and_query_similarity(graph_and_vectors):
    g, cv, q, ev = graph_and_vectors
    out = rank_evidence_chunks(ev, g, cv, q, ["c2", "c3", "c4"], max_chunks=15, ranking="interleave")
    # support: c0 (2 edges) > c1; cosine over {c0, c1} ∪ preview: c3, c1, c4, c2, c0
    assert [c.chunk_id for c in out] == ["c0", "c3", "c1", "c4", "c2"]
    assert [c.source for c in out] == ["evidence", "preview", "evidence", "preview", "preview"]
    assert all(a.score > b.score for a, b in itertools.pairwise(out))
    assert [c.chunk_id for c in rank_evidence_chunks(ev, g, cv, q, ["c2", "c3", "c4"], max_chunks=3,
                                                      ranking="interleave")] == ["c0", "c3", "c1"]


def test_default_is_the_papers_context_only_chunks_linked_to_g_final(graph_and_vectors):
    """§3.6: the context is G_final's triples plus the chunks linked to G_final — no pre-retrieved chunk,
    however similar to the query (c3 has cosine 0.9, the evidence chunk c0 only 0.1)."""
    g, cv, q, ev = graph_and_vectors
    out = rank_evidence_chunks(ev, g, cv, q, ["c2", "c3", "c4"])
    assert [c.chunk_id for c in out] == ["c0", "c1"]
    assert {c.source for c in out} == {"evidence"}
    empty = EvidenceGraph(nodes=(), edges=(), node_rank={}, edge_rank={})
    assert rank_evidence_chunks(empty, g, cv, q, ["c2", "c3"]) == ()


def test_support_order_fills_with_preview(graph_and_vectors):
    g, cv, q, ev = graph_and_vectors
    out = rank_evidence_chunks(ev, g, cv, q, ["c2", "c3", "c4"], ranking="support", fill_with_preview=True)
    assert [c.chunk_id for c in out] == ["c0", "c1", "c2", "c3", "c4"]
    assert [c.chunk_id for c in rank_evidence_chunks(ev, g, cv, q, ["c2"], ranking="support",
                                                      fill_with_preview=False)] == ["c0", "c1"]
    with pytest.raises(ConfigError, match="chunk_ranking = 'cosine' is not valid"):
        rank_evidence_chunks(ev, g, cv, q, [], ranking="cosine")
