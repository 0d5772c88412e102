"""The FastInsight loop (FastInsight §3.2, Algorithm 1): ``O_vs → (O_gm, O_vgs)*``.

1. **Initial O_vs** (line 1): top-BATCH passages by dot product ``v_q · V_n``.
2. **GRanker** (line 2) ranks them.
3. **Expansion** (lines 3–8): while ``|N_ret| < b_max``, STeX proposes neighbours, the best
   ``k_remain = min(|N_ret| + BATCH, b_max) − |N_ret|`` are added (the hard budget cap), and
   GRanker re-ranks the whole ``N_ret``.

:func:`iter_fastinsight` yields every round (what STeX proposed, what was added, the new
ranking), for step-by-step replay; :func:`fastinsight` returns the final result.

Choices where Algorithm 1 is silent (documented on the functions): the initial search takes
``min(BATCH, b_max)`` passages so ``b_max`` is a hard cap from the start; the budget is also
capped at the number of passages; and when STeX proposes nothing (no unretrieved neighbour is
left — an isolated passage, or a component exhausted) the loop would never end, so by default the
round is filled with the next passages by vector similarity (``on_exhausted="vector"``), recorded
as a fallback, or stops (``"stop"``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from core.backends.base import Reranker
from core.errors import ConfigError
from core.graph.passage_graph import PassageGraph
from core.methods.fastinsight.granker import GRankerResult, granker
from core.methods.fastinsight.stex import NodeRows, STeXResult, as_rows, stex
from core.methods.reranking import FeatureCache
from core.pinning import pin_search

OnExhausted = Literal["vector", "stop"]


@dataclass(frozen=True, eq=False)
class FastInsightRound:
    """One round of Algorithm 1: round 0 is the setup (lines 1–2), round r >= 1 one loop pass."""

    index: int
    proposed: STeXResult | None  #: STeX's N_add (None in round 0)
    added: np.ndarray  #: nodes added this round (round 0: the initial vector-search result)
    added_scores: np.ndarray  #: round 0: v_q·V_n of the added nodes; later: their STeX scores (vector fallback: v_q·V_n)
    granker: GRankerResult  #: GRanker over the new N_ret
    fallback: str = ""  #: non-empty when STeX proposed nothing and vector search filled the round
    stex_seconds: float = 0.0
    granker_seconds: float = 0.0

    @property
    def ranking(self) -> np.ndarray:
        """``N_ret`` after this round's GRanker, best first."""
        return self.granker.ranking

    @property
    def size(self) -> int:
        return int(self.granker.nodes.size)


@dataclass(frozen=True, eq=False)
class FastInsightResult:
    """The output of Algorithm 1 and every round that led to it."""

    rounds: tuple[FastInsightRound, ...]
    params: dict[str, Any] = field(default_factory=dict)
    encoded: int = 0  #: passages whose reranker features were computed (= |N_ret|)
    reused: int = 0  #: of those, read back from rows an earlier run computed (the app's shared feature store)

    @property
    def final(self) -> FastInsightRound:
        return self.rounds[-1]

    @property
    def ranking(self) -> np.ndarray:
        """``N_ret``: passage-graph node indices, best first."""
        return self.final.ranking

    @property
    def scores(self) -> np.ndarray:
        """GRanker scores aligned with :attr:`ranking`."""
        g = self.final.granker
        return g.scores[g.order]


def vector_search(query_vector: np.ndarray, node_vectors: np.ndarray | NodeRows, k: int, *,
                  exclude: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``O_vs`` (FastInsight §3.1.1, Definition 2): top-``k`` nodes by dot product ``v_q · V_n``.

    Returns ``(ids, scores)`` best first; ties go to the lower index. Nodes flagged in the
    boolean mask ``exclude`` are skipped. Vectors read on demand (:class:`~.stex.NodeRows`, the
    ``node_vectors="lazy"`` option) search the nodes they can reach (their :meth:`~.stex.NodeRows.search`).
    """
    if isinstance(node_vectors, NodeRows):
        return node_vectors.search(query_vector, k, exclude=exclude)
    sims = np.asarray(node_vectors, dtype=np.float32) @ np.asarray(query_vector, dtype=np.float32).reshape(-1)
    sims = sims.astype(np.float64)
    if exclude is not None:
        sims = np.where(exclude, -np.inf, sims)
    avail = int(sims.size if exclude is None else (~exclude).sum())
    k = max(0, min(int(k), avail))
    if k == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.float64)
    part = np.argpartition(-sims, k - 1)[:k] if k < sims.size else np.arange(sims.size)
    # exact top-k with a deterministic tie order: re-rank the whole tie class at the cut
    cut = sims[part].min()
    pool = np.flatnonzero(sims >= cut)
    order = pool[np.lexsort((pool, -sims[pool]))][:k]
    return order.astype(np.int64), sims[order]


def _check(batch: int, b_max: int, alpha: float, beta: float, on_exhausted: str) -> None:
    if int(batch) < 1:
        raise ConfigError(f"batch (BATCH) must be at least 1, got {batch}.")
    if int(b_max) < 1:
        raise ConfigError(f"b_max (node budget) must be at least 1, got {b_max}.")
    if not 0.0 <= float(alpha) <= 1.0:
        raise ConfigError(f"alpha (GRanker smoothing factor) must be in [0, 1], got {alpha}.")
    if not np.isfinite(beta) or beta < 0:
        raise ConfigError(f"beta (STeX score ratio) must be a finite number >= 0, got {beta}.")
    if on_exhausted not in ("vector", "stop"):
        raise ConfigError(f"on_exhausted must be 'vector' or 'stop', got {on_exhausted!r}.")


def iter_fastinsight(graph: PassageGraph, query: str, query_vector: np.ndarray, node_vectors: np.ndarray | NodeRows,
                     reranker: Reranker, *, batch: int = 10, b_max: int = 100, alpha: float = 0.2,
                     beta: float = 1.0, on_exhausted: OnExhausted = "vector",
                     features: FeatureCache | None = None) -> Iterator[FastInsightRound]:
    """Run Algorithm 1 round by round (FastInsight §3.2).

    Parameters
    ----------
    graph : PassageGraph
        The corpus graph ``G = (N, E)`` (see :func:`~.passage_graph.passage_graph`).
    query : str
        ``q``, read by the reranker.
    query_vector : ndarray, shape (d,)
        ``v_q = Enc_Q(q)``.
    node_vectors : ndarray, shape (n, d), or NodeRows
        ``V``: row ``i`` is passage-graph node ``i`` (or rows read on demand: ``node_vectors="lazy"``).
    reranker : Reranker
        Encoder and head of GRanker.
    batch : int
        BATCH, nodes added per round and size of the initial search (paper: 10).
    b_max : int
        Node budget, the stopping criterion (paper: 100). Also caps the initial search, so
        ``|N_ret| <= b_max`` always (Algorithm 1 line 1 takes top-BATCH; with ``b_max < BATCH``
        the cap is what the budget means). Capped at the number of passages.
    alpha : float
        GRanker smoothing factor (paper: 0.2).
    beta : float
        STeX score ratio (paper: 1).
    on_exhausted : {"vector", "stop"}
        What to do when STeX proposes nothing while budget remains (Algorithm 1 would loop
        forever): fill the round with the next passages by vector similarity (default; recorded
        in :attr:`FastInsightRound.fallback`) or stop early.
    features : FeatureCache or None
        Reranker features to reuse; by default a new cache (each passage encoded once).

    Yields
    ------
    FastInsightRound
        Round 0 (initial O_vs + GRanker), then one round per loop iteration.

    Raises
    ------
    ConfigError
        On out-of-range parameters.
    ValueError
        If the vectors do not match the graph.
    """
    _check(batch, b_max, alpha, beta, on_exhausted)
    v = as_rows(node_vectors)
    if v.ndim != 2 or v.shape[0] != graph.n:
        raise ValueError(f"node_vectors must have one row per passage ({graph.n}), got shape {v.shape}")
    cache = features if features is not None else FeatureCache(reranker, query, graph.passages)
    budget = min(int(b_max), graph.n)

    # lines 1–2: initial O_vs and GRanker
    ids, sims = vector_search(query_vector, v, min(int(batch), budget))
    sims, ids = pin_search("fastinsight.vector_search.initial", sims, ids)
    t0 = time.perf_counter()
    g = granker(query, ids, graph, reranker, alpha=alpha, features=cache)
    yield FastInsightRound(0, None, ids, sims, g, granker_seconds=time.perf_counter() - t0)

    ranking = g.ranking
    r = 1
    while ranking.size < budget:  # line 3
        t0 = time.perf_counter()
        proposal = stex(query_vector, v, graph, ranking, beta=beta)  # line 4
        t_stex = time.perf_counter() - t0
        k_remain = min(ranking.size + int(batch), int(b_max)) - ranking.size  # line 5
        add, add_scores = proposal.candidates[:k_remain], proposal.scores[:k_remain]  # line 6 (hard cap)
        fallback = ""
        if add.size == 0:
            if on_exhausted == "stop":
                return
            mask = np.zeros(graph.n, dtype=bool)
            mask[ranking] = True
            add, add_scores = vector_search(query_vector, v, k_remain, exclude=mask)
            add_scores, add = pin_search("fastinsight.vector_search.fill", add_scores, add)
            if add.size == 0:  # lazy vectors reach only the question's nodes, and every one is retrieved
                return
            fallback = (f"STeX found no unretrieved neighbour of the {ranking.size} retrieved passages; "
                        f"added the next {add.size} by vector similarity instead.")
        t0 = time.perf_counter()
        g = granker(query, np.concatenate([ranking, add]), graph, reranker, alpha=alpha, features=cache)  # line 7
        yield FastInsightRound(r, proposal, add, add_scores, g, fallback, t_stex, time.perf_counter() - t0)
        ranking = g.ranking
        r += 1


def fastinsight(graph: PassageGraph, query: str, query_vector: np.ndarray, node_vectors: np.ndarray,
                reranker: Reranker, *, batch: int = 10, b_max: int = 100, alpha: float = 0.2, beta: float = 1.0,
                on_exhausted: OnExhausted = "vector", features: FeatureCache | None = None) -> FastInsightResult:
    """Retrieve passages with FastInsight (FastInsight §3.2, Algorithm 1).

    Consumes :func:`iter_fastinsight` (same parameters) and keeps every round.

    Returns
    -------
    FastInsightResult
        ``ranking`` is the final ``N_ret`` (at most ``b_max`` passages), best first.

    Examples
    --------
    >>> from core.backends.embedders import HashingEmbedder
    >>> from core.backends.rerankers import BiEncoderReranker
    >>> emb = HashingEmbedder(dim=64)
    >>> texts = ["cats purr", "cats nap often", "dogs bark", "birds sing"]
    >>> pg = PassageGraph.from_edges(4, [(0, 1), (1, 2), (2, 3)], passages=texts)
    >>> res = fastinsight(pg, "cats", emb.embed(["cats"])[0], emb.embed(texts), BiEncoderReranker(emb),
    ...                   batch=1, b_max=3)
    >>> len(res.ranking), len(res.rounds)
    (3, 3)
    """
    cache = features if features is not None else FeatureCache(reranker, query, graph.passages)
    rounds = tuple(iter_fastinsight(graph, query, query_vector, node_vectors, reranker, batch=batch, b_max=b_max,
                                    alpha=alpha, beta=beta, on_exhausted=on_exhausted, features=cache))
    params = {"batch": int(batch), "b_max": int(b_max), "alpha": float(alpha), "beta": float(beta),
              "on_exhausted": on_exhausted}
    return FastInsightResult(rounds, params, cache.encoded)
