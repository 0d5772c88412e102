"""GRanker, the graph-based reranker (FastInsight §3.3, Algorithm 2) — the ``O_gm`` operator.

A cross-encoder scores each retrieved passage on its own text ("topology-blind"). GRanker treats
the reranker's pre-head features ``H`` as a noisy graph signal and takes one gradient step on the
Laplacian-regularized denoising objective, which gives

    H' = (1 - α) H + α P H,     P = diag(W 1)^-1 W,     W = A D^-1

where ``A`` is the adjacency among the retrieved nodes and ``D`` holds their degrees in the full
graph. Scores are the reranker's head applied to ``H'``; with ``α = 0`` this is plain reranking,
bit for bit.

With the default reranker, the bundled cross-encoder ms-marco-MiniLM-L-12-v2, the features are
the [CLS] hidden states and the head is BERT's pooler (dense + tanh) + classifier, applied to the
smoothed features — what the paper does with bge-reranker's frozen [CLS] features and the last two
layers of its head (§4.1). With the bi-encoder stand-in the head is a sum, i.e. linear, so
``head(H') = (1 - α) head(H) + α P head(H)``: there feature smoothing *is* score smoothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.backends.base import Reranker
from core.errors import ConfigError
from core.graph.passage_graph import PassageGraph
from core.methods.reranking import FeatureCache, rank_order
from core.pinning import pin

Head = Callable[[np.ndarray], np.ndarray]


def propagation_matrix(adjacency: np.ndarray, degrees: np.ndarray) -> np.ndarray:
    """``P`` of Algorithm 2 lines 2–5 from the subgraph adjacency and full-graph degrees.

    ``W = A · D⁻¹`` weights neighbour ``j`` by ``1 / deg(n_j)`` (a hub's voice is spread over all
    its links), and ``P = diag(W · 1)⁻¹ · W`` makes every row a probability distribution over the
    retrieved neighbours.

    A row with no retrieved neighbour has ``W · 1 = 0`` and the paper's ``diag(W·1)⁻¹`` is
    undefined; such a row becomes the unit row ``e_i`` (the node "keeps its own features":
    ``(PH)_i = H_i``, so ``H'_i = H_i`` for every α). A degree of 0 can only belong to a node
    with no neighbours at all, whose column of ``A`` is zero, so ``D⁻¹`` uses 0 there.

    Parameters
    ----------
    adjacency : ndarray, shape (k, k)
        ``A_ij = 1`` when ``(n_i, n_j)`` is an edge (0/1 entries; symmetric for our graphs).
    degrees : ndarray, shape (k,)
        ``deg_E(n_i)`` in the *full* graph (Algorithm 2 line 3), not in the subgraph.

    Returns
    -------
    ndarray, shape (k, k)
        Row-stochastic float64 ``P``.

    Raises
    ------
    ValueError
        On mismatched shapes or negative degrees.

    Examples
    --------
    >>> a = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=float)
    >>> propagation_matrix(a, np.array([2, 1, 4])).round(2)
    array([[0.  , 0.8 , 0.2 ],
           [1.  , 0.  , 0.  ],
           [1.  , 0.  , 0.  ]])
    """
    a = np.asarray(adjacency, dtype=np.float64)
    d = np.asarray(degrees, dtype=np.float64).reshape(-1)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] != d.size:
        raise ValueError(f"adjacency must be (k, k) and degrees (k,), got {a.shape} and {d.shape}")
    if (d < 0).any():
        raise ValueError(f"degrees must be non-negative, got {d.min()}")
    d_inv = np.divide(1.0, d, out=np.zeros_like(d), where=d > 0)
    w = a * d_inv[None, :]
    row = w.sum(axis=1)
    p = np.divide(w, row[:, None], out=np.zeros_like(w), where=row[:, None] > 0)
    lonely = row <= 0
    p[lonely, lonely] = 1.0  # e_i rows: their own features stay as they are
    return p


def smooth_features(features: np.ndarray, propagation: np.ndarray, alpha: float) -> np.ndarray:
    """Latent graph fusion, Algorithm 2 line 6: ``H' = (1 − α) H + α P H``.

    ``α = 0`` returns ``H`` itself, so plain reranking is reproduced exactly.
    """
    _check_alpha(alpha)
    h = np.asarray(features)
    if alpha == 0.0:
        return h
    from scipy.sparse import csr_matrix

    # P is sparse (the candidates' edges plus unit rows). A sparse product also stays clear of
    # multi-threaded BLAS, which measured 7–15 ms instead of 0.3 ms for a 100×100 @ 100×384
    # product right after a FAISS search (OpenMP and BLAS threads contend on small matrices).
    ph = csr_matrix(np.asarray(propagation, dtype=np.float64)) @ h.astype(np.float64)
    return ((1.0 - alpha) * h.astype(np.float64) + alpha * ph).astype(h.dtype, copy=False)


def granker_scores(features: np.ndarray, propagation: np.ndarray, head: Head, *, alpha: float = 0.2) -> np.ndarray:
    """Scores ``S = MLP(H')`` of Algorithm 2 lines 6–7.

    Parameters
    ----------
    features : ndarray, shape (k, f)
        Reranker features ``H`` of the retrieved passages (Algorithm 2 line 1).
    propagation : ndarray, shape (k, k)
        ``P`` from :func:`propagation_matrix`.
    head : callable
        The reranker's scoring head, ``(k, f) -> (k,)``.
    alpha : float
        Smoothing factor in [0, 1] (paper default 0.2).

    Returns
    -------
    ndarray, shape (k,)
        float64 scores.

    Examples
    --------
    >>> h = np.array([[1.0], [0.0]])
    >>> p = propagation_matrix(np.array([[0, 1], [1, 0]]), np.array([1, 1]))
    >>> granker_scores(h, p, lambda x: x.sum(axis=1), alpha=0.5)
    array([0.5, 0.5])
    """
    h = np.asarray(features)
    if h.ndim != 2 or h.shape[0] != np.asarray(propagation).shape[0]:
        raise ValueError(f"features must be (k, f) with k = {np.asarray(propagation).shape[0]}, got {h.shape}")
    if h.shape[0] == 0:
        return np.zeros(0, dtype=np.float64)
    return np.asarray(head(smooth_features(h, propagation, alpha)), dtype=np.float64).reshape(-1)


def _check_alpha(alpha: float) -> None:
    if not (0.0 <= float(alpha) <= 1.0):
        raise ConfigError(f"alpha (GRanker smoothing factor) must be in [0, 1], got {alpha}.")


@dataclass(frozen=True, eq=False)
class GRankerResult:
    """One application of GRanker (Algorithm 2) with its intermediates.

    Arrays indexed by *input position* ``i`` refer to ``nodes[i]``; ``ranking`` is the output
    ``N_ret`` (node indices, best first).
    """

    nodes: np.ndarray  #: N_ret as given (passage-graph node indices)
    features: np.ndarray  #: H, shape (k, f)
    adjacency: np.ndarray  #: A among N_ret, (k, k)
    degrees: np.ndarray  #: deg_E(n_i) in the full graph
    propagation: np.ndarray  #: P, row-stochastic (k, k)
    plain_scores: np.ndarray  #: head(H): plain reranking scores (α = 0)
    scores: np.ndarray  #: S = head(H')
    alpha: float

    @property
    def order(self) -> np.ndarray:
        """Input positions sorted by GRanker score (Algorithm 2 line 8)."""
        return rank_order(self.scores)

    @property
    def plain_order(self) -> np.ndarray:
        return rank_order(self.plain_scores)

    @property
    def ranking(self) -> np.ndarray:
        """``N_ret`` reranked by GRanker: node indices, best first."""
        return self.nodes[self.order]

    @property
    def plain_ranking(self) -> np.ndarray:
        """The same candidates ranked by the plain reranker."""
        return self.nodes[self.plain_order]


def granker(query: str, nodes: Sequence[int] | np.ndarray, graph: PassageGraph, reranker: Reranker, *,
            alpha: float = 0.2, features: FeatureCache | None = None) -> GRankerResult:
    """Rerank retrieved passages with GRanker (FastInsight §3.3, Algorithm 2).

    Parameters
    ----------
    query : str
        The question ``q``.
    nodes : sequence of int
        ``N_ret``: passage-graph node indices (distinct), e.g. in vector-search order.
    graph : PassageGraph
        Supplies ``A`` (edges among ``nodes``) and ``deg_E`` (full-graph degrees).
    reranker : Reranker
        ``features`` is the Encoder of line 1, ``head`` the MLP of line 7.
    alpha : float
        Smoothing factor α in [0, 1]; paper default 0.2. ``α = 0`` is plain reranking.
    features : FeatureCache or None
        Reuse features across calls (Algorithm 1 calls GRanker once per batch).

    Returns
    -------
    GRankerResult
        ``ranking`` is the reranked ``N_ret``; ``plain_scores`` are the α = 0 scores of the
        same candidates, for comparison.

    Raises
    ------
    ConfigError
        If α is outside [0, 1].
    ValueError
        If ``nodes`` repeats a node or names one outside the graph.

    Examples
    --------
    >>> from core.backends.embedders import HashingEmbedder
    >>> from core.backends.rerankers import BiEncoderReranker
    >>> pg = PassageGraph.from_edges(3, [(0, 1)], passages=["cats purr", "cats nap", "dogs bark"])
    >>> r = granker("cats", [2, 0, 1], pg, BiEncoderReranker(HashingEmbedder(dim=64)), alpha=0.2)
    >>> sorted(r.ranking.tolist()) == [0, 1, 2]
    True
    """
    _check_alpha(alpha)
    idx = np.asarray(nodes, dtype=np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= graph.n):
        bad = idx[(idx < 0) | (idx >= graph.n)][0]
        raise ValueError(f"node {int(bad)} is not in the passage graph (0..{graph.n - 1})")
    if np.unique(idx).size != idx.size:
        raise ValueError("N_ret must not repeat a node")
    cache = features if features is not None else FeatureCache(reranker, query, graph.passages)
    h = cache.get(idx)
    a = graph.subgraph_adjacency(idx)
    deg = graph.degrees_of(idx)
    p = propagation_matrix(a, deg)
    plain = np.asarray(reranker.head(h), dtype=np.float64).reshape(-1) if idx.size else np.zeros(0)
    scores = pin("fastinsight.granker.scores",
                 plain.copy() if alpha == 0.0 else granker_scores(h, p, reranker.head, alpha=alpha), ids=idx)
    return GRankerResult(nodes=idx, features=h, adjacency=a, degrees=deg, propagation=p, plain_scores=plain,
                         scores=scores, alpha=float(alpha))
