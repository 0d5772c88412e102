"""One question × method of a benchmark: run the method, and turn its result into the JSON record of
``results.jsonl`` (metrics, latency, tokens, the papers' answer scores, the failure diagnosis, and the
``context`` its answer was handed with the metrics over it: :mod:`core.eval.context`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from core.errors import Cancelled, EgxError, QueryError
from core.eval.context import context_metrics, context_record
from core.eval.diagnose import diagnose
from core.eval.metrics import llm_tokens, stage_latency
from core.eval.paper_metrics import answer_set_scores
from core.eval.result_metrics import node_scores, retrieval_metrics, topological_metrics
from core.eval.triage import RETRIEVED_K
from core.methods.base import Diagnosis, Gold
from core.methods.run import run_method
from core.trace import to_jsonable

if TYPE_CHECKING:
    from core.index.questions import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends, MethodResult


def evaluate_result(result: MethodResult, workspace: Workspace, gold: Gold, *, cut: int = 5,
                    question: str = "") -> tuple[dict[str, Any], Diagnosis]:
    """The JSON record (metrics, latency, tokens, diagnosis) of one method result.

    With gold answers, ``paper`` holds the papers' answer-set scores (:mod:`core.eval.paper_metrics`).
    ``gold_unmatched`` lists the gold passages the question names but the workspace lacks: the metrics and the
    verdict count each as a gold passage never retrieved.
    The judged metrics are not here: a separate judge scores the run's answers once its pairs have run
    (:mod:`core.eval.judgements`)."""
    from core.methods.answering import method_notices
    from core.methods.diagnoser import judge_answer

    ranked = [c.chunk_id for c in result.ranked_chunks]
    documents = gold_documents(workspace, gold, ranked)
    gold = gold.narrowed(ranked)  # a gold document of several passages counts once, as its best-ranked passage
    diag = diagnose(result, workspace, gold, cut=cut)
    context = context_record(result)
    j = judge_answer(result, gold)
    tokens = llm_tokens(result.trace)
    nodes = node_scores(workspace, gold.chunk_ids, result=result)  # FastInsight §4.3.1 node level, or why not
    rec: dict[str, Any] = {
        "question_id": gold.question_id, "method": result.method, "question": question or result.query,
        "gold": list(gold.chunk_ids), "answers": list(gold.answers),
        "gold_titles": chunk_titles(workspace, gold.chunk_ids), "ranked_titles": chunk_titles(workspace, ranked[:RETRIEVED_K]),
        "ranked": ranked, "scores": [round(float(c.score), 6) for c in result.ranked_chunks],
        "gold_unmatched": list(gold.unmatched),
        "metrics": {**retrieval_metrics(ranked, gold.chunk_ids, unmatched=gold.unmatched),
                    **topological_metrics(workspace, ranked, gold.chunk_ids, result=result),
                    **nodes.metrics,
                    **(context_metrics(context["chunk_ids"], gold.chunk_ids, unmatched=gold.unmatched)
                       if context is not None else {})},
        "answer": result.answer, "answer_judged": j.judged,
        "em": j.em if j.judged else None, "f1": round(j.f1, 4) if j.judged else None,
        "seconds": round(result.trace.seconds, 6),
        "stages": {k: round(v, 6) for k, v in stage_latency(result.trace).items()},
        "tokens": tokens,
        "fallbacks": [f"{s.stage}: {s.fallback}" for s in result.trace.steps if s.fallback],
        "notices": list(method_notices(result)),
        "diagnosis": diag.to_dict(), "error": None,
    }
    if documents:  # what "gold" narrowed: an audit read `"gold": ["X#0"]` as "only the first passage of X is gold"
        rec["gold_documents"] = documents
    if nodes.notes():  # a blank node-level figure keeps its reason (the report and the Benchmark page show it)
        rec["metrics_notes"] = nodes.notes()
    if context is not None:  # what the answer was handed, under the run's budget
        rec["context"] = context
    reasoning = str(getattr(result, "answer_reasoning", "") or "")
    if reasoning:  # SG-RAG's Table 14 line, asked for by a judged run: Emp.S reads it after the answer
        rec["reasoning"] = reasoning
    if result.trace.replay:  # the recorded LLM: whether this record is the recorded run (core.pinning)
        rec["replay"] = result.trace.replay
    if gold.answers:
        sc = answer_set_scores(result.answer, gold.answer_groups or gold.answers)
        rec["paper"] = {"precision": sc.precision, "recall": sc.recall, "f1": sc.f1, "hit": sc.hit, "hit1": sc.hit1,
                        "matched": sc.matched, "predicted": sc.predicted, "gold": sc.gold}
    return to_jsonable(rec), diag


def error_record(method: str, q: Question, gold: Gold, exc: Exception) -> dict[str, Any]:
    """The record of a pair whose method raised an :class:`EgxError` (counted as retrieving nothing)."""
    gold = gold.narrowed([])
    return {"question_id": q.id, "method": method, "question": q.question, "gold": list(gold.chunk_ids),
            "gold_unmatched": list(gold.unmatched), "answers": list(gold.answers), "ranked": [], "scores": [],
            "metrics": retrieval_metrics([], gold.chunk_ids, unmatched=gold.unmatched), "answer": "", "answer_judged": False, "em": None,
            "f1": None, "seconds": 0.0, "stages": {}, "tokens": {"prompt": 0, "completion": 0, "total": 0},
            "fallbacks": [], "diagnosis": None, "error": f"{type(exc).__name__}: {exc}"}


def gold_documents(workspace: Workspace, gold: Gold, ranked: Sequence[str]) -> list[dict[str, Any]]:
    """The gold documents of several passages (a ``ground_truth`` title, a supporting fact without a place): each
    one's title, all its passages, and the one passage its figures count it as (:meth:`Gold.narrowed`: the
    best-ranked, else the first) — the record's ``gold`` lists only that one, so a reader of ``results.jsonl``
    sees why. Empty where the question has none."""
    if not gold.groups:
        return []
    counted = set(gold.narrowed(ranked).chunk_ids)
    g = workspace.graph
    out = []
    for members in gold.groups:
        chosen = next((c for c in members if c in counted), members[0] if members else "")
        title = g.chunk(members[0]).title if members and members[0] in g.chunk_index else ""
        out.append({"title": title, "passages": list(members), "counted_as": chosen})
    return out


def chunk_titles(workspace: Workspace, ids: Sequence[str]) -> list[str]:
    """The names of the passages ``ids`` (:func:`core.graph.model.passage_label`: the title, with its place where the
    title is several passages; the id itself for one the workspace lacks), so a record's triage row
    (:mod:`core.eval.triage`) reads without the workspace."""
    from core.graph.model import passage_label

    g = workspace.graph
    return [passage_label(g, c) for c in ids]


def run_pair(workspace: Workspace, q: Question, method: str, backends: Backends, *, config: object | None = None,
             seed: int = 0, cut: int = 5, trace: bool = False) -> tuple[dict[str, Any], str | None]:
    """One question × method of a benchmark: its JSON record (an :func:`error_record` when the method
    raised an :class:`EgxError`) and, with ``trace``, the trace as JSON. What every runner does per
    pair, in this process or on a Ray worker (:meth:`core.batch.ray_runner.RayRunner.run_pairs`).

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
        rec, _ = evaluate_result(result, workspace, gold, question=q.question, cut=cut)
        return rec, (result.trace.to_json() if trace else None)
    except Cancelled:
        raise
    except EgxError as exc:
        return error_record(method, q, gold, exc), None


class PairRunner(Protocol):
    """Runs a benchmark's pending question × method pairs elsewhere (``egx bench --ray``:
    :class:`core.batch.ray_runner.RayRunner`) and yields each ``(question, method, record, trace JSON or None)``
    as it finishes, in any order; ``None`` wherever one is accepted means this process, in order."""

    def run_pairs(self, workspace: Workspace, pairs: Sequence[tuple[Question, str]], backends: Backends, *,
                  configs: dict[str, object], seed: int, cut: int,
                  traces: bool) -> Iterator[tuple[Question, str, dict[str, Any], str | None]]: ...
