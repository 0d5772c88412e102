"""The HippoRAG 2 page's panels, one per stage of :mod:`core.methods.baselines.hipporag2`: linked facts → kept
facts (recognition memory's verdict, or its fallback) → seeds → PPR mass → ranked passages → answer. Each takes
the run's result and what else it shows as arguments; user text reaches the page escaped (tables are dataframes,
which show text as it is)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import charts
from components import state as S
from components.answer_view import answer_note, gold_answer, off_gold_source, question_answers, replay_banner
from components.knobs import knob_widget
from components.question import question_box, workspace_questions
from components.ui import md_escape, public_text
from core.graph.model import passage_label
from core.graph.reader import read_ahead
from core.methods.baselines import HippoRAG2Config
from core.methods.baselines.hipporag2 import HippoRAG2Result
from core.methods.diagnoser import answer_by_llm

if TYPE_CHECKING:
    from components.sidebar import Active

#: Under the mass chart: why passages unrelated to the question hold mass too.
PASSAGE_MASS_NOTE = ("Every passage node starts with some of the reset (its dense score × the passage node weight, "
                     "§3.2), and on a small graph the walk also reaches passages through shared phrases, so "
                     "passages unrelated to the question keep a little mass: read the order of the top bars, not "
                     "their presence.")
#: Ranked passages the page lists.
TOP = 10
DEFAULT_QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"


def question(act: Active) -> tuple[str, dict[str, Any], list[Any]]:
    """The question box over the workspace's questions with gold evidence; (question, those questions by text, every
    question of the workspace)."""
    questions = workspace_questions(act)
    by_q = {q.question: q for q in questions if q.gold_chunks}
    query = question_box(list(by_q), key=S.HIPPORAG2_QUESTION, custom_key=S.HIPPORAG2_CUSTOM,
                         default=DEFAULT_QUESTION if act.graph.name == "demo" or not by_q else "",
                         help="Questions of this workspace that come with gold evidence, or your own.")
    return query, by_q, questions


def knobs() -> HippoRAG2Config:
    """The four knobs the page varies, in a row."""
    c1, c2, c3, c4 = st.columns(4)
    top_k = knob_widget(HippoRAG2Config, "linking_top_k", S.HIPPORAG2_LINKING, where=c1)
    weight = knob_widget(HippoRAG2Config, "passage_node_weight", S.HIPPORAG2_PASSAGE_WEIGHT, where=c2)
    damping = knob_widget(HippoRAG2Config, "damping", S.HIPPORAG2_DAMPING, where=c3)
    memory = knob_widget(HippoRAG2Config, "recognition_memory", S.HIPPORAG2_MEMORY, where=c4)
    return HippoRAG2Config().with_(linking_top_k=int(top_k), passage_node_weight=float(weight),
                                   damping=float(damping), recognition_memory=bool(memory))


def stages(act: Active, res: HippoRAG2Result, query: str, by_q: dict[str, Any], questions: list[Any]) -> None:
    """Every stage's panel, in pipeline order, after the replay notice."""
    replay_banner(res)  # a partial replay says so before anything else
    gold = tuple(by_q[query].gold_chunks) if query in by_q else ()
    shown = [c.chunk_id for c in res.ranked_chunks[:TOP]] + list(gold)
    read_ahead(act.graph, chunk_ids=shown)  # on a graph store: the titles in one read
    # a document's passages share its title: each by its place, "Ansel Brisk (2 of 4)" (audit 55 read "Ansel Brisk —
    # rank 17; Ansel Brisk — rank 8" and could not tell them apart)
    titles = {c: passage_label(act.graph, c) for c in dict.fromkeys(shown) if c in act.graph.chunk_index}
    if res.linked:
        linked_facts(res)
        recognition(res)
    if res.walk is not None:
        seeds(res)
        mass(res, gold)
    ranked(res, titles, gold)
    answer(res, question_answers(questions, query), off_gold_source(res, gold, act.graph))


def linked_facts(res: HippoRAG2Result) -> None:
    """1 · the facts linked to the question, with recognition memory's verdict on each."""
    st.subheader("1 · Query-to-triple linking")
    st.caption("Every fact of the KG (its “head relation tail” text) is scored against the question; the scores are "
               "min-max normalised over all facts and the best linking_top_k are linked.")
    kept = {f.edge for f in res.kept}
    filtered = res.recognition is not None and res.recognition.by == "llm"
    st.dataframe(pd.DataFrame([{"rank": i, "subject": f.subject, "relation": f.relation, "object": f.object,
                                "score (min-max)": round(f.score, 4), "cosine": round(f.cosine, 4),
                                "kept": ("✓" if f.edge in kept else "✗") if filtered else "(unfiltered)"}
                               for i, f in enumerate(res.linked, start=1)]), hide_index=True, width="stretch")


def recognition(res: HippoRAG2Result) -> None:
    """2 · recognition memory: the LLM's verdict, or the fallback the trace names."""
    st.subheader("2 · Recognition memory")
    rec = res.recognition
    if rec is None:
        return
    if rec.by == "llm":
        st.success(md_escape(rec.verdict[:1].upper() + rec.verdict[1:]) + ".")
    else:
        st.warning("Not filtered — " + md_escape(public_text(rec.verdict)) + ".", icon=":material/filter_alt_off:")


def seeds(res: HippoRAG2Result) -> None:
    """3 · the walk's reset weights: phrase seeds and the passage seeds' mass."""
    st.subheader("3 · Seeds")
    data = res.seeds
    if data is None:
        return
    st.caption("A phrase seed weighs the mean, over the kept facts naming it, of the fact's score divided by the "
               "passages the phrase appears in; the linking_top_k heaviest keep their weight. Every passage is "
               f"seeded too: its min-max dense score × {data.passage_node_weight:g}.")
    left, right = st.columns([3, 2])
    left.dataframe(pd.DataFrame([{"phrase": s.name, "weight": round(s.weight, 4), "kept facts": s.facts,
                                  "passages": s.passages} for s in res.phrase_seeds]), hide_index=True, width="stretch")
    if data.phrase_dropped:
        left.caption("Past linking_top_k (weight 0): " + md_escape(", ".join(str(d["name"]) for d in data.phrase_dropped)))
    total = data.phrase_seed_mass + data.passage_seed_mass
    right.metric("Phrase seed mass", f"{data.phrase_seed_mass:.3f}",
                 help="Σ of the phrase seeds' weights, before the walk normalises the reset vector.")
    right.metric("Passage seed mass", f"{data.passage_seed_mass:.3f}",
                 delta=f"{data.passage_seed_mass / total:.0%} of the reset" if total > 0 else None, delta_color="off",
                 delta_arrow="off",  # a share, not a gain: its green ↑ read as one (an audit)
                 help="Σ over every passage of its min-max dense score × the passage node weight.")


def mass(res: HippoRAG2Result, gold: Sequence[str]) -> None:
    """4 · where the personalized PageRank's mass went: phrase nodes vs passage nodes, the top of each."""
    st.subheader("4 · PPR mass")
    walk, graph = res.walk, res.walked_graph
    if walk is None or graph is None:
        return
    st.caption(f"Personalized PageRank, damping {walk.damping:g}, over {graph.phrases:,} phrase and {graph.passages:,} "
               f"passage nodes ({graph.fact_pairs:,} fact pairs, {graph.synonym_edges:,} synonym edges, "
               f"{graph.passage_edges:,} passage–phrase edges); {walk.iterations} iterations"
               + ("" if walk.converged else ", not converged") + f". Weights — {md_escape(graph.weights)}.")
    if graph.region:
        st.info(md_escape(f"The walk covered a region of {graph.phrases:,} of {graph.region.get('of_phrases', 0):,} "
                          f"phrases, within {graph.region.get('hops')} hops of the phrase seeds."))
    st.plotly_chart(charts.ppr_mass_figure(walk, gold), key=S.HIPPORAG2_MASS_CHART)
    # an audit's lecturer asked why Lothair II's passage sat among the top bars of the Keanu question
    st.caption(PASSAGE_MASS_NOTE)


def ranked(res: HippoRAG2Result, titles: dict[str, str], gold: Sequence[str]) -> None:
    """5 · the passages by the PPR score of their passage node, gold marked (or dense retrieval, when HippoRAG 2
    fell back to it)."""
    st.subheader("5 · Ranked passages")
    if res.dense_fallback is not None:
        st.warning("Dense passage retrieval — " + md_escape(public_text(res.dense_fallback.why)) + ".",
                   icon=":material/alt_route:")
    rows = [{"rank": i, "passage": titles.get(c.chunk_id, c.chunk_id), "score": round(c.score, 6)}
            | ({"gold": "✓" if c.chunk_id in gold else ""} if gold else {})
            for i, c in enumerate(res.ranked_chunks[:TOP], start=1)]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    if gold:
        ranks = {c.chunk_id: i for i, c in enumerate(res.ranked_chunks, start=1)}
        by_rank = sorted(gold, key=lambda g: ranks.get(g, len(ranks) + 1))  # best first, the not retrieved last
        st.caption("Gold passages, best first: " + md_escape("; ".join(
            f"{titles.get(g, g)} — rank {ranks[g]}" if g in ranks else f"{titles.get(g, g)} — not retrieved"
            for g in by_rank)) + f" (of {len(res.ranked_chunks)} returned).")


def answer(res: HippoRAG2Result, golds: Sequence[str], off_gold: str = "") -> None:
    """6 · the answer from the top passages, how it was made, and the gold answer beside it (``off_gold``: the
    non-gold passage an extracted answer was quoted from, :func:`~components.answer_view.off_gold_source`)."""
    st.subheader("6 · Answer")
    st.markdown(f"**{md_escape(res.answer or '(no answer)')}**")
    answer_note(res)
    gold_answer(res.answer, golds, by_llm=answer_by_llm(res), off_gold=off_gold)
