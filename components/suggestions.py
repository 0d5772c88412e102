"""Suggested questions for a workspace without a questions file (Ask and Compare): a few questions the graph
answers, each worded from one of its relations and checked against it by
:func:`core.graph.suggest.answerable_questions` (no LLM), one button each; a click puts the question in the
page's question box."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from components import state as S
from components.question import workspace_questions
from components.ui import md_escape
from core.graph.reader import whole_graph
from core.graph.suggest import SuggestedQuestion, answerable_questions

if TYPE_CHECKING:
    from components.sidebar import Active

N_SUGGESTIONS = 4
_KIND_HELP = {"relation": "One relation of the graph, asked from its known end: the graph holds one answer, and a "
                          "passage of the workspace states it."}


def graph_suggestions(act: Active) -> tuple[SuggestedQuestion, ...]:
    """The suggestions for the active workspace when it has no questions of its own (else none): kept on the
    graph, so they are written once per loaded graph. A graph in a graph store gets none (it is not read whole
    for this)."""
    if workspace_questions(act, warn=False):  # an unreadable questions file: the page says so; suggestions help
        return ()
    g = whole_graph(act.graph)
    if g is None:
        return ()
    return g.derived(("answerable_questions", N_SUGGESTIONS), lambda: answerable_questions(g, k=N_SUGGESTIONS))


def suggested_questions_ui(suggestions: tuple[SuggestedQuestion, ...], *, on_pick: Callable[[str], None],
                           key: str) -> None:
    """One button per suggestion; a click calls ``on_pick(question)`` before the page reruns (so the question
    box shows it). Nothing is drawn without suggestions."""
    if not suggestions:
        return
    st.caption("This workspace has no questions file. Questions its graph answers (each worded from one relation "
               "of its best-connected entities, whose answer a passage states; no LLM):")
    for i, s in enumerate(suggestions):  # one per line: a question cut to a column's width cannot be read
        st.button(md_escape(s.question), key=S.sub(key, str(i)), on_click=on_pick, args=(s.question,),
                  help=_KIND_HELP.get(s.kind), width="content", icon=":material/lightbulb:", type="tertiary")
