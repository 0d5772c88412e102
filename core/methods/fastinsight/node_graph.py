"""The graph FastInsight searches on a KG: the KG's own nodes (FastInsight §4.2.2, text-rich KGs).

FastInsight's text-rich knowledge graphs (BSARD-G, SciFact-G, NFCorpus-G, §4.2.2) are built with
LightRAG's procedure: every node is an *entity* with a name and a textual description drawn from
the passages it was extracted from, edges are the extracted relations, and "all nodes constructed
from the original gold documents" are the gold nodes. FastInsight retrieves those nodes: its corpus
graph (Definition 1) has a key ``k_n`` and a content ``c_n`` per node.

Our KGs come from OpenIE or spaCy extraction and rarely carry descriptions, so the node content
``c_n`` is the text a LightRAG description would be written from (the recipe lives in
:mod:`core.methods.kg_nodes`, which dense retrieval and Re2 read too for their node-level pass):

    c_n = name [": " description] "\\n" text of the linked passage(s)   — cut to ``max_chars`` (512)

(the passages in the node's provenance order, joined by a space). Edges are the KG's edges taken
undirected, simple, without self-loops — what Algorithms 2 and 3 need (see
:mod:`~core.graph.passage_graph`). ``deg_E(n)`` is therefore the number of distinct
neighbouring entities.

The graph is a :class:`KGNodeGraph`, a :class:`~.passage_graph.PassageGraph` whose items are KG
nodes: ``chunk_ids`` holds node ids (the keys ``k_n``), ``passages`` the node texts ``c_n``, so
the loop, GRanker and STeX run on it unchanged. :func:`passages_of_nodes` maps a node ranking to
passages (rank order, duplicates dropped) so passage-level metrics (R@k) still apply.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import ConfigError, EmptyGraphError
from core.graph.passage_graph import PassageGraph, _symmetric_csr
from core.methods.kg_nodes import NODE_TEXT_CHARS, kg_node_texts, nodes_citing
from core.methods.kg_nodes import compose_node_text as compose_node_text
from core.methods.kg_nodes import node_text as node_text

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph


@dataclass(frozen=True, eq=False)
class KGNodeGraph(PassageGraph):
    """A :class:`PassageGraph` whose items are KG nodes (``source == "kg_nodes"``).

    ``chunk_ids[i]`` is the node id, ``passages[i]`` the node text; ``names[i]`` the node name and
    ``linked[i]`` the chunk ids of the passages the node was extracted from (its provenance).
    """

    names: tuple[str, ...] = ()
    linked: tuple[tuple[str, ...], ...] = ()

    def gold_nodes(self, gold_chunks: Collection[str]) -> np.ndarray:
        """The paper's gold nodes (§4.2.2): every node linked to a gold passage, sorted
        (:func:`~core.methods.kg_nodes.nodes_citing`, the rule the evaluation applies too)."""
        return nodes_citing(self.linked, gold_chunks)

    def nodes_of_chunk(self, chunk_id: str) -> np.ndarray:
        """Nodes linked to one passage (through which that passage is reached)."""
        return self.gold_nodes((chunk_id,))

    def read_ahead(self, nodes: Sequence[int]) -> None:
        """What the answer step reads of ``nodes`` (their provenance), read in one batch: nothing to read in
        memory; :class:`~core.methods.fastinsight.store_graph.StoreNodeGraph` reads it from its store."""

    def describe(self) -> dict[str, Any]:
        """What the trace says about this node graph beyond its size: its isolated nodes and mean degree (a
        store's node graph says what it reads instead, never computing whole-graph statistics)."""
        return {"isolated_nodes": int((self.degree == 0).sum()), "mean_degree": float(self.degree.mean()) if self.n else 0.0,
                "nodes_without_passage": sum(1 for cids in self.linked if not cids)}

    @property
    def reads(self) -> dict[str, int]:
        """How many rows this graph read from a graph store ({} in memory)."""
        return {}


def node_graph(graph: KnowledgeGraph, *, max_chars: int = NODE_TEXT_CHARS) -> KGNodeGraph:
    """The KG as FastInsight's corpus graph: nodes with their texts, edges undirected (§4.2.2).

    Kept on the graph per ``max_chars`` (:meth:`~core.graph.model.KnowledgeGraph.derived`).

    Parameters
    ----------
    graph : KnowledgeGraph
        A KG (``kind == "kg"``) with at least one node.
    max_chars : int
        Node texts are cut to this many characters (default 512).

    Returns
    -------
    KGNodeGraph
        Nodes in the graph's node order (row ``i`` is KG node ``i``).

    Raises
    ------
    EmptyGraphError
        If the graph has no nodes.
    ConfigError
        If ``max_chars < 1``.

    Examples
    --------
    >>> from core.graph.graph_builder import GraphBuilder
    >>> b = GraphBuilder()
    >>> a = b.add_chunk("A", "Paris is in France.", chunk_id="a")
    >>> _ = b.add_triple("Paris", "in", "France", chunk_id=a)
    >>> ng = node_graph(b.build())
    >>> ng.n, ng.n_edges, ng.passages[0]
    (2, 1, 'Paris\\nParis is in France.')
    """
    if graph.n_nodes == 0:
        raise EmptyGraphError(f"Graph {graph.name!r} has no nodes, so FastInsight has no KG node to retrieve; "
                              "use graph='passages' or upload triples.")
    if max_chars < 1:
        raise ConfigError(f"node_text_chars must be at least 1, got {max_chars}.")
    return graph.derived(("fastinsight.node_graph", int(max_chars)), lambda: _build(graph, int(max_chars)))


def _build(graph: KnowledgeGraph, max_chars: int) -> KGNodeGraph:
    n = graph.n_nodes
    pairs = np.stack([graph.edge_head.astype(np.int64), graph.edge_tail.astype(np.int64)], axis=1)
    indptr, nbr = _symmetric_csr(n, pairs)
    texts = kg_node_texts(graph, max_chars=max_chars)  # the shared recipe, computed once per graph
    return KGNodeGraph(tuple(graph.node_ids), texts, indptr, nbr, "kg_nodes",
                       {"edges": "KG edges (undirected)", "node_text_chars": max_chars}, (),
                       names=tuple(graph.node_names), linked=tuple(tuple(c) for c in graph.node_chunks))


def passages_of_nodes(ng: KGNodeGraph, ranking: Sequence[int] | np.ndarray,
                      scores: Sequence[float] | np.ndarray | None = None, *,
                      passage_scores: Mapping[str, float] | None = None) -> list[tuple[str, float, int]]:
    """Map a node ranking to passages: ``(chunk id, score, rank of the node that brought it)``.

    Each node contributes its linked passages; a passage keeps the first (best) node's score and
    1-based rank, later repeats are dropped, nodes without a passage add nothing. A node's own
    passages come in provenance order, or, with ``passage_scores`` (e.g. the query's similarity to
    each passage), best first — a node such as "Keanu Reeves" links several passages, and the one
    closest to the question should lead (the paper retrieves nodes and never needs this step).

    Examples
    --------
    >>> ng = KGNodeGraph(("a", "b"), ("", ""), np.zeros(3, np.int64), np.zeros(0, np.int32), "kg_nodes",
    ...                  linked=(("p2", "p1"), ("p1", "p3")))
    >>> passages_of_nodes(ng, [1, 0], [0.9, 0.5])
    [('p1', 0.9, 1), ('p3', 0.9, 1), ('p2', 0.5, 2)]
    >>> [c for c, _, _ in passages_of_nodes(ng, [0], passage_scores={"p1": 0.8, "p2": 0.1})]
    ['p1', 'p2']
    """
    seen: set[str] = set()
    out: list[tuple[str, float, int]] = []
    sc = np.zeros(len(ranking)) if scores is None else np.asarray(scores, dtype=np.float64)
    for r, (v, s) in enumerate(zip(np.asarray(ranking).tolist(), sc.tolist()), start=1):
        linked = ng.linked[int(v)]
        if passage_scores is not None:
            linked = tuple(sorted(linked, key=lambda c: -passage_scores.get(c, -np.inf)))  # stable: ties keep order
        for c in linked:
            if c not in seen:
                seen.add(c)
                out.append((c, float(s), r))
    return out
