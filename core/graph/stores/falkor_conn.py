"""Connecting to a FalkorDB server, and the store format that the reader (:mod:`core.graph.stores.falkor`) and the
writer (:mod:`core.graph.stores.falkor_load`) share: the schema's name and version, the ``EgxMeta`` check, how lists
are stored, the batch size.

Schema (one FalkorDB graph per workspace), format version :data:`SCHEMA_VERSION`::

    (:EgxMeta {format: "egx-graph-store", version, kind, name, meta, content_hash, n_nodes, n_edges, n_chunks,
               n_relations, n_provenance, node_id_base, edge_id_base})   the id bases optional: see :class:`Ids`
    (:Node  {i, id, key, name, description, chunks, deg})        i = the node's FAISS row, key = normalized name
    (:Chunk {i, id, title, text, nodes, edges})                  nodes/edges = provenance (indices)
    (:Node)-[:REL {i, c}]->(:Node)                               i = the edge's FAISS row, c = codes (below)
    (:EgxRelation {c, text})                                     the relation of code c
    (:EgxProvenance {c, chunks})                                 the provenance chunk ids of code c

An edge carries its relation and its provenance as integer codes into the two code tables (codes
numbered by first appearance in edge order), packed into one property ``c = relation code * 2**32 +
provenance code`` (:func:`pack_codes`): a region read is per-edge work on the server, for every
out-edge of the region's nodes, and one integer property costs it far less than two strings (or two
integers: each property read is a lookup in the edge's attribute set); the client decodes the few
distinct codes a read meets through :class:`Codes`, which keeps what it has read.

List-valued properties (chunk ids, provenance indices) are strings joined by ``SEP`` (U+001F):
reading them back as strings is several times faster than the client's per-element array parsing.

Version history: 2 stored each edge's relation and provenance strings on the edge (``rel``, ``chunks``);
3 stores their codes (``c``). An older graph is refused with the command that reloads it (:func:`read_meta`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import StoreError
from core.graph.stores.store import StoreURL

if TYPE_CHECKING:
    from falkordb import FalkorDB

SCHEMA = "egx-graph-store"
SCHEMA_VERSION = 3
RELATIONS = "EgxRelation"  #: the relation code table's label
PROVENANCE = "EgxProvenance"  #: the provenance code table's label
STAGING = "__egx_staging_"
BATCH = 5000
QUERY_TIMEOUT_MS = 120_000


def connect(url: StoreURL) -> FalkorDB:
    """A client for the server at ``url``, checked with a ping; a :class:`StoreError` that says how to fix it."""
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
        raise StoreError(f"Cannot reach the graph store {url} ({short_error(exc)}). Start the server (for a local one: "
                         f"`python -m core.graph.stores.falkor_server --port {url.port}`) or fix the --store URL.") from None
    except redis.exceptions.ResponseError as exc:
        raise StoreError(f"The server at {url} answered {exc!s} — is it a Redis server with the FalkorDB "
                         "module loaded (`redis-server --loadmodule falkordb.so`)?") from None
    return db


def short_error(exc: BaseException) -> str:
    """An exception's text, cut to fit in one error message."""
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) < 160 else text[:157] + "..."


def _rows(result: Any) -> list[list[Any]]:
    return list(result.result_set)


SEP = "\x1f"  #: joins a list of chunk ids (or indices) into one string property


def join_ids(ids: Iterable[str]) -> str:
    """Chunk ids as one string property (joined by :data:`SEP`, which no id may contain)."""
    ids = tuple(ids)
    for c in ids:
        if SEP in c:
            raise StoreError(f"The chunk id {c!r} contains the control character U+001F, which the graph store "
                             "uses as its list separator. Rename the chunk (ids are any text without control characters).")
    return SEP.join(ids)


def split_ids(value: Any) -> tuple[str, ...]:
    """Inverse of :func:`join_ids` (an empty or missing property is no ids)."""
    return tuple(str(value).split(SEP)) if value else ()


@dataclass(frozen=True)
class Ids:
    """How a query names node ``v`` and edge ``e`` of the store.

    A load into a fresh graph creates the nodes and then the edges in index order, so FalkorDB's own ids
    are ``ID(node v) = node_base + v`` and ``ID(edge e) = edge_base + e``; the loader checks that over the
    whole graph and records both bases in ``EgxMeta``. With them a node is found by an id seek (about
    0.5 µs a node) instead of the range index on ``Node.i`` (about 25 µs a node: the largest cost of a
    region read), and an index read back is ``ID(x)`` instead of a property read. A graph loaded before the
    bases were recorded (or whose ids did not line up) has neither, and is read through the index.
    """

    node_base: int | None = None
    edge_base: int | None = None

    @classmethod
    def of(cls, meta: Mapping[str, Any]) -> Ids:
        nb, eb = meta.get(NODE_ID_BASE), meta.get(EDGE_ID_BASE)
        return cls(None if nb is None else int(nb), None if eb is None else int(eb))

    def match(self, var: str, x: str = "x") -> str:
        """``MATCH`` the node whose query-side id (:meth:`qids`) is ``x``."""
        if self.node_base is None:
            return f"MATCH ({var}:Node {{i: {x}}})"
        return f"MATCH ({var}:Node) WHERE ID({var}) = {x}"  # `ID(v) = x + base` would scan: shift client-side

    def node(self, var: str) -> str:
        """The query-side id of node ``var`` (:meth:`nodes` turns it back into an index)."""
        return f"{var}.i" if self.node_base is None else f"ID({var})"

    def edge(self, var: str) -> str:
        return f"{var}.i" if self.edge_base is None else f"ID({var})"

    def qids(self, nodes: Iterable[int]) -> list[int]:
        """Node indices as the ids :meth:`match` expects."""
        b = self.node_base or 0
        return [int(v) + b for v in nodes]

    def nodes(self, got: np.ndarray) -> np.ndarray:
        return got - self.node_base if self.node_base else got

    def edges(self, got: np.ndarray) -> np.ndarray:
        return got - self.edge_base if self.edge_base else got


NODE_ID_BASE = "node_id_base"
EDGE_ID_BASE = "edge_id_base"


def int_list(value: Any) -> np.ndarray:
    """A ``collect()`` of integers as FalkorDB's non-compact reply writes it (``"[1, 2, 3]"``): parsed in C,
    where one row per value would cost the client a Python object per cell."""
    text = str(value)
    return np.fromstring(text[1:-1], dtype=np.int64, sep=",") if len(text) > 2 else np.zeros(0, np.int64)


Query = Callable[[str, dict[str, Any]], list[list[Any]]]
CODE_BITS = 32  #: the provenance code's share of an edge's packed code ``c``


def pack_codes(relation: int, provenance: int) -> int:
    """An edge's ``c`` property: both codes in one integer (FalkorDB integers are signed 64-bit)."""
    return (relation << CODE_BITS) | provenance


def unpack_codes(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(relation codes, provenance codes)`` of packed ``c`` values (:func:`pack_codes`)."""
    packed = np.asarray(packed, dtype=np.int64)
    return packed >> CODE_BITS, packed & ((1 << CODE_BITS) - 1)


class Codes:
    """One code table as the client knows it: code → value, read from the server on first need.

    Parameters
    ----------
    q
        Runs a read query (the store's).
    label, prop
        The table's node label and value property (``EgxRelation.text``, ``EgxProvenance.chunks``).
    parse
        Turns a stored value into the decoded one (provenance: :func:`split_ids`).
    where
        What the store is called in an error message.
    """

    def __init__(self, q: Query, label: str, prop: str, parse: Callable[[Any], Any], where: str) -> None:
        self._q, self._label, self._prop, self._parse, self._where = q, label, prop, parse, where
        self._known: dict[int, Any] = {}

    def decode(self, codes: np.ndarray) -> list[Any]:
        """The value of each code, in order (one query per :data:`BATCH` codes not read before).

        Raises
        ------
        StoreError
            A code the table does not hold (the graph was changed outside egx).
        """
        uniq, inverse = np.unique(np.asarray(codes, dtype=np.int64), return_inverse=True)
        missing = [c for c in uniq.tolist() if c not in self._known]
        for lo, hi in batches(len(missing)):
            for c, value in self._q(f"UNWIND $ids AS x MATCH (t:{self._label} {{c: x}}) RETURN t.c, t.{self._prop}",
                                    {"ids": missing[lo:hi]}):
                self._known[int(c)] = self._parse(value)
        lost = [c for c in missing if c not in self._known]
        if lost:
            raise StoreError(f"The graph store {self._where} has no {self._label} row for code {lost[0]} (its edges "
                             "name it): the graph was changed outside egx. Rebuild it with "
                             f"`egx index INPUTS --workspace DIR --store {self._where} --overwrite`.")
        values = np.empty(uniq.size, dtype=object)
        for k, c in enumerate(uniq.tolist()):  # element-wise: a tuple value must stay one cell
            values[k] = self._known[c]
        return values[inverse.reshape(-1)].tolist()


def batches(n: int, size: int = BATCH) -> Iterator[tuple[int, int]]:
    """``(lo, hi)`` ranges of at most ``size`` that cover ``range(n)``."""
    for lo in range(0, n, size):
        yield lo, min(n, lo + size)


def read_meta(db: FalkorDB, url: StoreURL, *, any_version: bool = False) -> dict[str, Any]:
    """The ``EgxMeta`` properties of ``url.graph``; a :class:`StoreError` when it is not ours, or (unless
    ``any_version``: the loader, which replaces it) when it is in another store format version."""
    import redis

    fix = (f"Name another graph in the URL, or write this one with `egx index INPUTS --workspace DIR --store {url}` "
           "(egx never overwrites a graph it did not write).")
    try:
        rows = _rows(db.select_graph(url.graph).ro_query(
            "MATCH (m:EgxMeta) RETURN properties(m) LIMIT 2", timeout=QUERY_TIMEOUT_MS))
    except redis.exceptions.ResponseError as exc:
        raise StoreError(f"The graph {url.graph!r} at {url} could not be read as a FalkorDB graph ({short_error(exc)}). {fix}") from None
    if len(rows) != 1 or rows[0][0].get("format") != SCHEMA:
        raise StoreError(f"The graph {url.graph!r} at {url} was not written by egx (no EgxMeta node of format "
                         f"{SCHEMA!r}). {fix}")
    meta = dict(rows[0][0])
    if not any_version and meta.get("version") != SCHEMA_VERSION:
        raise StoreError(version_error(url, meta))
    return meta


def version_error(url: StoreURL, meta: Mapping[str, Any]) -> str:
    """Why a graph in another store format version cannot be read, and the command that reloads it.

    The store holds the workspace's only copy of the graph (``graph.json.gz`` is removed once it is in
    the store), so the graph is rebuilt from the files the workspace was built from."""
    folder = str(meta.get("owner") or "") or "DIR"
    newer = isinstance(meta.get("version"), int) and int(meta["version"]) > SCHEMA_VERSION
    fix = ("Upgrade egx to read it, or reload it" if newer else "Reload it") + \
        f" in this version's format: `egx index INPUTS --workspace {folder} --store {url} --overwrite` " \
        "(INPUTS: the files the workspace was built from)."
    return (f"The graph {url.graph!r} at {url} is in egx store format version {meta.get('version')}; this egx reads "
            f"version {SCHEMA_VERSION} (relations and provenance as integer codes). {fix}")
