"""The papers' ablation rows run through the benchmark runner: ``egx ablate``.

Each row is one method with one configuration change, named as the paper names it; each method package
declares its own (``Method.ablations``, in its ``ablations`` module):

=============  ==========================================================================================
method         rows
=============  ==========================================================================================
bubblerag      full; w/o anchor specialization (keywords by a standard NER extractor, none rewritten), w/o
               schema relaxation (no chunk retrieved before anchor selection), w/o CEG ranking (§4.3,
               Table 3); w/o reasoning-aware expansion (d = 0, §3.5)
fastinsight    full; w/o GRanker (α = 0: plain reranking, §3.3); w/o STeX's structural score (β = 0:
               expansion by similarity only, §3.4)
reg            weak vs refined supervision (§4.1, Table 5), each with evidence chains vs raw triples (§4.2);
               the untrained cosine scorer as the floor. A row whose model folder is missing is skipped,
               and the table says which ``egx train-reg`` command makes it.
sgrag          Table 5 (§5.3): SG-RAG, NaiveRAG (dense retrieval), Entity-based Retrieval, LightRAG (1-hop),
               2-hop Graph Retrieval; then our variants: w/o the dominance filter (label-only exact matching),
               Algorithm 5 as printed (no candidate intersection)
=============  ==========================================================================================

Every row runs in its own folder ``OUT/<row>/`` with :func:`core.eval.runner.run_benchmark` (so each row
resumes like ``egx bench``: a rerun skips finished question × row pairs, and ``run.json`` pins the row's
configuration); the rows' summaries are then written as one table, ``OUT/ablation.md`` and
``OUT/ablation.json``. Columns: R@2/R@5/R@10 with their 95 % bootstrap intervals and the papers' answer metrics
(:mod:`core.eval.paper_metrics`), with each row's delta to the full method and its paired 95 % interval; each
row is compared with the full method on the questions both ran (:mod:`core.eval.stats`: paired bootstrap, sign
test, Wilcoxon), in words under the table ("within noise" when the interval holds 0); under that, each row's definition in the paper's words
(``AblationRow.definition``), and, with the ``recorded`` LLM, which rows are not the recorded runs (a row
that changes a prompt asks what no recording holds: its stages take their fallbacks, and the note says so).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError
from core.eval.stats import compare_paired, signed
from core.eval.summary_stats import comparison_from_dict, record_scores, with_interval
from core.fsio import atomic_write_text
from core.methods.base import AblationRow
from core.methods.budget import Budget, apply_budget, budget_settings
from core.outputs import output_folder

if TYPE_CHECKING:
    from core.eval.judge_choice import Judge
    from core.index.questions import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends

ABLATION_MD = "ablation.md"
ABLATION_JSON = "ablation.json"


def ablation_rows(method: str) -> tuple[AblationRow, ...]:
    """The ablation rows of ``method`` (declared by its package, ``Method.ablations``). Raises
    :class:`ConfigError` for a method without any."""
    from core.methods.registry import METHODS

    rows = {name: spec.ablation_rows() for name, spec in METHODS.items() if spec.ablations}
    if method not in rows:
        raise ConfigError(f"egx ablate has no ablation rows for {method!r}; use one of {', '.join(sorted(rows))}.")
    return rows[method]


@dataclass(frozen=True)
class AblationReport:
    out_dir: Path
    method: str
    rows: tuple[dict[str, Any], ...]  #: one per row: name, label, status, metrics, intervals, paper metrics, deltas,
    #: and ``paired``: {metric: the row vs the first row that ran (core.eval.stats.PairedComparison.to_dict)}
    ran: int
    skipped: int
    markdown: str
    warnings: tuple[str, ...] = ()  #: the rows' questions left out, and why (each row's report says it too)


COLUMNS = ("R@2", "R@5", "R@10")
PAPER = ("F1", "Hit", "Hit@1", "Micro-F1", "ACC_L")


def is_ablation_folder(folder: Path) -> bool:
    """Whether ``folder`` holds an ablation of egx's from before it marked its output folders: its table
    (``ablation.json``), or a row's benchmark folder."""
    from core.eval.bench_files import is_bench_folder

    folder = Path(folder)
    if (folder / ABLATION_JSON).is_file():
        return True
    try:
        return any(is_bench_folder(p) for p in folder.iterdir() if p.is_dir())
    except OSError:
        return False


def run_ablation(workspace: Workspace, questions: Sequence[Question], method: str, backends: Backends, *,
                 out_dir: str | Path, limit: int | None = None, seed: int | None = None, cut: int = 5,
                 rows: Sequence[str] | None = None, meta: dict[str, Any] | None = None,
                 progress: Callable[[int, int, str], None] | None = None,
                 judge: Judge | None = None, budget: Budget | str | None = None, restart: bool = False,
                 resume_unverified: bool = False, keep_trained: bool = False) -> AblationReport:
    """Run the paper's ablation rows of ``method`` on ``questions`` and write one table.

    Parameters
    ----------
    workspace, questions, backends
        As for :func:`core.eval.runner.run_benchmark`.
    method
        ``bubblerag``, ``fastinsight``, ``reg`` or ``sgrag``.
    out_dir
        One sub-folder per row (each resumable), plus ``ablation.md`` and ``ablation.json``.
    rows
        Row names to run (default: all of the method's rows).
    judge
        The LLM that judges ACC_L (:func:`core.eval.judge_choice.choose_judge`); None: not computed.
    budget
        The answer budget every row runs under (:mod:`core.methods.budget`; None: ``own``), applied after the
        row's overrides and recorded in each row's ``run.json``.
    restart, resume_unverified
        What each row's folder does with a run it cannot simply resume (:func:`run_benchmark`).
    keep_trained
        Keep the questions a row's trained model learned from, flagged (default: left out, and said in
        ``AblationReport.warnings`` and each row's report).

    Returns
    -------
    AblationReport

    Raises
    ------
    ConfigError
        For a method without rows, an unknown row name, or what :func:`run_benchmark` refuses.
    """
    from core.eval.report import replay_summary_note
    from core.eval.runner import run_benchmark
    from core.methods.registry import get_method

    all_rows = ablation_rows(method)
    wanted = list(rows) if rows else [r.name for r in all_rows]
    unknown = [n for n in wanted if n not in {r.name for r in all_rows}]
    if unknown:
        raise ConfigError(f"Unknown ablation row(s) {unknown} for {method}; the rows are "
                          f"{[r.name for r in all_rows]}.")
    out = output_folder(out_dir, what="ablation folder", ours=is_ablation_folder)  # never `/` or a thesis
    table: list[dict[str, Any]] = []
    scores: dict[str, dict[str, dict[str, float]]] = {}  # row name -> metric -> question id -> score
    warnings: list[str] = []
    ran = skipped = 0
    todo = [r for r in all_rows if r.name in wanted]
    for i, row in enumerate(todo):
        entry: dict[str, Any] = {"name": row.name, "label": row.label, "method": row.method,
                                 "overrides": dict(row.overrides), "definition": row.definition, "group": row.group}
        overrides = dict(row.overrides)
        if "model" in overrides:
            overrides["model"] = str(Path(workspace.path) / overrides["model"])
        if row.needs_model and not (Path(workspace.path) / row.needs_model / "manifest.json").exists():
            entry["status"] = (f"skipped: no model in {Path(workspace.path) / row.needs_model}; make it with "
                               f"`{row.train_hint.replace('WS', str(workspace.path))}`")
            table.append(entry)
            continue
        spec = get_method(row.method)
        cfg = apply_budget(spec, spec.make_config(**overrides), budget)

        def sub(done: int, total: int, msg: str, _i: int = i, _name: str = row.name) -> None:
            if progress is not None:
                progress(_i * total + done, len(todo) * total, f"{_name} · {msg}")

        rep = run_benchmark(workspace, questions, [row.method], backends, out_dir=out / row.name, limit=limit,
                            seed=seed, cut=cut, configs={row.method: cfg}, progress=sub,
                            meta={**(meta or {}), "ablation": row.name, "overrides": row.overrides,
                                  **budget_settings(budget)}, judge=judge,
                            restart=restart, resume_unverified=resume_unverified, keep_trained=keep_trained)
        warnings += [w for w in rep.warnings if w not in warnings]
        ran += rep.ran
        skipped += rep.skipped
        s = rep.summary["methods"][row.method]
        scores[row.name] = record_scores(r for r in rep.records if r["method"] == row.method)
        entry.update({"status": "ok", "n": s["n"], "errors": s["errors"],
                      "metrics": {k: s["metrics"].get(k) for k in COLUMNS},
                      "intervals": {k: v for k, v in (s.get("intervals") or {}).items() if k in COLUMNS},
                      "paper": {k: s.get("paper", {}).get(k) for k in PAPER},
                      "notices": s.get("notices", {}), "mean_s": s["latency"]["mean_s"]})
        if replay_summary_note(s):  # the recorded LLM: a changed row asks prompts no recording holds
            entry["replay"] = replay_summary_note(s)
        table.append(entry)
    base = next((r for r in table if r["status"] == "ok"), None)
    for r in table:
        if r["status"] == "ok" and base is not None:
            r["delta"] = {k: None if r["metrics"][k] is None or base["metrics"][k] is None
                          else r["metrics"][k] - base["metrics"][k] for k in COLUMNS}
            if r is not base:
                r["paired"] = paired_with_base(r, base, scores)
    from core.eval.judge_choice import judge_label
    from core.eval.paper_metrics import NO_JUDGE

    note = f"ACC_L: {NO_JUDGE}." if judge is None else f"ACC_L judged by {judge_label(judge.settings())}."
    for w in warnings:  # the questions the rows left out (a row's trained model learned from them), said here too
        note += f"\n- {w}"
    md = ablation_markdown(method, table, base["name"] if base else "", note=note)
    atomic_write_text(out / ABLATION_JSON, json.dumps({"method": method, "rows": table}, indent=1, ensure_ascii=False))
    atomic_write_text(out / ABLATION_MD, md)
    return AblationReport(out, method, tuple(table), ran, skipped, md, tuple(warnings))


def paired_with_base(row: dict[str, Any], base: dict[str, Any],
                     scores: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, Any]]:
    """``row`` vs the ``base`` row on each of :data:`COLUMNS`, paired on the questions both ran
    (:func:`core.eval.stats.compare_paired`; a positive difference: the row scored higher)."""
    out = {}
    for k in COLUMNS:
        got = compare_paired(row["label"], scores[row["name"]].get(k, {}), base["label"],
                             scores[base["name"]].get(k, {}), metric=k)
        if got is not None:
            out[k] = got.to_dict()
    return out


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _delta(r: dict[str, Any]) -> str:
    """Δ R@5 with its paired interval (``−4.0 [−10.0, +2.0]``); the plain delta for a row run before pairs."""
    p = (r.get("paired") or {}).get("R@5")
    if p:
        return f"{signed(100 * p['difference'])} [{signed(100 * p['low'])}, {signed(100 * p['high'])}]"
    d = r.get("delta", {}).get("R@5")
    return "–" if d is None else signed(100 * d)


def ablation_markdown(method: str, table: Sequence[dict[str, Any]], base: str, *, note: str = "") -> str:
    """The ablation as one markdown table (figures in %, Δ against the first row that ran); ``note``
    follows the table (e.g. that the LLM-judged column was not computed)."""
    lines = [f"# Ablation: {method}", "",
             f"Figures are percentages (mean over questions) with their 95 % bootstrap intervals in brackets; Δ R@5 "
             f"is against the row `{base}` on the questions both ran, with its paired 95 % interval."
             if base else "No row ran.", "",
             "| row | n | " + " | ".join(COLUMNS) + " | Δ R@5 | " + " | ".join(PAPER) + " | mean s |",
             "|---|---:|" + "---:|" * (len(COLUMNS) + len(PAPER) + 2)]
    notes = []
    group = ""
    for r in table:
        if r.get("group") and r["group"] != group:  # a group heading: the paper's table, or our variants
            group = r["group"]
            lines.append(f"| **{group}** |" + " |" * (len(COLUMNS) + len(PAPER) + 3))
        if r["status"] != "ok":
            lines.append(f"| {r['label']} | – |" + " – |" * (len(COLUMNS) + len(PAPER) + 2))
            notes.append(f"- {r['label']}: {r['status']}")
            continue
        secs = "–" if r["mean_s"] is None else f"{r['mean_s']:.2f}"
        ivs = r.get("intervals") or {}
        lines.append(f"| {r['label']} | {r['n']} | " + " | ".join(with_interval(r["metrics"][k], ivs.get(k))
                                                                  for k in COLUMNS)
                     + f" | {_delta(r)} | " + " | ".join(_pct(r["paper"][k]) for k in PAPER) + f" | {secs} |")
        if r.get("replay"):
            notes.append(f"- **{r['label']} — not the recorded runs**: {r['replay']}")
        for text, n in r.get("notices", {}).items():
            notes.append(f"- {r['label']} ({n} questions): {text}")
    if note:
        notes.append(f"- {note}")
    paired = [r for r in table if r.get("paired")]
    if paired:
        lines += ["", f"Each row vs `{base}` on R@5, paired on the questions both ran (bootstrap interval, sign test, "
                      "Wilcoxon signed-rank; R@2 and R@10 are in ablation.json):", ""]
        for r in paired:
            if "R@5" in r["paired"]:
                c = comparison_from_dict(r["paired"]["R@5"])
                lines.append(f"- {c.sentence()}. {c.tests_sentence()}.")
    if notes:
        lines += ["", *notes]
    defined = [f"- {r['label']}: {r['definition']}" for r in table if r.get("definition")]
    if defined:
        lines += ["", "Rows as the paper defines them:", "", *defined]
    return "\n".join(lines) + "\n"
