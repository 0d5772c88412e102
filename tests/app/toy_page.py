"""The toy method's page (tests/fakes.py ``TOY_METHOD``; tests/test_new_method.py puts it at pages/toy.py of a test
folder and registers the method with it): a new method's page is a page file like this one, composing the app's shared panels, with no edit elsewhere."""

from __future__ import annotations

import streamlit as st

from components import compare_view, runs
from components import state as S
from components.page import header
from components.question import question_box, workspace_questions
from tests.fakes import TOY_METHOD

act = header()
query = question_box([q.question for q in workspace_questions(act)], key=S.sub(S.QUESTION, "toy"),
                     custom_key=S.sub(S.QUESTION, "toy.custom"), help="A question of this workspace, or your own.")
if query:
    result = runs.page_run(act, TOY_METHOD, query)
    st.dataframe(compare_view.ranked_table(result, act.graph, ()), hide_index=True)
