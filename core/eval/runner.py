"""The benchmark runner behind ``egx bench`` and the Benchmark page.

Every registered method (``core.methods.registry.METHODS``) is run on every question, in one
process, with the same backends. For each question × method one JSON line is appended to
``results.jsonl`` — retrieved chunk ids, R@{2,5,10}, AR@{2,5}, nDCG@10, TR / MissTR of the top 10,
EM / token F1 when an LLM answered, seconds per trace stage, LLM tokens, the fallbacks taken and the
failure :class:`~core.eval.diagnosis.Diagnosis`. Then ``summary.json``, ``report.md`` and
``charts.html`` (standalone plotly) are written from the JSONL (see :mod:`core.eval.report`).

* **Resumable**: a rerun into the same folder skips question × method pairs already in the JSONL;
  each line is written with one ``write`` + ``flush`` + ``fsync``, so an interruption loses at most
  the line in flight, and a torn last line is dropped on resume. ``run.json`` pins the settings
  (workspace, backends, cut, seed); resuming with different settings is refused.
* **Deterministic**: questions are taken in file order, or shuffled with ``seed`` when one is given,
  then cut to ``limit``; the Python, numpy (and torch, when loaded) generators are seeded with
  ``seed`` before each method call.
* **Progress**: ``progress(done, total, message)`` is called after every pair (the CLI draws a tqdm
  bar, the page a ``st.progress``).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core.errors import Cancelled, ConfigError, EgxError, QueryError
from core.eval.diagnosis import Diagnosis, Gold, diagnose
from core.eval.metrics import (
    all_recall_at_k,
    llm_tokens,
    ndcg_at_k,
    recall_at_k,
    stage_latency,
    tr_decomposition,
)
from core.eval.paper_metrics import answer_set_scores, empowerment_score, judge_accuracy, pairwise_preference
from core.eval.report import CHARTS, PAIRWISE, REPORT, RESULTS, SUMMARY
from core.fsio import atomic_write_text, path_lock
from core.methods.run import run_method
from core.trace import to_jsonable

if TYPE_CHECKING:
    from core.eval.datasets import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends, MethodResult

RUN = "run.json"
RECALL_KS = (2, 5, 10)
ALL_RECALL_KS = (2, 5)
NDCG_K = 10
TR_K = 10

Progress = Callable[[int, int, str], None]


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


# ------------------------------------------------------------------------------------ selection
def select_questions(questions: Sequence[Question], *, limit: int | None = None, seed: int | None = None,
                     only_gold: bool = True) -> list[Question]:
    """Questions to run: those with gold passages in this workspace (``only_gold``), in file
    order or shuffled with ``seed``, cut to ``limit``.

    Raises
    ------
    ConfigError
        When ``limit`` is below 1 (``--limit -1`` would silently drop the last question).
    """
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ConfigError(f"limit = {limit!r} is out of range; use a positive number of questions "
                          "(or no limit for all of them).")
    qs = [q for q in questions if q.gold_chunks or not only_gold]
    if seed is not None:
        random.Random(seed).shuffle(qs)
    return qs[:limit] if limit is not None else qs


def check_questions(questions: Sequence[Question], workspace_name: str = "") -> list[str]:
    """Warnings for the questions a benchmark cannot run (every one is either run or reported).

    Raises
    ------
    ConfigError
        When two questions share an id (results are keyed by id: one would silently replace the
        other), or when none has gold evidence in this workspace.
    """
    seen: dict[str, int] = {}
    for i, q in enumerate(questions, start=1):
        if q.id in seen:
            raise ConfigError(f"Question id {q.id!r} is used twice (questions {seen[q.id]} and {i}); results are "
                              "kept per question id, so one would silently replace the other. Give every question "
                              "a unique id.")
        seen[q.id] = i
    no_gold = [q for q in questions if not q.gold_chunks]
    if questions and len(no_gold) == len(questions):
        eg = next((u for q in no_gold for u in q.unmatched), "")
        where = f" {workspace_name!r}" if workspace_name else ""
        raise ConfigError(f"None of the {len(questions)} questions has gold evidence in workspace{where}: their gold "
                          "passages match no chunk" + (f" (e.g. {eg!r})" if eg else "") + ". Check that the "
                          "questions belong to this workspace's corpus.")
    out = []
    if no_gold:
        ids = ", ".join(repr(q.id) for q in no_gold[:5]) + (" ..." if len(no_gold) > 5 else "")
        out.append(f"{len(no_gold)} of {len(questions)} questions are left out: their gold passages match no chunk "
                   f"of this workspace ({ids}).")
    return out


# ------------------------------------------------------------------------------------ one pair
def retrieval_metrics(ranked: Sequence[str], gold: Iterable[str]) -> dict[str, float]:
    """R@{2,5,10}, AR@{2,5} and nDCG@10 of one ranking (empty dict without gold)."""
    g = set(gold)
    if not g:
        return {}
    out = {f"R@{k}": recall_at_k(ranked, g, k) for k in RECALL_KS}
    out.update({f"AR@{k}": all_recall_at_k(ranked, g, k) for k in ALL_RECALL_KS})
    out[f"nDCG@{NDCG_K}"] = ndcg_at_k(ranked, g, NDCG_K)
    return out


def topological_metrics(workspace: Workspace, ranked: Sequence[str], gold: Iterable[str], *,
                        result: object | None = None) -> dict[str, float]:
    """TR and MissTR of the top 10 (FastInsight §4.3.2) on the graph the method searched; empty
    when there is no such graph.

    A FastInsight run that searched KG nodes (``result.searched == "kg_nodes"``) is measured on the
    KG node graph: ``N_ret`` is its top 10 nodes and the oracle the paper's gold nodes, every node
    linked to a gold passage (§4.2.2). Every other run is measured on the workspace's passage graph
    (passages sharing an entity, or the corpus graph) with the top 10 passages of ``ranked``.
    """
    from core.graph.passage_graph import passage_graph
    from core.methods.fastinsight.node_graph import KGNodeGraph
    from core.methods.fastinsight.pipeline import FastInsightRun

    g = list(gold)
    if not g:
        return {}
    if isinstance(result, FastInsightRun) and result.searched == "kg_nodes":
        ng = result.search_graph(workspace)
        assert isinstance(ng, KGNodeGraph)
        node_ret = [ng.index_of(n) for n in result.node_ranking[:TR_K]]
        node_orc = ng.gold_nodes(g)
        if not node_orc.size:
            return {}
        dec = tr_decomposition(ng, node_ret, node_orc)
        return {"TR": dec.tr, "MissTR": dec.miss_tr}
    try:  # FastInsight on passages: the passage graph with its own hub cap
        pg = result.search_graph(workspace) if isinstance(result, FastInsightRun) else passage_graph(workspace.graph)
    except EgxError:
        return {}
    idx = {c: i for i, c in enumerate(pg.chunk_ids)}
    ret = [idx[c] for c in list(ranked)[:TR_K] if c in idx]
    orc = [idx[c] for c in g if c in idx]
    if not orc:
        return {}
    dec = tr_decomposition(pg, ret, orc)
    return {"TR": dec.tr, "MissTR": dec.miss_tr}


def evaluate_result(result: MethodResult, workspace: Workspace, gold: Gold, *, cut: int = 5,
                    question: str = "", judge: Any = None) -> tuple[dict[str, Any], Diagnosis]:
    """The JSON record (metrics, latency, tokens, diagnosis) of one method result.

    With gold answers, ``paper`` holds the papers' answer-set scores (:mod:`core.eval.paper_metrics`);
    with a ``judge`` LLM that is available, ``judge`` holds ACC_L and Emp.S and the judge model."""
    from core.eval.diagnosis import judge_answer
    from core.methods.answering import method_notices

    ranked = [c.chunk_id for c in result.ranked_chunks]
    diag = diagnose(result, workspace, gold, cut=cut)
    j = judge_answer(result, gold)
    tokens = llm_tokens(result.trace)
    rec: dict[str, Any] = {
        "question_id": gold.question_id, "method": result.method, "question": question or result.query,
        "gold": list(gold.chunk_ids), "answers": list(gold.answers),
        "ranked": ranked, "scores": [round(float(c.score), 6) for c in result.ranked_chunks],
        "metrics": {**retrieval_metrics(ranked, gold.chunk_ids),
                    **topological_metrics(workspace, ranked, gold.chunk_ids, result=result)},
        "answer": result.answer, "answer_judged": j.judged,
        "em": j.em if j.judged else None, "f1": round(j.f1, 4) if j.judged else None,
        "seconds": round(result.trace.seconds, 6),
        "stages": {k: round(v, 6) for k, v in stage_latency(result.trace).items()},
        "tokens": tokens,
        "fallbacks": [f"{s.stage}: {s.fallback}" for s in result.trace.steps if s.fallback],
        "notices": list(method_notices(result)),
        "diagnosis": diag.to_dict(), "error": None,
    }
    if result.trace.replay:  # the recorded LLM: whether this record is the recorded run (core.replay)
        rec["replay"] = result.trace.replay
    if gold.answers:
        sc = answer_set_scores(result.answer, gold.answers)
        rec["paper"] = {"precision": sc.precision, "recall": sc.recall, "f1": sc.f1, "hit": sc.hit, "hit1": sc.hit1,
                        "matched": sc.matched, "predicted": sc.predicted, "gold": sc.gold}
        if judge is not None and getattr(judge, "available", False):
            from core.backends.llm import question_scope

            q = question or result.query
            with question_scope(judge):
                acc = judge_accuracy(q, result.answer, gold.answers, judge)
                emp = empowerment_score(q, result.answer, judge)
            rec["judge"] = {"model": judge.model_id, "ACC_L": acc.value, "Emp.S": emp.value,
                            "why": "; ".join(w for w in (acc.why, emp.why) if w), "tokens": acc.tokens + emp.tokens}
    return to_jsonable(rec), diag


def error_record(method: str, q: Question, gold: Gold, exc: Exception) -> dict[str, Any]:
    """The record of a pair whose method raised an :class:`EgxError` (counted as retrieving nothing)."""
    return {"question_id": q.id, "method": method, "question": q.question, "gold": list(gold.chunk_ids),
            "answers": list(gold.answers), "ranked": [], "scores": [],
            "metrics": retrieval_metrics([], gold.chunk_ids), "answer": "", "answer_judged": False, "em": None,
            "f1": None, "seconds": 0.0, "stages": {}, "tokens": {"prompt": 0, "completion": 0, "total": 0},
            "fallbacks": [], "diagnosis": None, "error": f"{type(exc).__name__}: {exc}"}


def run_pair(workspace: Workspace, q: Question, method: str, backends: Backends, *, config: object | None = None,
             seed: int = 0, cut: int = 5, judge: bool = True,
             trace: bool = False) -> tuple[dict[str, Any], str | None]:
    """One question × method of a benchmark: its JSON record (an :func:`error_record` when the method
    raised an :class:`EgxError`) and, with ``trace``, the trace as JSON. What every runner does per
    pair, in this process or on a Ray worker (:meth:`core.scale.RayRunner.run_pairs`).

    Raises
    ------
    Cancelled
        A stopped run is not this question's failure: nothing is recorded for it.
    """
    gold = Gold.from_question(q)
    try:
        if not q.question.strip():  # recorded as failed, never retried or fatal on resume
            raise QueryError(f"Question {q.id!r} is empty; there is nothing to retrieve evidence for.")
        result = run_method(method, q.question, workspace, backends, config=config, seed=seed)
        rec, _ = evaluate_result(result, workspace, gold, question=q.question, cut=cut,
                                 judge=backends.llm if judge else None)
        return rec, (result.trace.to_json() if trace else None)
    except Cancelled:
        raise
    except EgxError as exc:
        return error_record(method, q, gold, exc), None


class PairRunner(Protocol):
    """Runs a benchmark's pending question × method pairs elsewhere (``egx bench --ray``:
    :class:`core.scale.RayRunner`) and yields each ``(question, method, record, trace JSON or None)``
    as it finishes, in any order; ``None`` wherever one is accepted means this process, in order."""

    def run_pairs(self, workspace: Workspace, pairs: Sequence[tuple[Question, str]], backends: Backends, *,
                  configs: dict[str, object], seed: int, cut: int, judge: bool,
                  traces: bool) -> Iterator[tuple[Question, str, dict[str, Any], str | None]]: ...


# ------------------------------------------------------------------------------------ JSONL
def read_records(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Valid JSONL records and the number of torn / invalid lines dropped."""
    if not path.exists():
        return [], 0
    good, bad = [], 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            bad += 1
            continue
        if isinstance(rec, dict) and "question_id" in rec and "method" in rec:
            good.append(rec)
        else:
            bad += 1
    return good, bad


def _append(fh: Any, rec: dict[str, Any]) -> None:
    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    fh.flush()
    os.fsync(fh.fileno())


# ------------------------------------------------------------------------------------ runner
def run_benchmark(workspace: Workspace, questions: Sequence[Question], methods: Sequence[str], backends: Backends,
                  *, out_dir: str | Path, limit: int | None = None, seed: int | None = None, cut: int = 5,
                  configs: dict[str, object] | None = None, progress: Progress | None = None,
                  meta: dict[str, Any] | None = None, save_traces: bool = False,
                  write_outputs: bool = True, judge: bool = True, runner: PairRunner | None = None) -> BenchReport:
    """Run ``methods`` on ``questions`` and write the per-question JSONL, summary, report and charts.

    Parameters
    ----------
    workspace
        An opened workspace, indexed with ``backends.embedder``.
    questions
        Questions with gold chunk ids (:func:`core.eval.datasets.load_questions`).
    methods
        Registered method names (unknown names raise before anything runs).
    backends
        Embedder, LLM and reranker (the reranker goes to methods that declare ``needs_reranker``, and to every method when answers are extractive).
    out_dir
        Output folder; existing ``results.jsonl`` there is resumed.
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
        With an available ``backends.llm``: the papers' LLM-judged metrics (ACC_L, Emp.S per answer; the
        pairwise win rate of FastInsight against every other method, in ``pairwise.jsonl``). Without an
        LLM they are reported as not computed.
    runner
        Runs the pending pairs elsewhere (:class:`PairRunner`; ``egx bench --ray``): each line is
        written here as its pair finishes, under the same lock, so resume works the same. The records
        equal this process's apart from timings; the JSONL's line order is the finishing order.

    Returns
    -------
    BenchReport

    Raises
    ------
    UnknownNameError
        For an unregistered method.
    ConfigError
        When ``out_dir`` holds a run with other settings, is a file, or another run is writing to it
        (a lock: two runs would append duplicate lines); when ``cut < 1`` or ``limit < 1``; when
        two questions share an id or none has gold evidence in the workspace. Questions left out
        because their gold matches no chunk are listed in ``BenchReport.warnings``. An empty
        question is recorded as a failed pair (``QueryError``), never fatal.
    """
    from core.methods.registry import get_method

    if cut < 1:
        raise ConfigError(f"cut = {cut!r} is out of range; use an integer >= 1.")
    methods = list(dict.fromkeys(methods))
    for m in methods:
        get_method(m)
    if not methods:
        raise ConfigError("No method to benchmark; name at least one registered method (e.g. dense).")
    warnings = check_questions(questions, workspace.name)
    select_questions(questions, limit=limit, seed=seed)  # checks limit before anything is written
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"The output folder {out} is a file; give a folder for results.jsonl, summary.json and "
                          "the report (it is created when missing).")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"The output folder {out} cannot be created ({exc.strerror}); pick another one.") from None
    from filelock import Timeout

    lock = path_lock(out / RESULTS)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ConfigError(f"Another benchmark run is writing to {out} right now; wait for it to finish, or use "
                          "another output folder.") from None
    try:
        return _run_locked(workspace, questions, methods, backends, out=out, limit=limit, seed=seed, cut=cut,
                           configs=configs, progress=progress, meta=meta, save_traces=save_traces,
                           write_outputs=write_outputs, warnings=warnings, judge=judge, runner=runner)
    finally:
        lock.release()


def _run_locked(workspace: Workspace, questions: Sequence[Question], methods: list[str], backends: Backends, *,
                out: Path, limit: int | None, seed: int | None, cut: int, configs: dict[str, object] | None,
                progress: Progress | None, meta: dict[str, Any] | None, save_traces: bool,
                write_outputs: bool, warnings: list[str], judge: bool = True,
                runner: PairRunner | None = None) -> BenchReport:
    from core.eval.report import summarize
    from core.eval.report import write_outputs as _write

    settings = {"workspace": workspace.name, "backends": backends.names(), "cut": cut,
                "seed": seed, **to_jsonable(meta or {})}
    if not judge:  # recorded only when off, so runs from before the switch resume unchanged
        settings["judge"] = False
    run_path = out / RUN
    if run_path.exists():
        old = _read_run(run_path)
        diff = sorted(k for k in set(old["settings"]) | set(settings) if old["settings"].get(k) != settings.get(k))
        if diff:
            raise ConfigError(f"{out} holds a benchmark run with other settings ({', '.join(diff)}: "
                              f"{[old['settings'].get(k) for k in diff]} vs {[settings.get(k) for k in diff]}); "
                              "use another --out folder or delete that one.")
    selected = select_questions(questions, limit=limit, seed=seed)
    path = out / RESULTS
    existing, torn = read_records(path)
    if torn:  # drop the line an interruption tore, so appends start on a clean line
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in existing))
    done = {(str(r["question_id"]), str(r["method"])) for r in existing}
    prev_methods = _read_run(run_path).get("methods", []) if run_path.exists() else []
    atomic_write_text(run_path, json.dumps({"settings": settings, "methods": list(dict.fromkeys([*prev_methods, *methods])),
                                        "questions": [q.id for q in selected]}, indent=1))
    total = len(selected) * len(methods)
    n_done = ran = skipped = 0
    s = 0 if seed is None else int(seed)
    cfgs = configs or {}

    def save(fh: Any, q: Question, m: str, rec: dict[str, Any], trace: str | None) -> None:
        if trace is not None:
            tdir = out / "traces" / m
            tdir.mkdir(parents=True, exist_ok=True)
            atomic_write_text(tdir / f"{_safe(q.id)}.json", trace)
        _append(fh, rec)
        done.add((q.id, m))

    with path.open("a", encoding="utf-8") as fh:
        if runner is not None:
            pending = [(q, m) for q in selected for m in methods if (q.id, m) not in done]
            skipped = n_done = total - len(pending)
            if progress and skipped:
                progress(n_done, total, f"{skipped} pairs done before")
            for q, m, rec, trace in runner.run_pairs(workspace, pending, backends, configs=cfgs, seed=s, cut=cut,
                                                     judge=judge, traces=save_traces):
                save(fh, q, m, rec, trace)
                ran += 1
                n_done += 1
                if progress:
                    progress(n_done, total, f"{m} · {q.id}")
        for q in selected if runner is None else ():
            for m in methods:
                n_done += 1
                if (q.id, m) in done:
                    skipped += 1
                    if progress:
                        progress(n_done, total, f"{m} · {q.id} (done before)")
                    continue
                rec, trace = run_pair(workspace, q, m, backends, config=cfgs.get(m), seed=s, cut=cut, judge=judge,
                                      trace=save_traces)
                save(fh, q, m, rec, trace)
                ran += 1
                if progress:
                    progress(n_done, total, f"{m} · {q.id}")
    records, _ = read_records(path)
    wanted = {(q.id, m) for q in selected for m in methods}
    mine = _dedupe([r for r in records if (str(r["question_id"]), str(r["method"])) in wanted])
    order = {q.id: i for i, q in enumerate(selected)}
    mine.sort(key=lambda r: (methods.index(r["method"]), order[str(r["question_id"])]))
    pairs = pairwise_judgements(out, mine, backends.llm if judge else None, reference=PAIRWISE_REFERENCE)
    summary = summarize(mine, methods=methods, settings=settings, pairwise=pairs)
    files = _write(out, mine, summary) if write_outputs else {}
    return BenchReport(out, tuple(mine), summary, ran, skipped, files, tuple(warnings))


#: The method whose pairwise win rate against every other method is judged (FastInsight §4.3.1, Table 4).
PAIRWISE_REFERENCE = "fastinsight"


def pairwise_judgements(out: Path, records: Sequence[dict[str, Any]], llm: Any, *,
                        reference: str = PAIRWISE_REFERENCE) -> list[dict[str, Any]]:
    """FastInsight's pairwise comparison (§4.3.1): for every question, the ``reference`` method's answer
    against each other method's, judged by ``llm`` (both orders). Appended to ``pairwise.jsonl`` one line
    per pair, so a rerun judges only what is missing; returns every line (also without an LLM: the
    lines of an earlier run)."""
    path = out / PAIRWISE
    done: list[dict[str, Any]] = []
    if path.exists():
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if isinstance(rec, dict) and {"question_id", "method", "win"} <= set(rec):
                done.append(rec)
    if llm is None or not getattr(llm, "available", False):
        return done
    have = {(str(r["question_id"]), str(r["method"])) for r in done}
    by_q: dict[str, dict[str, dict[str, Any]]] = {}
    for r in records:
        if not r.get("error"):
            by_q.setdefault(str(r["question_id"]), {})[str(r["method"])] = r
    from core.backends.llm import question_scope

    with path.open("a", encoding="utf-8") as fh:
        for qid, per in by_q.items():
            ref = per.get(reference)
            if ref is None:
                continue
            for m, r in per.items():
                if m == reference or (qid, m) in have:
                    continue
                with question_scope(llm):
                    j = pairwise_preference(str(ref.get("question", "")), str(ref.get("answer", "")),
                                            str(r.get("answer", "")), llm)
                if j.value is None:
                    continue  # a failed judgement is retried by the next run, never counted
                line = {"question_id": qid, "reference": reference, "method": m, "win": j.value,
                        "model": llm.model_id}
                _append(fh, line)
                done.append(line)
    return done


def _read_run(path: Path) -> dict[str, Any]:
    """``run.json`` of a benchmark folder (a clean error when it is damaged)."""
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ConfigError(f"{path} is damaged ({exc}); delete that benchmark folder or use another one.") from None
    if not isinstance(run, dict) or not isinstance(run.get("settings"), dict) or \
            not isinstance(run.get("methods", []), list):
        raise ConfigError(f"{path} is not a run.json written by `egx bench`; delete that benchmark folder or use "
                          "another one.")
    return run


def _dedupe(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        seen.setdefault((str(r["question_id"]), str(r["method"])), r)
    return list(seen.values())


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)[:120] or "q"


def load_report(out_dir: str | Path) -> BenchReport:
    """Reload a finished (or partial) benchmark folder: records from the JSONL, summary recomputed."""
    from core.eval.report import summarize

    out = Path(out_dir)
    path = out / RESULTS
    if not path.exists():
        from core.errors import InputFormatError

        raise InputFormatError(str(out), f"there is no {RESULTS} in this folder", "a folder written by `egx bench`")
    records, _ = read_records(path)
    records = _dedupe(records)
    settings: dict[str, Any] = {}
    methods: list[str] = list(dict.fromkeys(r["method"] for r in records))
    if (out / RUN).exists():
        run = _read_run(out / RUN)
        settings = run.get("settings", {})
        methods = [m for m in run.get("methods", methods) if m in methods] or methods
    summary = summarize(records, methods=methods, settings=settings, pairwise=pairwise_judgements(out, records, None))
    return BenchReport(out, tuple(records), summary, 0, len(records),
                       {k: out / v for k, v in (("results", RESULTS), ("summary", SUMMARY), ("report", REPORT),
                                                ("charts", CHARTS)) if (out / v).exists()})
