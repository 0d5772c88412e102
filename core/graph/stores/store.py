"""The graph-store contract: what the methods read from a knowledge graph, wherever it lives.

Every seed method (BubbleRAG's h-hop G', FastInsight's neighbour expansion, SG-RAG's matched
paths, ReG's 3-hop triples, HippoRAG (v1) PPR) is *local* after its first step, so the one
structural question a store must answer quickly is "the region within ``h`` hops of these seed
nodes, capped at ``max_nodes``" (:meth:`GraphStore.region`). A region is an ordinary in-memory
:class:`~core.graph.model.KnowledgeGraph` with the store's node and edge ids, plus the maps from
its local indices to the store's global indices (the row numbers of the workspace's FAISS files),
so every stage function runs on it unchanged.

Two stores implement the contract:

* :class:`MemoryStore` — the workspace's :class:`KnowledgeGraph` in this process (the default; it
  adds nothing to the methods' cost: they keep reading the graph's CSR arrays directly);
* :class:`core.graph.stores.falkor.FalkorStore` (opened by :func:`core.graph.stores.open_store`, the URL scheme → store map) — a FalkorDB graph (openCypher over the Redis protocol),
  named by a URL ``falkordb://HOST:PORT/GRAPH``; the password, if any, comes from the environment
  (``EGX_FALKORDB_PASSWORD``) and is never part of the URL, the manifest or a message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable
from urllib.parse import urlsplit

import numpy as np

from core.errors import StoreError
from core.graph.model import KnowledgeGraph
from core.text import normalize_name

MEMORY_URL = "memory:"
PASSWORD_ENV = "EGX_FALKORDB_PASSWORD"
USER_ENV = "EGX_FALKORDB_USER"
_GRAPH_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Region:
    """The part of a store's graph within ``hops`` of some seed nodes, as an in-memory graph.

    Local node ``i`` of :attr:`graph` is the store's node ``nodes[i]``; local edge ``e`` is the
    store's edge ``edges[e]``. Node and edge ids (strings), names, relations and provenance are the
    store's. ``graph.chunks`` holds the chunks the region's nodes and edges cite when the region was
    asked ``with_chunks=True``, else none.
    """

    graph: KnowledgeGraph
    nodes: np.ndarray  #: global node index of each local node (sorted, int64)
    edges: np.ndarray  #: global edge index of each local edge (sorted, int64)
    hop: np.ndarray  #: hop distance of each local node from the nearest seed
    hops: int  #: hops actually walked
    hops_requested: int
    capped: bool  #: True when a further hop would have passed ``max_nodes``

    def local_nodes(self, global_nodes: Iterable[int]) -> np.ndarray:
        """Local indices of global nodes (each must be in the region)."""
        g = np.asarray(list(global_nodes), dtype=np.int64)
        pos = np.searchsorted(self.nodes, g)
        if g.size and (pos.max() >= self.nodes.size or not np.array_equal(self.nodes[pos], g)):
            raise KeyError("a node is not in the region")
        return pos


@runtime_checkable
class GraphStore(Protocol):
    """What a method may ask of a knowledge graph (node/edge lookup by index, id and name,
    neighbours, degrees, the capped k-hop region of a node set, chunk provenance).

    Indices are the graph's global row numbers (node ``v`` is row ``v`` of the workspace's node
    FAISS file, edge ``e`` row ``e`` of the edge file)."""

    @property
    def url(self) -> str:
        """Where the graph lives, without secrets (``memory:`` or ``falkordb://host:port/graph``)."""
        ...

    @property
    def remote(self) -> bool: ...

    @property
    def n_nodes(self) -> int: ...

    @property
    def n_edges(self) -> int: ...

    @property
    def n_chunks(self) -> int: ...

    @property
    def kind(self) -> str:
        """``kg`` or ``corpus_graph`` (:attr:`KnowledgeGraph.kind`)."""
        ...

    @property
    def graph_name(self) -> str:
        """The graph's :attr:`KnowledgeGraph.name` (what an export names it by), not the store's key."""
        ...

    def node_rows(self, nodes: Sequence[int]) -> list[tuple[str, str]]:
        """``(id, name)`` of each node index, in order."""
        ...

    def find_nodes(self, key: str) -> list[int]:
        """Indices of the nodes whose id is ``key`` or whose normalized name equals ``key``'s."""
        ...

    def search_nodes(self, text: str, limit: int) -> list[int]:
        """Nodes whose normalized name contains ``normalize_name(text)``: one per distinct name (its
        first index), shortest names first, then by name; at most ``limit`` (the Data page's search)."""
        ...

    def top_degree_nodes(self, limit: int) -> list[int]:
        """The ``limit`` best-connected nodes: degree descending, then name, then index."""
        ...

    def nodes_named(self, keys: Sequence[str]) -> dict[str, list[int]]:
        """For each already-normalized name in ``keys`` that some node has, those nodes' indices
        (sorted): the batch name lookup of query-entity linking (one round trip, not one per n-gram)."""
        ...

    def edge_rows(self, edges: Sequence[int]) -> list[tuple[int, str, int]]:
        """``(head index, relation, tail index)`` of each edge index, in order."""
        ...

    def neighbors(self, v: int) -> np.ndarray:
        """Distinct neighbours of ``v`` in either direction, sorted."""
        ...

    def incident_edges(self, nodes: Sequence[int]) -> np.ndarray:
        """Distinct indices of the edges touching any of ``nodes`` (either direction), sorted: one
        read per hop of BubbleRAG's reasoning-aware expansion (§3.5)."""
        ...

    def node_chunks(self, nodes: Sequence[int]) -> list[tuple[str, ...]]:
        """The provenance chunk ids of each node index, in order."""
        ...

    def edge_chunks(self, edges: Sequence[int]) -> list[tuple[str, ...]]:
        """The provenance chunk ids of each edge index, in order."""
        ...

    def degrees(self, nodes: Sequence[int]) -> np.ndarray:
        """Undirected degree (parallel edges counted, a self-loop twice) of each node."""
        ...

    def node_table(self, nodes: Sequence[int]) -> list[tuple[str, str, str, tuple[str, ...]]]:
        """``(id, name, description, provenance chunk ids)`` of each node index, in order."""
        ...

    def neighbor_lists(self, nodes: Sequence[int]) -> list[np.ndarray]:
        """The distinct *other* nodes adjacent to each node in either direction (a self-loop adds
        nothing), sorted, in order: the rows of FastInsight's simple undirected ``E`` (§2.1), one
        read for a whole retrieved list."""
        ...

    def neighbor_counts(self, nodes: Sequence[int]) -> np.ndarray:
        """``len`` of each :meth:`neighbor_lists` row without reading the rows: ``deg_E`` of
        FastInsight's Algorithms 2 and 3."""
        ...

    def region(self, seeds: Iterable[int], *, hops: int, max_nodes: int, with_chunks: bool = False) -> Region:
        """Nodes within ``hops`` of ``seeds``, stopping before a hop layer that would take the node
        count past ``max_nodes`` (BubbleRAG §3.3 Phase 1's cap), with every edge among them."""
        ...

    def chunk_provenance(self, chunk_id: str) -> tuple[list[int], list[int]]:
        """(node indices, edge indices) whose provenance lists ``chunk_id``, in index order."""
        ...

    def chunks(self, chunk_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """``(id, title, text)`` of the chunks with these ids that the store holds, in order."""
        ...

    def chunk_rows(self, rows: Sequence[int]) -> list[tuple[str, str, str]]:
        """``(id, title, text)`` of the chunks at these row numbers (row ``r`` of the chunk FAISS
        file), in order: how a passage method turns vector-search hits into passages."""
        ...

    def chunk_row_numbers(self, chunk_ids: Sequence[str]) -> dict[str, int]:
        """Row number of each chunk id the store holds (ids it does not hold are left out)."""
        ...

    def graph(self) -> KnowledgeGraph:
        """The whole graph in memory (same node/edge order as the store's indices)."""
        ...


# ---------------------------------------------------------------------------------- shared helpers
def expand_layers(layers_of: Iterable[np.ndarray], cap: int) -> tuple[list[np.ndarray], bool]:
    """Keep hop layers until the next would take the node count past ``cap`` (the first layer, the
    seeds, is always kept). The one cap rule of every store (and of BubbleRAG's localize)."""
    kept: list[np.ndarray] = []
    size, capped = 0, False
    for layer in layers_of:
        if kept and size + layer.size > cap:
            capped = True
            break
        kept.append(layer)
        size += layer.size
    return kept, capped


class EdgeColumns(NamedTuple):
    """Edges as columns, in edge order: global head and tail indices, relations, provenance chunk ids
    (a region's hundreds of thousands of edges never become one tuple each)."""

    head: np.ndarray
    relation: Sequence[str]
    tail: np.ndarray
    chunks: Sequence[tuple[str, ...]]

    @classmethod
    def of_rows(cls, rows: Sequence[tuple[int, str, int, tuple[str, ...]]]) -> EdgeColumns:
        """From ``(global head, relation, global tail, chunks)`` rows."""
        return cls(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)), [r[1] for r in rows],
                   np.fromiter((r[2] for r in rows), dtype=np.int64, count=len(rows)), [r[3] for r in rows])


def region_graph(nodes: np.ndarray, node_rows: Sequence[tuple[str, str, str, tuple[str, ...]]],
                 edges: np.ndarray, edge_cols: EdgeColumns,
                 chunks: Sequence[tuple[str, str, str]] = (), *, kind: str = "kg", name: str = "") -> KnowledgeGraph:
    """A :class:`KnowledgeGraph` over sorted global ``nodes`` / ``edges`` (node rows in the same order:
    ``(id, name, description, chunks)``; the edges' columns in the order of ``edges``)."""
    from core.graph.model import Chunk

    return KnowledgeGraph(
        node_ids=tuple(r[0] for r in node_rows),
        node_names=tuple(r[1] for r in node_rows),
        node_descriptions=tuple(r[2] for r in node_rows),
        node_chunks=tuple(tuple(r[3]) for r in node_rows),
        edge_head=np.searchsorted(nodes, np.asarray(edge_cols.head, dtype=np.int64)).astype(np.int32),
        edge_tail=np.searchsorted(nodes, np.asarray(edge_cols.tail, dtype=np.int64)).astype(np.int32),
        edge_relation=tuple(edge_cols.relation),
        edge_chunks=tuple(tuple(c) for c in edge_cols.chunks),
        chunks=tuple(Chunk(*c) for c in chunks),
        kind="corpus_graph" if kind == "corpus_graph" else "kg",
        name=name,
    )


# ---------------------------------------------------------------------------------- in memory
class MemoryStore:
    """The contract over a :class:`KnowledgeGraph` held in this process (the default store).

    Methods that hold the graph keep using its CSR arrays directly, so this store costs them
    nothing; it exists so code written against :class:`GraphStore` runs on either store, and as
    the oracle the FalkorDB store is tested against.
    """

    def __init__(self, graph: KnowledgeGraph) -> None:
        self._g = graph

    url = MEMORY_URL
    remote = False

    @property
    def n_nodes(self) -> int:
        return self._g.n_nodes

    @property
    def n_edges(self) -> int:
        return self._g.n_edges

    @property
    def n_chunks(self) -> int:
        return self._g.n_chunks

    @property
    def kind(self) -> str:
        return self._g.kind

    @property
    def graph_name(self) -> str:
        return self._g.name

    def node_rows(self, nodes: Sequence[int]) -> list[tuple[str, str]]:
        return [(self._g.node_ids[int(v)], self._g.node_names[int(v)]) for v in nodes]

    def find_nodes(self, key: str) -> list[int]:
        g = self._g
        hits = [g.node_index[key]] if key in g.node_index else []
        by_name = g.derived("store_name_index", lambda: name_index(g.node_names))
        return sorted(set(hits) | set(by_name.get(normalize_name(key), ())))

    def nodes_named(self, keys: Sequence[str]) -> dict[str, list[int]]:
        g = self._g
        by_name = g.derived("store_name_index", lambda: name_index(g.node_names))
        return {k: sorted(by_name[k]) for k in dict.fromkeys(keys) if k in by_name}

    def search_nodes(self, text: str, limit: int) -> list[int]:
        q = normalize_name(text)
        if not q:
            return []
        g = self._g
        by_name = g.derived("store_name_index", lambda: name_index(g.node_names))
        keys = sorted((k for k in by_name if q in k), key=lambda k: (len(k), k))[:limit]
        return [min(by_name[k]) for k in keys]

    def top_degree_nodes(self, limit: int) -> list[int]:
        g = self._g
        order = np.lexsort((np.arange(g.n_nodes), np.asarray(g.node_names, dtype=object).astype(str), -g.degree))
        return [int(v) for v in order[:limit]]

    def edge_rows(self, edges: Sequence[int]) -> list[tuple[int, str, int]]:
        g = self._g
        return [(int(g.edge_head[e]), g.edge_relation[int(e)], int(g.edge_tail[e])) for e in edges]

    def neighbors(self, v: int) -> np.ndarray:
        return self._g.neighbors(int(v)).astype(np.int64)

    def incident_edges(self, nodes: Sequence[int]) -> np.ndarray:
        return self._g.incident_edges(nodes)

    def node_chunks(self, nodes: Sequence[int]) -> list[tuple[str, ...]]:
        return [tuple(self._g.node_chunks[int(v)]) for v in nodes]

    def edge_chunks(self, edges: Sequence[int]) -> list[tuple[str, ...]]:
        return [tuple(self._g.edge_chunks[int(e)]) for e in edges]

    def degrees(self, nodes: Sequence[int]) -> np.ndarray:
        return self._g.degree[np.asarray(nodes, dtype=np.int64)]

    def node_table(self, nodes: Sequence[int]) -> list[tuple[str, str, str, tuple[str, ...]]]:
        g = self._g
        return [(g.node_ids[v], g.node_names[v], g.node_descriptions[v], tuple(g.node_chunks[v]))
                for v in (int(x) for x in nodes)]

    def neighbor_lists(self, nodes: Sequence[int]) -> list[np.ndarray]:
        out = []
        for v in (int(x) for x in nodes):
            nb = self._g.neighbors(v).astype(np.int64)
            out.append(nb[nb != v])
        return out

    def neighbor_counts(self, nodes: Sequence[int]) -> np.ndarray:
        return np.asarray([r.size for r in self.neighbor_lists(nodes)], dtype=np.int64)

    def region(self, seeds: Iterable[int], *, hops: int, max_nodes: int, with_chunks: bool = False) -> Region:
        g = self._g
        seeds = np.unique(np.asarray(list(seeds), dtype=np.int64))
        layers, capped = expand_layers(g.bfs_layers(seeds, max_hops=hops), max(max_nodes, int(seeds.size)))
        nodes = np.sort(np.concatenate(layers)) if layers else np.zeros(0, np.int64)
        edges = g.induced_edges(nodes.tolist()).astype(np.int64) if nodes.size else np.zeros(0, np.int64)
        node_rows = [(g.node_ids[v], g.node_names[v], g.node_descriptions[v], g.node_chunks[v]) for v in nodes.tolist()]
        ix = edges.tolist()
        cols = EdgeColumns(g.edge_head[edges], [g.edge_relation[e] for e in ix], g.edge_tail[edges],
                           [g.edge_chunks[e] for e in ix])
        chunks: list[tuple[str, str, str]] = []
        if with_chunks:
            cited = dict.fromkeys(c for r in node_rows for c in r[3]) | dict.fromkeys(c for r in cols.chunks for c in r)
            chunks = [(c.id, c.title, c.text) for c in (g.chunks[g.chunk_index[c]] for c in cited if c in g.chunk_index)]
        return Region(region_graph(nodes, node_rows, edges, cols, chunks, kind=g.kind, name=g.name),
                      nodes, edges, hop_of(nodes, layers), len(layers) - 1 if layers else 0, hops, capped)

    def chunk_provenance(self, chunk_id: str) -> tuple[list[int], list[int]]:
        nodes, edges = self._g.chunk_provenance().get(chunk_id, ([], []))
        return list(nodes), list(edges)

    def chunks(self, chunk_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        g = self._g
        return [(c.id, c.title, c.text) for c in (g.chunks[g.chunk_index[i]] for i in chunk_ids if i in g.chunk_index)]

    def chunk_rows(self, rows: Sequence[int]) -> list[tuple[str, str, str]]:
        return [(c.id, c.title, c.text) for c in (self._g.chunks[int(r)] for r in rows)]

    def chunk_row_numbers(self, chunk_ids: Sequence[str]) -> dict[str, int]:
        index = self._g.chunk_index
        return {c: index[c] for c in chunk_ids if c in index}

    def graph(self) -> KnowledgeGraph:
        return self._g


def name_index(names: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        out.setdefault(normalize_name(n), []).append(i)
    return out


def hop_of(nodes: np.ndarray, layers: Sequence[np.ndarray]) -> np.ndarray:
    hop = np.zeros(nodes.size, dtype=np.int32)
    for j, layer in enumerate(layers):
        hop[np.searchsorted(nodes, layer)] = j
    return hop


# ---------------------------------------------------------------------------------- URLs
@dataclass(frozen=True)
class StoreURL:
    """A parsed ``falkordb://[USER@]HOST:PORT/GRAPH`` (no password: it comes from the environment)."""

    host: str
    port: int
    graph: str
    user: str | None = None

    def __str__(self) -> str:
        user = f"{self.user}@" if self.user else ""
        return f"falkordb://{user}{self.host}:{self.port}/{self.graph}"

    @property
    def password(self) -> str | None:
        return os.environ.get(PASSWORD_ENV) or None

    def with_graph(self, graph: str) -> StoreURL:
        return StoreURL(self.host, self.port, graph, self.user)


def parse_store_url(url: str) -> StoreURL:
    """Parse a FalkorDB store URL.

    Raises
    ------
    StoreError
        When the scheme is not ``falkordb``, the port or graph name is missing or malformed, or the
        URL carries a password (it would end up in the manifest: set ``EGX_FALKORDB_PASSWORD``).
    """
    fix = "Write it as falkordb://HOST:PORT/GRAPH, e.g. falkordb://127.0.0.1:6379/musique."
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise StoreError(f"The store URL {_redact(url)!r} is malformed ({exc}). {fix}") from None
    if parts.scheme != "falkordb":
        raise StoreError(f"The store URL {_redact(url)!r} is not a FalkorDB URL (scheme {parts.scheme!r}). {fix}")
    if parts.password is not None:
        raise StoreError(f"The store URL {_redact(url)!r} contains a password, which would be written into the "
                         f"workspace manifest. Remove it from the URL and set {PASSWORD_ENV} instead.")
    graph = parts.path.lstrip("/")
    if not parts.hostname or port is None:
        raise StoreError(f"The store URL {_redact(url)!r} names no host and port. {fix}")
    if not _GRAPH_NAME.match(graph):
        raise StoreError(f"The store URL {_redact(url)!r} names the graph {graph!r}: a graph name is 1-64 letters, "
                         f"digits, '_' or '-'. {fix}")
    return StoreURL(parts.hostname, port, graph, parts.username or os.environ.get(USER_ENV) or None)


def _redact(url: str) -> str:
    return re.sub(r"(//[^/@:]*):[^/@]*@", r"\1:***@", url)


def remote_store(workspace: object) -> bool:
    """Whether ``workspace`` keeps its graph in a graph store (a method then reads regions from it);
    False for an in-memory workspace and for workspace-like objects without a store."""
    return str(getattr(workspace, "store_url", MEMORY_URL) or MEMORY_URL) != MEMORY_URL
