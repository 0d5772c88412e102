"""Evidence chains (ReG §4): raw triples vs ReG evidence chains, supervision, and the trained retriever.

For one question and one method: the triples the answer step would see as an unordered list next to
the same triples reorganized into evidence chains (merged answers and multi-entity groups visible),
the two prompts with their token counts; for supervision (when the question has an answer): the
candidate pool, what compression removed, what the LLM kept vs the shortest-path signal; and the
training curves and held-out recall of the retrievers trained on weak vs refined supervision.
Panels: components/reg_view.py.
"""

from __future__ import annotations

import streamlit as st

from components import reg_view as rv
from components import runs, tour
from components.page import current, header
from core.methods.registry import METHODS

act = header()
lesson_at = tour.lesson_slot(current())  # the tour's lesson opens the page: below the tables it was under the fold
rv.has_triples(act.graph)  # on a graph store: a read-through view (ReG reads the 3-hop region of the question)
items = rv.questions(act)
with tour.settings_box(current()):  # on the tour: folded, so the triples and chains come up to the lesson
    query, method, fmt = rv.choices(act, items)
if not query.strip():
    st.info("Type a question to see its evidence.")
    st.stop()
rv.not_recorded(act, method, query)
res = runs.page_run(act, METHODS[method], query, METHODS[method].make_config(evidence_format=fmt))
said = rv.evidence(act, res, method)  # the run's notices, not repeated by the Train panel
# the guided demo's lesson on this run: the chain the answer came from, whether a chain holds the gold answer
tour.lesson_ui(current(), act, {method: res}, where=lesson_at, question=query, own=tour.reg_lesson(res))
rv.supervision(act, items, query)
rv.training(act, items, said)
