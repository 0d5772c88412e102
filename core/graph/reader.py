"""What a method's per-question stages read of a graph, whichever store holds it.

A stage takes a :data:`GraphLike`: the whole :class:`~core.graph.model.KnowledgeGraph` of an
in-memory workspace, or the :class:`~core.graph.view.StoreGraphView` of a graph-store workspace. Both
answer the same per-item API (``n_nodes``, ``node_names[v]``, ``edge_head[e]``, ``edge_text(e)``,
``node_chunks[v]``, ``chunk(id)``, ``chunks[r]``, ``chunk_index``, ``incident_edges``,
``induced_edges``, ``neighbor_lists``). What the two implement differently — a hop region, a batch name
lookup, a chunk's provenance, reading ahead — is a function here, dispatched on the graph's type
(:func:`functools.singledispatch`), so the choice of store is made outside the algorithm body, as
networkx dispatches its backends. A method never asks which store it runs on:

========================  ==========================================================================
function                  what a stage gets
========================  ==========================================================================
:func:`question_graph`    the graph a question reads: the workspace's graph, or a fresh store view
:func:`reach`             the nodes within ``hops`` of some seeds (capped), without copying in memory
:func:`read_region`       the same region as a graph of its own (what whole-graph code runs on)
:func:`nodes_named`       normalized name → node ids, for many names in one lookup
:func:`chunk_provenance`  the nodes and edges a chunk was extracted into
:func:`read_ahead`        what a stage is about to read item by item, read in batches (a no-op in memory)
:func:`whole_graph`       the whole graph when it is in this process (for whole-graph work), else None
:func:`store_url`         where the graph lives, for the trace
========================  ==========================================================================

The store implementations stand side by side in the package :mod:`core.graph.stores` (its
:data:`~core.graph.stores.STORES` maps a URL scheme to one); adding one means a :class:`~core.graph.stores.store.GraphStore`, which
:class:`~core.graph.view.StoreGraphView` then serves to every method unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import singledispatch
from typing import Any

import numpy as np

from core.graph.model import KnowledgeGraph
from core.graph.stores.store import MEMORY_URL, MemoryStore, Region, expand_layers, hop_of, name_index
from core.graph.view import StoreGraphView

#: What the per-question stages of a method accept as "the graph": the whole graph in memory, or a
#: read-through view of a graph store.
GraphLike = KnowledgeGraph | StoreGraphView


def question_graph(workspace: Any) -> GraphLike:
    """The graph one question reads: the in-memory workspace's graph (loaded once per process), or a new
    read-through view of its graph store (dropped with the question, so memory does not grow with the KG)."""
    if str(getattr(workspace, "store_url", MEMORY_URL) or MEMORY_URL) == MEMORY_URL:
        return workspace.graph
    return StoreGraphView(workspace.store)


def whole_graph_read(workspace: Any) -> str:
    """Where a method that needs the whole graph reads it from when the workspace keeps it in a graph
    store (the store's URL: the graph is read from there once per process); "" for an in-memory workspace."""
    url = str(getattr(workspace, "store_url", MEMORY_URL) or MEMORY_URL)
    return "" if url == MEMORY_URL else url


# ---------------------------------------------------------------------------------- facts
@singledispatch
def whole_graph(graph: Any) -> KnowledgeGraph | None:
    """The whole graph when it is in this process (its CSR arrays and whole-graph indexes at hand), else
    None (a graph store's view never loads it): what whole-graph work (a PPR over every node, a BFS over
    the whole CSR) asks before it runs, taking a region otherwise."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@whole_graph.register
def _(graph: KnowledgeGraph) -> KnowledgeGraph | None:
    return graph


@whole_graph.register
def _(graph: StoreGraphView) -> KnowledgeGraph | None:
    return None


@singledispatch
def store_url(graph: Any) -> str:
    """``memory:`` for a graph in this process, else its store's URL (never with a password)."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@store_url.register
def _(graph: KnowledgeGraph) -> str:
    return MEMORY_URL


@store_url.register
def _(graph: StoreGraphView) -> str:
    return graph.store.url


# ---------------------------------------------------------------------------------- lookups
@singledispatch
def nodes_named(graph: Any, keys: Sequence[str]) -> dict[str, list[int]]:
    """``normalized name → node ids`` (ascending) for each of ``keys`` (already normalized) that names a
    node; one batch lookup on a store."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@nodes_named.register
def _(graph: KnowledgeGraph, keys: Sequence[str]) -> dict[str, list[int]]:
    index = graph.derived("store_name_index", lambda: name_index(graph.node_names))  # shared with MemoryStore
    return {k: index[k] for k in dict.fromkeys(keys) if k in index}


@nodes_named.register
def _(graph: StoreGraphView, keys: Sequence[str]) -> dict[str, list[int]]:
    return graph.store.nodes_named(list(keys))


@singledispatch
def chunk_provenance(graph: Any, chunk_id: str) -> tuple[list[int], list[int]]:
    """``(nodes, edges)`` extracted from chunk ``chunk_id`` (empty lists for an unknown chunk)."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@chunk_provenance.register
def _(graph: KnowledgeGraph, chunk_id: str) -> tuple[list[int], list[int]]:
    nodes, edges = graph.chunk_provenance().get(chunk_id, ([], []))
    return list(nodes), list(edges)


@chunk_provenance.register
def _(graph: StoreGraphView, chunk_id: str) -> tuple[list[int], list[int]]:
    return graph.store.chunk_provenance(chunk_id)


# ---------------------------------------------------------------------------------- reading ahead
@singledispatch
def read_ahead(graph: Any, *, names: Iterable[int] = (), edges: Iterable[int] = (), chunk_ids: Iterable[str] = (),
               chunk_rows: Iterable[int] = (), chunk_index: Iterable[str] = (), provenance_edges: Iterable[int] = (),
               provenance_nodes: Iterable[int] = ()) -> None:
    """Tell ``graph`` what a stage is about to read item by item: on a store's view, node names, edge rows
    (with their endpoints' names), chunks (by id or row), the row numbers of chunk ids (``chunk_index``) and
    the provenance of edges and nodes (with the row numbers of the chunks it cites) are read in one batch
    each; a graph in memory has them all, so nothing happens.
    Results never depend on it, only the number of store reads."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@read_ahead.register
def _(graph: KnowledgeGraph, **_: Any) -> None:
    return None


@read_ahead.register
def _(graph: StoreGraphView, *, names: Iterable[int] = (), edges: Iterable[int] = (), chunk_ids: Iterable[str] = (),
      chunk_rows: Iterable[int] = (), chunk_index: Iterable[str] = (), provenance_edges: Iterable[int] = (),
      provenance_nodes: Iterable[int] = ()) -> None:
    graph.prefetch_names(names)
    graph.chunk_index.prefetch(chunk_index)
    graph.prefetch_edges(edges)
    chunk_ids = list(chunk_ids)
    provenance_edges, provenance_nodes = list(provenance_edges), list(provenance_nodes)
    if provenance_edges or provenance_nodes:
        graph.prefetch_provenance(provenance_edges, provenance_nodes, chunk_ids)
    graph.prefetch_chunks(chunk_ids, chunk_rows)


# ---------------------------------------------------------------------------------- regions
@dataclass(frozen=True)
class Reach:
    """The nodes within ``hops`` of some seeds, and the graph they are numbered in.

    In memory :attr:`graph` is the whole graph (nothing is copied; ids are global); from a store it is
    the region read (ids are local, :attr:`node_ids` / :attr:`edge_ids` give the global ones). Code
    that walks :attr:`graph` and maps its results with :meth:`global_nodes` / :meth:`global_edges`
    returns the same on either.
    """

    graph: KnowledgeGraph
    nodes: np.ndarray  #: the reached nodes in :attr:`graph`'s ids, sorted (None-walk: empty)
    hop: np.ndarray  #: hop distance of each of :attr:`nodes` from the nearest seed
    hops: int  #: hops actually walked
    capped: bool  #: True when a further hop would have passed ``max_nodes``
    hops_requested: int
    max_nodes: int
    node_ids: np.ndarray | None = None  #: global id of each node of :attr:`graph` (None: ids are global)
    edge_ids: np.ndarray | None = None  #: global id of each edge of :attr:`graph` (None: ids are global)
    read: dict[str, Any] = field(default_factory=dict)  #: {"store": url, "store_seconds": s} when read from a store

    def global_nodes(self, local: np.ndarray) -> np.ndarray:
        return np.asarray(local, dtype=np.int64) if self.node_ids is None else self.node_ids[local]

    def global_edges(self, local: np.ndarray) -> np.ndarray:
        return np.asarray(local, dtype=np.int64) if self.edge_ids is None else self.edge_ids[local]

    def global_edge(self, e: int) -> int:
        return int(e) if self.edge_ids is None else int(self.edge_ids[e])

    def local_nodes(self, global_nodes: Iterable[int]) -> np.ndarray:
        """:attr:`graph`'s ids of global nodes (each must be in it)."""
        g = np.asarray(list(global_nodes), dtype=np.int64)
        if self.node_ids is None:
            return g
        pos = np.searchsorted(self.node_ids, g)
        if g.size and (pos.max() >= self.node_ids.size or not np.array_equal(self.node_ids[pos], g)):
            raise KeyError("a node is not in the region")
        return pos

    def region_data(self, of_nodes: int) -> dict[str, Any]:
        """What a trace says of a region read from a store (its size, hops, cap, read time; ``of_nodes``: the
        whole graph's node count); {} in memory, where nothing was read."""
        if self.node_ids is None or self.edge_ids is None:
            return {}
        return {"store": self.read.get("store", ""), "region_hops": self.hops, "hops_requested": self.hops_requested,
                "capped": self.capped, "region_nodes": int(self.node_ids.size), "region_edges": int(self.edge_ids.size),
                "region_max_nodes": self.max_nodes, "of_nodes": of_nodes,
                "store_seconds": self.read.get("store_seconds", 0.0)}

    def node_rows(self, vectors: np.ndarray) -> np.ndarray:
        """The rows of a per-node array (e.g. the node FAISS vectors) for :attr:`graph`'s nodes."""
        return vectors if self.node_ids is None else vectors[self.node_ids]

    def edge_rows(self, vectors: np.ndarray) -> np.ndarray:
        """The rows of a per-edge array for :attr:`graph`'s edges."""
        return vectors if self.edge_ids is None else vectors[self.edge_ids]


@singledispatch
def reach(graph: Any, seeds: Iterable[int], *, hops: int, max_nodes: int, walk: bool = True) -> Reach:
    """The nodes within ``hops`` of ``seeds``, hop layer by hop layer, stopping before a layer that would
    take their number past ``max(max_nodes, len(seeds))`` (:func:`~core.graph.stores.store.expand_layers`, the one
    cap rule of every store). In memory nothing is copied; a store reads the region (one query per layer).

    ``walk=False``: the caller walks the graph itself and wants only a graph holding the region — the
    whole graph in memory (nothing walked or read: :attr:`Reach.nodes` empty, ``hops`` as asked, not
    capped), the region read from a store."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@reach.register
def _(graph: KnowledgeGraph, seeds: Iterable[int], *, hops: int, max_nodes: int, walk: bool = True) -> Reach:
    term = np.unique(np.asarray(list(seeds), dtype=np.int64))
    if not walk:
        return Reach(graph, np.zeros(0, np.int64), np.zeros(0, np.int32), hops, False, hops, max_nodes)
    layers, capped = expand_layers(graph.bfs_layers(term, max_hops=hops), max(max_nodes, int(term.size)))
    nodes = np.sort(np.concatenate(layers)) if layers else np.zeros(0, np.int64)
    return Reach(graph, nodes, hop_of(nodes, layers), len(layers) - 1 if layers else 0, capped, hops, max_nodes)


@reach.register
def _(graph: StoreGraphView, seeds: Iterable[int], *, hops: int, max_nodes: int, walk: bool = True) -> Reach:
    term = np.unique(np.asarray(list(seeds), dtype=np.int64))
    t0 = time.perf_counter()
    region = graph.store.region(term, hops=hops, max_nodes=max(max_nodes, int(term.size)))
    graph.absorb(region)
    read = {"store": graph.store.url, "store_seconds": round(time.perf_counter() - t0, 4)}
    return Reach(region.graph, np.arange(region.nodes.size, dtype=np.int64), region.hop, region.hops, region.capped,
                 hops, max_nodes, region.nodes, region.edges, read)


@singledispatch
def read_region(graph: Any, seeds: Iterable[int], *, hops: int, max_nodes: int, with_chunks: bool = False) -> Region:
    """The region of :func:`reach` as a graph of its own (:class:`~core.graph.stores.store.Region`: local ids,
    the global ones beside), with the chunks its nodes and edges cite when ``with_chunks``: what code
    written for a whole graph (a PPR, an entity graph) runs on when it is to see only a region."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@read_region.register
def _(graph: KnowledgeGraph, seeds: Iterable[int], *, hops: int, max_nodes: int,
      with_chunks: bool = False) -> Region:
    return MemoryStore(graph).region(seeds, hops=hops, max_nodes=max_nodes, with_chunks=with_chunks)


@read_region.register
def _(graph: StoreGraphView, seeds: Iterable[int], *, hops: int, max_nodes: int, with_chunks: bool = False) -> Region:
    region = graph.store.region(seeds, hops=hops, max_nodes=max_nodes, with_chunks=with_chunks)
    graph.absorb(region)
    return region
