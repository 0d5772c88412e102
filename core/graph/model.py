"""The KnowledgeGraph model: text on nodes, edges and chunks; compact arrays for algorithms.

A graph holds

* **chunks** — the source passages (id, title, text) every node and edge points back to;
* **nodes** — id, display name, optional description and the ids of the chunks they came from;
* **directed edges** — head, relation, tail and provenance chunk ids. The searchable text of an
  edge is the *enriched* string ``"head relation tail"`` (BubbleRAG §3.1: "for a standard triplet
  (A, R, B), the edge connecting node A and node B stores the combined textual content ARB").

Algorithms run on CSR arrays (:attr:`KnowledgeGraph.csr` for both directions, ``csr_out`` for
outgoing edges only; the arrays and the walk over them live in :mod:`core.graph.csr`); networkx is only
for display, small graphs and test oracles. Every hop-by-hop walk goes through
:func:`~core.graph.csr.bfs_layers` (``KnowledgeGraph.bfs_layers`` / ``khop`` / ``hop_distances``),
and every structure derived from a graph and reused across questions (a method's passage graph, name
index, provenance lists, ...) is kept on the graph itself with :meth:`KnowledgeGraph.derived`, so it
lives exactly as long as the graph.

A *corpus graph* (FastInsight §2.1) uses the same model with ``kind="corpus_graph"``: every node is
one chunk (name = title, description = text) and edges are links/references between chunks.

A graph is built in :mod:`core.graph.graph_builder` (:class:`~core.graph.graph_builder.GraphBuilder`,
``graph_from_triples``, and ``graph_from_dict`` for reading an export back); this module only reads
one, and writes its export (:meth:`KnowledgeGraph.to_dict`, :meth:`KnowledgeGraph.iter_json`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np

from core.errors import UnknownNameError
from core.graph.csr import CSR, bfs_layers, build_csr, csr_ranges
from core.text import content_hash, normalize_name

if TYPE_CHECKING:
    import networkx as nx

GraphKind = Literal["kg", "corpus_graph"]
FORMAT_VERSION = 1
T = TypeVar("T")


@dataclass(frozen=True)
class Chunk:
    """A source passage. ``passage`` is what gets embedded: title and text on separate lines."""

    id: str
    title: str
    text: str

    @property
    def passage(self) -> str:
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True, eq=False)
class KnowledgeGraph:
    """An immutable knowledge graph (or corpus graph). Build one with :class:`~core.graph.graph_builder.GraphBuilder`.

    Parameters
    ----------
    node_ids, node_names, node_descriptions, node_chunks
        Parallel per-node tuples; ``node_chunks[v]`` lists provenance chunk ids.
    edge_head, edge_tail
        ``int32`` arrays of node indices; edges are directed head → tail.
    edge_relation, edge_chunks
        Per-edge relation label and provenance chunk ids.
    chunks
        Source passages.
    kind
        ``"kg"`` (entities and relations) or ``"corpus_graph"`` (nodes are chunks).
    """

    node_ids: tuple[str, ...]
    node_names: tuple[str, ...]
    node_descriptions: tuple[str, ...]
    node_chunks: tuple[tuple[str, ...], ...]
    edge_head: np.ndarray
    edge_tail: np.ndarray
    edge_relation: tuple[str, ...]
    edge_chunks: tuple[tuple[str, ...], ...]
    chunks: tuple[Chunk, ...]
    kind: GraphKind = "kg"
    name: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ sizes and lookups
    @property
    def n_nodes(self) -> int:
        return len(self.node_ids)

    @property
    def n_edges(self) -> int:
        return len(self.edge_relation)

    @property
    def n_chunks(self) -> int:
        return len(self.chunks)

    @cached_property
    def node_index(self) -> dict[str, int]:
        return {nid: i for i, nid in enumerate(self.node_ids)}

    @cached_property
    def chunk_index(self) -> dict[str, int]:
        return {c.id: i for i, c in enumerate(self.chunks)}

    @cached_property
    def _name_index(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for i, name in enumerate(self.node_names):
            out.setdefault(normalize_name(name), []).append(i)
        return out

    def node(self, key: str | int) -> int:
        """Index of a node given its index, id, or (normalized) name.

        Raises
        ------
        UnknownNameError
            If no node has that id or name; the message lists close matches.
        """
        if isinstance(key, (int, np.integer)):
            if 0 <= int(key) < self.n_nodes:
                return int(key)
            raise UnknownNameError("node", str(key), [f"0..{self.n_nodes - 1}"])
        if key in self.node_index:
            return self.node_index[key]
        hits = self._name_index.get(normalize_name(key))
        if hits:
            return hits[0]
        raise UnknownNameError("node", key, self.search_nodes(key, limit=10) or ["(graph is empty)"])

    def search_nodes(self, text: str, *, limit: int = 20) -> list[str]:
        """Names of nodes whose normalized name contains ``text`` (shortest names first)."""
        q = normalize_name(text)
        if not q:
            return []
        hits = [n for n in self._name_index if q in n]
        hits.sort(key=lambda s: (len(s), s))
        return [self.node_names[self._name_index[h][0]] for h in hits[:limit]]

    # ------------------------------------------------------------------ text views
    def edge_text(self, e: int) -> str:
        """Enriched edge text ``"head relation tail"`` (BubbleRAG §3.1)."""
        h, t = int(self.edge_head[e]), int(self.edge_tail[e])
        return f"{self.node_names[h]} {self.edge_relation[e]} {self.node_names[t]}"

    @cached_property
    def edge_texts(self) -> tuple[str, ...]:
        return tuple(self.edge_text(e) for e in range(self.n_edges))

    def node_text(self, v: int) -> str:
        """What is embedded for a node: its name, with its description when it has one."""
        d = self.node_descriptions[v]
        return f"{self.node_names[v]}: {d}" if d else self.node_names[v]

    @cached_property
    def node_texts(self) -> tuple[str, ...]:
        return tuple(self.node_text(v) for v in range(self.n_nodes))

    @cached_property
    def title_places(self) -> dict[str, tuple[int, int]]:
        """Chunk id → (its place among its title's chunks, from 1; how many chunks the title has), for the chunks
        whose title is several passages (a document split per paragraph or by size)."""
        by_title: dict[str, list[str]] = {}
        for c in self.chunks:
            by_title.setdefault(c.title, []).append(c.id)
        return {cid: (i, len(ids)) for ids in by_title.values() if len(ids) > 1
                for i, cid in enumerate(ids, start=1)}

    def chunk(self, chunk_id: str) -> Chunk:
        try:
            return self.chunks[self.chunk_index[chunk_id]]
        except KeyError:
            raise UnknownNameError("chunk", chunk_id, [c.id for c in self.chunks[:20]]) from None

    # ------------------------------------------------------------------ structure
    @cached_property
    def csr(self) -> CSR:
        """Undirected adjacency: every edge appears in the rows of both endpoints."""
        e = np.arange(self.n_edges, dtype=np.int32)
        src = np.concatenate([self.edge_head, self.edge_tail]).astype(np.int64)
        dst = np.concatenate([self.edge_tail, self.edge_head]).astype(np.int64)
        return build_csr(self.n_nodes, src, dst, np.concatenate([e, e]))

    @cached_property
    def csr_out(self) -> CSR:
        """Directed adjacency over outgoing edges (head → tail)."""
        e = np.arange(self.n_edges, dtype=np.int32)
        return build_csr(self.n_nodes, self.edge_head.astype(np.int64), self.edge_tail.astype(np.int64), e)

    @cached_property
    def degree(self) -> np.ndarray:
        """Undirected degree counting parallel edges (a self-loop counts twice)."""
        return np.diff(self.csr.indptr).astype(np.int64)

    def neighbors(self, v: int) -> np.ndarray:
        """Distinct neighbours of ``v`` in either direction, sorted."""
        return np.unique(self.csr.row(v)[0])

    def incident_edges(self, nodes: Iterable[int]) -> np.ndarray:
        """Distinct ids of the edges touching any of ``nodes`` (either direction), sorted."""
        rows = np.fromiter((int(v) for v in nodes), dtype=np.int64)
        if not rows.size:
            return np.zeros(0, dtype=np.int64)
        return np.unique(self.csr.eid[csr_ranges(self.csr.indptr, rows)]).astype(np.int64)

    def bfs_layers(self, sources: Iterable[int], *, max_hops: int | None = None) -> Iterator[np.ndarray]:
        """Undirected breadth-first layers from ``sources`` (see :func:`core.graph.csr.bfs_layers`)."""
        return bfs_layers(self.csr.indptr, self.csr.nbr, sources, max_hops=max_hops)

    def khop(self, sources: Iterable[int], h: int) -> np.ndarray:
        """Nodes within ``h`` undirected hops of any source (sources included), sorted.

        The localized graph of BubbleRAG §3.3 Phase 1 and ReG's scored neighbourhood are built from it.
        """
        layers = list(self.bfs_layers(sources, max_hops=h))
        return np.sort(np.concatenate(layers)) if layers else np.zeros(0, dtype=np.int64)

    def hop_distances(self, sources: Iterable[int], *, max_hops: int | None = None) -> dict[int, int]:
        """Undirected hop distance from the nearest source to every node reached within ``max_hops``."""
        return {int(v): d for d, layer in enumerate(self.bfs_layers(sources, max_hops=max_hops)) for v in layer.tolist()}

    def neighbor_sets(self) -> list[set[int]]:
        """Distinct neighbours of every node in either direction, self-loops left out (cached on the
        graph; for set algebra over many nodes, e.g. ERQA's bridge-star questions)."""
        def build() -> list[set[int]]:
            return [set(self.neighbors(v).tolist()) - {v} for v in range(self.n_nodes)]

        return self.derived("neighbor_sets", build)

    # ------------------------------------------------------------------ derived structures
    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the derived structures (they are rebuilt on demand)."""
        return {k: v for k, v in self.__dict__.items() if k != "_derived"}

    def derived(self, key: Hashable, build: Callable[[], T], *, rebuild: bool = False) -> T:
        """A structure derived from this graph, built by ``build()`` once per ``key`` and kept on the
        graph for as long as it lives (the graph is immutable, so it never goes stale).

        The one per-graph cache of the project: FastInsight's passage graph, PPR's entity graph,
        ReG's name index, SG-RAG's prepared indexes and the provenance lists all use it. Safe to
        call from several threads: two racing builds return the same (first stored) value.
        ``rebuild`` replaces a stored value.
        """
        store: dict[Hashable, Any] = self.__dict__.setdefault("_derived", {})
        if not rebuild and key in store:
            return store[key]  # type: ignore[no-any-return]
        value = build()
        if rebuild:
            store[key] = value
            return value
        return store.setdefault(key, value)  # type: ignore[no-any-return]

    def chunk_provenance(self) -> dict[str, tuple[list[int], list[int]]]:
        """Chunk id → (node indices, edge indices) whose provenance lists that chunk, in index order."""
        def build() -> dict[str, tuple[list[int], list[int]]]:
            out: dict[str, tuple[list[int], list[int]]] = {c.id: ([], []) for c in self.chunks}
            for v, cids in enumerate(self.node_chunks):
                for c in cids:
                    out.setdefault(c, ([], []))[0].append(v)
            for e, cids in enumerate(self.edge_chunks):
                for c in cids:
                    out.setdefault(c, ([], []))[1].append(e)
            return out

        return self.derived("chunk_provenance", build)

    def node_specificity(self) -> np.ndarray:
        """HippoRAG's node specificity ``s_i = 1 / |P_i|`` per node (HippoRAG §3.2), ``|P_i|`` the
        number of distinct passages of this graph the node was extracted from; 1 for a node without
        provenance. An IDF-like signal a method may use (as a named option) to damp hubs such as
        years and countries. Cached per graph.

        >>> from core.graph.graph_builder import GraphBuilder
        >>> b = GraphBuilder(); c1 = b.add_chunk("A", "x"); c2 = b.add_chunk("B", "y")
        >>> _ = b.add_triple("Paris", "in", "France", chunk_id=c1); _ = b.add_triple("Lyon", "in", "France", chunk_id=c2)
        >>> b.build().node_specificity().tolist()
        [1.0, 0.5, 1.0]
        """
        def build() -> np.ndarray:
            index = self.chunk_index
            counts = np.array([sum(1 for c in cids if c in index) for cids in self.node_chunks], dtype=np.float64)
            return 1.0 / np.maximum(counts, 1.0)

        return self.derived("node_specificity", build)

    def chunk_entities(self, chunk_id: str) -> list[int]:
        """Nodes that come from ``chunk_id``: provenance nodes plus the endpoints of provenance edges."""
        nodes, edges = self.chunk_provenance().get(chunk_id, ([], []))
        out = list(nodes)
        for e in edges:
            out += [int(self.edge_head[e]), int(self.edge_tail[e])]
        return list(dict.fromkeys(out))

    def components(self) -> np.ndarray:
        """Connected-component label per node (weakly connected), via scipy."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components

        n = self.n_nodes
        m = csr_matrix((np.ones(self.n_edges), (self.edge_head, self.edge_tail)), shape=(n, n))
        return connected_components(m, directed=True, connection="weak")[1]

    def induced_edges(self, nodes: Iterable[int]) -> np.ndarray:
        """Ids of edges whose both endpoints are in ``nodes``."""
        mask = np.zeros(self.n_nodes, dtype=bool)
        mask[np.fromiter(nodes, dtype=np.int64)] = True
        return np.flatnonzero(mask[self.edge_head] & mask[self.edge_tail])

    def stats(self) -> dict[str, Any]:
        """Summary numbers shown on the Data page and by ``egx workspaces``."""
        deg = self.degree
        comp = self.components() if self.n_nodes else np.zeros(0, dtype=np.int64)
        sizes = np.bincount(comp) if comp.size else np.zeros(0, dtype=np.int64)
        pairs = {(min(h, t), max(h, t)) for h, t in zip(self.edge_head.tolist(), self.edge_tail.tolist())}
        return {
            "kind": self.kind,
            "nodes": self.n_nodes,
            "edges": self.n_edges,
            "chunks": self.n_chunks,
            "relations": len(set(self.edge_relation)),
            "linked_pairs": len(pairs),
            "components": int(sizes.size),
            "largest_component": int(sizes.max()) if sizes.size else 0,
            "isolated_nodes": int((deg == 0).sum()),
            "mean_degree": float(deg.mean()) if deg.size else 0.0,
            "median_degree": float(np.median(deg)) if deg.size else 0.0,
            "p99_degree": float(np.percentile(deg, 99)) if deg.size else 0.0,
            "max_degree": int(deg.max()) if deg.size else 0,
            "hub": self.node_names[int(deg.argmax())] if deg.size else "",
        }

    @cached_property
    def content_hash(self) -> str:
        """Hash of everything that is embedded; a change means the index must be rebuilt."""
        parts: list[str] = [self.kind]
        parts += self.node_texts
        parts += self.edge_texts
        parts += [c.id + "\x1f" + c.passage for c in self.chunks]
        return content_hash(*parts)

    @cached_property
    def provenance_hash(self) -> str:
        """Hash of which chunks every node and edge cites (not part of :attr:`content_hash`, which
        covers what the index embeds): texts built from provenance, such as FastInsight's node texts,
        are named by both."""
        return content_hash(*("\x1f".join(c) for c in self.node_chunks), "\x1e",
                            *("\x1f".join(c) for c in self.edge_chunks))

    # ------------------------------------------------------------------ exports
    def to_networkx(self, nodes: Iterable[int] | None = None) -> nx.MultiDiGraph:
        """A ``networkx.MultiDiGraph`` keyed by node id, optionally induced on ``nodes``."""
        import networkx as nx

        g = nx.MultiDiGraph(name=self.name, kind=self.kind)
        keep = range(self.n_nodes) if nodes is None else sorted({int(v) for v in nodes})
        for v in keep:
            g.add_node(self.node_ids[v], name=self.node_names[v], description=self.node_descriptions[v],
                       chunks="|".join(self.node_chunks[v]))
        edges = range(self.n_edges) if nodes is None else self.induced_edges(keep).tolist()
        for e in edges:
            g.add_edge(self.node_ids[int(self.edge_head[e])], self.node_ids[int(self.edge_tail[e])], key=int(e),
                       relation=self.edge_relation[e], text=self.edge_text(e),
                       chunks="|".join(self.edge_chunks[e]))
        return g

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; :func:`~core.graph.graph_builder.graph_from_dict` inverts it exactly."""
        return {
            "format": "egx-graph",
            "version": FORMAT_VERSION,
            "kind": self.kind,
            "name": self.name,
            "meta": self.meta,
            "chunks": [{"id": c.id, "title": c.title, "text": c.text} for c in self.chunks],
            "nodes": [
                {"id": i, "name": n, "description": d, "chunks": list(c)}
                for i, n, d, c in zip(self.node_ids, self.node_names, self.node_descriptions, self.node_chunks)
            ],
            "edges": [
                {"head": self.node_ids[int(h)], "relation": r, "tail": self.node_ids[int(t)], "chunks": list(c)}
                for h, r, t, c in zip(self.edge_head, self.edge_relation, self.edge_tail, self.edge_chunks)
            ],
        }

    def iter_json(self, *, batch: int = 4096) -> Iterator[str]:
        """The compact JSON text of :meth:`to_dict` in pieces, without building the dict: a graph
        with a million edges is written in constant extra memory (the dict form takes ~1 GB).

        ``"".join(g.iter_json()) == json.dumps(g.to_dict(), ensure_ascii=False, separators=(",", ":"))``
        """
        dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        head = {"format": "egx-graph", "version": FORMAT_VERSION, "kind": self.kind, "name": self.name,
                "meta": self.meta}
        yield dumps(head)[:-1]
        ids = self.node_ids
        sections: list[tuple[str, int, Any]] = [
            ("chunks", self.n_chunks,
             lambda i: {"id": self.chunks[i].id, "title": self.chunks[i].title, "text": self.chunks[i].text}),
            ("nodes", self.n_nodes,
             lambda i: {"id": ids[i], "name": self.node_names[i], "description": self.node_descriptions[i],
                        "chunks": list(self.node_chunks[i])}),
            ("edges", self.n_edges,
             lambda i: {"head": ids[int(self.edge_head[i])], "relation": self.edge_relation[i],
                        "tail": ids[int(self.edge_tail[i])], "chunks": list(self.edge_chunks[i])}),
        ]
        for key, n, rec in sections:
            yield f',"{key}":['
            for start in range(0, n, batch):
                part = ",".join(dumps(rec(i)) for i in range(start, min(n, start + batch)))
                yield ("," + part) if start else part
            yield "]"
        yield "}"


def passage_label(graph: Any, chunk_id: str) -> str:
    """How a passage is named in tables, lessons and downloads: its title, and where the title is several passages its
    place among them, "Ferries and Landings (2 of 4)" (an audit could not tell which of three “Ferries and Landings”
    in a top 10 was the gold one). The chunk id where the graph lacks it; the bare title on a graph without
    :attr:`KnowledgeGraph.title_places` (a store's view, which is never read whole)."""
    if chunk_id not in graph.chunk_index:
        return chunk_id
    title = graph.chunk(chunk_id).title or chunk_id
    place = getattr(graph, "title_places", {}).get(chunk_id)
    return f"{title} ({place[0]} of {place[1]})" if place else title
