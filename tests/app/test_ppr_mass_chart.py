"""HippoRAG 2's PPR-mass chart: every colour it draws is in its legend (an audit found green gold bars the legend
left out), one bar per row, rows in score order within each kind."""

from __future__ import annotations

from components.charts import ppr_mass_figure
from core.methods.baselines.hipporag2_stages import WalkData


def _walk() -> WalkData:
    return WalkData(damping=0.5, iterations=12, converged=True, nodes=9, edges=12, phrase_mass=0.6, passage_mass=0.4,
                    top_phrases=[{"node": 0, "name": "Keanu Reeves", "score": 0.2},
                                 {"node": 1, "name": "The Matrix", "score": 0.1}],
                    top_passages=[{"chunk_id": "c1", "title": "The Matrix", "score": 0.15},
                                  {"chunk_id": "c2", "title": "Speed", "score": 0.12},
                                  {"chunk_id": "c3", "title": "John Wick", "score": 0.05}])


def test_gold_passages_have_their_own_legend_entry_and_rows_keep_their_order() -> None:
    fig = ppr_mass_figure(_walk(), gold=["c2"])
    names = [t.name for t in fig.data]
    assert names == ["phrase nodes (mass 0.600)", "passage nodes (mass 0.400)", "gold passages"]
    assert list(fig.data[2].y) == ["passage · Speed"]
    assert list(fig.layout.yaxis.categoryarray) == ["phrase · Keanu Reeves", "phrase · The Matrix",
                                                    "passage · The Matrix", "passage · Speed", "passage · John Wick"]
    assert fig.layout.barmode == "relative"  # one bar a row: grouped traces left gaps beside each bar
    assert [t.name for t in ppr_mass_figure(_walk()).data] == names[:2]  # no gold: no empty legend entry
