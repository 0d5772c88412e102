"""How long (re-)indexing a workspace with an embedder is expected to take, before anything is started.

A switch of the app's embedder re-indexes the workspace (every node, edge and chunk text embedded again):
on MuSiQue with MiniLM about seven minutes on two cores. The app starts no job over
``EGX_ASK_BEFORE_S`` (30 s) unasked, so it needs this figure first. It rests on, in order of preference:

* the manifest's record of an index build by the same model here (seconds per text, per kind), or
* a measurement: the embedder encodes a few of the workspace's own texts of each kind now (well under a
  second for the bundled models; the texts' lengths differ per kind, and so does the rate), or
* for a graph store, whose texts are not in memory, :data:`STATED_SECONDS_PER_TEXT`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.index.indexing import ITEM_KINDS

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.index.workspace import Workspace

#: Seconds per text assumed where nothing was recorded or measured (a sentence-transformer of bge-small's size on
#: two CPU cores, texts of about 512 characters); recorded and measured rates replace it. FastInsight's node
#: vector estimate (:mod:`core.methods.kg_nodes`) assumes the same.
STATED_SECONDS_PER_TEXT = 0.05

#: Texts of each kind the measurement embeds (after one warm-up text): enough to average the per-batch cost
#: out, few enough to stay under a second with a sentence-transformer on two cores.
SAMPLE_TEXTS = 16


def index_counts(workspace: Workspace) -> dict[str, int]:
    """How many texts of each kind (nodes, edges, chunks) an index build embeds."""
    from core.graph.reader import question_graph

    g = question_graph(workspace)  # counts only: a store's graph is not loaded
    return {"nodes": int(g.n_nodes), "edges": int(g.n_edges), "chunks": int(g.n_chunks)}


def reindex_estimate(workspace: Workspace, embedder: Embedder, *, sample: int = SAMPLE_TEXTS,
                     clock: Callable[[], float] = time.perf_counter) -> tuple[float, str]:
    """Expected seconds to build ``workspace``'s node, edge and chunk indexes with ``embedder``, and what the
    figure rests on (a sentence to show next to it). ``sample``: texts of each kind a measurement embeds;
    ``clock``: what it is timed with.
    """
    from core.graph.reader import whole_graph_read

    counts = index_counts(workspace)
    total = sum(counts.values())
    what = (f"{total:,} texts ({counts['nodes']:,} nodes, {counts['edges']:,} edges, "
            f"{counts['chunks']:,} passages)")
    recorded = _recorded_rates(workspace, embedder)
    if recorded is not None:
        return (sum(counts[k] * recorded[k] for k in ITEM_KINDS),
                f"{what}; at the rates {embedder.name} embedded them when this index was last built here")
    if whole_graph_read(workspace):
        return total * STATED_SECONDS_PER_TEXT, (f"{what}; a graph store's texts are not measured here, so "
                                                 f"{1000 * STATED_SECONDS_PER_TEXT:.0f} ms per text is assumed")
    rates: dict[str, float] = {}
    for kind in ITEM_KINDS:
        texts = [t for t in workspace.texts(kind)[:sample + 1] if t]
        if len(texts) < 2:
            rates[kind] = 0.0
            continue
        embedder.embed(texts[:1])  # the first call may load or compile what later calls reuse
        t0 = clock()
        embedder.embed(texts[1:])
        rates[kind] = max(0.0, clock() - t0) / (len(texts) - 1)
    seconds = sum(counts[k] * rates[k] for k in ITEM_KINDS)
    per = 1000 * seconds / max(1, total)
    return seconds, (f"{what}; {embedder.name} embedded {sample} texts of each kind just now on this machine, "
                     f"{per:.2f} ms per text on average")


def _recorded_rates(workspace: Workspace, embedder: Embedder) -> dict[str, float] | None:
    """Seconds per text by kind from the manifest's last build, when it was by ``embedder``'s model and
    recorded every kind; else None."""
    if workspace.meta.index_model_id != embedder.model_id:
        return None
    builds = {str(b.get("kind")): b for b in workspace.meta.index_builds}
    rates: dict[str, float] = {}
    for kind in ITEM_KINDS:
        b = builds.get(kind) or {}
        items, seconds = int(b.get("items") or 0), float(b.get("seconds") or 0.0)
        if items <= 0 or seconds <= 0:
            return None
        rates[kind] = seconds / items
    return rates
