"""``egx reproduce``: a paper's quoted tables beside what this project measures under the paper's protocol.

For one paper (``bubblerag``, ``fastinsight``, ``sgrag``, ``reg``), :func:`reproduction_plan` reads its quoted
tables (:mod:`core.eval.paper_tables`) and protocol (:mod:`core.eval.paper_protocols`): the methods of the rows
this project implements, each with the configuration its row states; the preset of :mod:`core.methods.budget`
that stands for the paper's answer budget; and, for FastInsight, node-level ranking (its Table 3 scores KG
nodes, §4.3.1, so dense retrieval and Re2 rank FastInsight's node texts too). :func:`run_reproduction` runs them
with :func:`core.eval.runner.run_benchmark` and writes, under ``OUT/<paper>/<llm>/``::

    main/            one benchmark of every method at the settings most of its rows state (paired with each
                     other); resumable like ``egx bench``, with the same run identity rules
    <method>-<...>/  one benchmark per further setting a row needs (ReG's SubgraphRAG and ReG@Entity rows)
    reproduce.md     every table of the paper beside ours, with intervals, n, blanks and their reasons, the
                     differences of setting, our rows compared paired, what "within noise" means
    reproduce.json   the same as data (:func:`reproduction_record`); per-question records stay in the runs

Every run of a paper is on the same questions: the workspace's questions with gold evidence, less those a trained
model of any of its runs saw (ReG's retriever: its training and validation questions), in file order, cut to
``limit``. A row whose trained model is missing is not run; its cells say so and name the command that trains it.
With the ``recorded`` LLM, the record says, per method, which questions the shipped recordings hold and which
records did not replay (a preset other than ``own`` changes some answer prompts: those stages take their fallback).

:func:`stored_reproduction` reads the results shipped for the MuSiQue sample (``sample_data/reproduce/``, made by
``scripts/make_reproductions.py``), which the Papers page opens without running anything.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError
from core.eval.paper_compare import Comparison
from core.eval.reproduce_plan import MAIN_RUN, PlannedRun, ReproductionPlan, reproduction_plan
from core.eval.reproduce_record import (
    compare_reproduction,
    reproduction_markdown,
    reproduction_record,
    with_micro_f1,
)
from core.fsio import atomic_write_text
from core.methods.budget import budget_configs, budget_settings
from core.outputs import output_folder

if TYPE_CHECKING:
    from core.eval.bench_report import BenchReport
    from core.eval.judge_choice import Judge
    from core.index.questions import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends

__all__ = ["REPRODUCE_JSON", "REPRODUCE_MD", "Reproduction", "llm_folder", "reproduce_command", "reproduce_root", "run_reproduction"]

REPRODUCE_MD = "reproduce.md"
REPRODUCE_JSON = "reproduce.json"

Progress = Callable[[int, int, str], None]


# ------------------------------------------------------------------------------------------ running it
def is_reproduction_folder(path: Path) -> bool:
    """Whether ``path`` holds reproductions ``egx reproduce`` wrote (``<paper>/<llm>/reproduce.json``), from before
    output folders carried their marker: such a folder may take more."""
    return any(Path(path).glob(f"*/*/{REPRODUCE_JSON}"))


@dataclass(frozen=True)
class Reproduction:
    """A finished reproduction: where it is, its tables beside ours, and what ``reproduce.json`` holds."""

    paper: str
    out_dir: Path  #: OUT/<paper>/<llm>
    comparisons: tuple[Comparison, ...]
    record: dict[str, Any]
    markdown: str
    ran: int
    skipped: int
    seconds: float
    warnings: tuple[str, ...] = ()


def llm_folder(llm: Any) -> str:
    """The folder an LLM's reproduction goes to: its backend name ("none", "recorded", "local")."""
    name = str(getattr(llm, "name", "") or "none")
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name)


def reproduce_root(workspace: str) -> Path:
    """Where reproductions of a workspace go by default: ``$EGX_HOME/reproduce/<workspace name>`` (one folder per
    workspace, so two never share a run)."""
    from core.fsio import egx_home

    name = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in Path(workspace).name) or "workspace"
    return egx_home() / "reproduce" / name


def reproduce_command(paper: str, workspace: str, llm: str, *, limit: int | None = None, judge: str | None = None,
                      embedder: str | None = None, reranker: str | None = None) -> str:
    """The ``egx reproduce`` command that reruns a reproduction (defaults left out; values quoted for a shell)."""
    from shlex import quote

    from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER

    parts = ["egx reproduce", f"--paper {quote(paper)}", f"--workspace {quote(workspace)}", f"--llm {quote(llm)}"]
    if embedder and embedder != DEFAULT_EMBEDDER:
        parts.append(f"--embedder {quote(embedder)}")
    if reranker and reranker != DEFAULT_RERANKER:
        parts.append(f"--reranker {quote(reranker)}")
    if judge and judge != "none":
        parts.append(f"--judge-llm {quote(judge)}")
    if limit is not None:
        parts.append(f"--limit {limit}")
    return " ".join(parts)


@dataclass(frozen=True)
class _Prepared:
    run: PlannedRun
    methods: tuple[str, ...]
    configs: dict[str, Any]  #: method → the config it runs with (budget applied, model folders resolved)
    changes: dict[str, dict[str, Any]]  #: method → what run.json records of it (the rows' words, node_level)


def _prepare(plan: ReproductionPlan, workspace: Workspace) -> tuple[list[_Prepared], dict[tuple[str, str], str]]:
    """Each planned run's configs, less the methods whose trained model is missing (with why, per run and
    method)."""
    from core.methods.registry import get_method

    out: list[_Prepared] = []
    skipped: dict[tuple[str, str], str] = {}
    root = Path(workspace.path)
    for run in plan.runs:
        configs: dict[str, Any] = {}
        changes: dict[str, dict[str, Any]] = {}
        for m, overrides in run.changes.items():
            folder, hint = run.models.get(m, ("", ""))
            if folder and not (root / folder / "manifest.json").exists():
                skipped[(run.name, m)] = (f"not run: no trained model in {root / folder}; this row needs one — make it "
                                          f"with `{hint.replace('WS', str(root))}`")
                continue
            spec = get_method(m)
            declared = spec.make_config(**overrides)  # as the table states it: a model folder within the workspace
            if plan.node_level and spec.has_option("node_level"):
                declared = replace(declared, node_level=True)
            if declared.overrides():
                changes[m] = declared.overrides()
            model = overrides.get("model")
            configs[m] = declared.with_(model=str(root / model)) if model else declared
        if configs:
            specs = [get_method(m) for m in configs]
            out.append(_Prepared(run, tuple(configs), budget_configs(specs, plan.budget, configs), changes))
    return out, skipped


def _left_out(prepared: Sequence[_Prepared], workspace: Workspace, questions: Sequence[Question],
              backends: Backends) -> tuple[dict[str, list[str]], list[str]]:
    """Question id → the runs' methods whose trained model saw it, and the questions without gold in the
    workspace: one set for every run of the paper, so all its rows stand on the same questions."""
    from core.eval.runner import questions_left_out

    trained: dict[str, list[str]] = {}
    no_gold: list[str] = []
    for p in prepared:
        lo = questions_left_out(workspace, questions, list(p.methods), backends, configs=p.configs)
        for qid, ms in lo.trained_on.items():
            for m in ms:
                label = m if p.run.name == MAIN_RUN else f"{m} ({p.run.name})"
                if label not in trained.setdefault(qid, []):
                    trained[qid].append(label)
        no_gold += [q for q in lo.no_gold if q not in no_gold]
    return trained, no_gold


def run_reproduction(workspace: Workspace, questions: Sequence[Question], paper: str, backends: Backends, *,
                     out_dir: str | Path, limit: int | None = None, judge: Judge | None = None,
                     progress: Progress | None = None, meta: dict[str, Any] | None = None, command: str = "",
                     restart: bool = False, resume_unverified: bool = False) -> Reproduction:
    """Run ``paper``'s protocol on ``workspace`` and write its tables beside ours.

    Parameters
    ----------
    workspace, questions, backends
        As for :func:`core.eval.runner.run_benchmark` (the questions: the workspace's own, usually).
    paper
        ``bubblerag``, ``fastinsight``, ``sgrag`` or ``reg``.
    out_dir
        The root folder: the runs and the files go to ``out_dir/<paper>/<llm>/`` (module docstring); a rerun
        resumes every run there (the same refusals as ``egx bench`` when the workspace, a model or a setting
        changed since).
    limit
        Only the first ``limit`` questions (of those every run may use).
    judge
        The LLM that judges ACC_L and Emp.S (:func:`core.eval.judge_choice.choose_judge`); None: those cells are blank,
        saying why.
    progress
        ``progress(done, total, message)`` after every question × method pair of every run.
    meta
        Extra settings every run records (``questions_file``).
    command
        The command line to rerun it, recorded (default: :func:`reproduce_command` of the arguments).
    restart, resume_unverified
        What every run folder does with a run it cannot simply resume (:func:`~core.eval.runner.run_benchmark`).

    Returns
    -------
    Reproduction

    Raises
    ------
    UnknownNameError
        For another paper.
    ConfigError
        When no question is left, or for whatever :func:`~core.eval.runner.run_benchmark` refuses.
    """
    from core.eval.runner import run_benchmark
    from core.eval.selection import LeftOut, select_questions

    start = time.monotonic()
    plan = reproduction_plan(paper)
    llm = llm_folder(backends.llm)
    # the root is an output folder of egx's (new, empty, or one it made): never a home folder or a thesis
    folder = output_folder(out_dir, what="reproduction folder", ours=is_reproduction_folder) / plan.paper / llm
    prepared, skipped = _prepare(plan, workspace)
    if not prepared:
        raise ConfigError(f"Nothing of {plan.key} can run on {workspace.name!r}: "
                          + "; ".join(f"{m} ({run}): {why}" for (run, m), why in skipped.items()))
    trained, no_gold = _left_out(prepared, workspace, questions, backends)
    kept = [q for q in questions if q.id not in trained]
    selected = select_questions(kept, limit=limit)
    if not selected:
        raise ConfigError(f"No question of {workspace.name!r} is left to reproduce {plan.key} on: of "
                          f"{len(questions)}, {len(no_gold)} have no gold passage in the workspace and {len(trained)} "
                          "were seen by a trained model of its rows. Use a workspace with questions no model learned "
                          "from.")
    total = len(selected) * sum(len(p.methods) for p in prepared)
    done_before = 0
    reports: dict[str, BenchReport] = {}
    timing: dict[str, float] = {}
    warnings: list[str] = []
    for p in prepared:
        offset = done_before

        def sub(done: int, _total: int, msg: str, _offset: int = offset, _name: str = p.run.name) -> None:
            if progress is not None:
                progress(_offset + done, total, f"{_name} · {msg}")

        t0 = time.monotonic()
        rep = run_benchmark(workspace, kept, list(p.methods), backends, out_dir=folder / p.run.name, limit=limit,
                            cut=plan.budget.chunks or 5, configs=p.configs, progress=sub, judge=judge,
                            meta={**(meta or {}), "reproduce": plan.paper, "config_changes": p.changes,
                                  **budget_settings(plan.budget)},
                            restart=restart, resume_unverified=resume_unverified)
        timing[p.run.name] = round(time.monotonic() - t0, 1)
        reports[p.run.name] = rep
        warnings += [w for w in rep.warnings if w not in warnings]
        done_before += len(selected) * len(p.methods)
    left = LeftOut(len(questions), tuple(no_gold), {q: tuple(ms) for q, ms in trained.items()})
    summaries = {n: with_micro_f1(r.summary, r.records) for n, r in reports.items()}
    comparisons = compare_reproduction(plan, summaries, skipped, workspace.meta)
    seconds = round(time.monotonic() - start, 1)
    cmd = command or reproduce_command(plan.paper, workspace.name, llm, limit=limit)
    record = reproduction_record(plan, comparisons, reports, skipped, workspace=workspace, left_out=left,
                                 selected=selected, limit=limit, command=cmd, seconds=seconds,
                                 timing=timing)
    md = reproduction_markdown(record, comparisons)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / REPRODUCE_JSON, json.dumps(record, indent=1, ensure_ascii=False))
    atomic_write_text(folder / REPRODUCE_MD, md)
    return Reproduction(plan.paper, folder, comparisons, record, md, sum(r.ran for r in reports.values()),
                        sum(r.skipped for r in reports.values()), seconds, tuple(warnings))
