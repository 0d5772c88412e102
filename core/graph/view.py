"""A read-through view of a graph store, for one question, so a store's graph is never loaded whole.

:class:`StoreGraphView` answers the parts of :class:`~core.graph.model.KnowledgeGraph` that a
method's per-question stages read (names, edge endpoints and relations, enriched edge texts,
provenance, chunks, incident edges) by asking the :class:`~core.graph.stores.store.GraphStore`, and keeps
what it read for the rest of the question. Nothing is read up front and the whole graph is never
loaded, so a question costs the store reads of the region it touches; the view is dropped with the
question, so the process's memory does not grow with the KG.

Indices are the store's global ones (the FAISS row numbers), the same as the in-memory graph's, so
code written against a :class:`KnowledgeGraph` runs on either and returns the same results
(``tests/methods/bubblerag/test_store_view.py``, ``tests/methods/test_store_same_results.py``). A region the method already read
(:meth:`absorb`) fills the view in one step instead of one read per item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from core.errors import UnknownNameError
from core.graph.model import Chunk
from core.graph.stores.store import GraphStore, Region

T = TypeVar("T")


class _ReadThrough(Generic[T]):
    """``view[i]`` for global index ``i``, read from the store on first use (``fetch`` takes a list of
    indices and returns their values in order) and kept; :meth:`prefetch` reads many in one batch."""

    def __init__(self, fetch: Callable[[list[int]], Sequence[T]]) -> None:
        self._fetch = fetch
        self._got: dict[int, T] = {}

    def __getitem__(self, i: int) -> T:
        k = int(i)
        if k not in self._got:
            self.prefetch([k])
        return self._got[k]

    def prefetch(self, ids: Iterable[int]) -> None:
        missing = list(dict.fromkeys(int(i) for i in ids if int(i) not in self._got))
        if missing:
            self._got.update(zip(missing, self._fetch(missing)))

    def put(self, i: int, value: T) -> None:
        self._got.setdefault(int(i), value)

    def __contains__(self, i: object) -> bool:  # already read (no store access)
        return isinstance(i, (int, np.integer)) and int(i) in self._got

    def __len__(self) -> int:  # what was read so far (the view never knows the whole graph)
        return len(self._got)


class _ChunkIndex:
    """``chunk id → row number`` (row ``r`` of the chunk FAISS file), read through from the store;
    ``in`` is true for the chunks the store holds."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store
        self._got: dict[str, int | None] = {}

    def prefetch(self, ids: Iterable[str]) -> None:
        self._read(ids)

    def _read(self, ids: Iterable[str]) -> None:
        missing = [c for c in dict.fromkeys(ids) if c not in self._got]
        if missing:
            rows = self._store.chunk_row_numbers(missing)
            self._got.update((c, rows.get(c)) for c in missing)

    def __contains__(self, chunk_id: object) -> bool:
        if not isinstance(chunk_id, str):
            return False
        self._read([chunk_id])
        return self._got[chunk_id] is not None

    def __getitem__(self, chunk_id: str) -> int:
        self._read([chunk_id])
        row = self._got[chunk_id]
        if row is None:
            raise KeyError(chunk_id)
        return row

    def put(self, chunk_id: str, row: int) -> None:
        self._got.setdefault(chunk_id, row)


class _ChunkRows:
    """``view.chunks[r]``: the chunk at row ``r``, read through from the store."""

    def __init__(self, store: GraphStore, n: int) -> None:
        self._rows = _ReadThrough(lambda rows: [Chunk(*c) for c in store.chunk_rows(rows)])
        self._n = n

    def __getitem__(self, r: int) -> Chunk:
        return self._rows[r]

    def prefetch(self, rows: Iterable[int]) -> None:
        self._rows.prefetch(rows)

    def __len__(self) -> int:
        return self._n


class _Degrees:
    """``view.degree[v]`` (an int) or ``view.degree[array]`` (an int64 array), read through from the
    store's :meth:`~core.graph.stores.store.GraphStore.degrees`: the per-item reads of
    :attr:`KnowledgeGraph.degree` that a drawing makes (sizes, tooltips, which nodes get a label).
    The whole degree array is deliberately not offered."""

    def __init__(self, store: GraphStore) -> None:
        self._rows: _ReadThrough[int] = _ReadThrough(lambda ids: store.degrees(ids).tolist())

    def prefetch(self, ids: Iterable[int]) -> None:
        self._rows.prefetch(ids)

    def __getitem__(self, i: Any) -> Any:  # int for an index, np.ndarray for an index array
        if np.ndim(i) == 0:
            return self._rows[int(i)]
        ids = np.asarray(i, dtype=np.int64).ravel()
        self._rows.prefetch(ids.tolist())
        return np.asarray([self._rows[v] for v in ids.tolist()], dtype=np.int64).reshape(np.shape(i))


class StoreGraphView:
    """The per-question graph of a workspace whose KG lives in a graph store (see the module docstring).

    Offers, with the :class:`KnowledgeGraph` meaning: ``n_nodes``, ``n_edges``, ``n_chunks``, ``kind``,
    ``name``, ``node_ids[v]``, ``node_names[v]``, ``node_descriptions[v]``, ``node_chunks[v]``,
    ``degree[v]`` (or ``degree[array]``), ``edge_head[e]``, ``edge_tail[e]``, ``edge_relation[e]``,
    ``edge_chunks[e]``, :meth:`edge_text`, :meth:`chunk`, ``chunks[r]``, ``chunk_index``,
    :meth:`incident_edges`, :meth:`induced_edges`, :meth:`neighbor_lists`. Whole-graph members
    (``csr``, the ``degree`` array, ``stats``, ``components``) are deliberately absent: a stage that
    needs them must read a region instead. The app's pages draw through the same view
    (:meth:`prefetch_drawing` reads what a drawing shows in one batch per kind).
    """

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.n_nodes, self.n_edges, self.n_chunks = store.n_nodes, store.n_edges, store.n_chunks
        self.kind = store.kind
        self.name = store.graph_name
        self._nodes: _ReadThrough[tuple[str, str]] = _ReadThrough(store.node_rows)
        self._descriptions: _ReadThrough[str] = _ReadThrough(lambda ids: [r[2] for r in store.node_table(ids)])
        self.node_descriptions = self._descriptions
        self.degree = _Degrees(store)
        self._edges: _ReadThrough[tuple[int, str, int]] = _ReadThrough(store.edge_rows)
        self.node_chunks: _ReadThrough[tuple[str, ...]] = _ReadThrough(store.node_chunks)
        self.edge_chunks: _ReadThrough[tuple[str, ...]] = _ReadThrough(store.edge_chunks)
        self.node_ids = _Column(self._nodes, 0)
        self.node_names = _Column(self._nodes, 1)
        self.edge_head = _Column(self._edges, 0)
        self.edge_relation = _Column(self._edges, 1)
        self.edge_tail = _Column(self._edges, 2)
        self.chunk_index = _ChunkIndex(store)
        self.chunks = _ChunkRows(store, self.n_chunks)
        self._chunk_text: dict[str, Chunk] = {}

    def __repr__(self) -> str:
        return f"StoreGraphView({self.store.url}, read {len(self._nodes)} nodes, {len(self._edges)} edges)"

    # ------------------------------------------------------------------ KnowledgeGraph's per-item API
    def edge_text(self, e: int) -> str:
        """Enriched edge text ``"head relation tail"`` (BubbleRAG §3.1), as :meth:`KnowledgeGraph.edge_text`."""
        h, rel, t = self._edges[e]
        self._nodes.prefetch((h, t))
        return f"{self.node_names[h]} {rel} {self.node_names[t]}"

    def chunk(self, chunk_id: str) -> Chunk:
        if chunk_id not in self._chunk_text:
            got = self.store.chunks([chunk_id])
            if not got:
                raise UnknownNameError("chunk", chunk_id, [])
            self._chunk_text[chunk_id] = Chunk(*got[0])
        return self._chunk_text[chunk_id]

    def incident_edges(self, nodes: Iterable[int]) -> np.ndarray:
        """Distinct ids of the edges touching any of ``nodes``, sorted (one store read)."""
        ids = [int(v) for v in nodes]
        return self.store.incident_edges(ids) if ids else np.zeros(0, dtype=np.int64)

    def induced_edges(self, nodes: Iterable[int]) -> np.ndarray:
        """Ids of the edges whose both endpoints are in ``nodes``, sorted, as
        :meth:`KnowledgeGraph.induced_edges` (one read of the incident edges, one of their rows)."""
        inside = {int(v) for v in nodes}
        touching = self.incident_edges(sorted(inside))
        self._edges.prefetch(touching.tolist())
        keep = [e for e in touching.tolist() if self._edges[e][0] in inside and self._edges[e][2] in inside]
        return np.asarray(keep, dtype=np.int64)

    def neighbor_lists(self, nodes: Sequence[int]) -> list[np.ndarray]:
        """The distinct other nodes adjacent to each of ``nodes`` (either direction), in one store read."""
        return self.store.neighbor_lists([int(v) for v in nodes]) if len(nodes) else []

    # ------------------------------------------------------------------ batching
    def prefetch_provenance(self, edges: Iterable[int], nodes: Iterable[int], chunk_ids: Iterable[str] = ()) -> None:
        """Read the provenance of ``edges`` and ``nodes``, and the row numbers of the chunks it cites
        (and of ``chunk_ids``), in batches: what an answer stage then reads item by item."""
        es, vs = [int(e) for e in edges], [int(v) for v in nodes]
        self.edge_chunks.prefetch(es)
        self.node_chunks.prefetch(vs)
        cited = [c for e in es for c in self.edge_chunks[e]] + [c for v in vs for c in self.node_chunks[v]]
        self.chunk_index.prefetch([*cited, *chunk_ids])

    def prefetch_edges(self, edges: Iterable[int]) -> None:
        """Read the rows of ``edges`` and the names of their endpoints in one batch each: what
        :meth:`edge_text` then reads item by item (the triples an LLM stage is shown)."""
        es = [int(e) for e in edges]
        self._edges.prefetch(es)
        self._nodes.prefetch({v for e in es for v in (self._edges[e][0], self._edges[e][2])})

    def prefetch_chunks(self, chunk_ids: Iterable[str] = (), rows: Iterable[int] = ()) -> None:
        """Read the chunks with these ids (title, text) and those at these FAISS ``rows`` in one batch
        each: what ``chunk(id)``, ``chunk_index`` and ``chunks[r]`` then answer without a read."""
        rs = [int(r) for r in rows]
        if rs:
            self.chunks.prefetch(rs)
            for r in rs:
                c = self.chunks[r]
                self._chunk_text.setdefault(c.id, c)
                self.chunk_index.put(c.id, r)
        missing = [c for c in dict.fromkeys(chunk_ids) if c not in self._chunk_text]
        if missing:
            for row in self.store.chunks(missing):
                self._chunk_text.setdefault(row[0], Chunk(*row))
            self.chunk_index.prefetch(missing)

    def prefetch_names(self, nodes: Iterable[int]) -> None:
        """Read the ids and names of ``nodes`` in one batch."""
        self._nodes.prefetch(int(v) for v in nodes)

    def prefetch_drawing(self, nodes: Iterable[int], edges: Iterable[int] = ()) -> None:
        """Read what a drawing of ``nodes`` and ``edges`` shows (ids, names, descriptions,
        provenance and degrees of the nodes; rows of the edges) in one batch per kind, so the
        drawing code then reads item by item without a round trip each."""
        vs = list(dict.fromkeys(int(v) for v in nodes))
        missing = [v for v in vs if v not in self._descriptions]
        if missing:
            for v, (nid, name, desc, chunks) in zip(missing, self.store.node_table(missing)):
                self._nodes.put(v, (nid, name))
                self._descriptions.put(v, desc)
                self.node_chunks.put(v, tuple(chunks))
        self.degree.prefetch(vs)
        self._edges.prefetch(int(e) for e in edges)

    def absorb(self, region: Region) -> None:
        """Keep what a region read from the store (names, endpoints, relations, provenance), so the
        stages after it read nothing again for the region's nodes and edges."""
        g, nodes, edges = region.graph, region.nodes, region.edges
        for i, v in enumerate(nodes.tolist()):
            self._nodes.put(v, (g.node_ids[i], g.node_names[i]))
            self.node_chunks.put(v, tuple(g.node_chunks[i]))
        head, tail = nodes[g.edge_head], nodes[g.edge_tail]
        for i, e in enumerate(edges.tolist()):
            self._edges.put(e, (int(head[i]), g.edge_relation[i], int(tail[i])))
            self.edge_chunks.put(e, tuple(g.edge_chunks[i]))


class _Column:
    """One field of a read-through row table: ``view.node_names[v]`` is ``rows[v][field]``."""

    def __init__(self, rows: _ReadThrough, field: int) -> None:
        self._rows, self._field = rows, field

    def __getitem__(self, i: int) -> Any:  # str or int, by column
        return self._rows[i][self._field]
