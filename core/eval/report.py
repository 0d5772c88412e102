"""Benchmark summaries, the markdown report and the plotly charts (no streamlit: the Benchmark
page draws the same figures with ``st.plotly_chart``).

``summary.json`` layout::

    {"settings": {...}, "questions": N, "methods": {name: {
        "n": questions run, "errors": pairs that raised,
        "metrics": {"R@2": mean in [0, 1], ..., "AR@5", "nDCG@10", "TR", "MissTR",
                    "node R@10", "node nDCG@10" (only a method that retrieved KG nodes),
                    "ctx recall", "ctx all gold" (of what the answer was handed: core.eval.context)},
        "context": {"n", "budget", "chunks": {"median", "max"}, "tokens": {"median", "max"}} or absent,
        "answers": {"judged": n, "EM": mean or null, "F1": mean or null},
        "diagnosis": {verdict: count},
        "latency": {"mean_s", "median_s", "p90_s", "stages": {stage: mean seconds}},
        "tokens": {"mean": per question, "total": sum},
        "notices": {text: questions},
        "paper": {"n": questions with gold answers, "Precision", "Recall", "F1", "Hit", "Hit@1",
                  "Macro-F1", "Micro-F1", "ACC_L": mean or null, "Emp.S": mean or null},
        "pairwise": {"vs": reference method, "n": pairs, "win_rate": reference's wins / n,
                     "loss_rate": this method's wins / n, "tie_rate": split verdicts / n} or absent}},
     "judge": {"model": id, "llm": name, "self_judged": bool, "label": text, "prompts": {...},
               "missing": {"ACC_L": n, "Emp.S": n, "why": {reason: n}}} or {"not_computed": why}}

The papers' metrics are defined in :mod:`core.eval.paper_metrics`.

Quality figures depend only on the records, so a resumed run summarizes exactly like an
uninterrupted one; latency is whatever each pair measured when it ran.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.eval.context import CTX_METRICS, context_lines, summarize_context
from core.eval.verdicts import VERDICT_KEYS, record_verdict, verdict_label
from core.fsio import atomic_write_bytes, atomic_write_text

#: The files of a benchmark folder (the runner appends RESULTS; :func:`write_outputs` writes the rest).
RESULTS = "results.jsonl"
SUMMARY = "summary.json"
REPORT = "report.md"
CHARTS = "charts.html"
PAIRWISE = "pairwise.jsonl"
TRIAGE = "triage.csv"

if TYPE_CHECKING:
    import plotly.graph_objects as go

_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross", "pentagon")
METRIC_ORDER = ("R@2", "R@5", "R@10", "AR@2", "AR@5", "nDCG@10", "node R@10", "node nDCG@10", "TR", "MissTR",
                *CTX_METRICS)
#: under a table with node-level columns: what they are, and why other methods have none
NODE_METRICS_NOTE = ("node R@10 / node nDCG@10 (FastInsight §4.3.1 on KG corpora): the top 10 KG nodes a run "
                     "retrieved against the gold nodes, every node extracted from a gold passage (§4.2.2), over the "
                     "questions with a gold node; empty (None) for runs that retrieved passages. R@10 and nDCG@10 beside "
                     "them score the passages those nodes map to.")
#: Colours per verdict (loss stages warm → cold along the pipeline; ok green).
VERDICT_COLOURS = {"not_in_graph": "#7f7f7f", "no_anchor": "#d62728", "not_connected": "#ff7f0e",
                   "ranked_out": "#bcbd22", "not_expanded": "#9467bd", "answer_wrong": "#8c564b",
                   "answer_partial": "#e7ba52", "ok": "#2ca02c", "no_gold": "#c7c7c7", "error": "#000000"}


def _mean(xs: Sequence[float]) -> float | None:
    return float(np.mean(xs)) if xs else None


def _paper(rs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The papers' answer metrics of one method's records (module docstring of core.eval.paper_metrics)."""
    from core.eval.paper_metrics import AnswerSetScores, aggregate_answer_sets

    with_gold = [r["paper"] for r in rs if isinstance(r.get("paper"), dict)]
    agg = aggregate_answer_sets(AnswerSetScores(p["precision"], p["recall"], p["f1"], p["hit"], p["hit1"],
                                                int(p["matched"]), int(p["predicted"]), int(p["gold"]))
                                for p in with_gold)
    judged = [r["judge"] for r in rs if isinstance(r.get("judge"), dict)]
    acc = [float(j["ACC_L"]) for j in judged if j.get("ACC_L") is not None]
    emp = [float(j["Emp.S"]) for j in judged if j.get("Emp.S") is not None]
    return {"n": len(with_gold), **agg, "ACC_L": _mean(acc), "Emp.S": _mean(emp), "judged": len(acc)}


def summarize(records: Sequence[dict[str, Any]], *, methods: Sequence[str] | None = None,
              settings: dict[str, Any] | None = None, pairwise: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Per-method means of every metric, answer EM/F1, the papers' answer metrics, verdict counts,
    latency and tokens; ``pairwise`` are the lines of ``pairwise.jsonl`` (FastInsight's win rate)."""
    methods = list(methods or dict.fromkeys(r["method"] for r in records))
    out: dict[str, Any] = {"settings": settings or {}, "questions": len({r["question_id"] for r in records}),
                           "methods": {}, "judge": _judge_summary(records, settings or {}, pairwise)}
    for m in methods:
        rs = [r for r in records if r["method"] == m]
        names = [k for k in METRIC_ORDER if any(k in r["metrics"] for r in rs)]
        metrics = {k: _mean([float(r["metrics"][k]) for r in rs if k in r["metrics"]]) for k in names}
        judged = [r for r in rs if r.get("answer_judged")]
        verdicts: dict[str, int] = {}
        for r in rs:  # the one vocabulary: a partly right answer is counted apart from a wrong one
            v = record_verdict(r).key
            verdicts[v] = verdicts.get(v, 0) + 1
        secs = [float(r["seconds"]) for r in rs if not r.get("error")]
        stages: dict[str, list[float]] = {}
        for r in rs:
            for k, v in r.get("stages", {}).items():
                stages.setdefault(k, []).append(float(v))
        toks = [int(r.get("tokens", {}).get("total", 0)) for r in rs]
        notices: dict[str, int] = {}
        for r in rs:
            for text in r.get("notices") or ():
                notices[text] = notices.get(text, 0) + 1
        replayed = [r for r in rs if r.get("replay")]
        out["methods"][m] = {
            "n": len(rs), "errors": sum(1 for r in rs if r.get("error")),
            "metrics": metrics,
            "answers": {"judged": len(judged), "EM": _mean([float(r["em"]) for r in judged]),
                        "F1": _mean([float(r["f1"]) for r in judged])},
            "diagnosis": {v: verdicts[v] for v in [*VERDICT_KEYS, *sorted(verdicts)] if v in verdicts},
            "latency": {"mean_s": _mean(secs), "median_s": float(np.median(secs)) if secs else None,
                        "p90_s": float(np.percentile(secs, 90)) if secs else None,
                        "stages": {k: float(np.mean(v)) for k, v in stages.items()}},
            "tokens": {"mean": _mean([float(t) for t in toks]), "total": int(sum(toks))},
            "notices": notices,
            "paper": _paper(rs),
        }
        if replayed:  # with the recorded LLM: which records are not the recorded runs (core.replay)
            out["methods"][m]["replay"] = {
                "replayed": len(replayed),
                "partial": [str(r["question_id"]) for r in replayed if r["replay"].get("matched")
                            and not r["replay"].get("complete")],
                "unmatched": [str(r["question_id"]) for r in replayed if not r["replay"].get("matched")]}
        ctx = summarize_context(rs)
        if ctx is not None:  # what the answers were handed (the run's answer budget)
            out["methods"][m]["context"] = ctx
        pw = _pairwise(m, pairwise)
        if pw:
            out["methods"][m]["pairwise"] = pw
    return out


def _pairwise(method: str, pairwise: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """FastInsight Table 4's two columns for one method: the reference's wins and this method's, as
    shares of the judged questions (a tie, the placements disagreeing, is in neither)."""
    from core.eval.paper_metrics import pair_outcome

    got = [o for o in (pair_outcome(p) for p in pairwise if p.get("method") == method) if o is not None]
    if not got:
        return None
    ref = next(str(p.get("reference", "")) for p in pairwise if p.get("method") == method)
    n = len(got)
    return {"vs": ref, "n": n, "win_rate": got.count("win") / n, "loss_rate": got.count("loss") / n,
            "tie_rate": got.count("tie") / n}


def _judge_summary(records: Sequence[dict[str, Any]], settings: dict[str, Any],
                   pairwise: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Who judged the run (:mod:`core.eval.judge`), its prompts, and the verdicts missing and why; or why
    nothing was judged."""
    from core.eval.judge import OLDER_RUN, judge_label, run_judge
    from core.eval.paper_metrics import NO_JUDGE, NOT_COMPUTED, judge_prompts

    judge = run_judge(settings)
    if judge is None:
        return {"not_computed": NO_JUDGE}
    verdicts = [r["judge"] for r in records if isinstance(r.get("judge"), dict)]
    if judge.get("older"):  # its generator judged its own answers, one by one, with the older prompts
        models = sorted({str(v.get("model", "")) for v in verdicts} | {str(p.get("model", "")) for p in pairwise}
                        - {""})
        return {"model": ", ".join(models), "llm": "same", "self_judged": True, "label": OLDER_RUN} if models \
            else {"not_computed": NOT_COMPUTED}
    why: dict[str, int] = {}
    for v in verdicts:
        for part in str(v.get("why") or "").split("; "):
            if part and ((part.startswith("ACC_L") and v.get("ACC_L") is None)
                         or (part.startswith("Emp.S") and v.get("Emp.S") is None)):
                why[part] = why.get(part, 0) + 1
    return {"model": str(judge.get("model", "")), "llm": str(judge.get("llm", "")),
            "self_judged": bool(judge.get("self_judged")), "label": judge_label(judge), "prompts": judge_prompts(),
            "missing": {"ACC_L": sum(1 for v in verdicts if v.get("ACC_L") is None),
                        "Emp.S": sum(1 for v in verdicts if v.get("Emp.S") is None), "why": why}}


def replay_summary_note(method_summary: dict[str, Any]) -> str:
    """What a report says first about a method run with the ``recorded`` LLM whose records are not all
    the recorded runs ("" when every one replayed in full, or no recording was replayed)."""
    rp = method_summary.get("replay")
    if not rp or not (rp.get("partial") or rp.get("unmatched")):
        return ""
    parts = []
    if rp.get("partial"):
        parts.append(f"{len(rp['partial'])} of {rp['replayed']} questions only partly replayed (some stage ran "
                     f"without its recorded LLM reply or retrieval state): {', '.join(rp['partial'][:10])}")
    if rp.get("unmatched"):
        parts.append(f"{len(rp['unmatched'])} of {rp['replayed']} questions have no recorded run with these "
                     f"settings (a stage's LLM reply is replayed only where a recording holds its exact prompt; the "
                     f"other stages took their fallback): {', '.join(rp['unmatched'][:10])}")
    return "; ".join(parts) + ". Their figures are not the recorded runs'."


def grouped_replay_notes(summary: dict[str, Any]) -> list[tuple[list[str], str]]:
    """:func:`replay_summary_note` of every method, one entry per distinct note with the methods it is
    about (in the summary's order): a run of seven methods on questions no recording holds says it once,
    not seven times with the same list of question ids."""
    out: dict[str, list[str]] = {}
    for m, s in summary["methods"].items():
        note = replay_summary_note(s)
        if note:
            out.setdefault(note, []).append(m)
    return [(ms, note) for note, ms in out.items()]


PAPER_COLUMNS = ("Precision", "Recall", "F1", "Hit", "Hit@1", "Macro-F1", "Micro-F1", "ACC_L")


def paper_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per method of the papers' answer metrics (percentages; Emp.S on its 0–3 scale; None =
    not computed), plus FastInsight's pairwise win rate against the method when it was judged."""
    rows = []
    for m, s in summary["methods"].items():
        p = s.get("paper", {})
        row: dict[str, Any] = {"method": m, "n": p.get("n", 0)}
        row.update({k: None if p.get(k) is None else round(100 * float(p[k]), 1) for k in PAPER_COLUMNS})
        row["Emp.S"] = None if p.get("Emp.S") is None else round(float(p["Emp.S"]), 2)
        pw = s.get("pairwise")
        row["win rate vs this"] = None if not pw else round(100 * float(pw["win_rate"]), 1)
        row["its win rate"] = None if not pw or pw.get("loss_rate") is None else round(100 * float(pw["loss_rate"]), 1)
        rows.append(row)
    return rows


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _verdict_order(ms: dict[str, Any]) -> list[str]:
    """The verdict keys in pipeline order, then any unknown key a summary holds."""
    return list(dict.fromkeys([*VERDICT_KEYS, *sorted(v for s in ms.values() for v in s["diagnosis"])]))


def _sec(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def markdown_report(summary: dict[str, Any]) -> str:
    """The benchmark as a markdown document (metrics table, verdicts, latency, settings)."""
    ms = summary["methods"]
    lines = ["# Benchmark report", ""]
    st = summary.get("settings", {})
    if st:
        lines += [f"- **{k}**: {json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}"
                  for k, v in st.items()]
        lines.append("")
    lines += [f"{summary['questions']} questions; figures are percentages (mean over questions).", ""]
    for methods, note in grouped_replay_notes(summary):
        lines += [f"> **Replay — {', '.join(methods)}**: {note}", ""]
    for m, s in ms.items():
        for text, n in s.get("notices", {}).items():
            lines.append(f"> **Note — {m}** ({n} of {s['n']} questions): {text}")
            lines.append("")
    lines += ["## Retrieval", ""]
    cols = [k for k in METRIC_ORDER if any(k in s["metrics"] for s in ms.values())]
    lines.append("| method | n | " + " | ".join(cols) + " | EM | F1 |")
    lines.append("|---|---:|" + "---:|" * (len(cols) + 2))
    for m, s in ms.items():
        a = s["answers"]
        lines.append(f"| {m} | {s['n']} | " + " | ".join(_pct(s["metrics"].get(k)) for k in cols)
                     + f" | {_pct(a['EM'])} | {_pct(a['F1'])} |")
    if "node R@10" in cols:
        lines += ["", NODE_METRICS_NOTE]
    lines += context_lines(summary)
    lines += ["", "## The papers' answer metrics", "",
              "Answer-set Precision / Recall / F1 / Hit / Hit@1 (SG-RAG §5, ReG §5), Macro-F1 and Micro-F1 (ReG), "
              "over every answer with a gold answer (extractive answers included); ACC_L (BubbleRAG §4.1) and "
              "Emp.S (SG-RAG App. L, Table 17, 0–3; all methods' answers and the gold answer in one call per "
              "question) by the judge LLM.", "",
              "| method | n | Precision | Recall | F1 | Hit | Hit@1 | Macro-F1 | Micro-F1 | ACC_L | Emp.S |",
              "|---|---:|" + "---:|" * 9]
    for m, s in ms.items():
        p = s.get("paper", {})
        emp = p.get("Emp.S")
        lines.append(f"| {m} | {p.get('n', 0)} | " + " | ".join(_pct(p.get(k)) for k in
                     ("Precision", "Recall", "F1", "Hit", "Hit@1", "Macro-F1", "Micro-F1", "ACC_L"))
                     + f" | {'–' if emp is None else f'{emp:.2f}'} |")
    lines += judge_lines(summary)
    lines += ["", "## Where the gold evidence was lost (first stage, per question)", ""]
    verdicts = [v for v in _verdict_order(ms) if any(v in s["diagnosis"] for s in ms.values())]
    lines.append("| method | " + " | ".join(verdict_label(v) for v in verdicts) + " |")
    lines.append("|---|" + "---:|" * len(verdicts))
    for m, s in ms.items():
        lines.append(f"| {m} | " + " | ".join(str(s["diagnosis"].get(v, 0)) for v in verdicts) + " |")
    lines += ["", "## Latency and tokens", "", "| method | mean s | median s | p90 s | LLM tokens / q | slowest stages |",
              "|---|---:|---:|---:|---:|---|"]
    for m, s in ms.items():
        lat = s["latency"]
        top = sorted(lat["stages"].items(), key=lambda kv: -kv[1])[:3]
        lines.append(f"| {m} | {_sec(lat['mean_s'])} | {_sec(lat['median_s'])} | {_sec(lat['p90_s'])} | "
                     f"{0 if s['tokens']['mean'] is None else s['tokens']['mean']:.0f} | "
                     + ", ".join(f"{k} {v:.3f}" for k, v in top) + " |")
    return "\n".join(lines) + "\n"


def judge_lines(summary: dict[str, Any]) -> list[str]:
    """The report's lines on the judge: who judged (self-judged said plainly), what is missing and why,
    and FastInsight's pairwise win rates (Table 4's two columns); or why nothing was judged."""
    judge = summary.get("judge", {})
    ms = summary["methods"]
    if "not_computed" in judge:
        return ["", f"ACC_L, Emp.S and the pairwise win rate: {judge['not_computed']}."]
    lines = ["", f"Judge: {judge.get('label') or judge.get('model', '?')}"
             + (" (prompts in summary.json, `judge.prompts`)." if judge.get("prompts") else ".")]
    if judge.get("self_judged"):
        lines += ["", "> **Self-judged**: the LLM that wrote the answers also judged them; the papers use a separate "
                      "judge (pass --judge-llm local-small or another backend)."]
    miss = judge.get("missing") or {}
    if miss.get("ACC_L") or miss.get("Emp.S"):
        lines += ["", f"Missing verdicts: ACC_L {miss.get('ACC_L', 0)}, Emp.S {miss.get('Emp.S', 0)} answers — "
                  + "; ".join(f"{w} ({n})" for w, n in list(miss.get("why", {}).items())[:5]) + "."]
    pw = {m: s["pairwise"] for m, s in ms.items() if "pairwise" in s}
    if pw:
        ref = next(iter(pw.values()))["vs"]
        lines += ["", f"Pairwise win rates, each method vs {ref} (FastInsight §4.3.1, Table 4): long-form answers "
                      "the generator wrote from each method's top-10 passages, judged in both placements; a question "
                      "whose placements disagree is a tie, in neither column.", "",
                  f"| method | pairs | method wins | {ref} wins | ties |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {m} | {p['n']} | {_pct(p.get('loss_rate'))} | {_pct(p['win_rate'])} | "
                  f"{_pct(p.get('tie_rate'))} |" for m, p in pw.items()]
    elif judge.get("prompts"):
        lines += ["", "FastInsight's pairwise win rate: not computed — it needs `fastinsight` and another method in "
                      "the run and an LLM generator (--llm) to write the long-form answers it compares (§4.1.2)."]
    return lines


# ------------------------------------------------------------------------------------ figures
def recall_figure(summary: dict[str, Any]) -> go.Figure:
    """Grouped bars: R@2 / R@5 / R@10 / AR@5 / nDCG@10 per method."""
    import plotly.graph_objects as go

    fig = go.Figure()
    ms = summary["methods"]
    for k in ("R@2", "R@5", "R@10", "AR@5", "nDCG@10"):
        fig.add_bar(name=k, x=list(ms), y=[100 * (s["metrics"].get(k) or 0.0) for s in ms.values()],
                    text=[_pct(s["metrics"].get(k)) for s in ms.values()], textposition="outside")
    fig.update_layout(title="Recall@k by method (%)", barmode="group", yaxis_title="%", yaxis_range=[0, 105],
                      legend_title="metric", margin={"t": 50, "b": 40})
    return fig


def latency_recall_figure(summary: dict[str, Any], *, k: str = "R@5") -> go.Figure:
    """Scatter: mean seconds per question (x, log) against recall (y), one point per method."""
    import plotly.graph_objects as go

    ms = summary["methods"]
    fig = go.Figure()
    for i, (m, s) in enumerate(ms.items()):  # one trace per method: a legend entry even when points overlap
        x = max(s["latency"]["mean_s"] or 0.0, 1e-4)
        y = 100 * (s["metrics"].get(k) or 0.0)
        fig.add_scatter(x=[x], y=[y], mode="markers", name=m, marker={"size": 14, "symbol": _SYMBOLS[i % len(_SYMBOLS)]},
                        hovertemplate=f"{html.escape(m)}<br>%{{x:.3f}} s<br>{k} %{{y:.1f}}<extra></extra>")
    fig.update_layout(title=f"Latency vs {k}", xaxis_title="mean seconds per question (log)", xaxis_type="log",
                      yaxis_title=f"{k} (%)", legend_title="method", margin={"t": 50, "b": 40})
    return fig


def failure_figure(summary: dict[str, Any]) -> go.Figure:
    """Stacked bars: per method, how many questions ended at each diagnosis verdict."""
    import plotly.graph_objects as go

    ms = summary["methods"]
    fig = go.Figure()
    for v in _verdict_order(ms):
        ys = [s["diagnosis"].get(v, 0) for s in ms.values()]
        if any(ys):
            fig.add_bar(name=verdict_label(v), x=list(ms), y=ys, marker_color=VERDICT_COLOURS.get(v))
    fig.update_layout(title="Where the gold evidence was lost (first stage)", barmode="stack",
                      yaxis_title="questions", legend_title="verdict", margin={"t": 50, "b": 40})
    return fig


def charts_html(summary: dict[str, Any]) -> str:
    """One standalone HTML page with the three charts (plotly.js inlined once; works offline)."""
    figs = [recall_figure(summary), latency_recall_figure(summary), failure_figure(summary)]
    parts = [f.to_html(full_html=False, include_plotlyjs=(i == 0)) for i, f in enumerate(figs)]
    title = html.escape(f"Benchmark — {summary.get('settings', {}).get('workspace', '')}")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + title + "</title></head><body>"
            + f"<h1>{title}</h1>" + "".join(f"<div>{p}</div>" for p in parts) + "</body></html>")


def write_outputs(out: Path, records: Sequence[dict[str, Any]], summary: dict[str, Any]) -> dict[str, Path]:
    """Write summary.json, report.md, charts.html and the per-question triage table (triage.csv: every
    question × method, :mod:`core.eval.triage`) atomically; the JSONL is the runner's."""
    from core.eval.triage import benchmark_rows, to_csv

    files = {"results": out / RESULTS}
    for key, name, text in (("summary", SUMMARY, json.dumps(summary, indent=1, ensure_ascii=False)),
                            ("report", REPORT, markdown_report(summary)),
                            ("charts", CHARTS, charts_html(summary))):
        atomic_write_text(out / name, text)
        files[key] = out / name
    atomic_write_bytes(out / TRIAGE, to_csv(benchmark_rows(records)))
    files["triage"] = out / TRIAGE
    return files
