"""§3.3 Phase 1 "Localized Graph Construction" (Algorithm 1, lines 1-5).

"Starting from the anchor nodes in each semantic group S_i, we collect their h-hop neighborhoods
... and take the union of these subgraphs to form G'." Edge anchors contribute their endpoints.
G' is the induced subgraph on that node union, held as local CSR arrays, together with every local
node's semantic cost ``cost(v) = 1 − cos(z_q, z_v)`` (Eq. 4) used by the expansion.

On the MuSiQue OpenIE KG a single node's 6-hop neighbourhood has a median of 278 nodes but a p90
of 4,386; with many anchors G' can approach the giant component. ``max_nodes`` caps |V'|: when
the union at hop j would exceed it, G' stops at hop j−1 and the result says so.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from core.graph.model import KnowledgeGraph, csr_ranges
from core.graph.store import GraphStore
from core.graph.view import StoreGraphView
from core.replay import pin
from core.trace import Trace


@dataclass(frozen=True)
class LocalGraph:
    """G' = (V', E'): local node ``i`` is global node ``nodes[i]``."""

    nodes: np.ndarray  #: global node ids, sorted
    hop: np.ndarray  #: hop distance of each local node from the nearest terminal
    indptr: np.ndarray  #: local CSR (undirected)
    nbr: np.ndarray  #: local neighbour indices
    eid: np.ndarray  #: global edge id of each CSR entry
    cost: np.ndarray  #: cost(v) = 1 − cos(z_q, z_v) per local node (Eq. 4)
    h: int  #: hops actually used
    h_requested: int
    capped: bool
    _local: dict[int, int] = field(default_factory=dict, repr=False)

    @property
    def n_nodes(self) -> int:
        return int(self.nodes.size)

    @property
    def n_edges(self) -> int:
        return int(np.unique(self.eid).size)

    def local(self, v: int) -> int:
        if not self._local:
            self._local.update({int(g): i for i, g in enumerate(self.nodes.tolist())})
        return self._local[int(v)]

    def edge_ids(self) -> np.ndarray:
        return np.unique(self.eid)


def _expand_hops(graph: KnowledgeGraph, terminals: np.ndarray, h: int,
                 cap: int) -> tuple[np.ndarray, list[np.ndarray], int, bool]:
    """Hop layers from the terminals (:meth:`KnowledgeGraph.bfs_layers`, which touches only the
    visited region, so the cost of building G' does not grow with the size of the whole graph, §3.3
    complexity analysis), stopping before a layer that would take ``|V'|`` past ``cap``."""
    layers: list[np.ndarray] = []
    size = 0
    capped = False
    for layer in graph.bfs_layers(terminals, max_hops=h):
        if layers and size + layer.size > cap:
            capped = True
            break
        layers.append(layer)
        size += layer.size
    if not layers:
        layers = [terminals]
    return np.sort(np.concatenate(layers)), layers, len(layers) - 1, capped


def localized_graph(graph: KnowledgeGraph, terminals: Iterable[int], node_vectors: np.ndarray, qvec: np.ndarray, *,
                    h: int = 6, max_nodes: int = 50_000, trace: Trace | None = None,
                    global_ids: np.ndarray | None = None) -> LocalGraph:
    """Union of the terminals' ``h``-hop neighbourhoods as local CSR arrays with node costs.

    Parameters
    ----------
    terminals
        Global ids of all anchor nodes (edge anchors already replaced by their endpoints).
    node_vectors
        Unit embeddings of all graph nodes (``workspace.index("nodes").vectors``).
    qvec
        Unit query embedding ``z_q``.
    global_ids
        The global id of each node of ``graph`` when it is a store's region (what the pinned
        cosines are keyed by); None: ``graph`` is the whole graph.
    """
    t0 = time.perf_counter()
    term = np.unique(np.asarray(list(terminals), dtype=np.int64))
    nodes, layers, h_used, capped = _expand_hops(graph, term, h, max(max_nodes, int(term.size)))
    hop_of = np.empty(nodes.size, dtype=np.int32)
    for j, layer in enumerate(layers):
        hop_of[np.searchsorted(nodes, layer)] = j
    indptr_g, nbr_g, eid_g = graph.csr.indptr, graph.csr.nbr, graph.csr.eid
    offs = csr_ranges(indptr_g, nodes) if nodes.size else np.zeros(0, np.int64)
    lens = indptr_g[nodes + 1] - indptr_g[nodes]
    src = np.repeat(np.arange(nodes.size), lens)
    targets = nbr_g[offs].astype(np.int64)
    pos = np.searchsorted(nodes, targets)
    pos_c = np.minimum(pos, max(nodes.size - 1, 0))
    keep = nodes[pos_c] == targets if nodes.size else np.zeros(0, bool)
    src, dst, eid = src[keep], pos_c[keep], eid_g[offs][keep]
    counts = np.bincount(src, minlength=nodes.size)
    indptr = np.zeros(nodes.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    cos = node_vectors[nodes] @ np.asarray(qvec, dtype=np.float32).reshape(-1) if nodes.size else np.zeros(0)
    cos = pin("bubblerag.localize.cosine", cos, ids=nodes if global_ids is None else global_ids[nodes])
    cost = np.clip(1.0 - cos.astype(np.float64), 0.0, 2.0)
    lg = LocalGraph(nodes, hop_of, indptr, dst.astype(np.int64), eid.astype(np.int64), cost, h_used, h, capped)
    if trace is not None:
        step = trace.add("localize", "Localized graph G' (h-hop union)", {
            "terminals": int(term.size), "nodes": lg.n_nodes, "edges": lg.n_edges, "h": h_used, "h_requested": h,
            "capped": capped, "max_nodes": max_nodes,
            "hop_histogram": np.bincount(lg.hop, minlength=h_used + 1).tolist() if lg.n_nodes else [],
        }, section="BubbleRAG §3.3 Phase 1")
        if capped:
            step.fallback = f"|V'| would exceed {max_nodes} nodes at hop {h_used + 1}; G' stops at h={h_used}"
        step.seconds = time.perf_counter() - t0
    return lg


def localized_graph_from_store(store: GraphStore, terminals: Iterable[int], node_vectors: np.ndarray,
                               qvec: np.ndarray, *, h: int = 6, max_nodes: int = 50_000,
                               trace: Trace | None = None, view: StoreGraphView | None = None) -> LocalGraph:
    """:func:`localized_graph` for a graph kept in a :class:`~core.graph.store.GraphStore` (issue 19):
    the store answers the capped ``h``-hop region of the terminals (one query per hop layer), and
    G' is built on that region and mapped back to global ids — the same G' (nodes, hops, CSR order,
    edge ids, costs) as :func:`localized_graph` on the whole graph, without the whole graph.
    ``view``: the question's :class:`~core.graph.view.StoreGraphView`, which keeps what the region read."""
    t0 = time.perf_counter()
    term = np.unique(np.asarray(list(terminals), dtype=np.int64))
    region = store.region(term, hops=h, max_nodes=max(max_nodes, int(term.size)))
    if view is not None:
        view.absorb(region)
    t_region = time.perf_counter() - t0
    lg = localized_graph(region.graph, region.local_nodes(term), node_vectors[region.nodes], qvec, h=h,
                         max_nodes=max_nodes, global_ids=region.nodes)
    out = LocalGraph(region.nodes[lg.nodes], lg.hop, lg.indptr, lg.nbr, region.edges[lg.eid], lg.cost, region.hops, h,
                     region.capped)
    if trace is not None:
        step = trace.add("localize", "Localized graph G' (h-hop union)", {
            "terminals": int(term.size), "nodes": out.n_nodes, "edges": out.n_edges, "h": out.h, "h_requested": h,
            "capped": out.capped, "max_nodes": max_nodes,
            "hop_histogram": np.bincount(out.hop, minlength=out.h + 1).tolist() if out.n_nodes else [],
            "store": store.url, "store_seconds": round(t_region, 4),
        }, section="BubbleRAG §3.3 Phase 1")
        if out.capped:
            step.fallback = f"|V'| would exceed {max_nodes} nodes at hop {out.h + 1}; G' stops at h={out.h}"
        step.seconds = time.perf_counter() - t0
    return out
