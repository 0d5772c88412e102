"""The error bars and paired comparisons of a benchmark summary, from its per-question records.

:func:`method_intervals` gives every per-question mean of a method (R@k, AR@k, nDCG@10, node metrics, TR,
MissTR, answer EM / F1, the papers' per-question answer metrics, ACC_L and Emp.S) its 95 % bootstrap
interval; :func:`method_pairs` compares every two methods on :data:`PAIR_METRICS`, paired on the questions
both have a value for (:mod:`core.eval.stats`). :func:`core.eval.report.summarize` stores them as::

    summary["methods"][m]["intervals"][metric] = {"low": .., "high": .., "n": questions}   # n ≥ 5 only
    summary["pairs"] = [{"a", "b", "metric", "n", "mean_a", "mean_b", "difference", "low", "high", "level",
                         "wins", "ties", "losses", "sign_p", "wilcoxon_p", "verdict", "better", "words",
                         "tests"}, ...]
    summary["stats"] = {"level", "n_resamples", "seed", "interval", "min_verdict_questions"}

Scores are fractions (Emp.S: its 0–3 scale), as the means beside them. Keys are the metric's name, qualified
by the summary section its mean lives in where two would clash: ``answers EM`` / ``answers F1`` (SQuAD EM and
token F1 of the short answer, ``summary["methods"][m]["answers"]``) and ``paper Precision`` … ``paper Hit@1``,
``paper Macro-F1`` (the papers' answer-set metrics, ``["paper"]``); a pair calls them EM and F1. Micro-F1
pools counts over questions, so it is no per-question mean and gets no interval. The helpers at the end
print a figure with its interval (``62.0 [52.0, 71.0]``) for the report, the ablation table and the page, and
draw the error bars of the report's charts and the paired differences (plotly, imported when drawn).
Summaries written before these keys existed still render: every reader takes them with ``.get``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from core.eval.stats import (
    LEVEL,
    MIN_VERDICT_QUESTIONS,
    N_RESAMPLES,
    SEED,
    Interval,
    PairedComparison,
    bootstrap_interval,
    compare_paired,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go

#: The metrics every two methods are compared on (answer EM / F1 only where both methods' answers were judged).
PAIR_METRICS = ("R@2", "R@5", "nDCG@10", "answers EM", "answers F1")
#: What a comparison calls a metric whose key is qualified (the answers' EM and SQuAD F1).
PAIR_LABELS = {"answers EM": "EM", "answers F1": "F1"}
#: The papers' per-question answer-set scores (a record's ``paper`` keys) → their interval keys; ReG's Macro-F1 is
#: the mean of the same per-question F1, so it has the same interval under its own name.
PAPER_SCORES = {"precision": ("paper Precision",), "recall": ("paper Recall",), "f1": ("paper F1", "paper Macro-F1"),
                "hit": ("paper Hit",), "hit1": ("paper Hit@1",)}
#: The judge's per-question verdicts (a record's ``judge`` keys), keyed as in the summary.
JUDGED_SCORES = ("ACC_L", "Emp.S")
#: An interval needs five questions. The bootstrap of one value is that value; of two or three it has at most 3 or
#: 10 distinct resampled means, so two equal scores give "50.0 [50.0, 50.0]", which reads as certainty (an audit's
#: benchmark after ReG training held out 8 of 10 questions); a percentile interval on so few questions says nothing
#: about the question population.
MIN_INTERVAL_QUESTIONS = 5
#: Metrics not on a 0–1 scale: printed as they are, not ×100.
UNSCALED = frozenset({"Emp.S"})


def stats_settings() -> dict[str, Any]:
    """How the summary's intervals and pairs were computed (``summary["stats"]``)."""
    return {"level": LEVEL, "n_resamples": N_RESAMPLES, "seed": SEED,
            "interval": "percentile bootstrap over questions (paired: the same resampled questions for both methods)",
            "min_verdict_questions": MIN_VERDICT_QUESTIONS}


def record_scores(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """One method's per-question scores by metric: ``{metric: {question id: score}}``.

    A question has a metric only where its record has a value: retrieval metrics from ``metrics``, ``answers
    EM`` / ``answers F1`` only for a judged answer, the papers' answer-set scores only with gold answers, ``ACC_L`` /
    ``Emp.S`` only where the judge gave one — the same questions the summary's means are taken over.
    """
    out: dict[str, dict[str, float]] = {}

    def put(metric: str, qid: str, value: Any) -> None:
        if value is not None:
            out.setdefault(metric, {})[qid] = float(value)

    for r in records:
        qid = str(r["question_id"])
        for k, v in (r.get("metrics") or {}).items():
            put(k, qid, v)
        if r.get("answer_judged"):
            put("answers EM", qid, r.get("em"))
            put("answers F1", qid, r.get("f1"))
        paper = r.get("paper")
        if isinstance(paper, Mapping):
            for k, names in PAPER_SCORES.items():
                for name in names:
                    put(name, qid, paper.get(k))
        judge = r.get("judge")
        if isinstance(judge, Mapping):
            for k in JUDGED_SCORES:
                put(k, qid, judge.get(k))
    return out


def method_intervals(scores: Mapping[str, Mapping[str, float]], *, seed: int = SEED) -> dict[str, dict[str, Any]]:
    """``{metric: {"low", "high", "n"}}`` for each metric of :func:`record_scores` with at least
    :data:`MIN_INTERVAL_QUESTIONS` questions (values in sorted question-id order: the interval does not
    depend on the order the records were written in)."""
    out: dict[str, dict[str, Any]] = {}
    for metric, per_q in scores.items():
        if len(per_q) >= MIN_INTERVAL_QUESTIONS:
            out[metric] = bootstrap_interval([per_q[q] for q in sorted(per_q)], seed=seed).to_dict()
    return out


def method_pairs(scores: Mapping[str, Mapping[str, Mapping[str, float]]], *,
                 metrics: Sequence[str] = PAIR_METRICS, seed: int = SEED) -> list[dict[str, Any]]:
    """Every two methods (in the order given, first − second) on each of ``metrics`` both have scores for:
    :meth:`PairedComparison.to_dict` of each, pair by pair."""
    out = []
    for a, b in combinations(list(scores), 2):
        for metric in metrics:
            got = compare_paired(a, scores[a].get(metric, {}), b, scores[b].get(metric, {}),
                                 metric=PAIR_LABELS.get(metric, metric), seed=seed)
            if got is not None:
                out.append(got.to_dict(scale=scale_of(metric)))
    return out


def scale_of(metric: str) -> float:
    """What a metric's scores are multiplied by when printed (100: fractions as percentages)."""
    return 1.0 if metric in UNSCALED else 100.0


def comparison_from_dict(d: Mapping[str, Any]) -> PairedComparison:
    """A ``pairs`` entry of ``summary.json`` back as a :class:`PairedComparison`."""
    return PairedComparison(str(d["a"]), str(d["b"]), str(d["metric"]),
                            Interval(float(d["difference"]), float(d["low"]), float(d["high"]), int(d["n"]),
                                     float(d.get("level", LEVEL))),
                            float(d["mean_a"]), float(d["mean_b"]), int(d["wins"]), int(d["ties"]), int(d["losses"]),
                            d.get("sign_p"), d.get("wilcoxon_p"))


def pairs_between(summary: Mapping[str, Any], a: str, b: str) -> list[PairedComparison]:
    """The summary's comparisons of ``a`` with ``b``, each read as ``a − b`` (a pair stored the other way
    round is turned: the paired percentile interval of ``b − a`` is exactly that of ``a − b`` negated)."""
    out = []
    for d in summary.get("pairs") or ():
        if (d.get("a"), d.get("b")) == (a, b):
            out.append(comparison_from_dict(d))
        elif (d.get("a"), d.get("b")) == (b, a):
            c = comparison_from_dict(d)
            iv = c.difference
            out.append(PairedComparison(a, b, c.metric, Interval(-iv.mean, -iv.high, -iv.low, iv.n, iv.level),
                                        c.mean_b, c.mean_a, c.losses, c.ties, c.wins, c.sign_p, c.wilcoxon_p))
    return out


def best_two(summary: Mapping[str, Any], metric: str = "R@5") -> tuple[str, str] | None:
    """The two methods with the highest mean ``metric`` (summary order breaks ties); None with fewer than two."""
    ms = summary.get("methods") or {}
    ranked = sorted(ms, key=lambda m: -float((ms[m].get("metrics") or {}).get(metric) or 0.0))
    return (ranked[0], ranked[1]) if len(ranked) >= 2 else None


# ------------------------------------------------------------------------------------ printing
def with_interval(value: float | None, interval: Mapping[str, Any] | None = None, *, metric: str = "") -> str:
    """A mean as the reports print it, with its interval when there is one: ``62.0 [52.0, 71.0]``
    (percentages; Emp.S on its own scale), ``62.0`` without one, ``–`` without a value."""
    if value is None:
        return "–"
    scale = scale_of(metric)
    digits = 1 if scale >= 10 else 2
    text = f"{scale * float(value):.{digits}f}"
    if interval:
        text += f" [{scale * float(interval['low']):.{digits}f}, {scale * float(interval['high']):.{digits}f}]"
    return text


def interval_of(method_summary: Mapping[str, Any], metric: str) -> Mapping[str, Any] | None:
    """A method summary's interval of ``metric`` (None in a summary written before intervals, or under
    :data:`MIN_INTERVAL_QUESTIONS` questions)."""
    got = (method_summary.get("intervals") or {}).get(metric)
    return got if isinstance(got, Mapping) else None


def tr_note(summary: Mapping[str, Any]) -> str:
    """The sentence under a table with TR / MissTR when a method measured them on a graph of its own (FastInsight
    §4.3.2: on the graph it searched, its KG node graph by default), "" otherwise: an audit read FastInsight's TR 74
    beside 94-100 for the rest, with R@10 100, as a loss."""
    own = [m for m, s in (summary.get("methods") or {}).items()
           if m == "fastinsight" and (s.get("metrics") or {}).get("TR") is not None]
    if not own:
        return ""
    return ("TR and MissTR are measured on the graph each method searched (FastInsight §4.3.2): fastinsight's on its "
            "own graph (its KG nodes unless it was run on passages), every other method's on the workspace's passage "
            "graph. Compare fastinsight's TR with its own R@10, not with the other rows.")


def intervals_note(summary: Mapping[str, Any]) -> str:
    """The sentence under a metrics table: what the brackets are and how many questions they rest on."""
    st = summary.get("stats") or {}
    if not st:
        return "This summary was written before intervals were computed: reload the run to see them."
    ns = sorted({int(s.get("n", 0)) for s in (summary.get("methods") or {}).values()})
    count = f"{ns[0]} questions" if len(ns) == 1 else f"{ns[0]}–{ns[-1]} questions per method"
    return (f"In brackets: the {round(100 * float(st.get('level', LEVEL)))} % bootstrap interval of each mean over "
            f"its questions ({int(st.get('n_resamples', N_RESAMPLES)):,} resamples; {count})."
            + (" Two methods whose intervals overlap may still differ: their paired comparison decides."
               if summary.get("pairs") else ""))


def pair_lines(summary: Mapping[str, Any]) -> list[str]:
    """The report's "Method vs method" section: every pair's paired results in words (markdown lines)."""
    pairs = [comparison_from_dict(d) for d in summary.get("pairs") or ()]
    if not pairs:
        return []
    level = round(100 * float((summary.get("stats") or {}).get("level", LEVEL)))
    lines = ["", "## Method vs method", "",
             f"Paired on the questions both methods ran: each difference is A − B in percentage points with its "
             f"{level} % paired bootstrap interval (the same resampled questions for both); wins / ties / losses count "
             "the questions where A scored higher / the same / lower; the sign test (exact, ties dropped) and the "
             "Wilcoxon signed-rank test give two-sided p-values. A difference whose interval holds 0 is within noise."
             + (f" With {len(pairs)} comparisons, about one in twenty of those that are really equal will still look "
                "different by chance." if len(pairs) >= 10 else "")]
    current: tuple[str, str] | None = None
    for c in pairs:
        if (c.a, c.b) != current:
            current = (c.a, c.b)
            lines += ["", f"**{c.a} vs {c.b}**", ""]
        lines.append(f"- {c.sentence(scale=scale_of(c.metric))}. {c.tests_sentence()}.")
    return lines


# ------------------------------------------------------------------------------------ drawing
def error_bars(summary: Mapping[str, Any], metric: str) -> dict[str, Any] | None:
    """Plotly's asymmetric error bars (percent) of ``metric``, one per method in summary order: each mean's 95 %
    interval (0 for a method without one); None when no method has one (a summary written before intervals)."""
    ms = summary["methods"]
    lows, highs = [], []
    for s in ms.values():
        iv, v = interval_of(s, metric), s["metrics"].get(metric)
        if iv is None or v is None:
            lows.append(0.0)
            highs.append(0.0)
        else:
            lows.append(100 * (float(v) - float(iv["low"])))
            highs.append(100 * (float(iv["high"]) - float(v)))
    if not any(interval_of(s, metric) for s in ms.values()):
        return None
    return {"type": "data", "symmetric": False, "array": highs, "arrayminus": lows, "thickness": 1.2, "width": 3}


def hover_text(method_summary: Mapping[str, Any], metric: str) -> str:
    """``R@5 62.0 [52.0, 71.0] on 50 questions`` (HTML-escaped), for a chart's hover."""
    iv = interval_of(method_summary, metric)
    return html.escape(f"{metric} {with_interval(method_summary['metrics'].get(metric), iv)}"
                       + (f" on {iv['n']} questions" if iv else ""))


def differences_figure(comparisons: Sequence[PairedComparison], *, title: str = "") -> go.Figure:
    """One row per comparison: the mean difference A − B (points) with its paired 95 % interval as a horizontal
    error bar, and a line at 0: a bar that crosses it is within noise."""
    import plotly.graph_objects as go

    fig = go.Figure()
    colour = {"a": "#0072b2", "b": "#d55e00"}
    for c in comparisons:
        sc, d = scale_of(c.metric), c.difference
        fig.add_scatter(x=[sc * d.mean], y=[html.escape(f"{c.a} − {c.b} · {c.metric}")], mode="markers",
                        showlegend=False, marker={"size": 11, "color": colour.get(c.verdict, "#7f7f7f")},
                        error_x={"type": "data", "symmetric": False, "array": [sc * (d.high - d.mean)],
                                 "arrayminus": [sc * (d.mean - d.low)], "thickness": 2, "width": 6},
                        hovertext=html.escape(f"{c.sentence(scale=sc)}. {c.tests_sentence()}."), hoverinfo="text")
    fig.add_vline(x=0, line_dash="dash", line_color="#555555")
    fig.update_layout(title=html.escape(title or "Paired differences with 95 % intervals (crossing 0: within noise)"),
                      xaxis_title="A − B (points)", height=max(220, 40 * len(comparisons) + 110),
                      yaxis={"autorange": "reversed"}, margin={"t": 50, "b": 40, "l": 10})
    return fig
