"""FastInsight's pairwise comparison (§4.3.1, Table 4): the reference method's answer against each other
method's, judged by an LLM, kept in ``pairwise.jsonl`` so a rerun judges only what is missing."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.eval.bench_files import append_record
from core.eval.paper_metrics import pairwise_preference
from core.eval.report import PAIRWISE

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
                append_record(fh, line)
                done.append(line)
    return done
