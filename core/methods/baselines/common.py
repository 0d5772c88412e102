"""What the baselines share: their result type, the node-level pass of dense retrieval and Re2, and small
helpers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from core.graph.reader import question_graph, read_ahead
from core.methods.base import Backends, Preparation, RunResult
from core.methods.kg_nodes import kg_node_vectors, no_kg_nodes_reason, node_vectors_preparation
from core.trace import Trace

if TYPE_CHECKING:
    from core.graph.reader import GraphLike
    from core.index.vector_index import VectorIndex
    from core.index.workspace import Workspace

NO_RERANKER = "none (this method does not rerank)"
#: why dense retrieval and Re2 have no node ranking by default (their ``node_level`` knob)
NODE_LEVEL_OFF = ("this method ranks passages only: its own node_level knob is off by default, so it ranked no KG "
                  "node (the graph methods did); `egx bench --node-level` (or --set METHOD.node_level=true) adds the "
                  "node-level pass of FastInsight §4.3.1, Table 3")


@dataclass(frozen=True, eq=False)
class BaselineResult(RunResult):
    """A baseline's answer: the method contract plus the reranker in use and method details.

    ``node_ranking`` is what the method would hand over as KG nodes (node rows, best first; FastInsight §4.3.1
    scores it node by node): PPR's best-scored entities, dense retrieval's and Re2's node-level pass
    (``node_level``); empty with ``node_ranking_note`` saying why when there is none."""

    reranker: str = NO_RERANKER  #: registry name and model id of the reranker, or that none was used
    reranker_description: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    node_ranking: tuple[int, ...] = ()
    node_ranking_note: str = ""

    @property
    def evidence_nodes(self) -> tuple[int, ...]:
        """PPR's seed entities (on an entity graph; a corpus graph's seeds are passages)."""
        if self.details.get("graph") == "corpus graph":
            return ()
        return tuple(int(s["node"]) for s in self.details.get("seeds", []))


# ---------------------------------------------------------------------------------- node level
@dataclass(frozen=True)
class NodeSearch:
    """The node-level vector search (``O_vs`` over the KG node vectors, FastInsight §3.1.1 on §4.2.2's nodes)."""

    nodes: np.ndarray  #: node rows, best first
    scores: np.ndarray  #: their cosine with the question
    index: VectorIndex  #: the node vectors searched (FastInsight's, shared)
    graph: GraphLike  #: the question's graph (node names and texts are read from it)


def node_names_of(graph: GraphLike, nodes: list[int]) -> list[str]:
    """The names of ``nodes`` (a store reads them in one batch)."""
    read_ahead(graph, names=nodes)
    return [graph.node_names[v] for v in nodes]


def search_nodes(trace: Trace, workspace: Workspace, backends: Backends, q: np.ndarray, k: int) -> NodeSearch | str:
    """The ``k`` KG nodes whose texts are most similar to the question ``q``, on the node texts and vectors
    FastInsight searches (:func:`~core.methods.kg_nodes.kg_node_vectors`: the same file, embedded once per
    workspace), traced as ``node_search``; or, on a workspace without KG nodes, why not.

    Not pinned for replay (:mod:`core.pinning`): no prompt reads the node ranking, so a recorded run replays
    the same with the node-level pass on or off."""
    why = no_kg_nodes_reason(workspace)
    if why:
        trace.add("node_search", "No KG node to rank", {"why": why}, section="FastInsight §4.3.1 (node level)")
        return why
    with trace.timed("node_search", f"Top-{k} KG nodes by cosine similarity (node level)",
                     section="FastInsight §4.3.1 (node level), §3.1.1 (O_vs over node texts)") as step:
        cached = kg_node_vectors(workspace, backends.embedder)
        scores, ids = cached.index.search(q, k)
        graph = question_graph(workspace)
        found = NodeSearch(ids[0].astype(np.int64), scores[0].astype(np.float64), cached.index, graph)
        rows = found.nodes.tolist()
        step.data = {"nodes": rows, "names": node_names_of(graph, rows), "scores": np.round(found.scores, 6),
                     "node_vectors": "embedded now" if cached.built else "read from the workspace cache"}
        if cached.note:
            step.fallback = cached.note
    return found


def node_level_preparation(who: str) -> Preparation:
    """The node vectors as the :class:`~core.methods.base.Preparation` of a baseline with a ``node_level``
    knob: needed only when it is on (the same job and file as FastInsight's)."""
    return node_vectors_preparation(f"{who} (node level)", lambda cfg: bool(getattr(cfg, "node_level", False)))
