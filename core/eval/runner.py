"""The benchmark runner behind ``egx bench`` and the Benchmark page.

Every registered method (``core.methods.registry.METHODS``) is run on every question, in one
process, with the same backends. For each question × method one JSON line is appended to
``results.jsonl`` — retrieved chunk ids, R@{2,5,10}, AR@{2,5}, nDCG@10, TR / MissTR of the top 10,
EM / token F1 when an LLM answered, seconds per trace stage, LLM tokens, the fallbacks taken and the
failure :class:`~core.methods.base.Diagnosis`. Then ``summary.json``, ``report.md`` and
``charts.html`` (standalone plotly) are written from the JSONL (see :mod:`core.eval.report`).

* **Resumable**: a rerun into the same folder skips question × method pairs already in the JSONL;
  each line is written with one ``write`` + ``flush`` + ``fsync``, so an interruption loses at most
  the line in flight, and a torn last line is dropped on resume. ``run.json`` pins the settings
  (workspace, backends, cut, seed) and what the figures were computed on — the workspace's content and every
  trained model a method uses (:mod:`~core.eval.identity`); resuming when any of it differs is refused, saying
  what changed. ``restart`` replaces the folder's run instead, atomically (the old folder stays until the new
  ``run.json`` is in place); ``resume_unverified`` resumes a ``run.json`` written before runs kept their
  identity, on the user's word.
* **Deterministic**: questions are taken in file order, or shuffled with ``seed`` when one is given,
  then cut to ``limit``; the Python, numpy (and torch, when loaded) generators are seeded with
  ``seed`` before each method call.
* **Progress**: ``progress(done, total, message)`` is called after every pair (the CLI draws a tqdm
  bar, the page a ``st.progress``).

A run is one :class:`~core.eval.plan.BenchPlan` (workspace, questions, methods and their configs, backends, cut,
judge, runner, output options); :func:`run_plan` is its one entry point. ``egx bench`` hands its arguments as one
:class:`~core.eval.request.BenchRequest` to :func:`core.eval.request.run_request`, which opens it into the plan and
hands that here; :func:`run_benchmark` makes the plan of its keyword arguments (the Benchmark page). The parts, one module each:
:mod:`~core.eval.selection` (which questions), :mod:`~core.eval.pair` (one
question × method and its record, with :mod:`~core.eval.result_metrics`), :mod:`~core.eval.bench_files`
(``results.jsonl`` and ``run.json``), :mod:`~core.eval.judge_choice` (which LLM judges: a separate one, the generator
only when asked, or none), :mod:`~core.eval.judgements` (ACC_L and Emp.S, after the pairs),
:mod:`~core.eval.pairwise` (FastInsight's pairwise comparison of long-form answers) and
:mod:`~core.eval.bench_report` (the :class:`BenchReport`, and a folder read back).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError
from core.eval.bench_files import RUN, append_record, dedupe, is_bench_folder, read_records, swap_in_fresh
from core.eval.bench_report import BenchReport, read_timing
from core.eval.identity import ResumeCheck, model_stamps, resume_check, trained_questions, workspace_identity
from core.eval.judge_choice import Judge, run_judge
from core.eval.judgements import apply_judgements, judge_answers, read_judgements
from core.eval.pair import PairRunner, run_pair
from core.eval.pairwise import PAIRWISE_REFERENCE, pairwise_judgements
from core.eval.plan import BenchPlan
from core.eval.report import RESULTS, write_timing
from core.eval.run_notes import add_run_notes
from core.eval.selection import LeftOut, Selection, choose_questions, left_out
from core.eval.timing import PhaseClock, preparing_text
from core.fsio import atomic_write_text, path_lock
from core.outputs import open_append, output_folder
from core.trace import to_jsonable

if TYPE_CHECKING:
    from core.index.questions import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends

__all__ = ["Notes", "Progress", "check_run", "questions_left_out", "run_benchmark", "run_plan", "run_settings"]

Progress = Callable[[int, int, str], None]
#: ``notes(gold, trained)``: what a run leaves out, in words ('' when nothing), said once before anything is written
Notes = Callable[[str, str], None]
#: Where a run keeps its copies of the trained models it started with (``Method.pin``), removed when it ends.
PINNED = ".pinned"


def run_benchmark(workspace: Workspace, questions: Sequence[Question], methods: Sequence[str], backends: Backends,
                  *, out_dir: str | Path, limit: int | None = None, seed: int | None = None, cut: int = 5,
                  configs: Mapping[str, object] | None = None, progress: Progress | None = None,
                  meta: Mapping[str, Any] | None = None, save_traces: bool = False,
                  write_outputs: bool = True, judge: Judge | None = None,
                  runner: PairRunner | None = None, restart: bool = False,
                  resume_unverified: bool = False, keep_trained: bool = False,
                  started: float | None = None) -> BenchReport:
    """Run ``methods`` on ``questions`` and write the per-question JSONL, summary, report and charts: the
    :class:`~core.eval.plan.BenchPlan` of these arguments, run by :func:`run_plan`.

    Parameters
    ----------
    workspace
        An opened workspace; its index for ``backends.embedder`` is ensured here, before the plan is made.
    questions
        Questions with gold chunk ids (:func:`core.index.questions.load_questions`).
    methods
        Registered method names (unknown names raise before anything runs).
    backends
        Embedder, LLM and reranker (the reranker goes to methods that declare ``needs_reranker``, and to every method when answers are extractive).
    out_dir
        Output folder: missing (created), empty, or a benchmark folder of egx's (:func:`core.outputs.output_folder`:
        its marker, or a valid ``run.json``); existing ``results.jsonl`` there is resumed.
    limit, seed
        See :func:`select_questions`; ``seed`` (default 0 when None) also seeds the generators.
    cut
        Rank cut of the diagnosis (default 5).
    configs
        Method name → config object (default: each method's paper defaults).
    progress
        ``progress(done, total, message)`` after each pair.
    meta
        Extra run settings recorded in ``run.json`` and checked on resume (e.g. backend names).
    save_traces
        Also write each pair's full trace to ``traces/<method>/<question id>.json``.
    judge
        The LLM that judges the answers (:func:`core.eval.judge_choice.choose_judge`): the papers' LLM-judged
        metrics (ACC_L per answer and Emp.S per question, in ``judgements.jsonl``; FastInsight's pairwise
        win rate against every other method on long-form answers the generator writes, in
        ``pairwise.jsonl``). ``None`` (default): they are not computed and the report says how to get
        them. Recorded in ``run.json``; a run judged by one judge is not resumed with another.
    runner
        Runs the pending pairs elsewhere (:class:`PairRunner`; ``egx bench --ray``): each line is
        written here as its pair finishes, under the same lock, so resume works the same. The records
        equal this process's apart from timings; the JSONL's line order is the finishing order.
    restart
        Replace whatever run ``out_dir`` holds with this one (``egx bench --restart``), atomically: the new
        folder holding the new ``run.json`` is swapped in, then the old one removed.
    resume_unverified
        Resume a ``run.json`` written before runs recorded their workspace content and models (which cannot
        tell whether they changed since), on the user's word (``--resume-unverified``).
    keep_trained
        Keep the questions a benchmarked method's trained model was trained or validated on
        (``Method.trained_on``; ``--keep-trained``), each such record flagged ``"trained_on": true``. By default
        they are left out — a model scores inflated on its own training questions — and ``BenchReport.warnings``,
        ``run.json`` and the report say how many and why.
    started
        When the caller began (epoch seconds; a worker's process start): the time before this call — imports,
        opening the workspace, loading the models — is the run's ``start-up`` in ``summary["timing"]``
        (:mod:`core.eval.timing`).

    Returns
    -------
    BenchReport

    Raises
    ------
    UnknownNameError
        For an unregistered method.
    ConfigError
        When ``out_dir`` holds a run with other settings, of an older workspace content or trained model, or
        from before runs recorded those (:func:`check_run` says which, and the fix), or another
        run is writing to it
        (a lock: two runs would append duplicate lines); when ``cut < 1`` or ``limit < 1``; when
        two questions share an id or none has gold evidence in the workspace. Questions left out
        because their gold matches no chunk are listed in ``BenchReport.warnings``. An empty
        question is recorded as a failed pair (``QueryError``), never fatal.
    OutputPathError
        When ``out_dir`` is a file or a device, or a folder neither empty nor egx's (nothing is written there).
    """
    workspace.ensure_index(backends.embedder)  # what a plan holds: the identity a first run records is its resume's
    return run_plan(BenchPlan(workspace, tuple(questions), tuple(methods), backends, Path(out_dir),
                              configs=dict(configs or {}), cut=cut, limit=limit, seed=seed, judge=judge,
                              runner=runner, meta=dict(meta or {}), save_traces=save_traces,
                              write_outputs=write_outputs, restart=restart, resume_unverified=resume_unverified,
                              keep_trained=keep_trained, started=started), progress)


def run_plan(plan: BenchPlan, progress: Progress | None = None, *, notes: Notes | None = None) -> BenchReport:
    """Run ``plan`` (:class:`~core.eval.plan.BenchPlan`): the one entry point of a benchmark run. Checks the
    plan, says what it leaves out (``notes(gold, trained)``, before anything is written), claims and locks its
    folder, then resumes or starts the run there (:func:`run_benchmark` says what is written and what is
    refused); ``progress(done, total, message)`` after each pair."""
    from core.methods.registry import get_method

    clock = PhaseClock(plan.started)  # the wall time outside the methods, phase by phase (summary["timing"])
    if plan.cut < 1:
        raise ConfigError(f"cut = {plan.cut!r} is out of range; use an integer >= 1.")
    plan = replace(plan, methods=tuple(dict.fromkeys(plan.methods)))
    for m in plan.methods:
        get_method(m)
    if not plan.methods:
        raise ConfigError("No method to benchmark; name at least one registered method (e.g. dense).")
    if plan.judge is not None:
        plan = replace(plan, configs=reasoning_configs(plan.methods, plan.configs))
    trained = trained_questions(plan.methods, plan.workspace, plan.backends, plan.configs)
    chosen = choose_questions(plan.questions, trained, workspace_name=plan.workspace.name, limit=plan.limit,
                              seed=plan.seed, keep_trained=plan.keep_trained, notes=notes)  # before anything is written
    # missing (created), empty, or a benchmark folder of egx's: never `/`, a home folder or a thesis
    out = output_folder(plan.out_dir, what="benchmark folder", ours=is_bench_folder,
                        app=f"The run “{plan.out_dir.name}” cannot be saved there: the name is taken by a file or "
                            "by a folder that is not a run; pick another run name.")
    from filelock import Timeout

    lock = path_lock(out / RESULTS)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ConfigError(f"Another benchmark run is writing to {out} right now; wait for it to finish, or use "
                          "another output folder.",
                          app=f"Another benchmark is writing the run “{out.name}” right now; wait for it to finish, or "
                              "pick another run name.") from None
    held = [lock]  # a restart adds the lock of the fresh folder it swaps in
    try:
        return _run_locked(plan, out, chosen, held, progress, clock)
    finally:
        for h in held:
            h.release()


def reasoning_configs(methods: Sequence[str], configs: Mapping[str, object] | None) -> dict[str, object]:
    """``configs`` with ``answer_reasoning`` on for every method whose configuration has that knob (SG-RAG):
    a judged run scores reasoning (Emp.S, SG-RAG Table 17), and the paper's answers carry it (Table 14)."""
    from core.methods.registry import get_method

    out = dict(configs or {})
    for m in methods:
        cfg = out.get(m) or get_method(m).config()
        if getattr(cfg, "answer_reasoning", True) is False:
            out[m] = cfg.with_(answer_reasoning=True)  # type: ignore[union-attr]
    return out


def run_settings(plan: BenchPlan) -> dict[str, Any]:
    """The settings ``run.json`` keeps for the run of ``plan``, its identity included (:mod:`core.eval.identity`):
    what a rerun into the same folder must match to resume. The plan's workspace is indexed already, so the
    identity a first run records is the one its resume reads."""
    ws, backends = plan.workspace, plan.backends
    names = backends.names()
    holds: Callable[[str], bool] | None = getattr(backends.llm, "holds_workspace", None)  # the recorded LLM
    if holds is not None and not holds(ws.name):
        # it replays only this workspace's recordings (RecordedLLM.for_workspace) and holds none: every LLM stage
        # took its fallback, so the run names what answered, not "recorded"
        names["llm"] = f"none (no LLM: the recorded LLM {backends.llm.model_id} holds no run of this workspace)"
    settings = {"workspace": ws.name, "backends": names, "cut": plan.cut,
                "seed": plan.seed, **to_jsonable(dict(plan.meta))}
    settings["judge"] = plan.judge.settings() if plan.judge is not None else False
    settings["content"] = workspace_identity(ws, plan.questions)
    settings["models"] = model_stamps(plan.methods, ws, backends, plan.configs)
    settings["keep_trained"] = bool(plan.keep_trained)
    return settings


def check_run(workspace: Workspace, questions: Sequence[Question], methods: Sequence[str], backends: Backends, *,
              out_dir: str | Path, cut: int = 5, seed: int | None = None, configs: Mapping[str, object] | None = None,
              meta: Mapping[str, Any] | None = None, judge: Judge | None = None,
              keep_trained: bool = False) -> ResumeCheck:
    """Whether :func:`run_benchmark` with these arguments would start, resume or refuse the run in ``out_dir``,
    and why (:class:`~core.eval.identity.ResumeCheck`): the Benchmark page asks before it starts a run, so a
    stale run is never resumed and the page can offer a new run instead."""
    workspace.ensure_index(backends.embedder)  # as run_benchmark: the identity is read from the indexed workspace
    plan = BenchPlan(workspace, tuple(questions), tuple(methods), backends, Path(out_dir), configs=dict(configs or {}),
                     cut=cut, seed=seed, judge=judge, meta=dict(meta or {}), keep_trained=keep_trained)
    return resume_check(plan.out_dir, run_settings(plan), workspace.meta.inserts)


def questions_left_out(workspace: Workspace, questions: Sequence[Question], methods: Sequence[str],
                       backends: Backends, *, configs: Mapping[str, object] | None = None,
                       keep_trained: bool = False) -> LeftOut:
    """The questions a benchmark of ``methods`` leaves out and why (:class:`~core.eval.selection.LeftOut`): no
    gold passage in the workspace, or a trained model of a benchmarked method learned from them (kept and flagged
    with ``keep_trained``). The Benchmark page says it before the button; :func:`run_plan` says it to ``notes``."""
    trained = trained_questions(methods, workspace, backends, configs)
    return left_out(questions, trained, keep_trained=keep_trained)


def _run_locked(plan: BenchPlan, out: Path, chosen: Selection, held: list[Any], progress: Progress | None,
                clock: PhaseClock) -> BenchReport:
    """The run of ``plan`` in ``out``, whose lock is held: settings checked against the folder's run, the
    ``chosen`` questions' pending pairs run (:func:`_run_pairs`), then judged, summarized and written."""
    from core.eval.report import summarize
    from core.eval.report import write_outputs as _write

    methods = list(plan.methods)
    settings = run_settings(plan)
    run_path = out / RUN
    check = resume_check(out, settings, plan.workspace.meta.inserts)
    fresh = plan.restart and check.state != "new"
    if not (check.ok or fresh or (check.state == "unverified" and plan.resume_unverified)):
        raise ConfigError(check.message, app=check.app)
    if check.old is not None and not fresh:  # the models of methods this rerun does not run stay recorded
        settings["models"] = {**dict(check.old["settings"].get("models") or {}), **settings["models"]}
    left, selected = chosen.left, chosen.questions
    if not selected:
        raise ConfigError(f"No question is left to benchmark: {left.note()} Run with --keep-trained to keep them "
                          "(flagged), or benchmark other questions.",
                          app=f"No question is left to benchmark: {left.note()} Tick “Keep questions a model was "
                              "trained on” to keep them (flagged), or benchmark other questions.")
    path = out / RESULTS
    prev_methods = [] if fresh or check.old is None else list(check.old.get("methods", []))
    run = {"settings": settings, "methods": list(dict.fromkeys([*prev_methods, *methods])),
           "questions": [q.id for q in selected], "left_out": left.to_json()}
    run_json = json.dumps(run, indent=1)
    if fresh:  # the old run stays in place until the new folder, run.json written, is swapped in
        held.append(swap_in_fresh(out, {RUN: run_json}))
    existing, torn = read_records(path)
    if torn:  # drop the line an interruption tore, so appends start on a clean line
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in existing))
    done = {(str(r["question_id"]), str(r["method"])) for r in existing}
    if not fresh:
        atomic_write_text(run_path, run_json)
    plan = _pin_models(plan, out, settings)  # every question scored by the models the run started with
    clock.lap("set-up")
    prepared = _prepare(plan, selected, done, progress)  # before the first pair: its own phase and progress line
    clock.lap("preparing")
    ran, skipped, seconds = _run_pairs(plan, out, selected, done, left.trained_on, progress)
    clock.lap("pairs")
    if progress:  # the judge, the intervals and the diagnosis take seconds more: say so, not "about 0 s left"
        n = len(selected) * len(methods)
        progress(n, n, "every pair answered · writing the report (judge, intervals, diagnosis)")
    records, _ = read_records(path)
    wanted = {(q.id, m) for q in selected for m in methods}
    mine = dedupe([r for r in records if (str(r["question_id"]), str(r["method"])) in wanted])
    order = {q.id: i for i, q in enumerate(selected)}
    mine.sort(key=lambda r: (methods.index(r["method"]), order[str(r["question_id"])]))
    judge = plan.judge
    lines = judge_answers(out, mine, judge) if judge is not None else read_judgements(out)
    judged = apply_judgements(mine, lines, run_judge(settings))
    pairs = pairwise_judgements(out, mine, judge, generator=plan.backends.llm, workspace=plan.workspace,
                                reference=PAIRWISE_REFERENCE) if judge is not None else []
    clock.lap("judge")
    summary = add_run_notes(summarize(judged, methods=methods, settings=settings, pairwise=pairs), judged,
                            run)  # the run.json written above, not read back from the folder
    kept = {} if ran else read_timing(out)  # a rerun with nothing left to run keeps the timing of the run that ran
    if kept:
        summary["timing"] = kept
    files = _write(out, judged, summary) if plan.write_outputs else {}
    clock.lap("report")
    if not kept:
        summary["timing"] = clock.figures(seconds, pairs=ran, prepared=prepared)
        if plan.write_outputs:  # the summary and report again, with the run's timing (the charts and table lack it)
            files.update(write_timing(out, summary))
    shutil.rmtree(out / PINNED, ignore_errors=True)  # an interrupted run keeps its pins; a resume takes them again
    return BenchReport(out, tuple(judged), summary, ran, skipped, files, chosen.warnings)


def _pin_models(plan: BenchPlan, out: Path, settings: Mapping[str, Any]) -> BenchPlan:
    """``plan`` with each method's trained models pinned (``Method.pin``) into ``out/.pinned``: a retriever
    installed by a training that ends midway leaves this run's rows alone (audit 43 found one ReG row scored by
    two scorers). The pins must be what ``run.json`` stamped: a model replaced in between is refused."""
    from core.methods.registry import get_method

    configs = dict(plan.configs)
    for m in plan.methods:
        spec = get_method(m)
        if spec.pin is None:
            continue
        pinned = spec.pin(plan.workspace, plan.backends, configs.get(m) or spec.make_config(), out / PINNED / m)
        if pinned is None:
            continue
        if spec.stamp is not None and dict(spec.stamp(plan.workspace, plan.backends, pinned)) != \
                dict((settings.get("models") or {}).get(m) or {}):
            raise ConfigError(f"The trained model of {m} changed while the run started (a training installed one); "
                              "start the run again.")
        configs[m] = pinned
    return replace(plan, configs=configs)


def _prepare(plan: BenchPlan, selected: Sequence[Question], done: set[tuple[str, str]],
             progress: Progress | None) -> list[str]:
    """Build now what the methods with pairs left need before their first run (:func:`core.methods.run.
    pending_preparations`, with the backends and config :func:`~core.methods.run.run_method` gives them, so their
    runs find it built), each once, saying what is built on the progress line (:func:`preparing_text`); the titles
    of what was built. Built inside the first pair of its method, it counted as time "between methods" and stalled
    the pair count while the page's time left grew (an audit: 131 s of FastInsight's node vectors on MuSiQue)."""
    from core.methods.base import MethodConfig
    from core.methods.registry import get_method
    from core.methods.run import backends_for, pending_preparations, scoped_backends

    total = len(selected) * len(plan.methods)
    before = sum(1 for q in selected for m in plan.methods if (q.id, m) in done)
    backends = scoped_backends(plan.backends, plan.workspace.name)
    seen: set[str] = set()
    titles: list[str] = []
    for m in plan.methods:
        if all((q.id, m) in done for q in selected):
            continue
        cfg = plan.configs.get(m)
        for p in pending_preparations(get_method(m), plan.workspace, backends_for(m, backends),
                                      cfg if isinstance(cfg, MethodConfig) else None):
            if p.key in seen:
                continue
            seen.add(p.key)
            p.work(_preparing_progress(p, before, total, progress))
            titles.append(p.title.split(" (")[0])  # "Embedding 16,243 KG node texts for FastInsight"
    return titles


def _preparing_progress(p: Any, before: int, total: int, progress: Progress | None
                        ) -> Callable[[str, float], None] | None:
    """The progress callback of preparation ``p``: the run's ``progress`` with the pair count standing at
    ``before`` and the line saying what is built (said at once, before the build's first report)."""
    if progress is None:
        return None
    t0 = time.monotonic()
    progress(before, total, preparing_text(p.title, estimate_s=p.estimate_s))

    def each(message: str, fraction: float) -> None:
        progress(before, total, preparing_text(p.title, message, fraction, time.monotonic() - t0, p.estimate_s))

    return each


def _run_pairs(plan: BenchPlan, out: Path, selected: Sequence[Question], done: set[tuple[str, str]],
               trained_on: Mapping[str, Sequence[str]], progress: Progress | None) -> tuple[int, int, list[float]]:
    """Run every pair of ``selected`` × the plan's methods not in ``done``, here or on the plan's runner, each
    record appended to ``results.jsonl`` as it finishes (flagged when its method's model was trained on its
    question); ``(ran, skipped, the seconds of each pair run now)``."""
    methods = plan.methods
    total = len(selected) * len(methods)
    n_done = ran = skipped = 0
    configs = dict(plan.configs)
    seconds: list[float] = []

    def save(fh: Any, q: Question, m: str, rec: dict[str, Any], trace: str | None) -> None:
        if m in trained_on.get(q.id, ()):  # kept on request: its figures are inflated, and say so
            rec["trained_on"] = True
        if trace is not None:
            tdir = out / "traces" / m
            tdir.mkdir(parents=True, exist_ok=True)
            atomic_write_text(tdir / f"{_safe(q.id)}.json", trace)
        append_record(fh, rec)
        done.add((q.id, m))
        seconds.append(float(rec.get("seconds") or 0.0))

    with open_append(out / RESULTS) as fh:
        if plan.runner is not None:
            pending = [(q, m) for q in selected for m in methods if (q.id, m) not in done]
            skipped = n_done = total - len(pending)
            if progress and skipped:
                progress(n_done, total, f"{skipped} pairs done before")
            for q, m, rec, trace in plan.runner.run_pairs(plan.workspace, pending, plan.backends, configs=configs,
                                                          seed=plan.generator_seed, cut=plan.cut,
                                                          traces=plan.save_traces):
                save(fh, q, m, rec, trace)
                ran += 1
                n_done += 1
                if progress:  # pairs run in parallel there: the one named is the one that finished
                    progress(n_done, total, f"{m} · {q.id} done")
            return ran, skipped, seconds
        for q in selected:
            for m in methods:
                n_done += 1
                if (q.id, m) in done:
                    skipped += 1
                    if progress:
                        progress(n_done, total, f"{m} · {q.id} (done before)")
                    continue
                if progress:  # the pair running now, not the one that finished last (an audit saw "27/30 · ppr"
                    # while fastinsight, bubblerag and reg ran)
                    progress(n_done - 1, total, f"running {m} · {q.id}")
                rec, trace = run_pair(plan.workspace, q, m, plan.backends, config=configs.get(m),
                                      seed=plan.generator_seed, cut=plan.cut, trace=plan.save_traces)
                save(fh, q, m, rec, trace)
                ran += 1
                if progress:
                    progress(n_done, total, f"{m} · {q.id} done")
    return ran, skipped, seconds


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)[:120] or "q"
