"""A reproduction's tables beside ours, as data and as markdown: ``reproduce.json`` and ``reproduce.md``
(:mod:`core.eval.reproduce` writes them), and the reproductions shipped with the samples.

Each table of the paper is composed row by row from the run that stands for the row
(:func:`compare_reproduction`); our rows are compared with each other paired, on each of the table's metrics
(:func:`table_pairs`); :func:`reproduction_record` is everything the Papers page shows, without per-question
records (those stay in the run folders).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import InputFormatError
from core.eval.paper_compare import Comparison, OurCell, compose
from core.eval.paper_model import PAPER_IDS, PaperMetric, PaperRow, PaperTable, resolve_paper
from core.eval.reproduce_plan import MAIN_RUN, ReproductionPlan

if TYPE_CHECKING:
    from core.eval.bench_report import BenchReport
    from core.index.questions import Question
    from core.index.workspace import Workspace

#: ``reproduce.json``'s ``format``, and that of the shipped files, which hold one per LLM mode.
FORMAT = "egx-reproduction"
STORED_FORMAT = "egx-reproductions"
#: What "within noise" means beside a paper's figure (the page and reproduce.md say it in these words).
WITHIN_NOISE = ("Within noise: our 95 % interval (a percentile bootstrap over the questions) holds the paper's "
                "figure, so at this many questions our sample cannot tell the two apart. That is no reproduction: "
                "the settings differ (the list of differences), and at n questions an interval spans up to about "
                "±1/√n (±10 points at 100 questions, ±22 at 20). Outside it, the gap is larger than this sample's "
                "noise, whatever its cause. Our rows against each other are compared paired, on the same questions.")


def _other_llm(table: PaperTable, row: PaperRow) -> bool:
    """A row of another LLM than the one the table's comparison stands beside (one run has one LLM)."""
    return bool(row.llm and table.closest_llm and row.llm != table.closest_llm)


def compare_reproduction(plan: ReproductionPlan, summaries: Mapping[str, Mapping[str, Any]],
                         skipped: Mapping[tuple[str, str], str], manifest: Any = None) -> tuple[Comparison, ...]:
    """Every table of ``plan`` beside the runs' ``summaries`` (run name → summary): each row from the run that
    stands for it (:func:`core.eval.paper_compare.compose` on that run), a row whose run could not be made
    blank with why (``skipped``: (run, method) → reason)."""
    empty: dict[str, Any] = {"questions": 0, "methods": {}, "settings": {}}
    main = summaries.get(MAIN_RUN) or next(iter(summaries.values()), empty)
    out = []
    for t in plan.tables:
        base = compose(t, main, manifest)
        others = {name: compose(t, s, manifest) for name, s in summaries.items() if name != MAIN_RUN}
        rows = []
        for i, (row, cr) in enumerate(zip(t.rows, base.rows)):
            run = plan.run_of(row)
            if run and not _other_llm(t, row):
                why = skipped.get((run, row.method))
                if why:
                    cr = replace(cr, ours=tuple(OurCell(blank=why) for _ in cr.ours), run_notes=())
                elif run != MAIN_RUN and run in others:
                    cr = others[run].rows[i]
                if run in summaries:
                    cr = replace(cr, ours=tuple(_answer_blank(m, c, summaries[run], row.method)
                                                for m, c in zip(base.metrics, cr.ours)))
            rows.append(cr)
        out.append(replace(base, rows=tuple(rows)))
    return tuple(out)


#: How the comparison words a blank answer figure (it assumes LLM ``none``, the one mode that writes no answer).
_NO_ANSWER = "no LLM-written answer was scored"


def _answer_blank(metric: PaperMetric, cell: OurCell, summary: Mapping[str, Any], method: str) -> OurCell:
    """``cell``, its reason said right where a run with an LLM scored no written answer: with ``recorded``, every
    answer the recordings do not hold (another question, or a prompt the paper's budget changed) is the
    extractive fallback."""
    backend = str((summary.get("settings") or {}).get("backends", {}).get("llm", "")).split(" ", 1)[0]
    if cell.value is not None or metric.needs != "generated answer" or backend in ("", "none") \
            or not cell.blank.startswith(_NO_ANSWER):
        return cell
    s = (summary.get("methods") or {}).get(method) or {}
    if backend == "recorded":
        n = len((s.get("replay") or {}).get("unmatched") or ())
        why = (f"{_NO_ANSWER}: the recordings hold no run of `{method}` with these settings for {n} of {s.get('n', '?')} "
               "questions (the paper's budget preset changes its answer prompt; a question never recorded has none), "
               "so each of its answers is the extractive fallback")
    else:
        why = f"{_NO_ANSWER}: every answer of `{method}` took the extractive fallback (the run's notices say why)"
    return replace(cell, blank=why)


def micro_f1_interval(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The 95 % percentile bootstrap interval of ReG's Micro-F1 (the F1 of the answer counts pooled over the
    questions, :func:`core.eval.paper_metrics.aggregate_answer_sets`): each resample pools the matched,
    predicted and gold counts of the same resampled questions (:func:`core.eval.stats.resampled_means` draws the
    same indices for the same seed), in sorted question-id order as every other column's interval
    (:func:`core.eval.summary_stats.method_intervals`): the same resampled questions, so a run whose answers are one
    item each (Micro-F1 = F1) gets F1's interval (an audit read Micro-F1 [40, 100] beside F1 70.0 [40, 90], the
    records' written order drawing other questions). None below two questions with gold answers."""
    import numpy as np

    from core.eval.stats import LEVEL, SEED, resampled_means

    counts = [r["paper"] for r in sorted(records, key=lambda r: str(r.get("question_id", "")))
              if isinstance(r.get("paper"), Mapping)]
    if len(counts) < 2:
        return None
    matched, predicted, gold = (resampled_means([float(c[k]) for c in counts], seed=SEED)
                                for k in ("matched", "predicted", "gold"))
    right = resampled_means([float(min(c["matched"], c["predicted"])) for c in counts], seed=SEED)  # as aggregated
    with np.errstate(divide="ignore", invalid="ignore"):
        mp = np.where(predicted > 0, right / predicted, 0.0)
        mr = np.where(gold > 0, matched / gold, 0.0)
        f1 = np.where(mp + mr > 0, 2 * mp * mr / (mp + mr), 0.0)
    low, high = np.quantile(f1, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return {"low": float(low), "high": float(high), "n": len(counts)}


def with_micro_f1(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``summary`` with each method's Micro-F1 interval beside its others (``intervals["paper Micro-F1"]``): the
    benchmark summary gives pooled figures none, and a reproduction shows every figure with one."""
    out = dict(summary)
    out["methods"] = {}
    for m, s in (summary.get("methods") or {}).items():
        iv = micro_f1_interval([r for r in records if r.get("method") == m])
        out["methods"][m] = {**s, "intervals": {**(s.get("intervals") or {}), "paper Micro-F1": iv}} if iv else s
    return out


def _score_key(metric: PaperMetric) -> str | None:
    """The key of a metric's per-question scores (:func:`core.eval.summary_stats.record_scores`); None for a
    figure that is no per-question mean (Micro-F1 pools counts) or none of ours."""
    from core.eval.summary_stats import JUDGED_SCORES, PAPER_SCORES

    path = metric.summary_path
    if path is None:
        return None
    section, key = path
    if section == "metrics":
        return key
    if section == "answers":
        return f"answers {key}"
    if key in JUDGED_SCORES:
        return key
    known = {n for names in PAPER_SCORES.values() for n in names}
    return f"paper {key}" if f"paper {key}" in known else None


def table_pairs(plan: ReproductionPlan, comparison: Comparison,
                records: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Our rows of a table compared with each other, paired on the questions both have a score for
    (:func:`core.eval.stats.compare_paired`; the paper's own method first): ``records`` are each run's
    per-question records. Each entry: the two rows, the metric, n, the difference with its 95 % interval (in the
    table's unit), the verdict and the sentence."""
    from core.eval.stats import compare_paired
    from core.eval.summary_stats import record_scores

    filled = [(cr, plan.run_of(cr.row)) for cr in comparison.rows if cr.method and plan.run_of(cr.row)
              and any(c.value is not None for c in cr.ours)]
    own = [x for x in filled if x[0].method == plan.paper and not x[0].row.overrides]
    ordered = own + [x for x in filled if x not in own]
    seen: set[tuple[str, str]] = set()
    unique = []
    for cr, run in ordered:
        if (run, cr.method) not in seen:
            seen.add((run, cr.method))
            unique.append((cr, run))
    scores = {(run, cr.method): record_scores(r for r in records.get(run, ()) if r.get("method") == cr.method)
              for cr, run in unique}
    out = []
    for (a, ra), (b, rb) in combinations(unique, 2):
        for i, metric in enumerate(comparison.metrics):
            key = _score_key(metric)
            if key is None or a.ours[i].value is None or b.ours[i].value is None:
                continue
            got = compare_paired(a.name, scores[(ra, a.method)].get(key, {}), b.name,
                                 scores[(rb, b.method)].get(key, {}), metric=metric.name)
            if got is not None:
                scale = 1.0 if metric.unit == "0-3" else 100.0
                d = got.to_dict(scale=scale, unit="points" if scale == 100.0 else "")
                out.append({"a": a.name, "b": b.name, "metric": metric.id, "n": d["n"],
                            "difference": scale * d["difference"], "low": scale * d["low"],
                            "high": scale * d["high"], "verdict": d["verdict"], "words": d["words"]})
    return out


def _inside(paper: float | None, low: float | None, high: float | None) -> bool | None:
    if paper is None or low is None or high is None:
        return None
    return low - 1e-9 <= paper <= high + 1e-9


def _table_record(plan: ReproductionPlan, c: Comparison, pairs: list[dict[str, Any]]) -> dict[str, Any]:
    t, g = c.table, c.group
    runs = [plan.run_of(r.row) if not _other_llm(t, r.row) else "" for r in c.rows]
    # one record per row × metric (Comparison.records), less what the table, its rows and metrics already say
    said = ("table", "group", "dataset", "section", "method", "metric", "unit")
    recs = [{k: v for k, v in rec.items() if k not in said}
            | {"paper_in_interval": _inside(rec["paper"], rec["low"], rec["high"])} for rec in c.records()]
    return {"id": t.id, "paper": t.paper, "number": t.number, "section": t.section, "caption": t.caption,
            "main": t.main, "note": t.note, "group": g.key, "header": g.header, "dataset": g.dataset,
            "group_llm": g.llm, "closest_why": t.closest_why, "closest_llm": t.closest_llm,
            "metrics": [{"id": m.id, "name": m.name, "unit": m.unit, "definition": m.definition, "needs": m.needs,
                         "note": m.note} for m in c.metrics],
            "rows": [{"row": r.name, "method": r.method, "run": run, "section": r.row.section, "note": r.note,
                      "run_notes": list(r.run_notes)} for r, run in zip(c.rows, runs)],
            "records": recs, "pairs": pairs,
            "differences": [{"aspect": d.aspect, "paper": d.paper, "ours": d.ours, "consequence": d.consequence,
                             "sentence": d.sentence} for d in c.differences]}


#: Our retrieval figures a reproduction keeps per method beside the tables (every method has them, LLM or not).
RETRIEVAL_KEYS = ("R@2", "R@5", "R@10", "nDCG@10", "node R@10", "node nDCG@10", "ctx recall")


def retrieval_figures(method_summary: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{metric: {"value", "low", "high", "n"}}`` of :data:`RETRIEVAL_KEYS` in one method's summary (fractions;
    no interval below two questions)."""
    out = {}
    metrics = method_summary.get("metrics") or {}
    intervals = method_summary.get("intervals") or {}
    for k in RETRIEVAL_KEYS:
        v = metrics.get(k)
        if v is None:
            continue
        iv = intervals.get(k) or {}
        n = iv.get("n") or ((method_summary.get("node_level") or {}).get("n") if k.startswith("node ") else None)
        out[k] = {"value": v, "low": iv.get("low"), "high": iv.get("high"), "n": n or method_summary.get("n")}
    return out


def recording_coverage(workspace: str, methods: Sequence[str], questions: Sequence[Question]) -> dict[str, Any]:
    """What the shipped LLM recordings hold for these questions: per method, how many have a recorded run (of
    any setting; a recorded run names its question by its text) and the ids of those that have none; and the
    bundles by label."""
    from core.backends.llm_bundles import load_recording, recording_paths

    bundles = [load_recording(p) for p in recording_paths()]
    out: dict[str, Any] = {"bundles": [f"{b.path.name}: {b.label}" for b in bundles], "methods": {}}
    for m in dict.fromkeys(methods):
        have = {str(r.get("question")) for b in bundles for r in b.runs
                if r.get("workspace") == workspace and r.get("method") == m}
        missing = [q.id for q in questions if q.question not in have and q.id not in have]
        out["methods"][m] = {"recorded": len(questions) - len(missing), "of": len(questions), "missing": missing}
    return out


def _compute_s(report: BenchReport) -> float:
    """The seconds the run's question × method pairs took when they ran (a resume does not reset it)."""
    return round(sum(float(r.get("seconds") or 0.0) for r in report.records), 1)


def reproduction_record(plan: ReproductionPlan, comparisons: Sequence[Comparison],
                        reports: Mapping[str, BenchReport], skipped: Mapping[tuple[str, str], str], *,
                        workspace: Workspace, left_out: Any, selected: Sequence[Question], limit: int | None,
                        command: str, seconds: float, timing: Mapping[str, float]) -> dict[str, Any]:
    """What ``reproduce.json`` holds (module docstring): the paper and its citation, how the runs were made (LLM,
    backends, budget, node level, command, date, seconds), the questions and which were left out and why, every
    table as records (the paper's number, ours with its interval and n, or the blank's reason; whether the
    paper's figure is inside our interval), our rows paired, the differences of setting, and with the recorded
    LLM which questions each method has a recording for and which records did not replay."""
    from core.eval.report import replay_summary_note
    from core.eval.run_notes import left_out_note
    from core.papers import get_paper

    main = reports.get(MAIN_RUN) or next(iter(reports.values()))
    settings = main.summary.get("settings") or {}
    backends = settings.get("backends") or {}
    paper = get_paper(plan.key)
    records = {n: r.records for n, r in reports.items()}
    llm = str(backends.get("llm", "")).split(" ", 1)[0]
    methods: dict[str, Any] = {}
    for name, rep in reports.items():
        for m, s in rep.summary.get("methods", {}).items():
            label = m if name == MAIN_RUN else f"{m} ({name})"
            entry = {"run": name, "method": m, "n": s.get("n"), "errors": s.get("errors"),
                     "mean_s": (s.get("latency") or {}).get("mean_s"), "notices": s.get("notices") or {},
                     "retrieval": retrieval_figures(s)}
            if s.get("context"):
                entry["context"] = s["context"]
            if s.get("replay"):
                entry["replay"] = s["replay"]
                entry["replay_note"] = replay_summary_note(s)
            methods[label] = entry
    out: dict[str, Any] = {
        "format": FORMAT, "version": 1, "paper": plan.paper, "paper_key": plan.key,
        "citation": {"title": paper.title, "authors": list(paper.authors), "year": paper.year, "venue": paper.venue,
                     "arxiv": paper.arxiv, "url": paper.url, "text": paper.cite()},
        "workspace": workspace.name, "dataset": workspace.meta.title or workspace.name,
        "llm": llm, "backends": backends, "judge": main.summary.get("judge") or {},
        "budget": {"name": plan.budget.name, "label": plan.budget.label, "limits": plan.budget.limits(),
                   "chunks": plan.budget.chunks, "tokens": plan.budget.tokens, "source": plan.budget.source},
        "node_level": plan.node_level, "command": command,
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "seconds": seconds,
        "questions": {"n": len(selected), "of": left_out.of, "limit": limit, "ids": [q.id for q in selected],
                      "left_out": {"no_gold": list(left_out.no_gold),
                                   "trained_on": {q: list(ms) for q, ms in left_out.trained_on.items()}},
                      "note": left_out_note(len(left_out.no_gold), left_out.trained_on, left_out.of)},
        "runs": [{"name": n, "methods": list(r.summary.get("methods", {})),
                  "config_changes": (r.summary.get("settings") or {}).get("config_changes") or {},
                  "ran": r.ran, "done_before": r.skipped, "seconds": timing.get(n), "compute_s": _compute_s(r)}
                 for n, r in reports.items()],
        "not_run": [{"run": run, "method": m, "why": why} for (run, m), why in skipped.items()],
        "methods": methods,
        "tables": [_table_record(plan, c, table_pairs(plan, c, records)) for c in comparisons],
        "within_noise": WITHIN_NOISE,
    }
    if llm == "recorded":
        out["recordings"] = recording_coverage(workspace.name, [m for r in reports.values()
                                                                for m in r.summary.get("methods", {})], selected)
    return out


def reproduction_markdown(record: Mapping[str, Any], comparisons: Sequence[Comparison]) -> str:
    """``reproduce.md``: how the runs were made, then every table beside ours (each with its blanks' reasons and
    differences of setting), our rows paired, what "within noise" means, and the recordings' coverage."""
    q = record["questions"]
    b = record["budget"]
    cite = record["citation"]
    lines = [f"# Reproducing {record['paper_key']} on {record['workspace']}", "",
             f"{cite['text']}", "",
             f"- Command: `{record['command']}` ({record['date']}, {record['seconds']:.0f} s)",
             f"- Workspace: {record['workspace']} — {record['dataset']}",
             f"- LLM: {record['backends'].get('llm', record['llm'])}; embedder: "
             f"{record['backends'].get('embedder', '?')}; reranker: {record['backends'].get('reranker', 'none')}",
             f"- Answer budget: `{b['name']}` — {b['label']} ({b['limits']}), for every method",
             f"- Node level: {'on (every method ranks the same KG nodes, FastInsight §4.3.1)' if record['node_level'] else 'off'}",
             f"- Questions: {q['n']} of {q['of']}" + (f" (--limit {q['limit']})" if q.get("limit") else "")
             + (f". {q['note']}" if q.get("note") else "")]
    for r in record["runs"]:
        lines.append(f"- Run `{r['name']}` ({', '.join(r['methods'])}): {r['ran']} pairs now, {r['done_before']} done "
                     f"before, {r['seconds']} s now; its pairs took {r['compute_s']} s when they ran")
    lines += [f"- `{x['method']}` of the run `{x['run']}`: {x['why']}" for x in record["not_run"]]
    lines.append("")
    for c, t in zip(comparisons, record["tables"]):
        lines.append(c.markdown())
        if t["pairs"]:
            lines += ["### Our rows compared, paired", ""]
            lines += [f"- {p['words']}" for p in t["pairs"]]
            lines.append("")
    keys = [k for k in RETRIEVAL_KEYS if any(k in m["retrieval"] for m in record["methods"].values())]
    if keys:
        lines += ["## Our retrieval in the same runs", "",
                  "Not a column of the paper's tables: what each method ranked and handed its answer, in %, with "
                  "its 95 % interval and n (ctx recall: the share of the gold passages in the answer's context).",
                  "", "| method | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
        for label, m in record["methods"].items():
            cells = []
            for k in keys:
                f = m["retrieval"].get(k)
                cells.append("–" if f is None else f"{100 * f['value']:.1f}" + (
                    f" [{100 * f['low']:.1f}, {100 * f['high']:.1f}]" if f.get("low") is not None else "")
                    + f" n={f['n']}")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## What “within noise” means", "", record["within_noise"], ""]
    rec = record.get("recordings")
    if rec:
        lines += ["## The recorded LLM", "", "Bundles: " + "; ".join(rec["bundles"]) + ".", ""]
        for m, cov in rec["methods"].items():
            lines.append(f"- {m}: a recorded run for {cov['recorded']} of {cov['of']} questions"
                         + (f"; none for {', '.join(cov['missing'][:10])}" + (" …" if len(cov["missing"]) > 10 else "")
                            if cov["missing"] else ""))
        for label, m in record["methods"].items():
            if m.get("replay_note"):
                lines.append(f"- {label} did not replay everywhere: {m['replay_note']}")
        lines.append("")
    return "\n".join(lines)

# ------------------------------------------------------------------------------------------ stored results
def stored_path(paper: str) -> Path:
    """The shipped reproduction of ``paper`` on the MuSiQue sample: ``sample_data/reproduce/<paper>.json``."""
    from core.index.paths import sample_data_dir

    key = resolve_paper(paper)
    pid = next(i for i, k in PAPER_IDS.items() if k == key)
    return sample_data_dir() / "reproduce" / f"{pid}.json"


def load_reproduction(path: str | Path) -> dict[str, Any]:
    """A ``reproduce.json`` (``format`` :data:`FORMAT`) or a shipped file holding one per LLM mode
    (``{"format": "egx-reproductions", "modes": {llm: reproduction}}``), read as JSON only.

    Raises
    ------
    InputFormatError
        For a file that is not JSON or not one of these, naming the file and what was expected.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputFormatError(p.name, f"the reproduction could not be read ({exc})",
                               "a reproduce.json written by `egx reproduce`, or a file of "
                               "scripts/make_reproductions.py") from None
    fmt = data.get("format") if isinstance(data, dict) else None
    if fmt not in (FORMAT, STORED_FORMAT) or (fmt == STORED_FORMAT and not isinstance(data.get("modes"), dict)):
        raise InputFormatError(p.name, "this is not an egx reproduction",
                               f'a JSON object with "format": "{FORMAT}" (egx reproduce) or "{STORED_FORMAT}" '
                               'with "modes" (scripts/make_reproductions.py)')
    return data


def stored_reproduction(paper: str) -> dict[str, Any]:
    """The shipped reproductions of ``paper``: ``{"format", "paper", "workspace", "made_by", "modes": {"none": ...,
    "recorded": ...}}``, each mode what ``reproduce.json`` holds.

    Raises
    ------
    InputFormatError
        When the file is missing or damaged (run ``scripts/make_reproductions.py``).
    """
    p = stored_path(paper)
    if not p.exists():
        raise InputFormatError(p.name, "the stored reproduction is missing",
                               f"{p}: make it with `python scripts/make_reproductions.py --paper {p.stem}`")
    data = load_reproduction(p)
    if data.get("format") != STORED_FORMAT:
        raise InputFormatError(p.name, "this is one reproduction, not the stored file of every LLM mode",
                               "a file written by scripts/make_reproductions.py")
    return localized(data)


#: The shipped files' word for the workspace folder (scripts/make_reproductions.py): a word of its own, not part of
#: another ("WSL", "$WS"), followed by a path separator, a space, a quote, a backtick or the end.
_WS = re.compile(r"(?<![\w$])WS(?=[/\\\s`'\";:,)]|$)")


def localized(data: dict[str, Any]) -> dict[str, Any]:
    """A shipped reproduction with its placeholder ``WS`` (the folder of the workspace it ran on) written out: the
    command option ``--workspace WS`` as the workspace's name, a path ``WS/...`` as that workspace's folder on this
    machine (``$EGX_HOME/workspaces/<name>``). The Papers page showed "no trained model in WS/reg/weak … `egx
    train-reg --workspace WS …`"."""
    from core.index.paths import workspaces_root

    name = str(data.get("workspace") or "")
    if not name:
        return data
    folder = json.dumps(str(workspaces_root() / name))[1:-1]
    text = json.dumps(data, ensure_ascii=False).replace("--workspace WS ", f"--workspace {name} ")
    return json.loads(_WS.sub(lambda _: folder, text))
