"""The judged answer metrics of a benchmark run, after its pairs have run: ACC_L per answer and Emp.S
per question (all methods' answers in one judge call), kept in ``judgements.jsonl``.

They are judged after the pairs, in the process that writes the folder, because Emp.S shows the judge
every method's answer to a question at once (SG-RAG Table 17), and because the judge is its own LLM
(:mod:`core.eval.judge_choice`), not the generator the pairs ran with. Every line names the judge's model; a
resumed run reads only its judge's lines and judges what is missing or failed before, so two judges'
verdicts never mix. :func:`apply_judgements` puts them into each record as ``record["judge"]``, the
shape the summary reads (and the shape older runs wrote into ``results.jsonl``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.eval.bench_files import append_record, read_records
from core.outputs import open_append

if TYPE_CHECKING:
    from core.eval.judge_choice import Judge

JUDGEMENTS = "judgements.jsonl"


def read_judgements(out: Path) -> list[dict[str, Any]]:
    """Every readable line of ``judgements.jsonl``, in file order."""
    return [r for r in read_records(out / JUDGEMENTS, ("question_id", "kind"))[0] if r["kind"] in ("ACC_L", "Emp.S")]


def _judged(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records the judge scores: answered pairs with gold answers (those with the papers' scores)."""
    return [r for r in records if isinstance(r.get("paper"), dict) and not r.get("error")]


def _latest(lines: Sequence[dict[str, Any]], model: str) -> tuple[dict[tuple[str, str], dict[str, Any]],
                                                                  dict[str, dict[str, Any]]]:
    """This judge's last ACC_L line per (question, method) and last Emp.S line per question."""
    acc: dict[tuple[str, str], dict[str, Any]] = {}
    emp: dict[str, dict[str, Any]] = {}
    for ln in lines:
        if ln.get("judge") != model:
            continue
        if ln["kind"] == "ACC_L":
            acc[(str(ln["question_id"]), str(ln.get("method")))] = ln
        else:
            emp[str(ln["question_id"])] = ln
    return acc, emp


def shown_answer(record: dict[str, Any]) -> str:
    """The answer as Emp.S shows it: with the record's one line of reasoning when its method gave one
    (SG-RAG Table 14's "Answer: X. Reasoning: ..."), else the answer alone."""
    answer, why = str(record.get("answer", "")), str(record.get("reasoning", "") or "").strip()
    return f"Answer: {answer}. Reasoning: {why}" if why else answer


def judge_answers(out: Path, records: Sequence[dict[str, Any]], judge: Judge) -> list[dict[str, Any]]:
    """ACC_L of every answered record with gold answers and Emp.S of every such question, by ``judge``;
    what ``judgements.jsonl`` lacks (or holds only as a failure) is judged now and appended. Returns
    every line of the file.

    Emp.S makes one call per question with the question's answered methods in the run's order; a
    question whose methods changed since it was judged (a resumed run with more methods) is judged
    again. An empty answer scores 0 without a call, as ACC_L does."""
    from core.backends.llm_guard import question_scope
    from core.eval.paper_metrics import empowerment_scores, judge_accuracy

    lines = read_judgements(out)
    model = judge.model_id
    acc, emp = _latest(lines, model)
    by_q: dict[str, list[dict[str, Any]]] = {}
    for r in _judged(records):
        by_q.setdefault(str(r["question_id"]), []).append(r)
    with open_append(out / JUDGEMENTS) as fh:
        def put(line: dict[str, Any]) -> None:
            append_record(fh, line)
            lines.append(line)

        for qid, rs in by_q.items():
            question, golds = str(rs[0].get("question", "")), [str(g) for g in rs[0].get("answers", [])]
            with question_scope(judge.llm):
                for r in rs:
                    old = acc.get((qid, str(r["method"])))
                    if old is not None and old.get("value") is not None:
                        continue
                    j = judge_accuracy(question, str(r.get("answer", "")), golds, judge.llm)
                    put({"kind": "ACC_L", "question_id": qid, "method": r["method"], "judge": model,
                         "value": j.value, "why": j.why, "tokens": j.tokens})
                shown = [(str(r["method"]), shown_answer(r)) for r in rs if str(r.get("answer", "")).strip()]
                old = emp.get(qid)
                if old is not None and old.get("scores") is not None and old.get("methods") == [m for m, _ in shown]:
                    continue
                if not shown:
                    continue
                e = empowerment_scores(question, golds, shown, judge.llm)
                put({"kind": "Emp.S", "question_id": qid, "judge": model, "methods": [m for m, _ in shown],
                     "labels": e.labels, "scores": e.scores, "why": e.why, "tokens": e.tokens})
    return lines


def apply_judgements(records: Sequence[dict[str, Any]], lines: Sequence[dict[str, Any]],
                     judge: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The records with ``record["judge"]`` = ``{"model", "ACC_L", "Emp.S", "emps", "why", "tokens"}`` from
    the run's judge's lines (``judge`` as :func:`core.eval.judge_choice.run_judge` reads it).

    No judge: no record carries a judgement. A run written before the judge was a choice keeps the
    judgements its records hold (self-judged by its generator). An answer with no line, or whose
    question's Emp.S failed, gets None with the reason."""
    if judge is not None and judge.get("older"):
        return list(records)
    out = []
    model = str((judge or {}).get("model", ""))
    acc, emp = _latest(lines, model) if judge is not None else ({}, {})
    for r in records:
        r = {k: v for k, v in r.items() if k != "judge"}
        if judge is not None and isinstance(r.get("paper"), dict) and not r.get("error"):
            qid, m = str(r["question_id"]), str(r["method"])
            a, e = acc.get((qid, m)), emp.get(qid)
            whys = []
            acc_v = None if a is None else a.get("value")
            if a is None:
                whys.append("ACC_L: not judged yet")
            elif a.get("why"):
                whys.append(f"ACC_L: {a['why']}")
            scores = (e or {}).get("scores") or {}
            if not str(r.get("answer", "")).strip():
                emps: dict[str, int] | None = {"logic": 0, "insight": 0, "total": 0}
                whys.append("Emp.S: no answer")
            elif m in scores and isinstance(scores[m], dict):
                emps = scores[m]
            else:
                emps = None
                whys.append(f"Emp.S: {(e or {}).get('why') or 'not judged yet'}")
            r["judge"] = {"model": model, "ACC_L": acc_v, "Emp.S": None if emps is None else float(emps["total"]),
                          "emps": emps, "why": "; ".join(whys),
                          "tokens": int((a or {}).get("tokens", 0))}  # Emp.S's call is the question's, not the answer's
        out.append(r)
    return out
