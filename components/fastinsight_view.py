"""The GRanker page's UI (FastInsight §3.3–§3.4): same question, same candidates, ranked by the plain reranker and
by GRanker; the candidate subgraph with the smoothing weights P, the STeX rounds and the metrics per round; and the
cached views of a run they draw from (the searched graph, the smoothing-graph drawing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import charts, colors, graph_view, runs, workspaces
from components import state as S
from components.answer_view import not_recorded_notice, recorded_first
from components.knobs import knob_widget
from components.question import question_box, workspace_questions
from components.ui import error_text, md_escape
from core.errors import EgxError
from core.eval.metrics import round_metrics
from core.graph.reader import whole_graph_read
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

if TYPE_CHECKING:
    from components.sidebar import Active
    from core.backends.base import Reranker
    from core.graph.model import KnowledgeGraph
    from core.index.workspace import Workspace


@st.cache_resource(show_spinner=False, max_entries=8)
def fastinsight_search_graph(_workspace: Workspace, key: str, _run: Any, searched: str, params: str) -> Any:
    """The graph a FastInsight run searched: KG nodes, the corpus graph, or the passage graph derived
    from the KG (``params`` is the run's config, for the cache key)."""
    return _run.search_graph(_workspace)


@st.cache_data(show_spinner=False, max_entries=32)
def smoothing_graph_html(_run: Any, _pg: Any, _graph: KnowledgeGraph, run_key: str, limit: int,
                         gold: tuple[str, ...], height: int = 520) -> str:
    """Drawing of the top ``limit`` GRanker candidates with the propagation weights P on the edges;
    node size grows with the GRanker score, gold passages are green, the rest coloured by rank shift."""
    import numpy as np

    from core.methods.fastinsight.views import rank_comparison, smoothing_graph

    final = _run.engine.final.granker
    small = smoothing_graph(final, _pg, _graph, limit=limit)
    rows = {r.chunk_id: r for r in rank_comparison(final, _pg, _graph, gold)}
    fills, sizes = {}, {}
    scores = np.asarray([rows[c].granker_score for c in small.node_ids], dtype=float)
    lo, hi = (float(scores.min()), float(scores.max())) if scores.size else (0.0, 1.0)
    for v, cid in enumerate(small.node_ids):
        r = rows[cid]
        fills[v] = (colors.GOLD if r.gold else colors.MOVED_UP if r.shift > 0 else colors.MOVED_DOWN if r.shift < 0
                     else graph_view.NODE_COLOR)
        sizes[v] = 12 + 22 * ((r.granker_score - lo) / (hi - lo) if hi > lo else 0.5)
    legend = (graph_view.LegendItem("gold evidence", colors.GOLD), graph_view.LegendItem("moved up by GRanker", colors.MOVED_UP),
              graph_view.LegendItem("moved down", colors.MOVED_DOWN), graph_view.LegendItem("unchanged", graph_view.NODE_COLOR),
              graph_view.LegendItem("edge i→j: weight P_ij of j in i's smoothing", graph_view.EDGE_COLOR, "line"))
    # labels: the gold passages, then the best by GRanker score (the rest on hover)
    by_score = sorted(range(small.n_nodes), key=lambda v: -rows[small.node_ids[v]].granker_score)
    labels = [v for v in by_score if rows[small.node_ids[v]].gold] + by_score[:12]
    return graph_view.network_html(small, range(small.n_nodes), colors=fills, sizes=sizes, legend=legend,
                                   edge_labels=True, height=height, labels=labels)

# ------------------------------------------------------------------------------ the GRanker page's panels
DEFAULT_QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
TOP = 10
DEFAULTS = FastInsightConfig()
GRAPHS = {"kg_nodes": "KG nodes (paper §4.2.2)", "passages": "passage graph (passages sharing an entity)"}


def reranker_note(reranker: Reranker | None) -> None:
    """Which reranker produces the features, and what its head means for GRanker."""
    if reranker is None:
        return
    note = f"**Reranker: {md_escape(reranker.name)}** — {md_escape(reranker.description)}"
    if reranker.linear_head:
        said = "feature smoothing equals score smoothing" in reranker.description
        note += ("\n\nWith this linear head GRanker's score is simply (1−α)·S + α·P·S of the plain scores S."
                 if said else "\n\nIts head is linear, so here **feature smoothing equals score smoothing**: "
                 "GRanker's score is (1−α)·S + α·P·S of the plain scores S.")
    st.caption(note)  # a caption, not a box: the two rankings, the page's point, start higher (an audit at 900 px)


def question(act: Active) -> tuple[str, tuple[str, ...]]:
    """The question box over the workspace's questions with gold evidence; (question, its gold chunk ids)."""
    questions = workspace_questions(act)
    gold_by_question = {q.question: q for q in questions if q.gold_chunks}
    offered = recorded_first(act.llm_name, act.workspace.name, METHOD.name, list(gold_by_question))
    query = question_box(offered, key=S.GRANKER_QUESTION, custom_key=S.GRANKER_CUSTOM,
                         default=DEFAULT_QUESTION if act.graph.name == "demo" or not questions else "",
                         help="Questions of this workspace that come with gold evidence, or your own.")
    return query, tuple(gold_by_question[query].gold_chunks) if query in gold_by_question else ()


def knobs(act: Active) -> FastInsightConfig:
    """α, β, b_max and the batch in a row, and on a KG the graph FastInsight searches (a passage graph on a graph
    store is derived from the whole graph, read here)."""
    graph = act.graph
    # α, the page's point, in the row; the other knobs behind one button: four sliders and the graph choice in a
    # column pushed the two rankings to y≈720 at 900 px (an audit, off the tour)
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    alpha = knob_widget(FastInsightConfig, "alpha", S.GRANKER_ALPHA, where=c1)
    kg = graph.kind == "kg" and graph.n_nodes
    with c2.popover("β, b_max, batch" + (", graph" if kg else ""), icon=":material/tune:", width="stretch"):
        beta = knob_widget(FastInsightConfig, "beta", S.GRANKER_BETA)
        b_max = knob_widget(FastInsightConfig, "b_max", S.GRANKER_B_MAX)
        batch = knob_widget(FastInsightConfig, "batch", S.GRANKER_BATCH)
        graph_choice = DEFAULTS.graph
        if kg:
            graph_choice = knob_widget(FastInsightConfig, "graph", S.GRANKER_GRAPH, format_func=GRAPHS.__getitem__)
    if alpha == 0.0:
        st.caption("α = 0: GRanker is plain reranking, so both columns agree.")
    if whole_graph_read(act.workspace) and not (graph.kind == "kg" and graph_choice == "kg_nodes"):
        # the passage graph (or a corpus graph) is derived from the whole graph, in the app's memory
        workspaces.whole_graph(act.workspace, "the passage graph FastInsight searches with this option")
    return DEFAULTS.with_(alpha=float(alpha), beta=float(beta), b_max=int(b_max), batch=int(batch), graph=graph_choice)


def run(act: Active, query: str, cfg: FastInsightConfig) -> tuple[Any, Any]:
    """The run (:func:`components.runs.page_run`) and the graph it searched."""
    not_recorded_notice(act.llm_name, act.workspace.name, METHOD.name, "FastInsight", query)
    res = runs.page_run(act, METHOD, query, cfg)
    try:
        return res, fastinsight_search_graph(act.workspace, act.key, res, res.searched, str(cfg.overrides()))
    except EgxError as exc:
        st.error(md_escape(error_text(exc)))
        st.stop()
        raise AssertionError("unreachable: st.stop ends the run") from exc


def _units(res: Any) -> tuple[bool, str, str]:
    nodes = res.searched == "kg_nodes"
    return (nodes, *(("node", "nodes") if nodes else ("passage", "passages")))


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


def gold_node_share(pg: Any, gold: tuple[str, ...], nodes: int) -> str:
    """How common gold nodes are in the graph, so a ✓ column can be read against chance: on a small corpus most
    nodes belong to a gold passage (an audit's plain top 10 was ✓ in all 10 rows, "1880" and "daily newspaper"
    among them). "" without gold evidence or nodes."""
    if not gold or nodes <= 0:
        return ""
    g = len(pg.gold_nodes(gold))
    return (f" (here {g:,} of the graph's {nodes:,} nodes, {g / nodes:.0%}: a top {TOP} drawn at random would hold "
            f"{TOP * g / nodes:.1f} ✓ on average)")


#: the share of the graph's nodes that are gold above which the ✓ column is said to tell little: a top 10 drawn at
#: random would then hold more than a third gold
GOLD_HEAVY = 1 / 3


def gold_heavy_warning(pg: Any, gold: tuple[str, ...], nodes: int) -> str:
    """A warning where most of the graph is gold (:data:`GOLD_HEAVY`): on a small corpus a question's gold passages
    hold most nodes, so nearly every top node is ✓ ("early decades", "tall heron" for a birthplace: an audit) and the
    rank shifts teach nothing about the gold. "" where gold is rare enough, or there is none."""
    if not gold or nodes <= 0:
        return ""
    g = len(pg.gold_nodes(gold))
    if g / nodes <= GOLD_HEAVY:
        return ""
    return (f"Most of this graph is gold for this question: {g:,} of its {nodes:,} nodes ({g / nodes:.0%}) come from "
            f"a gold passage (FastInsight §4.2.2 counts every node of a gold passage), so a top {TOP} drawn at random "
            f"would hold {TOP * g / nodes:.1f} ✓. Here the ✓ column and the node-level figures cannot tell the two "
            f"rankings apart; the passages they map to (R@10, under the tables) and a larger corpus can.")


def pairs_note(edges: int, graph: Any) -> str:
    """Why the node graph's edge count is below the KG's, where it is: FastInsight walks the KG's edges undirected,
    one per linked pair of nodes (an audit read "118 nodes, 161 edges" here and "181 edges" on the Data page)."""
    n = int(getattr(graph, "n_edges", 0) or 0)
    return (f" (linked node pairs: the KG's {n:,} edges with the parallel, reverse and self edges of a pair counted "
            "once)") if n > edges else ""


def rankings(act: Active, res: Any, pg: Any, gold: tuple[str, ...], cfg: FastInsightConfig) -> list[RankRow]:
    """The two rankings side by side with each candidate's rank shift, then what was searched (under the tables: above
    them it pushed the rankings a guided demo points to under a 900-px fold)."""
    graph = act.graph
    nodes, unit, _ = _units(res)
    final = res.engine.final.granker
    rows = rank_comparison(final, pg, graph, gold)
    node_graph = NodeGraphData.of(res.trace) if nodes else None
    if node_graph is not None and (heavy := gold_heavy_warning(pg, gold, node_graph.nodes)):
        st.warning(heavy, icon=":material/info:")
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("Plain reranking")
        st.table(_ranking_table(rows, granker=False, has_gold=bool(gold), unit=unit))
    with right:
        st.subheader(f"GRanker (α = {cfg.alpha:g})")
        st.table(_ranking_table(rows, granker=True, has_gold=bool(gold), unit=unit))
    if nodes:
        ng_data = NodeGraphData.of(res.trace)
        assert ng_data is not None  # a node-mode run records its node graph
        st.caption(f"{len(rows)} candidate KG nodes after {len(res.engine.rounds)} rounds on the KG itself (FastInsight "
                   f"§4.2.2): {ng_data.nodes:,} nodes, {ng_data.edges:,} edges{pairs_note(ng_data.edges, graph)}; a "
                   f"node's text is its name, "
                   f"description and linked passage text (≤ {cfg.node_text_chars} characters). The ranked nodes are "
                   f"mapped to their passages for the answer and R@10; gold nodes are the nodes of gold passages"
                   f"{gold_node_share(pg, gold, ng_data.nodes)}. "
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
    if nodes:
        st.caption("Passages of the GRanker node ranking (rank order, repeats dropped): "
                   + ", ".join(md_escape(graph.chunk(c.chunk_id).title or c.chunk_id) for c in res.ranked_chunks[:TOP]))
    moved = sum(1 for r in rows if r.shift != 0)
    st.caption(f"{moved} of {len(rows)} candidates change rank under GRanker." + replayed_scores_note(res.trace))
    return rows


def replayed_scores_note(trace: Any) -> str:
    """Said under the rankings of a run that replayed its recording: its searches and GRanker scores are the
    recording's (pinned, :mod:`core.pinning`), so a run computed here — another LLM, another α — may order near ties
    otherwise while the plain scores agree (an audit saw Viggo Tarasov 3 / John Wick 4 in the tour and the reverse
    after it, with nothing saying why). "" for a run computed here."""
    from core.pinning import ReplayStatus

    replay = getattr(trace, "replay", None)
    status = ReplayStatus.from_dict(replay) if replay else None
    if status is None or not status.matched or not status.pinned:
        return ""
    return (" The searches and GRanker scores are the recorded run's (kept with its recording, so it replays the "
            "same on any machine); computed on this machine — another LLM, another α — near ties may order otherwise.")


def panels(act: Active, res: Any, pg: Any, rows: list[RankRow], query: str, gold: tuple[str, ...],
           cfg: FastInsightConfig) -> None:
    """The tabs below the rankings: rank shifts, the candidate subgraph with P, the STeX rounds, the metrics."""
    graph = act.graph
    nodes, unit, units = _units(res)
    # Only the open tab is computed and sent: an α or β step redraws one chart, not also a 700 KB vis-network
    # drawing, the STeX replay and the metrics of every round in tabs nobody is looking at.
    tabs = ("Rank shifts", "Candidate subgraph (P)", "STeX rounds", "Metrics per round")
    tab_shift, tab_graph, tab_rounds, tab_metrics = st.tabs(tabs, key=S.GRANKER_TAB, on_change="rerun")
    with tab_shift:
        if tab_shift.open:
            st.plotly_chart(charts.rank_shift_figure(rows, TOP), key=S.GRANKER_SHIFT_CHART)
            st.caption(charts.rank_shift_caption(unit))
    with tab_graph:
        if tab_graph.open:
            limit = min(30, len(rows))
            html = smoothing_graph_html(res, pg, graph, f"{act.key}|{query}|{act.backends.names()}|{cfg.overrides()}",
                                        limit, tuple(gold))
            graph_view.render_html(html, height=540)
            st.caption(f"The top {limit} candidate {units} by GRanker. An edge i → j carries P_ij = (1/deg j) / "
                       f"Σ_k (1/deg k) over i's retrieved neighbours k (degrees in the full "
                       f"{'KG' if nodes else 'passage graph'}): the share of j's features that flows into i's. Candidates "
                       "without a retrieved neighbour keep their own features.")
    with tab_rounds:
        if tab_rounds.open:
            rounds = res.engine.rounds
            if len(rounds) > 1:
                S.reset_on_change(S.GRANKER_ROUND, (act.workspace.name, query))  # a new question opens on its last round
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
                st.markdown(f"**Round 0** — initial vector search: the top {rnd.added.size} {units} by dot product, "
                            "then GRanker.")
            else:
                assert rnd.proposed is not None
                st.markdown(f"**Round {rnd.index}** — STeX proposed {len(rnd.proposed)} unretrieved neighbours of the "
                            f"{rnd.proposed.r_max} retrieved {units}; the best {rnd.added.size} were added (✚), "
                            f"giving |N_ret| = {rnd.size}.")
                if rnd.fallback:
                    st.warning(rnd.fallback)
                table = stex_table(rnd, pg, graph, limit=20)
                if table:
                    st.plotly_chart(charts.stex_figure(table, rnd.proposed.beta), key=S.GRANKER_STEX_CHART)
                    st.dataframe(pd.DataFrame([{unit: t.title, "added": "✚" if t.added else "", "S_n": round(t.score, 4),
                                                "I_Sim": round(t.i_sim, 4), "I_Struct": round(t.i_struct, 4),
                                                "rank term": round(t.rank_term, 4), "bridging term": round(t.bridge_term, 4),
                                                "r_best": t.r_best, "|A(n)|": t.adjacent} for t in table]),
                                 hide_index=True, width="stretch", column_config={
                                     unit: st.column_config.TextColumn(unit, width="medium"),
                                     **{c: st.column_config.NumberColumn(c, width="small") for c in
                                        ("S_n", "I_Sim", "I_Struct", "rank term", "bridging term", "r_best", "|A(n)|")},
                                     "added": st.column_config.TextColumn("added", width="small")})
            st.caption("Ranking after this round's GRanker:")
            st.dataframe(pd.DataFrame([{"rank": i + 1, unit: item_title(pg, graph, int(v)),
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
                              "close to the top 10 in the KG." if nodes else
                              "TR and MissTR (FastInsight §4.3.2) are taken on the top 10: TR = (share of gold passages in the "
                              "top 10) + MissTR, the partial credit for gold passages that are close to the top 10 in the "
                              "passage graph."))
                last = df[df["round"] == df["round"].max()].set_index("ranking")[["R@10", "nDCG@10", "TR", "MissTR"]]
                st.dataframe(last.round(3))
