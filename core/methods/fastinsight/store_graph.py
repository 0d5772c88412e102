"""FastInsight's KG-node graph read from a graph store, item by item (FastInsight §4.2.2).

On a workspace whose KG lives in FalkorDB, :func:`~core.methods.fastinsight.node_graph.node_graph`
would read every node, edge and chunk into the process. FastInsight does not need that: after the
initial vector search over the node vectors (the workspace's FAISS file), Algorithm 1 only reads

* the texts ``c_n`` of the nodes it ranks (GRanker's reranker inputs, §3.3),
* the neighbour rows of ``N_ret`` (STeX's candidates and ``A``, §3.4, Algorithm 2 line 2),
* ``deg_E`` of the retrieved nodes and of STeX's candidates (Algorithm 2 line 3, Algorithm 3 line 9),
* the provenance of the ranked nodes (the passages they map to).

:class:`StoreNodeGraph` is a :class:`~core.methods.fastinsight.node_graph.KGNodeGraph` that reads
exactly these from the :class:`~core.graph.stores.store.GraphStore`, in batches (one read per GRanker or
STeX call), and keeps what it read for the rest of the question. Its items are the store's node
indices, which are the rows of the node FAISS file, so the loop, GRanker and STeX run on it
unchanged and return what they return on the in-memory node graph (tested item for item).

Whole-graph statistics (isolated nodes, the mean degree) are not computed here; the trace says so.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from functools import singledispatch
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from core.errors import EmptyGraphError, StoreError, UnknownNameError
from core.graph.model import KnowledgeGraph
from core.graph.view import StoreGraphView
from core.methods.fastinsight.node_graph import KGNodeGraph, node_graph
from core.methods.kg_nodes import NODE_TEXT_CHARS, PAGE, compose_node_text, store_gold_nodes

if TYPE_CHECKING:
    from core.graph.stores.store import GraphStore


@dataclass(eq=False)
class _Rows:
    """What one question has read from the store: node rows, texts, neighbour rows, degrees."""

    store: GraphStore
    max_chars: int
    node: dict[int, tuple[str, str, str, tuple[str, ...]]] = field(default_factory=dict)
    text: dict[int, str] = field(default_factory=dict)
    chunk_text: dict[str, str] = field(default_factory=dict)
    nbrs: dict[int, np.ndarray] = field(default_factory=dict)
    deg: dict[int, int] = field(default_factory=dict)
    reads: dict[str, int] = field(default_factory=lambda: {"node_rows": 0, "neighbor_rows": 0, "degrees": 0})

    def load(self, nodes: Sequence[int], *, texts: bool = False) -> None:
        missing = [v for v in dict.fromkeys(int(x) for x in nodes) if v not in self.node]
        if missing:
            self.node.update(zip(missing, self.store.node_table(missing)))
            self.reads["node_rows"] += len(missing)
        if not texts:
            return
        todo = [v for v in dict.fromkeys(int(x) for x in nodes) if v not in self.text]
        want = [c for v in todo for c in self.node[v][3] if c not in self.chunk_text]
        if want:
            self.chunk_text.update((cid, text) for cid, _, text in self.store.chunks(list(dict.fromkeys(want))))
        for v in todo:
            _, name, desc, cids = self.node[v]
            self.text[v] = compose_node_text(name, desc, [self.chunk_text[c] for c in cids if c in self.chunk_text],
                                             max_chars=self.max_chars)

    def neighbours(self, nodes: Sequence[int]) -> None:
        missing = [v for v in dict.fromkeys(int(x) for x in nodes) if v not in self.nbrs]
        if missing:
            for v, row in zip(missing, self.store.neighbor_lists(missing)):
                self.nbrs[v] = row
                self.deg[v] = int(row.size)
            self.reads["neighbor_rows"] += len(missing)

    def degrees(self, nodes: Sequence[int]) -> None:
        missing = [v for v in dict.fromkeys(int(x) for x in nodes) if v not in self.deg]
        if missing:
            self.deg.update(zip(missing, (int(d) for d in self.store.neighbor_counts(missing))))
            self.reads["degrees"] += len(missing)


class _Column(Sequence[Any]):
    """One column of the store's nodes (id, name, text or provenance) as a lazy sequence of length
    ``n``: an item is read from the store on first access; :meth:`prefetch` reads many in one go."""

    def __init__(self, rows: _Rows, n: int, what: str) -> None:
        self._rows, self._n, self._what = rows, n, what

    def __len__(self) -> int:
        return self._n

    def prefetch(self, nodes: Sequence[int]) -> None:
        self._rows.load(nodes, texts=self._what == "text")

    def _one(self, v: int) -> Any:
        if not 0 <= v < self._n:
            raise IndexError(f"node {v} is not in the graph store (0..{self._n - 1})")
        if self._what == "text":
            if v not in self._rows.text:
                self._rows.load([v], texts=True)
            return self._rows.text[v]
        if v not in self._rows.node:
            self._rows.load([v])
        i, name, _, cids = self._rows.node[v]
        return {"id": i, "name": name, "linked": cids}[self._what]

    @overload
    def __getitem__(self, i: int) -> Any: ...

    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            idx = list(range(self._n))[i]
            self.prefetch(idx)
            return [self._one(v) for v in idx]
        return self._one(int(i))

    def __iter__(self) -> Iterator[Any]:  # the whole column: read page by page (first-use embedding only)
        for lo in range(0, self._n, PAGE):
            idx = list(range(lo, min(lo + PAGE, self._n)))
            self.prefetch(idx)
            yield from (self._one(v) for v in idx)


@dataclass(frozen=True, eq=False)
class StoreNodeGraph(KGNodeGraph):
    """A :class:`KGNodeGraph` whose nodes, texts and edges stay in a graph store (see the module).

    Build it with :meth:`open`. ``chunk_ids`` (node ids), ``names``, ``passages`` (the node texts
    ``c_n``) and ``linked`` are lazy columns; :meth:`adjacent` and :meth:`degrees_of` read the
    store. ``indptr``/``nbr``/``degree`` (the whole CSR) do not exist here.
    """

    rows: _Rows | None = None
    n_nodes: int = 0
    store_edges: int = 0

    @classmethod
    def open(cls, store: GraphStore, *, max_chars: int = NODE_TEXT_CHARS) -> StoreNodeGraph:
        rows = _Rows(store, int(max_chars))
        n = int(store.n_nodes)
        empty = np.zeros(0, np.int64)
        return cls(_Column(rows, n, "id"), _Column(rows, n, "text"), empty, empty,  # type: ignore[arg-type]
                   "kg_nodes", {"edges": "KG edges (undirected)", "node_text_chars": int(max_chars),
                                "store": store.url},
                   (), names=_Column(rows, n, "name"), linked=_Column(rows, n, "linked"),  # type: ignore[arg-type]
                   rows=rows, n_nodes=n, store_edges=int(store.n_edges))

    @property
    def store(self) -> GraphStore:
        assert self.rows is not None
        return self.rows.store

    def read_ahead(self, nodes: Sequence[int]) -> None:
        self.linked.prefetch([int(v) for v in nodes])  # type: ignore[attr-defined]

    def describe(self) -> dict[str, Any]:
        return {"store": self.store.url, "read": "per question: the node rows, neighbour rows and degrees the loop "
                "touches (whole-graph statistics are not computed)"}

    @property
    def reads(self) -> dict[str, int]:
        """How many node rows, neighbour rows and degrees this graph read from the store."""
        assert self.rows is not None
        return dict(self.rows.reads)

    @property
    def n(self) -> int:
        return self.n_nodes

    @property
    def n_edges(self) -> int:
        """The store's edge count (directed, parallel edges counted), not the simple undirected ``|E|``."""
        return self.store_edges

    @property
    def degree(self) -> np.ndarray:  # type: ignore[override]
        raise StoreError("A graph store's node graph keeps no whole-graph degree array (that would read every "
                         "node); ask degrees_of(nodes) for the nodes you need.")

    def adjacent(self, nodes: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        assert self.rows is not None
        idx = [int(v) for v in np.asarray(nodes, dtype=np.int64).tolist()]
        self.rows.neighbours(idx)
        rows = [self.rows.nbrs[v] for v in idx]
        lens = np.asarray([r.size for r in rows], dtype=np.int64)
        return lens, (np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64))

    def degrees_of(self, nodes: Sequence[int] | np.ndarray) -> np.ndarray:
        assert self.rows is not None
        idx = [int(v) for v in np.asarray(nodes, dtype=np.int64).tolist()]
        self.rows.degrees(idx)
        return np.asarray([self.rows.deg[v] for v in idx], dtype=np.int64)

    def neighbors(self, i: int) -> np.ndarray:
        return self.adjacent([int(i)])[1]

    def gold_nodes(self, gold_chunks: Collection[str]) -> np.ndarray:
        """The nodes whose provenance lists a gold passage (the store's chunk provenance), sorted
        (:func:`~core.methods.kg_nodes.store_gold_nodes`, the rule the evaluation applies too)."""
        return store_gold_nodes(self.store, gold_chunks)

    def index_of(self, chunk_id: str) -> int:
        """Index of the node with id ``chunk_id`` (a node id here)."""
        hits = [v for v in self.store.find_nodes(chunk_id) if self.chunk_ids[v] == chunk_id]
        if not hits:
            raise UnknownNameError("node", chunk_id, [])
        return int(hits[0])

    def to_networkx(self, nodes: Any = None) -> Any:
        if nodes is None:
            raise StoreError("A graph store's node graph is not turned into one networkx graph (that would read "
                             "the whole graph); pass the nodes to draw.")
        return super().to_networkx(nodes)


# ---------------------------------------------------------------------------------- which node graph
@singledispatch
def open_node_graph(graph: Any, *, max_chars: int = NODE_TEXT_CHARS) -> KGNodeGraph:
    """FastInsight's KG node graph of the graph a question reads: built once per graph in memory
    (:func:`~core.methods.fastinsight.node_graph.node_graph`), or a :class:`StoreNodeGraph` that reads from
    the store only the rows a question touches (TR's BFS reads layer by layer)."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@open_node_graph.register
def _(graph: KnowledgeGraph, *, max_chars: int = NODE_TEXT_CHARS) -> KGNodeGraph:
    return node_graph(graph, max_chars=max_chars)


@open_node_graph.register
def _(graph: StoreGraphView, *, max_chars: int = NODE_TEXT_CHARS) -> KGNodeGraph:
    if graph.store.n_nodes == 0:
        raise EmptyGraphError(f"The graph store {graph.store.url} has no nodes, so FastInsight has no KG node to "
                              "retrieve; use graph='passages' or upload triples.")
    return StoreNodeGraph.open(graph.store, max_chars=max_chars)
