"""GRanker vs plain reranking (FastInsight §3.3–§3.4): same question, same candidates.

On a KG FastInsight searches KG nodes by default (FastInsight §4.2.2, text-rich KGs: node text = name,
description and linked passage text), or the passage graph derived from the KG; the page draws what
was searched. Left: the final FastInsight candidates ranked by the plain reranker (``head(H)``); right: ranked by
GRanker (``head((1−α)H + αPH)``), with each passage's rank shift. Below: the candidate subgraph
with the smoothing weights P on its edges, a round-by-round replay of the STeX loop, and — when the
workspace has gold evidence — R@10, nDCG@10, TR and MissTR of both rankings after every round.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components import charts, fastinsight_view, graph_view, resources, runs, workspaces
from components import state as S
from components.knobs import knob_widget
from components.sidebar import active
from components.teaching import page_intro
from components.ui import md_escape, question_picker
from core.errors import EgxError
from core.eval.metrics import round_metrics
from core.graph.reader import whole_graph_read
from core.methods.base import Backends
from core.methods.fastinsight import METHOD, FastInsightConfig
from core.methods.fastinsight.stages import NodeGraphData, PassageGraphData
from core.methods.fastinsight.views import (
    RankRow,
    is_gold,
    item_title,
    rank_comparison,
    reranker_inputs,
    stex_table,
)

DEFAULT_QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
TOP = 10
DEFAULTS = FastInsightConfig()


def _shift_label(shift: int) -> str:
    return f"▲ {shift}" if shift > 0 else f"▼ {-shift}" if shift < 0 else "="


def _ranking_table(rows: list[RankRow], *, granker: bool, has_gold: bool, unit: str = "passage") -> pd.DataFrame:
    key = (lambda r: r.granker_rank) if granker else (lambda r: r.plain_rank)
    out = []
    for r in sorted(rows, key=key)[:TOP]:
        # st.table renders cells as Markdown: a title is user data (escaped, never a link)
        rec: dict[str, object] = {"rank": key(r), unit: md_escape(r.title),
                                  "score": round(r.granker_score if granker else r.plain_score, 4)}
        if granker:
            rec["shift"] = _shift_label(r.shift)
        if has_gold:
            rec["gold"] = "✓" if r.gold else ""
        out.append(rec)
    return pd.DataFrame(out)


act = active()
ws = act.workspace
st.title("GRanker vs plain reranking")
page_intro("pages/granker.py")  # what you are looking at, and the paper section
graph = act.graph  # on a graph store: a read-through view (KG nodes are read as FastInsight asks for them)

reranker = act.reranker
if reranker is not None:
    note = f"**Reranker: {md_escape(reranker.name)}** — {md_escape(reranker.description)}"
    if reranker.linear_head:
        said = "feature smoothing equals score smoothing" in reranker.description
        note += ("\n\nWith this linear head GRanker's score is simply (1−α)·S + α·P·S of the plain scores S."
                 if said else "\n\nIts head is linear, so here **feature smoothing equals score smoothing**: "
                 "GRanker's score is (1−α)·S + α·P·S of the plain scores S.")
    st.info(note)

try:
    questions = resources.workspace_questions(ws, act.key)
except EgxError as exc:
    st.warning(f"The workspace's questions file could not be read: {exc}")
    questions = []
gold_by_question = {q.question: q for q in questions if q.gold_chunks}
query = question_picker(list(gold_by_question), key=S.GRANKER_QUESTION, custom_key=S.GRANKER_CUSTOM,
                        default_custom=DEFAULT_QUESTION if graph.name == "demo" or not questions else "",
                        help="Questions of this workspace that come with gold evidence, or your own.")
gold = gold_by_question[query].gold_chunks if query in gold_by_question else ()

c1, c2, c3, c4 = st.columns(4)
alpha = knob_widget(FastInsightConfig, "alpha", S.GRANKER_ALPHA, where=c1)
beta = knob_widget(FastInsightConfig, "beta", S.GRANKER_BETA, where=c2)
b_max = knob_widget(FastInsightConfig, "b_max", S.GRANKER_B_MAX, where=c3)
batch = knob_widget(FastInsightConfig, "batch", S.GRANKER_BATCH, where=c4)
if alpha == 0.0:
    st.caption("α = 0: GRanker is plain reranking, so both columns agree.")
GRAPHS = {"kg_nodes": "KG nodes (paper §4.2.2)", "passages": "passage graph (passages sharing an entity)"}
graph_choice = DEFAULTS.graph
if graph.kind == "kg" and graph.n_nodes:
    graph_choice = knob_widget(FastInsightConfig, "graph", S.GRANKER_GRAPH, format_func=GRAPHS.__getitem__)

if whole_graph_read(ws) and not (graph.kind == "kg" and graph_choice == "kg_nodes"):
    # the passage graph (or a corpus graph) is derived from the whole graph, in the app's memory
    workspaces.whole_graph(ws, "the passage graph FastInsight searches with this option")

if not query.strip():
    st.info("Type a question to compare the rankings.")
    st.stop()

backends = Backends(act.embedder, act.llm, reranker)
try:
    cfg = DEFAULTS.with_(alpha=float(alpha), beta=float(beta), b_max=int(b_max), batch=int(batch), graph=graph_choice)
    res = runs.method_run(METHOD, ws, act.key, backends, query, cfg)
    pg = fastinsight_view.fastinsight_search_graph(ws, act.key, res, res.searched, str(cfg.overrides()))
except EgxError as exc:
    st.error(str(exc))
    st.stop()

NODES = res.searched == "kg_nodes"
UNIT, UNITS = ("node", "nodes") if NODES else ("passage", "passages")
final = res.engine.final.granker
rows = rank_comparison(final, pg, graph, gold)
if NODES:
    ng_data = NodeGraphData.of(res.trace)
    assert ng_data is not None  # a node-mode run records its node graph
    st.caption(f"{len(rows)} candidate KG nodes after {len(res.engine.rounds)} rounds on the KG itself (FastInsight "
               f"§4.2.2): {ng_data.nodes:,} nodes, {ng_data.edges:,} edges; a node's text is its name, "
               f"description and linked passage text (≤ {cfg.node_text_chars} characters). The ranked nodes are "
               f"mapped to their passages for the answer and R@10; gold nodes are the nodes of gold passages. "
               f"Reranker inputs: {reranker_inputs(res.engine)}. Reranker in use: {md_escape(res.reranker)}.")
else:
    pg_data = PassageGraphData.of(res.trace)
    assert pg_data is not None  # a passage-mode run records its passage graph
    src = ("the corpus graph's references" if pg_data.source == "corpus_graph" else
           f"a passage graph derived from the KG (passages sharing an entity; entities in more than "
           f"{pg_data.params.get('max_entity_passages')} passages are hubs and skipped)")
    st.caption(f"{len(rows)} candidates after {len(res.engine.rounds)} rounds on {md_escape(src)}: "
               f"{pg_data.passages:,} passages, {pg_data.edges:,} edges. Reranker inputs: {reranker_inputs(res.engine)}. "
               f"Reranker in use: {md_escape(res.reranker)}.")

left, right = st.columns(2, gap="large")
with left:
    st.subheader("Plain reranking")
    st.table(_ranking_table(rows, granker=False, has_gold=bool(gold), unit=UNIT))
with right:
    st.subheader(f"GRanker (α = {alpha:g})")
    st.table(_ranking_table(rows, granker=True, has_gold=bool(gold), unit=UNIT))
if NODES:
    st.caption("Passages of the GRanker node ranking (rank order, repeats dropped): "
               + ", ".join(md_escape(graph.chunk(c.chunk_id).title or c.chunk_id) for c in res.ranked_chunks[:TOP]))
moved = sum(1 for r in rows if r.shift != 0)
st.caption(f"{moved} of {len(rows)} candidates change rank under GRanker.")

# Only the open tab is computed and sent: an α or β step redraws one chart, not also a 700 KB vis-network
# drawing, the STeX replay and the metrics of every round in tabs nobody is looking at.
TABS = ("Rank shifts", "Candidate subgraph (P)", "STeX rounds", "Metrics per round")
tab_shift, tab_graph, tab_rounds, tab_metrics = st.tabs(TABS, key=S.GRANKER_TAB, on_change="rerun")
with tab_shift:
    if tab_shift.open:
        st.plotly_chart(charts.rank_shift_figure(rows, TOP), key=S.GRANKER_SHIFT_CHART)
        st.caption(f"Each line joins a {UNIT}'s plain rank (left) to its GRanker rank (right): blue moved up, "
                   "orange moved down, green is gold evidence.")
with tab_graph:
    if tab_graph.open:
        limit = min(30, len(rows))
        html = fastinsight_view.smoothing_graph_html(res, pg, graph, f"{act.key}|{query}|{backends.names()}|{cfg.overrides()}",
                                              limit, tuple(gold))
        graph_view.render_html(html, height=540)
        st.caption(f"The top {limit} candidate {UNITS} by GRanker. An edge i → j carries P_ij = (1/deg j) / "
                   f"Σ_k (1/deg k) over i's retrieved neighbours k (degrees in the full "
                   f"{'KG' if NODES else 'passage graph'}): the share of j's features that flows into i's. Candidates "
                   "without a retrieved neighbour keep their own features.")
with tab_rounds:
    if tab_rounds.open:
        rounds = res.engine.rounds
        if len(rounds) > 1:
            S.reset_on_change(S.GRANKER_ROUND, (ws.name, query))  # a new question opens on its last round
            if st.session_state.get(S.GRANKER_ROUND, 0) > len(rounds) - 1:  # a shorter run than the last one
                S.set_value(S.GRANKER_ROUND, len(rounds) - 1)
            r_idx = S.keep(S.GRANKER_ROUND, st.slider(
                "Round", 0, len(rounds) - 1, key=S.bind(S.GRANKER_ROUND, len(rounds) - 1),
                help="Round 0 is the initial vector search + GRanker; each later round is one STeX expansion followed "
                     "by GRanker over the grown N_ret."))
        else:
            r_idx = 0
        rnd = rounds[r_idx]
        if rnd.index == 0:
            st.markdown(f"**Round 0** — initial vector search: the top {rnd.added.size} {UNITS} by dot product, "
                        "then GRanker.")
        else:
            assert rnd.proposed is not None
            st.markdown(f"**Round {rnd.index}** — STeX proposed {len(rnd.proposed)} unretrieved neighbours of the "
                        f"{rnd.proposed.r_max} retrieved {UNITS}; the best {rnd.added.size} were added (✚), "
                        f"giving |N_ret| = {rnd.size}.")
            if rnd.fallback:
                st.warning(rnd.fallback)
            table = stex_table(rnd, pg, graph, limit=20)
            if table:
                st.plotly_chart(charts.stex_figure(table, rnd.proposed.beta), key=S.GRANKER_STEX_CHART)
                st.dataframe(pd.DataFrame([{UNIT: t.title, "added": "✚" if t.added else "", "S_n": round(t.score, 4),
                                            "I_Sim": round(t.i_sim, 4), "I_Struct": round(t.i_struct, 4),
                                            "rank term": round(t.rank_term, 4), "bridging term": round(t.bridge_term, 4),
                                            "r_best": t.r_best, "|A(n)|": t.adjacent} for t in table]),
                             hide_index=True, width="stretch", column_config={
                                 UNIT: st.column_config.TextColumn(UNIT, width="medium"),
                                 **{c: st.column_config.NumberColumn(c, width="small") for c in
                                    ("S_n", "I_Sim", "I_Struct", "rank term", "bridging term", "r_best", "|A(n)|")},
                                 "added": st.column_config.TextColumn("added", width="small")})
        st.caption("Ranking after this round's GRanker:")
        st.dataframe(pd.DataFrame([{"rank": i + 1, UNIT: item_title(pg, graph, int(v)),
                                    "gold": "✓" if is_gold(pg, int(v), gold) else ""}
                                   for i, v in enumerate(rnd.ranking[:TOP].tolist())]), hide_index=True)
with tab_metrics:
    if tab_metrics.open:
        if not gold:
            st.info("No gold evidence for this question (it is not one of the workspace's questions, or the workspace "
                    "has none), so R@10, nDCG@10, TR and MissTR cannot be computed.")
        else:
            mets = round_metrics(res.engine, pg, gold, k=TOP)
            df = pd.DataFrame([{"round": m.round, "retrieved": m.retrieved, "ranking": m.ranking, "R@10": m.recall,
                                "nDCG@10": m.ndcg, "TR": m.tr, "MissTR": m.miss_tr} for m in mets])
            st.plotly_chart(charts.fastinsight_metrics_figure(df), key=S.GRANKER_METRICS_CHART)
            st.caption("After every round: solid lines rank N_ret with GRanker, dotted lines with the plain reranker. "
                       + ("R@10 and nDCG@10 are of the passages the node ranking maps to. TR and MissTR (FastInsight "
                          "§4.3.2) are over KG nodes, the top 10 nodes against the gold nodes (every node of a gold "
                          "passage): TR = (share of gold nodes in the top 10) + MissTR, the partial credit for gold nodes "
                          "close to the top 10 in the KG." if NODES else
                          "TR and MissTR (FastInsight §4.3.2) are taken on the top 10: TR = (share of gold passages in the "
                          "top 10) + MissTR, the partial credit for gold passages that are close to the top 10 in the "
                          "passage graph."))
            last = df[df["round"] == df["round"].max()].set_index("ranking")[["R@10", "nDCG@10", "TR", "MissTR"]]
            st.dataframe(last.round(3))
