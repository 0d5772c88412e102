"""How an answer was made, shown next to it on every page that shows one (issue 16): "Extractive
answer (no LLM)" with what that means, and what ``none`` mode could not do for this question.
The words come from :func:`core.methods.answering.describe_answer` (the CLI prints the same)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from components.ui import md_escape
from core.methods.answering import AnswerNote, describe_answer, method_notices


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
        st.caption(text)
        return note
    st.caption(f"**{md_escape(note.label)}.** {md_escape(note.how)}")
    for limit in note.limits:
        st.warning(md_escape(limit), icon=":material/info:")
    return note
