"""Reading a capped h-hop region out of FalkorDB in few round trips and few reply cells.

What a region read costs on a graph store is mostly per-row work: finding each node through the range
index (~25 µs a node), and the client turning every reply cell into a Python object. So the reader

* finds nodes by FalkorDB id where the store records how ids map to indices (:class:`~core.graph.stores.falkor_conn.Ids`);
* asks for a hop layer as one ``collect()`` of neighbour ids per batch of frontier nodes, parsed in C
  (:func:`~core.graph.stores.falkor_conn.int_list`), and stops reading a layer as soon as it passes the cap;
* reads the region's edges as the out-edges of its nodes, one reply row per batch: ids as ``collect()``
  lists, relations and provenance as one ``string.join`` string each, split here (a batch where a value
  contains the separator, so that the pieces do not line up, is read again row by row).

The cap rule is :func:`~core.graph.stores.store.expand_layers`' (the in-memory store's), so both stores give
the same region.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from core.graph.stores.falkor_conn import Ids, batches, int_list, split_ids
from core.graph.stores.store import EdgeColumns

Query = Callable[[str, dict[str, Any]], list[list[Any]]]
RS = "\x1e"  #: joins the relations (and the provenance strings) of a batch of edges in one reply cell
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


def induced_edges(q: Query, ids: Ids, nodes: np.ndarray) -> tuple[np.ndarray, EdgeColumns]:
    """Every edge with both ends in ``nodes`` (sorted): their indices (sorted) and columns in that order."""
    heads, eids, tails = [], [], []
    rels: list[str] = []
    chunks: list[str] = []
    qids = ids.qids(nodes.tolist())
    spans = [qids[lo:hi] for lo, hi in batches(len(qids), EDGE_BATCH)]
    with ThreadPoolExecutor(READERS) as pool:  # the server works on one batch while this process decodes another
        for h, e, t, r, c in pool.map(lambda span: _out_edges(q, ids, span), spans):
            keep = np.flatnonzero(np.isin(t, nodes))
            heads.append(h[keep])
            eids.append(e[keep])
            tails.append(t[keep])
            pick = keep.tolist()
            rels.extend([r[k] for k in pick])
            chunks.extend([c[k] for k in pick])
    if not eids:
        return np.zeros(0, np.int64), EdgeColumns(np.zeros(0, np.int64), [], np.zeros(0, np.int64), [])
    e_all = np.concatenate(eids)
    order = np.argsort(e_all, kind="stable")
    split = {c: split_ids(c) for c in set(chunks)}  # provenance strings repeat: split each once
    pick = order.tolist()
    return e_all[order], EdgeColumns(np.concatenate(heads)[order], [rels[k] for k in pick],
                                     np.concatenate(tails)[order], [split[chunks[k]] for k in pick])


def _out_edges(q: Query, ids: Ids, qids: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Any], list[Any]]:
    """(heads, edge indices, tails, relations, joined provenance) of every out-edge of these nodes."""
    batch = {"ids": qids}
    row = q(f"UNWIND $ids AS x {ids.match('a')} MATCH (a)-[e:REL]->(b:Node) RETURN collect(x), "
            f"collect({ids.edge('e')}), collect({ids.node('b')}), string.join(collect(e.rel), '{RS}'), "
            f"string.join(collect(e.chunks), '{RS}')", batch)
    if not row:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), [], []
    h, e, t = (int_list(v) for v in row[0][:3])
    r, c = (str(row[0][3]).split(RS), str(row[0][4]).split(RS)) if e.size else ([], [])
    if not len(r) == len(c) == e.size == h.size == t.size:  # a value holds RS: read this batch row by row
        got = q(f"UNWIND $ids AS x {ids.match('a')} MATCH (a)-[e:REL]->(b:Node) RETURN x, {ids.edge('e')}, "
                f"{ids.node('b')}, e.rel, e.chunks", batch)
        h, e, t = (np.asarray([int(g[k]) for g in got], dtype=np.int64) for k in range(3))
        r, c = [g[3] for g in got], [g[4] or "" for g in got]
    return ids.nodes(h), ids.edges(e), ids.nodes(t), r, c
