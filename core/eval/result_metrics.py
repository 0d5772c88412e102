"""The retrieval metrics of one method result against its gold passages: R@{2,5,10}, AR@{2,5}, nDCG@10
(FastInsight §4.3.1), TR / MissTR of the top 10 (FastInsight §4.3.2) on the graph the method searched, and,
for a method that retrieved KG nodes, node-level R@10 / nDCG@10 against the gold nodes (§4.3.1)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
class RetrievesNodes(Protocol):
    """A result whose method may have retrieved KG nodes rather than passages (FastInsight on ``kg_nodes``), so
    R@10 / nDCG@10 can also be scored node by node, as FastInsight §4.3.1 scores its KG corpora. The method
    package implements it on its result (it never imports this module)."""

    def node_sets(self, workspace: Workspace, gold: Sequence[str], k: int) -> tuple[Sequence[int], Sequence[int]] | None:
        """The node indices of the top ``k`` nodes retrieved (best first) and those of the gold nodes; None when
        the run retrieved no node."""
        ...


#: the node-level figures' keys in a record's ``metrics`` (beside the passage-level R@10 and nDCG@10)
NODE_METRICS = (f"node R@{NDCG_K}", f"node nDCG@{NDCG_K}")


def node_metrics(workspace: Workspace, gold: Iterable[str], *, result: object | None = None) -> dict[str, float]:
    """Node-level R@10 and nDCG@10 (FastInsight §4.3.1) of a result that retrieved KG nodes
    (:class:`RetrievesNodes`): its top 10 nodes against the gold nodes, capped recall and binary nDCG exactly
    as for passages (:func:`~core.eval.metrics.recall_at_k`, :func:`~core.eval.metrics.ndcg_at_k`).

    Empty — no figure rather than a zero — for a result that retrieved passages, and when no gold passage
    has a node (the gold node set is empty, so neither figure is defined)."""
    g = list(gold)
    if not g or not isinstance(result, RetrievesNodes):
        return {}
    sets = result.node_sets(workspace, g, NDCG_K)
    if sets is None or not len(sets[1]):
        return {}
    top, gold_nodes = [str(v) for v in sets[0]], {str(v) for v in sets[1]}  # node indices, keyed as ids
    return {NODE_METRICS[0]: recall_at_k(top, gold_nodes, NDCG_K), NODE_METRICS[1]: ndcg_at_k(top, gold_nodes, NDCG_K)}


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
