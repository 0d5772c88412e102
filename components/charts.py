"""Every plotly figure of the app's pages, built from plain data in one place (labels are user data: escaped
before they reach plotly). The benchmark report's figures are core.eval.report's, shared with `egx bench`'s
HTML report."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec

import plotly.graph_objects as go

from components import colors, graph_view

P = ParamSpec("P")

if TYPE_CHECKING:
    import pandas as pd

    from core.methods.baselines.hipporag2_stages import WalkData
    from core.methods.bubblerag import AnchorGroup
    from core.methods.fastinsight.views import RankRow
    from core.trace import Trace


def _label(text: str, limit: int = 32) -> str:
    return graph_view.escape(graph_view.short_label(text, limit))


#: Plotly's mode-bar buttons, every one removed: on hover the bar (zoom, pan, autoscale, download…) sat over the
#: charts' titles and top legends (an audit saw its icons over the Benchmark chart's title). Streamlit's own toolbar
#: (full screen) stays; a double click still resets a zoom.
MODEBAR_REMOVE = ("zoom", "pan", "select", "lasso", "zoomin", "zoomout", "autoscale", "resetscale", "toimage",
                  "hoverclosest", "hovercompare", "togglespikelines", "togglehover", "resetviews", "zoom2d", "pan2d",
                  "select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "resetScale2d",
                  "hoverClosestCartesian", "hoverCompareCartesian", "toggleSpikelines", "resetViews")


def no_modebar(fig: go.Figure) -> go.Figure:
    """``fig`` without Plotly's mode bar (:data:`MODEBAR_REMOVE`): every figure of the app's pages goes through it."""
    fig.update_layout(modebar={"remove": list(MODEBAR_REMOVE)})
    return fig


def _clear(build: Callable[P, go.Figure]) -> Callable[P, go.Figure]:
    """A figure builder whose figure has no mode bar over its title (:func:`no_modebar`)."""
    @functools.wraps(build)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> go.Figure:
        return no_modebar(build(*args, **kwargs))
    return wrapped


@_clear
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


@_clear
def stage_latency_figure(trace: Trace, recorded: Sequence[Any] | None = None) -> go.Figure:
    """Seconds per stage (bars) with LLM tokens in the hover text. ``recorded``: a replay's stage times
    (:class:`core.batch.recording.StageTime`): then the recorded live run's seconds are the bars — what the method
    costs — with this replay's beside them, so a replay's milliseconds are never shown as the method's latency."""
    steps = trace.steps
    hover = [f"{_label(s.title, 60)}: {s.prompt_tokens} prompt + {s.completion_tokens} completion tokens" for s in steps]
    if recorded:
        live = {t.stage: t.recorded_s for t in recorded}
        fig = go.Figure([
            go.Bar(name="recorded live run", x=[s.stage for s in steps], y=[live.get(s.stage) for s in steps],
                   marker_color=[colors.VERMILLION if s.fallback else colors.BLUE for s in steps], hovertext=hover,
                   hoverinfo="text+y"),
            go.Bar(name="this replay", x=[s.stage for s in steps], y=[s.seconds for s in steps],
                   marker_color=colors.EDGE, hoverinfo="y")])
        fig.update_layout(height=300, margin={"l": 40, "r": 20, "t": 30, "b": 80}, yaxis={"title": "s"},
                          barmode="group", legend={"orientation": "h", "y": 1.12, "x": 1, "xanchor": "right"},
                          title={"text": "Seconds per stage: the recorded live run (orange: its fallback) and this "
                                         "replay", "font": {"size": 13}})
        return fig
    fig = go.Figure(go.Bar(
        x=[s.stage for s in steps], y=[s.seconds * 1000 for s in steps],
        marker_color=[colors.VERMILLION if s.fallback else colors.BLUE for s in steps],
        hovertext=hover, hoverinfo="text+y"))
    fig.update_layout(height=300, margin={"l": 40, "r": 20, "t": 30, "b": 80}, yaxis={"title": "ms"},
                      title={"text": "Latency per stage (orange: the stage took its fallback)", "font": {"size": 13}})
    return fig


#: The rank-shift chart's kinds of line (FastInsight §4.3: GRanker against plain reranking): key, colour, what it
#: means. The chart's legend and its caption (:func:`rank_shift_caption`) are both written from this table, so they
#: say what the chart draws: an audit read "orange moved down, green is gold" under gold lines that moved down in
#: green, and grey lines nobody explained.
SHIFT_KINDS: tuple[tuple[str, str, str], ...] = (
    ("gold", colors.GOLD, "gold evidence (thick line), whichever way it moved"),
    ("up", colors.MOVED_UP, "moved up under GRanker"),
    ("down", colors.MOVED_DOWN, "moved down under GRanker"),
    ("same", colors.EDGE, "the same rank in both"),
)
SHIFT_LABEL_PX = 14  #: the slope chart's line labels, read on a projector
SHIFT_ROW_PX = 22  #: one rank's height on the slope chart (a label line is ≈ 1.3 × 14 px)
SHIFT_MAX_HEIGHT = 720
SHIFT_MARGIN = {"l": 50, "r": 300, "t": 60, "b": 40}
SHIFT_MOVERS = 5  #: besides the gold lines, this many of the biggest movers are labelled


def shift_kind(row: RankRow) -> str:
    """The :data:`SHIFT_KINDS` key of one line: gold first, then the direction GRanker moved it."""
    return "gold" if row.gold else "up" if row.shift > 0 else "down" if row.shift < 0 else "same"


def rank_shift_caption(unit: str = "passage") -> str:
    """What every colour of :func:`rank_shift_figure` means, from :data:`SHIFT_KINDS`."""
    kinds = "; ".join(f"{colors.NAMES[color]}: {words}" for _, color, words in SHIFT_KINDS)
    return (f"Each line joins a {unit}'s plain rank (left) to its GRanker rank (right) — {kinds}. The gold "
            f"{unit}s and the biggest movers are named at the right with their two ranks; hover a line for the rest.")


def _shift_labelled(shown: Sequence[RankRow]) -> list[RankRow]:
    """The lines that carry a label, most important first: the gold ones, the biggest mover up and the biggest down,
    then the next biggest movers."""
    gold = sorted((r for r in shown if r.gold), key=lambda r: r.granker_rank)
    movers = sorted((r for r in shown if not r.gold and r.shift), key=lambda r: (-abs(r.shift), r.granker_rank))
    firsts = [m for m in (next((r for r in movers if r.shift > 0), None), next((r for r in movers if r.shift < 0), None))
              if m is not None]
    return gold + list(dict.fromkeys(firsts + movers))[:SHIFT_MOVERS]


@_clear
def rank_shift_figure(rows: list[RankRow], limit: int) -> go.Figure:
    """A slope chart: plain rank on the left, GRanker rank on the right, one line per passage (or KG node), coloured
    by :data:`SHIFT_KINDS` and named at the right (the gold ones and the biggest movers) so it reads without a hover.
    One rank is :data:`SHIFT_ROW_PX` tall up to :data:`SHIFT_MAX_HEIGHT`; past that, a label that would overlap one
    placed before it is left to the hover."""
    shown = [r for r in rows if r.plain_rank <= limit or r.granker_rank <= limit]
    fig = go.Figure()
    color_of = {key: color for key, color, _ in SHIFT_KINDS}
    for key, _, words in SHIFT_KINDS:  # legend entries in the table's order, the lines drawn over them
        if any(shift_kind(r) == key for r in shown):
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=words, legendgroup=key,
                                     line={"color": color_of[key], "width": 4 if key == "gold" else 2}))
    for r in sorted(shown, key=lambda r: r.gold):  # gold lines drawn last, over the others
        key = shift_kind(r)
        fig.add_trace(go.Scatter(x=[0, 1], y=[r.plain_rank, r.granker_rank], mode="lines+markers",
                                 line={"color": color_of[key], "width": 4 if r.gold else 1.5}, showlegend=False,
                                 legendgroup=key, marker={"size": 8 if r.gold else 6},
                                 hovertext=f"{_label(r.title, 60)}: {r.plain_rank} → {r.granker_rank}",
                                 hoverinfo="text"))
    top = max([max(r.plain_rank, r.granker_rank) for r in shown] + [1])
    m = SHIFT_MARGIN
    y_range = [top + 0.6, 0.4]  # reversed: rank 1 at the top
    height = int(min(SHIFT_MAX_HEIGHT, max(300, SHIFT_ROW_PX * (y_range[0] - y_range[1]) + m["t"] + m["b"])))
    row_px = (height - m["t"] - m["b"]) / (y_range[0] - y_range[1])
    placed: list[float] = []
    for r in _shift_labelled(shown):
        y_px = (r.granker_rank - y_range[1]) * row_px
        if any(abs(y_px - p) < SHIFT_LABEL_PX * 1.3 for p in placed):
            continue  # too close to a label placed before it: the hover names it
        placed.append(y_px)
        fig.add_annotation(x=1, y=r.granker_rank, xref="x", yref="y", xanchor="left", xshift=10, showarrow=False,
                           text=f"{_label(r.title, 24)}  {r.plain_rank} → {r.granker_rank}",
                           font={"size": SHIFT_LABEL_PX, "color": color_of[shift_kind(r)] if r.gold else "#222222"})
    fig.update_layout(height=height, margin=m, font={"size": 13},
                      legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom", "font": {"size": 13}},
                      xaxis={"tickvals": [0, 1], "ticktext": ["plain reranking", "GRanker"], "range": [-0.06, 1.04],
                             "tickfont": {"size": 14}},
                      yaxis={"range": y_range, "title": "rank", "tickfont": {"size": 13},
                             **({"dtick": 1} if row_px >= 16 else {})})
    return fig


@_clear
def stex_figure(table: list, beta: float) -> go.Figure:
    names = [graph_view.escape(graph_view.short_label(r.title, 30)) + (" ✚" if r.added else "") for r in table]
    fig = go.Figure([
        go.Bar(name="I_Sim (v_q·V_n)", x=names, y=[r.i_sim for r in table], marker_color=colors.SKY),
        go.Bar(name=f"β·I_Struct (β = {beta:g})", x=names, y=[r.beta_struct for r in table], marker_color=colors.ORANGE),
    ])
    fig.update_layout(barmode="relative", height=360, margin={"l": 40, "r": 20, "t": 30, "b": 120},
                      legend={"orientation": "h", "y": 1.12}, yaxis={"title": "S_n = I_Sim + β·I_Struct"})
    return fig


@_clear
def fastinsight_metrics_figure(df: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    lines = {"R@10": colors.BLUE, "nDCG@10": colors.GREEN, "TR": colors.ORANGE, "MissTR": colors.PINK}
    for metric, color in lines.items():
        for ranking, dash in (("GRanker", "solid"), ("plain reranking", "dot")):
            part = df[df["ranking"] == ranking]
            fig.add_trace(go.Scatter(x=part["retrieved"], y=part[metric], mode="lines+markers",
                                     name=f"{metric} · {ranking}", line={"color": color, "dash": dash}))
    fig.update_layout(height=380, margin={"l": 40, "r": 20, "t": 30, "b": 40},
                      xaxis={"title": "|N_ret| (retrieved so far)"}, yaxis={"title": "score", "range": [0, 1.02]})
    return fig


@_clear
def dominance_loss_figure(losses: list[float]) -> go.Figure:
    fig = go.Figure(go.Scatter(x=list(range(1, len(losses) + 1)), y=losses, mode="lines+markers",
                               line={"color": colors.BLUE}))
    fig.update_layout(height=260, margin={"l": 40, "r": 20, "t": 20, "b": 40},
                      xaxis={"title": "epoch"}, yaxis={"title": "dominance loss Σ‖max(0, o(s) − o(g) + m)‖²"})
    return fig


@_clear
def token_figure(tokens: Mapping[str, int]) -> go.Figure:
    keys = [k for k in ("passages", "triples", "chains") if k in tokens]
    fig = go.Figure(go.Bar(x=keys, y=[tokens[k] for k in keys], marker_color=[colors.GREY, colors.BLUE, colors.GREEN][:len(keys)],
                           text=[tokens[k] for k in keys], textposition="outside"))
    fig.update_layout(height=260, margin={"l": 40, "r": 10, "t": 20, "b": 30}, yaxis={"title": "prompt tokens"})
    return fig


@_clear
def curves_figure(runs: Mapping[str, Mapping[str, Any]], metric: str = "val_recall") -> go.Figure:
    """One line per training run (label → result dict with ``curves``)."""
    fig = go.Figure()
    for i, (label, res) in enumerate(runs.items()):
        cur = res.get("curves", {})
        fig.add_trace(go.Scatter(x=cur.get("epoch", []), y=cur.get(metric, []), mode="lines+markers", name=label,
                                 line={"color": colors.nth(colors.CHAIN_GROUPS, i)}))
    title = {"val_recall": "validation label recall@K", "train_loss": "training BCE loss",
             "val_loss": "validation BCE loss"}.get(metric, metric)
    fig.update_layout(height=300, margin={"l": 40, "r": 10, "t": 30, "b": 30}, xaxis={"title": "epoch"},
                      yaxis={"title": title}, legend={"orientation": "h", "y": 1.15})
    return fig


@_clear
def heldout_figure(runs: Mapping[str, Mapping[str, Any]], k: int) -> go.Figure:
    """Held-out (test split) recall@K of each run and of the untrained cosine scorer."""
    metrics = [("gold_passage_recall", f"gold-passage triple recall@{k}"), ("answer_hit", f"answer hit@{k}"),
               ("label_recall", f"own-label recall@{k}")]
    fig = go.Figure()
    bars: dict[str, Mapping[str, Any]] = {label: r.get("test", {}) for label, r in runs.items()}
    if runs:
        bars["cosine (untrained)"] = next(iter(runs.values())).get("baseline_test", {})
    def known(v: Any) -> bool:
        try:
            return not math.isnan(float(v))
        except (TypeError, ValueError):
            return False

    # a figure no held-out question has (no gold passage's triple in reach): said under its group, not an empty gap
    # (an audit found gold-passage recall with no bars and no reason)
    names = [t if any(known(m.get(key)) for m in bars.values()) else f"{t}<br>(n/a: no held-out question has it)"
             for key, t in metrics]
    for i, (label, m) in enumerate(bars.items()):
        ys = [m.get(key) if known(m.get(key)) else None for key, _ in metrics]
        # each bar's figure on it: a 0.000 draws no bar, and read as missing (an audit)
        fig.add_trace(go.Bar(name=label, x=names, y=ys, text=[f"{float(y):.2f}" if y is not None else "" for y in ys],
                             textposition="outside", marker_color=colors.nth(colors.CHAIN_GROUPS, i)))
    fig.update_layout(barmode="group", height=300, margin={"l": 40, "r": 10, "t": 30, "b": 30},
                      yaxis={"range": [0, 1.02], "title": "test split"}, legend={"orientation": "h", "y": 1.15})
    return fig


@_clear
def ppr_mass_figure(walk: WalkData, gold: Sequence[str] = ()) -> go.Figure:
    """HippoRAG 2's PPR mass: the top phrase nodes and the top passage nodes by PPR score (two bar groups), the
    mass each kind of node holds in the legend; gold passages drawn green."""
    # a phrase and a passage may share a name ("The Matrix"): the prefix keeps their bars apart
    phrases = [("phrase · " + _label(str(n["name"])), float(n["score"])) for n in walk.top_phrases]
    passages = [("passage · " + _label(str(p["title"] or p["chunk_id"])), float(p["score"]), p["chunk_id"] in gold)
                for p in walk.top_passages]
    # the gold passages are their own trace, so the legend names their colour (an audit found green bars the legend
    # did not explain); one bar per row (barmode "relative"), rows in score order within each kind
    golds = [p for p in passages if p[2]]
    fig = go.Figure([
        go.Bar(name=f"phrase nodes (mass {walk.phrase_mass:.3f})", y=[n for n, _ in phrases],
               x=[s for _, s in phrases], orientation="h", marker_color=colors.BLUE),
        go.Bar(name=f"passage nodes (mass {walk.passage_mass:.3f})", y=[n for n, _, g in passages if not g],
               x=[s for _, s, g in passages if not g], orientation="h", marker_color=colors.ORANGE),
        *([go.Bar(name="gold passages", y=[n for n, _, _ in golds], x=[s for _, s, _ in golds], orientation="h",
                  marker_color=colors.GREEN)] if golds else []),
    ])
    fig.update_layout(height=max(260, 24 * (len(phrases) + len(passages)) + 80), barmode="relative",
                      margin={"l": 10, "r": 20, "t": 30, "b": 40}, xaxis={"title": "PPR score"},
                      yaxis={"autorange": "reversed", "categoryorder": "array",
                             "categoryarray": [n for n, _ in phrases] + [n for n, _, _ in passages],
                             "tickfont": {"size": 13}},
                      legend={"orientation": "h", "y": 1.08})
    return fig
