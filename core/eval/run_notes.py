"""What a benchmark's figures do not show by themselves, in its summary and report: the gold passages its
questions name but the workspace lacks (each counted as never retrieved), the questions left out of the run
and why (no gold passage in the workspace; a benchmarked method's model was trained or validated on them), and
the rows kept although a model trained on their question (``--keep-trained``: flagged, their figures inflated).

``summary.json`` gains (beside :mod:`core.eval.report`'s keys)::

    "gold": {"questions": N, "with_unmatched": n, "unmatched_passages": k,
             "unmatched": {question id: "1 of 2 gold passages is not in the workspace ('Titel of X')"}},
    "left_out": {"of": questions in the file, "no_gold": [question ids], "trained_on": {question id: [methods]},
                 "keep_trained": bool},
    "methods": {name: {..., "trained_on": rows flagged}}

``left_out`` comes from the run's ``run.json`` (:mod:`core.eval.bench_files`), the rest from the records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.graph.chunking import few_passages_warning
from core.text import plural

#: The recall cut the report's few-passages note speaks of: its R@5, the Benchmark page's own warning's cut.
REPORT_TOP_K = 5

__all__ = ["TRAINED_ON_WHY", "add_run_notes", "left_out_note", "run_note_items", "run_note_lines", "trained_rows_note"]

#: why a question a model trained on is left out (the CLI and the page each add how to keep it)
TRAINED_ON_WHY = ("its figures would be inflated: a model cannot be tested on the questions it learned from (ReG App. "
                  "E holds its test split out of training and checkpoint selection)")


def add_run_notes(summary: dict[str, Any], records: Sequence[Mapping[str, Any]],
                  run: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``summary`` with ``gold``, ``left_out`` and each method's ``trained_on`` count (module docstring)."""
    from core.eval.verdicts import unmatched_note

    unmatched: dict[str, str] = {}
    questions: set[str] = set()
    passages = 0
    for r in records:
        qid = str(r.get("question_id"))
        questions.add(qid)
        titles = [str(t) for t in r.get("gold_unmatched") or ()]
        if titles and qid not in unmatched:
            unmatched[qid] = unmatched_note(titles, len(r.get("gold") or ()) + len(titles))
            passages += len(titles)
    summary["gold"] = {"questions": len(questions), "with_unmatched": len(unmatched), "unmatched_passages": passages,
                       "unmatched": unmatched}
    left = (run or {}).get("left_out")
    summary["left_out"] = dict(left) if isinstance(left, Mapping) else {}
    for m, s in summary.get("methods", {}).items():
        s["trained_on"] = sum(1 for r in records if r.get("method") == m and r.get("trained_on"))
    return summary


def left_out_note(no_gold: int, trained_on: Mapping[str, Sequence[str]], of: int) -> str:
    """``"80 of 100 questions are left out: reg's model was trained or validated on them (its figures would be
    inflated ...)"`` ("" when nothing was left out); ``of`` is every question of the file."""
    parts = []
    if trained_on:
        by: dict[str, int] = {}
        for ms in trained_on.values():
            for m in ms:
                by[m] = by.get(m, 0) + 1
        who = ", ".join(f"{m}'s model" + (f" ({n} of them)" if len(by) > 1 else "") for m, n in by.items())
        parts.append(f"{len(trained_on)} of {of} questions are left out because {who} was trained or validated on "
                     f"them — {TRAINED_ON_WHY}")
    if no_gold:
        parts.append(f"{no_gold} of {of} questions are left out because none of their gold passages is in this "
                     "workspace")
    return "; ".join(parts) + ("." if parts else "")


def trained_rows_note(method: str, n: int, of: int) -> str:
    """The rows of a run kept with ``--keep-trained`` whose question ``method``'s model trained on."""
    return (f"{n} of {of} {method} rows are questions its model was trained or validated on (kept on request, "
            "flagged “trained on”): their figures are inflated.")


def run_note_items(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(title, text)`` of each thing the figures do not show by themselves: questions left out, rows trained on,
    a workspace of so few passages that recall cannot tell the methods apart, gold passages the workspace lacks
    (empty when there is nothing to say). Plain text: the report sets the
    titles in bold, the Benchmark page escapes both."""
    out: list[tuple[str, str]] = []
    left = summary.get("left_out") or {}
    trained = {} if left.get("keep_trained") else dict(left.get("trained_on") or {})
    note = left_out_note(len(left.get("no_gold") or ()), trained, int(left.get("of") or 0))
    if note:
        out.append(("Left out", note))
    for m, s in (summary.get("methods") or {}).items():
        if s.get("trained_on"):
            out.append((f"Trained on — {m}", trained_rows_note(m, int(s["trained_on"]), int(s.get("n", 0)))))
    from core.eval.summary_stats import MIN_INTERVAL_QUESTIONS

    few_q = {m: int(s.get("n", 0)) for m, s in (summary.get("methods") or {}).items()
             if 0 < int(s.get("n", 0)) < MIN_INTERVAL_QUESTIONS}
    if few_q:  # figures with no bracket beside others' with one: say why
        out.append(("No intervals", ", ".join(f"{m} ran on {n} question{'s' if n != 1 else ''}" for m, n in few_q.items())
                    + f": under {MIN_INTERVAL_QUESTIONS} questions a 95 % interval says nothing, so {'its figures have' if len(few_q) == 1 else 'their figures have'} "
                    "none; run more questions to compare them."))
    settings = summary.get("settings") or {}
    passages = int((settings.get("content") or {}).get("passages") or 0)
    # at the report's recall cut (R@5, the Benchmark page's warning's too), not the diagnosis cut ("cut": the
    # verdicts' top 15): an audit read "a method's top 15 holds all of them" beside a table of R@2, R@5 and R@10
    few = few_passages_warning(passages, top_k=REPORT_TOP_K)
    if few:  # beside the figures it empties (an audit read "100 [100, 100]" for every method, the warning elsewhere)
        out.append(("Few passages", few))
    alike = summary.get("extracted_alike") or {}
    if alike.get("same") and 2 * int(alike["same"]) >= int(alike["questions"]):
        out.append(("Same answers", f"On {alike['same']} of {plural(int(alike['questions']), 'question')} every "
                    "method's answer was the same extracted sentence (no LLM: each answer is the sentence of its "
                    "passages most like the question), so Hit and the other answer-set metrics cannot tell the "
                    "methods apart there — compare them by recall, or run with an LLM."))
    gold = summary.get("gold") or {}
    if gold.get("with_unmatched"):
        per = "; ".join(f"{qid}: {text}" for qid, text in list(gold["unmatched"].items())[:5])
        more = f"; and {gold['with_unmatched'] - 5} more" if gold["with_unmatched"] > 5 else ""
        out.append(("Gold not in the workspace",
                    f"{gold['with_unmatched']} of {gold['questions']} questions "
                    f"name{'s' if gold['with_unmatched'] == 1 else ''} {plural(int(gold['unmatched_passages']), 'gold passage')} "
                    "this workspace lacks, each counted as a gold passage never retrieved (R@k below 100, "
                    f"never “ok”) — {per}{more}."))
    return out


def run_note_lines(summary: Mapping[str, Any]) -> list[str]:
    """:func:`run_note_items` as the report's markdown lines."""
    lines: list[str] = []
    for title, text in run_note_items(summary):
        lines += [f"> **{title}**: {text}", ""]
    return lines
