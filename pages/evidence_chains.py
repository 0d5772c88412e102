"""Evidence chains (ReG §4): raw triples vs ReG evidence chains, supervision, and the trained retriever.

For one question and one method: the triples the answer step would see as an unordered list next to
the same triples reorganized into evidence chains (merged answers and multi-entity groups visible),
the two prompts with their token counts; for supervision (when the question has an answer): the
candidate pool, what compression removed, what the LLM kept vs the shortest-path signal; and the
training curves and held-out recall of the retrievers trained on weak vs refined supervision.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components import charts, colors, deep_link, graph_view, reg_view, runs, train_view, workspaces
from components import state as S
from components.answer_view import replay_banner
from components.sidebar import active
from components.teaching import page_intro
from components.ui import error_text, md_escape, public_text, question_picker
from core.errors import EgxError
from core.methods.answering import method_notices, step_fallback
from core.methods.base import Backends
from core.methods.evidence.formats import AnswerStepData
from core.methods.registry import METHODS

DEFAULT_QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"

act = active()
ws = act.workspace
st.title("Evidence chains")
page_intro("pages/evidence_chains.py")  # what you are looking at, and the paper section
graph = act.graph  # on a graph store: a read-through view (ReG itself reads the 3-hop region of the question)
if graph.kind != "kg" or graph.n_edges == 0:
    st.info("This workspace is a corpus graph without triples; evidence chains need a knowledge graph. "
            "Pick a KG workspace (demo, musique) in the sidebar.")
    st.stop()

try:
    items = reg_view.reg_questions(ws, act.key)
except EgxError as exc:
    st.warning(f"The workspace's questions could not be read: {exc}")
    items = []
by_q = {it.question: it for it in items}
c1, c2, c3 = st.columns([3, 1, 1])
handed = S.peek_handoff()  # from the Compare page: the question, and the method whose evidence to show
if handed is not None and handed.method in METHODS:
    S.set_value(S.REG_METHOD, handed.method)
query = question_picker(list(by_q), key=S.REG_QUESTION, custom_key=S.REG_CUSTOM, container=c1,
                        default_custom=DEFAULT_QUESTION if graph.name == "demo" or not items else "",
                        help="A question of this workspace (with its answer), or your own.")
methods = [m for m in METHODS if m != "sgrag"] + (["sgrag"] if "sgrag" in METHODS else [])
mkey = S.bind(S.REG_METHOD, "reg" if "reg" in methods else methods[0])
if st.session_state[mkey] not in methods:
    st.session_state[mkey] = "reg" if "reg" in methods else methods[0]
method = S.keep(S.REG_METHOD, c2.selectbox(
    "Method", methods, key=mkey, format_func=lambda m: f"{m} — {METHODS[m].title}",
    help="Whose retrieved evidence to reorganize. Passage methods: the KG triples extracted from their top passages; "
         "BubbleRAG: its unified evidence graph; reg: its top-K triples."))
deep_link.publish(query, method=method)  # the link names whose evidence this is
fmt = S.keep(S.REG_FORMAT, c3.radio("Evidence sent to the LLM", ["chains", "triples"], horizontal=True,
                                    key=S.bind(S.REG_FORMAT, "chains"),
                                    help="Which of the two prompts the answer step sends (both are built and counted)."))
if not query.strip():
    st.info("Type a question to see its evidence.")
    st.stop()

backends = Backends(act.embedder, act.llm, act.reranker)
spec = METHODS[method]
try:
    res = runs.method_run(spec, ws, act.key, backends, query, spec.make_config(evidence_format=fmt))
except EgxError as exc:
    st.error(md_escape(error_text(exc)))
    st.stop()
replay_banner(res)  # a partial replay says so before anything else
for notice in method_notices(res, app=True):  # e.g. reg without a trained retriever is not ReG's retriever
    st.warning(md_escape(notice), icon=":material/warning:")
st.caption(f"[(Re)train ReG's retriever ↓](#{train_view.REG_ANCHOR}): the Train panel is at the bottom of this page.")
data = AnswerStepData.of(res.trace, last=True)  # the answer step's evidence in the three formats
for s in res.trace.steps:
    if s.fallback:
        st.caption(f"Fallback — {md_escape(s.stage)}: {md_escape(public_text(step_fallback(s, app=True)))}")
if data is None or data.evidence_tokens is None:
    st.info(f"{method} answered without KG evidence on this question (e.g. an early exit), so there are no triples "
            "to reorganize.")
    st.stop()

st.markdown(f"**Answer** ({md_escape(data.how)}): {md_escape(res.answer or '(none)')}")
tok = data.evidence_tokens
m1, m2, m3, m4 = st.columns(4)
m1.metric("Triples", data.evidence_triples)
m2.metric("Evidence chains", data.evidence_chains)
m3.metric("Prompt tokens: triples", tok.get("triples", 0))
saving = data.chain_token_saving
m4.metric("Prompt tokens: chains", tok.get("chains", 0),
          delta=None if saving is None else f"{-saving:+.0%} vs triples", delta_color="inverse")
st.caption(f"Tokenizer: {md_escape(data.tokenizer)}. Query entities in the evidence: "
           f"{md_escape(', '.join(data.query_entities) or 'none (all chains are unanchored)')}.")

left, right = st.columns(2, gap="large")
with left:
    st.subheader("Retrieved triples (unordered)")
    triples = data.triples
    st.dataframe(pd.DataFrame({"triple": triples}), hide_index=True, height=min(420, 36 + 35 * max(1, len(triples))))
with right:
    st.subheader("ReG evidence chains")
    stats = data.reorganization
    st.caption(f"{stats.get('expanded', 0)} chains after BFS expansion → {stats.get('chains', 0)} after merging "
               f"({stats.get('multi_answer_chains', 0)} with merged answers, {stats.get('multi_entity_groups', 0)} "
               f"multi-entity groups, {stats.get('unanchored', 0)} unanchored).")
    st.html(reg_view.chains_html(data.chains))

with st.expander("The two prompts", expanded=False):
    st.plotly_chart(charts.token_figure(tok), key=S.REG_TOKENS_CHART)
    pa, pb = st.columns(2)
    pa.markdown(f"**Raw triples** — {tok.get('triples', 0)} tokens")
    pa.code(data.prompts.get("triples", ""), language=None)
    pb.markdown(f"**Evidence chains** — {tok.get('chains', 0)} tokens")
    pb.code(data.prompts.get("chains", ""), language=None)

if method == "reg":
    kept = getattr(res, "kept", ())
    edges = [t.edge for t in kept if t.edge >= 0]
    if edges:
        st.subheader("Kept triples in the graph")
        nodes = sorted({int(graph.edge_head[e]) for e in edges} | {int(graph.edge_tail[e]) for e in edges})
        root = {v for v in res.linked.nodes}
        graph_view.show_graph(graph, nodes, center=sorted(root & set(nodes)),
                              colors={v: colors.ORANGE for v in root}, edge_labels=True, height=420)
        st.caption(f"Scorer: {md_escape(res.scorer)}; {res.candidates} triples scored within {res.config.hops} hops "
                   f"of the linked query entities, top {res.config.top_k} kept. Orange: query entities.")

# ------------------------------------------------------------------------------ supervision
st.header("Supervision (ReG §4.1)")
item = by_q.get(query)
# the candidate pool walks the paths between the question's and the answer's entities over the whole KG
full = (workspaces.whole_graph_if_it_fits(ws, "ReG's supervision candidate pool (paths over the whole KG, §4.1)")
        if item is not None else None)
if item is None:
    st.info("Supervision needs the question's answer: pick one of the workspace's questions.")
elif full is not None:
    graph = full
    llm_ok = act.llm.available
    refine = bool(st.session_state.get(S.REG_REFINE)) and llm_ok
    if llm_ok and not refine and st.button(f"Refine with the LLM ({act.llm_name})", key=S.REG_REFINE_BUTTON,
                                           help="One LLM call selects the sufficient, coherent candidates."):
        st.session_state[S.REG_REFINE] = refine = True
    try:
        sup, strace = reg_view.reg_supervision(ws, item, act.llm, act.key, item.qid, act.llm_name if refine else "none",
                                                refine)
    except EgxError as exc:
        st.error(str(exc))
        st.stop()
    st.caption(f"Answer: {md_escape(item.answers[0])}. Query entities: "
               f"{md_escape(', '.join(sup.query.names) or 'none linked')}; answer entities: "
               f"{md_escape(', '.join(sup.answer.names) or 'none linked')}.")
    comp = sup.compression
    s1, s2, s3, s4 = st.columns(4)
    s1.metric("Candidate paths", comp.raw)
    s2.metric("After answer merging", comp.after_answer_merge)
    s3.metric("After relation-chain merging", len(comp.candidates))
    s4.metric("Compression ratio", f"{comp.ratio:.0%}", help="|compressed| / |raw| (Table 1 reports 5 % on average)")
    tab_pool, tab_comp, tab_sel = st.tabs(["Candidate pool", "What compression removed", "LLM kept vs shortest paths"])
    with tab_pool:
        st.dataframe(pd.DataFrame([{"facet": p.kind, "path": p.text(graph)} for p in sup.pool.paths]),
                     hide_index=True, height=320)
    with tab_comp:
        rep = graph.node_names[comp.answer] if comp.answer is not None else "(none)"
        st.markdown(f"Representative answer: **{md_escape(rep)}**; dropped answers: "
                    f"{md_escape(', '.join(graph.node_names[a] for a in comp.dropped_answers) or 'none')}.")
        st.dataframe(pd.DataFrame([{"removed by answer merging": p.text(graph)} for p in comp.removed]),
                     hide_index=True)
        st.dataframe(pd.DataFrame([{"facet": c.kind, "candidate": c.text(graph), "paths merged": len(c.members)}
                                   for c in comp.candidates]), hide_index=True)
    with tab_sel:
        sel = sup.selection
        label = "refined (LLM-selected)" if sel.mode == "llm" else "weak signal: shortest paths only"
        st.markdown(f"**Labels: {label}**")
        if sel.fallback:
            st.warning(sel.fallback)
        if sel.explanation:
            st.caption(f"LLM explanation: {md_escape(sel.explanation)}")
        weak, chosen = set(sel.weak_edges), set(sel.edges)
        rows = [{"triple": graph.edge_text(e), "shortest-path signal": "✓" if e in weak else "",
                 "LLM kept": "✓" if e in chosen and sel.mode == "llm" else ""} for e in sorted(weak | chosen)]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
        if not llm_ok:
            st.caption("The active LLM is `none`: pick `local`, `local-small` or `openai` in the sidebar to refine.")

# ------------------------------------------------------------------------------ training
st.header("Trained retriever (ReG@Triple)")
from core.methods.reg.retriever import shipped_model_dir  # noqa: E402
from core.methods.reg.train import training_runs  # noqa: E402 — light module; kept next to its only use

train_view.reg_panel(act, [it.qid for it in items])  # Start → a background job in a worker process
runs = training_runs(ws.path, shipped_model_dir(ws))
if not runs:
    st.info("No trained retriever for this workspace yet: train one above. Its curves and held-out recall "
            "appear here.")
else:
    k = int(next(iter(runs.values())).get("config", {}).get("recall_k", 30))
    metric = S.keep(S.REG_CURVE, st.radio("Curve", ["val_recall", "train_loss", "val_loss"], horizontal=True,
                                          key=S.bind(S.REG_CURVE, "val_recall")))
    st.plotly_chart(charts.curves_figure(runs, metric), key=S.REG_CURVES_CHART)
    st.plotly_chart(charts.heldout_figure(runs, k), key=S.REG_HELDOUT_CHART)
    st.dataframe(pd.DataFrame([{"run": label, "supervision": r.get("supervision"), "best epoch": r.get("best_epoch"),
                                **{f"test {m}": round(float(v), 3) for m, v in r.get("test", {}).items()
                                   if m in ("gold_passage_recall", "answer_hit", "label_recall")},
                                **{k2: v for k2, v in r.get("counts", {}).items() if k2.endswith("examples")}}
                               for label, r in runs.items()]), hide_index=True)
    st.caption("Test split = questions never trained on or used for checkpoint selection. Gold-passage triple "
               "recall and answer hit use the same targets for every run; own-label recall is each run's own "
               "supervision (not comparable across runs).")
