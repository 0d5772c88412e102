"""BubbleRAG step 1 — anchor grouping (§3.2, Figure 3): from the question to weighted anchor groups.

A step control walks through the stages: question (with the pre-retrieved passages) → explicit and
inferred keywords → specialized keywords → schema relaxations with the passage that justified each →
candidate nodes/edges per keyword with their similarity → the final groups and their weights. Each
group keeps its colour on the later pages.
"""

from __future__ import annotations

import streamlit as st

from components import state as S
from components import tour
from components.bubblerag import anchors as panels
from components.bubblerag import shared as bubble
from components.page import header

act = header()
query = bubble.question_ui(act, "anchors")
result = bubble.current_run(act, query)
if result is not None and not bubble.early_exit_note(result):
    S.reset_on_change(S.BUBBLE_STAGE, (act.info.name, query))  # a new question is walked from its first stage
    # the tour's steps open on stage 6, the groups, their weights and the anchors drawn, with the earlier stages
    # folded under it (two audits' lecturers docked the five clicks from stage 1 to the drawing)
    wkey = S.bind(S.BUBBLE_STAGE, panels.STAGES[-1] if tour.on_step_page("pages/bubble_anchors.py") else panels.STAGES[0])
    c1, c2 = st.columns([5, 1])
    stage = c1.select_slider("Stage", panels.STAGES, key=wkey, help="Walk through anchor grouping one stage at a time.")
    S.keep(S.BUBBLE_STAGE, stage)
    c2.button("Next stage", icon=":material/arrow_forward:", key=S.sub(S.BUBBLE_STAGE, "next"), on_click=panels.next_stage, disabled=stage == panels.STAGES[-1],
              width="stretch")
    upto = panels.STAGES.index(stage)
    show = (panels.create_question_ui, panels.create_keywords_ui, panels.create_specialization_ui, panels.create_relaxation_ui,
            panels.create_candidates_ui, panels.create_groups_ui)
    # The current stage first; the earlier ones stay readable below it.
    show[upto](act, result)
    if upto:
        with st.expander("Earlier stages", expanded=False):
            for fn in show[:upto]:
                fn(act, result)
