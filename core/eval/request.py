"""What a benchmark run is asked for, in names, before anything is opened (:class:`BenchRequest`), the
:class:`~core.eval.plan.BenchPlan` it opens (:func:`open_plan`), and the run of it (:func:`run_request`).

``egx bench`` turns its arguments into one request at the command line, checking what needs no model (the
methods, their ``--set`` changes, the budget, the LLM's limits), and hands it to :func:`run_request`, its one
entry into :mod:`core.eval`: the request is opened here (the backends, each built once; the workspace, found and
indexed; the questions; the judge) and its plan run by :func:`core.eval.runner.run_plan`. So the command line's
namespace stops at the command line, and the run's inputs are opened in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER, LLMSpec
from core.errors import NoQuestionsError

if TYPE_CHECKING:
    from core.backends.base import LLM
    from core.eval.bench_report import BenchReport
    from core.eval.pair import PairRunner
    from core.eval.plan import BenchPlan
    from core.eval.runner import Notes, Progress
    from core.index.listing import Bars
    from core.index.questions import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.budget import Budget


@dataclass(frozen=True)
class BenchRequest:
    """One benchmark run as asked for: names and settings, checked, nothing opened.

    ``configs`` are the methods' configs with the asked changes (``--set``, ``--node-level``), before the
    budget; ``budget`` None is ``own``; ``cut`` None follows the budget's chunk count, else 5. ``llm`` is the
    generator with its limits and cache setting (:class:`~core.backends.registry.LLMSpec`), which a judge by
    another name runs under too; ``judge`` names the judging LLM (None: no judge; ``same``: the generator).
    The rest are :class:`~core.eval.plan.BenchPlan`'s fields."""

    workspace: str
    methods: tuple[str, ...]
    out_dir: Path
    questions_file: str | None = None
    configs: Mapping[str, Any] = field(default_factory=dict)
    budget: Budget | None = None
    cut: int | None = None
    embedder: str = DEFAULT_EMBEDDER
    reranker: str = DEFAULT_RERANKER
    llm: LLMSpec = field(default_factory=LLMSpec)
    judge: str | None = None
    limit: int | None = None
    seed: int | None = None
    save_traces: bool = False
    restart: bool = False
    resume_unverified: bool = False
    keep_trained: bool = False
    started: float | None = None  #: when the front end began (epoch s): its start-up counts in the run's timing


def run_request(request: BenchRequest, *, runner: PairRunner | None = None, bars: Bars | None = None,
                progress: Progress | None = None, notes: Notes | None = None) -> BenchReport:
    """Open ``request`` into its plan (:func:`open_plan`: ``bars(title)`` reports the workspace's indexing or build)
    and run it (:func:`core.eval.runner.run_plan`: ``progress`` after each pair, ``notes`` before anything is
    written), its pairs on ``runner`` when given."""
    from core.eval.runner import run_plan

    plan = open_plan(request, runner=runner, bars=bars)
    return run_plan(plan, progress, notes=notes)


def open_plan(request: BenchRequest, *, runner: PairRunner | None = None, bars: Bars | None = None) -> BenchPlan:
    """The :class:`~core.eval.plan.BenchPlan` of ``request``: the backends built, the workspace found and
    indexed (``bars(title)`` reports it), the questions loaded, the budget applied to the configs, the judge
    chosen; ``runner`` runs the pairs elsewhere (``egx bench --ray``). ``meta`` pins the questions file, the
    config changes and the budget in ``run.json``."""
    from core.backends.registry import get_embedder
    from core.eval.judge_choice import choose_judge
    from core.eval.plan import BenchPlan
    from core.methods.budget import budget_configs, budget_settings, parse_budget
    from core.methods.registry import get_method

    specs = [get_method(m) for m in request.methods]
    budget = request.budget if request.budget is not None else parse_budget(None)
    ws, qs, backends = open_inputs(request.workspace, request.questions_file, specs, get_embedder(request.embedder),
                                   request.llm.build(), request.reranker, bars=bars)
    meta: dict[str, object] = {"questions_file": str(request.questions_file or ws.questions_path)}
    if request.configs:  # recorded in run.json: a resumed run must use the same settings
        meta["config_changes"] = {m: c.overrides() for m, c in request.configs.items()}
    meta.update(budget_settings(budget))  # likewise: a run is never resumed under another budget
    cut = request.cut if request.cut is not None else (budget.chunks or 5)  # the gold within what the answer sees
    return BenchPlan(ws, tuple(qs), request.methods, backends, request.out_dir,
                     configs=budget_configs(specs, budget, request.configs), cut=cut, limit=request.limit,
                     seed=request.seed, judge=choose_judge(request.judge, backends.llm, build=request.llm.build),
                     runner=runner, meta=meta, save_traces=request.save_traces, restart=request.restart,
                     resume_unverified=request.resume_unverified, keep_trained=request.keep_trained,
                     started=request.started)


def open_inputs(workspace: str, questions_file: str | None, specs: Sequence[Any], embedder: Any, llm: LLM,
                reranker: str, *, bars: Bars | None = None) -> tuple[Workspace, list[Question], Backends]:
    """The workspace, questions and backends of a benchmark (``egx bench``, ``egx ablate``, ``egx reproduce``):
    the workspace found and indexed for ``embedder``, the reranker built only when a method of ``specs`` needs it
    or as the no-LLM answer's extractive scorer, the questions of ``questions_file`` or else the workspace's own
    (:class:`~core.errors.NoQuestionsError` when there are none)."""
    from core.backends.registry import get_reranker
    from core.index.listing import find_workspace
    from core.index.questions import load_questions, load_questions_file
    from core.methods.base import Backends

    ws = find_workspace(workspace, embedder, bars=bars)
    # the recorded LLM on a workspace it holds no run of is no LLM there, nor on a question it holds no run of
    # (core.methods.run.scoped_backends): a run of either answers with the reranker, as none mode does
    no_llm = not llm.available or getattr(llm, "for_workspace", None) is not None
    wants = any(s.needs_reranker for s in specs) or (no_llm and reranker != "llm")
    ranker = get_reranker(reranker, embedder=embedder, llm=llm) if wants else None
    qs = load_questions_file(questions_file, ws.graph) if questions_file else load_questions(ws)
    if not qs:
        raise NoQuestionsError("no questions; give --questions FILE or a workspace that has a questions file",
                               app=f"Workspace {ws.name!r} has no questions: choose a questions file, or a workspace "
                                   "that has one.")
    return ws, qs, Backends(embedder, llm, ranker)
