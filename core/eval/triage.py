"""Triage tables: one row per question × method with everything needed to see why it failed, and their
CSV / JSON downloads.

A row holds the verdict (:mod:`core.eval.verdicts`), the rank of every gold passage, the gold titles, the gold
passages the question names but the workspace lacks (counted as never retrieved), the top retrieved titles, the
answer beside the gold answer and its aliases, EM / F1 and the kind of answer match, the recall figures and the
diagnosis's one-sentence reason, and what the answer was handed (the run's answer budget, the context's chunks and
tokens, and its ctx recall: :data:`CONTEXT_COLUMNS`, for records and results that recorded it).
:func:`benchmark_rows` makes them from
a benchmark's ``results.jsonl`` records (the Benchmark page's per-question table), :func:`result_row` from
a live method result (the Compare page), so both downloads have the same columns (:data:`TRIAGE_COLUMNS`).

CSV (:func:`to_csv`) is UTF-8 with a byte-order mark (spreadsheet programs then read accents and
non-Latin titles right), RFC 4180 quoting, and a text cell that starts with ``=``, ``+``, ``-``, ``@``,
a tab or a carriage return gets a leading apostrophe, so a spreadsheet shows it as text instead of
running it as a formula (CSV injection, OWASP). Numbers stay numbers. JSON (:func:`to_json`) keeps the
text as it is and lists as lists.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core.eval.context import CTX_RECALL, context_metrics, context_record
from core.eval.verdicts import (
    ANSWER_STAGE,
    CHANCE_LABEL,
    AnswerMatch,
    Verdict,
    diagnosis_verdict,
    is_failure,
    is_retrieval_loss,
    match_answer,
    matched_off_gold,
    off_gold_summary,
    record_match,
    record_verdict,
    unmatched_note,
    verdict,
)
from core.methods.base import NO_GOLD
from core.methods.diagnoser import answer_by_llm

if TYPE_CHECKING:
    from core.methods.base import Diagnosis, Gold, MethodResult

__all__ = ["CONTEXT_COLUMNS", "RETRIEVED", "RETRIEVED_K", "TRAINED_ON", "TRIAGE_COLUMNS", "UNMATCHED", "TitleOf", "benchmark_rows", "csv_cell", "failures", "flat",
           "result_row",
           "to_csv", "to_json", "triage_row"]

#: How many retrieved passages a row lists.
RETRIEVED_K = 10
#: The columns of a triage row, in order (the on-screen table, the CSV header and the JSON keys).
TRIAGE_COLUMNS: tuple[str, ...] = (
    "question", "method", "verdict", "EM", "F1", "answer match", "answer", "gold answer", "aliases",
    "gold ranks", "gold passages", "gold not in workspace", f"retrieved (top {RETRIEVED_K})", "R@2", "R@5", "R@10",
    "why", "seconds", "verdict key", "id",
)
RETRIEVED = f"retrieved (top {RETRIEVED_K})"
#: the gold passages a question names but the workspace lacks, worded as every view words them
#: (:func:`~core.eval.verdicts.unmatched_note`); each is counted as a gold passage never retrieved
UNMATCHED = "gold not in workspace"
#: a row of a run kept with ``--keep-trained`` whose question the method's trained model was trained or validated
#: on (only such rows have it)
TRAINED_ON = "trained on"
#: What the answer was handed, after :data:`TRIAGE_COLUMNS` (core.eval.context; a row without a recorded context
#: has none of them).
CONTEXT_COLUMNS: tuple[str, ...] = ("budget", "context chunks", "context tokens", CTX_RECALL)

#: Chunk id -> passage title (None when unknown: the chunk id is shown instead).
TitleOf = Callable[[str], "str | None"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _titles(ids: Iterable[str], known: Sequence[str] | None, title_of: TitleOf | None) -> list[str]:
    ids = list(ids)
    if known is not None and len(known) >= len(ids):
        return [str(t) for t in known[:len(ids)]]
    return [(title_of(c) if title_of is not None else None) or str(c) for c in ids]


def _record_why(diag: Mapping[str, Any] | None, gold: Sequence[str], titles: Sequence[str]) -> str:
    """The diagnosis summary of a record; an SG-RAG "matched, not through the gold passage" of a run made before its
    summary named every lost gold passage by title (it read "…none passes through the gold passage tea06", the other
    lost one unnamed) is reworded from the record's gold titles and ranks
    (:func:`core.eval.verdicts.off_gold_summary`; which entities the matches held is not kept: "none brought")."""
    summary = str((diag or {}).get("summary") or "")
    ev = (diag or {}).get("evidence")
    if diag is None or not matched_off_gold(diag.get("stage"), ev) or not isinstance(ev, Mapping) or "gold_lost" in ev:
        return summary
    found, cid = int(ev["subgraphs"]), str(ev.get("gold") or "")
    head = f"{found} exact subgraph(s) matched, but none passes through the gold passage {cid}."
    ranks = diag.get("gold_ranks") or {}
    lost = [t for c, t in zip(gold, titles, strict=False) if c in ranks and ranks[c] is None]
    if not summary.startswith(head) or not lost:
        return summary
    return off_gold_summary(found, lost, known=False) + summary[len(head):]


def _pct(x: Any) -> float | None:
    return None if x is None else round(100 * float(x), 1)


def triage_row(*, question: str, question_id: str, method: str, verdict: Verdict, match: AnswerMatch,
               answer: str, answers: Sequence[str], gold_ranks: Sequence[int | None], gold_titles: Sequence[str],
               retrieved_titles: Sequence[str], metrics: Mapping[str, float], why: str,
               seconds: float | None, unmatched: Sequence[str] = (), chance: bool = False,
               judged: bool = True) -> dict[str, Any]:
    """One triage row (:data:`TRIAGE_COLUMNS`); lists stay lists (:func:`to_csv` joins them). ``unmatched``: the
    gold passages the question names but the workspace lacks (the ranks and titles are the matched ones');
    ``chance``: the answer's sentence comes from a passage that is not gold (its answer match says so); ``judged``:
    False for an answer no LLM wrote, which has no EM / F1 (blank, as in ``results.jsonl`` and on the pages: an audit
    found 0.0 in ``triage.csv`` beside the page's "no EM / F1")."""
    return {
        "question": question, "method": method, "verdict": verdict.label,
        "EM": None if match.em is None or not judged else round(match.em, 2),
        "F1": None if match.f1 is None or not judged else round(match.f1, 2),
        "answer match": "" if match.kind == "no_gold" else match.label + (" (from a non-gold passage)"
                                                                      if chance and verdict.label != CHANCE_LABEL else ""),
        "answer": answer,
        "gold answer": answers[0] if answers else "", "aliases": list(answers[1:]),
        "gold ranks": list(gold_ranks), "gold passages": list(gold_titles),
        UNMATCHED: unmatched_note(unmatched, len(gold_titles) + len(unmatched)),
        RETRIEVED: list(retrieved_titles)[:RETRIEVED_K],
        "R@2": _pct(metrics.get("R@2")), "R@5": _pct(metrics.get("R@5")), "R@10": _pct(metrics.get("R@10")),
        "why": why, "seconds": None if seconds is None else round(float(seconds), 3),
        "verdict key": verdict.key, "id": question_id,
    }


def _from_other_passage(diag: Mapping[str, Any] | None) -> bool:
    ev = (diag or {}).get("evidence")
    answer = ev.get("answer") if isinstance(ev, Mapping) else None
    return isinstance(answer, Mapping) and answer.get("from_gold") is False


def benchmark_rows(records: Iterable[Mapping[str, Any]], *, title_of: TitleOf | None = None) -> list[dict[str, Any]]:
    """The per-question table of a benchmark: one row per record of ``results.jsonl``, in record order.

    Titles come from the record (``gold_titles`` / ``ranked_titles``, written since the triage export) or,
    for an older record, from ``title_of`` (the chunk id when it knows none). The gold ranks are 1-based
    positions in the record's ranking (None: not retrieved)."""
    out = []
    for r in records:
        ranked = [str(c) for c in r.get("ranked") or ()]
        pos: dict[str, int] = {}
        for i, c in enumerate(ranked, start=1):
            pos.setdefault(c, i)
        gold = [str(c) for c in r.get("gold") or ()]
        diag = r.get("diagnosis") if isinstance(r.get("diagnosis"), Mapping) else None
        gold_titles = _titles(gold, r.get("gold_titles"), title_of)
        row = triage_row(
            question=str(r.get("question", "")), question_id=str(r.get("question_id", "")),
            method=str(r.get("method", "")), verdict=record_verdict(r), match=record_match(r),
            answer=str(r.get("answer") or ""), answers=[str(a) for a in r.get("answers") or ()],
            gold_ranks=[pos.get(c) for c in gold], gold_titles=_documents_named(gold, gold_titles, r.get("gold_documents")),
            retrieved_titles=_titles(ranked[:RETRIEVED_K], r.get("ranked_titles"), title_of),
            metrics=r.get("metrics") or {}, why=_record_why(diag, gold, gold_titles) or str(r.get("error") or ""),
            seconds=r.get("seconds"), unmatched=[str(t) for t in r.get("gold_unmatched") or ()],
            chance=_from_other_passage(diag), judged=bool(r.get("answer_judged", True)))
        _add_context(row, r.get("context"), gold)
        if r.get("trained_on"):  # kept with --keep-trained: the method's model learned from this question
            row[TRAINED_ON] = "yes — its figures are inflated"
        rp = r.get("replay")
        if isinstance(rp, Mapping):  # the recorded LLM: is this row the recorded run?
            row["replay"] = "full" if rp.get("complete") else "partial" if rp.get("matched") else "not recorded"
        out.append(row)
    return out


def _documents_named(gold: Sequence[str], titles: Sequence[str], documents: Any) -> list[str]:
    """The "gold passages" column: a gold document of several passages (the record's ``gold_documents``) is named as
    the document, "Golden Strings Prize (any of its 2 passages)", not as the one passage its figures counted ("… (1
    of 2)", which an audit read as "only the first passage is gold")."""
    named = {str(d.get("counted_as")): f"{d.get('title')} (any of its {len(d.get('passages') or ())} passages)"
             for d in documents or () if isinstance(d, Mapping) and d.get("title") and len(d.get("passages") or ()) > 1}
    return [named.get(c, t) for c, t in zip(gold, titles, strict=False)] + list(titles[len(gold):])


def result_row(result: MethodResult, gold: Gold, diagnosis: Diagnosis | None, *, question: str,
               title_of: TitleOf | None = None, metrics: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The triage row of one live method result (the Compare page), with ``scores`` of the retrieved
    passages beside their titles. Without gold passages the verdict is ``no_gold``."""
    ranked = [c.chunk_id for c in result.ranked_chunks]
    gold = gold.narrowed(ranked)  # a gold document of several passages: once, as its best-ranked passage
    pos: dict[str, int] = {}
    for i, c in enumerate(ranked, start=1):
        pos.setdefault(c, i)
    v = diagnosis_verdict(diagnosis, result.answer, gold.answers) if diagnosis is not None else verdict(NO_GOLD)
    row = triage_row(question=question, question_id=gold.question_id, method=result.method, verdict=v,
                     match=match_answer(result.answer, gold.answers), answer=result.answer,
                     answers=list(gold.answers), gold_ranks=[pos.get(c) for c in gold.chunk_ids],
                     gold_titles=_titles(gold.chunk_ids, None, title_of),
                     retrieved_titles=_titles(ranked[:RETRIEVED_K], None, title_of), metrics=metrics or {},
                     why=diagnosis.summary if diagnosis is not None else "", seconds=result.trace.seconds,
                     unmatched=gold.unmatched,
                     chance=diagnosis is not None and _from_other_passage({"evidence": diagnosis.evidence}),
                     judged=answer_by_llm(result))
    row["scores"] = [round(float(c.score), 4) for c in list(result.ranked_chunks)[:RETRIEVED_K]]
    _add_context(row, context_record(result), gold.chunk_ids)
    return row


def _add_context(row: dict[str, Any], context: Any, gold: Iterable[str]) -> None:
    """The :data:`CONTEXT_COLUMNS` of a row whose record (or result) holds its answer's context."""
    if not isinstance(context, Mapping):
        return
    row["budget"] = str(context.get("budget") or "own")
    row["context chunks"] = int(context.get("chunks") or 0)
    row["context tokens"] = int(context.get("tokens") or 0)
    row[CTX_RECALL] = _pct(context_metrics(context.get("chunk_ids") or (), gold).get(CTX_RECALL))


def failures(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows whose verdict is a failure (not ``ok``, not ``no_gold``)."""
    return [r for r in rows if is_failure(str(r.get("verdict key", "")))]


def retrieval_losses(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The failures that lost gold evidence before the answer: not the rows that retrieved every gold passage
    and missed at the answer (``answer_wrong`` / ``answer_partial``), nor a method that raised."""
    return [r for r in rows if is_retrieval_loss(str(r.get("verdict key", "")))]


def failure_split(rows: Sequence[Mapping[str, Any]]) -> str:
    """How the failures of ``rows`` split between retrieval and the answer, in words ("" without failures):
    ``"2 lost gold evidence before the answer, 3 retrieved it and missed at the answer"``."""
    failed = failures(rows)
    if not failed:
        return ""
    lost = len(retrieval_losses(failed))
    answer = sum(1 for r in failed if str(r.get("verdict key", "")) in ANSWER_STAGE)
    other = len(failed) - lost - answer
    parts = [f"{lost} lost gold evidence before the answer", f"{answer} retrieved it and missed at the answer"]
    return ", ".join(parts + ([f"{other} failed to run"] if other else []))


# ------------------------------------------------------------------------------------------ downloads
def flat(value: Any) -> str | int | float:
    """A cell as shown in a table: numbers as numbers, None / NaN empty, lists joined with " | " (a None in a
    list — a gold passage's rank — as "not retrieved")."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return " | ".join("not retrieved" if v is None else str(flat(v)) for v in value)
    return str(value)


def csv_cell(value: Any) -> str | int | float:
    """One CSV cell: :func:`flat`, and text starting with a formula character (``= + - @``, tab, CR) behind
    an apostrophe, so a spreadsheet shows it as text.

    >>> csv_cell("=SUM(A1:A9)"), csv_cell(-1.5), csv_cell([3, None])
    ("'=SUM(A1:A9)", -1.5, '3 | not retrieved')
    """
    v = flat(value)
    return "'" + v if isinstance(v, str) and v.startswith(_FORMULA_START) else v


def to_csv(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """The rows as CSV bytes (UTF-8 with BOM, header first; the columns of the first row, then any others)."""
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(cols or list(TRIAGE_COLUMNS))
    for r in rows:
        w.writerow([csv_cell(r.get(c)) for c in cols])
    return buf.getvalue().encode("utf-8-sig")


def to_json(rows: Sequence[Mapping[str, Any]], **meta: Any) -> bytes:
    """The rows as a JSON document ``{**meta, "columns": [...], "rows": [...]}`` (UTF-8, text unescaped)."""
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    doc = {**meta, "columns": cols or list(TRIAGE_COLUMNS), "rows": [dict(r) for r in rows]}
    return json.dumps(_finite(doc), ensure_ascii=False, indent=1, allow_nan=False).encode("utf-8")


def _finite(x: Any) -> Any:
    """NaN and infinities as null (JSON has no such numbers)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, Mapping):
        return {str(k): _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x
