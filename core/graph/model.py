"""The KnowledgeGraph model: text on nodes, edges and chunks; compact arrays for algorithms.

A graph holds

* **chunks** — the source passages (id, title, text) every node and edge points back to;
* **nodes** — id, display name, optional description and the ids of the chunks they came from;
* **directed edges** — head, relation, tail and provenance chunk ids. The searchable text of an
  edge is the *enriched* string ``"head relation tail"`` (BubbleRAG §3.1: "for a standard triplet
  (A, R, B), the edge connecting node A and node B stores the combined textual content ARB").

Algorithms run on CSR arrays (:attr:`KnowledgeGraph.csr` for both directions, ``csr_out`` for
outgoing edges only); networkx is only for display, small graphs and test oracles. Every hop-by-hop
walk goes through :func:`bfs_layers` (``KnowledgeGraph.bfs_layers`` / ``khop`` / ``hop_distances``),
and every structure derived from a graph and reused across questions (a method's passage graph, name
index, provenance lists, ...) is kept on the graph itself with :meth:`KnowledgeGraph.derived`, so it
lives exactly as long as the graph.

A *corpus graph* (FastInsight §2.1) uses the same model with ``kind="corpus_graph"``: every node is
one chunk (name = title, description = text) and edges are links/references between chunks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np

from core.errors import EmptyGraphError, InputFormatError, UnknownNameError
from core.text import clean_text, content_hash, normalize_name, safe_text

if TYPE_CHECKING:
    import networkx as nx

GraphKind = Literal["kg", "corpus_graph"]
FORMAT_VERSION = 1
T = TypeVar("T")


class BadNameError(InputFormatError):
    """A node name or relation with no letter or digit (``"..."``, ``"?"``): it would merge every
    such name into one empty key. Loaders re-raise it with the file and line."""

    def __init__(self, label: str, value: str) -> None:
        shown = value if len(value) <= 40 else value[:37] + "..."
        super().__init__(label, f"the {label} {shown!r} has no letter or digit (only punctuation or spaces)",
                         "names with at least one letter or digit")


@dataclass(frozen=True)
class Chunk:
    """A source passage. ``passage`` is what gets embedded: title and text on separate lines."""

    id: str
    title: str
    text: str

    @property
    def passage(self) -> str:
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class CSR:
    """Compressed sparse rows: the neighbours of ``v`` are ``nbr[indptr[v]:indptr[v+1]]`` and the
    edge ids that connect them are ``eid[...]`` at the same positions."""

    indptr: np.ndarray
    nbr: np.ndarray
    eid: np.ndarray

    def row(self, v: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.indptr[v], self.indptr[v + 1]
        return self.nbr[a:b], self.eid[a:b]


def csr_ranges(indptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Positions of all CSR entries of ``rows`` (a vectorized concatenation of the row ranges)."""
    starts, ends = indptr[rows], indptr[rows + 1]
    lens = ends - starts
    if lens.sum() == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + np.arange(lens.sum())


def bfs_layers(indptr: np.ndarray, nbr: np.ndarray, sources: Iterable[int], *,
               max_hops: int | None = None) -> Iterator[np.ndarray]:
    """Breadth-first layers of an undirected CSR graph: layer ``d`` holds the nodes first reached
    at hop ``d`` (sorted, int64); layer 0 is the distinct sources.

    The one BFS every walk in the project uses (k-hop neighbourhoods, hop distances, BubbleRAG's
    localized graph, the diagnosers). It touches only the visited region (no ``O(|V|)`` array per
    call), so a walk from a few anchors costs the same in a small and a huge graph (BubbleRAG §3.3
    complexity analysis). Like ``networkx.bfs_layers`` it is a generator: stop consuming when done.

    Parameters
    ----------
    indptr, nbr
        CSR rows: the neighbours of ``v`` are ``nbr[indptr[v]:indptr[v + 1]]`` (both directions).
    sources
        Start nodes (repeats are ignored).
    max_hops
        Stop after this many hops (None: until nothing new is reached).

    Examples
    --------
    >>> g = graph_from_triples([("a", "r", "b"), ("b", "r", "c")])
    >>> [layer.tolist() for layer in bfs_layers(g.csr.indptr, g.csr.nbr, [0])]
    [[0], [1], [2]]
    """
    layer = np.unique(np.fromiter((int(v) for v in sources), dtype=np.int64))
    if layer.size == 0:
        return
    yield layer
    visited, hop = layer, 0
    while max_hops is None or hop < max_hops:
        cand = np.unique(nbr[csr_ranges(indptr, layer)]).astype(np.int64)
        layer = cand[~np.isin(cand, visited, assume_unique=True)]
        if layer.size == 0:
            return
        hop += 1
        yield layer
        visited = np.union1d(visited, layer)


def _csr(n: int, src: np.ndarray, dst: np.ndarray, eid: np.ndarray) -> CSR:
    order = np.lexsort((dst, src))
    counts = np.bincount(src, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return CSR(indptr, dst[order].astype(np.int32), eid[order].astype(np.int32))


@dataclass(frozen=True, eq=False)
class KnowledgeGraph:
    """An immutable knowledge graph (or corpus graph). Build one with :class:`GraphBuilder`.

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
        return _csr(self.n_nodes, src, dst, np.concatenate([e, e]))

    @cached_property
    def csr_out(self) -> CSR:
        """Directed adjacency over outgoing edges (head → tail)."""
        e = np.arange(self.n_edges, dtype=np.int32)
        return _csr(self.n_nodes, self.edge_head.astype(np.int64), self.edge_tail.astype(np.int64), e)

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
        """Undirected breadth-first layers from ``sources`` (see the module function :func:`bfs_layers`)."""
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
        """JSON-ready dict; :meth:`from_dict` inverts it exactly."""
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

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, source: str = "graph") -> KnowledgeGraph:
        """Inverse of :meth:`to_dict`, checking every field's type (an export is user data).

        Raises
        ------
        InputFormatError
            When it is not an egx export, or a field has the wrong type (``nodes`` not a list, a
            name that is not a string, ...), naming the list and the record.
        """
        if not isinstance(d, dict) or d.get("format") != "egx-graph":
            raise InputFormatError(source, "this is not an egx graph export",
                                   'a JSON object with "format": "egx-graph" (written by `egx` or the Data page)')
        expected = "chunks {id,title,text}, nodes {id,name}, edges {head,relation,tail}"
        kind = d.get("kind", "kg")
        if kind not in ("kg", "corpus_graph"):
            raise InputFormatError(source, f'"kind" is {_short(kind)}', '"kg" or "corpus_graph"')
        b = GraphBuilder(kind=kind, name=_text(d.get("name", ""), source, '"name"'))
        for key in ("chunks", "nodes", "edges"):
            if not isinstance(d.get(key), list):
                problem = f"missing field {key!r}" if key not in d else f'"{key}" is a JSON {_jtype(d[key])}, not a list'
                raise InputFormatError(source, problem, expected)
        try:
            for i, c in enumerate(d["chunks"], start=1):
                where = f"chunks[{i - 1}]"
                c = _obj(c, source, where)
                b.add_chunk(_text(c["title"], source, f"{where}.title"), _text(c["text"], source, f"{where}.text"),
                            chunk_id=_text(c["id"], source, f"{where}.id"))
            for i, n in enumerate(d["nodes"], start=1):
                where = f"nodes[{i - 1}]"
                n = _obj(n, source, where)
                b.add_node(_text(n["name"], source, f"{where}.name"), node_id=_text(n["id"], source, f"{where}.id"),
                           description=_text(n.get("description", ""), source, f"{where}.description"),
                           chunk_ids=_texts(n.get("chunks", ()), source, f"{where}.chunks"))
            for i, e in enumerate(d["edges"], start=1):
                where = f"edges[{i - 1}]"
                e = _obj(e, source, where)
                b.add_edge(_text(e["head"], source, f"{where}.head"), _text(e["relation"], source, f"{where}.relation"),
                           _text(e["tail"], source, f"{where}.tail"),
                           chunk_ids=_texts(e.get("chunks", ()), source, f"{where}.chunks"))
        except UnknownNameError as exc:  # (a KeyError too: caught first)
            raise InputFormatError(source, f"an edge names node id {exc.name!r}, which is not among the nodes",
                                   "edges between the ids of listed nodes") from None
        except KeyError as exc:
            raise InputFormatError(source, f"missing field {exc.args[0]!r}", expected) from None
        meta = d.get("meta", {})
        if not isinstance(meta, dict):
            raise InputFormatError(source, f'"meta" is a JSON {_jtype(meta)}', "a JSON object")
        g = b.build(allow_empty=True)
        object.__setattr__(g, "meta", dict(meta))
        return g


def _jtype(v: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null",
            int: "number", float: "number"}.get(type(v), type(v).__name__)


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _obj(v: Any, source: str, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise InputFormatError(source, f"{where} is a JSON {_jtype(v)}, not an object",
                               "chunks {id,title,text}, nodes {id,name}, edges {head,relation,tail}")
    return v


def _text(v: Any, source: str, where: str) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return str(v)
    shown = "" if v is None or isinstance(v, bool) else f" ({_short(v)})"
    raise InputFormatError(source, f"{where} is a JSON {_jtype(v)}{shown}", "a string")


def _texts(v: Any, source: str, where: str) -> list[str]:
    if not isinstance(v, (list, tuple)):
        raise InputFormatError(source, f"{where} is a JSON {_jtype(v)}", "a list of chunk ids")
    return [_text(x, source, f"{where}[{i}]") for i, x in enumerate(v)]


class GraphBuilder:
    """Accumulates chunks, nodes and edges from any number of inputs, merging as it goes.

    * Entities merge by :func:`~core.text.normalize_name` unless an explicit ``node_id`` is given
      (named KGs such as FB15k-237 keep their MIDs so distinct entities with one name stay apart).
      The first spelling seen becomes the display name.
    * Edges merge on (head, normalized relation, tail); provenance chunk ids are unioned.
    * Chunks merge by id; the same id with different text is an error.
    """

    def __init__(self, *, kind: GraphKind = "kg", name: str = "") -> None:
        self.kind: GraphKind = kind
        self.name = name
        self._chunks: dict[str, Chunk] = {}
        self._chunk_by_content: dict[tuple[str, str], str] = {}
        self._node_pos: dict[str, int] = {}
        self._names: list[str] = []
        self._ids: list[str] = []
        self._desc: list[str] = []
        self._nchunks: list[dict[str, None] | None] = []  # None until a node cites a chunk (saves memory)
        self._edge_pos: dict[tuple[int, str, int], int] = {}
        self._eh: list[int] = []
        self._et: list[int] = []
        self._er: list[str] = []
        self._echunks: list[dict[str, None] | None] = []
        # raw name -> (clean name, merge key): names repeat across triples, and cleaning plus
        # Unicode normalization is most of the cost of loading a large triples file
        self._name_keys: dict[str, tuple[str, str]] = {}
        self._rel_keys: dict[str, tuple[str, str]] = {}

    @classmethod
    def of(cls, graph: KnowledgeGraph) -> GraphBuilder:
        """A builder holding everything of ``graph`` (chunks, nodes with their ids, descriptions and
        provenance, edges), to which more can be added: extraction results, synonym edges."""
        b = cls(kind=graph.kind, name=graph.name)
        for c in graph.chunks:
            b.add_chunk(c.title, c.text, chunk_id=c.id)
        for v in range(graph.n_nodes):
            b.add_node(graph.node_names[v], node_id=graph.node_ids[v], description=graph.node_descriptions[v],
                       chunk_ids=graph.node_chunks[v])
        for e in range(graph.n_edges):
            b.add_edge(graph.node_ids[int(graph.edge_head[e])], graph.edge_relation[e],
                       graph.node_ids[int(graph.edge_tail[e])], chunk_ids=graph.edge_chunks[e])
        return b

    # chunks -------------------------------------------------------------
    def add_chunk(self, title: str, text: str, *, chunk_id: str | None = None) -> str:
        """Add a passage and return its id (an identical passage already present is reused)."""
        title, text = clean_text(title), safe_text(text).strip()
        key = (title, text)
        if chunk_id is None:
            if key in self._chunk_by_content:
                return self._chunk_by_content[key]
            chunk_id = "c" + content_hash(title, text, n=12)
        chunk_id = str(chunk_id)
        old = self._chunks.get(chunk_id)
        if old is not None:
            if (old.title, old.text) != key:
                raise InputFormatError(f"chunk {chunk_id!r}", "the same chunk id is used for two different texts",
                                       "unique chunk ids")
            return chunk_id
        self._chunks[chunk_id] = Chunk(chunk_id, title, text)
        self._chunk_by_content.setdefault(key, chunk_id)
        return chunk_id

    def find_chunk(self, title: str, text: str) -> str | None:
        return self._chunk_by_content.get((clean_text(title), str(text).strip()))

    def has_chunk(self, chunk_id: str) -> bool:
        return chunk_id in self._chunks

    # nodes --------------------------------------------------------------
    def add_node(self, name: str, *, node_id: str | None = None, description: str = "",
                 chunk_ids: Iterable[str] = (), _label: str = "node name") -> int:
        """Add (or merge into) a node and return its position.

        Raises
        ------
        BadNameError
            When the node has no id and its name has no letter or digit.
        """
        if node_id is not None:
            name, key = clean_text(name), safe_text(str(node_id))
        else:
            hit = self._name_keys.get(name)
            if hit is None:
                clean = clean_text(name)
                hit = (clean, normalize_name(clean))
                if not hit[1]:
                    raise BadNameError(_label, clean)
                if len(self._name_keys) < 4_000_000:
                    self._name_keys[name] = hit
            name, key = hit
        if not key:
            raise BadNameError(_label, name)
        pos = self._node_pos.get(key)
        if pos is None:
            pos = len(self._ids)
            self._node_pos[key] = pos
            self._ids.append(key)
            self._names.append(name or key)
            self._desc.append(clean_text(description) if description else "")
            self._nchunks.append(None)
        elif description and not self._desc[pos]:
            self._desc[pos] = clean_text(description)
        _add_ids(self._nchunks, pos, chunk_ids)
        return pos

    def has_node(self, node_id: str) -> bool:
        return node_id in self._node_pos

    # edges --------------------------------------------------------------
    def add_triple(self, head: str, relation: str, tail: str, *, chunk_id: str | None = None) -> int:
        """Add ``(head, relation, tail)`` by entity *names* (merged by normalized name)."""
        cids = (chunk_id,) if chunk_id else ()
        h = self.add_node(head, chunk_ids=cids, _label="head")
        t = self.add_node(tail, chunk_ids=cids, _label="tail")
        return self._add_edge(h, relation, t, cids)

    def add_edge(self, head_id: str, relation: str, tail_id: str, *, chunk_ids: Iterable[str] = ()) -> int:
        """Add an edge between two nodes that already exist, by *id*."""
        for nid in (head_id, tail_id):
            if str(nid) not in self._node_pos:
                raise UnknownNameError("node id", str(nid), list(self._node_pos)[:20])
        return self._add_edge(self._node_pos[str(head_id)], relation, self._node_pos[str(tail_id)], chunk_ids)

    def _add_edge(self, h: int, relation: str, t: int, chunk_ids: Iterable[str]) -> int:
        hit = self._rel_keys.get(relation)
        if hit is None:
            clean = clean_text(relation)
            hit = (clean, normalize_name(clean))
            if not hit[1]:
                raise BadNameError("relation", clean)
            if len(self._rel_keys) < 1_000_000:
                self._rel_keys[relation] = hit
        relation, rkey = hit
        key = (h, rkey, t)
        pos = self._edge_pos.get(key)
        if pos is None:
            pos = len(self._er)
            self._edge_pos[key] = pos
            self._eh.append(h)
            self._et.append(t)
            self._er.append(relation)
            self._echunks.append(None)
        _add_ids(self._echunks, pos, chunk_ids)
        return pos

    # --------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return len(self._ids)

    @property
    def n_edges(self) -> int:
        return len(self._er)

    @property
    def n_chunks(self) -> int:
        return len(self._chunks)

    def build(self, *, allow_empty: bool = False) -> KnowledgeGraph:
        """Freeze into a :class:`KnowledgeGraph`.

        Raises
        ------
        EmptyGraphError
            If nothing was added (unless ``allow_empty``).
        """
        if not allow_empty and not self._ids and not self._chunks:
            raise EmptyGraphError(
                "The inputs contain no chunks, nodes or edges. "
                "Upload triples (head, relation, tail), a corpus of passages, or a graph file with content.")
        return KnowledgeGraph(
            node_ids=tuple(self._ids),
            node_names=tuple(self._names),
            node_descriptions=tuple(self._desc),
            node_chunks=tuple(tuple(c) if c else () for c in self._nchunks),
            edge_head=np.asarray(self._eh, dtype=np.int32),
            edge_tail=np.asarray(self._et, dtype=np.int32),
            edge_relation=tuple(self._er),
            edge_chunks=tuple(tuple(c) if c else () for c in self._echunks),
            chunks=tuple(self._chunks.values()),
            kind=self.kind,
            name=self.name,
        )


def _add_ids(store: list[dict[str, None] | None], pos: int, ids: Iterable[str]) -> None:
    for c in ids:
        if c:
            d = store[pos]
            if d is None:
                d = store[pos] = {}
            d[str(c)] = None


def graph_from_triples(triples: Sequence[tuple[str, str, str]], *, name: str = "") -> KnowledgeGraph:
    """Convenience for tests and notebooks: a KG from ``(head, relation, tail)`` name triples."""
    b = GraphBuilder(name=name)
    for h, r, t in triples:
        b.add_triple(h, r, t)
    return b.build()
