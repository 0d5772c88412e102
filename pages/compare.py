"""Compare methods: one question, every registered method side by side.

Ranked passages with gold marks, the evidence subgraphs of all methods overlaid on one layout
(colour per method, black where they overlap), latency and LLM tokens, the failure diagnosis of each
method (where the gold evidence was lost, and the facts behind the verdict), and a button into each
method's step-through page with the same question. Panels: components/compare_view.py.
"""

from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from components import compare_view as cv
from components import state as S
from components import tour, workspaces
from components.answer_view import recording_gap_warning, unrecorded_workspace
from components.page import current, header

act = header()
lesson_at = tour.lesson_slot(current())  # on the guided demo's Compare step its lesson opens the page
graph = workspaces.whole_graph(act.workspace, "the side-by-side evidence graphs and the failure diagnosis")
handed = S.peek_handoff()  # a Benchmark row: its question, workspace (the sidebar switched to it) and method
# on the tour the summary table comes right under the lesson and the folded settings under it: with the settings' line
# above it the table's eighth row fell below a 1440×900 projector's fold on the steps with a longer lesson (audit 46)
summary_at = st.container() if tour.on_step_page(current()) else nullcontext()
with tour.settings_box(current()):  # on the tour: folded, under the summary table
    cv.intro()
    query, gold = cv.question(act, graph)
    methods, budget, cut = cv.choices(act, handed)
tour.expect_lesson(lesson_at, query)  # a lesson of another question leaves the top at once (the runs take seconds)
cv.ready(query, methods, gold, lesson_at=lesson_at)
recording_gap_warning(act.llm_name, act.workspace.name, [query], methods, budget.name)  # before the run
found = cv.run_methods(act, query, methods, budget, gold, cut)
with summary_at:
    cv.summary(act, graph, found, query=query, gold=gold, budget=budget, cut=cut, lesson_at=lesson_at)
cv.overlaid(graph, found, gold)
cv.side_by_side(graph, methods, found, query=query, gold=gold,
                said=unrecorded_workspace(act.llm_name, act.workspace.name))  # said once above
