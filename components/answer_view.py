"""How an answer was made, shown next to it on every page that shows one: "Extractive
answer (no LLM)" with what that means, and what ``none`` mode could not do for this question.
The words come from :func:`core.methods.answering.describe_answer` (the CLI prints the same)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from components.ui import md_escape
from core.methods.answering import AnswerNote, describe_answer, method_notices
from core.replay import replay_notice


def replay_banner(result: Any) -> None:
    """With the ``recorded`` LLM, say first when the run is not the recorded one (some stage ran without
    its recorded reply, or no recorded run matches): a partial replay is never shown as the recording."""
    text = replay_notice(getattr(result.trace, "replay", None))
    if text:
        st.warning(md_escape(text), icon=":material/report:")


def answer_note(result: Any, *, compact: bool = False) -> AnswerNote:
    """A caption naming how ``result``'s answer was made, and a warning per limit of ``none`` mode.

    ``compact`` (narrow columns): the label alone and the limits in one caption."""
    note = describe_answer(result)
    for notice in method_notices(result):  # e.g. reg without a trained retriever is not ReG's retriever
        st.warning(md_escape(notice), icon=":material/warning:")
    if compact:
        text = f"**{md_escape(note.label)}**"
        if note.kind in ("extractive", "heuristic"):
            text += " — it quotes the evidence; no LLM wrote it."
        elif note.kind == "none":
            text += " — " + md_escape(note.how)
        cache = llm_cache_line(result.trace)
        st.caption(text + (f" · {md_escape(cache)}" if cache else ""))
        return note
    st.caption(f"**{md_escape(note.label)}.** {md_escape(note.how)}")
    cache = llm_cache_line(result.trace)
    if cache:
        st.caption(md_escape(cache))
    for limit in note.limits:
        st.warning(md_escape(limit), icon=":material/info:")
    return note


def llm_cache_line(trace: Any) -> str:
    """One line saying how many of the run's LLM replies came from the cache or a recording ("" when none
    was asked), so a reused reply is never passed off as one generated now."""
    hits = sum(int(s.llm_cache.get("hits", 0)) for s in trace.steps)
    total = hits + sum(int(s.llm_cache.get("misses", 0)) for s in trace.steps)
    if not total:
        return ""
    replies = "reply" if total == 1 else "replies"
    if str(trace.backends.get("llm", "")).startswith("recorded"):
        return (f"Recorded LLM run: {hits} of {total} LLM {replies} replayed from the shipped recording "
                "(not generated now; see the provenance in the sidebar).")
    if not hits:
        return f"LLM: {total} {replies} generated now (none from the LLM cache)."
    return (f"LLM cache: {hits} of {total} LLM {replies} answered from the cache (no LLM time; "
            "the sidebar's “Reuse cached LLM replies” switch asks the LLM again).")
