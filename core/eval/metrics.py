"""Retrieval metrics: capped Recall@k, nDCG@k (FastInsight §4.3.1), Topological Recall and MissTR
(FastInsight §4.3.2, Definition 7 and Corollary 1), answer EM / token F1 (SQuAD; the functions live
in :mod:`core.text` so that method diagnosers can judge answers too), per-stage latency and tokens.

Rankings and gold sets are passage (chunk) ids for Recall and nDCG; Topological Recall works on
node indices of a graph given as CSR arrays (any object with ``indptr``, ``nbr`` and ``degree``,
e.g. :class:`~core.graph.passage_graph.PassageGraph`), undirected, with ``degree``
the number of distinct neighbours.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from core.graph.passage_graph import PassageGraph
    from core.methods.fastinsight.loop import FastInsightResult

__all__ = ["CSRGraph", "RankingMetrics", "RoundMetrics", "TopologicalRecall", "all_recall_at_k", "llm_tokens", "miss_tr", "ndcg_at_k", "path_uncertainty", "ranking_metrics", "recall_at_k", "round_metrics", "stage_latency", "topological_recall", "tr_decomposition"]


class CSRGraph(Protocol):
    """What Topological Recall needs from a graph: undirected CSR rows and degrees."""

    @property
    def indptr(self) -> np.ndarray: ...

    @property
    def nbr(self) -> np.ndarray: ...

    @property
    def degree(self) -> np.ndarray: ...


def _gold_set(gold: Collection[Any]) -> set[Any]:
    g = set(gold)
    if not g:
        raise ValueError("the gold set is empty: Recall, nDCG and TR are undefined without gold passages")
    return g


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")


#: What R@k is, said where its figures are (the Benchmark page's table and its help, report.md): an engineer who
#: recomputed R@2 on questions with 3 gold passages as hits / |gold| got other numbers (an audit).
CAPPED_RECALL_NOTE = "R@k is capped: hits in the top k / min(k, number of gold passages)"


def recall_at_k(ranked: Sequence[str], gold: Collection[str], k: int = 10) -> float:
    """Capped Recall@k (BEIR; FastInsight §4.3.1): hits in the top ``k`` / ``min(k, |gold|)``.

    Capping makes 1.0 reachable when there are more gold passages than ``k``.

    Raises
    ------
    ValueError
        If ``gold`` is empty or ``k < 1``.

    Examples
    --------
    >>> recall_at_k(["a", "x", "b"], {"a", "b"}, k=2)
    0.5
    >>> recall_at_k(["a", "b"], {"a", "b", "c"}, k=2)
    1.0
    """
    _check_k(k)
    g = _gold_set(gold)
    hits = len(set(list(ranked)[:k]) & g)
    return hits / min(k, len(g))


def ndcg_at_k(ranked: Sequence[str], gold: Collection[str], k: int = 10) -> float:
    """nDCG@k with binary relevance (FastInsight §4.3.1).

    ``DCG = Σ_{i<=k} rel_i / log2(i + 1)``; the ideal DCG puts ``min(k, |gold|)`` relevant
    passages first. A passage repeated in ``ranked`` counts once.

    Raises
    ------
    ValueError
        If ``gold`` is empty or ``k < 1``.

    Examples
    --------
    >>> round(ndcg_at_k(["x", "a"], {"a"}, k=10), 4)
    0.6309
    """
    _check_k(k)
    g = _gold_set(gold)
    seen: set[str] = set()
    dcg = 0.0
    for i, c in enumerate(list(ranked)[:k], start=1):
        if c in g and c not in seen:
            dcg += 1.0 / math.log2(i + 1)
        seen.add(c)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(k, len(g)) + 1))
    return dcg / ideal


def path_uncertainty(graph: CSRGraph, retrieved: Iterable[int], target: int) -> float:
    """``u(E, N_ret, n_i)`` of FastInsight Definition 7.

    The accumulated log-degree ``Σ ln(1 + deg_E(n_k))`` over the nodes of the shortest path from
    a retrieved node ``n_j`` to ``target``, the target itself excluded, minimized over
    ``n_j ∈ N_ret``. ``0`` when ``target`` is retrieved, ``inf`` when no retrieved node reaches it.

    The paper says "the shortest path" without saying which one when several tie; we take
    shortest in hops (as written) and, among the tied shortest paths, the one with the least
    accumulated log-degree — consistent with the minimum over seeds. Computed by one BFS from
    ``target`` with a dynamic programme over its layers,
    ``g(x) = ln(1 + deg(x)) + min{g(y) : y ~ x, dist(y) = dist(x) − 1}``, ``g(target) = 0``, so
    ``u = min_{j ∈ N_ret} g(j)``; the BFS stops once a whole layer costs more than the best
    retrieved node found (costs only grow with distance). The BFS reads the graph one layer at a time
    (:func:`_layer_reader`), so on a KG node graph kept in a graph store it reads only the layers it
    reaches.

    Raises
    ------
    ValueError
        If ``target`` or a retrieved node is not a node of the graph.
    """
    n, rows, weight = _layer_reader(graph)
    ret = np.asarray(list(retrieved), dtype=np.int64)
    if not 0 <= int(target) < n:
        raise ValueError(f"node {target} is not in the graph (0..{n - 1})")
    if ret.size and (ret.min() < 0 or ret.max() >= n):
        bad = ret[(ret < 0) | (ret >= n)][0]
        raise ValueError(f"node {int(bad)} is not in the graph (0..{n - 1})")
    if ret.size == 0:
        return math.inf
    is_ret = np.zeros(n, dtype=bool)
    is_ret[ret] = True
    if is_ret[target]:
        return 0.0
    seen = np.zeros(n, dtype=bool)  # n bits, not the graph: a store's graph is read layer by layer
    seen[target] = True
    frontier = np.asarray([target], dtype=np.int64)
    g_front = np.zeros(1)
    best = math.inf
    while frontier.size:
        lens, nb = rows(frontier)
        if nb.size == 0:
            break
        parent_g = np.repeat(g_front, lens)
        fresh = ~seen[nb]
        nb, parent_g = nb[fresh], parent_g[fresh]
        if nb.size == 0:
            break
        nodes, inv = np.unique(nb, return_inverse=True)
        via = np.full(nodes.size, math.inf)
        np.minimum.at(via, inv, parent_g)
        g_new = via + weight(nodes)
        seen[nodes] = True
        hit = is_ret[nodes]
        if hit.any():
            best = min(best, float(g_new[hit].min()))
        if g_new.min() >= best:
            break
        frontier, g_front = nodes, g_new
    return best


def _layer_reader(graph: Any) -> tuple[int, Any, Any]:
    """``(n, rows, weight)`` for :func:`path_uncertainty`'s layer-by-layer BFS: ``rows(frontier)`` gives
    the neighbour rows of a layer as ``(lens, nb)`` and ``weight(nodes)`` their ``ln(1 + deg_E)``.

    A passage or KG node graph answers through its ``adjacent`` / ``degrees_of`` (so a graph kept in a
    store, :class:`~core.methods.fastinsight.store_graph.StoreNodeGraph`, reads only the layers the BFS
    reaches, never its whole CSR); any other :class:`CSRGraph` from its ``indptr`` / ``nbr`` / ``degree``."""
    if hasattr(graph, "adjacent") and hasattr(graph, "degrees_of"):
        def weight_of(nodes: np.ndarray) -> np.ndarray:
            return np.log1p(np.asarray(graph.degrees_of(nodes), dtype=np.float64))

        return int(graph.n), graph.adjacent, weight_of
    indptr, nbr = np.asarray(graph.indptr), np.asarray(graph.nbr)
    w = np.log1p(np.asarray(graph.degree, dtype=np.float64))

    def csr_rows(frontier: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        starts, ends = indptr[frontier], indptr[frontier + 1]
        lens = ends - starts
        total = int(lens.sum())
        if total == 0:
            return lens, np.zeros(0, np.int64)
        offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
        return lens, nbr[offsets + np.arange(total)].astype(np.int64)

    return indptr.size - 1, csr_rows, lambda nodes: w[nodes]


@dataclass(frozen=True)
class TopologicalRecall:
    """Topological Recall and its Corollary 1 decomposition for one question."""

    tr: float  #: TR(E, N_ret, N_oracle)
    recall: float  #: |N_oracle ∩ N_ret| / |N_oracle| (uncapped, as in Corollary 1)
    miss_tr: float  #: |N_miss| / |N_oracle| · TR(E, N_ret, N_miss)
    uncertainty: dict[int, float] = field(default_factory=dict)  #: u per oracle node



def topological_recall(graph: CSRGraph, retrieved: Iterable[int], oracle: Iterable[int]) -> float:
    """Topological Recall, FastInsight §4.3.2 Definition 7.

    ``TR = avg_{n_i ∈ N_oracle} 1 / (1 + u(E, N_ret, n_i))`` with ``u`` from
    :func:`path_uncertainty`: 1 for a retrieved oracle node, partial credit for one that is near
    the retrieved set through low-degree nodes, 0 for an unreachable one.

    Raises
    ------
    ValueError
        If ``oracle`` is empty or names a node outside the graph.

    Examples
    --------
    Path 0 – 1 – 2 (degrees 1, 2, 1), ``N_ret = {0}``, oracle ``{1}``: ``u = ln(1 + 1)``.

    >>> from core.graph.passage_graph import PassageGraph
    >>> pg = PassageGraph.from_edges(3, [(0, 1), (1, 2)])
    >>> round(topological_recall(pg, [0], [1]), 4)
    0.5906
    """
    ret = list(retrieved)
    orc = list(dict.fromkeys(int(o) for o in oracle))
    if not orc:
        raise ValueError("the oracle set is empty: Topological Recall is undefined without gold passages")
    return float(np.mean([1.0 / (1.0 + path_uncertainty(graph, ret, o)) for o in orc]))


def miss_tr(graph: CSRGraph, retrieved: Iterable[int], oracle: Iterable[int]) -> float:
    """MissTR, FastInsight §4.3.2: ``|N_oracle \\ N_ret| / |N_oracle| · TR(E, N_ret, N_oracle \\ N_ret)``,
    the partial credit TR gives to the oracle nodes that were *not* retrieved (0 when all were).

    Raises
    ------
    ValueError
        If ``oracle`` is empty.
    """
    ret = list(retrieved)
    orc = list(dict.fromkeys(int(o) for o in oracle))
    if not orc:
        raise ValueError("the oracle set is empty: MissTR is undefined without gold passages")
    ret_set = set(int(r) for r in ret)
    miss = [o for o in orc if o not in ret_set]
    if not miss:
        return 0.0
    return len(miss) / len(orc) * topological_recall(graph, ret, miss)


def tr_decomposition(graph: CSRGraph, retrieved: Iterable[int], oracle: Iterable[int]) -> TopologicalRecall:
    """TR, Recall and MissTR together (FastInsight Corollary 1: ``TR = Recall + MissTR``).

    Each part is computed from its own definition, so the identity is a check, not a tautology.
    """
    ret = list(retrieved)
    orc = list(dict.fromkeys(int(o) for o in oracle))
    if not orc:
        raise ValueError("the oracle set is empty: Topological Recall is undefined without gold passages")
    ret_set = set(int(r) for r in ret)
    u = {o: path_uncertainty(graph, ret, o) for o in orc}
    tr = float(np.mean([1.0 / (1.0 + x) for x in u.values()]))
    recall = sum(1 for o in orc if o in ret_set) / len(orc)
    return TopologicalRecall(tr, recall, miss_tr(graph, ret, orc), u)


@dataclass(frozen=True)
class RankingMetrics:
    """Recall@k, nDCG@k of a ranking and TR / MissTR of the retrieved set, for one question."""

    k: int
    recall: float
    ndcg: float
    tr: float
    miss_tr: float


def ranking_metrics(graph: CSRGraph, ranked: Sequence[int], gold: Collection[int], *, k: int = 10,
                    retrieved: Iterable[int] | None = None) -> RankingMetrics:
    """R@k and nDCG@k of ``ranked`` (node indices, best first) and TR / MissTR of ``retrieved``
    (default: the top ``k`` of ``ranked``). FastInsight Fig. 6 tracks TR of everything retrieved
    so far; pass ``retrieved=ranked`` for that."""
    ranked_s = [str(int(v)) for v in ranked]
    gold_s = {str(int(v)) for v in gold}
    ret = list(ranked)[:k] if retrieved is None else list(retrieved)
    dec = tr_decomposition(graph, ret, gold)
    return RankingMetrics(k, recall_at_k(ranked_s, gold_s, k), ndcg_at_k(ranked_s, gold_s, k), dec.tr, dec.miss_tr)


# ------------------------------------------------------------------------ all-recall, answers, cost
@dataclass(frozen=True)
class RoundMetrics:
    round: int
    retrieved: int  #: |N_ret| after the round
    ranking: str  #: "GRanker" or "plain reranking"
    recall: float
    ndcg: float
    tr: float
    miss_tr: float


def round_metrics(result: FastInsightResult, pg: PassageGraph, gold: Collection[str], *, k: int = 10) -> list[RoundMetrics]:
    """R@k, nDCG@k, TR and MissTR of a FastInsight run after every round, for GRanker and for plain
    reranking of the same ``N_ret`` (FastInsight §4.3, in the spirit of Fig. 6). TR and MissTR are taken on the top ``k`` of each ranking (so the two can
    differ; on the whole ``N_ret`` they would coincide).

    ``pg`` is the graph the run searched. On a KG node graph
    (:class:`~core.methods.fastinsight.node_graph.KGNodeGraph`) R@k and nDCG@k are of the passages
    the node ranking maps to, and TR / MissTR are over nodes with the paper's gold nodes (every node
    linked to a gold passage, FastInsight §4.2.2) as the oracle.

    Raises
    ------
    ValueError
        If ``gold`` is empty (or, on a node graph, no node is linked to a gold passage).
    UnknownNameError
        If a gold chunk id is not a passage of ``pg``.
    """
    from core.methods.fastinsight.node_graph import KGNodeGraph, passages_of_nodes

    gold_ids = list(dict.fromkeys(gold))
    gold_idx = pg.gold_nodes(gold_ids) if isinstance(pg, KGNodeGraph) else pg.indices(gold_ids)
    out = []
    for rnd in result.rounds:
        g = rnd.granker
        for label, ranking in (("GRanker", g.ranking), ("plain reranking", g.plain_ranking)):
            if isinstance(pg, KGNodeGraph):
                ids = [c for c, _, _ in passages_of_nodes(pg, ranking)]
            else:
                ids = [pg.chunk_ids[int(v)] for v in ranking]
            d = tr_decomposition(pg, ranking[:k], gold_idx)
            out.append(RoundMetrics(rnd.index, rnd.size, label, recall_at_k(ids, gold_ids, k), ndcg_at_k(ids, gold_ids, k),
                                    d.tr, d.miss_tr))
    return out


def all_recall_at_k(ranked: Sequence[str], gold: Collection[str], k: int = 5) -> float:
    """AR@k: 1.0 when *every* gold passage is in the top ``k``, else 0.0 (HippoRAG's "all recall";
    a multi-hop question needs all its evidence). Not capped: with more gold than ``k`` it is 0.

    Raises
    ------
    ValueError
        If ``gold`` is empty or ``k < 1``.

    Examples
    --------
    >>> all_recall_at_k(["a", "x", "b"], {"a", "b"}, k=3)
    1.0
    >>> all_recall_at_k(["a", "x", "b"], {"a", "b"}, k=2)
    0.0
    """
    _check_k(k)
    g = _gold_set(gold)
    return 1.0 if g <= set(list(ranked)[:k]) else 0.0


def stage_latency(trace: Any) -> dict[str, float]:
    """Seconds per trace stage (steps of the same stage summed), in first-seen order."""
    out: dict[str, float] = {}
    for s in trace.steps:
        out[s.stage] = out.get(s.stage, 0.0) + float(s.seconds)
    return out


def llm_tokens(trace: Any) -> dict[str, int]:
    """LLM tokens recorded in a trace: ``{"prompt", "completion", "total"}``."""
    p = sum(int(s.prompt_tokens) for s in trace.steps)
    c = sum(int(s.completion_tokens) for s in trace.steps)
    return {"prompt": p, "completion": c, "total": p + c}
