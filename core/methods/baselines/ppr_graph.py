"""The matrices PPR walks and scores passages with (HippoRAG §3.1-§3.2): the entity graph with its synonymy
edges, and the passage × entity incidence of the whole graph or of a region of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.graph.reader import GraphLike, read_ahead
from core.graph.synonyms import synonym_pairs

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

    from core.graph.model import KnowledgeGraph


def entity_graph(graph: KnowledgeGraph, *, node_vectors: np.ndarray | None = None,
                 synonym_threshold: float | None = 0.8,
                 synonyms: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[csr_matrix, int]:
    """Symmetric weighted adjacency of the KG for PPR and the number of synonymy edges added.

    Relation edges weigh 1 per distinct linked pair (direction and parallel relations dropped:
    OpenIE directions are arbitrary); synonymy edges weigh their cosine and add to a relation
    edge between the same pair. The synonymy pairs are ``synonyms`` (pairs, cosines) when given — the
    workspace keeps the whole graph's (:mod:`~core.methods.baselines.ppr_synonyms`) — else found here
    from ``node_vectors`` at ``synonym_threshold`` (a region's few nodes).
    """
    from scipy.sparse import coo_matrix

    n = graph.n_nodes
    h, t = graph.edge_head.astype(np.int64), graph.edge_tail.astype(np.int64)
    keep = h != t
    lo, hi = np.minimum(h[keep], t[keep]), np.maximum(h[keep], t[keep])
    key = np.unique(lo * max(n, 1) + hi)
    lo, hi = key // max(n, 1), key % max(n, 1)
    w = np.ones(lo.size)
    n_syn = 0
    if synonyms is None and synonym_threshold is not None and node_vectors is not None:
        synonyms = synonym_pairs(node_vectors, synonym_threshold)
    if synonyms is not None:
        pairs, sims = synonyms
        n_syn = int(pairs.shape[0])
        lo, hi, w = np.concatenate([lo, pairs[:, 0]]), np.concatenate([hi, pairs[:, 1]]), np.concatenate([w, sims])
    m = coo_matrix((np.concatenate([w, w]), (np.concatenate([lo, hi]), np.concatenate([hi, lo]))), shape=(n, n))
    return m.tocsr(), n_syn  # duplicate (i, j) entries are summed


def passage_incidence(graph: KnowledgeGraph) -> csr_matrix:
    """``(n_chunks, n_nodes)`` 0/1 matrix: passage ``c`` contains entity ``v`` (provenance)."""
    from scipy.sparse import coo_matrix

    rows, cols = [], []
    index = graph.chunk_index
    for v, cids in enumerate(graph.node_chunks):
        for c in cids:
            if c in index:
                rows.append(index[c])
                cols.append(v)
    data = np.ones(len(rows))
    m = coo_matrix((data, (rows, cols)), shape=(graph.n_chunks, graph.n_nodes)).tocsr()
    m.data[:] = 1.0
    return m


def region_incidence(region_graph: KnowledgeGraph, graph: GraphLike) -> csr_matrix:
    """``(n_chunks, region nodes)`` 0/1 matrix of a region of ``graph``: passage row ``c`` contains region
    node ``j`` (its provenance, the chunk rows looked up in ``graph`` in one read) — the region's columns
    of :func:`passage_incidence` of the whole graph."""
    from scipy.sparse import coo_matrix

    cited = list(dict.fromkeys(c for cids in region_graph.node_chunks for c in cids))
    read_ahead(graph, chunk_index=cited)
    row_of = {c: graph.chunk_index[c] for c in cited if c in graph.chunk_index}
    rows, cols = [], []
    for j, cids in enumerate(region_graph.node_chunks):
        for c in cids:
            if c in row_of:
                rows.append(row_of[c])
                cols.append(j)
    m = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(graph.n_chunks, region_graph.n_nodes)).tocsr()
    m.data[:] = 1.0
    return m
