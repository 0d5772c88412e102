"""FastInsight's pairwise comparison (§4.1.2, §4.3.1, Table 4) on long-form answers.

FastInsight generates a response for every retriever by feeding the nodes it retrieved to one LLM
(§4.1.2), then has an LLM judge compare FastInsight's response with each baseline's, following
LightRAG's protocol and prompt (§4.3.1). Here:

* the **generator** (the run's ``--llm``) writes one long-form answer per question × method from the
  method's top :data:`LONG_FORM_PASSAGES` passages, with one prompt for every method
  (:data:`core.eval.paper_metrics.LONG_FORM_USER`), kept in ``long_answers.jsonl``. The short answers
  of ``results.jsonl`` are not compared: "comprehensiveness" and "diversity" mean nothing for a name;
* the **judge** (never the generator unless the run asked for ``--judge-llm same``) compares the
  reference method's answer with each other method's in both placements
  (:func:`core.eval.paper_metrics.pairwise_verdict`); one line per pair goes to ``pairwise.jsonl``,
  keyed by the judge's model, so a rerun judges only what is missing and two judges never mix.

Lines written before the long-form answers (``{"win": 1 | 0.5 | 0, "model": ...}``) still read: 1 is a
win, 0 a loss, ½ a tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.eval.bench_files import append_record, read_records
from core.eval.report import PAIRWISE
from core.outputs import open_append

if TYPE_CHECKING:
    from core.eval.judge_choice import Judge
    from core.index.workspace import Workspace

#: The method whose pairwise win rate against every other method is judged (FastInsight §4.3.1, Table 4).
PAIRWISE_REFERENCE = "fastinsight"
#: Passages a long-form answer is written from: FastInsight feeds "the nodes retrieved by each retriever"
#: and scores retrieval at top-10.
LONG_FORM_PASSAGES = 10
#: Characters kept of each passage, so ten passages and the answer fit a 4k-token local model.
LONG_FORM_PASSAGE_CHARS = 1000
LONG_FORM_MAX_TOKENS = 400
LONG_ANSWERS = "long_answers.jsonl"


def _read_lines(path: Path) -> list[dict[str, Any]]:
    return read_records(path)[0]


def read_pairwise(out: Path, judge_model: str | None = None) -> list[dict[str, Any]]:
    """The usable lines of ``pairwise.jsonl`` (of ``judge_model`` only, when given; older lines name it
    ``model``)."""
    from core.eval.paper_metrics import pair_outcome

    lines = [r for r in _read_lines(out / PAIRWISE) if pair_outcome(r) is not None]
    if judge_model is not None:
        lines = [r for r in lines if str(r.get("judge", r.get("model", ""))) == judge_model]
    return lines


def long_form_answers(out: Path, records: Sequence[dict[str, Any]], generator: Any, workspace: Workspace,
                      wanted: set[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The generator's long-form answer of each wanted ``(question id, method)``, written now when
    ``long_answers.jsonl`` lacks it (§4.1.2: every method's passages, one prompt). Each value is the
    line: ``{"text": answer or "", "why": why there is none, ...}``; failures are retried next run."""
    from core.backends.llm_guard import question_scope
    from core.eval.paper_metrics import LONG_FORM_SYSTEM, long_form_prompt
    from core.methods.llm_steps import ask_text

    model = str(getattr(generator, "model_id", ""))
    path = out / LONG_ANSWERS
    have = {(str(r["question_id"]), str(r["method"])): r for r in _read_lines(path)
            if r.get("generator") == model and r.get("text")}
    with open_append(path) as fh:
        for r in records:
            key = (str(r["question_id"]), str(r["method"]))
            if key not in wanted or key in have or r.get("error"):
                continue
            rows = workspace.store.chunks(list(r.get("ranked", []))[:LONG_FORM_PASSAGES])
            if not rows:
                have[key] = {"text": "", "why": "the method retrieved no passage"}
                continue
            passages = [f"{t}\n{x[:LONG_FORM_PASSAGE_CHARS]}" if t else x[:LONG_FORM_PASSAGE_CHARS] for _, t, x in rows]
            with question_scope(generator):
                got = ask_text(generator, LONG_FORM_SYSTEM, long_form_prompt(str(r.get("question", "")), passages),
                               max_tokens=LONG_FORM_MAX_TOKENS)
            line = {"question_id": key[0], "method": key[1], "generator": model, "passages": len(rows),
                    "text": got.data or "", "why": got.fallback}
            append_record(fh, line)
            have[key] = line
    return have


def pairwise_judgements(out: Path, records: Sequence[dict[str, Any]], judge: Judge | None, *,
                        generator: Any = None, workspace: Workspace | None = None,
                        reference: str = PAIRWISE_REFERENCE) -> list[dict[str, Any]]:
    """FastInsight's pairwise comparison (§4.1.2, §4.3.1): for every question, the ``reference`` method's
    long-form answer against each other method's, judged by ``judge`` in both placements. Appended to
    ``pairwise.jsonl`` one line per pair (``outcome`` win / tie / loss of the reference, each
    placement's per-criterion winners, the judge's model), so a rerun judges only what is missing;
    returns this judge's lines (no judge: the lines of the run as they are, for reading a folder back).

    Nothing is judged without a ``generator`` that is an LLM (no long-form answers) or without the
    reference method in ``records``; a pair whose long-form answers or verdict failed is left out and
    retried by the next run, never counted.
    """
    if judge is None:
        return read_pairwise(out)
    done = read_pairwise(out, judge.model_id)
    if generator is None or workspace is None or not getattr(generator, "available", False):
        return done
    if not getattr(judge.llm, "available", False):
        return done
    have = {(str(r["question_id"]), str(r["method"])) for r in done}
    by_q: dict[str, dict[str, dict[str, Any]]] = {}
    for r in records:
        if not r.get("error"):
            by_q.setdefault(str(r["question_id"]), {})[str(r["method"])] = r
    todo = [(q, m) for q, per in by_q.items() if reference in per for m in per
            if m != reference and (q, m) not in have]
    wanted = {(q, m) for q, m in todo} | {(q, reference) for q, _ in todo}
    if not todo:
        return done
    answers = long_form_answers(out, records, generator, workspace, wanted)
    from core.backends.llm_guard import question_scope
    from core.eval.paper_metrics import PAIR_WIN, pairwise_verdict

    with open_append(out / PAIRWISE) as fh:
        for qid, m in todo:
            ref, other = answers.get((qid, reference), {}), answers.get((qid, m), {})
            if not ref.get("text") or not other.get("text"):
                continue  # no long-form answer to compare (its line in long_answers.jsonl says why)
            with question_scope(judge.llm):
                v = pairwise_verdict(str(by_q[qid][reference].get("question", "")), ref["text"], other["text"],
                                     judge.llm)
            if v.outcome is None:
                continue  # a failed judgement is retried by the next run, never counted
            line = {"question_id": qid, "reference": reference, "method": m, "outcome": v.outcome,
                    "win": PAIR_WIN[v.outcome], "orders": list(v.orders), "judge": judge.model_id,
                    "self_judged": judge.self_judged}
            append_record(fh, line)
            done.append(line)
    return done
