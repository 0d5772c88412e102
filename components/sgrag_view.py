"""The SG-RAG "Subgraph matching" page's UI (sg_rag.txt §4): its question and knobs, the dominance model trained
on first use, one panel per stage, and the drawing helpers: the query graph as a tiny
KnowledgeGraph (so graph_view draws it like any other graph) and one colour per query node, shared by
the query graph and every matched subgraph (the node mapping shown by colour)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import charts, colors, graph_view, resources, runs, train_view
from components import state as S
from components.answer_view import (
    answer_note,
    not_recorded_notice,
    recorded_first,
    replay_banner,
    unrecorded_workspace,
)
from components.knobs import knob_widget
from components.question import gold_answer_line, question_box, workspace_questions
from components.ui import error_text, md_escape, progress_bar, public_text
from core.errors import EgxError
from core.graph.graph_builder import GraphBuilder
from core.graph.model import KnowledgeGraph
from core.methods.diagnoser import answer_by_llm
from core.methods.sgrag import METHOD, SGRAGConfig
from core.methods.sgrag.query_graph import QNode, QueryGraph
from core.methods.sgrag.stages import CompletionData, DominanceModelData, PathIndexData, QueryGraphData
from core.pinning import NOT_RECORDED

if TYPE_CHECKING:
    from components.sidebar import Active
    from core.backends.base import Embedder
    from core.index.workspace import Workspace



def qnode_colors(qg: QueryGraph) -> dict[str, str]:
    """Query node id → colour (UNK nodes orange and its kin, one each; the others from a colour-blind-safe palette)."""
    out: dict[str, str] = {}
    i = 0
    unks = 0
    for n in qg.nodes:
        if n.unknown:
            out[n.id] = colors.nth(colors.UNKS, unks)
            unks += 1
        else:
            out[n.id] = colors.nth(colors.QUERY_NODES, i)
            i += 1
    return out


#: the query-graph table's "stands for" column, in px: room for a Table 12 description ("Actor in the movie
#: starring Keanu Reeves") beside id, label and role in three fifths of the page at 1440 px
QG_DESC_WIDTH = 320
#: about how many characters of a description one line of the "stands for" column holds (14 px text in 320 px)
QG_DESC_LINE_CHARS = 38
#: the same for the label column (135 px)
QG_LABEL_LINE_CHARS = 16
#: the table's row height, in px, per wrapped line of "stands for" and around them; a row over 64 px lets the
#: table wrap its text (Streamlit wraps a cell only in rows taller than 4rem)
QG_LINE_PX, QG_ROW_PAD_PX, QG_MAX_LINES = 21, 16, 4


def qg_row_height(descriptions: Sequence[str], labels: Sequence[str] = ()) -> int | None:
    """The query-graph table's row height for its "stands for" texts and its labels: None (one line, Streamlit's
    default) when each fits its column, else rows tall enough for the longest text wrapped (an audit's tour step read
    "The movie: Movie starring Keanu Reeves and Laurence", cut at the column's edge; a later one "Velmora Chocolate
    Wor" in the label column)."""
    return wrapped_row_height([len(d) / QG_DESC_LINE_CHARS for d in descriptions]
                              + [len(x) / QG_LABEL_LINE_CHARS for x in labels])


def wrapped_row_height(lines_needed: Sequence[float]) -> int | None:
    """A table's row height for cells that need ``lines_needed`` lines each at their column's width (a cell's
    characters over its column's characters a line): None (one line, Streamlit's default) when each fits one line,
    else rows tall enough for the longest wrapped, at most :data:`QG_MAX_LINES` lines."""
    need = max([*lines_needed, 0.0])
    if need <= 1:
        return None
    lines = min(QG_MAX_LINES, math.ceil(need * 1.2))  # words wrap early: a sixth to spare
    return max(66, lines * QG_LINE_PX + QG_ROW_PAD_PX)


#: how much of an UNK node's description its drawn name carries ("UNK · The main villain")
UNK_NAME_CHARS = 28


def unk_name(n: QNode, limit: int | None = UNK_NAME_CHARS) -> str:
    """An UNK node's drawn name: ``UNK`` with what it stands for (its description), so two asked-for nodes are
    told apart ("UNK · The movie", "UNK · The main villain"). A described kind made UNK ("The movie: Movie starring
    Keanu Reeves …", the question's words, then the model's) is drawn by the question's words: cut at ``limit``
    characters, the model's read "The movie: Movie starring K…" on the canvas (an audit). ``limit=None``: the
    whole description (the legend's)."""
    desc = " ".join(n.description.split())
    if not desc:
        return f"UNK ({n.id})"
    if limit is None:
        return "UNK · " + desc
    head = desc.split(": ", 1)[0] if limit <= UNK_NAME_CHARS else desc
    return "UNK · " + (head if len(head) <= limit else head[:limit - 1].rstrip() + "…")


def unk_legend(qg: QueryGraph) -> tuple[graph_view.LegendItem, ...]:
    """One legend entry per UNK node, in its own colour (:func:`qnode_colors`), with its whole description: what an
    UNK stands for is what the query graph is about (cut at 44 characters, an audit read "UNK · The movie: Movie
    starring Keanu Reeves and…")."""
    qcolors = qnode_colors(qg)
    return tuple(graph_view.LegendItem(unk_name(n, None), qcolors[n.id]) for n in qg.nodes if n.unknown)


def unk_legend_html(qg: QueryGraph) -> str:
    """:func:`unk_legend` as an HTML list drawn under a query graph's drawing (``st.html``), one entry a line,
    each wrapped whole within the column: the drawing's own legend strip keeps an entry on one line, where a
    whole description would run past the column's edge. Every label is escaped; "" when no node is UNK."""
    rows = "".join(
        '<div style="display:flex;align-items:baseline;gap:6px;margin:1px 0">'
        f'<span style="flex:none;width:11px;height:11px;border-radius:50%;display:inline-block;'
        f'background:{graph_view.escape(item.color)};box-shadow:inset 0 0 0 1px rgba(0,0,0,.25)"></span>'
        f'<span style="white-space:normal;overflow-wrap:anywhere">{graph_view.escape(item.label)}</span></div>'
        for item in unk_legend(qg))
    return (f'<div class="egx-unk-legend" role="note" aria-label="Legend" '
            f'style="font-size:13px;line-height:1.35;color:#333">{rows}</div>') if rows else ""


def query_graph_kg(qg: QueryGraph, labels: dict[str, str] | None = None) -> KnowledgeGraph:
    """The query graph as a KnowledgeGraph whose node i is ``qg.nodes[i]`` (name = label, or the
    normalized KG label when ``labels`` maps the id; an UNK node is named by its description). Its edges are
    node pairs without a relation (Table 12), drawn without arrow heads."""
    b = GraphBuilder(name="query graph")
    for n in qg.nodes:
        shown = (labels or {}).get(n.id) or (unk_name(n) if n.unknown else n.label)
        b.add_node(shown, node_id=n.id,
                   description=(f"the asked-for node (UNK): {n.description}" if n.description else
                                "the asked-for node (UNK)") if n.unknown else f"query label: {n.label}")
    for a, c in qg.edges:
        b.add_edge(a, "query edge", c)
    return b.build(allow_empty=True)


# pages/subgraph.py: the dominance model is trained outside any cache (it writes to disk) under a progress bar,
# then reused from disk.
def model_ready(workspace: Workspace, embedder: Embedder) -> bool:
    """Whether the SG-RAG dominance model for this workspace is already trained (no progress bar needed)."""
    from core.methods.sgrag.pipeline import is_prepared

    return is_prepared(workspace, embedder)


def prepare(workspace: Workspace, embedder: Embedder, *, retrain: bool, progress: Any = None) -> Any:
    """Train (or load) the dominance model and label tables (``core.methods.sgrag.prepare``)."""
    from core.methods.sgrag import prepare as sgrag_prepare

    return sgrag_prepare(workspace, embedder, retrain=retrain, progress=progress)


# ------------------------------------------------------------------------------ the Subgraph page's panels
DEFAULT_QUESTION = "Which film starred Keanu Reeves and Laurence Fishburne?"
DEFAULTS = SGRAGConfig()
HEIGHT = 360
#: The query graph's drawing (a handful of nodes), its legend under it (:func:`unk_legend_html`, outside the
#: drawing): at 360 px with the legend above, the tour's step 7 cut its lowest node at the fold of a 900 px screen
#: (an audit).
QG_HEIGHT = 300


def matchable(graph: KnowledgeGraph) -> None:
    """Stop the page, saying why, unless the workspace is an entity graph with edges to match against."""
    if graph.kind != "kg" or graph.n_edges == 0:
        st.warning("This workspace is not an entity graph with edges, so there is nothing to match against. Pick the "
                   "demo sample, or build a workspace from triples or a corpus on the Data page (Upload tab).")
        st.stop()


def question(act: Active, graph: KnowledgeGraph) -> str:
    """The question box over the workspace's own questions (the demo's SG-RAG example first), or a typed one. With
    the ``recorded`` LLM the questions it holds an SG-RAG run of come first: the default replays a recording (the
    demo's example was never recorded)."""
    questions = [q.question for q in workspace_questions(act)]
    examples = [DEFAULT_QUESTION] if graph.name == "demo" else []
    offered = recorded_first(act.llm_name, act.workspace.name, METHOD.name, list(dict.fromkeys([*examples, *questions])))
    return question_box(offered, key=S.SGRAG_QUESTION, custom_key=S.SGRAG_CUSTOM,
                        default="" if questions or examples else DEFAULT_QUESTION,
                        help="Questions of this workspace (the demo's SG-RAG example first; with the recorded LLM the recorded "
                             "ones first), or your own.")


def knobs() -> SGRAGConfig:
    """l, the three caps, the doubt threshold and the dominance filter."""
    c1, c2, c3, c4, c5 = st.columns(5)
    l_val = knob_widget(SGRAGConfig, "l", S.SGRAG_L, where=c1)
    max_cand = knob_widget(SGRAGConfig, "max_candidates", S.SGRAG_MAX_CANDIDATES, where=c2)
    max_inst = knob_widget(SGRAGConfig, "max_instantiations", S.SGRAG_MAX_INSTANTIATIONS, where=c3)
    max_sub = knob_widget(SGRAGConfig, "max_subgraphs", S.SGRAG_MAX_SUBGRAPHS, where=c4)
    doubt = knob_widget(SGRAGConfig, "doubtful_below", S.SGRAG_DOUBTFUL, where=c5)
    dom = knob_widget(SGRAGConfig, "dominance_filter", S.SGRAG_DOMINANCE)
    return DEFAULTS.with_(l=int(l_val), max_candidates=int(max_cand), max_instantiations=int(max_inst),
                          max_subgraphs=int(max_sub), doubtful_below=float(doubt), dominance_filter=bool(dom))


def run(act: Active, query: str, cfg: SGRAGConfig) -> Any:
    """The run, after training the dominance model under a progress bar on the workspace's first question."""

    try:
        if not model_ready(act.workspace, act.embedder):
            with progress_bar("Training the dominance model (first question on this workspace)") as cb:
                prepare(act.workspace, act.embedder, retrain=False, progress=cb)
    except EgxError as exc:
        st.error(md_escape(error_text(exc)))
        st.stop()
    not_recorded_notice(act.llm_name, act.workspace.name, METHOD.name, "SG-RAG", query)
    return runs.page_run(act, METHOD, query, cfg)


def query_graph_panel(act: Active, result: Any, qcolors: dict[str, str], qkg: KnowledgeGraph) -> None:
    """1 · the query graph, how it was built, the checks applied, drawn beside its node table."""
    qg = result.query_graph
    st.subheader("1 · Query graph")
    left, right = st.columns([3, 2])  # at [2, 3] the table's "stands for" was cut ("Actor in the mov…") at 1440 px
    with left:
        chain = qg.by != "llm" and sum(1 for n in qg.nodes if not n.unknown) == 1 and \
            sum(1 for n in qg.nodes if n.unknown) > 1
        shape = ("" if qg.by == "llm" else
                 ": the one entity the question names, then a chain of UNK nodes (a bridge chain: its matched paths "
                 "start at that entity and reach a second hop, where a one-edge star matched only its neighbours)."
                 if chain else ": entities found in the question, each joined to one UNK node (the bridge-star shape "
                 "of ERQA).")
        st.markdown(f"Built by **{'the LLM (Table 12 prompt)' if qg.by == 'llm' else 'the none-mode heuristic'}**"
                    + shape)
        q_fallback = result.trace.fallback("query_graph")
        if q_fallback and act.llm.available and NOT_RECORDED not in q_fallback:  # not recorded: said before the run
            st.warning(f"Query-graph fallback: {md_escape(public_text(q_fallback))}")
        q_data = QueryGraphData.of(result.trace)
        repairs = q_data.repairs() if q_data is not None else []
        if repairs:
            st.info("Checks applied to the query graph (Table 12's rules): " + md_escape("; ".join(repairs)) + ".")
        rows = pd.DataFrame([{"id": n.id, "label": n.label, "role": "UNK" if n.unknown else "entity",
                              "stands for": n.description or ("the asked-for entity" if n.unknown else "")}
                             for n in qg.nodes])
        st.dataframe(rows, hide_index=True, width="stretch", row_height=qg_row_height(list(rows.get("stands for", [])),
                                                                                 list(rows.get("label", []))),
                     column_config={"id": st.column_config.TextColumn("id", width=40),
                                    "label": st.column_config.TextColumn("label", width=135),
                                    "role": st.column_config.TextColumn("role", width=55),
                                    "stands for": st.column_config.TextColumn("stands for", width=QG_DESC_WIDTH)})
    with right:
        graph_view.render_html(graph_view.network_html(
            qkg, range(qkg.n_nodes), colors={i: qcolors[n.id] for i, n in enumerate(qg.nodes)},
            highlight=[i for i, n in enumerate(qg.nodes) if n.unknown], directed=False,
            height=QG_HEIGHT), height=QG_HEIGHT)
        legend = unk_legend_html(qg)  # under the canvas, each UNK's description whole (wrapped)
        if legend:
            st.html(legend)
        st.caption("An edge says only that two nodes are related: Table 12's edges are node pairs without a relation "
                   "or direction, so matching asks for the structure and the known labels, not for a relation name.")


#: The entity-normalization table's columns in px: together the page's main column at 1440 px (about 945 px with the
#: sidebar open), so "runners-up", the last, has its own width and wraps instead of running past the table's right
#: edge (an audit read "marionette productions (0.748); puppet theatres (0.716" cut there)
NORM_WIDTHS = {"query label": 200, "graph node": 200, "similarity": 80, "doubtful": 90, "exact name": 80,
               "runners-up": 270}
#: a cell's padding, in px, left and right together (as :func:`components.bench_view.fit_width` counts it)
NORM_CELL_PAD_PX = 20


def norm_row_height(rows: Sequence[Mapping[str, Any]]) -> int | None:
    """The normalization table's row height: rows tall enough for the longest runners-up (and name) wrapped in its
    column, each text's width estimated in the grid's font (:func:`components.bench_view.text_px`, with a cell's
    padding); None when each fits one line (:func:`wrapped_row_height`)."""
    from components.bench_view import text_px

    return wrapped_row_height([(text_px(str(r.get(c) or "")) + NORM_CELL_PAD_PX) / NORM_WIDTHS[c]
                               for r in rows for c in ("query label", "graph node", "runners-up")])


def normalization_panel(result: Any) -> None:
    """2 · each query label mapped to its most similar graph node (Algorithm 3)."""
    st.subheader("2 · Entity normalization")
    st.caption("Algorithm 3: each query label is embedded and replaced by the most similar graph node (FAISS, cosine). "
               "Rows below the threshold are flagged doubtful.")
    rows = [{"query label": m.query_label, "graph node": m.node_name or "(none)", "similarity": round(m.similarity, 3),
             "doubtful": "⚠ doubtful" if m.doubtful else "", "exact name": "✓" if m.exact_name else "",
             "runners-up": "; ".join(f"{n} ({s})" for n, s in m.alternatives[1:4])} for m in result.normalized.mappings]
    if rows:  # the names get room: auto-sized columns cut "Laurence Fishburn" (an audit); long texts wrap
        w = NORM_WIDTHS
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", row_height=norm_row_height(rows),
                     column_config={
                         "query label": st.column_config.TextColumn("query label", width=w["query label"]),
                         "graph node": st.column_config.TextColumn("graph node", width=w["graph node"]),
                         "similarity": st.column_config.NumberColumn("similarity", width=w["similarity"]),
                         "doubtful": st.column_config.TextColumn("doubtful", width=w["doubtful"]),
                         "exact name": st.column_config.TextColumn("exact name", width=w["exact name"]),
                         "runners-up": st.column_config.TextColumn(
                             "runners-up", width=w["runners-up"],
                             help="The next most similar graph nodes, with their cosine similarity")})
    else:
        st.info("No entity of the question was found in the graph.")


def decomposition_panel(result: Any) -> None:
    """3 · the path decomposition (Algorithm 4) and the path index it searched."""
    qg = result.query_graph
    st.subheader("3 · Path decomposition")
    dec = result.decomposition
    if dec is None:
        st.info("No decomposition: the query graph has no edges.")
    else:
        st.markdown(f"d_q = **{dec.d_q}**, so l ∈ [{dec.l_range[0]}, {dec.l_range[1]}]; using **l = {dec.l}**. "
                    f"Cost_Q = {dec.cost:g} ({dec.plans_tried} plan(s) tried, Algorithm 4): the sum of the paths' "
                    "weights w(p) = −Σ deg(q_i), so it is negative, and the least (most negative) plan wins: paths "
                    "through the query graph's best-connected nodes (Appendix E).")
        st.dataframe(pd.DataFrame([{"path": i + 1, "nodes": " — ".join(qg.node(q).label for q in p),
                                    "ids": " — ".join(p)} for i, p in enumerate(dec.paths)]),
                     hide_index=True, width="stretch")
        ix = PathIndexData.of(result.trace)
        if ix is not None:
            article = "an" if str(ix.dimension).startswith("8") or ix.dimension in (11, 18) else "a"  # an 18-d, a 12-d
            st.caption(f"Path index I_{ix.l}: {ix.paths:,} paths in {article} {ix.dimension}-d R*-tree "
                       f"({ix.sem_dims} projected label dims + {ix.dom_dims_per_node} dominance dims per node), "
                       f"built in {ix.build_seconds} s.")


#: candidate labels listed per unknown node (the rest are counted)
SHOWN_CANDIDATES = 30


def candidates_words(found: int, kept: int, listed: int) -> str:
    """An unknown node's candidate count: "(capped)" only when matching really tried fewer than were found (the
    max-candidates knob cut them), and how many of those tried are listed. "87 candidate label(s) (capped)" had
    read as a cut where there was none."""
    words = f"{found} candidate label(s)"
    if kept < found:
        words += f" (capped: the {kept} best supported are tried, max candidates)"
    shown = min(listed, SHOWN_CANDIDATES)
    if 0 < shown < kept:
        words += f"; the first {shown} listed"
    return words


def completion_panel(result: Any) -> None:
    """4 · the UNK completion candidates (Algorithms 5-6)."""
    qg = result.query_graph
    st.subheader("4 · UNK completion candidates")
    comp = result.completion
    if comp is None or not comp.unknown:
        st.info("Nothing to complete.")
    else:
        cdata = CompletionData.of(result.trace)
        for u in comp.unknown:
            names = cdata.candidates.get(u, []) if cdata is not None else []
            st.markdown(f"**{md_escape(unk_called(qg, u))}**: "
                        + candidates_words(comp.found[u], len(comp.candidates.get(u, ())), len(names))
                        + " — " + (", ".join(md_escape(str(n)) for n in names[:SHOWN_CANDIDATES]) or "none"))
        if comp.capped_instantiations:
            st.warning(f"{comp.n_product} label combinations; only the first {len(comp.instantiations)} were matched "
                       "(raise max instantiations).")


def subgraphs_panel(act: Active, graph: KnowledgeGraph, result: Any, query: str, qcolors: dict[str, str], qkg: KnowledgeGraph) -> None:
    """5 · the matched subgraphs, one drawn beside the query graph (same colour = mapped node), or the fallback."""
    qg = result.query_graph
    st.subheader("5 · Matched subgraphs")
    asm = result.assembly
    if asm.fallback:
        st.warning(f"No exact match — fallback to the 1-hop neighbourhood of the known entities "
                   f"({md_escape(result.trace.fallback('fallback'))}).")
        if asm.fallback_edges:
            nodes = sorted({int(v) for e in asm.fallback_edges for v in (graph.edge_head[e], graph.edge_tail[e])})
            known = {v: qcolors.get(m.qid, colors.BLUE) for m in result.normalized.mappings for v in [m.node] if v >= 0}
            graph_view.render_html(resources.styled_network_html(
                graph, act.key, tuple(nodes), colors=tuple(known.items()), edges=tuple(asm.fallback_edges),
                edge_labels=True, height=HEIGHT + 60), height=HEIGHT + 60)
    else:
        st.markdown(f"{asm.found} exact subgraph(s) found" + (f", showing the best {len(asm.subgraphs)}" if
                                                               asm.capped_subgraphs else "")
                    + (" — enumeration capped" if asm.capped_combinations else "") + ".")
        # the picker opens on the match the answer was read from (a none-mode sentence may come from match #14):
        # subgraph #2 of another question, or of another answer, is another one
        read = answer_match(result)
        S.reset_on_change(S.SGRAG_PICK, (act.workspace.name, query, read))
        pkey = S.bind(S.SGRAG_PICK, read or 0)
        if st.session_state[pkey] not in range(len(asm.subgraphs)):  # fewer subgraphs under other knobs
            st.session_state[pkey] = read or 0
        if read:
            st.caption(f"Opened on #{read + 1}, the match the answer was read from"
                       + (": the answer sentence was picked among all matches' passages, and its passage is this "
                          "match's" if result.answer_detail.by == "extractive" else
                          ": the better-ranked bindings are not of the type the question asks for")
                       + ". #1 is the best-ranked match.")
        pick = S.keep(S.SGRAG_PICK, st.selectbox(
            "Subgraph", list(range(len(asm.subgraphs))), key=pkey,
            format_func=lambda i: f"#{i + 1}: " + ", ".join(
                f"{qg.node(q).label}→{graph.node_names[v]}" for q, v in asm.subgraphs[i].mapping
                if qg.node(q).unknown) + f" (score {asm.subgraphs[i].score:.3f})"
            + (" · the answer's match" if i == read else "")))
        sg = asm.subgraphs[int(pick or 0)]
        a, b = st.columns(2)
        with a:
            st.markdown("**Query graph**")
            graph_view.render_html(graph_view.network_html(
                qkg, range(qkg.n_nodes), colors={i: qcolors[n.id] for i, n in enumerate(qg.nodes)},
                highlight=[i for i, n in enumerate(qg.nodes) if n.unknown], height=HEIGHT), height=HEIGHT)
            legend = unk_legend_html(qg)
            if legend:
                st.html(legend)
        with b:
            st.markdown("**Matched subgraph** (same colour = mapped node)")
            graph_view.render_html(resources.styled_network_html(
                graph, act.key, tuple(sorted(v for _, v in sg.mapping)),
                colors=tuple((v, qcolors[q]) for q, v in sg.mapping), edges=tuple(sg.edges), edge_labels=True,
                height=HEIGHT), height=HEIGHT)
        st.dataframe(pd.DataFrame([{"query node": f"{qg.node(q).label} ({q})", "graph node": graph.node_names[v]}
                                   for q, v in sg.mapping]), hide_index=True, width="stretch")


def answer_match(result: Any) -> int | None:
    """The matched subgraph (0-based rank) the answer was read from, as the answer step recorded it, or None."""
    ans = getattr(result, "answer_detail", None)
    i = getattr(ans, "subgraph", None)
    return i if isinstance(i, int) and 0 <= i < len(result.assembly.subgraphs) else None


def unk_called(qg: QueryGraph, q: str) -> str:
    """How section 4 and the answer's bindings name query node ``q``: an UNK by what it stands for, with the id the
    query-graph table lists ("The main villain (q3)"; audit 58 read "UNK q3 … q4" in section 4 and "UNK · The movie"
    in section 1, with nothing linking them), a known entity by its label."""
    n = next((n for n in qg.nodes if n.id == q), None)
    if n is None or not n.unknown:
        return n.label if n is not None else q
    desc = unk_name(n).removeprefix("UNK · ")
    return f"{desc} ({q})" if n.description.strip() else q


def unk_bindings(qg: QueryGraph, graph: KnowledgeGraph, subgraphs: Sequence[Any]) -> list[str]:
    """Each matched subgraph's UNK values, distinct, in rank order, each named by its node: "The main villain (q3)
    = Hugo Weaving, The movie (q4) = The Matrix"."""
    unk = set(qg.unknown_ids)
    out: list[str] = []
    for sg in subgraphs:
        text = ", ".join(f"{unk_called(qg, q)} = {graph.node_names[v]}" for q, v in sg.mapping if q in unk)
        if text and text not in out:
            out.append(text)
    return out


def answer_panel(act: Active, result: Any) -> None:
    """6 · the answer and what it came from (on a workspace without recordings the page said once, before the
    run, that the recorded LLM answers nothing here: :func:`~components.answer_view.not_recorded_notice`)."""
    said = unrecorded_workspace(act.llm_name, act.workspace.name)
    st.subheader("6 · Answer")
    ans = result.answer_detail
    by = {"llm": "the LLM (Table 15 prompt, restricted to matched entity labels)",
          "unk-binding": "the UNK binding of the best subgraph (none mode)",
          "typed-binding": "the best-ranked UNK binding of the type the question asks for (none mode; better-ranked "
                           "bindings are not of it)",
          "extractive": "the best-scoring sentence of the matched subgraphs' passages (none mode: their UNK bindings "
                        "disagree, so no one binding is the answer)",
          "fallback-heuristic": "the neighbour adjacent to most known entities (none mode, fallback)",
          "none": "no context"}.get(ans.by, ans.by)
    replay_banner(result, said=said)  # a partial replay says so before the answer
    st.success(f"**{md_escape(ans.text)}** — from {by}")
    answer_note(result, said=said)  # heuristic (no LLM) or generated, and what none mode could not express
    gold_answer_line(act, ans.text, result.query, by_llm=answer_by_llm(result), result=result)  # the gold answer with EM / F1, as on Ask
    others = unk_bindings(result.query_graph, act.graph, result.assembly.subgraphs)[1:10]
    if others:  # each subgraph's values, named by their UNK: a flat list of pairs read as one list of answers
        st.caption("Other UNK bindings, by subgraph rank: " + "; ".join(md_escape(x) for x in others))


def dominance_panel(act: Active, result: Any) -> None:
    """The dominance model ℳ (GAT over 1-hop stars, App. C): how it was trained, its loss curve, and training it
    again as a background job."""
    with st.expander("Dominance model ℳ (GAT over 1-hop stars, Appendix C)", expanded=False):
        md = DominanceModelData.of(result.trace)
        if md is not None:
            st.markdown(f"{md.epochs} epoch(s), final loss {md.final_loss:.3g} "
                        f"({'converged to 0' if md.converged else 'max epochs reached'}), device {md.device}, "
                        f"{md.dim} dims per node, {'loaded from cache' if md.from_cache else 'trained'} "
                        f"in {md.train_seconds} s.")
            if md.losses:
                st.plotly_chart(charts.dominance_loss_figure(md.losses), width="stretch")
    train_view.dominance_panel(act, md.train_seconds if md is not None else None)
