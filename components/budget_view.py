"""The answer budget on the pages that compare methods (Compare, Benchmark): its select and what each method
handed its answer under it (:mod:`core.methods.budget`, :mod:`core.eval.context`).

A budget is one setting for every method of a comparison: a preset quoting its paper's protocol, or a
custom chunk / token count. Each method maps it onto its own knobs (its package's hook), so a page only
passes the chosen budget on; a method page (one method, alone) never offers it and runs the paper default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from components import state as S
from components import tour
from components.ui import error_text, md_escape
from core.errors import EgxError
from core.eval.context import budget_line, run_tokens_note, uneven_tokens_note
from core.methods.answering import AnswerContext, context_of
from core.methods.budget import BUDGETS, COMPARISON_DEFAULT, FORMS, Budget, parse_budget

CUSTOM = "custom"

#: The select's help: every preset's protocol, quoted from its paper.
BUDGET_HELP = ("How much evidence every method may hand to its answer, so the comparison is like for like. "
               + " ".join(f"**{b.name}** — {b.source}" for b in BUDGETS.values())
               + " **custom** — your own: N chunks (10), N tokens (1500tok) or both (10,1500tok). Tokens are "
               "counted offline with WordPiece; a method whose evidence is triples counts the passages they come "
               "from as its chunks.")


def _label(name: str) -> str:
    return f"{name} — {BUDGETS[name].label}" if name in BUDGETS else "custom…"


def default_budget(llm_name: str, workspace: str) -> tuple[str, str]:
    """The budget a comparison starts at and, when it is not :data:`~core.methods.budget.COMPARISON_DEFAULT`,
    why: BubbleRAG §4.1's one budget for every method, except with the ``recorded`` LLM on a workspace whose
    recordings hold no run under it — there a comparison under it would replay no recorded answer, so it starts
    at ``own``, the budget the recordings were made at."""
    if not str(llm_name).startswith("recorded"):
        return COMPARISON_DEFAULT, ""
    from components import resources

    held = {b for w, b in resources.recorded_budgets(resources.recordings_key()) if w == workspace}
    if not held or COMPARISON_DEFAULT in held:
        return COMPARISON_DEFAULT, ""
    return "own", (f"the recorded LLM's runs on “{md_escape(workspace)}” were recorded at each method's own budget "
                   f"only, so the comparison starts there (under “{COMPARISON_DEFAULT}” most recorded answers would "
                   "be missing)")


def budget_select(container: Any, *, scope: str, key: str, custom_key: str,
                  default: str = COMPARISON_DEFAULT) -> Budget | None:
    """The "Budget" select (presets and custom) drawn in ``container``, starting at ``default`` (and following
    it while the user has not picked another: :func:`components.state.follow_default`); the chosen budget, or
    None (with the error shown) when the custom text is not a budget."""
    S.follow_default(key, default)
    choice = S.keep(key, container.selectbox("Budget", [*BUDGETS, CUSTOM], key=S.bind(key, default, scope=scope),
                                             format_func=_label, help=BUDGET_HELP))
    if choice != CUSTOM:
        return BUDGETS[str(choice)]
    text = S.keep(custom_key, container.text_input("Custom budget", key=S.bind(custom_key, "10", scope=scope),
                                                   help=f"Use {FORMS}."))
    try:
        return parse_budget(str(text))
    except EgxError as exc:
        container.error(md_escape(error_text(exc)))
        return None


def handed(ctx: AnswerContext | None) -> str:
    """What an answer was handed, in its own unit: ``"5 chunks / 812 tok"``, or for triple evidence the passages
    the triples come from: ``"subgraph triples from 9 passages / 167 tok"`` (the triples are not chunks)."""
    if ctx is None:
        return "not recorded"
    n = f"{ctx.chunks} passage{'s' if ctx.chunks != 1 else ''}"
    if ctx.evidence != "passages":
        return f"{ctx.evidence} from {n} / {ctx.tokens:,} tok"
    return f"{ctx.chunks} chunk{'s' if ctx.chunks != 1 else ''} / {ctx.tokens:,} tok"


def context_caption(budget: Budget, results: Mapping[str, Any], why_own: str = "") -> None:
    """The comparison's budget in one short caption; per method, the chunks and tokens its answer was handed on
    hover (an audit could not read the whole list on a projector, and the tables show them as ctx chunks and ctx
    tokens). ``why_own``: why the comparison started at ``own`` (:func:`default_budget`)."""
    per = "\n".join(f"- {md_escape(m)}: {handed(context_of(r))}" for m, r in results.items())
    own = ("each method's own paper default — not like for like; pick a budget to give every method the same"
           + (f" ({why_own})" if why_own else "")
           if budget.own else f"{md_escape(budget.label)} for every method, a cap (some hand fewer)")
    st.caption(f"**Answer budget: {md_escape(budget.name)}** — {own}. What each answer was handed: ctx chunks, "
               "ctx tokens in the tables; under the (?) icon.",
               help=("Handed to each answer (WordPiece tokens of evidence):\n\n" + per) if per else "No method ran.")
    note = not_passages_note(results)
    if note:
        st.caption(note)
    ctxs = {tour.short_name(m): ctx for m, ctx in ((m, context_of(r)) for m, r in results.items()) if ctx is not None}
    uneven = uneven_tokens_note({m: c.tokens for m, c in ctxs.items()},
                                [m for m, c in ctxs.items() if c.evidence == "passages"], budget.tokens)
    if uneven:  # audit 55: ReG's chains ran to 3.6× the others' tokens under "≤ 15 chunks", with nothing said
        st.caption(":material/balance: " + md_escape(uneven))


#: How the note below names each kind of evidence that is not passages (:attr:`AnswerContext.evidence`).
EVIDENCE_WORDS = {"chains": "evidence chains", "triples": "KG triples", "subgraph triples": "subgraph triples"}


def not_passages_note(results: Mapping[str, Any]) -> str:
    """A line for the methods whose answer was handed triples or chains, not passages ("" when none):
    their ctx chunks count the passages those come from, their ctx tokens the triple or chain lines. An audit read
    ReG's "9 chunks, 418 tokens" beside 5 passages of ~1,000 tokens as a contradiction the page did not explain."""
    forms: dict[str, list[str]] = {}
    for m, r in results.items():
        ctx = context_of(r)
        if ctx is not None and "passages" not in ctx.evidence:  # BubbleRAG's "triples + passages" hands passages
            forms.setdefault(EVIDENCE_WORDS.get(ctx.evidence, ctx.evidence), []).append(f"**{md_escape(tour.short_name(m))}**")
    if not forms:
        return ""
    said = [f"{' and '.join(ms)} {'handed ' if not k else ''}{md_escape(form)}" for k, (form, ms) in enumerate(forms.items())]
    return (f"Not passages: {', '.join(said)} — their ctx chunks count the passages these come from, their ctx "
            "tokens only the lines handed over.")


def context_columns(result: Any) -> dict[str, Any]:
    """The Compare summary row's context cells: chunks and tokens handed to the answer."""
    ctx = context_of(result)
    return {} if ctx is None else {"ctx chunks": ctx.chunks, "ctx tokens": ctx.tokens}


def run_context_cells(method_summary: Mapping[str, Any]) -> dict[str, Any]:
    """A loaded benchmark's summary row cells of what one method handed its answer (median and max over the
    questions); none for a run made before contexts were recorded."""
    c = method_summary.get("context")
    if not c:
        return {}
    return {"ctx chunks (median)": c["chunks"]["median"], "ctx chunks (max)": c["chunks"]["max"],
            "ctx tokens (median)": c["tokens"]["median"], "ctx tokens (max)": c["tokens"]["max"]}


def run_caption(summary: Mapping[str, Any]) -> None:
    """A loaded benchmark's budget in one caption, with what its context columns mean."""
    note = (" ctx chunks / ctx tokens: what each method handed its answer (median and max over the questions; "
            "WordPiece tokens of evidence); ctx recall / ctx all gold: the gold passages in it."
            if any(s.get("context") for s in summary.get("methods", {}).values()) else
            " This run recorded no answer contexts (made before they were recorded).")
    st.caption(md_escape(budget_line(summary)) + note)
    uneven = run_tokens_note(summary)
    if uneven:  # audit 55: ReG's chains ran to 3.6× the others' tokens under "≤ 15 chunks", with nothing said
        st.caption(":material/balance: " + md_escape(uneven))
