"""Connecting to a FalkorDB server, and the store format that the reader (:mod:`core.graph.falkor`) and the
writer (:mod:`core.graph.falkor_load`) share: the schema's name and version, the ``EgxMeta`` check, how lists
are stored, the batch size.

Schema (one FalkorDB graph per workspace)::

    (:EgxMeta {format: "egx-graph-store", version, kind, name, meta, content_hash, n_nodes, n_edges, n_chunks})
    (:Node  {i, id, key, name, description, chunks, deg})        i = the node's FAISS row, key = normalized name
    (:Chunk {i, id, title, text, nodes, edges})                  nodes/edges = provenance (indices)
    (:Node)-[:REL {i, rel, chunks}]->(:Node)                     i = the edge's FAISS row

List-valued properties (chunk ids, provenance indices) are strings joined by ``SEP`` (U+001F):
reading them back as strings is several times faster than the client's per-element array parsing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from core.errors import StoreError
from core.graph.store import StoreURL

if TYPE_CHECKING:
    from falkordb import FalkorDB

SCHEMA = "egx-graph-store"
SCHEMA_VERSION = 2
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
                         f"`python -m core.graph.falkor_server --port {url.port}`) or fix the --store URL.") from None
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


def batches(n: int, size: int = BATCH) -> Iterator[tuple[int, int]]:
    """``(lo, hi)`` ranges of at most ``size`` that cover ``range(n)``."""
    for lo in range(0, n, size):
        yield lo, min(n, lo + size)


def read_meta(db: FalkorDB, url: StoreURL) -> dict[str, Any]:
    """The ``EgxMeta`` properties of ``url.graph``; a :class:`StoreError` when it is not ours."""
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
    if int(meta.get("version", 0)) != SCHEMA_VERSION:
        raise StoreError(f"The graph {url.graph!r} at {url} uses egx store format version {meta.get('version')}, "
                         f"this egx reads version {SCHEMA_VERSION}. Rebuild it with `egx index ... --store {url} --overwrite`.")
    return meta
