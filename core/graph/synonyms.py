"""HippoRAG's synonymy edges as part of a workspace's graph (HippoRAG §3.1).

HippoRAG adds an edge between two entity phrases whose retrieval-encoder embeddings have cosine
at least 0.8, so aliases that OpenIE (or spaCy) spelled differently ("Frederick Barbarossa",
"Frederick I") meet. The ``ppr`` method builds these edges on the fly for its own walk; a workspace
built with ``synonym_threshold`` stores them as ordinary edges with the relation
:data:`SYNONYM_RELATION`, so every method that walks the graph (BubbleRAG's localized graph and
expansion, ReG's chains, SG-RAG's paths) can use them and a trace shows them by their relation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from core.graph.graph_builder import GraphBuilder
from core.graph.model import KnowledgeGraph

if TYPE_CHECKING:
    from core.graph.builder import Progress
    from core.graph.reader import GraphLike

#: Relation of a stored synonymy edge (no source passage: it comes from embeddings, not text).
SYNONYM_RELATION = "synonym of"


def synonym_pairs(node_vectors: np.ndarray, threshold: float, *, progress: Progress | None = None,
                  block: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(i, j)``, ``i < j``, whose vectors have inner product >= ``threshold``, with the
    similarities (HippoRAG's synonymy edges). Exact, via a FAISS range search, ``block`` query rows at a
    time (memory stays bounded by the pairs found, and ``progress(message, fraction)`` hears of each block)."""
    import faiss

    v = np.ascontiguousarray(node_vectors, dtype=np.float32)
    n = v.shape[0]
    if n < 2:
        return np.zeros((0, 2), np.int64), np.zeros(0, np.float64)
    index = faiss.IndexFlatIP(v.shape[1])
    index.add(v)
    pairs, sims = [], []
    for start in range(0, n, block):
        lims, dist, ids = index.range_search(v[start:start + block], float(threshold))
        counts = np.diff(np.asarray(lims).astype(np.int64)).astype(np.int64)
        rows = np.repeat(np.arange(start, start + counts.size), counts)
        keep = rows < ids
        pairs.append(np.stack([rows[keep], ids[keep].astype(np.int64)], axis=1))
        sims.append(dist[keep].astype(np.float64))
        if progress is not None:
            done = min(n, start + block)
            progress(f"synonymy edges: {done:,} of {n:,} entities compared", done / n)
    return np.concatenate(pairs), np.concatenate(sims)


def add_synonym_edges(graph: KnowledgeGraph, node_vectors: np.ndarray, threshold: float) -> tuple[KnowledgeGraph, int]:
    """``graph`` plus one :data:`SYNONYM_RELATION` edge per node pair with cosine >= ``threshold``.

    Parameters
    ----------
    graph : KnowledgeGraph
    node_vectors : ndarray, shape (n_nodes, dim)
        L2-normalized embeddings of the node texts (what the workspace's node index holds).
    threshold : float
        Cosine in [-1, 1]; HippoRAG uses 0.8.

    Returns
    -------
    (KnowledgeGraph, int)
        The new graph (same nodes, chunks and ids; the extra edges have no source chunk) and the
        number of synonymy edges added (pairs already joined by a relation get one too).

    Raises
    ------
    ValueError
        When the vectors do not match the nodes or the threshold is not a cosine.
    """
    if node_vectors.shape[0] != graph.n_nodes:
        raise ValueError(f"{node_vectors.shape[0]} node vectors for {graph.n_nodes} nodes")
    if not -1.0 <= threshold <= 1.0:
        raise ValueError(f"synonym threshold must be a cosine in [-1, 1], got {threshold}")
    pairs, _ = synonym_pairs(node_vectors, threshold)
    b = GraphBuilder.of(graph)
    for i, j in pairs.tolist():
        b.add_edge(graph.node_ids[i], SYNONYM_RELATION, graph.node_ids[j])
    return b.build(), int(pairs.shape[0])


def synonym_edges_walked(graph: GraphLike, edges: Sequence[int], *,
                         stored: bool | None = None) -> dict[str, object] | None:
    """What a trace step says about the stored synonymy edges among ``edges`` (the edges a method's
    evidence used): ``{"walked": n, "edges": [...]}``, or ``None`` when the graph stores none and
    none was walked (so a workspace without synonym edges shows no such step). The step is there so a reader
    sees where an alias, not a relation, joined two entities.

    ``graph`` may be a region of a graph store (never read whole): ``stored`` then says whether the whole
    graph stores synonym edges (the workspace manifest knows), instead of scanning ``graph``.
    """
    walked = [int(e) for e in edges if graph.edge_relation[int(e)] == SYNONYM_RELATION]
    if stored is None:
        if not isinstance(graph, KnowledgeGraph):
            raise TypeError("synonym_edges_walked on a store view needs stored= (the workspace manifest knows)")
        g = graph
        stored = SYNONYM_RELATION in g.derived("relations", lambda: frozenset(g.edge_relation))
    if walked or stored:
        return {"walked": len(walked), "edges": [graph.edge_text(e) for e in walked[:20]]}
    return None
