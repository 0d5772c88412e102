"""The GRanker page's UI (FastInsight, fastinsight.txt §3): its cached views of a run (the searched graph, the
smoothing-graph drawing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from components import colors, graph_view

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.index.workspace import Workspace


@st.cache_resource(show_spinner=False, max_entries=8)
def fastinsight_search_graph(_workspace: Workspace, key: str, _run: Any, searched: str, params: str) -> Any:
    """The graph a FastInsight run searched: KG nodes, the corpus graph, or the passage graph derived
    from the KG (``params`` is the run's config, for the cache key)."""
    return _run.search_graph(_workspace)


@st.cache_data(show_spinner=False, max_entries=32)
def smoothing_graph_html(_run: Any, _pg: Any, _graph: KnowledgeGraph, run_key: str, limit: int,
                         gold: tuple[str, ...], height: int = 520) -> str:
    """Drawing of the top ``limit`` GRanker candidates with the propagation weights P on the edges;
    node size grows with the GRanker score, gold passages are green, the rest coloured by rank shift."""
    import numpy as np

    from core.methods.fastinsight.views import rank_comparison, smoothing_graph

    final = _run.engine.final.granker
    small = smoothing_graph(final, _pg, _graph, limit=limit)
    rows = {r.chunk_id: r for r in rank_comparison(final, _pg, _graph, gold)}
    fills, sizes = {}, {}
    scores = np.asarray([rows[c].granker_score for c in small.node_ids], dtype=float)
    lo, hi = (float(scores.min()), float(scores.max())) if scores.size else (0.0, 1.0)
    for v, cid in enumerate(small.node_ids):
        r = rows[cid]
        fills[v] = (colors.GOLD if r.gold else colors.MOVED_UP if r.shift > 0 else colors.MOVED_DOWN if r.shift < 0
                     else graph_view.NODE_COLOR)
        sizes[v] = 12 + 22 * ((r.granker_score - lo) / (hi - lo) if hi > lo else 0.5)
    legend = (graph_view.LegendItem("gold evidence", colors.GOLD), graph_view.LegendItem("moved up by GRanker", colors.MOVED_UP),
              graph_view.LegendItem("moved down", colors.MOVED_DOWN), graph_view.LegendItem("unchanged", graph_view.NODE_COLOR),
              graph_view.LegendItem("edge i→j: weight P_ij of j in i's smoothing", graph_view.EDGE_COLOR, "line"))
    # labels: the gold passages, then the best by GRanker score (the rest on hover)
    by_score = sorted(range(small.n_nodes), key=lambda v: -rows[small.node_ids[v]].granker_score)
    labels = [v for v in by_score if rows[small.node_ids[v]].gold] + by_score[:12]
    return graph_view.network_html(small, range(small.n_nodes), colors=fills, sizes=sizes, legend=legend,
                                   edge_labels=True, height=height, labels=labels)

