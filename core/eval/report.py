"""Benchmark summaries, the markdown report and the plotly charts (no streamlit: the Benchmark
page draws the same figures with ``st.plotly_chart``).

``summary.json`` layout::

    {"settings": {...}, "questions": N, "methods": {name: {
        "n": questions run, "errors": pairs that raised,
        "metrics": {"R@2": mean in [0, 1], ..., "AR@5", "nDCG@10", "TR", "MissTR",
                    "node R@10", "node nDCG@10" (over the questions where the method ranked KG nodes),
                    "ctx recall", "ctx all gold" (of what the answer was handed: core.eval.context)},
        "node_level": {"n": questions with node figures, "passage_n": questions with R@10,
                       "blank": {why a node figure is blank: questions}} (when any record is about nodes),
        "context": {"n", "budget", "chunks": {"median", "max"}, "tokens": {"median", "max"}} or absent,
        "answers": {"judged": n, "EM": mean or null, "F1": mean or null},
        "diagnosis": {verdict: count},
        "latency": {"mean_s", "median_s", "p90_s", "stages": {stage: mean seconds}},
        "tokens": {"mean": per question, "total": sum},
        "notices": {text: questions},
        "paper": {"n": questions with gold answers, "Precision", "Recall", "F1", "Hit", "Hit@1",
                  "Macro-F1", "Micro-F1", "ACC_L": mean or null, "Emp.S": mean or null},
        "pairwise": {"vs": reference method, "n": pairs, "win_rate": reference's wins / n,
                     "loss_rate": this method's wins / n, "tie_rate": split verdicts / n} or absent,
        "intervals": {metric: {"low", "high", "n"}: 95 % bootstrap interval of each per-question mean}}},
     "pairs": [every two methods on R@2, R@5, nDCG@10 (EM, F1 where judged): paired interval, wins / ties /
               losses, sign-test and Wilcoxon p, the verdict in words], "stats": {how they were computed},
     "judge": {"model": id, "llm": name, "self_judged": bool, "label": text, "prompts": {...},
               "missing": {"ACC_L": n, "Emp.S": n, "why": {reason: n}}} or {"not_computed": why}}

The papers' metrics are defined in :mod:`core.eval.paper_metrics`; the intervals and pairs in
:mod:`core.eval.summary_stats` (summaries without them, written before, still render).

Quality figures depend only on the records, so a resumed run summarizes exactly like an
uninterrupted one; latency is whatever each pair measured when it ran.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.eval.bench_files import RESULTS
from core.eval.context import CTX_METRICS, context_lines, summarize_context
from core.eval.metrics import CAPPED_RECALL_NOTE
from core.eval.report_charts import charts_html
from core.eval.report_charts import pct as _pct
from core.eval.report_charts import verdict_order as _verdict_order
from core.eval.run_notes import run_note_lines
from core.eval.summary_stats import (
    interval_of,
    intervals_note,
    method_intervals,
    method_pairs,
    pair_lines,
    record_scores,
    stats_settings,
    tr_note,
    with_interval,
)
from core.eval.timing import LATENCY_NOTE, timing_line
from core.eval.verdicts import VERDICT_KEYS, bucket_label, record_verdict
from core.fsio import atomic_write_bytes, atomic_write_text

#: The files of a benchmark folder (the runner appends RESULTS, kept in :mod:`core.eval.bench_files`;
#: :func:`write_outputs` writes the rest).
SUMMARY = "summary.json"
REPORT = "report.md"
CHARTS = "charts.html"
PAIRWISE = "pairwise.jsonl"
TRIAGE = "triage.csv"
#: The run's wall time by phase (:mod:`core.eval.timing`), read back into a reloaded summary
TIMING = "timing.json"

METRIC_ORDER = ("R@2", "R@5", "R@10", "AR@2", "AR@5", "nDCG@10", "node R@10", "node nDCG@10", "TR", "MissTR",
                *CTX_METRICS)
#: the node-level figures (FastInsight §4.3.1, Table 3): shown in a table of their own, each with its count
NODE_METRIC_KEYS = ("node R@10", "node nDCG@10")
#: Under the retrieval table (FastInsight §4.3.1's capped Recall@k, as BEIR): AR@k is not capped.
RECALL_REPORT_NOTE = (f"{CAPPED_RECALL_NOTE} (BEIR; FastInsight §4.3.1): 1 of 3 gold passages in the top 2 scores "
                      "R@2 50, not 33. AR@k (every gold passage in the top k) is not capped.")
#: under the node-level table: what its figures are, and why some are blank
NODE_METRICS_NOTE = ("node R@10 / node nDCG@10 (FastInsight §4.3.1, Table 3 on KG corpora): the top 10 KG nodes a "
                     "run ranked against the gold nodes, every node extracted from a gold passage (§4.2.2), over the "
                     "questions with a gold node (n); every method on the same nodes (dense retrieval and Re2 search "
                     "FastInsight's node texts with `egx bench --node-level`). Blank, never 0, where a method ranked "
                     "no node, with the reason. R@10 beside them scores passages, over its own n.")
#: what the Benchmark page says of the answer metrics, before a run and under the papers' table: which scores
#: read which answers (EM / F1 are judged for LLM answers only, core.methods.diagnoser.judge_answer; the papers'
#: answer-set metrics and the per-question EM / F1 are computed for every answer, core.eval.paper_metrics)
ANSWER_METRICS_NOTE = ("EM / F1 in the metrics table score only answers an LLM wrote: an extracted sentence (no LLM) "
                       "is never an exact answer, so a run without an LLM has no EM / F1 there. The papers' answer-set "
                       "metrics (Precision / Recall / F1 / Hit, a gold answer matched when the answer contains it) and "
                       "the per-question EM / F1 are computed for every answer, extracted sentences too: compare such "
                       "runs by Hit.")


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
    latency and tokens, each mean's 95 % bootstrap interval, and every two methods compared paired
    (:mod:`core.eval.summary_stats`); ``pairwise`` are the lines of ``pairwise.jsonl`` (FastInsight's
    win rate)."""
    methods = list(methods or dict.fromkeys(r["method"] for r in records))
    out: dict[str, Any] = {"settings": settings or {}, "questions": len({r["question_id"] for r in records}),
                           "methods": {}, "judge": _judge_summary(records, settings or {}, pairwise)}
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for m in methods:
        rs = [r for r in records if r["method"] == m]
        scores[m] = record_scores(rs)
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
        node_level = _node_level(rs)
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
        if node_level:
            out["methods"][m]["node_level"] = node_level
        if replayed:  # with the recorded LLM: which records are not the recorded runs (core.pinning)
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
        out["methods"][m]["intervals"] = method_intervals(scores[m])
    out["pairs"] = method_pairs(scores)
    out["stats"] = stats_settings()
    alike = _extracted_alike(records, methods)
    if alike:
        out["extracted_alike"] = alike
    return out


def _extracted_alike(records: Sequence[dict[str, Any]], methods: Sequence[str]) -> dict[str, int]:
    """Of the questions every method (two or more) answered with an extracted sentence (no LLM wrote it), how many got
    the same sentence from every method: there the answer-set metrics (Hit …) cannot differ between methods, whatever
    their passages (an audit read the same Hit 27.3 % for 8 methods and took the answer side for broken). {} when no
    question was answered so by every method."""
    if len(methods) < 2:
        return {}
    by_q: dict[str, dict[str, str]] = {}
    for r in records:
        if not r.get("answer_judged") and not r.get("error") and r.get("answer"):
            by_q.setdefault(str(r["question_id"]), {})[r["method"]] = " ".join(str(r["answer"]).split())
    whole = [answers for answers in by_q.values() if set(answers) >= set(methods)]
    if not whole:
        return {}
    return {"questions": len(whole), "same": sum(1 for a in whole if len(set(a.values())) == 1)}


def _node_level(rs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How many of one method's records have node-level figures, and why the others' are blank ({} when no
    record is about nodes: a run from before node-level metrics, or without gold)."""
    scored = sum(1 for r in rs if NODE_METRIC_KEYS[0] in r["metrics"])
    blank: dict[str, int] = {}
    for r in rs:
        why = (r.get("metrics_notes") or {}).get(NODE_METRIC_KEYS[0])
        if why and NODE_METRIC_KEYS[0] not in r["metrics"]:
            blank[str(why)] = blank.get(str(why), 0) + 1
    if not scored and not blank:
        return {}
    return {"n": scored, "passage_n": sum(1 for r in rs if "R@10" in r["metrics"]), "blank": blank}


def node_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per method of the node-level figures (FastInsight §4.3.1, Table 3; percentages with their 95 %
    interval, None = blank)
    with their question count, the passage-level R@10 beside them with its own, and why the figures are blank
    (each reason with its question count); [] when no method's records are about nodes."""
    ms = summary["methods"]
    if not any(s.get("node_level") or any(k in s["metrics"] for k in NODE_METRIC_KEYS) for s in ms.values()):
        return []
    rows = []
    for m, s in ms.items():
        nl = s.get("node_level") or {}
        row: dict[str, Any] = {"method": m, "n (nodes)": nl.get("n")}
        for col, k in [*((k, k) for k in NODE_METRIC_KEYS), ("R@10 (passages)", "R@10")]:
            v = s["metrics"].get(k)  # blank (None) where there is no figure, never a made-up 0
            row[col] = None if v is None else with_interval(v, interval_of(s, k))
        row["n (passages)"] = nl.get("passage_n", s["n"])
        row["why blank"] = "; ".join(f"{why} ({n} q.)" for why, n in (nl.get("blank") or {}).items())
        rows.append(row)
    return rows


def node_lines(summary: dict[str, Any]) -> list[str]:
    """The report's node-level section ([] when no method's records are about nodes)."""
    rows = node_rows(summary)
    if not rows:
        return []
    lines = ["", "## Node level (FastInsight §4.3.1, Table 3)", "",
             "| method | n | node R@10 | node nDCG@10 | R@10 (passages) | n (passages) | why blank |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        n = "–" if r["n (nodes)"] is None else str(r["n (nodes)"])
        figs = " | ".join(r[k] or "–" for k in (*NODE_METRIC_KEYS, "R@10 (passages)"))
        lines.append(f"| {r['method']} | {n} | {figs} | {r['n (passages)']} | {r['why blank'] or ''} |")
    return [*lines, "", NODE_METRICS_NOTE]


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
    """Who judged the run (:mod:`core.eval.judge_choice`), its prompts, and the verdicts missing and why; or why
    nothing was judged."""
    from core.eval.judge_choice import OLDER_RUN, judge_label, run_judge
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
#: A paper column → its interval's key in a method summary. Micro-F1 pools counts over questions, so the summary
#: holds no interval of it; :func:`core.eval.reproduce_record.with_micro_f1` adds one (a bootstrap over questions).
PAPER_INTERVALS = {"Precision": "paper Precision", "Recall": "paper Recall", "F1": "paper F1", "Hit": "paper Hit",
                   "Hit@1": "paper Hit@1", "Macro-F1": "paper Macro-F1", "Micro-F1": "paper Micro-F1", "ACC_L": "ACC_L"}


def paper_rows(summary: dict[str, Any], *, intervals: bool = False) -> list[dict[str, Any]]:
    """One row per method of the papers' answer metrics (percentages; Emp.S on its 0–3 scale; None =
    not computed), plus FastInsight's pairwise win rate against the method when it was judged. With
    ``intervals`` each figure is text with its 95 % interval (``62.0 [52.0, 71.0]``) where it has one."""
    rows = []
    for m, s in summary["methods"].items():
        p = s.get("paper", {})
        row: dict[str, Any] = {"method": m, "n": p.get("n", 0)}
        row.update({k: None if p.get(k) is None else round(100 * float(p[k]), 1) for k in PAPER_COLUMNS})
        row["Emp.S"] = None if p.get("Emp.S") is None else round(float(p["Emp.S"]), 2)
        if intervals:
            row.update({k: with_interval(p[k], interval_of(s, PAPER_INTERVALS[k])) for k in PAPER_COLUMNS
                        if p.get(k) is not None})
            if p.get("Emp.S") is not None:
                row["Emp.S"] = with_interval(p["Emp.S"], interval_of(s, "Emp.S"), metric="Emp.S")
        pw = s.get("pairwise")
        row["win rate vs this"] = None if not pw else round(100 * float(pw["win_rate"]), 1)
        row["its win rate"] = None if not pw or pw.get("loss_rate") is None else round(100 * float(pw["loss_rate"]), 1)
        rows.append(row)
    return rows


def metric_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per method of the retrieval metrics and answer EM / F1, each as text with its 95 % interval
    (``62.0 [52.0, 71.0]``; None where the method has no such figure), then latency and tokens: the
    Benchmark page's metrics table."""
    rows = []
    for m, s in summary["methods"].items():
        row: dict[str, Any] = {"method": m, "n": s["n"]}
        row.update({k: with_interval(v, interval_of(s, k)) for k, v in s["metrics"].items()
                    if k in METRIC_ORDER and k not in NODE_METRIC_KEYS and v is not None})
        a = s["answers"]
        if a["judged"]:
            row.update({k: with_interval(a[k], interval_of(s, f"answers {k}")) for k in ("EM", "F1")
                        if a.get(k) is not None})
        row["mean s"] = round(s["latency"]["mean_s"] or 0.0, 3)
        row["tokens/q"] = round(s["tokens"]["mean"] or 0.0, 1)
        rows.append(row)
    return rows


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
    lines += [f"{summary['questions']} questions; figures are percentages (mean over questions)"
              + (", each with its 95 % interval in brackets." if summary.get("stats") else "."), ""]
    if timing_line(summary.get("timing")):  # the s / q columns are the methods' own time: say the rest
        lines += [f"**Time** — {timing_line(summary.get('timing'))}.", ""]
    lines += run_note_lines(summary)  # questions left out, rows trained on, gold passages the workspace lacks
    for methods, note in grouped_replay_notes(summary):
        lines += [f"> **Replay — {', '.join(methods)}**: {note}", ""]
    for m, s in ms.items():
        for text, n in s.get("notices", {}).items():
            lines.append(f"> **Note — {m}** ({n} of {s['n']} questions): {text}")
            lines.append("")
    lines += ["## Retrieval", ""]
    cols = [k for k in METRIC_ORDER if k not in NODE_METRIC_KEYS and any(k in s["metrics"] for s in ms.values())]
    lines.append("| method | n | " + " | ".join(cols) + " | EM | F1 |")
    lines.append("|---|---:|" + "---:|" * (len(cols) + 2))
    for m, s in ms.items():
        cells = [with_interval(s["metrics"].get(k), interval_of(s, k)) for k in cols]
        cells += [with_interval(s["answers"][k], interval_of(s, f"answers {k}")) for k in ("EM", "F1")]
        lines.append(f"| {m} | {s['n']} | " + " | ".join(cells) + " |")
    lines += ["", intervals_note(summary), "", RECALL_REPORT_NOTE]
    if tr_note(summary):
        lines += ["", tr_note(summary)]
    lines += node_lines(summary)
    lines += context_lines(summary)
    lines += pair_lines(summary)
    lines += ["", "## The papers' answer metrics", "",
              "Answer-set Precision / Recall / F1 / Hit / Hit@1 (SG-RAG §5, ReG §5), Macro-F1 and Micro-F1 (ReG), "
              "over every answer with a gold answer (extractive answers included); ACC_L (BubbleRAG §4.1) and "
              "Emp.S (SG-RAG App. L, Table 17, 0–3; all methods' answers and the gold answer in one call per "
              "question) by the judge LLM.", "",
              "| method | n | Precision | Recall | F1 | Hit | Hit@1 | Macro-F1 | Micro-F1 | ACC_L | Emp.S |",
              "|---|---:|" + "---:|" * 9]
    for m, s in ms.items():
        p = s.get("paper", {})
        cells = [with_interval(p.get(k), interval_of(s, PAPER_INTERVALS[k])) for k in PAPER_COLUMNS]
        cells.append(with_interval(p.get("Emp.S"), interval_of(s, "Emp.S"), metric="Emp.S"))
        lines.append(f"| {m} | {p.get('n', 0)} | " + " | ".join(cells) + " |")
    lines += judge_lines(summary)
    lines += ["", "## Where the gold evidence was lost (first stage, per question)", "",
              "“retrieved, answer …” lost no evidence: every gold passage was retrieved and the answer missed (without "
              "an LLM the answer is an extracted sentence, never an exact answer).", ""]
    verdicts = [v for v in _verdict_order(ms) if any(v in s["diagnosis"] for s in ms.values())]
    lines.append("| method | " + " | ".join(bucket_label(v) for v in verdicts) + " |")
    lines.append("|---|" + "---:|" * len(verdicts))
    for m, s in ms.items():
        lines.append(f"| {m} | " + " | ".join(str(s["diagnosis"].get(v, 0)) for v in verdicts) + " |")
    lines += ["", "## Latency and tokens", "", LATENCY_NOTE, "",
              "| method | mean s | median s | p90 s | LLM tokens / q | slowest stages |", "|---|---:|---:|---:|---:|---|"]
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


def write_timing(out: Path, summary: dict[str, Any]) -> dict[str, Path]:
    """Write ``summary["timing"]`` to timing.json, and summary.json and report.md again with it (the run's last
    phase, writing its files, is timed only once they are written)."""
    atomic_write_text(out / TIMING, json.dumps(summary.get("timing") or {}, indent=1))
    atomic_write_text(out / SUMMARY, json.dumps(summary, indent=1, ensure_ascii=False))
    atomic_write_text(out / REPORT, markdown_report(summary))
    return {"timing": out / TIMING, "summary": out / SUMMARY, "report": out / REPORT}


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
