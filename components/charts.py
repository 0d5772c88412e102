"""Plotly figures of the BubbleRAG pages (labels are user data: escaped before they reach plotly)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import plotly.graph_objects as go

from components import graph_view

if TYPE_CHECKING:
    from core.methods.bubblerag import AnchorGroup
    from core.trace import Trace


def _label(text: str, limit: int = 32) -> str:
    return graph_view.escape(graph_view.short_label(text, limit))


def group_weights_figure(groups: Sequence[AnchorGroup], colors: Sequence[str]) -> go.Figure:
    """Horizontal bars: one per anchor group, its importance weight w_i, in the group's colour."""
    names = [f"{g.gid}: {_label(g.concept)}" for g in groups]
    fig = go.Figure(go.Bar(x=[g.weight for g in groups], y=names, orientation="h", marker_color=list(colors),
                           text=[f"{g.weight:.2f}" for g in groups], textposition="outside",
                           hovertext=[f"{len(g.members)} anchors" for g in groups], hoverinfo="text+x"))
    fig.update_layout(height=max(200, 34 * len(groups) + 60), margin={"l": 10, "r": 40, "t": 30, "b": 30},
                      xaxis={"title": "importance weight w_i (sums to 1)", "range": [0, max([g.weight for g in groups] + [0.1]) * 1.2]},
                      yaxis={"autorange": "reversed"})
    return fig


def stage_latency_figure(trace: Trace) -> go.Figure:
    """Seconds per recorded stage (bars) with LLM tokens in the hover text."""
    steps = trace.steps
    fig = go.Figure(go.Bar(
        x=[s.stage for s in steps], y=[s.seconds * 1000 for s in steps],
        marker_color=["#d55e00" if s.fallback else "#0072b2" for s in steps],
        hovertext=[f"{_label(s.title, 60)}: {s.prompt_tokens} prompt + {s.completion_tokens} completion tokens"
                   for s in steps], hoverinfo="text+y"))
    fig.update_layout(height=300, margin={"l": 40, "r": 20, "t": 30, "b": 80}, yaxis={"title": "ms"},
                      title={"text": "Latency per stage (orange: the stage took its fallback)", "font": {"size": 13}})
    return fig
