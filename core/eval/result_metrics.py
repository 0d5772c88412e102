"""The retrieval metrics of one method result against its gold passages: R@{2,5,10}, AR@{2,5}, nDCG@10
(FastInsight §4.3.1), TR / MissTR of the top 10 (FastInsight §4.3.2) on the graph the method searched, and,
for any result that ranked KG nodes (:class:`RanksNodes`), node-level R@10 / nDCG@10 against the gold nodes
(§4.3.1, Table 3), or why there is none."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from core.errors import EgxError
from core.eval.metrics import CSRGraph, all_recall_at_k, ndcg_at_k, recall_at_k, tr_decomposition

if TYPE_CHECKING:
    from core.index.workspace import Workspace

RECALL_KS = (2, 5, 10)
ALL_RECALL_KS = (2, 5)
NDCG_K = 10
TR_K = 10


@runtime_checkable
class SearchesItsOwnGraph(Protocol):
    """A result whose method searched a graph of its own (FastInsight's KG node graph, or its passage graph with
    its own hub cap), so TR / MissTR are measured there rather than on the workspace's passage graph. The
    method package implements it on its result (it never imports this module)."""

    def tr_sets(self, workspace: Workspace, ranked: Sequence[str], gold: Sequence[str],
                k: int) -> tuple[CSRGraph, Sequence[int], Sequence[int]] | None:
        """The graph searched, the node indices of the top ``k`` retrieved and those of the oracle; None when
        that graph cannot be read (no TR then)."""
        ...


@runtime_checkable
class RanksNodes(Protocol):
    """A result that ranked KG nodes (FastInsight §4.3.1 scores its KG corpora node by node, Table 3 every
    retriever on the same nodes). The method-neutral contract: any result may carry

    ``node_ranking: tuple[int, ...]``
        KG node indices — rows of ``workspace.graph`` (a graph store's node indices) — best first; empty when
        the run ranked no node;
    ``node_ranking_note: str`` (optional)
        why the ranking is empty (e.g. "node_level is off"), which the record, the report and the Benchmark
        page show instead of a figure.

    The gold nodes are computed here from provenance (:func:`~core.methods.kg_nodes.gold_nodes`), never taken
    from the method. A method package implements the contract on its result (it never imports this module)."""

    @property
    def node_ranking(self) -> tuple[int, ...]: ...


#: the node-level figures' keys in a record's ``metrics`` (beside the passage-level R@10 and nDCG@10)
NODE_METRICS = (f"node R@{NDCG_K}", f"node nDCG@{NDCG_K}")
#: why a result has no node-level figure when its method does not implement :class:`RanksNodes`
NO_NODE_RANKING = "this method does not rank KG nodes (its result has no node_ranking)"
#: why a result with an empty node ranking and no note of its own has no node-level figure
EMPTY_NODE_RANKING = "the run ranked no KG node"
#: why no result has a node-level figure on a question whose gold passages no KG node was extracted from
NO_GOLD_NODE = ("no KG node was extracted from the question's gold passages, so its gold node set (§4.2.2) is "
                "empty and node-level recall is undefined")


@dataclass(frozen=True)
class NodeScores:
    """Node-level R@10 and nDCG@10 of one result (:data:`NODE_METRICS` → value), or why there are none."""

    metrics: dict[str, float]
    note: str = ""  #: why ``metrics`` is empty ("" when it is not, or when the question has no gold passage)

    def notes(self) -> dict[str, str]:
        """The record's ``metrics_notes``: each node-level metric → why it is blank ({} when scored)."""
        return {k: self.note for k in NODE_METRICS} if self.note and not self.metrics else {}


def node_scores(workspace: Workspace, gold: Iterable[str], *, result: object | None = None) -> NodeScores:
    """Node-level R@10 and nDCG@10 (FastInsight §4.3.1) of any result with a non-empty
    :attr:`RanksNodes.node_ranking`: its top 10 distinct nodes against the gold nodes — every KG node whose
    provenance includes a gold passage (§4.2.2, :func:`~core.methods.kg_nodes.gold_nodes`) — capped recall
    and binary nDCG exactly as for passages (:func:`~core.eval.metrics.recall_at_k`,
    :func:`~core.eval.metrics.ndcg_at_k`).

    Blank — no figure, never a zero — with the reason in :attr:`NodeScores.note` when the workspace has no KG
    node (a corpus graph), the method ranks no node or ranked none (its ``node_ranking_note``), or no node was
    extracted from the gold passages (the gold node set is empty, so neither figure is defined). Without any
    gold passage there is no figure and no note, as for the passage metrics."""
    from core.graph.reader import question_graph
    from core.methods.kg_nodes import gold_nodes, no_kg_nodes_reason

    g = list(gold)
    if not g:
        return NodeScores({})
    why = no_kg_nodes_reason(workspace)
    if why:
        return NodeScores({}, why)
    if not isinstance(result, RanksNodes):
        return NodeScores({}, NO_NODE_RANKING)
    ranking = list(dict.fromkeys(int(v) for v in result.node_ranking))  # a node counts once, at its best rank
    if not ranking:
        return NodeScores({}, str(getattr(result, "node_ranking_note", "") or EMPTY_NODE_RANKING))
    gold_set = {str(v) for v in gold_nodes(question_graph(workspace), g).tolist()}
    if not gold_set:
        return NodeScores({}, NO_GOLD_NODE)
    top = [str(v) for v in ranking[:NDCG_K]]  # node indices, keyed as ids
    return NodeScores({NODE_METRICS[0]: recall_at_k(top, gold_set, NDCG_K),
                       NODE_METRICS[1]: ndcg_at_k(top, gold_set, NDCG_K)})


def node_metrics(workspace: Workspace, gold: Iterable[str], *, result: object | None = None) -> dict[str, float]:
    """The figures of :func:`node_scores` alone (empty when blank)."""
    return node_scores(workspace, gold, result=result).metrics


#: What a gold passage the workspace lacks is scored as: an id no ranking holds (a chunk id of this engine
#: never starts with a NUL), so it counts in |gold| and is never a hit.
_UNMATCHED = "\x00not in workspace: "


def scored_gold(gold: Iterable[str], unmatched: Iterable[str] = ()) -> set[str]:
    """The gold set a ranking is scored against: the matched passages' chunk ids, plus one stand-in per gold
    passage the question names but the workspace lacks (``Gold.unmatched``), counted as never retrieved."""
    return set(gold) | {_UNMATCHED + str(t) for t in unmatched}


def retrieval_metrics(ranked: Sequence[str], gold: Iterable[str], *, unmatched: Iterable[str] = ()) -> dict[str, float]:
    """R@{2,5,10}, AR@{2,5} and nDCG@10 of one ranking.

    ``unmatched`` are the gold passages the question names but the workspace lacks
    (:attr:`core.methods.base.Gold.unmatched`): each counts as a gold passage never retrieved, so a question
    with one of its two gold titles misspelt scores at most R@k = 50, never 100 on the one passage that
    matched. Empty dict when no gold passage matched (the question is left out of a benchmark, and counted).

    >>> retrieval_metrics(["a", "x"], ["a"], unmatched=["Titel of B"])["R@2"]
    0.5
    """
    if not set(gold):
        return {}
    g = scored_gold(gold, unmatched)
    out = {f"R@{k}": recall_at_k(ranked, g, k) for k in RECALL_KS}
    out.update({f"AR@{k}": all_recall_at_k(ranked, g, k) for k in ALL_RECALL_KS})
    out[f"nDCG@{NDCG_K}"] = ndcg_at_k(ranked, g, NDCG_K)
    return out


def topological_metrics(workspace: Workspace, ranked: Sequence[str], gold: Iterable[str], *,
                        result: object | None = None) -> dict[str, float]:
    """TR and MissTR of the top 10 (FastInsight §4.3.2) on the graph the method searched; empty
    when there is no such graph.

    A result that searched a graph of its own (:class:`SearchesItsOwnGraph`, e.g. a FastInsight run on KG
    nodes, measured against the paper's gold nodes, §4.2.2) is measured there, by its own
    :meth:`~SearchesItsOwnGraph.tr_sets`. Every other run is measured on the workspace's passage graph
    (passages sharing an entity, or the corpus graph) with the top 10 passages of ``ranked``.
    """
    from core.graph.passage_graph import passage_graph

    g = list(gold)
    if not g:
        return {}
    if isinstance(result, SearchesItsOwnGraph):
        sets = result.tr_sets(workspace, list(ranked), g, TR_K)
        if sets is None:
            return {}
        graph, ret, orc = sets
    else:
        try:
            graph = passage_graph(workspace.graph)
        except EgxError:
            return {}
        idx = {c: i for i, c in enumerate(graph.chunk_ids)}
        ret = [idx[c] for c in list(ranked)[:TR_K] if c in idx]
        orc = [idx[c] for c in g if c in idx]
    if not len(orc):
        return {}
    dec = tr_decomposition(graph, ret, orc)
    return {"TR": dec.tr, "MissTR": dec.miss_tr}
