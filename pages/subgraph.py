"""Subgraph matching (SG-RAG, "Structure Guided Retrieval-Augmented Generation for Factual Queries", sg_rag.txt §4):
query graph → normalization → decomposition → completion → matched subgraphs next to the query graph → answer,
plus the dominance model (App. C).

Thin view: widgets → ``runs.method_run`` (cached core call) → the panels of components/sgrag_view.py.
"""

from __future__ import annotations

import streamlit as st

from components import sgrag_view as sv
from components import tour, workspaces
from components.page import current, header

act = header()
lesson_at = tour.lesson_slot(current())  # the tour's lesson opens the page: below the tables it was under the fold
graph = workspaces.whole_graph(act.workspace, "SG-RAG's matching, drawings and dominance model")
sv.matchable(graph)
with tour.settings_box(current()):  # on the tour: folded, so the query graph comes up to the lesson
    query = sv.question(act, graph)
    cfg = sv.knobs()
if not query.strip():
    tour.clear_lesson(lesson_at)
    st.info("Type a question.")
    st.stop()
tour.expect_lesson(lesson_at, query)  # a lesson of another question leaves the top at once
result = sv.run(act, query, cfg)
qcolors, qkg = sv.qnode_colors(result.query_graph), sv.query_graph_kg(result.query_graph)
sv.query_graph_panel(act, result, qcolors, qkg)
sv.normalization_panel(result)
sv.decomposition_panel(result)
sv.completion_panel(result)
sv.subgraphs_panel(act, graph, result, query, qcolors, qkg)
sv.answer_panel(act, result)
# the guided demo's lesson on this run: what the query graph joined, which UNK the answer came from
tour.lesson_ui(current(), act, {"sgrag": result}, where=lesson_at, question=query,
               own=tour.sgrag_lesson(result, graph))
sv.dominance_panel(act, result)
