"""The benchmark's plotly figures: recall with 95 % error bars, latency against recall, where the gold evidence was
lost, and the paired differences — drawn by the Benchmark page with ``st.plotly_chart`` and written into
``charts.html`` (one standalone page, plotly.js inlined once: it opens offline) by
:func:`core.eval.report.write_outputs`. No streamlit here; a summary is the dict of
:func:`core.eval.report.summarize`."""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any

from core.eval.summary_stats import differences_figure, error_bars, hover_text, interval_of
from core.eval.verdicts import ANSWER_STAGE, VERDICT_KEYS, bucket_label, is_retrieval_loss

if TYPE_CHECKING:
    import plotly.graph_objects as go

_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross", "pentagon")
#: Colours per verdict (loss stages warm → cold along the pipeline; ok green).
VERDICT_COLOURS = {"not_in_graph": "#7f7f7f", "no_anchor": "#d62728", "not_connected": "#ff7f0e",
                   "ranked_out": "#bcbd22", "not_expanded": "#9467bd", "answer_wrong": "#8c564b",
                   "answer_partial": "#e7ba52", "ok": "#2ca02c", "no_gold": "#c7c7c7", "error": "#000000"}


def pct(x: float | None) -> str:
    """A share as the reports print it: ``62.5``, or ``–`` without a value."""
    return "–" if x is None else f"{100 * x:.1f}"


def verdict_order(ms: dict[str, Any]) -> list[str]:
    """The verdict keys in pipeline order, then any unknown key a summary holds."""
    return list(dict.fromkeys([*VERDICT_KEYS, *sorted(v for s in ms.values() for v in s["diagnosis"])]))


def recall_figure(summary: dict[str, Any]) -> go.Figure:
    """Grouped bars: R@2 / R@5 / R@10 / AR@5 / nDCG@10 per method, each with its 95 % interval as an error bar."""
    import plotly.graph_objects as go

    fig = go.Figure()
    ms = summary["methods"]
    for k in ("R@2", "R@5", "R@10", "AR@5", "nDCG@10"):
        err = error_bars(summary, k)
        fig.add_bar(name=k, x=list(ms), y=[100 * (s["metrics"].get(k) or 0.0) for s in ms.values()],
                    error_y=err, hovertext=[hover_text(s, k) for s in ms.values()], hoverinfo="x+text",
                    # the value above the bar would sit on its error bar: the hover and the table carry it then
                    text=None if err else [pct(s["metrics"].get(k)) for s in ms.values()],
                    textposition="outside" if not err else None)
    with_iv = any(s.get("intervals") for s in ms.values())
    fig.update_layout(title="Recall@k by method (%)" + (", with 95 % intervals" if with_iv else ""), barmode="group",
                      yaxis_title="%", yaxis_range=[0, 105], legend_title="metric", margin={"t": 50, "b": 40})
    return fig


#: Tick values of a log axis of seconds: 1-2-5 steps, each labelled in full ("0.2", not the bare "2" plotly
#: writes between the powers of ten).
_LOG_STEPS = tuple(m * 10.0 ** e for e in range(-4, 5) for m in (1, 2, 5))


def log_ticks(xs: list[float]) -> tuple[list[float], list[str]]:
    """The 1-2-5 ticks spanning ``xs`` (seconds, all > 0) and their labels in full: ``0.2``, ``5``, ``10``."""
    lo, hi = min(xs), max(xs)
    vals = [v for v in _LOG_STEPS if lo / 5 <= v <= hi * 5] or [lo]
    return vals, [f"{v:g}" for v in vals]


def latency_recall_figure(summary: dict[str, Any], *, k: str = "R@5") -> go.Figure:
    """Scatter: mean seconds per question (x, log) against recall (y), one point per method."""
    import plotly.graph_objects as go

    ms = summary["methods"]
    fig = go.Figure()
    xs = []
    for i, (m, s) in enumerate(ms.items()):  # one trace per method: a legend entry even when points overlap
        x = max(s["latency"]["mean_s"] or 0.0, 1e-4)
        xs.append(x)
        y = 100 * (s["metrics"].get(k) or 0.0)
        iv = interval_of(s, k)
        err = None if iv is None else {"type": "data", "symmetric": False, "array": [100 * float(iv["high"]) - y],
                                       "arrayminus": [y - 100 * float(iv["low"])], "thickness": 1.2, "width": 4}
        fig.add_scatter(x=[x], y=[y], mode="markers", name=m, marker={"size": 14, "symbol": _SYMBOLS[i % len(_SYMBOLS)]},
                        error_y=err, hovertemplate=f"{html.escape(m)}<br>%{{x:.3f}} s<br>"
                        f"{html.escape(hover_text(s, k))}<extra></extra>")
    fig.update_layout(title=f"Latency vs {k}", xaxis_title="mean seconds per question (log)", xaxis_type="log",
                      yaxis_title=f"{k} (%)", legend_title="method", margin={"t": 50, "b": 40})
    if xs:
        vals, text = log_ticks(xs)
        fig.update_xaxes(tickmode="array", tickvals=vals, ticktext=text)
    return fig


def failure_figure(summary: dict[str, Any]) -> go.Figure:
    """Stacked bars: per method, how many questions lost their gold evidence at each stage before the answer.

    Questions that retrieved every gold passage and missed at the answer (``answer_wrong`` / ``answer_partial``)
    lost no evidence: they are not stacked, but counted under each method's name and in the subtitle."""
    import plotly.graph_objects as go

    ms = summary["methods"]
    fig = go.Figure()
    missed = {m: sum(int(s["diagnosis"].get(v, 0)) for v in ANSWER_STAGE) for m, s in ms.items()}
    # short lines, level: rotated 30°, one long line ran off the chart's bottom at 1440 px; a labelled name
    # ("HippoRAG PPR (ppr)") breaks before its registry name, or eight of them overlapped (an audit)
    def name(m: str) -> str:
        return html.escape(m).replace(" (", "<br>(", 1)

    # the verdicts' own words, as every table and the diagnosis say them (an audit read "answer missed" here)
    xs = [f"{name(m)}<br>+{missed[m]} retrieved,<br>answer wrong<br>or partly right" if missed[m] else name(m) for m in ms]
    top = 0
    for v in verdict_order(ms):
        if not is_retrieval_loss(v):
            continue
        ys = [s["diagnosis"].get(v, 0) for s in ms.values()]
        if any(ys):
            # a bucket that holds two cases names both (the rows' own labels tell them apart): gold ranked below the
            # cut or never retrieved (an audit read "ranked below the cut" for a passage SG-RAG never retrieved);
            # anchors not connected or SG-RAG's exact subgraphs matched off the gold passages
            label = bucket_label(v)
            fig.add_bar(name=label, x=xs, y=ys, marker_color=VERDICT_COLOURS.get(v))
    for i in range(len(xs)):  # the tallest stack, for whole-number ticks (counts of questions: no "0.5")
        top = max(top, sum(int(b.y[i] or 0) for b in fig.data))
    total = sum(missed.values())
    # counted per (question, method) run, as the bars are: 11 of 3 questions × 6 methods read as 11 questions
    sub = (f"not counted: {total} run{'s' if total != 1 else ''} (question × method) retrieved every gold passage and "
           f"missed at the answer (no evidence lost; {answer_source(summary)})" if total else
           "every failure here lost evidence before the answer")
    fig.update_layout(title={"text": f"Where the gold evidence was lost (first stage)<br><sup>{html.escape(sub)}</sup>"},
                      barmode="stack", yaxis_title="questions whose gold evidence was lost (per method)", legend_title="verdict",
                      # shown with one stage too: plotly hides a one-trace legend, and an audit's grey bars (every
                      # method's loss was its unmatched gold title, "not in the graph") said nothing of their stage
                      showlegend=True, margin={"t": 70, "b": 90})
    fig.update_xaxes(tickangle=0, automargin=True)
    fig.update_yaxes(tick0=0, dtick=max(1, math.ceil(top / 8)), tickformat="d", rangemode="tozero")
    return fig


def answer_source(summary: dict[str, Any]) -> str:
    """Who wrote the answers of the run of ``summary``, by its LLM: an extracted sentence without one, else the LLM's
    reply (an audit read "without an LLM the answer is an extracted sentence" under a run of the recorded LLM)."""
    llm = str((summary.get("settings") or {}).get("backends", {}).get("llm") or "")
    name = llm.split(" ", 1)[0]
    if not llm or name == "none":  # "none", or the recorded LLM holding nothing of the workspace: "none (no LLM: …)"
        return "without an LLM the answer is an extracted sentence" if llm else "the answer missed the gold answer"
    if name == "recorded":
        return "the recorded LLM's replayed answer missed the gold answer"
    return f"the LLM's ({name}) answer missed the gold answer"


def charts_html(summary: dict[str, Any]) -> str:
    """One standalone HTML page with the charts (plotly.js inlined once; works offline): recall with error bars,
    latency vs R@5, every pair's paired R@5 difference (when the summary has pairs), and the failure stages."""
    from core.eval.summary_stats import comparison_from_dict

    figs = [recall_figure(summary), latency_recall_figure(summary), failure_figure(summary)]
    r5 = [comparison_from_dict(d) for d in summary.get("pairs") or () if d.get("metric") == "R@5"]
    if r5:
        figs.insert(2, differences_figure(r5, title="Paired R@5 differences with 95 % intervals (crossing 0: "
                                                    "within noise)"))
    parts = [f.to_html(full_html=False, include_plotlyjs=(i == 0)) for i, f in enumerate(figs)]
    title = html.escape(f"Benchmark — {summary.get('settings', {}).get('workspace', '')}")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + title + "</title></head><body>"
            + f"<h1>{title}</h1>" + "".join(f"<div>{p}</div>" for p in parts) + "</body></html>")
