"""The Benchmark page's panels: the Run tab (`egx bench` as a server job, with the refusal of a stale run), the Load
tab, and a loaded report (tables with intervals, charts, the per-question table that opens a row on Compare).

A browser user picks a run *name*, never a path: runs live in ``$EGX_HOME/runs/<name>``, so the page cannot write
outside the project's folders. The figures themselves are drawn by :mod:`components.bench_view`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import bench_view, budget_view, jobs_view, resources, runs, workspaces
from components import compare_view as cv
from components import state as S
from components.answer_view import (
    recorded_workspaces,
    recording_gap_warning,
    unrecorded_workspace,
    unrecorded_workspace_text,
)
from components.charts import no_modebar
from components.navigation import page_path
from components.question import workspace_questions
from components.ui import error_text, md_escape
from core.backends.registry import LLMS
from core.background.jobs import JobBusyError
from core.batch.tasks import bench_job, bench_spec, budget_run
from core.errors import Cancelled, EgxError
from core.eval.estimate import pairs_done, remaining_estimate
from core.eval.identity import report_change
from core.eval.judge_choice import SAME, choose_judge
from core.eval.paper_metrics import APP_WORDING as JUDGE_APP_WORDING
from core.eval.report import (
    ANSWER_METRICS_NOTE,
    NODE_METRICS_NOTE,
    RESULTS,
    SUMMARY,
    grouped_replay_notes,
    node_rows,
)
from core.eval.report_charts import failure_figure, latency_recall_figure, recall_figure
from core.eval.run_notes import run_note_items
from core.eval.runner import check_run, questions_left_out, run_benchmark
from core.eval.selection import gold_coverage
from core.eval.triage import (
    RETRIEVED,
    TRAINED_ON,
    UNMATCHED,
    benchmark_rows,
    failure_split,
    failures,
    flat,
    retrieval_losses,
)
from core.eval.verdicts import CHANCE_LABEL, MATCH_LABELS, VERDICT_KEYS, bucket_label
from core.fsio import MAX_NAME_CHARS, NAME_RULE, child_path, clean_filename
from core.index.isolated import isolated_builds
from core.index.paths import runs_root
from core.methods.base import Backends
from core.methods.reg.pipeline import APP_WORDING as REG_APP_WORDING
from core.methods.registry import METHODS, method_names

if TYPE_CHECKING:
    from components.sidebar import Active
    from core.background.jobs import Job
    from core.eval.bench_report import BenchReport

#: readable, numbers narrow, the long "why" late.
PER_QUESTION_COLUMNS = {
    # 330 px: at "medium" (200) an audit's questions read "Which city was the founder of Ha…" alike
    "question": st.column_config.TextColumn("question", width=330),
    "method": st.column_config.TextColumn("method", width="small", help="Registry names (dense = Naive RAG, …: "
                                          "the Methods box's help)"),
    "verdict": st.column_config.TextColumn("verdict", width=170),
    "EM": st.column_config.NumberColumn("EM", width="small", help="SQuAD exact match (best over the aliases)"),
    "F1": st.column_config.NumberColumn("F1", width="small", help="SQuAD token F1 (best over the aliases)"),
    "answer match": st.column_config.TextColumn("answer match", width="medium"),
    "answer": st.column_config.TextColumn("answer", width="medium"),
    "gold answer": st.column_config.TextColumn("gold answer", width="small"),
    "gold ranks": st.column_config.TextColumn("gold ranks", width="small",
                                              help="Rank of each gold passage in the method's ranking"),
    "gold passages": st.column_config.TextColumn("gold passages", width="medium"),
    UNMATCHED: st.column_config.TextColumn(UNMATCHED, width="medium", help="Gold passages the question names but "
                                           "the workspace lacks: each counts as a gold passage never retrieved"),
    RETRIEVED: st.column_config.TextColumn(RETRIEVED, width="medium"),
    **{f"R@{k}": st.column_config.NumberColumn(f"R@{k}", width="small", help=bench_view.recall_help(k))
       for k in (5, 10, 2)},
    "why": st.column_config.TextColumn("why", width=360, help="The diagnosis: where the gold evidence was lost"),
    "seconds": st.column_config.NumberColumn("seconds", width="small"),
    TRAINED_ON: st.column_config.TextColumn(TRAINED_ON, width="small", help="Kept on request: the method's trained "
                                            "model was trained or validated on this question"),
    "id": st.column_config.TextColumn("id", width="small"),
}
#: The per-question table's first columns: question, method, verdict and the diagnosis fit a 1440-px window's main
#: column together (about 960 px); "why" after the figures was off-screen there, behind a scroll bar (an audit).
PER_QUESTION_FIRST = ("question", "method", "verdict", "why")

#: The Judge LLM choices: none, every LLM backend, or the generator itself.
JUDGE_CHOICES = ["none", *[n for n in LLMS if n != "none"], SAME]
JUDGE_LABELS = {"none": "none — judged metrics not computed",
                SAME: "same — the sidebar's LLM judges itself (self-judged)"}


@dataclass(frozen=True)
class Choice:
    """What the Run tab's widgets chose: the methods, the answer budget, the question count, the judge, whether
    questions a model was trained on are kept, and the workspace's questions."""

    methods: list[str]
    budget: Any
    limit: int
    judge_name: str
    keep_trained: bool
    questions: list[Any]


#: The LLM part of a default run name when no LLM answers: the recorded LLM on a workspace its recordings hold
#: nothing of runs as in ``none`` mode (an audit's run was named "mydata4-bge-small-recorded" by a page that said
#: every method ran without an LLM). Not "none": a run of the ``none`` LLM has other settings and its own name.
NO_LLM_NAME = "no-llm"


def held_note(failed: Sequence[Mapping[str, Any]]) -> str:
    """What the per-question table says of failures whose answer holds the gold answer: the answer-set table's Hit
    counts them as found (ReG §5.1's definition: the words, from whichever passage) — and how many quote it from a
    passage that is not gold (an audit read such a row among "the gold answer inside a longer reply"); "" when none."""
    held = sum(1 for r in failed if str(r.get("answer match") or "").startswith(MATCH_LABELS["contains"]))
    if not held:
        return ""
    chance = sum(1 for r in failed if r.get("verdict") == CHANCE_LABEL
                 or str(r.get("answer match") or "").endswith("(from a non-gold passage)"))
    return (f" {held} of the failures hold the gold answer inside a longer reply (“holds the gold answer”): the "
            "answer-set table's Hit counts those as found (ReG §5.1: the words, from whichever passage), EM and this "
            "table do not" + (f"; {chance} of them quote it from a passage that is not gold" if chance else "") + ".")


def _llm_part(act: Active) -> str:
    """What answered, for a run name: the sidebar's LLM, or :data:`NO_LLM_NAME` when it is the recorded LLM on a
    workspace without recordings (:func:`components.answer_view.unrecorded_workspace`)."""
    return NO_LLM_NAME if unrecorded_workspace(act.llm_name, act.workspace.name) else act.llm_name


def _default_run(act: Active, budget: str = "own") -> str:
    """The run name a run of these backends starts on: workspace, embedder, the LLM that answers (and a budget not
    its own)."""
    # a run under another budget never resumes this one's; "budget-" says what the word is (an audit read
    # "…-none-bubblerag", a run of all eight methods, as a run of BubbleRAG alone)
    tail = "" if budget == "own" else f"-budget-{budget}"
    return latest_of(clean_filename(f"{act.workspace.name}-{act.embedder_name}-{_llm_part(act)}{tail}",
                                    default="run")[:MAX_NAME_CHARS])


def past_stale(act: Active, name: str) -> tuple[str, tuple[str, str] | None]:
    """``name``, or the next name of its series when the run ``name`` exists and the workspace changed since it
    (``(name, what changed)`` beside it): the box showed the old run's name until Run said it had started a new
    one (an audit). A run that cannot be read, or of another workspace, leaves ``name`` as it is."""
    from core.eval.bench_files import RUN

    folder = runs_root() / name
    if not (folder / RESULTS).is_file():
        return name, None
    try:
        settings = json.loads((folder / RUN).read_text(encoding="utf-8")).get("settings") or {}
        if str(settings.get("workspace") or "") != act.workspace.name:
            return name, None
        changed = report_change(settings, act.workspace, act.graph)
    except (EgxError, OSError, ValueError, AttributeError):
        return name, None
    return (_fresh_name(name), (name, changed)) if changed else (name, None)


def latest_of(name: str) -> str:
    """The newest run of the series ``name``, ``name-2``, ``name-3`` … (the highest number holding results; ``name``
    when none does): Run on an out-of-date run starts ``name-2`` (:func:`_moved_on`), and a new session's default
    went back to ``name``, so the next out-of-date notice compared with the first run, not the latest (an audit)."""
    root = runs_root()
    stem = name[:MAX_NAME_CHARS - 4]
    best, n = name, 1
    if root.exists():
        for p in root.iterdir():
            m = re.fullmatch(re.escape(stem) + r"-(\d+)", p.name)
            if m and int(m.group(1)) > n and (p / RESULTS).is_file():
                best, n = p.name, int(m.group(1))
    return best


def _runs() -> list[str]:
    """Run names under $EGX_HOME/runs that hold results (newest first)."""
    root = runs_root()
    if not root.exists():
        return []
    found = [p for p in root.iterdir() if not p.name.startswith(".") and (p / RESULTS).is_file()]
    return [p.name for p in sorted(found, key=lambda p: (p / RESULTS).stat().st_mtime, reverse=True)]


def _mtime(path: Path) -> float:
    p = path / RESULTS
    return p.stat().st_mtime if p.exists() else 0.0


def question_detail(rows: Sequence[Mapping[str, Any]]) -> None:
    """The table's rows of one question in full, folded under the picker: each method's verdict, answer and "why",
    read in place (the table cuts its cells at the column's width, and a selected row opens Compare, which runs the
    methods again: an audit had no way to read a whole diagnosis without leaving the report or downloading it)."""
    if not rows:
        return
    from core.text import plural

    with st.expander(f"Every verdict on this question, in full ({plural(len(rows), 'row')} of the table)",
                     icon=":material/subject:"):
        for r in rows:
            answer = str(r.get("answer") or "").strip()
            st.markdown(f"**{md_escape(bench_view.method_label(str(r['method'])))}** — {md_escape(str(r['verdict']))}"
                        + (f"  \nAnswer: {md_escape(answer)}" if answer else "")
                        + (f"  \n{md_escape(str(r['why']))}" if r.get("why") else ""))


def _fresh_name(name: str) -> str:
    """The next run of ``name``'s series: ``name-2``, ``name-3``, … after the highest number taken under the runs
    folder; a name that is itself a later run of a series (``base-2``, its ``base`` there) continues that series
    (an audit's third run was named "…-bubblerag-2-2" after "…-bubblerag-2")."""
    root = runs_root()
    m = re.fullmatch(r"(.+)-(\d+)", name)
    stem = m.group(1) if m and (root / m.group(1)).exists() else name
    stem = stem[:MAX_NAME_CHARS - 4]
    taken = [int(t.group(1)) for p in (root.iterdir() if root.exists() else ())
             if (t := re.fullmatch(re.escape(stem) + r"-(\d+)", p.name))]
    return f"{stem}-{max([1, *taken]) + 1}"


def _ask(name: str, resume_unverified: bool = False) -> None:
    """The refusal's buttons: run under ``name`` on the next script run (the run-name box shows it)."""
    S.set_value(S.BENCH_OUT, name)
    st.session_state[S.BENCH_LAUNCH] = {"name": name, "resume_unverified": resume_unverified}
    st.session_state.pop(S.BENCH_REFUSED, None)


def _moved_on(old: str, why: str) -> None:
    """Run was clicked on a run name whose run is out of date (the workspace or a trained model changed since): run
    under a fresh name at once, the old run kept and the box showing the new name from the next script run on. An
    audit clicked Run after "Add documents" and got a refusal with a "Start a new run" button: right, but a click
    that meant "run" did not run."""
    fresh = _fresh_name(old)
    st.session_state[S.BENCH_MOVED] = {"old": old, "fresh": fresh, "why": why, "apply": True}
    st.session_state[S.BENCH_LAUNCH] = {"name": fresh, "resume_unverified": False}
    st.rerun()


def _refusal(refused: dict[str, str]) -> None:
    """Why the run name cannot take this run (a stale or unverifiable run, other settings), and what to do."""
    st.warning(md_escape(refused["text"]), icon=":material/history:")
    fresh = _fresh_name(refused["name"])
    c1, c2 = st.columns(2)
    c1.button(f"Start a new run “{fresh}”", key=S.BENCH_NEW_RUN, on_click=_ask, args=(fresh,), type="primary",
              icon=":material/add:", help="The old run stays as it is, to open on the “Load a report” tab.")
    if refused["state"] == "unverified":
        c2.button("Resume it anyway", key=S.BENCH_RESUME_ANYWAY, on_click=_ask, args=(refused["name"], True),
                  help="Its results may be stale: nothing recorded what workspace content or models made them.")


def _launch(act: Active, choice: Choice, out_dir: Path, backends: Backends, judge: Any, budgeted: dict[str, Any], *,
            resume_unverified: bool = False) -> None:
    """Start the benchmark as a server job (it survives page switches; the sidebar and this page show it), each
    method under the answer budget (``budgeted``: :func:`core.batch.tasks.budget_run`'s configs, cut and meta)."""
    ws, methods, limit, keep_trained = act.workspace, choice.methods, choice.limit, choice.keep_trained
    spec = bench_spec(ws, methods, embedder=act.embedder_name, llm=act.llm, reranker=act.reranker_name,
                      out_dir=out_dir, limit=limit, judge=choice.judge_name,
                      meta={"questions_file": str(ws.questions_path)}, resume_unverified=resume_unverified,
                      keep_trained=keep_trained, budget=choice.budget.name if choice.budget else "own")

    eligible = [q.id for q in choice.questions if q.gold_chunks]
    n = min(limit or len(eligible), len(eligible))
    # a resumed run skips the pairs its folder holds: the time left leans on the pairs still to run
    expected = _whole_estimate(act, methods, n, done=pairs_done(out_dir, methods, eligible[:n]))

    def work(job: Job) -> BenchReport:
        job.report(page="pages/benchmark.py")  # the banner on every page links back here
        if expected:  # the page's estimate, said before Run: the time left leans on it until the runs say more
            job.expect(expected)
        if isolated_builds():  # a worker process at a lower priority: the pages stay responsive
            return bench_job(spec, progress=job.progress, cancel=job.cancel_event)

        def progress(done: int, total: int, msg: str) -> None:
            job.report(f"{done}/{total} · {msg}", done / max(total, 1))

        return run_benchmark(ws, choice.questions, methods, backends, out_dir=out_dir, limit=limit, progress=progress,
                             judge=judge, resume_unverified=resume_unverified, keep_trained=keep_trained, **budgeted)

    # A run name that is running already is refused, never joined: its settings may not be these.
    key = f"bench:{out_dir.name}"
    try:
        jobs_view.jobs().submit(key, f"Benchmark “{out_dir.name}”", work, kind="bench", join=False,
                                extra={WORKSPACE_EXTRA: ws.name}).wait(
            jobs_view.inline_wait(3.0))
    except JobBusyError as exc:
        st.error(md_escape(error_text(exc)))
    else:
        st.session_state[S.BENCH_JOB] = key
        # The sidebar's "Background jobs" and the banner were drawn before this click made the job, and only the
        # page's live panel redraws while it runs: an audit saw the session's own list without its benchmark while
        # another session counted it. One rerun draws them with it (and the Run button disabled).
        st.rerun()



#: The benchmark job's label naming its workspace (:func:`others_here`; workspaces are listed for everyone).
WORKSPACE_EXTRA = "workspace"


def others_here(workspace: str, others: list[Job]) -> str:
    """A note where other sessions run a benchmark of ``workspace`` now ("" where none): anonymous — how many and
    for how long, never their run names — as the sidebar's folded list is; an audit's second user saw nothing of
    the first's running benchmark on the same workspace, the estimate counting nothing for it."""
    from core.eval.estimate import duration

    here = [j for j in others if j.kind == "bench" and j.extra.get(WORKSPACE_EXTRA) == workspace]
    if not here:
        return ""
    longest = max(j.status().elapsed for j in here)
    return (f"{'Another session is' if len(here) == 1 else f'{len(here)} other sessions are'} running a benchmark of "
            f"this workspace now (for {duration(longest)}). It shares the CPU: a run started now takes longer than "
            "the estimate says. Its figures stay its own; yours are compared on your run's report.")


#: Why "Run benchmark" is disabled while this session's benchmark runs: a second run would share the CPU with it.
RUNNING_HELP = "A benchmark of this session is running: start another once it ends or is cancelled"


def _running_bench() -> Job | None:
    """This session's running benchmark (the one this page started, or another of its runs), or None."""
    key = st.session_state.get(S.BENCH_JOB)
    job = jobs_view.jobs().get(key) if key else None
    if job is not None and not job.finished:
        return job
    return next((j for j in jobs_view.my_running() if j.kind == "bench"), None)


#: A workspace with at most this many questions with gold evidence is benchmarked whole by default; a bigger one
#: starts on its first FIRST_RUN_QUESTIONS, a first run of every method that ends in minutes (MuSiQue's 100
#: questions × 8 methods take hours with an LLM).
ALL_QUESTIONS_UP_TO = 10
FIRST_RUN_QUESTIONS = 3
#: (5 minutes: at 2 minutes a 12-question workspace's default fell to 3 after one run on a loaded machine, an audit)
WHOLE_RUN_SECONDS = 300.0
QUESTION_COUNT_RULE = (f"Default: all of them when there are at most {ALL_QUESTIONS_UP_TO} or the whole run is "
                       f"estimated at {WHOLE_RUN_SECONDS / 60:.0f} minutes or less, else the first "
                       f"{FIRST_RUN_QUESTIONS} (a first run that ends in minutes).")


def results_download(run_dir: Path, pairs: int) -> None:
    """Every pair's record of the run, as the run wrote it (``results.jsonl``: ranked passages, gold, each metric,
    answer, verdict): the rows each figure of the report is a mean of. An audit could recompute the page's R@k only
    from the server's run folder; the table's downloads hold the rows its toggles show (failures by default)."""
    path = run_dir / RESULTS
    if not path.is_file():
        return
    st.download_button(f"Download all {pairs} pairs' results (JSONL, every figure's rows)",
                       data=lambda: path.read_bytes(), file_name=f"{run_dir.name}-results.jsonl",
                       mime="application/x-ndjson", key=S.sub(S.BENCH_DOWNLOAD, "all"), on_click="ignore",
                       icon=":material/dataset:",
                       help="One JSON record per (question, method) pair, as the run saved it: its ranked passages, "
                            "gold passages, every metric (the report's figures are their means), answer and verdict.")


def trained_on_note(left: Any, methods: Sequence[str], taken: Sequence[str]) -> str:
    """What the Run tab says before Run about the questions a benchmarked method's model was trained or validated on,
    as Markdown, the names escaped ("" when there are none; an audit read the checkbox's name between literal
    asterisks where the whole text was escaped): left out — for every method, so that all are compared on the same
    questions, and how to run them on the others — or, kept, how many of the questions this run takes (``taken``, the
    Questions box's first N) are such questions. An audit, after training ReG on 10 of 12 questions, read "10 of these
    questions are kept" above a run of 3, and found every method's run cut to 2 questions, not ReG's alone."""
    if not left.trained_on:
        return md_escape(str(left.note()))  # questions without gold here, if any
    trainers = sorted({m for ms in left.trained_on.values() for m in ms})
    names = md_escape(" and ".join(trainers))
    others = [m for m in methods if m not in trainers]
    if not left.keep_trained:
        hint = (f" They are left out for every method, so that all are compared on the same questions: take "
                f"{names} out of Methods to run them on the other {len(others)}, or tick *Keep questions a model was "
                "trained on* to keep them, flagged." if others else
                " Tick *Keep questions a model was trained on* to keep them, flagged.")
        return md_escape(str(left.note())) + hint
    k = sum(1 for q in taken if q in left.trained_on)
    if not k:
        return md_escape(str(left.note()))
    return (f"{k} of the {len(taken)} questions this run takes {'is' if k == 1 else 'are'} kept although {names}'s "
            f"model was trained or validated on {'it' if k == 1 else 'them'}: {'its' if k == 1 else 'their'} "
            f"{names} rows are flagged “trained on”, their figures inflated.")


def default_question_count(n_gold: int, whole_run_seconds: float | None = None) -> int:
    """The Questions box's default for a workspace with ``n_gold`` questions with gold evidence
    (:data:`QUESTION_COUNT_RULE`), ``whole_run_seconds`` the estimate of running them all; at least 1, the box's
    minimum. An audit's 11 questions on 13 passages (an estimated 16 s) ran 3 by default, said only in the estimate."""
    whole = n_gold <= ALL_QUESTIONS_UP_TO or (whole_run_seconds is not None and whole_run_seconds <= WHOLE_RUN_SECONDS)
    return max(1, n_gold if whole else FIRST_RUN_QUESTIONS)


def estimate_caption(act: Active, methods: Sequence[str], n: int, judge_name: str = "none") -> None:
    """How long the run will take, said before Run (:mod:`core.eval.estimate`): questions × each method's seconds
    from earlier runs of this workspace and LLM (else a measured default), plus the time outside the methods."""
    if not (methods and n):
        return
    llm = "none" if _llm_part(act) == NO_LLM_NAME else act.llm_name
    passages = act.workspace.meta.n_chunks or None
    est = resources.bench_estimate(str(runs_root()), act.workspace.name, llm, tuple(methods), int(n), _runs_stamp(),
                                   passages)
    factor = est.busy_top / est.total if est.busy_top and est.total else 1.0
    first = preparations_sentence(act, methods, est.total, at_least=est.lower_bound, busy_factor=factor)
    # the run's whole time leads where a build comes first: an audit read "about 29 s" of a run that took 218 s,
    # 184 of them building, the "in all" figure at the end of a long line
    text = first + est.sentence(lead="Then the runs") if first else est.sentence()
    if judge_name != "none":
        text += " The judge's time is not counted."
    if beside := jobs_view.jobs_beside():  # audit 44 trained ReG beside its run: 105.6 s for an estimated 62 s,
        # the load still low when the estimate was read
        text += (f" The server also runs {beside} other job{'s' if beside != 1 else ''} now (the sidebar lists "
                 f"{'them' if beside != 1 else 'it'}): the run shares the CPU with {'them' if beside != 1 else 'it'} "
                 "and may take longer.")
    st.caption(f":material/schedule: {md_escape(text)}")


def _whole_estimate(act: Active, methods: Sequence[str], n: int, *, done: int = 0) -> float | None:
    """The run's whole estimate as :func:`estimate_caption` says it (builds before the methods included), or None;
    ``done``: pairs its run folder already holds (:func:`core.eval.estimate.remaining_estimate`)."""
    if not (methods and n):
        return None
    llm = "none" if _llm_part(act) == NO_LLM_NAME else act.llm_name
    try:
        est = resources.bench_estimate(str(runs_root()), act.workspace.name, llm, tuple(methods), int(n), _runs_stamp(),
                                       act.workspace.meta.n_chunks or None)
    except (EgxError, OSError):
        return None
    return remaining_estimate(float(est.total), float(est.overhead), n * len(methods), done) \
        + _preparations_seconds(act, methods)


def _whole_run_seconds(act: Active, methods: Sequence[str], n_gold: int) -> float | None:
    """The estimate of running every question with gold evidence (None where it cannot be made)."""
    if not (methods and n_gold > ALL_QUESTIONS_UP_TO):
        return None
    llm = "none" if _llm_part(act) == NO_LLM_NAME else act.llm_name
    try:
        est = resources.bench_estimate(str(runs_root()), act.workspace.name, llm, tuple(methods), int(n_gold),
                                       _runs_stamp(), act.workspace.meta.n_chunks or None)
    except (EgxError, OSError):
        return None
    return float(est.total)


def preparations_sentence(act: Active, methods: Sequence[str], total: float, *, at_least: bool = False,
                          busy_factor: float = 1.0) -> str:
    """The estimate's headline when the run builds something before the methods that need it: the run's total, then
    what is built with its expected time ("" when nothing is to be built): a run's estimate that left it out was a
    third of the wall time (an audit). ``busy_factor``: on a busy machine the range's top over the quiet figure
    (:attr:`core.eval.estimate.Estimate.busy_top`), said in the headline too — audit 42 read "about 1 min 2 s in all"
    first and waited 2 min 9 s at load 4.9."""
    from core.eval.estimate import duration

    ahead = _ahead(act, methods)
    if not ahead:
        return ""
    said = "; ".join(f"{title} ({'about ' + duration(s) if s is not None else 'time not known yet'}"
                     f"{', being built on the server now' if running else ''})" for title, s, running in ahead)
    known = sum(s for _, s, _ in ahead if s is not None)
    unknown = any(s is None for _, s, _ in ahead)
    head = "at least" if at_least or unknown else "about"
    busy = (f" on a quiet machine, up to about {duration((total + known) * busy_factor)} on this busy one"
            if busy_factor > 1.0 else "")
    return (f"Estimate: {head} {duration(total + known)}{busy} in all. First the run builds "
            f"what its methods need: {said}. ")


def _ahead(act: Active, methods: Sequence[str]) -> list[tuple[str, float | None, bool]]:
    """What the run builds before its methods: ``(title, expected seconds or None, building now)``."""
    try:
        return list(runs.preparations_ahead(act.workspace, act.backends, list(methods)))
    except (EgxError, OSError):  # what cannot be read is said where it is used
        return []


def _preparations_seconds(act: Active, methods: Sequence[str]) -> float:
    """The known expected seconds of what the run builds before its methods (:func:`preparations_sentence`)."""
    return sum(s for _, s, _ in _ahead(act, methods) if s is not None)


def _runs_stamp() -> float:
    """The newest run's results time: the estimate is read again when a run has finished."""
    return max((_mtime(runs_root() / name) for name in _runs()[:1]), default=0.0)


def few_passages(act: Active) -> None:
    """Above both tabs: the warning for a workspace of a few passages, whose every top 5 holds most of it, so a run's
    recall ties near 100 (:func:`components.compare_view.few_passages_note`); nothing otherwise."""
    try:
        n = act.graph.n_chunks  # the page's graph: a store's view counts without reading the graph
    except (EgxError, OSError):  # a workspace that cannot be read is said elsewhere
        return
    cv.few_passages_warning(n)


def run_panel(act: Active) -> None:
    """The Run tab: the choices, what the run leaves out, the button, a refusal's choices, and the running or
    finished job."""
    ws = act.workspace
    # first on the tab: under the estimate, 46 lines down, an audit's second user never saw it
    beside = others_here(ws.name, jobs_view.my_jobs()[1])
    if beside:
        st.info(md_escape(beside), icon=":material/group:")
    # the failure diagnosis of every record reads the whole graph: on a graph store too big for the app, the
    # run tab says why not (egx bench runs there) and the saved runs stay readable
    fits = workspaces.whole_graph_if_it_fits(ws, "the failure diagnosis of every question") is not None
    questions = workspace_questions(act) if fits else []
    n_gold = sum(1 for q in questions if q.gold_chunks)
    if not n_gold and fits and questions:  # a file was uploaded, and none of its gold titles matched a passage
        eg = ", ".join(f"'{md_escape(t)}'" for t in list(dict.fromkeys(t for q in questions for t in q.unmatched))[:3])
        st.warning(f"None of the {len(questions)} question{'' if len(questions) == 1 else 's'} of this workspace's questions file names a gold "
                   f"passage this workspace has (its gold titles, e.g. {eg}, match no passage title), so there is "
                   "nothing to benchmark. Check the titles against the Data page's passages (case and punctuation "
                   "count) and upload the file again.", icon=":material/report:")
    elif not n_gold and fits:
        st.info("This workspace has no questions with gold evidence. Pick the `musique` or `demo` sample, or "
                "upload a questions file on the Data page.")
    elif gold_coverage(questions).note():  # a misspelt gold title stays in, counted as missed: say so before a run
        st.warning(md_escape(gold_coverage(questions).note()), icon=":material/report:")
    mkey = S.bind(S.BENCH_METHODS, method_names(), scope="bench")
    st.session_state[mkey] = [m for m in st.session_state[mkey] if m in METHODS]
    cm = st.container()
    methods = S.keep(S.BENCH_METHODS, cm.multiselect(
        "Methods", method_names(), key=mkey,
        help="Registry names, as on the command line and in the run's tables and downloads; Compare and the lessons "
             "call them " + bench_view.method_names_help() + "."))
    cm.caption(f"{len(methods)} of {len(method_names())} methods: " + (", ".join(
        m if cv.table_name(m) == m else f"{m} ({cv.table_name(m)})" for m in methods) if methods else "none"))
    # the Budget beside the count and the name, wide enough for its longest preset: beside the Methods, a quarter of
    # the row, it read "own — each method's own pape" at 1440 px
    c1, cb, c2 = st.columns([1, 2, 1.5])
    start, _ = budget_view.default_budget(act.llm_name, act.workspace.name)
    budget = budget_view.budget_select(cb, scope="bench", key=S.BENCH_BUDGET, custom_key=S.BENCH_BUDGET_CUSTOM,
                                       default=start)
    # the estimate with every method (the box's first choice), not the current pick: a default that moved with the
    # Methods box overrode a count typed in the same rerun
    default_n = default_question_count(n_gold, _whole_run_seconds(act, method_names(), n_gold))
    S.follow_default(S.BENCH_LIMIT, default_n)  # another workspace, another default
    lkey = S.bind(S.BENCH_LIMIT, default_n, scope="bench")
    if int(st.session_state[lkey]) > max(n_gold, 1):  # a count kept from a workspace with more questions
        S.set_value(S.BENCH_LIMIT, max(n_gold, 1))
    limit = int(S.keep(S.BENCH_LIMIT, c1.number_input(
        f"Questions (of {n_gold})", 1, max(n_gold, 1), key=lkey,
        help=f"The first N of the workspace's {n_gold} questions with gold evidence. {QUESTION_COUNT_RULE}")))
    # a run name belongs to its workspace: another workspace starts on its own default (a run of the demo is no
    # place for MuSiQue's results), and the default follows the backends until the user types a name
    S.follow_workspace(ws.name, S.BENCH_OUT)
    default_name, stale = past_stale(act, _default_run(act, budget.name if budget else "own"))
    S.follow_default(S.BENCH_OUT, default_name)
    moved = st.session_state.get(S.BENCH_MOVED)
    if moved and moved.get("apply"):  # Run on an out-of-date run: the box takes the new run's name (_moved_on)
        S.set_value(S.BENCH_OUT, moved["fresh"])
        moved["apply"] = False
    okey = S.bind(S.BENCH_OUT, default_name, scope="bench")
    run_name = S.keep(S.BENCH_OUT, c2.text_input(
        "Run name", key=okey, max_chars=MAX_NAME_CHARS,
        help="The name the run is saved under (results, summary, report and charts), to load it later on the "
             f"“Load a report” tab; {NAME_RULE}. A run with finished pairs resumes."))
    if stale and run_name == default_name:
        # the new name in words: a long one read as the old in a half-width box, its "-2" cut off (an audit)
        st.caption(f"A new run, “{md_escape(run_name)}”: “{md_escape(stale[0])}” is out of date "
                   f"({md_escape(stale[1])}), so this one is saved beside it, the old one kept.")
    llm_words = (f"no LLM (the {act.llm_name} LLM holds no run of this workspace)"
                 if _llm_part(act) == NO_LLM_NAME else f"{act.llm_name} LLM")
    st.caption(f"Backends: {act.embedder_name} embedder, {llm_words}, {act.reranker_name} reranker "
               f"(the sidebar's). {ANSWER_METRICS_NOTE}")
    # the recorded LLM on questions it holds no run of: said before the run, not after it
    recording_gap_warning(act.llm_name, ws.name, [q.question for q in questions if q.gold_chunks][:limit],
                          methods or [], budget.name if budget else "own")
    jkey = S.bind(S.BENCH_JUDGE, "none", scope="bench")
    judge_name = S.keep(S.BENCH_JUDGE, st.selectbox(
        "Judge LLM", JUDGE_CHOICES, key=jkey, format_func=lambda n: JUDGE_LABELS.get(n, n),
        help="The LLM that judges the answers for ACC_L (BubbleRAG), Emp.S (SG-RAG) and FastInsight's pairwise "
             "win rate. The papers use a judge separate from the model that answers; `same` lets the sidebar's "
             "LLM judge its own answers and labels the run self-judged. None: those metrics are not computed."))
    keep_trained = bool(S.keep(S.BENCH_KEEP_TRAINED, st.checkbox(
        "Keep questions a model was trained on", key=S.bind(S.BENCH_KEEP_TRAINED, False, scope="bench"),
        help="A method's trained model (ReG's retriever) scores inflated on the questions it was trained or "
             "validated on, so they are left out by default. Kept, each such row is flagged “trained on”.")))
    if methods and questions:
        try:  # which questions the benchmarked methods' models learned from: said before the button
            left = questions_left_out(ws, questions, methods, act.backends,
                                      keep_trained=keep_trained)
        except EgxError as exc:
            st.error(md_escape(error_text(exc)))
            st.stop()
        st_note = trained_on_note(left, methods, [q.id for q in questions if q.gold_chunks][:limit])
        if st_note:
            (st.warning if left.keep_trained else st.info)(st_note, icon=":material/school:")
        eligible = sum(1 for q in questions if q.gold_chunks and q.id not in left.excluded)
        estimate_caption(act, methods, min(limit, eligible), judge_name)
    running = _running_bench()
    clicked = st.button("Run benchmark", key=S.BENCH_RUN, type="primary",
                        disabled=bool(running) or not (methods and n_gold and run_name.strip() and budget),
                        icon=":material/play_arrow:",
                        help=f"{RUNNING_HELP} ({running.title})." if running else None)
    if running:
        st.caption(f":material/hourglass_top: {md_escape(RUNNING_HELP)}: **{md_escape(running.title)}** (its progress "
                   "is below; Cancel stops it).")
    asked = st.session_state.pop(S.BENCH_LAUNCH, None)  # "Start a new run" / "Resume anyway" below
    if clicked or asked:
        name = str(asked["name"]) if asked else run_name.strip()
        try:
            out_dir = child_path(runs_root(), name, kind="run name")  # a name, never a path
        except EgxError as exc:
            st.error(md_escape(error_text(exc)))
        else:
            backends = act.backends
            try:
                judge = choose_judge(judge_name, act.llm, build=resources.llm)
                # each method under the budget (a method without a budget hook is refused here, before the run)
                budgeted = budget_run(methods, budget, {"questions_file": str(ws.questions_path)})
                # never a silent resume: a run of an older workspace or model is refused here, with what changed
                check = check_run(ws, questions, methods, backends, out_dir=out_dir, judge=judge,
                                  keep_trained=keep_trained, **budgeted)
            except EgxError as exc:
                st.error(md_escape(error_text(exc)))
                st.stop()
            unverified = bool(asked and asked.get("resume_unverified")) and check.state == "unverified"
            st.session_state.pop(S.BENCH_REFUSED, None)
            if clicked:
                st.session_state.pop(S.BENCH_MOVED, None)
            if clicked and not asked and check.state == "stale":
                _moved_on(out_dir.name, check.changed)  # Run meant run: a new run, the out-of-date one kept
            elif not (check.ok or unverified):
                st.session_state[S.BENCH_REFUSED] = {"name": out_dir.name, "state": check.state, "text": check.app}
            else:
                choice = Choice(methods, budget, limit, judge_name, keep_trained, questions)
                _launch(act, choice, out_dir, backends, judge, budgeted, resume_unverified=unverified)
    refused = st.session_state.get(S.BENCH_REFUSED)
    if refused and refused["name"] == run_name.strip():
        _refusal(refused)
    moved = st.session_state.get(S.BENCH_MOVED)
    if moved and moved["fresh"] == run_name.strip():
        why = str(moved["why"])
        st.info(f"The run “{md_escape(moved['old'])}” is out of date" + (f" — {md_escape(why)}" if why else "")
                + f". This run started as a new one, “{md_escape(moved['fresh'])}”; the old run stays as it is, to "
                  "open on the “Load a report” tab.", icon=":material/history:")
    bench_key = st.session_state.get(S.BENCH_JOB)
    bench_job = jobs_view.jobs().get(bench_key) if bench_key else None
    if bench_job is not None and not bench_job.finished:
        jobs_view.watch(bench_job)
    elif bench_job is not None:
        st.session_state.pop(S.BENCH_JOB, None)
        try:
            rep = bench_job.result()
        except Cancelled:
            st.warning(f"{md_escape(bench_job.title)} was cancelled. The question × method pairs finished before "
                       "are kept in the run folder: run it again under the same name to resume.")
        except EgxError as exc:
            st.error(md_escape(error_text(exc)))
        else:
            for w in rep.warnings:
                st.warning(md_escape(error_text(w)))
            done = (f"{rep.ran} runs now, {rep.skipped} already done → run “{md_escape(rep.out_dir.name)}”: "
                    f"[its report ↓](#{REPORT_ANCHOR})")
            # a resume is only ever of the same workspace content and models (core.eval.identity)
            (st.success if rep.ran else st.info)(done if rep.ran else f"Nothing new to run: {done}, computed on this "
                                                 "same workspace content and models.")
            st.session_state[S.BENCH_LOADED] = rep.out_dir.name
            st.session_state[S.BENCH_SCROLL] = True  # the report starts below the fold: the page scrolls to it
    elif bench_key:  # the server forgot the finished job (it keeps the newest few): its report is in its folder
        st.session_state.pop(S.BENCH_JOB, None)
        name = str(bench_key).split(":", 1)[-1]
        if (runs_root() / name / SUMMARY).is_file():
            st.session_state[S.BENCH_LOADED] = name


def load_panel(act: Active | None = None) -> None:
    """The Load tab: a finished run picked by name, the sidebar's workspace's runs first (an audit's picker opened on
    another workspace's newest run)."""
    runs = _runs()
    if not runs:
        st.info("No finished runs yet. Runs made on the “Run” tab appear here, under their names.")
    else:
        made_on = _workspaces_of(runs)
        here = act.workspace.name if act is not None else ""
        runs = sorted(runs, key=lambda r: made_on.get(r) != here)  # stable: newest first within each part
        pick = st.selectbox("Run", runs, key=S.BENCH_LOAD_PICK,
                            format_func=lambda r: f"{r} · {made_on[r]}" if made_on.get(r) else r,
                            help="The finished runs, newest first — this workspace's before the others' — each with "
                                 "the workspace it was made on (one still running or unfinished says so under it).")
        # said under the picker, not in its labels: a label that changes when the run ends would make Streamlit take
        # the picker for a new one and drop the choice
        mark = STATE_MARKS.get(run_state(pick), "") if pick else ""
        if mark:
            st.caption(f":material/pending: “{md_escape(pick)}”{md_escape(mark)}: its report holds the pairs made so "
                       "far.")
        if st.button("Load", key=S.BENCH_LOAD, icon=":material/folder_open:"):
            st.session_state[S.BENCH_LOADED] = pick


def run_state(name: str) -> str:
    """"running" (a benchmark job of this server writes the run now, whichever session started it), "unfinished" (no
    report was written: the run was stopped or its server ended) or "done"."""
    job = jobs_view.jobs().get(f"bench:{name}")
    if job is not None and not job.finished:
        return "running"
    return "done" if (runs_root() / name / SUMMARY).is_file() else "unfinished"


#: How the Load tab's picker marks a run that is not finished.
STATE_MARKS = {"running": " · still running", "unfinished": " · unfinished"}


def _has_pairs(name: str) -> bool:
    """Whether run ``name``'s results file holds anything (a run cancelled before its first pair left it empty)."""
    path = runs_root() / name / RESULTS
    return path.is_file() and path.stat().st_size > 0


def unfinished_note(name: str, pairs: int) -> None:
    """Above the report of a run that is still running or stopped before its report (``pairs``: the question × method
    pairs its folder holds): its figures are of those pairs only. An audit opened a running benchmark in a new tab and
    read it as a finished run of 3–4 questions a method, with the advice to run more questions."""
    state = run_state(name)
    if state == "done":
        return
    if state == "running":
        # its own fragment, redrawn every 2 s: the progress moves (an audit's note read "12/88" until the run ended,
        # the banner above it at 87/88), and the run's end reloads the page with the finished report
        st.fragment(_still_running, run_every=2.0)(name, pairs)
        return
    if not pairs:
        return  # said by the report itself: there are no figures to qualify
    st.warning(f"**Unfinished** — this run stopped before its report was written (cancelled, or its server ended): "
               f"the figures below are of the {pairs} question × method pairs it made. Run it again under the same "
               "name to finish it: the pairs done are kept.", icon=":material/pending:")


def _still_running(name: str, pairs: int) -> None:
    job = jobs_view.jobs().get(f"bench:{name}")
    if job is None or job.finished:
        st.rerun(scope="app")  # the run ended: the whole page again, with its finished report
    progress = job.status().message  # job is set here: an ended or forgotten run reran the page above
    st.info(f"**Still running** — this run is being made now ({md_escape(progress) or 'started'}); the figures "
            f"below are of the {pairs} question × method pairs written when the page opened, not of the whole run. "
            "The finished report opens here when it ends.", icon=":material/hourglass_top:")


def _open_latest(workspace: str) -> str:
    """The newest finished run of ``workspace``, opened once per session and workspace when no report is loaded: a
    new session's Benchmark page showed only the Run form, the last run's table one "Load a report" away (an
    audit). "" when it has none (or it was opened before in this session: the person's own choice then stands)."""
    ss = st.session_state
    seen: set[str] = ss.setdefault(S.BENCH_OPENED_LATEST, set())
    if workspace in seen:
        return ""
    seen.add(workspace)
    runs = _runs()
    made_on = _workspaces_of(runs)
    # a run with no pair yet (cancelled in its first seconds) has no figures: the newest run that has some (an audit's
    # page opened a 0-pair run as the latest and its report failed)
    latest = next((r for r in runs if made_on.get(r) == workspace and _has_pairs(r)), "")
    if latest:
        ss[S.BENCH_LOADED] = latest
        state = {"running": " (still running)", "unfinished": " (unfinished)"}.get(run_state(latest), "")
        st.caption(f":material/history: The latest run of “{md_escape(workspace)}” is open below: "
                   f"“{md_escape(latest)}”{state}. “Load a report” opens another.")
    return latest


def _run_workspace(name: str) -> str:
    """The sidebar's name of the workspace a run was made on (runs record the workspace's own name,
    which is its folder name unless it was built with another ``name``)."""
    from core.index.listing import list_workspaces
    from core.index.workspace import Workspace

    infos = list_workspaces()
    if any(i.name == name for i in infos):
        return name
    for i in infos:
        if i.built:
            try:
                if Workspace.open(i.path).name == name:
                    return i.name
            except EgxError:
                continue
    return name  # gone: the sidebar says so and stays where it is


#: The Compare page runs its methods now (a result there is a method's whole run: trace, evidence graph), while a
#: run's results.jsonl keeps only rankings, answers and verdicts: a row opened there is run again, live, on the
#: workspace as it is now. An audit waited ~25 s on a button that said only "Open in comparison".
OPEN_LABEL = "Open in comparison (re-runs live)"
RERUN_NOTE = ("the methods run again there, live, on the workspace as it is now (seconds to minutes; the stored "
              "results are the rows of this table).")


def _open(summary: Mapping[str, Any], here: str, question: str, method: str = "") -> None:
    """Open ``question`` on the Compare page on the run's workspace, with the row's method compared."""
    S.hand_over(question, workspace=_run_workspace(str(summary.get("settings", {}).get("workspace") or here)),
                method=method)
    st.switch_page(page_path("pages/compare.py"))



#: The report heading's anchor, and the script that scrolls it into view once a run has finished (the run panel
#: above it is ~850 px tall, so a finished run's report began below the fold).
REPORT_ANCHOR = "bench-report"
_TO_REPORT = f"""<script>(() => {{ const go = () => {{ const h = window.parent.document.getElementById('{REPORT_ANCHOR}')
  || document.getElementById('{REPORT_ANCHOR}'); if (h) h.scrollIntoView({{block: 'start'}}); }};
  go(); setTimeout(go, 300); setTimeout(go, 900); }})();</script>"""


def _workspaces_of(runs: Sequence[str]) -> dict[str, str]:
    """Run name → the workspace its ``run.json`` records ("" when it cannot be read)."""
    from core.eval.bench_files import RUN

    out = {}
    for name in runs:
        try:
            settings = json.loads((runs_root() / name / RUN).read_text(encoding="utf-8")).get("settings") or {}
            out[name] = str(settings.get("workspace") or "")
        except (OSError, ValueError, AttributeError):
            out[name] = ""
    return out


def _runs_of(workspace: str) -> list[str]:
    """The finished runs (:func:`_runs`, newest first) made on ``workspace``."""
    return [name for name, ws in _workspaces_of(_runs()).items() if ws == workspace]


def _load(name: str) -> None:
    st.session_state[S.BENCH_LOADED] = name


def other_workspace_note(summary: Mapping[str, Any], act: Active) -> None:
    """Above a report of a run made on another workspace than the sidebar's (loaded by name on the Load tab, or a
    run of the old workspace that finished after a switch): whose figures these are, and a button that loads the
    sidebar's workspace's newest run instead (or where to make one)."""
    made_on, here = str((summary.get("settings") or {}).get("workspace") or ""), act.workspace.name
    if not made_on or made_on == here:
        return
    own = _runs_of(here)
    st.warning(f"**This report is of the workspace “{md_escape(made_on)}”**, not of “{md_escape(here)}” (the "
               "sidebar's): its questions, passages and figures are that workspace's. "
               + (f"“{md_escape(here)}” has {len(own)} run{'s' if len(own) != 1 else ''} of its own, on the "
                  "“Load a report” tab." if own else
                  f"“{md_escape(here)}” has no finished run yet: the “Run” tab makes one."),
               icon=":material/swap_horiz:")
    if own:
        st.button(f"Load “{own[0]}”, the newest run of “{here}”", key=S.BENCH_LOAD_OWN, on_click=_load,
                  args=(own[0],), icon=":material/folder_open:")


def stale_note(summary: Mapping[str, Any], act: Active) -> bool:
    """Say when the active workspace — the one the run was made on — changed since the run (documents added, a
    rebuild, another index): the report's figures are of the workspace as it was, and its rows open on the new one.
    Returns whether it did."""
    settings, ws = summary.get("settings") or {}, act.workspace
    if str(settings.get("workspace") or "") != ws.name:
        return False
    try:
        changed = report_change(settings, ws, act.graph)  # the page's graph: a store's view counts without a read
    except (EgxError, OSError):  # a workspace that cannot be read is said elsewhere; the report still shows
        return False
    if changed:
        st.warning(f"**Out of date**: the workspace “{md_escape(ws.name)}” changed since this run — "
                   f"{md_escape(changed)}. These figures are of the workspace as it was; a row opened on Compare "
                   "runs on the current one. Run again under a new name to compare before and after.",
                   icon=":material/history:")
    return bool(changed)


def report(act: Active) -> None:
    """The loaded run's report: tables with intervals, notes, charts, and the per-question table."""
    ws = act.workspace
    loaded = st.session_state.get(S.BENCH_LOADED) or _open_latest(ws.name)
    if not loaded:
        st.stop()
    try:
        loaded_dir = child_path(runs_root(), Path(str(loaded)).name, kind="run name")  # only runs under the root
        rep = resources.bench_report(str(loaded_dir), _mtime(loaded_dir))
    except EgxError as exc:
        st.error(md_escape(error_text(exc)))
        st.stop()
    summary = rep.summary
    st.divider()
    st.subheader(f"Report: {md_escape(loaded_dir.name)}", anchor=REPORT_ANCHOR)
    if st.session_state.pop(S.BENCH_SCROLL, False):  # a run just finished: its report is in view, not at y≈850
        st.html(_TO_REPORT, unsafe_allow_javascript=True)
    # a run of another workspace (loaded by name, or kept across a sidebar switch: a lecture goes back and forth and
    # opens its rows on their own workspace) says whose figures these are — an audit read a demo run's report under
    # MuSiQue's run form with nothing saying so
    other_workspace_note(summary, act)
    unfinished_note(loaded_dir.name, len(rep.records))  # still running, or stopped: figures of the pairs so far
    if not rep.records:  # nothing to show: a run cancelled before its first pair (its summary has no table to draw)
        st.info(f"“{md_escape(loaded_dir.name)}” holds no question × method pair yet: it was cancelled (or its server "
                "stopped) before the first one finished, or it has only just started. Run it again under the same "
                "name, or open another run on “Load a report”.", icon=":material/inbox:")
        return
    stale = stale_note(summary, act)  # the workspace changed since (documents added): these figures are the older one's
    # questions left out, rows trained on, few passages, gold the workspace lacks: above the figures they qualify (an
    # audit found the few-passages note 2,000 px under its "100 [100, 100]")
    for title, text in run_note_items(summary):
        if stale and title == "Few passages":  # of the workspace as it was: an audit read "Only 8 passages" under the
            title = "Few passages when this run was made"  # page's "This workspace has 9 passages"
        st.warning(f"**{md_escape(title)}**: {md_escape(text)}", icon=":material/report:")
    bench_view.metric_table(summary)  # every figure with its 95 % interval, and the question count
    node_table = node_rows(summary)
    if node_table:  # FastInsight's Table 3: every method on the same KG nodes, each figure with its count or why blank
        st.markdown("**Node level** (FastInsight §4.3.1, Table 3)")
        # the reasons are a sentence each (with the command that fills the figure): in a cell they were cut at
        # 1440 px ("`egx bench --node-l…"), so they are said in full under the table
        blanks = [(str(r["method"]), str(r.get("why blank") or "")) for r in node_table if r.get("why blank")]
        st.dataframe(pd.DataFrame(node_table).drop(columns=["why blank"], errors="ignore"), hide_index=True,
                     width="content", placeholder="")
        for method, why in blanks:
            st.caption(f"Why blank — **{md_escape(method)}**: {md_escape(why)}")
        st.caption(NODE_METRICS_NOTE)
    budget_view.run_caption(summary)  # the run's budget, and what its context columns say
    replay_notes = grouped_replay_notes(summary)  # records of the recorded LLM that are not the recorded runs
    if replay_notes and unrecorded_workspace("recorded", act.workspace.name):
        # a workspace the recordings hold nothing of: one notice, not "Not a recorded run" per group of methods
        st.info(unrecorded_workspace_text(md_escape(act.workspace.name), recorded_workspaces()),
                icon=":material/info:")
        replay_notes = []
    for methods, note in replay_notes:
        st.warning(f"**{md_escape(', '.join(methods))}**: {md_escape(note)}", icon=":material/report:")
    for m, s in summary["methods"].items():  # e.g. reg without a trained retriever is not ReG's retriever
        for text, n in s.get("notices", {}).items():  # saved in the command line's words: shown in the app's
            st.warning(f"**{md_escape(m)}** ({n} of {s['n']} questions): {md_escape(REG_APP_WORDING.get(text, text))}",
                       icon=":material/warning:")
    st.markdown("**The papers' answer metrics** — answer-set Precision / Recall / F1 / Hit / Hit@1 (SG-RAG, ReG), "
                "Macro-/Micro-F1 (ReG), ACC_L (BubbleRAG) and Emp.S (SG-RAG, 0–3) by the LLM judge")
    bench_view.paper_table(summary, rep.records)
    st.caption(ANSWER_METRICS_NOTE)  # which answers each table scores: an extractive run has paper F1, no EM / F1
    judge = summary.get("judge", {})
    if "not_computed" in judge:
        why = str(judge["not_computed"])
        st.caption(f"ACC_L, Emp.S and FastInsight's pairwise win rate: {md_escape(JUDGE_APP_WORDING.get(why, why))}.")
    else:
        st.caption(f"Judge: {md_escape(judge.get('label') or judge.get('model', '?'))}"
                   + ("; its prompts are in the run's summary.json." if judge.get("prompts") else "."))
        if judge.get("self_judged"):
            st.warning("**Self-judged**: the LLM that wrote these answers also judged them. The papers use a separate "
                       "judge: pick one under *Judge LLM* (e.g. local-small) and run again under a new name.",
                       icon=":material/gavel:")
    c1, c2 = st.columns(2)
    named = bench_view.labelled(summary)  # the charts name each method as the papers do, with its registry name
    c1.plotly_chart(no_modebar(recall_figure(named)), width="stretch", key=S.BENCH_RECALL_CHART)
    c2.plotly_chart(no_modebar(latency_recall_figure(named)), width="stretch", key=S.BENCH_LATENCY_CHART)
    lost_fig = failure_figure(named)
    if lost_fig.data:
        st.plotly_chart(no_modebar(lost_fig), width="stretch", key=S.BENCH_FAILURE_CHART)
    else:  # an empty chart under its title read as a chart that failed to draw
        st.caption(":material/check_circle: **Where the gold evidence was lost**: nowhere — no question lost a gold "
                   f"passage before the answer (within the top {int(summary.get('settings', {}).get('cut') or 5)}); "
                   + md_escape(lost_fig.layout.title.text.split("<sup>", 1)[-1].removesuffix("</sup>")) + ".")
    bench_view.differences_panel(summary)  # pick two methods: which of their differences are real

    # --------------------------------------------------------------------------- per-question table
    st.subheader("Per question")
    records = list(rep.records)
    run_ws = str(summary.get("settings", {}).get("workspace") or "")
    # a record carries its passage titles; an older one's are looked up in the active workspace when the run was made
    # on it (the graph is opened on the first lookup only), else its chunk ids are shown
    all_rows = benchmark_rows(records, title_of=cv.chunk_title(lambda: act.graph) if run_ws in ("", ws.name) else None)
    present = {r["verdict key"] for r in all_rows}
    verdicts = [v for v in VERDICT_KEYS if v in present] + sorted(present - set(VERDICT_KEYS))
    # the toggles' labels are short, their full words in the help: at 1440 px "Retrieval losses only" read
    # "Retrieval los…" (an audit)
    f1, f2, f3, f4 = st.columns([5, 5, 3, 3], vertical_alignment="bottom")
    fkeys = {S.BENCH_FILTER_METHOD: list(summary["methods"]), S.BENCH_FILTER_STAGE: verdicts}
    for k, opts in fkeys.items():  # the filters stick; values another report lacks are dropped
        wk = S.bind(k, [])
        st.session_state[wk] = [v for v in st.session_state[wk] if v in opts]
    fm = S.keep(S.BENCH_FILTER_METHOD, f1.multiselect("Method", fkeys[S.BENCH_FILTER_METHOD],
                                                      key=S.widget_key(S.BENCH_FILTER_METHOD)))
    fs = S.keep(S.BENCH_FILTER_STAGE, f2.multiselect("Verdict", verdicts, format_func=bucket_label,
                                                     key=S.widget_key(S.BENCH_FILTER_STAGE)))
    only_failures = S.keep(S.BENCH_FAILURES_ONLY, f3.toggle(
        "Failures only", key=S.bind(S.BENCH_FAILURES_ONLY, True),
        help="Failures only: the rows whose verdict is not ok (a partly right answer is a failure: EM is the "
             "metric). Off: every row."))
    only_losses = S.keep(S.BENCH_LOSSES_ONLY, f4.toggle(
        "Losses only", key=S.bind(S.BENCH_LOSSES_ONLY, False),
        help="Retrieval losses only: the failures that lost gold evidence before the answer. Leaves out the rows "
             "that retrieved every "
             "gold passage and missed at the answer (“retrieved, answer wrong / partly right”; without an LLM the "
             "answer is an extracted sentence, never an exact answer)."))
    matching = [r for r in all_rows if (not fm or r["method"] in fm) and (not fs or r["verdict key"] in fs)]
    failed = failures(matching)
    split = failure_split(matching)  # how many lost the evidence, how many missed only at the answer
    scope = "rows" if not (fm or fs) else "rows matching the filters"
    if only_losses:
        shown: list[Mapping[str, Any]] = retrieval_losses(matching)
        head = f"Showing {len(shown)} retrieval losses of {len(matching)} {scope} ({split or 'none failed'})."
    elif only_failures:
        shown = failed
        head = (f"Showing {len(failed)} failures of {len(matching)} {scope}" + (f" ({split})." if split else "")
                + (" — none failed." if matching and not failed else "" if split else "."))
    else:
        shown = list(matching)
        head = f"Showing all {len(matching)} {scope} ({len(failed)} failures){': ' + split if split else ''}."
    st.caption(head + held_note(failed) + " A “why” cut short shows whole when the pointer rests on it. Select a row "
               f"to open its question on the Compare-methods page: {RERUN_NOTE}")
    df = pd.DataFrame([{k: flat(v) for k, v in r.items()} for r in shown])
    event = st.dataframe(df, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                         key=S.BENCH_TABLE, placeholder="", column_config=PER_QUESTION_COLUMNS,
                         column_order=[*[c for c in PER_QUESTION_FIRST if c in df.columns],
                                       *[c for c in df.columns if c not in (*PER_QUESTION_FIRST, "verdict key")]])
    what = "losses" if only_losses else "failures" if only_failures else "questions"
    cv.triage_downloads(shown, stem=f"{loaded_dir.name}-{what}",
                        key=S.BENCH_DOWNLOAD, what=f"these {len(shown)} rows", run=loaded_dir.name,
                        workspace=run_ws, failures_only=bool(only_failures or only_losses),
                        budget=summary.get("settings", {}).get("budget") or "own")
    results_download(loaded_dir, len(all_rows))


    sel = getattr(getattr(event, "selection", None), "rows", None) or []
    if sel and len(df):
        row = df.iloc[int(sel[0])]
        _open(summary, ws.name, str(row["question"]), str(row["method"]))
    qs_in_table = list(dict.fromkeys(df["question"])) if len(df) else []
    if qs_in_table:
        # the button under the picker, each whole: beside it, a fifth of the row, its label read "Open in com…" at
        # 1440 px, and a narrower picker cuts a long question
        # its list is the table's questions: said, since a filter or "Failures only" leaves some out (an audit
        # counted 9 of its 11 questions there)
        pick = st.selectbox("Or pick a question of the table above", qs_in_table, key=S.BENCH_OPEN_PICK,
                            help=f"The {len(qs_in_table)} questions the table shows: its filters and toggles pick them")
        question_detail([r for r in shown if r["question"] == pick])
        if st.button(OPEN_LABEL, key=S.BENCH_OPEN, icon=":material/compare:", help=RERUN_NOTE):
            _open(summary, ws.name, pick)
