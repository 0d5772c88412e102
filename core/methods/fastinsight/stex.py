"""STeX, Semantic-Topological eXpansion (FastInsight §3.4, Algorithm 3) — the ``O_vgs`` operator.

Candidates are the neighbours of the retrieved list that are not retrieved yet. Each gets

* a structural score ``I_Struct`` (lines 3–12): a *rank-proximity* term
  ``1 − (r_best − 1)/(R_max − 1)`` that favours neighbours of top-ranked passages, plus a
  *bridging* term ``(|A(n)| − 1)/(C_max − 1)`` that favours candidates touching many retrieved
  passages (structural holes), with ``C_max = min(deg_E(n), R_max)``; each term only when its
  denominator is positive (the ``R_max > 1`` and ``C_max > 1`` guards);
* a similarity score ``I_Sim = v_q · V_n`` (line 13);

and ``S_n = I_Sim + β · I_Struct`` (line 14). Candidates are returned best first (line 16).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from core.errors import ConfigError
from core.graph.passage_graph import PassageGraph
from core.pinning import pin


@runtime_checkable
class NodeRows(Protocol):
    """``V`` read row by row instead of held whole: what ``node_vectors="lazy"`` passes
    (:class:`~core.methods.fastinsight.lazy_vectors.LazyNodeVectors`). ``v[ids]`` gives those rows;
    :meth:`search` is the vector search ``O_vs`` over the nodes it can reach."""

    shape: tuple[int, int]
    ndim: int

    def __getitem__(self, ids: np.ndarray) -> np.ndarray: ...

    def search(self, query_vector: np.ndarray, k: int, *,
               exclude: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]: ...


def as_rows(node_vectors: np.ndarray | NodeRows) -> np.ndarray | NodeRows:
    """``node_vectors`` as an array, or as it is when it reads its rows on demand (:class:`NodeRows`)."""
    return node_vectors if isinstance(node_vectors, NodeRows) else np.asarray(node_vectors)


@dataclass(frozen=True, eq=False)
class STeXResult:
    """STeX's proposal ``N_add`` with the parts of every candidate's score.

    All arrays are parallel and sorted best first: ``candidates[0]`` is the strongest proposal.
    """

    candidates: np.ndarray  #: N_add: passage-graph node indices, best first
    scores: np.ndarray  #: S_n = I_Sim + β · I_Struct
    i_sim: np.ndarray  #: v_q · V_n
    i_struct: np.ndarray  #: rank term + bridging term
    rank_term: np.ndarray  #: 1 − (r_best − 1)/(R_max − 1), or 0 when R_max <= 1
    bridge_term: np.ndarray  #: (|A(n)| − 1)/(C_max − 1), or 0 when C_max <= 1
    r_best: np.ndarray  #: best (1-based) rank among the candidate's retrieved neighbours
    n_adjacent: np.ndarray  #: |A(n)|
    c_max: np.ndarray  #: min(deg_E(n), R_max)
    r_max: int  #: |N_ret|
    beta: float

    def __len__(self) -> int:
        return int(self.candidates.size)


def stex(query_vector: np.ndarray, node_vectors: np.ndarray | NodeRows, graph: PassageGraph,
         retrieved: Sequence[int] | np.ndarray, *, beta: float = 1.0) -> STeXResult:
    """Propose passages to add next (FastInsight §3.4, Algorithm 3).

    Parameters
    ----------
    query_vector : ndarray, shape (d,)
        ``v_q``.
    node_vectors : ndarray, shape (n, d), or NodeRows
        ``V``: one row per passage-graph node. ``I_Sim`` is the plain dot product, as written
        (with the unit vectors of our indexes it is the cosine). Only the candidates' rows are read.
    graph : PassageGraph
        ``E`` and ``deg_E``.
    retrieved : sequence of int
        ``N_ret`` *in rank order* (best first): ``rankCheck(v)`` is the 1-based position of ``v``.
    beta : float
        Score ratio β >= 0 (paper default 1); 0 is pure vector search among the neighbours.

    Returns
    -------
    STeXResult
        Candidates sorted by ``S_n`` descending; ties by better ``r_best``, then by node index
        (the paper leaves ties open; this keeps runs reproducible).

    Raises
    ------
    ConfigError
        If β is negative or not finite.
    ValueError
        If shapes disagree, ``retrieved`` repeats a node, or names one outside the graph.

    Examples
    --------
    A path 0 – 1 – 2 with ``N_ret = [0]``: the only candidate is 1; ``R_max = 1`` skips the rank
    term and ``C_max = min(2, 1) = 1`` skips the bridging term, so ``S = I_Sim``.

    >>> pg = PassageGraph.from_edges(3, [(0, 1), (1, 2)])
    >>> v = np.eye(3, dtype=np.float32)
    >>> r = stex(v[1], v, pg, [0])
    >>> r.candidates.tolist(), r.scores.tolist()
    ([1], [1.0])
    """
    if not np.isfinite(beta) or beta < 0:
        raise ConfigError(f"beta (STeX score ratio) must be a finite number >= 0, got {beta}.")
    v = as_rows(node_vectors)
    q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
    if v.ndim != 2 or v.shape[0] != graph.n or v.shape[1] != q.size:
        raise ValueError(f"node_vectors must be ({graph.n}, {q.size}), got {v.shape}")
    ret = np.asarray(retrieved, dtype=np.int64).reshape(-1)
    if ret.size and (ret.min() < 0 or ret.max() >= graph.n):
        bad = ret[(ret < 0) | (ret >= graph.n)][0]
        raise ValueError(f"node {int(bad)} is not in the passage graph (0..{graph.n - 1})")
    if np.unique(ret).size != ret.size:
        raise ValueError("N_ret must not repeat a node")
    r_max = int(ret.size)

    # line 1: neighbours of N_ret, with the 1-based rank of the retrieved node they hang off
    lens, nb = graph.adjacent(ret)
    rank = np.repeat(np.arange(1, r_max + 1, dtype=np.int64), lens)
    keep = ~np.isin(nb, ret)
    nb, rank = nb[keep], rank[keep]
    if nb.size == 0:
        empty_f, empty_i = np.zeros(0, np.float64), np.zeros(0, np.int64)
        return STeXResult(empty_i, empty_f, empty_f, empty_f, empty_f, empty_f, empty_i, empty_i, empty_i,
                          r_max, float(beta))
    # the CSR rows hold distinct neighbours, so each (candidate, retrieved node) pair appears once:
    # grouping by candidate gives |A(n)| as the count and r_best as the minimum rank (lines 4, 6)
    cand, inverse, n_adj = np.unique(nb, return_inverse=True, return_counts=True)
    r_best = np.full(cand.size, r_max + 1, dtype=np.int64)
    np.minimum.at(r_best, inverse, rank)

    rank_term = np.zeros(cand.size, dtype=np.float64)
    if r_max > 1:  # lines 5–8
        rank_term = 1.0 - (r_best - 1) / (r_max - 1)
    c_max = np.minimum(graph.degrees_of(cand), r_max)
    bridge_term = np.zeros(cand.size, dtype=np.float64)
    ok = c_max > 1  # lines 9–12
    bridge_term[ok] = (n_adj[ok] - 1) / (c_max[ok] - 1)
    i_struct = rank_term + bridge_term
    i_sim = pin("fastinsight.stex.i_sim", (np.asarray(v[cand], dtype=np.float32) @ q).astype(np.float64), ids=cand)  # line 13
    scores = i_sim + float(beta) * i_struct  # line 14
    order = np.lexsort((cand, r_best, -scores))  # line 16: argsort by S, best first
    return STeXResult(cand[order], scores[order], i_sim[order], i_struct[order], rank_term[order],
                      bridge_term[order], r_best[order], n_adj[order], c_max[order], r_max, float(beta))
