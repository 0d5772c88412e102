"""φ: the path index I_l — an R*-tree over path label and dominance embeddings (sg_rag.txt §4.2,
Eq. 4; §4.3 "Path-level Retrieval"; Appendix K, Algorithm 7).

**Paths.** A data path p_z of length l is a sequence of l+1 distinct nodes joined by edges, edge
direction ignored (query graphs from Table 12 carry no relation labels, and the ``none``-mode
query graph has no directions). Both orientations are stored, so a query path matches in the
order it is written. Parallel edges count once (paths are node sequences).

**Dimensions (a documented deviation).** The paper indexes ``[o_0(p_z), o(p_z)]`` with o_0 the
concatenated label embeddings (``(l+1)·F`` = 768+ dims for MiniLM) — far too many for an R*-tree to
prune. We index, per path position, a fixed seeded random projection of the label embedding to
``sem_dims`` (default 2) dims, then the dominance embedding (``DominanceConfig.dim``, default 4):
``(l+1)·(sem_dims + d)`` dimensions, 12 at l = 1. Because equal labels have bit-identical
projections (one projected row per label id, shared by data and queries), the semantic MBR test
"o_0(p_q) ∈ MBR_0(N)" never prunes a true match; exact label equality (= equality of the full
o_0) is then checked at the leaves.

**Traversal.** Algorithm 7 forwards a query path to a child node iff its semantic point lies in
the child's semantic MBR and its dominance region DR(o(p_q)) = {z ≥ o(p_q)} overlaps the child's
dominance MBR. That is one box-intersection test with the box ``[point, point] × [o(p_q), +∞)``,
which libspatialindex's traversal performs (R*-tree variant, bulk-loaded). The paper's heap order
only changes *when* candidates are found, not *which*: every exact match is needed, so the set is
identical. Label completion (Alg. 5) uses the same traversal with unknown positions unbounded.

:func:`brute_force_match` is the exact oracle (a vectorized scan of every path with the same leaf
predicate) used by the tests and as the benchmark baseline.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.errors import ConfigError
from core.graph.model import KnowledgeGraph

_BIG = 1e30


@dataclass(frozen=True)
class SimpleAdjacency:
    """Undirected, de-duplicated adjacency without self-loops (CSR)."""

    indptr: np.ndarray
    nbr: np.ndarray

    def row(self, v: int) -> np.ndarray:
        return self.nbr[self.indptr[v]:self.indptr[v + 1]]

    @property
    def degree(self) -> np.ndarray:
        return np.diff(self.indptr)


def simple_adjacency(graph: KnowledgeGraph) -> SimpleAdjacency:
    n = graph.n_nodes
    src = np.concatenate([graph.edge_head, graph.edge_tail]).astype(np.int64)
    dst = np.concatenate([graph.edge_tail, graph.edge_head]).astype(np.int64)
    keep = src != dst
    code = np.unique(src[keep] * n + dst[keep])
    s, d = code // max(n, 1), code % max(n, 1)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(s, minlength=n), out=indptr[1:])
    return SimpleAdjacency(indptr, d.astype(np.int64))


def count_paths(adj: SimpleAdjacency, l: int) -> int:  # noqa: E741 - l is the paper's path length
    """Number of ordered simple paths with l edges (exact for l ≤ 2, an upper bound beyond)."""
    deg = adj.degree.astype(np.int64)
    if l == 1:
        return int(deg.sum())
    if l == 2:
        return int((deg * (deg - 1)).sum())
    # walks bound: sum over v of deg-weighted walk counts
    w = deg.astype(np.float64)
    for _ in range(l - 1):
        w = np.add.reduceat(np.r_[w[adj.nbr], 0.0], adj.indptr[:-1]) if len(adj.nbr) else w * 0
        w[adj.degree == 0] = 0
    return int(w.sum())


def enumerate_paths(adj: SimpleAdjacency, l: int, *, max_paths: int = 3_000_000) -> np.ndarray:  # noqa: E741 - l is the paper's path length
    """All ordered simple paths of l edges as an ``(m, l+1)`` int32 array (both orientations)."""
    if l < 1:
        raise ConfigError(f"SG-RAG path length l={l} must be at least 1.")
    bound = count_paths(adj, l)
    if bound > max_paths:
        raise ConfigError(f"Indexing paths of length l={l} would store about {bound:,} paths (cap max_index_paths="
                          f"{max_paths:,}). Use a smaller l (l=1 indexes every edge once per direction) or raise "
                          "the cap.")
    n = len(adj.indptr) - 1
    paths = np.arange(n, dtype=np.int64)[:, None]
    deg = adj.degree
    for _ in range(l):
        last = paths[:, -1]
        cnt = deg[last]
        rep = np.repeat(np.arange(len(paths)), cnt)
        starts = np.repeat(adj.indptr[last], cnt)
        offs = np.arange(len(rep)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        nxt = adj.nbr[starts + offs]
        new = np.concatenate([paths[rep], nxt[:, None]], axis=1)
        ok = np.all(new[:, :-1] != new[:, -1:], axis=1)
        paths = new[ok]
    return paths.astype(np.int32)


@dataclass(eq=False)
class PathIndex:
    """I_l: every path of length l with its label ids, projected label point and dominance embedding."""

    l: int  # noqa: E741 - l is the paper's path length
    paths: np.ndarray  #: (m, l+1) node ids
    path_labels: np.ndarray  #: (m, l+1) label ids
    label_proj: np.ndarray  #: (n_labels, sem_dims) projected label embedding, shared with queries
    node_emb: np.ndarray | None  #: (n_nodes, d) dominance embeddings (None = label-only index)
    build_seconds: float = 0.0
    tree: Any = field(default=None, repr=False)

    @property
    def sem_dims(self) -> int:
        return int(self.label_proj.shape[1])

    @property
    def dom_dims(self) -> int:
        return 0 if self.node_emb is None else int(self.node_emb.shape[1])

    @property
    def dimension(self) -> int:
        return (self.l + 1) * (self.sem_dims + self.dom_dims)

    def coords(self, rows: np.ndarray) -> np.ndarray:
        p = self.paths[rows]
        parts = [self.label_proj[self.path_labels[rows]].reshape(len(rows), -1)]
        if self.node_emb is not None:
            parts.append(self.node_emb[p].reshape(len(rows), -1))
        return np.concatenate(parts, axis=1).astype(np.float64)

    def _box(self, labels: np.ndarray, dom: np.ndarray | None, tol: float) -> tuple[list[float], list[float]]:
        lo: list[float] = []
        hi: list[float] = []
        for lab in labels:
            if lab < 0:
                lo += [-_BIG] * self.sem_dims
                hi += [_BIG] * self.sem_dims
            else:
                pt = self.label_proj[int(lab)].astype(np.float64).tolist()
                lo += pt
                hi += pt
        if self.node_emb is not None:
            if dom is None:
                lo += [-_BIG] * (self.dom_dims * (self.l + 1))
            else:
                lo += (np.asarray(dom, np.float64).reshape(-1) - tol).tolist()
            hi += [_BIG] * (self.dom_dims * (self.l + 1))
        return lo, hi

    def search(self, labels: np.ndarray, dom: np.ndarray | None = None, *, tol: float = 1e-4) -> np.ndarray:
        """Path rows matching ``labels`` (−1 = wildcard, Alg. 5) and, when ``dom`` is given, with
        ``dom ⪯ o(p_z)`` (Alg. 7), through the R*-tree. Sorted row ids."""
        labels = np.asarray(labels, dtype=np.int64)
        lo, hi = self._box(labels, dom, tol)
        hits = np.fromiter(self.tree.intersection(lo + hi, objects=False), dtype=np.int64)
        return _leaf_check(self, np.sort(hits), labels, dom, tol)

    def count(self, labels: np.ndarray) -> int:
        """How many paths the semantic box of ``labels`` reaches (cost estimate for completion)."""
        lo, hi = self._box(np.asarray(labels, dtype=np.int64), None, 0.0)
        return int(self.tree.count(lo + hi))


def _leaf_check(ix: PathIndex, rows: np.ndarray, labels: np.ndarray, dom: np.ndarray | None, tol: float) -> np.ndarray:
    """The exact test at the leaves: labels equal on known positions, o(p_q) ⪯ o(p_z)."""
    if len(rows) == 0:
        return rows
    known = np.nonzero(labels >= 0)[0]
    ok = np.ones(len(rows), dtype=bool)
    for pos in known:  # column by column: cheap, and the first known position already filters most rows
        sel = np.nonzero(ok)[0]
        ok[sel] = ix.path_labels[rows[sel], pos] == labels[pos]
    rows = rows[ok]
    if dom is not None and ix.node_emb is not None and len(rows):
        oz = ix.node_emb[ix.paths[rows]].reshape(len(rows), -1)
        rows = rows[np.all(oz >= np.asarray(dom, np.float32).reshape(-1) - tol, axis=1)]
    return rows


def brute_force_match(ix: PathIndex, labels: np.ndarray, dom: np.ndarray | None = None, *,
                      tol: float = 1e-4) -> np.ndarray:
    """Oracle: the same predicate as :meth:`PathIndex.search`, evaluated on every stored path."""
    return _leaf_check(ix, np.arange(len(ix.paths), dtype=np.int64), np.asarray(labels, dtype=np.int64), dom, tol)


def build_path_index(graph: KnowledgeGraph, l: int, label_of_node: np.ndarray, label_vecs: np.ndarray,  # noqa: E741 - l is the paper's path length
                     node_emb: np.ndarray | None, *, sem_dims: int = 2, seed: int = 0,
                     max_paths: int = 3_000_000, adjacency: SimpleAdjacency | None = None) -> PathIndex:
    """Eq. 4: enumerate the paths of length l and bulk-load the R*-tree.

    Parameters
    ----------
    graph
        The KG.
    l
        Path length in edges.
    label_of_node, label_vecs
        Label id per node and o_0 per label (see labels.py).
    node_emb
        o(v) per node from ℳ, or None for a label-only index.
    sem_dims
        Per-position size of the fixed projection of o_0 (seeded Gaussian).
    """
    from rtree import index as rindex

    t0 = time.perf_counter()
    adj = adjacency or simple_adjacency(graph)
    paths = enumerate_paths(adj, l, max_paths=max_paths)
    rng = np.random.default_rng(seed)
    proj = rng.standard_normal((label_vecs.shape[1], sem_dims)).astype(np.float32)
    label_proj = (label_vecs.astype(np.float32) @ proj).astype(np.float32)
    ix = PathIndex(l, paths, label_of_node[paths].astype(np.int32), label_proj, node_emb)
    prop = rindex.Property()
    prop.dimension = ix.dimension
    prop.variant = rindex.RT_Star
    prop.leaf_capacity = 64
    prop.index_capacity = 64
    if len(paths):
        coords = ix.coords(np.arange(len(paths)))
        ids = np.arange(len(paths), dtype=np.int64)
        ix.tree = rindex.Index((ids, np.ascontiguousarray(coords), np.ascontiguousarray(coords)),
                               properties=prop, interleaved=True)  # numpy bulk load (STR packing)
    else:
        ix.tree = rindex.Index(properties=prop, interleaved=True)
    ix.build_seconds = time.perf_counter() - t0
    return ix
