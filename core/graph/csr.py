"""Compressed sparse rows and the one breadth-first walk over them: the array side of a graph.

:class:`~core.graph.model.KnowledgeGraph` keeps its adjacency as :class:`CSR` arrays (``csr`` for both
directions, ``csr_out`` for outgoing edges) built by :func:`build_csr`; every hop-by-hop walk of the project
goes through :func:`bfs_layers`. Nothing here knows about names, text or chunks, so the methods that walk
a graph held in other arrays (a passage graph, a localized subgraph) use the same code.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CSR:
    """Compressed sparse rows: the neighbours of ``v`` are ``nbr[indptr[v]:indptr[v+1]]`` and the
    edge ids that connect them are ``eid[...]`` at the same positions."""

    indptr: np.ndarray
    nbr: np.ndarray
    eid: np.ndarray

    def row(self, v: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.indptr[v], self.indptr[v + 1]
        return self.nbr[a:b], self.eid[a:b]


def csr_ranges(indptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Positions of all CSR entries of ``rows`` (a vectorized concatenation of the row ranges)."""
    starts, ends = indptr[rows], indptr[rows + 1]
    lens = ends - starts
    if lens.sum() == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + np.arange(lens.sum())


def bfs_layers(indptr: np.ndarray, nbr: np.ndarray, sources: Iterable[int], *,
               max_hops: int | None = None) -> Iterator[np.ndarray]:
    """Breadth-first layers of an undirected CSR graph: layer ``d`` holds the nodes first reached
    at hop ``d`` (sorted, int64); layer 0 is the distinct sources.

    The one BFS every walk in the project uses (k-hop neighbourhoods, hop distances, BubbleRAG's
    localized graph, the diagnosers). It touches only the visited region (no ``O(|V|)`` array per
    call), so a walk from a few anchors costs the same in a small and a huge graph (BubbleRAG §3.3
    complexity analysis). Like ``networkx.bfs_layers`` it is a generator: stop consuming when done.

    Parameters
    ----------
    indptr, nbr
        CSR rows: the neighbours of ``v`` are ``nbr[indptr[v]:indptr[v + 1]]`` (both directions).
    sources
        Start nodes (repeats are ignored).
    max_hops
        Stop after this many hops (None: until nothing new is reached).

    Examples
    --------
    >>> from core.graph.graph_builder import graph_from_triples
    >>> g = graph_from_triples([("a", "r", "b"), ("b", "r", "c")])
    >>> [layer.tolist() for layer in bfs_layers(g.csr.indptr, g.csr.nbr, [0])]
    [[0], [1], [2]]
    """
    layer = np.unique(np.fromiter((int(v) for v in sources), dtype=np.int64))
    if layer.size == 0:
        return
    yield layer
    visited, hop = layer, 0
    while max_hops is None or hop < max_hops:
        cand = np.unique(nbr[csr_ranges(indptr, layer)]).astype(np.int64)
        layer = cand[~np.isin(cand, visited, assume_unique=True)]
        if layer.size == 0:
            return
        hop += 1
        yield layer
        visited = np.union1d(visited, layer)


def build_csr(n: int, src: np.ndarray, dst: np.ndarray, eid: np.ndarray) -> CSR:
    """CSR rows of ``n`` nodes from parallel ``src`` / ``dst`` / edge-id arrays, each row sorted by neighbour."""
    order = np.lexsort((dst, src))
    counts = np.bincount(src, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return CSR(indptr, dst[order].astype(np.int32), eid[order].astype(np.int32))
