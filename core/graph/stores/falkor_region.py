"""Reading a capped h-hop region out of FalkorDB in few round trips and few reply cells.

What a region read costs on a graph store is mostly per-row work: finding each node through the range
index (~25 µs a node), and the client turning every reply cell into a Python object. So the reader

* finds nodes by FalkorDB id where the store records how ids map to indices (:class:`~core.graph.stores.falkor_conn.Ids`);
* asks for a hop layer as one ``collect()`` of neighbour ids per batch of frontier nodes, parsed in C
  (:func:`~core.graph.stores.falkor_conn.int_list`), and stops reading a layer as soon as it passes the cap;
* reads the region's edges as the out-edges of its nodes, one reply row per batch of ``collect()`` lists
  of integers only: edge and end ids, and the relation and provenance *codes* (store format 3, packed
  in one property), which the client decodes for the edges it keeps (:class:`~core.graph.stores.falkor_conn.Codes`). The server
  reads every out-edge of the region's nodes, those leaving the region too (it cannot test region
  membership cheaply), so what it reads per edge is what a region read costs.

The cap rule is :func:`~core.graph.stores.store.expand_layers`' (the in-memory store's), so both stores give
the same region.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.graph.stores.falkor_conn import Codes, Ids, Query, batches, int_list, unpack_codes
from core.graph.stores.store import EdgeColumns

LAYER_BATCH = 1000  #: frontier nodes per layer query: the over-cap layer stops after the batch that passes the cap
EDGE_BATCH = 2000  #: region nodes per edge query
READERS = 2  #: edge queries in flight at once


def next_layer(q: Query, ids: Ids, frontier: np.ndarray, visited: np.ndarray, limit: int) -> np.ndarray | None:
    """The nodes adjacent to ``frontier`` not in ``visited`` (sorted), or None as soon as there are more
    than ``limit`` of them (the layer would pass the cap: the rest of it is never fetched, which is what
    keeps a hub-anchored question cheap)."""
    found = np.zeros(0, np.int64)
    qids = ids.qids(frontier.tolist())
    for lo, hi in batches(len(qids), LAYER_BATCH):
        rows = q(f"UNWIND $ids AS x {ids.match('a')} MATCH (a)-[:REL]-(m:Node) RETURN collect({ids.node('m')})",
                 {"ids": qids[lo:hi]})
        if not rows:
            continue
        got = np.unique(ids.nodes(int_list(rows[0][0])))
        found = np.union1d(found, got[~np.isin(got, visited, assume_unique=True)])
        if found.size > limit:
            return None
    return found


def layers(q: Query, ids: Ids, seeds: np.ndarray, hops: int, cap: int) -> tuple[list[np.ndarray], bool]:
    """Hop layers with :func:`~core.graph.stores.store.expand_layers`' cap rule (``seeds`` sorted and distinct)."""
    if seeds.size == 0:
        return [], False
    kept, visited = [seeds], seeds
    for _ in range(hops):
        layer = next_layer(q, ids, kept[-1], visited, cap - int(visited.size))
        if layer is None:
            return kept, True
        if layer.size == 0:
            break
        kept.append(layer)
        visited = np.union1d(visited, layer)
    return kept, False


def induced_edges(q: Query, ids: Ids, nodes: np.ndarray, relations: Codes,
                  provenance: Codes) -> tuple[np.ndarray, EdgeColumns]:
    """Every edge with both ends in ``nodes`` (sorted): their indices (sorted) and columns in that order,
    relations and provenance decoded through the code tables."""
    parts: list[tuple[np.ndarray, ...]] = []
    qids = ids.qids(nodes.tolist())
    spans = [qids[lo:hi] for lo, hi in batches(len(qids), EDGE_BATCH)]
    with ThreadPoolExecutor(READERS) as pool:  # the server works on one batch while this process decodes another
        for cols in pool.map(lambda span: _out_edges(q, ids, span), spans):
            keep = np.isin(cols[2], nodes)
            parts.append(tuple(c[keep] for c in cols))
    if not parts:
        return np.zeros(0, np.int64), EdgeColumns(np.zeros(0, np.int64), [], np.zeros(0, np.int64), [])
    h, e, t, c = (np.concatenate([part[k] for part in parts]) for k in range(4))
    order = np.argsort(e, kind="stable")
    r, p = unpack_codes(c[order])
    return e[order], EdgeColumns(h[order], relations.decode(r), t[order], provenance.decode(p))


def _out_edges(q: Query, ids: Ids, qids: list[int]) -> tuple[np.ndarray, ...]:
    """(heads, edge indices, tails, packed codes) of every out-edge of these nodes. The far end is not
    matched as ``(b:Node)``: REL edges only ever join Node nodes, and the label test is per-edge work."""
    row = q(f"UNWIND $ids AS x {ids.match('a')} MATCH (a)-[e:REL]->(b) RETURN collect(x), "
            f"collect({ids.edge('e')}), collect({ids.node('b')}), collect(e.c)", {"ids": qids})
    if not row:
        return tuple(np.zeros(0, np.int64) for _ in range(4))
    h, e, t, c = (int_list(v) for v in row[0][:4])
    return ids.nodes(h), ids.edges(e), ids.nodes(t), c
