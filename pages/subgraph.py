"""Subgraph matching (SG-RAG, "Structure Guided Retrieval-Augmented Generation for Factual Queries", sg_rag.txt §4): query graph → normalization → decomposition →
completion → matched subgraphs next to the query graph → answer, plus the dominance model (App. C).

Thin view: widgets → ``runs.method_run`` (cached core call) → tables and drawings.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components import charts, colors, graph_view, resources, runs, sgrag_view, train_view, workspaces
from components import state as S
from components.answer_view import answer_note, replay_banner
from components.knobs import knob_widget
from components.sgrag_view import qnode_colors, query_graph_kg
from components.sidebar import active
from components.teaching import page_intro
from components.ui import error_text, md_escape, progress_bar, public_text, question_picker
from core.errors import EgxError
from core.methods.base import Backends
from core.methods.sgrag import METHOD, SGRAGConfig
from core.methods.sgrag.stages import CompletionData, DominanceModelData, PathIndexData, QueryGraphData

DEFAULT_QUESTION = "Which film starred Keanu Reeves and Laurence Fishburne?"
DEFAULTS = SGRAGConfig()
HEIGHT = 360


act = active()
ws = act.workspace
st.title("Subgraph matching")
page_intro("pages/subgraph.py")  # what you are looking at, and the paper section
graph = workspaces.whole_graph(ws, "SG-RAG's matching, drawings and dominance model")
if graph.kind != "kg" or graph.n_edges == 0:
    st.warning("This workspace is not an entity graph with edges, so there is nothing to match against. Pick the "
               "demo sample, or build a workspace from triples or a corpus on the Data page (Upload tab).")
    st.stop()

try:
    questions = [q.question for q in resources.workspace_questions(ws, act.key)]
except EgxError as exc:
    st.warning(f"The workspace's questions file could not be read: {exc}")
    questions = []
# the workspace's own questions (the demo's SG-RAG example first), or a typed one; a hand-off from the
# Compare page is picked or typed (question_picker takes it)
examples = [DEFAULT_QUESTION] if graph.name == "demo" else []
query = question_picker(list(dict.fromkeys([*examples, *questions])), key=S.SGRAG_QUESTION, custom_key=S.SGRAG_CUSTOM,
                        default_custom="" if questions or examples else DEFAULT_QUESTION,
                        help="Questions of this workspace (the demo's SG-RAG example first), or your own.")
c1, c2, c3, c4, c5 = st.columns(5)
l_val = knob_widget(SGRAGConfig, "l", S.SGRAG_L, where=c1)
max_cand = knob_widget(SGRAGConfig, "max_candidates", S.SGRAG_MAX_CANDIDATES, where=c2)
max_inst = knob_widget(SGRAGConfig, "max_instantiations", S.SGRAG_MAX_INSTANTIATIONS, where=c3)
max_sub = knob_widget(SGRAGConfig, "max_subgraphs", S.SGRAG_MAX_SUBGRAPHS, where=c4)
doubt = knob_widget(SGRAGConfig, "doubtful_below", S.SGRAG_DOUBTFUL, where=c5)
dom = knob_widget(SGRAGConfig, "dominance_filter", S.SGRAG_DOMINANCE)

backends = Backends(act.embedder, act.llm, act.reranker)

if not query.strip():
    st.info("Type a question.")
    st.stop()
try:
    if not sgrag_view.model_ready(ws, act.embedder):
        with progress_bar("Training the dominance model (first question on this workspace)") as cb:
            sgrag_view.prepare(ws, act.embedder, retrain=False, progress=cb)
    cfg = DEFAULTS.with_(l=int(l_val), max_candidates=int(max_cand), max_instantiations=int(max_inst),
                         max_subgraphs=int(max_sub), doubtful_below=float(doubt), dominance_filter=bool(dom))
    result = runs.method_run(METHOD, ws, act.key, backends, query, cfg)
except EgxError as exc:
    st.error(md_escape(error_text(exc)))
    st.stop()

qg = result.query_graph
qcolors = qnode_colors(qg)
qkg = query_graph_kg(qg)
mapped = {m.qid: m.node_name for m in result.normalized.mappings if m.node >= 0}

# ------------------------------------------------------------------ 1. query graph
st.subheader("1 · Query graph")
left, right = st.columns([2, 3])
with left:
    st.markdown(f"Built by **{'the LLM (Table 12 prompt)' if qg.by == 'llm' else 'the none-mode heuristic'}**"
                + ("" if qg.by == "llm" else ": entities found in the question, each joined to one UNK node "
                   "(the bridge-star shape of ERQA)."))
    q_fallback = result.trace.fallback("query_graph")
    if q_fallback and act.llm.available:
        st.warning(f"Query-graph fallback: {md_escape(public_text(q_fallback))}")
    q_data = QueryGraphData.of(result.trace)
    repairs = q_data.repairs() if q_data is not None else []
    if repairs:
        st.info("Checks applied to the query graph (Table 12's rules): " + md_escape("; ".join(repairs)) + ".")
    st.dataframe(pd.DataFrame([{"id": n.id, "label": n.label, "role": "UNK (answer)" if n.unknown else "entity"}
                               for n in qg.nodes]), hide_index=True, width="stretch")
with right:
    graph_view.render_html(graph_view.network_html(
        qkg, range(qkg.n_nodes), colors={i: qcolors[n.id] for i, n in enumerate(qg.nodes)},
        highlight=[i for i, n in enumerate(qg.nodes) if n.unknown],
        legend=(graph_view.LegendItem("UNK (asked-for node)", colors.UNK),), height=HEIGHT), height=HEIGHT)

# ------------------------------------------------------------------ 2. normalization
st.subheader("2 · Entity normalization")
st.caption("Algorithm 3: each query label is embedded and replaced by the most similar graph node (FAISS, cosine). "
           "Rows below the threshold are flagged doubtful.")
rows = [{"query label": m.query_label, "graph node": m.node_name or "(none)", "similarity": round(m.similarity, 3),
         "doubtful": "⚠ doubtful" if m.doubtful else "", "exact name": "✓" if m.exact_name else "",
         "runners-up": "; ".join(f"{n} ({s})" for n, s in m.alternatives[1:4])} for m in result.normalized.mappings]
if rows:
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
else:
    st.info("No entity of the question was found in the graph.")

# ------------------------------------------------------------------ 3. decomposition
st.subheader("3 · Path decomposition")
dec = result.decomposition
if dec is None:
    st.info("No decomposition: the query graph has no edges.")
else:
    st.markdown(f"d_q = **{dec.d_q}**, so l ∈ [{dec.l_range[0]}, {dec.l_range[1]}]; using **l = {dec.l}**. "
                f"Cost_Q = {dec.cost:g} ({dec.plans_tried} plan(s) tried, Algorithm 4).")
    st.dataframe(pd.DataFrame([{"path": i + 1, "nodes": " — ".join(qg.node(q).label for q in p),
                                "ids": " — ".join(p)} for i, p in enumerate(dec.paths)]),
                 hide_index=True, width="stretch")
    ix = PathIndexData.of(result.trace)
    if ix is not None:
        st.caption(f"Path index I_{ix.l}: {ix.paths:,} paths in a {ix.dimension}-d R*-tree "
                   f"({ix.sem_dims} projected label dims + {ix.dom_dims_per_node} dominance dims per node), "
                   f"built in {ix.build_seconds} s.")

# ------------------------------------------------------------------ 4. completion
st.subheader("4 · UNK completion candidates")
comp = result.completion
if comp is None or not comp.unknown:
    st.info("Nothing to complete.")
else:
    cdata = CompletionData.of(result.trace)
    for u in comp.unknown:
        names = cdata.candidates.get(u, []) if cdata is not None else []
        capped = " (capped)" if comp.found[u] > len(names) else ""
        st.markdown(f"**{md_escape(qg.node(u).label)}** `{u}`: {comp.found[u]} candidate label(s){capped} — "
                    + (", ".join(md_escape(str(n)) for n in names[:30]) or "none"))
    if comp.capped_instantiations:
        st.warning(f"{comp.n_product} label combinations; only the first {len(comp.instantiations)} were matched "
                   "(raise max instantiations).")

# ------------------------------------------------------------------ 5. matched subgraphs
st.subheader("5 · Matched subgraphs")
asm = result.assembly
if asm.fallback:
    st.warning(f"No exact match — fallback to the 1-hop neighbourhood of the known entities "
               f"({next((s.fallback for s in result.trace.steps if s.stage == 'fallback'), '')}).")
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
    S.reset_on_change(S.SGRAG_PICK, (ws.name, query))  # subgraph #2 of another question is another one
    pkey = S.bind(S.SGRAG_PICK, 0)
    if st.session_state[pkey] not in range(len(asm.subgraphs)):  # fewer subgraphs under other knobs
        st.session_state[pkey] = 0
    pick = S.keep(S.SGRAG_PICK, st.selectbox(
        "Subgraph", list(range(len(asm.subgraphs))), key=pkey,
        format_func=lambda i: f"#{i + 1}: " + ", ".join(
            f"{qg.node(q).label}→{graph.node_names[v]}" for q, v in asm.subgraphs[i].mapping
            if qg.node(q).unknown) + f" (score {asm.subgraphs[i].score:.3f})"))
    sg = asm.subgraphs[int(pick or 0)]
    a, b = st.columns(2)
    with a:
        st.markdown("**Query graph**")
        graph_view.render_html(graph_view.network_html(
            qkg, range(qkg.n_nodes), colors={i: qcolors[n.id] for i, n in enumerate(qg.nodes)},
            highlight=[i for i, n in enumerate(qg.nodes) if n.unknown], height=HEIGHT), height=HEIGHT)
    with b:
        st.markdown("**Matched subgraph** (same colour = mapped node)")
        graph_view.render_html(resources.styled_network_html(
            graph, act.key, tuple(sorted(v for _, v in sg.mapping)),
            colors=tuple((v, qcolors[q]) for q, v in sg.mapping), edges=tuple(sg.edges), edge_labels=True,
            height=HEIGHT), height=HEIGHT)
    st.dataframe(pd.DataFrame([{"query node": f"{qg.node(q).label} ({q})", "graph node": graph.node_names[v]}
                               for q, v in sg.mapping]), hide_index=True, width="stretch")

# ------------------------------------------------------------------ 6. answer
st.subheader("6 · Answer")
ans = result.answer_detail
by = {"llm": "the LLM (Table 15 prompt, restricted to matched entity labels)",
      "unk-binding": "the UNK binding of the best subgraph (none mode)",
      "fallback-heuristic": "the neighbour adjacent to most known entities (none mode, fallback)",
      "none": "no context"}.get(ans.by, ans.by)
replay_banner(result)  # a partial replay says so before the answer
st.success(f"**{md_escape(ans.text)}** — from {by}")
answer_note(result)  # heuristic (no LLM) or generated, and what none mode could not express
if len(ans.bindings) > 1:
    st.caption("Other UNK bindings: " + ", ".join(md_escape(x) for x in ans.bindings[1:10]))

# ------------------------------------------------------------------ dominance model
with st.expander("Dominance model ℳ (GAT over 1-hop stars, Appendix C)", expanded=False):
    md = DominanceModelData.of(result.trace)
    if md is not None:
        st.markdown(f"{md.epochs} epoch(s), final loss {md.final_loss:.3g} "
                    f"({'converged to 0' if md.converged else 'max epochs reached'}), device {md.device}, "
                    f"{md.dim} dims per node, {'loaded from cache' if md.from_cache else 'trained'} "
                    f"in {md.train_seconds} s.")
        if md.losses:
            st.plotly_chart(charts.dominance_loss_figure(md.losses), width="stretch")

# ------------------------------------------------------------------ train ℳ again (a background job in a worker)
train_view.dominance_panel(act, md.train_seconds if md is not None else None)
