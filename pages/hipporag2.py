"""HippoRAG 2 (Gutiérrez et al. 2025, §3.2), the baseline BubbleRAG and FastInsight compare against, step by step:
linked facts → kept facts → seeds → PPR mass → ranked passages → answer. Thin view: widgets →
``runs.method_run`` (cached core call) → the panels of ``components/hipporag2_view.py``.
"""

from __future__ import annotations

import streamlit as st

from components import hipporag2_view as view
from components import runs, tour
from components.page import current, header
from core.methods.baselines import HIPPORAG2

act = header()
lesson_at = tour.lesson_slot(current())  # on the guided demo's HippoRAG 2 step its lesson opens the page
with tour.settings_box(current()):  # on the tour: folded, so the stages come up under the bar
    query, by_q, questions = view.question(act)
    cfg = view.knobs()
if not query:
    st.info("Type a question to step through HippoRAG 2.")
    st.stop()
res = runs.page_run(act, HIPPORAG2, query, cfg)
tour.lesson_ui(current(), act, {"hipporag2": res}, where=lesson_at, question=query, extractive="hipporag2")
view.stages(act, res, query, by_q, questions)
