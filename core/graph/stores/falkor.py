"""FalkorDB as a :class:`~core.graph.stores.store.GraphStore`: the KG lives in a graph database and each
question pulls only the region it needs.

:class:`FalkorStore` reads a graph that :func:`core.graph.stores.falkor_load.load_graph_into` wrote; the schema, the
connection and the checks both share are in :mod:`core.graph.stores.falkor_conn`. Every query is read-only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import StoreError
from core.graph.model import KnowledgeGraph
from core.graph.stores import falkor_region
from core.graph.stores.falkor_conn import (
    PROVENANCE,
    QUERY_TIMEOUT_MS,
    RELATIONS,
    STAGING,
    Codes,
    Ids,
    batches,
    connect,
    read_meta,
    short_error,
    split_ids,
    unpack_codes,
)
from core.graph.stores.store import (
    EdgeColumns,
    Region,
    StoreURL,
    hop_of,
    region_graph,
)
from core.text import normalize_name

if TYPE_CHECKING:
    from falkordb import FalkorDB, Graph


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


class FalkorStore:
    """A KG in a FalkorDB graph written by :func:`~core.graph.stores.falkor_load.load_graph_into` (schema:
    :mod:`core.graph.stores.falkor_conn`).

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
        self._ids = Ids.of(meta)
        self._relations = Codes(self._q, RELATIONS, "text", str, str(url))
        self._provenance = Codes(self._q, PROVENANCE, "chunks", split_ids, str(url))

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
        db = connect(url)
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
        regions (lists are stored as joined strings for that reason: see :data:`~core.graph.stores.falkor_conn.SEP`)."""
        import redis

        query = _params_header(params) + cypher
        try:
            res = self._db.connection.execute_command("GRAPH.RO_QUERY", self._url.graph, query, "timeout",
                                                      QUERY_TIMEOUT_MS)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise StoreError(f"The graph store {self._url} stopped answering ({short_error(exc)}). Check that the server "
                             "still runs, then ask again.") from None
        except redis.exceptions.ResponseError as exc:
            raise StoreError(f"The graph store {self._url} failed a query: {short_error(exc)}.") from None
        return list(res[1]) if len(res) == 3 else []

    # ------------------------------------------------------------------ lookups
    def node_rows(self, nodes: Sequence[int]) -> list[tuple[str, str]]:
        got = self._node_table(nodes)
        return [(got[int(v)][0], got[int(v)][1]) for v in nodes]

    def _node_table(self, nodes: Iterable[int]) -> dict[int, tuple[str, str, str, tuple[str, ...]]]:
        ids = sorted({int(v) for v in nodes})
        out: dict[int, tuple[str, str, str, tuple[str, ...]]] = {}
        qids = self._ids.qids(ids)
        for lo, hi in batches(len(ids)):
            for i, nid, name, desc, chunks in self._q(
                    f"UNWIND $ids AS x {self._ids.match('n')} RETURN n.i, n.id, n.name, n.description, n.chunks",
                    {"ids": qids[lo:hi]}):
                out[int(i)] = (nid, name, desc or "", split_ids(chunks))
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
        for lo, hi in batches(len(ks)):
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
        rows: list[list[Any]] = []
        for lo, hi in batches(len(ids)):
            rows += self._q(
                # endpoints unlabelled: with `(a:Node)` FalkorDB scans every node and probes the edge
                # index from each (20-40 s for 300 edges of MuSiQue's 16k nodes), without it one
                # index scan (14 ms); REL edges only ever join Node nodes
                "UNWIND $ids AS x MATCH (a)-[e:REL]->(b) WHERE e.i = x RETURN e.i, a.i, b.i, e.c",
                {"ids": ids[lo:hi]})
        return self._decoded(rows)

    def _decoded(self, rows: Sequence[Sequence[Any]]) -> dict[int, tuple[int, str, int, tuple[str, ...]]]:
        """``(edge index, head, tail, packed codes)`` rows as edge index → ``(head, relation, tail, chunks)``."""
        r, p = unpack_codes(np.asarray([int(row[3]) for row in rows], dtype=np.int64))
        rels, provs = self._relations.decode(r), self._provenance.decode(p)
        return {int(row[0]): (int(row[1]), rel, int(row[2]), prov) for row, rel, prov in zip(rows, rels, provs)}

    def neighbors(self, v: int) -> np.ndarray:
        rows = self._q(f"{self._ids.match('n', '$v')} MATCH (n)-[:REL]-(m:Node) RETURN DISTINCT m.i",
                       {"v": self._ids.qids([v])[0]})
        return np.sort(np.asarray([int(r[0]) for r in rows], dtype=np.int64))

    def incident_edges(self, nodes: Sequence[int]) -> np.ndarray:
        ids = sorted({int(v) for v in nodes})
        got: set[int] = set()
        qids = self._ids.qids(ids)
        for lo, hi in batches(len(ids), 1000):
            got.update(int(r[0]) for r in self._q(
                f"UNWIND $ids AS x {self._ids.match('n')} MATCH (n)-[e:REL]-() RETURN DISTINCT e.i",
                {"ids": qids[lo:hi]}))
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
        qids = self._ids.qids(ids)
        for lo, hi in batches(len(ids)):
            got.update((int(i), int(d)) for i, d in self._q(
                f"UNWIND $ids AS x {self._ids.match('n')} RETURN n.i, n.deg", {"ids": qids[lo:hi]}))
        return np.asarray([got[v] for v in ids], dtype=np.int64)

    def node_table(self, nodes: Sequence[int]) -> list[tuple[str, str, str, tuple[str, ...]]]:
        got = self._node_table(nodes)
        return [got[int(v)] for v in nodes]

    def _neighbor_rows(self, nodes: Sequence[int], cypher: str) -> dict[int, list[Any]]:
        ids = sorted({int(v) for v in nodes})
        got: dict[int, list[Any]] = {v: [] for v in ids}
        qids = self._ids.qids(ids)
        for lo, hi in batches(len(ids), 1000):
            for i, m in self._q(f"UNWIND $ids AS x {self._ids.match('n')} " + cypher, {"ids": qids[lo:hi]}):
                got[int(i)].append(m)
        return got

    def neighbor_lists(self, nodes: Sequence[int]) -> list[np.ndarray]:
        got = self._neighbor_rows(nodes, "MATCH (n)-[:REL]-(m:Node) WHERE m.i <> n.i RETURN DISTINCT n.i, m.i")
        return [np.asarray(sorted(int(m) for m in got[int(v)]), dtype=np.int64) for v in nodes]

    def neighbor_counts(self, nodes: Sequence[int]) -> np.ndarray:
        got = self._neighbor_rows(nodes, "MATCH (n)-[:REL]-(m:Node) WHERE m.i <> n.i RETURN n.i, count(DISTINCT m.i)")
        return np.asarray([int(got[int(v)][0]) if got[int(v)] else 0 for v in nodes], dtype=np.int64)

    def region(self, seeds: Iterable[int], *, hops: int, max_nodes: int, with_chunks: bool = False) -> Region:
        """The capped ``hops``-hop region of ``seeds`` (:mod:`core.graph.stores.falkor_region`: one read query per
        hop layer and batch, then the region's nodes and edges), as an in-memory :class:`Region` with the
        store's ids."""
        seeds_a = np.unique(np.asarray(list(seeds), dtype=np.int64))
        layers, capped = falkor_region.layers(self._q, self._ids, seeds_a, hops, max(max_nodes, int(seeds_a.size)))
        nodes = np.sort(np.concatenate(layers)) if layers else np.zeros(0, np.int64)
        table = self._node_table(nodes.tolist())
        node_rows = [table[v] for v in nodes.tolist()]
        edges, cols = falkor_region.induced_edges(self._q, self._ids, nodes, self._relations, self._provenance)
        chunks: list[tuple[str, str, str]] = []
        if with_chunks:
            cited = list(dict.fromkeys([c for r in node_rows for c in r[3]] + [c for r in cols.chunks for c in r]))
            chunks = self.chunks(cited)
        g = region_graph(nodes, node_rows, edges, cols, chunks,
                         kind=str(self.meta.get("kind", "kg")), name=str(self.meta.get("name", "")))
        return Region(g, nodes, edges, hop_of(nodes, layers), len(layers) - 1 if layers else 0, hops, capped)

    def chunks(self, chunk_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """``(id, title, text)`` of the chunks with these ids that the store holds, in order."""
        got: dict[str, tuple[str, str, str]] = {}
        ids = list(chunk_ids)
        for lo, hi in batches(len(ids)):
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
        for lo, hi in batches(len(ids)):
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
        for lo, hi in batches(len(ids)):
            for cid, i in self._q("UNWIND $ids AS x MATCH (c:Chunk {id: x}) RETURN c.id, c.i", {"ids": ids[lo:hi]}):
                got[cid] = int(i)
        return {c: got[c] for c in chunk_ids if c in got}

    def chunk_provenance(self, chunk_id: str) -> tuple[list[int], list[int]]:
        rows = self._q("MATCH (c:Chunk {id: $id}) RETURN c.nodes, c.edges", {"id": chunk_id})
        if not rows:
            return [], []
        return [int(v) for v in split_ids(rows[0][0])], [int(e) for e in split_ids(rows[0][1])]

    def graph(self) -> KnowledgeGraph:
        """The whole graph, read page by page in index order (kept after the first call)."""
        if self._full is None:
            self._full = self._read_all()
        return self._full

    def _read_all(self) -> KnowledgeGraph:
        n, m = self.n_nodes, self.n_edges
        node_rows: dict[int, tuple[str, str, str, tuple[str, ...]]] = {}
        for lo, hi in batches(n, 20_000):
            for i, nid, name, desc, chunks in self._q(
                    "MATCH (n:Node) WHERE n.i >= $lo AND n.i < $hi RETURN n.i, n.id, n.name, n.description, n.chunks",
                    {"lo": lo, "hi": hi}):
                node_rows[int(i)] = (nid, name, desc or "", split_ids(chunks))
        edge_rows: dict[int, tuple[int, str, int, tuple[str, ...]]] = {}
        for lo, hi in batches(m, 20_000):
            edge_rows.update(self._decoded(self._q(
                "MATCH (a)-[e:REL]->(b) WHERE e.i >= $lo AND e.i < $hi "  # one index scan (see _edge_table)
                "RETURN e.i, a.i, b.i, e.c", {"lo": lo, "hi": hi})))
        chunk_rows: dict[int, tuple[str, str, str]] = {}
        for lo, hi in batches(int(self.meta.get("n_chunks", 0)), 20_000):
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
                         EdgeColumns.of_rows([edge_rows[e] for e in range(m)]), [chunk_rows[c] for c in range(len(chunk_rows))],
                         kind=str(self.meta.get("kind", "kg")), name=str(self.meta.get("name", "")))
        object.__setattr__(g, "meta", dict(json.loads(self.meta.get("meta") or "{}")))
        if self.content_hash and g.content_hash != self.content_hash:
            raise StoreError(f"The graph read from {self._url} does not match the content hash its EgxMeta records: "
                             "it was changed outside egx. Rebuild it with `egx index ... --store URL --overwrite`.")
        return g
