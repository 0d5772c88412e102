"""BubbleRAG step 4 — the answer (§3.6) with its evidence: the unified evidence graph, the serialized
triples, the source passages with their provenance, per-stage latency and tokens, and exports
(evidence graph as egx JSON / GraphML / standalone HTML, the full trace as JSON). A saved trace can
be loaded back: its record is shown, and "Replay" re-runs the same question and settings here.
"""

from __future__ import annotations

import streamlit as st

from components import state as S
from components import tour
from components.answer_view import question_gold_chunks, recording_gap_warning, source_passages_ui
from components.bubblerag import ask as panels
from components.bubblerag import shared as bubble
from components.page import current, header
from components.question import workspace_questions
from components.suggestions import graph_suggestions, suggested_questions_ui

act = header()
query = bubble.question_ui(act, "ask")
suggested_questions_ui(graph_suggestions(act), on_pick=lambda q: S.set_value(S.BUBBLE_QUESTION, q),
                       key=S.BUBBLE_SUGGESTED)
if query:  # before the run: the recorded LLM on a question it holds no run of answers with its fallbacks
    recording_gap_warning(act.llm_name, act.workspace.name, [query], ["bubblerag"])
result = bubble.current_run(act, query)
doc = ""
if result is not None:
    # the lesson on this run: open on the guided demo's step, folded off it (when the question has a gold answer).
    # On the step it comes first, above the answer it names (audits 55 and 56: at 1280×720 the answer box pushed the
    # lesson's last lines, the wrong passage and the no-LLM quote, below the fold); off it, under the answer.
    lesson_first = tour.on_step_page(current())
    if lesson_first:
        tour.lesson_ui(current(), act, {"bubblerag": result}, question=query)
    panels.create_answer_ui(act, result)
    if not lesson_first:
        tour.lesson_ui(current(), act, {"bubblerag": result}, question=query)
    bubble.early_exit_note(result)
    tabs = st.tabs(["Evidence graph", "Triples", "Source passages", "Latency and tokens", "Export and replay"])
    with tabs[0]:
        doc = panels.create_evidence_ui(act, result)
    with tabs[1]:
        panels.create_triples_ui(act, result)
    with tabs[2]:
        # with a ✓ on the gold passages, whose ranks the lesson above speaks of
        source_passages_ui(act, result, question_gold_chunks(workspace_questions(act, warn=False), query))
    with tabs[3]:
        panels.create_latency_ui(act, result.trace, key=S.BUBBLE_LATENCY)
    with tabs[4]:
        panels.create_export_ui(act, result, doc)
        panels.create_trace_upload_ui(act, result)
else:
    panels.create_trace_upload_ui(act, None)
