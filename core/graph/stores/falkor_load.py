"""Writing a KnowledgeGraph into FalkorDB, so that a :class:`~core.graph.stores.falkor.FalkorStore` can serve it.

Loading (:func:`load_graph_into`) writes a *staging* graph with batched ``UNWIND`` inserts and
range indexes on ``Node.i``, ``Node.id``, ``Node.key``, ``Chunk.i``, ``Chunk.id``, ``REL.i`` and the code
tables' ``c`` (each edge's relation and provenance become integer codes into those tables),
writes the ``EgxMeta`` node last, and only then renames the staging graph to its name (Redis
``RENAME``: atomic, replacing an older egx graph of that name). A failed or interrupted load
deletes its staging graph; a killed one leaves a ``GRAPH__egx_staging_*`` graph that the next load
of GRAPH removes. The target is never half-written. The schema it writes is described in
:mod:`core.graph.stores.falkor_conn`.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable
from typing import Any

from core.errors import StoreError
from core.graph.model import KnowledgeGraph
from core.graph.stores.falkor_conn import (
    BATCH,
    CODE_BITS,
    EDGE_ID_BASE,
    NODE_ID_BASE,
    PROVENANCE,
    RELATIONS,
    SCHEMA,
    SCHEMA_VERSION,
    SEP,
    STAGING,
    batches,
    connect,
    join_ids,
    pack_codes,
    read_meta,
    short_error,
)
from core.graph.stores.store import StoreURL
from core.text import normalize_name

Progress = Callable[[str, float], None]


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

    db = connect(url)
    existing = db.list_graphs()
    if url.graph in existing:
        # read_meta refuses a graph that is not ours; one in an older format is what --overwrite replaces
        held_by = str(read_meta(db, url, any_version=True).get("owner") or "")
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
                       "CREATE INDEX FOR (c:Chunk) ON (c.id)", "CREATE INDEX FOR ()-[e:REL]-() ON (e.i)",
                       f"CREATE INDEX FOR (t:{RELATIONS}) ON (t.c)", f"CREATE INDEX FOR (t:{PROVENANCE}) ON (t.c)"):
            stage.query(cypher)
        prov = graph.chunk_provenance()
        for lo, hi in batches(graph.n_chunks, batch):
            rows = [{"i": i, "id": c.id, "title": c.title, "text": c.text,
                     "nodes": SEP.join(map(str, prov.get(c.id, ([], []))[0])),
                     "edges": SEP.join(map(str, prov.get(c.id, ([], []))[1]))}
                    for i, c in enumerate(graph.chunks[lo:hi], start=lo)]
            stage.query("UNWIND $rows AS r CREATE (:Chunk {i: r.i, id: r.id, title: r.title, text: r.text, "
                        "nodes: r.nodes, edges: r.edges})", {"rows": rows})
            tick(hi - lo, "chunks")
        deg = graph.degree
        for lo, hi in batches(graph.n_nodes, batch):
            rows = [{"i": v, "id": graph.node_ids[v], "key": normalize_name(graph.node_names[v]),
                     "name": graph.node_names[v], "d": graph.node_descriptions[v],
                     "c": join_ids(graph.node_chunks[v]), "deg": int(deg[v])} for v in range(lo, hi)]
            stage.query("UNWIND $rows AS r CREATE (:Node {i: r.i, id: r.id, key: r.key, name: r.name, "
                        "description: r.d, chunks: r.c, deg: r.deg})", {"rows": rows})
            tick(hi - lo, "nodes")
        rel_codes, prov_codes, relations, provenance = edge_codes(graph)
        for lo, hi in batches(graph.n_edges, batch):
            rows = [{"i": e, "h": int(graph.edge_head[e]), "t": int(graph.edge_tail[e]),
                     "c": pack_codes(rel_codes[e], prov_codes[e])} for e in range(lo, hi)]
            stage.query("UNWIND $rows AS r MATCH (a:Node {i: r.h}), (b:Node {i: r.t}) "
                        "CREATE (a)-[:REL {i: r.i, c: r.c}]->(b)", {"rows": rows})
            tick(hi - lo, "edges")
        for lo, hi in batches(len(relations), batch):
            stage.query(f"UNWIND $rows AS r CREATE (:{RELATIONS} {{c: r.c, text: r.t}})",
                        {"rows": [{"c": c, "t": relations[c]} for c in range(lo, hi)]})
        for lo, hi in batches(len(provenance), batch):
            stage.query(f"UNWIND $rows AS r CREATE (:{PROVENANCE} {{c: r.c, chunks: r.t}})",
                        {"rows": [{"c": c, "t": provenance[c]} for c in range(lo, hi)]})
        bases = id_bases(stage)
        stage.query("CREATE (:EgxMeta {format: $f, version: $v, kind: $kind, name: $name, meta: $meta, "
                    f"content_hash: $hash, n_nodes: $n, n_edges: $m, n_chunks: $c, owner: $owner, "
                    f"n_relations: $nr, n_provenance: $np, {NODE_ID_BASE}: $nb, {EDGE_ID_BASE}: $eb}})",
                    {"nb": bases[0], "eb": bases[1], "f": SCHEMA, "v": SCHEMA_VERSION, "kind": graph.kind, "name": graph.name, "owner": owner,
                     "meta": json.dumps(graph.meta, ensure_ascii=False, default=str), "hash": graph.content_hash,
                     "n": graph.n_nodes, "m": graph.n_edges, "c": graph.n_chunks, "nr": len(relations),
                     "np": len(provenance)})
        db.connection.execute_command("RENAME", stage_name, url.graph)
    except BaseException as exc:
        try:
            if stage_name in db.list_graphs():
                stage.delete()
        except redis.exceptions.RedisError:
            pass
        if isinstance(exc, redis.exceptions.RedisError):
            raise StoreError(f"Writing the graph into {url} failed ({short_error(exc)}); nothing was changed there. "
                             "Check the server's memory and log, then run the index again.") from None
        raise
    return {"nodes": graph.n_nodes, "edges": graph.n_edges, "chunks": graph.n_chunks,
            "seconds": round(time.perf_counter() - t0, 3)}


def id_bases(stage: Any) -> tuple[int | None, int | None]:
    """``(node_base, edge_base)`` with ``ID(node v) = node_base + v`` for every node and likewise for every
    edge (see :class:`~core.graph.stores.falkor_conn.Ids`), each None where the server's ids do not line up
    that way (then the reader looks nodes up through the index). One scan of the nodes and one of the edges."""
    def base(cypher: str) -> int | None:
        lo, hi = stage.ro_query(cypher).result_set[0]
        return int(lo) if lo is not None and lo == hi else None

    return (base("MATCH (n:Node) RETURN min(ID(n) - n.i), max(ID(n) - n.i)"),
            base("MATCH ()-[e:REL]->() RETURN min(ID(e) - e.i), max(ID(e) - e.i)"))


def edge_codes(graph: KnowledgeGraph) -> tuple[list[int], list[int], list[str], list[str]]:
    """``(relation code of each edge, provenance code of each edge, relation of each code, joined provenance
    of each code)``: codes numbered by first appearance in edge order (the store format's code tables,
    :mod:`core.graph.stores.falkor_conn`). Raises :class:`StoreError` for a chunk id holding ``SEP``."""
    rel_of: dict[str, int] = {}
    prov_of: dict[tuple[str, ...], int] = {}
    rel_codes = [rel_of.setdefault(r, len(rel_of)) for r in graph.edge_relation]
    prov_codes = [prov_of.setdefault(tuple(c), len(prov_of)) for c in graph.edge_chunks]
    if len(rel_of) >= 1 << (63 - CODE_BITS) or len(prov_of) >= 1 << CODE_BITS:
        raise StoreError(f"The graph has {len(rel_of)} distinct relations and {len(prov_of)} distinct provenance "
                         f"lists; the graph store packs both codes into one integer and holds at most "
                         f"{1 << (63 - CODE_BITS)} and {1 << CODE_BITS}. Keep this graph in memory (no --store).")
    return rel_codes, prov_codes, list(rel_of), [join_ids(c) for c in prov_of]
