"""FalkorDB as a :class:`~core.graph.store.GraphStore`: the KG lives in a graph database and each
question pulls only the region it needs.

Schema (one FalkorDB graph per workspace)::

    (:EgxMeta {format: "egx-graph-store", version, kind, name, meta, content_hash, n_nodes, n_edges, n_chunks})
    (:Node  {i, id, key, name, description, chunks, deg})        i = the node's FAISS row, key = normalized name
    (:Chunk {i, id, title, text, nodes, edges})                  nodes/edges = provenance (indices)

List-valued properties (chunk ids, provenance indices) are strings joined by ``SEP`` (U+001F):
reading them back as strings is several times faster than the client's per-element array parsing.
    (:Node)-[:REL {i, rel, chunks}]->(:Node)                     i = the edge's FAISS row

Loading (:func:`load_graph_into`) writes a *staging* graph with batched ``UNWIND`` inserts and
range indexes on ``Node.i``, ``Node.id``, ``Node.key``, ``Chunk.i``, ``Chunk.id`` and ``REL.i``,
writes the ``EgxMeta`` node last, and only then renames the staging graph to its name (Redis
``RENAME``: atomic, replacing an older egx graph of that name). A failed or interrupted load
deletes its staging graph; a killed one leaves a ``GRAPH__egx_staging_*`` graph that the next load
of GRAPH removes. The target is never half-written.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import StoreError
from core.graph.model import KnowledgeGraph
from core.graph.store import (
    Region,
    StoreURL,
    hop_of,
    region_graph,
)
from core.text import normalize_name

if TYPE_CHECKING:
    from falkordb import FalkorDB, Graph

SCHEMA = "egx-graph-store"
SCHEMA_VERSION = 2
STAGING = "__egx_staging_"
BATCH = 5000
QUERY_TIMEOUT_MS = 120_000
Progress = Callable[[str, float], None]


def _connect(url: StoreURL) -> FalkorDB:
    try:
        from falkordb import FalkorDB
    except ImportError as exc:  # pragma: no cover - a dependency of the project
        raise StoreError(f"The FalkorDB client is not installed ({exc}); run `pip install falkordb`.") from None
    import redis

    try:
        db = FalkorDB(host=url.host, port=url.port, username=url.user, password=url.password,
                      socket_timeout=QUERY_TIMEOUT_MS / 1000 + 10, socket_connect_timeout=5)
        db.connection.ping()
    except redis.exceptions.AuthenticationError:
        raise StoreError(f"The graph store {url} refused the credentials. Set EGX_FALKORDB_PASSWORD (and "
                         "EGX_FALKORDB_USER for an ACL user) to the server's password.") from None
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
        raise StoreError(f"Cannot reach the graph store {url} ({_why(exc)}). Start the server (for a local one: "
                         f"`python -m core.graph.falkor_server --port {url.port}`) or fix the --store URL.") from None
    except redis.exceptions.ResponseError as exc:
        raise StoreError(f"The server at {url} answered {exc!s} — is it a Redis server with the FalkorDB "
                         "module loaded (`redis-server --loadmodule falkordb.so`)?") from None
    return db


def _why(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) < 160 else text[:157] + "..."


def _rows(result: Any) -> list[list[Any]]:
    return list(result.result_set)


SEP = "\x1f"  #: joins a list of chunk ids (or indices) into one string property


def _join(ids: Iterable[str]) -> str:
    ids = tuple(ids)
    for c in ids:
        if SEP in c:
            raise StoreError(f"The chunk id {c!r} contains the control character U+001F, which the graph store "
                             "uses as its list separator. Rename the chunk (ids are any text without control characters).")
    return SEP.join(ids)


def _split(value: Any) -> tuple[str, ...]:
    return tuple(str(value).split(SEP)) if value else ()


def _params_header(params: dict[str, Any] | None) -> str:
    if not params:
        return ""
    from falkordb.helpers import stringify_param_value

    parts = []
    for k, v in params.items():
        if isinstance(v, list) and all(type(x) is int for x in v):
            parts.append(f"{k}={v!r}".replace(" ", ""))  # ints: the fast path for large id lists
        else:
            parts.append(f"{k}={stringify_param_value(v)}")
    return "CYPHER " + " ".join(parts) + " "


def _batches(n: int, size: int = BATCH) -> Iterator[tuple[int, int]]:
    for lo in range(0, n, size):
        yield lo, min(n, lo + size)


class FalkorStore:
    """A KG in a FalkorDB graph written by :func:`load_graph_into` (see the module docstring).

    Open one with :meth:`open`, which checks that the server answers, the graph exists and is ours.
    All queries are read-only (``GRAPH.RO_QUERY``) with a timeout.
    """

    remote = True

    def __init__(self, url: StoreURL, db: FalkorDB, meta: dict[str, Any]) -> None:
        self._url = url
        self._db = db
        self._g: Graph = db.select_graph(url.graph)
        self.meta = meta
        self._full: KnowledgeGraph | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, url: StoreURL) -> FalkorStore:
        """Connect and check the graph.

        Raises
        ------
        StoreError
            Unreachable server, bad credentials, no graph of that name (the message lists those
            there), or a graph egx did not write (no ``EgxMeta`` node of our format).
        """
        db = _connect(url)
        names = [n for n in db.list_graphs() if STAGING not in n]
        if url.graph not in names:
            shown = ", ".join(sorted(names)[:20]) or "none"
            raise StoreError(f"The graph store {url} has no graph {url.graph!r} (graphs there: {shown}). Fix the graph "
                             f"name in the URL, or write the graph with `egx index INPUTS --workspace DIR --store {url}`.")
        return cls(url, db, read_meta(db, url))

    @property
    def url(self) -> str:
        return str(self._url)

    @property
    def n_nodes(self) -> int:
        return int(self.meta["n_nodes"])

    @property
    def n_edges(self) -> int:
        return int(self.meta["n_edges"])

    @property
    def n_chunks(self) -> int:
        return int(self.meta.get("n_chunks", 0))

    @property
    def kind(self) -> str:
        return str(self.meta.get("kind", "kg"))

    @property
    def graph_name(self) -> str:
        return str(self.meta.get("name", ""))

    @property
    def content_hash(self) -> str:
        return str(self.meta.get("content_hash", ""))

    def _q(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """Rows of a read-only query. Sent as a raw ``GRAPH.RO_QUERY`` in the server's non-compact
        form: the client's per-cell result parsing costs more than the query itself on large
        regions (lists are stored as joined strings for that reason: see :data:`SEP`)."""
        import redis

        query = _params_header(params) + cypher
        try:
            res = self._db.connection.execute_command("GRAPH.RO_QUERY", self._url.graph, query, "timeout",
                                                      QUERY_TIMEOUT_MS)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise StoreError(f"The graph store {self._url} stopped answering ({_why(exc)}). Check that the server "
                             "still runs, then ask again.") from None
        except redis.exceptions.ResponseError as exc:
            raise StoreError(f"The graph store {self._url} failed a query: {_why(exc)}.") from None
        return list(res[1]) if len(res) == 3 else []

    # ------------------------------------------------------------------ lookups
    def node_rows(self, nodes: Sequence[int]) -> list[tuple[str, str]]:
        got = self._node_table(nodes)
        return [(got[int(v)][0], got[int(v)][1]) for v in nodes]

    def _node_table(self, nodes: Iterable[int]) -> dict[int, tuple[str, str, str, tuple[str, ...]]]:
        ids = sorted({int(v) for v in nodes})
        out: dict[int, tuple[str, str, str, tuple[str, ...]]] = {}
        for lo, hi in _batches(len(ids)):
            for i, nid, name, desc, chunks in self._q(
                    "UNWIND $ids AS x MATCH (n:Node {i: x}) RETURN n.i, n.id, n.name, n.description, n.chunks",
                    {"ids": ids[lo:hi]}):
                out[int(i)] = (nid, name, desc or "", _split(chunks))
        missing = [v for v in ids if v not in out]
        if missing:
            raise StoreError(f"The graph store {self._url} has no node with index {missing[0]} "
                             f"(it holds {self.n_nodes} nodes). Rebuild the workspace's index.")
        return out

    def find_nodes(self, key: str) -> list[int]:
        rows = self._q("MATCH (n:Node {id: $id}) RETURN n.i UNION MATCH (n:Node {key: $key}) RETURN n.i",
                       {"id": key, "key": normalize_name(key)})
        return sorted({int(r[0]) for r in rows})

    def nodes_named(self, keys: Sequence[str]) -> dict[str, list[int]]:
        ks = list(dict.fromkeys(keys))
        out: dict[str, list[int]] = {}
        for lo, hi in _batches(len(ks)):
            for k, i in self._q("UNWIND $keys AS k MATCH (n:Node {key: k}) RETURN k, n.i", {"keys": ks[lo:hi]}):
                out.setdefault(str(k), []).append(int(i))
        return {k: sorted(out[k]) for k in ks if k in out}

    def search_nodes(self, text: str, limit: int) -> list[int]:
        """Substring search over the normalized names (``Node.key``), on the server: the shortest names
        first, then by name (FalkorDB compares strings by code point, as Python does)."""
        q = normalize_name(text)
        if not q or limit <= 0:
            return []
        rows = self._q("MATCH (n:Node) WHERE n.key CONTAINS $q WITH n.key AS k, min(n.i) AS i "
                       "RETURN k, i ORDER BY size(k), k LIMIT $lim", {"q": q, "lim": int(limit)})
        return [int(i) for _, i in sorted(((str(k), int(i)) for k, i in rows), key=lambda r: (len(r[0]), r[0]))]

    def top_degree_nodes(self, limit: int) -> list[int]:
        if limit <= 0:
            return []
        rows = self._q("MATCH (n:Node) RETURN n.i ORDER BY n.deg DESC, n.name, n.i LIMIT $lim", {"lim": int(limit)})
        return [int(r[0]) for r in rows]

    def edge_rows(self, edges: Sequence[int]) -> list[tuple[int, str, int]]:
        got = self._edge_table(edges)
        return [(got[int(e)][0], got[int(e)][1], got[int(e)][2]) for e in edges]

    def _edge_table(self, edges: Iterable[int]) -> dict[int, tuple[int, str, int, tuple[str, ...]]]:
        ids = sorted({int(e) for e in edges})
        out: dict[int, tuple[int, str, int, tuple[str, ...]]] = {}
        for lo, hi in _batches(len(ids)):
            for i, h, rel, t, chunks in self._q(
                    # endpoints unlabelled: with `(a:Node)` FalkorDB scans every node and probes the edge
                    # index from each (20-40 s for 300 edges of MuSiQue's 16k nodes), without it one
                    # index scan (14 ms); REL edges only ever join Node nodes
                    "UNWIND $ids AS x MATCH (a)-[e:REL]->(b) WHERE e.i = x RETURN e.i, a.i, e.rel, b.i, e.chunks",
                    {"ids": ids[lo:hi]}):
                out[int(i)] = (int(h), rel, int(t), _split(chunks))
        return out

    def neighbors(self, v: int) -> np.ndarray:
        rows = self._q("MATCH (n:Node {i: $v})-[:REL]-(m:Node) RETURN DISTINCT m.i", {"v": int(v)})
        return np.sort(np.asarray([int(r[0]) for r in rows], dtype=np.int64))

    def incident_edges(self, nodes: Sequence[int]) -> np.ndarray:
        ids = sorted({int(v) for v in nodes})
        got: set[int] = set()
        for lo, hi in _batches(len(ids), 1000):
            got.update(int(r[0]) for r in self._q(
                "UNWIND $ids AS x MATCH (n:Node {i: x})-[e:REL]-() RETURN DISTINCT e.i", {"ids": ids[lo:hi]}))
        return np.asarray(sorted(got), dtype=np.int64)

    def node_chunks(self, nodes: Sequence[int]) -> list[tuple[str, ...]]:
        got = self._node_table(nodes)
        return [got[int(v)][3] for v in nodes]

    def edge_chunks(self, edges: Sequence[int]) -> list[tuple[str, ...]]:
        got = self._edge_table(edges)
        return [got[int(e)][3] for e in edges]

    def degrees(self, nodes: Sequence[int]) -> np.ndarray:
        ids = [int(v) for v in nodes]
        got: dict[int, int] = {}
        for lo, hi in _batches(len(ids)):
            got.update((int(i), int(d)) for i, d in self._q(
                "UNWIND $ids AS x MATCH (n:Node {i: x}) RETURN n.i, n.deg", {"ids": ids[lo:hi]}))
        return np.asarray([got[v] for v in ids], dtype=np.int64)

    def node_table(self, nodes: Sequence[int]) -> list[tuple[str, str, str, tuple[str, ...]]]:
        got = self._node_table(nodes)
        return [got[int(v)] for v in nodes]

    def _neighbor_rows(self, nodes: Sequence[int], cypher: str) -> dict[int, list[Any]]:
        ids = sorted({int(v) for v in nodes})
        got: dict[int, list[Any]] = {v: [] for v in ids}
        for lo, hi in _batches(len(ids), 1000):
            for x, m in self._q(cypher, {"ids": ids[lo:hi]}):
                got[int(x)].append(m)
        return got

    def neighbor_lists(self, nodes: Sequence[int]) -> list[np.ndarray]:
        got = self._neighbor_rows(nodes, "UNWIND $ids AS x MATCH (n:Node {i: x})-[:REL]-(m:Node) WHERE m.i <> x "
                                         "RETURN DISTINCT x, m.i")
        return [np.asarray(sorted(int(m) for m in got[int(v)]), dtype=np.int64) for v in nodes]

    def neighbor_counts(self, nodes: Sequence[int]) -> np.ndarray:
        got = self._neighbor_rows(nodes, "UNWIND $ids AS x MATCH (n:Node {i: x})-[:REL]-(m:Node) WHERE m.i <> x "
                                         "RETURN x, count(DISTINCT m.i)")
        return np.asarray([int(got[int(v)][0]) if got[int(v)] else 0 for v in nodes], dtype=np.int64)

    def _next_layer(self, frontier: np.ndarray, visited: set[int], limit: int) -> np.ndarray | None:
        """The nodes adjacent to ``frontier`` not in ``visited``, or None as soon as there are more
        than ``limit`` of them (the layer would pass the cap: the rest of it is never fetched, which
        is what keeps a hub-anchored question cheap)."""
        found: set[int] = set()
        ids = frontier.tolist()
        for lo, hi in _batches(len(ids), 1000):
            for (m,) in self._q("UNWIND $ids AS x MATCH (n:Node {i: x})-[:REL]-(m:Node) RETURN DISTINCT m.i",
                                {"ids": ids[lo:hi]}):
                if m not in visited:
                    found.add(int(m))
            if len(found) > limit:
                return None
        return np.asarray(sorted(found), dtype=np.int64)

    def _layers(self, seeds: np.ndarray, hops: int, cap: int) -> tuple[list[np.ndarray], bool]:
        """Hop layers with :func:`~core.graph.store.expand_layers`' cap rule."""
        if seeds.size == 0:
            return [], False
        layers, size, visited = [seeds], int(seeds.size), set(seeds.tolist())
        for _ in range(hops):
            layer = self._next_layer(layers[-1], visited, cap - size)
            if layer is None:
                return layers, True
            if layer.size == 0:
                break
            layers.append(layer)
            size += int(layer.size)
            visited.update(layer.tolist())
        return layers, False

    def region(self, seeds: Iterable[int], *, hops: int, max_nodes: int, with_chunks: bool = False) -> Region:
        """The capped ``hops``-hop region of ``seeds`` (one read query per hop layer and batch, then
        the region's nodes and edges), as an in-memory :class:`Region` with the store's ids."""
        seeds_a = np.unique(np.asarray(list(seeds), dtype=np.int64))
        layers, capped = self._layers(seeds_a, hops, max(max_nodes, int(seeds_a.size)))
        nodes = np.sort(np.concatenate(layers)) if layers else np.zeros(0, np.int64)
        table = self._node_table(nodes.tolist())
        node_rows = [table[v] for v in nodes.tolist()]
        inside = set(nodes.tolist())
        erows: dict[int, tuple[int, str, int, tuple[str, ...]]] = {}
        ids = nodes.tolist()
        for lo, hi in _batches(len(ids), 1000):
            for i, h, rel, t, cids in self._q(
                    "UNWIND $ids AS x MATCH (a:Node {i: x})-[e:REL]->(b:Node) RETURN e.i, a.i, e.rel, b.i, e.chunks",
                    {"ids": ids[lo:hi]}):
                if int(t) in inside:
                    erows[int(i)] = (int(h), rel, int(t), _split(cids))
        edges = np.asarray(sorted(erows), dtype=np.int64)
        chunks: list[tuple[str, str, str]] = []
        if with_chunks:
            cited = list(dict.fromkeys([c for r in node_rows for c in r[3]] +
                                       [c for e in edges.tolist() for c in erows[e][3]]))
            chunks = self.chunks(cited)
        g = region_graph(nodes, node_rows, edges, [erows[e] for e in edges.tolist()], chunks,
                         kind=str(self.meta.get("kind", "kg")), name=str(self.meta.get("name", "")))
        return Region(g, nodes, edges, hop_of(nodes, layers), len(layers) - 1 if layers else 0, hops, capped)

    def chunks(self, chunk_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """``(id, title, text)`` of the chunks with these ids that the store holds, in order."""
        got: dict[str, tuple[str, str, str]] = {}
        ids = list(chunk_ids)
        for lo, hi in _batches(len(ids)):
            for cid, title, text in self._q("UNWIND $ids AS x MATCH (c:Chunk {id: x}) RETURN c.id, c.title, c.text",
                                            {"ids": ids[lo:hi]}):
                got[cid] = (cid, title or "", text or "")
        return [got[c] for c in ids if c in got]

    def chunk_rows(self, rows: Sequence[int]) -> list[tuple[str, str, str]]:
        """``(id, title, text)`` of the chunks at these row numbers, in order (range index on ``Chunk.i``).

        Raises
        ------
        StoreError
            A row the store does not hold (the FAISS file and the store disagree: rebuild).
        """
        got: dict[int, tuple[str, str, str]] = {}
        ids = sorted({int(r) for r in rows})
        for lo, hi in _batches(len(ids)):
            for i, cid, title, text in self._q(
                    "UNWIND $ids AS x MATCH (c:Chunk {i: x}) RETURN c.i, c.id, c.title, c.text", {"ids": ids[lo:hi]}):
                got[int(i)] = (cid, title or "", text or "")
        missing = [r for r in ids if r not in got]
        if missing:
            raise StoreError(f"The graph store {self._url} has no chunk at row(s) {missing[:5]} of its "
                             f"{self.n_chunks} chunks: the workspace's vector index and the store disagree. Rebuild "
                             "the workspace with `egx index ... --store URL --overwrite`.")
        return [got[int(r)] for r in rows]

    def chunk_row_numbers(self, chunk_ids: Sequence[str]) -> dict[str, int]:
        got: dict[str, int] = {}
        ids = list(dict.fromkeys(chunk_ids))
        for lo, hi in _batches(len(ids)):
            for cid, i in self._q("UNWIND $ids AS x MATCH (c:Chunk {id: x}) RETURN c.id, c.i", {"ids": ids[lo:hi]}):
                got[cid] = int(i)
        return {c: got[c] for c in chunk_ids if c in got}

    def chunk_provenance(self, chunk_id: str) -> tuple[list[int], list[int]]:
        rows = self._q("MATCH (c:Chunk {id: $id}) RETURN c.nodes, c.edges", {"id": chunk_id})
        if not rows:
            return [], []
        return [int(v) for v in _split(rows[0][0])], [int(e) for e in _split(rows[0][1])]

    def graph(self) -> KnowledgeGraph:
        """The whole graph, read page by page in index order (kept after the first call)."""
        if self._full is None:
            self._full = self._read_all()
        return self._full

    def _read_all(self) -> KnowledgeGraph:
        n, m = self.n_nodes, self.n_edges
        node_rows: dict[int, tuple[str, str, str, tuple[str, ...]]] = {}
        for lo, hi in _batches(n, 20_000):
            for i, nid, name, desc, chunks in self._q(
                    "MATCH (n:Node) WHERE n.i >= $lo AND n.i < $hi RETURN n.i, n.id, n.name, n.description, n.chunks",
                    {"lo": lo, "hi": hi}):
                node_rows[int(i)] = (nid, name, desc or "", _split(chunks))
        edge_rows: dict[int, tuple[int, str, int, tuple[str, ...]]] = {}
        for lo, hi in _batches(m, 20_000):
            for i, h, rel, t, chunks in self._q(
                    "MATCH (a)-[e:REL]->(b) WHERE e.i >= $lo AND e.i < $hi "  # one index scan (see _edge_table)
                    "RETURN e.i, a.i, e.rel, b.i, e.chunks", {"lo": lo, "hi": hi}):
                edge_rows[int(i)] = (int(h), rel, int(t), _split(chunks))
        chunk_rows: dict[int, tuple[str, str, str]] = {}
        for lo, hi in _batches(int(self.meta.get("n_chunks", 0)), 20_000):
            for i, cid, title, text in self._q(
                    "MATCH (c:Chunk) WHERE c.i >= $lo AND c.i < $hi RETURN c.i, c.id, c.title, c.text",
                    {"lo": lo, "hi": hi}):
                chunk_rows[int(i)] = (cid, title or "", text or "")
        if len(node_rows) != n or len(edge_rows) != m or len(chunk_rows) != int(self.meta.get("n_chunks", 0)):
            raise StoreError(f"The graph store {self._url} holds {len(node_rows)} nodes, {len(edge_rows)} edges and "
                             f"{len(chunk_rows)} chunks where its EgxMeta says {n}, {m} and {self.meta.get('n_chunks')}: "
                             "it was changed outside egx. Rebuild it with `egx index ... --store URL --overwrite`.")
        nodes = np.arange(n, dtype=np.int64)
        g = region_graph(nodes, [node_rows[v] for v in range(n)], np.arange(m, dtype=np.int64),
                         [edge_rows[e] for e in range(m)], [chunk_rows[c] for c in range(len(chunk_rows))],
                         kind=str(self.meta.get("kind", "kg")), name=str(self.meta.get("name", "")))
        object.__setattr__(g, "meta", dict(json.loads(self.meta.get("meta") or "{}")))
        if self.content_hash and g.content_hash != self.content_hash:
            raise StoreError(f"The graph read from {self._url} does not match the content hash its EgxMeta records: "
                             "it was changed outside egx. Rebuild it with `egx index ... --store URL --overwrite`.")
        return g


def read_meta(db: FalkorDB, url: StoreURL) -> dict[str, Any]:
    """The ``EgxMeta`` properties of ``url.graph``; a :class:`StoreError` when it is not ours."""
    import redis

    fix = (f"Name another graph in the URL, or write this one with `egx index INPUTS --workspace DIR --store {url}` "
           "(egx never overwrites a graph it did not write).")
    try:
        rows = _rows(db.select_graph(url.graph).ro_query(
            "MATCH (m:EgxMeta) RETURN properties(m) LIMIT 2", timeout=QUERY_TIMEOUT_MS))
    except redis.exceptions.ResponseError as exc:
        raise StoreError(f"The graph {url.graph!r} at {url} could not be read as a FalkorDB graph ({_why(exc)}). {fix}") from None
    if len(rows) != 1 or rows[0][0].get("format") != SCHEMA:
        raise StoreError(f"The graph {url.graph!r} at {url} was not written by egx (no EgxMeta node of format "
                         f"{SCHEMA!r}). {fix}")
    meta = dict(rows[0][0])
    if int(meta.get("version", 0)) != SCHEMA_VERSION:
        raise StoreError(f"The graph {url.graph!r} at {url} uses egx store format version {meta.get('version')}, "
                         f"this egx reads version {SCHEMA_VERSION}. Rebuild it with `egx index ... --store {url} --overwrite`.")
    return meta


def load_graph_into(graph: KnowledgeGraph, url: StoreURL, *, overwrite: bool = False, owner: str = "",
                    progress: Progress | None = None, batch: int = BATCH) -> dict[str, Any]:
    """Write ``graph`` into FalkorDB as ``url.graph`` (staging graph + rename; nothing half-written).

    Parameters
    ----------
    graph
        The KG; node ``v`` / edge ``e`` keep their indices as the ``i`` property (the FAISS rows).
    url
        Where to write it.
    overwrite
        Replace an existing graph of that name that egx wrote for the same ``owner`` (a graph egx did not
        write, or wrote for another workspace, is never replaced).
    owner
        The workspace folder the graph belongs to, recorded in its ``EgxMeta`` (two workspaces
        naming one store graph must not replace each other's).
    batch
        Rows per ``UNWIND`` query.

    Returns
    -------
    dict
        Load figures: nodes, edges, chunks, seconds.

    Raises
    ------
    StoreError
        Unreachable server, a graph of that name that is not ours, another workspace's, or (without
        ``overwrite``) this workspace's.
    """
    import redis

    db = _connect(url)
    existing = db.list_graphs()
    if url.graph in existing:
        held_by = str(read_meta(db, url).get("owner") or "")  # read_meta refuses a graph that is not ours
        if held_by and owner and held_by != owner:
            raise StoreError(f"The graph store {url} already holds the egx graph {url.graph!r} of the workspace "
                             f"{held_by}; --overwrite replaces only a graph this workspace wrote. Name another "
                             "graph in the URL (e.g. one per workspace).")
        if not overwrite:
            whose = f" of the workspace {held_by}" if held_by else ""
            raise StoreError(f"The graph store {url} already holds an egx graph {url.graph!r}{whose}. Pass "
                             "--overwrite to replace it" + (" (only that workspace may)" if held_by and not owner
                                                             else "") + ", or name another graph in the URL.")
    for stale in existing:  # killed loads of this graph leave their staging graph behind
        if stale.startswith(url.graph + STAGING):
            db.select_graph(stale).delete()
    stage_name = f"{url.graph}{STAGING}{os.getpid()}_{uuid.uuid4().hex[:8]}"
    stage = db.select_graph(stage_name)
    t0 = time.perf_counter()
    total = graph.n_chunks + graph.n_nodes + graph.n_edges
    done = 0

    def tick(k: int, what: str) -> None:
        nonlocal done
        done += k
        if progress:
            progress(f"Writing {what} into {url}", done / max(total, 1))

    try:
        for cypher in ("CREATE INDEX FOR (n:Node) ON (n.i)", "CREATE INDEX FOR (n:Node) ON (n.id)",
                       "CREATE INDEX FOR (n:Node) ON (n.key)", "CREATE INDEX FOR (c:Chunk) ON (c.i)",
                       "CREATE INDEX FOR (c:Chunk) ON (c.id)", "CREATE INDEX FOR ()-[e:REL]-() ON (e.i)"):
            stage.query(cypher)
        prov = graph.chunk_provenance()
        for lo, hi in _batches(graph.n_chunks, batch):
            rows = [{"i": i, "id": c.id, "title": c.title, "text": c.text,
                     "nodes": SEP.join(map(str, prov.get(c.id, ([], []))[0])),
                     "edges": SEP.join(map(str, prov.get(c.id, ([], []))[1]))}
                    for i, c in enumerate(graph.chunks[lo:hi], start=lo)]
            stage.query("UNWIND $rows AS r CREATE (:Chunk {i: r.i, id: r.id, title: r.title, text: r.text, "
                        "nodes: r.nodes, edges: r.edges})", {"rows": rows})
            tick(hi - lo, "chunks")
        deg = graph.degree
        for lo, hi in _batches(graph.n_nodes, batch):
            rows = [{"i": v, "id": graph.node_ids[v], "key": normalize_name(graph.node_names[v]),
                     "name": graph.node_names[v], "d": graph.node_descriptions[v],
                     "c": _join(graph.node_chunks[v]), "deg": int(deg[v])} for v in range(lo, hi)]
            stage.query("UNWIND $rows AS r CREATE (:Node {i: r.i, id: r.id, key: r.key, name: r.name, "
                        "description: r.d, chunks: r.c, deg: r.deg})", {"rows": rows})
            tick(hi - lo, "nodes")
        for lo, hi in _batches(graph.n_edges, batch):
            rows = [{"i": e, "h": int(graph.edge_head[e]), "t": int(graph.edge_tail[e]), "r": graph.edge_relation[e],
                     "c": _join(graph.edge_chunks[e])} for e in range(lo, hi)]
            stage.query("UNWIND $rows AS r MATCH (a:Node {i: r.h}), (b:Node {i: r.t}) "
                        "CREATE (a)-[:REL {i: r.i, rel: r.r, chunks: r.c}]->(b)", {"rows": rows})
            tick(hi - lo, "edges")
        stage.query("CREATE (:EgxMeta {format: $f, version: $v, kind: $kind, name: $name, meta: $meta, "
                    "content_hash: $hash, n_nodes: $n, n_edges: $m, n_chunks: $c, owner: $owner})",
                    {"f": SCHEMA, "v": SCHEMA_VERSION, "kind": graph.kind, "name": graph.name, "owner": owner,
                     "meta": json.dumps(graph.meta, ensure_ascii=False, default=str), "hash": graph.content_hash,
                     "n": graph.n_nodes, "m": graph.n_edges, "c": graph.n_chunks})
        db.connection.execute_command("RENAME", stage_name, url.graph)
    except BaseException as exc:
        try:
            if stage_name in db.list_graphs():
                stage.delete()
        except redis.exceptions.RedisError:
            pass
        if isinstance(exc, redis.exceptions.RedisError):
            raise StoreError(f"Writing the graph into {url} failed ({_why(exc)}); nothing was changed there. "
                             "Check the server's memory and log, then run the index again.") from None
        raise
    return {"nodes": graph.n_nodes, "edges": graph.n_edges, "chunks": graph.n_chunks,
            "seconds": round(time.perf_counter() - t0, 3)}

