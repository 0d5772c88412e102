"""HippoRAG 2 (Gutiérrez et al. 2025, §3.2), the baseline BubbleRAG and FastInsight compare against, step by step:
linked facts → kept facts → seeds → PPR mass → ranked passages → answer. Thin view: widgets →
``runs.method_run`` (cached core call) → the panels of ``components/hipporag2_view.py``.
"""

from __future__ import annotations

import streamlit as st

from components import hipporag2_view as view
from components import resources, runs
from components import state as S
from components.answer_view import question_answers, replay_banner
from components.knobs import knob_widget
from components.sidebar import active
from components.teaching import page_intro
from components.ui import error_text, md_escape, question_picker
from core.errors import EgxError
from core.graph.reader import read_ahead
from core.methods.base import Backends
from core.methods.baselines import HIPPORAG2, HippoRAG2Config

DEFAULT_QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"

act = active()
ws = act.workspace
st.title("HippoRAG 2")
page_intro("pages/hipporag2.py")  # what you are looking at, and the paper section
try:
    questions = resources.workspace_questions(ws, act.key)
except EgxError as exc:
    st.warning(f"The workspace's questions file could not be read: {md_escape(error_text(exc))}")
    questions = []
by_q = {q.question: q for q in questions if q.gold_chunks}
query = question_picker(list(by_q), key=S.HIPPORAG2_QUESTION, custom_key=S.HIPPORAG2_CUSTOM,
                        default_custom=DEFAULT_QUESTION if act.graph.name == "demo" or not by_q else "",
                        help="Questions of this workspace that come with gold evidence, or your own.")
c1, c2, c3, c4 = st.columns(4)
top_k = knob_widget(HippoRAG2Config, "linking_top_k", S.HIPPORAG2_LINKING, where=c1)
weight = knob_widget(HippoRAG2Config, "passage_node_weight", S.HIPPORAG2_PASSAGE_WEIGHT, where=c2)
damping = knob_widget(HippoRAG2Config, "damping", S.HIPPORAG2_DAMPING, where=c3)
memory = knob_widget(HippoRAG2Config, "recognition_memory", S.HIPPORAG2_MEMORY, where=c4)
if not query:
    st.info("Type a question to step through HippoRAG 2.")
    st.stop()

try:
    cfg = HippoRAG2Config().with_(linking_top_k=int(top_k), passage_node_weight=float(weight), damping=float(damping),
                                  recognition_memory=bool(memory))
    res = runs.method_run(HIPPORAG2, ws, act.key, Backends(act.embedder, act.llm, act.reranker), query, cfg)
except EgxError as exc:
    st.error(md_escape(error_text(exc)))
    st.stop()
replay_banner(res)  # a partial replay says so before anything else
gold = tuple(by_q[query].gold_chunks) if query in by_q else ()
shown = [c.chunk_id for c in res.ranked_chunks[:view.TOP]] + list(gold)
read_ahead(act.graph, chunk_ids=shown)  # on a graph store: the titles in one read
titles = {c: (act.graph.chunk(c).title or c) for c in dict.fromkeys(shown) if c in act.graph.chunk_index}

if res.linked:
    view.linked_facts(res)
    view.recognition(res)
if res.walk is not None:
    view.seeds(res)
    view.mass(res, gold)
view.ranked(res, titles, gold)
view.answer(res, question_answers(questions, query))
