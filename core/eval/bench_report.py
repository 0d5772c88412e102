"""What a benchmark run left in its folder (:class:`BenchReport`), and a folder read back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.eval.bench_files import RUN, dedupe, read_records, read_run
from core.eval.judge_choice import run_judge
from core.eval.judgements import apply_judgements, read_judgements
from core.eval.pairwise import read_pairwise
from core.eval.report import CHARTS, REPORT, RESULTS, SUMMARY, TIMING, TRIAGE
from core.eval.run_notes import add_run_notes


@dataclass(frozen=True)
class BenchReport:
    """What a benchmark run left in ``out_dir`` (records are every JSONL line of this run's pairs)."""

    out_dir: Path
    records: tuple[dict[str, Any], ...]
    summary: dict[str, Any]
    ran: int  #: pairs run now
    skipped: int  #: pairs found already done (resume)
    files: dict[str, Path] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  #: questions left out, and why (shown by the CLI and the page)


def load_report(out_dir: str | Path) -> BenchReport:
    """Reload a finished (or partial) benchmark folder: records from the JSONL, summary recomputed."""
    from core.eval.report import summarize

    out = Path(out_dir)
    path = out / RESULTS
    if not path.exists():
        from core.errors import InputFormatError

        raise InputFormatError(str(out), f"there is no {RESULTS} in this folder", "a folder written by `egx bench`")
    records, _ = read_records(path)
    records = dedupe(records)
    settings: dict[str, Any] = {}
    methods: list[str] = list(dict.fromkeys(r["method"] for r in records))
    run: dict[str, Any] = {}
    if (out / RUN).exists():
        run = read_run(out / RUN)
        settings = run.get("settings", {})
        methods = [m for m in run.get("methods", methods) if m in methods] or methods
    judge = run_judge(settings)  # a folder without run.json reads as an older run: its records' own verdicts
    records = apply_judgements(records, read_judgements(out), judge)
    pairs = [] if judge is None else read_pairwise(out, None if judge.get("older") else str(judge.get("model")))
    summary = add_run_notes(summarize(records, methods=methods, settings=settings, pairwise=pairs), records, run)
    timing = read_timing(out)
    if timing:  # the run's wall time by phase: the report's s / q is the methods' own time only
        summary["timing"] = timing
    return BenchReport(out, tuple(records), summary, 0, len(records),
                       {k: out / v for k, v in (("results", RESULTS), ("summary", SUMMARY), ("report", REPORT),
                                                ("charts", CHARTS), ("triage", TRIAGE), ("timing", TIMING)) if (out / v).exists()})


def written_report(out_dir: str | Path) -> BenchReport:
    """The report a run has just written to ``out_dir``, its summary read from ``summary.json`` rather than computed
    again (:func:`load_report` recomputes the intervals: ~10 s of the server's CPU for 10 questions × 8 methods, spent
    after a worker's run for a result the page then loads again); :func:`load_report` when there is none."""
    import json

    out = Path(out_dir)
    try:
        summary = json.loads((out / SUMMARY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return load_report(out)
    if not isinstance(summary, dict) or "methods" not in summary:
        return load_report(out)
    records, _ = read_records(out / RESULTS)
    return BenchReport(out, tuple(dedupe(records)), summary, 0, 0,
                       {k: out / v for k, v in (("results", RESULTS), ("summary", SUMMARY), ("report", REPORT),
                                                ("charts", CHARTS), ("triage", TRIAGE), ("timing", TIMING))
                        if (out / v).exists()})


def read_timing(out: Path) -> dict[str, Any]:
    """The run's ``timing.json`` (:mod:`core.eval.timing`), or {} for a run from before it, or one unreadable."""
    import json

    try:
        data = json.loads((out / TIMING).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
