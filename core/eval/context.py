"""What each method handed to its answer, in a benchmark: the record's ``context``, the metrics over it and
their summary per method (the answer budget of :mod:`core.methods.budget`).

A record's ``context`` is ``{"chunks": n, "tokens": n, "chunk_ids": [...], "budget": name}``
(:func:`context_record`, from :func:`core.methods.answering.context_of`): the passages the answer step was
handed and their WordPiece tokens. Two metrics read it against the gold passages:

* ``ctx recall`` — the share of the gold passages in the context (capped like R@k: every gold passage that
  could be there counts);
* ``ctx all gold`` — 1 when every gold passage is in the context, else 0.

Retrieval metrics (R@k) compare a ranked list with the gold set without saying what the answer saw; these
two say it, under the budget the run was made with, so two methods are compared on the evidence they
actually handed over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from core.methods.answering import context_of
from core.methods.budget import run_budget

#: The context metrics' keys in a record's ``metrics``.
CTX_RECALL = "ctx recall"
CTX_ALL_GOLD = "ctx all gold"
CTX_METRICS = (CTX_RECALL, CTX_ALL_GOLD)


def context_record(result: Any) -> dict[str, Any] | None:
    """``{"chunks", "tokens", "chunk_ids", "budget", "evidence"}`` of what ``result``'s answer was handed (evidence:
    "passages", "chains", …, :attr:`~core.methods.answering.AnswerContext.evidence`); None for a run
    that recorded no context (a method from elsewhere)."""
    ctx = context_of(result)
    if ctx is None:
        return None
    return {"chunks": ctx.chunks, "tokens": int(ctx.tokens), "chunk_ids": list(ctx.chunk_ids), "budget": ctx.budget,
            "evidence": ctx.evidence}


def context_metrics(chunk_ids: Iterable[str], gold: Iterable[str], *, unmatched: Iterable[str] = ()) -> dict[str, float]:
    """``ctx recall`` and ``ctx all gold`` of a context against the gold passages (empty without gold). A gold
    passage the workspace lacks (``unmatched``: a title that matches no chunk) counts as one the context misses,
    as in R@k — never as found.

    >>> context_metrics(["a", "x"], ["a", "b"])
    {'ctx recall': 0.5, 'ctx all gold': 0.0}
    >>> context_metrics(["a"], ["a"], unmatched=["Titel of b"])
    {'ctx recall': 0.5, 'ctx all gold': 0.0}
    """
    g = set(gold)
    missing = set(unmatched) - g
    if not g:
        return {}
    inside = g & set(chunk_ids)
    return {CTX_RECALL: len(inside) / (len(g) + len(missing)), CTX_ALL_GOLD: float(inside == g and not missing)}


def summarize_context(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """One method's context over a run: how many of its records have one (``n``), the median and largest
    number of chunks and tokens handed, and the budget(s) named; None when no record has a context."""
    ctx = [r["context"] for r in records if isinstance(r.get("context"), Mapping)]
    if not ctx:
        return None
    chunks = [int(c.get("chunks") or 0) for c in ctx]
    tokens = [int(c.get("tokens") or 0) for c in ctx]
    evidence = ", ".join(dict.fromkeys(str(c["evidence"]) for c in ctx if c.get("evidence")))
    return {"n": len(ctx), "budget": ", ".join(dict.fromkeys(str(c.get("budget") or "own") for c in ctx)),
            **({"evidence": evidence} if evidence else {}),  # what it was handed: passages, chains, …
            "chunks": {"median": float(np.median(chunks)), "max": int(max(chunks))},
            "tokens": {"median": float(np.median(tokens)), "max": int(max(tokens))}}


def _num(x: float | None) -> str:
    return "–" if x is None else (f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}")


def context_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per method of what it handed its answer (the Benchmark page's table, the report's)."""
    rows = []
    for m, s in summary.get("methods", {}).items():
        c = s.get("context")
        if not c:
            continue
        rows.append({"method": m, "n": c["n"], "budget": c["budget"],
                     "chunks (median)": c["chunks"]["median"], "chunks (max)": c["chunks"]["max"],
                     "tokens (median)": c["tokens"]["median"], "tokens (max)": c["tokens"]["max"],
                     CTX_RECALL: s.get("metrics", {}).get(CTX_RECALL), CTX_ALL_GOLD: s.get("metrics", {}).get(CTX_ALL_GOLD)})
    return rows


def budget_line(summary: Mapping[str, Any]) -> str:
    """The run's budget in one sentence (the report's and the pages' caption)."""
    b = run_budget(summary.get("settings"))
    return (f"Answer budget: {b.name} — {b.label} ({b.limits()})." if not b.own else
            "Answer budget: own — each method answered from its own paper default (not a like-for-like context; "
            "egx bench --budget bubblerag gives every method ≤ 15 chunks).")


#: How many times the passage methods' median a method's evidence tokens must be, under a budget of chunks alone,
#: for the comparison to say it is not equal in tokens. The passage methods hand the same kind of cut (up to 15
#: passages), so their tokens differ by the passages' lengths alone; 1.25 names a method that hands a quarter more
#: text than that (audit 55: ReG's chains, a median of 1,893 tokens from ≤ 15 passages against ~1,350, up to 4,893).
UNEVEN_TOKENS = 1.25


def uneven_tokens_note(tokens: Mapping[str, float], passage_methods: Iterable[str], budget_tokens: int | None) -> str:
    """A sentence for a comparison whose budget caps chunks but not tokens: each method whose evidence tokens
    (``tokens``: method → a median over questions, or one run's) are :data:`UNEVEN_TOKENS` times the median of the
    ``passage_methods`` (those handed passages alone), and the budgets that give every method the same tokens. ""
    with a token cap, without a passage method to compare with, or when none is over."""
    passages = set(passage_methods)  # read once: an iterator would be spent by the first pass
    plain = [float(tokens[m]) for m in passages if m in tokens]
    if budget_tokens is not None or not plain:
        return ""
    ref = float(np.median(plain))
    big = {m: t for m, t in tokens.items() if m not in passages and ref > 0 and t >= UNEVEN_TOKENS * ref}
    if not big:
        return ""
    said = ", ".join(f"{m} {t:,.0f}" for m, t in big.items())
    return (f"Equal in chunks, not in tokens: {said} tokens of evidence against the passage methods' median of "
            f"{ref:,.0f} — a larger context. For a comparison equal in tokens, pick the budget sgrag (≤ 1,200 "
            "tokens) or a custom one such as 15,1500tok.")


def context_lines(summary: Mapping[str, Any]) -> list[str]:
    """The report's section on what each method handed its answer."""
    rows = context_rows(summary)
    lines = ["", "## What each method handed its answer", "", budget_line(summary), ""]
    if not rows:
        return [*lines, "No record of this run holds its answer's context (a run made before contexts were "
                        "recorded, or methods that record none).", ""]
    lines += ["Chunks and WordPiece tokens of the evidence each answer step was handed (median and max over the "
              "questions), and the gold passages in it: ctx recall (share of the gold passages) and ctx all gold "
              "(share of questions with every gold passage), in %.", "",
              "| method | n | chunks median | chunks max | tokens median | tokens max | ctx recall | ctx all gold |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        pct = [("–" if r[k] is None else f"{100 * r[k]:.1f}") for k in CTX_METRICS]
        lines.append(f"| {r['method']} | {r['n']} | {_num(r['chunks (median)'])} | {r['chunks (max)']} | "
                     f"{_num(r['tokens (median)'])} | {r['tokens (max)']:,} | {pct[0]} | {pct[1]} |")
    uneven = run_tokens_note(summary)
    return [*lines, *(["", uneven] if uneven else []), ""]


def run_tokens_note(summary: Mapping[str, Any]) -> str:
    """:func:`uneven_tokens_note` for a benchmark run, on each method's median evidence tokens."""
    ctx = {m: s["context"] for m, s in summary.get("methods", {}).items() if s.get("context")}
    medians = {m: float(c["tokens"]["median"]) for m, c in ctx.items()}
    passages = [m for m, c in ctx.items() if c.get("evidence") == "passages"]  # a run before evidence was recorded: none
    return uneven_tokens_note(medians, passages, run_budget(summary.get("settings")).tokens)
