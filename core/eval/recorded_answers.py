"""A reproduction's blank answer figures filled from the recorded runs themselves: :func:`fill_recorded_answers`.

With the ``recorded`` LLM a paper's protocol can change a method's answer prompt (BubbleRAG's budget hands Naive RAG
15 passages where its recorded runs had 5), so no recorded reply matches it and the cell was blank, though the
shipped recordings hold that method's real answers to the same questions. Such a cell now shows the F1 of those
recorded answers (SQuAD token F1 against the best gold alias, the figure's mean with its 95 % percentile bootstrap
interval, in the reproduction's question order, as every other cell), marked with the settings they were recorded
at, so the paper's headline comparison shows; its footnote says it is not a run at the paper's budget.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

#: The start of the reason of a blank answer cell whose answer prompt the recordings do not hold
#: (:func:`core.eval.reproduce_record._answer_blank`).
NO_RECORDED_PROMPT = "no LLM-written answer was scored: the recordings hold no run"
#: The answer figures a recorded answer gives (SQuAD token F1 and exact match against the best gold alias).
_SCORES = {"F1": 1, "EM": 0}


@lru_cache(maxsize=4)
def _runs(path: str, mtime: float) -> tuple[dict[str, Any], ...]:
    from core.backends.llm_bundles import load_recording

    return load_recording(path).runs


def recorded_runs_of(workspace: str, method: str, paths: Sequence[Path] | None = None) -> dict[str, dict[str, Any]]:
    """Question id → the recorded run of ``method`` on ``workspace`` in the shipped bundles (the first one held)."""
    from core.backends.llm_bundles import recording_paths

    out: dict[str, dict[str, Any]] = {}
    for p in recording_paths() if paths is None else paths:
        for r in _runs(str(p), p.stat().st_mtime):
            if r.get("workspace") == workspace and r.get("method") == method:
                out.setdefault(str(r.get("question_id")), r)
    return out


def sample_golds(workspace: str) -> dict[str, tuple[str, ...]]:
    """Question id → its gold answer and aliases, read from the questions file of the sample ``workspace``
    (``sample_data/<name>/workspace.json``; {} when it is no sample or the file cannot be read)."""
    from core.index.paths import sample_data_dir
    from core.index.questions import _aliases, _answer

    folder = sample_data_dir() / workspace
    try:
        spec = json.loads((folder / "workspace.json").read_text(encoding="utf-8"))
        path = folder / str(spec["questions"])
        raw = gzip.open(path, "rt", encoding="utf-8").read() if path.suffix == ".gz" else path.read_text("utf-8")
        data = json.loads(raw)
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    rows = data if isinstance(data, list) else data.get("questions", []) if isinstance(data, dict) else []
    return {str(q.get("id")): (_answer(q), *_aliases(q)) for q in rows if isinstance(q, dict) and q.get("id")}


def _budget_words(run: Mapping[str, Any]) -> str:
    cfg = run.get("config") or {}
    k = cfg.get("answer_passages") or cfg.get("max_chunks") or cfg.get("k_chunks")
    return f"{k} passages" if k else "its own settings"


def recorded_cell(method: str, question_ids: Sequence[str], golds: Mapping[str, Sequence[str]],
                  runs: Mapping[str, Mapping[str, Any]], metric: str) -> dict[str, Any] | None:
    """The figure of ``metric`` (F1 or EM, in %) over the recorded answers of ``method`` to those of
    ``question_ids`` the recordings hold (in that order): ``{"ours", "low", "high", "n", "basis", "why"}``, or None
    when fewer than two are held or ``metric`` is none a recorded answer gives. ``basis`` marks the cell
    "recorded at 5 passages"; ``budget`` is what the recorded runs handed their answer ("5 passages")."""
    from core.eval.stats import bootstrap_interval
    from core.text import answer_scores

    if metric not in _SCORES:
        return None
    held = [(q, runs[q]) for q in question_ids if q in runs]
    scores = [answer_scores(str(r.get("answer") or ""), golds.get(q) or (str(r.get("gold_answer") or ""),))[_SCORES[metric]]
              for q, r in held]
    if len(scores) < 2:
        return None
    iv = bootstrap_interval(scores)
    budgets = sorted({_budget_words(r) for _, r in held})
    why = (f"the recorded answers of `{method}` to {len(held)} of these {len(question_ids)} questions, made at its own "
           f"settings ({', '.join(budgets)} handed to the answer): the paper's budget changes its answer prompt, so "
           "no recorded reply matched the run at that budget, and this figure scores the recorded run's answers "
           "instead; the other questions were never recorded")
    # the budget in the cell itself, not only in its footnote: beside BubbleRAG's 15 passages a bare "recorded" read
    # as a like-for-like figure
    return {"ours": 100 * iv.mean, "low": 100 * iv.low, "high": 100 * iv.high, "n": iv.n,
            "basis": f"recorded at {' / '.join(budgets)}", "budget": " / ".join(budgets), "why": why}


def _inside(paper: Any, low: float, high: float) -> bool | None:
    return None if not isinstance(paper, int | float) else low - 1e-9 <= float(paper) <= high + 1e-9


def fill_recorded_answers(record: dict[str, Any], golds: Mapping[str, Sequence[str]] | None = None,
                          paths: Sequence[Path] | None = None) -> dict[str, Any]:
    """``record`` (one reproduction, ``reproduce.json``) with each answer cell left blank because the recordings
    hold no reply to its prompt (:data:`NO_RECORDED_PROMPT`) filled from the recorded runs of its method on the
    same questions (:func:`recorded_cell`); ``golds``: question id → gold answers (default: the sample's,
    :func:`sample_golds`). A cell the recordings cannot fill, and every record of another LLM mode, stays as it
    was; ``record`` itself is not changed."""
    if not record.get("recordings") or not record.get("tables"):
        return record
    ids = [str(q) for q in (record.get("questions") or {}).get("ids") or ()]
    workspace = str(record.get("workspace") or "")
    golds = sample_golds(workspace) if golds is None else golds
    cache: dict[str, dict[str, dict[str, Any]]] = {}
    tables = []
    for t in record["tables"]:
        methods = {r["row"]: r["method"] for r in t["rows"]}
        recs = []
        for rec in t["records"]:
            method = methods.get(rec["row"]) or ""
            if rec.get("ours") is None and method and str(rec.get("blank") or "").startswith(NO_RECORDED_PROMPT):
                if method not in cache:
                    cache[method] = recorded_runs_of(workspace, method, paths)
                got = recorded_cell(method, ids, golds, cache[method], str(rec["metric_id"]))
                if got is not None:
                    rec = {**rec, "ours": got["ours"], "low": got["low"], "high": got["high"], "n": got["n"],
                           "n_at_most": False, "basis": got["basis"], "basis_why": got["why"],
                           "basis_budget": got["budget"],
                           "paper_in_interval": _inside(rec.get("paper"), got["low"], got["high"])}
            recs.append(rec)
        tables.append({**t, "records": recs})
    return {**record, "tables": tables}
