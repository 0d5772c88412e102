"""Drawing ReG evidence chains as paths (HTML), and the plotly charts of the Evidence chains page.

A chain is a row of entity boxes joined by relation arrows, drawn from its query entity (the root, outlined): a
forward chain reads left to right as in Appendix F; a backward one (D.4.1's bidirectional expansion: the query
entity is the tail of its last triple) is drawn reversed, with ← arrows, so each triple still reads true. A
merged position (multi-answer merging) is a stack of boxes; chains of one multi-entity group share a coloured
frame and a note with the targets that target refinement removed. Every label is user data and is HTML-escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import charts, colors, deep_link, graph_view, train_view, workspaces
from components import state as S
from components.answer_view import (
    not_recorded_notice,
    own_budget_line,
    recorded_first,
    replay_banner,
    unrecorded_workspace,
)
from components.question import gold_answer_line, question_box
from components.ui import error_text, md_escape, public_text
from core.errors import EgxError
from core.methods.answering import method_notices, step_fallback
from core.methods.diagnoser import answer_by_llm
from core.methods.evidence.formats import AnswerStepData
from core.methods.reg.keep import quiet_notes
from core.methods.reg.retriever import shipped_model_dir
from core.methods.reg.train import training_runs
from core.methods.registry import METHODS

if TYPE_CHECKING:
    from components.sidebar import Active
    from core.index.workspace import Workspace


_CSS = """<style>
.egx-chains{font-family:sans-serif;font-size:13px;line-height:1.25}
.egx-chain{display:flex;align-items:center;flex-wrap:wrap;gap:4px;padding:5px 6px;margin:3px 0;border-radius:6px;
 border:1px solid #ddd}
.egx-chain .n{color:#777;min-width:1.8em}
.egx-ent{display:inline-flex;flex-direction:column;gap:2px}
.egx-ent span{background:#f1f3f6;border:1px solid #c9ced6;border-radius:4px;padding:2px 6px}
.egx-ent.root span{border:2px solid #333;font-weight:600}
.egx-ent.set span{background:#fff4d6;border-color:#e0b84a}
.egx-rel{color:#555;white-space:nowrap}
.egx-tag{font-size:11px;color:#fff;border-radius:3px;padding:1px 5px;margin-left:6px}
.egx-note{font-size:11px;color:#666;margin-left:6px}
</style>"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


#: said under a merged chain whose middle is a set as well as its end (App. D.4.2's multi-answer merging keeps the
#: relation path, not which middle entity led to which answer)
PAIRING_LOST = ("merged by relation path (App. D.4.2): which middle entity leads to which answer is no longer "
                "shown, so e.g. a mother's and a father's dates read alike")


def chains_html(chains: Sequence[Mapping[str, Any]], *, limit: int = 60) -> str:
    """HTML for the chains recorded in an answer step (``entities``, ``relations``, ``direction``,
    ``root``, ``group``, ``refined_from``, ``merged_answers``)."""
    rows = [_CSS, '<div class="egx-chains">']
    for i, c in enumerate(chains[:limit], start=1):
        ents: list[list[str]] = c.get("entities") or [[c.get("text", "")]]
        rels: list[str] = c.get("relations") or []
        group = int(c.get("group", -1))
        color = colors.nth(colors.CHAIN_GROUPS, group) if group >= 0 else ""
        style = f' style="border:2px solid {color}"' if color else ""
        backward = c.get("direction") == "backward"
        if backward:  # it ends at its query entity: drawn from that entity, read right to left (from_root)
            ents, rels = ents[::-1], rels[::-1]
        arrow = "←" if backward else "→"
        parts = [f'<div class="egx-chain"{style}><span class="n">{i}.</span>']
        for p, names in enumerate(ents):
            cls = "egx-ent" + (" root" if p == 0 and c.get("direction") != "unanchored" else "") \
                + (" set" if len(names) > 1 else "")
            parts.append(f'<span class="{cls}">' + "".join(f"<span>{_e(n)}</span>" for n in names) + "</span>")
            if p < len(rels):
                parts.append(f'<span class="egx-rel">{arrow} [{_e(rels[p])}] {arrow}</span>')
        if int(c.get("merged_answers", 1)) > 1:
            parts.append(f'<span class="egx-tag" style="background:#b8860b">{int(c["merged_answers"])} answers merged'
                         "</span>")
            if sum(len(names) > 1 for names in ents) > 1:  # a set in the middle too: the pairs are gone
                parts.append(f'<span class="egx-note">{_e(PAIRING_LOST)}</span>')
        if color:
            parts.append(f'<span class="egx-tag" style="background:{color}">entity group {group + 1}</span>')
        if c.get("refined_from"):
            parts.append('<span class="egx-note">targets refined from {' + "; ".join(_e(x) for x in c["refined_from"])
                         + "}</span>")
        if c.get("direction") == "unanchored":
            parts.append('<span class="egx-note">not reached from a query entity</span>')
        parts.append("</div>")
        rows.append("".join(parts))
    if len(chains) > limit:
        rows.append(f'<div class="egx-note">… and {len(chains) - limit} more chains</div>')
    rows.append("</div>")
    return "".join(rows)


# ------------------------------------------------------------------------------------- cached views
@st.cache_resource(show_spinner="Building the supervision candidates…", max_entries=32)
def reg_supervision(_workspace: Workspace, _item: Any, _llm: Any, key: str, qid: str, llm_key: str,
                    refine: bool) -> tuple[Any, Any]:
    """(Supervision, Trace) of one question: candidate pool → compression → selection (ReG §4.1)."""
    from core.methods.reg.supervision import build_supervision
    from core.trace import Trace

    trace = Trace("reg-supervision", _item.question, _workspace.name)
    sup = build_supervision(_item, _workspace.graph, _llm, refine=refine, trace=trace)
    return sup, trace


@st.cache_data(show_spinner=False, max_entries=8)
def reg_questions(_workspace: Workspace, key: str) -> list[Any]:
    """The workspace's questions with answers (``core.methods.reg.supervision.QAItem``; [] if none)."""
    from core.index.questions import chunk_table
    from core.methods.reg.supervision import load_qa

    path = _workspace.questions_path
    return load_qa(path, chunk_table(_workspace)) if path is not None else []  # a store: its chunk rows only

# ------------------------------------------------------------------------------ the Evidence chains page's panels
DEFAULT_QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"


def has_triples(graph: Any) -> None:
    """Stop the page, saying why, unless the workspace is a knowledge graph with triples."""
    if graph.kind != "kg" or graph.n_edges == 0:
        st.info("This workspace is a corpus graph without triples; evidence chains need a knowledge graph. "
                "Pick a KG workspace (demo, musique) in the sidebar.")
        st.stop()


def questions(act: Active) -> list[Any]:
    """The workspace's questions with their answers (``QAItem``); [] with a warning when they cannot be read."""
    try:
        return list(reg_questions(act.workspace, act.key))
    except EgxError as exc:
        st.warning(f"The workspace's questions could not be read: {md_escape(error_text(exc))}")
        return []


def choices(act: Active, items: list[Any]) -> tuple[str, str, str]:
    """(question, method whose evidence to reorganize, the evidence format the answer step sends); a method handed
    over by the Compare page is picked."""
    by_q = {it.question: it for it in items}
    c1, c2, c3 = st.columns([3, 1, 1])
    handed = S.peek_handoff()  # from the Compare page: the question, and the method whose evidence to show
    if handed is not None and handed.method in METHODS:
        S.set_value(S.REG_METHOD, handed.method)
    offered = recorded_first(act.llm_name, act.workspace.name, "reg", list(by_q))  # the default replays a recording
    query = question_box(offered, key=S.REG_QUESTION, custom_key=S.REG_CUSTOM, container=c1,
                         default=DEFAULT_QUESTION if act.graph.name == "demo" or not items else "",
                         help="A question of this workspace (with its answer), or your own.")
    methods = [m for m in METHODS if m != "sgrag"] + (["sgrag"] if "sgrag" in METHODS else [])
    mkey = S.bind(S.REG_METHOD, "reg" if "reg" in methods else methods[0])
    if st.session_state[mkey] not in methods:
        st.session_state[mkey] = "reg" if "reg" in methods else methods[0]
    method = S.keep(S.REG_METHOD, c2.selectbox(
        "Method", methods, key=mkey, format_func=lambda m: f"{m} — {METHODS[m].title}",
        help="Whose retrieved evidence to reorganize. Passage methods: the KG triples extracted from their top "
             "passages; BubbleRAG: its unified evidence graph; reg: its top-K triples."))
    deep_link.publish(query, method=method)  # the link names whose evidence this is
    fmt = S.keep(S.REG_FORMAT, c3.radio("Evidence sent to the LLM", ["chains", "triples"], horizontal=True,
                                        key=S.bind(S.REG_FORMAT, "chains"),
                                        help="Which of the two prompts the answer step sends (both are built and "
                                             "counted)."))
    return query, str(method), str(fmt)


def not_recorded(act: Active, method: str, query: str) -> None:
    """Before the run: with the ``recorded`` LLM, say plainly when ``method`` has no recorded run of ``query``."""
    not_recorded_notice(act.llm_name, act.workspace.name, method, METHODS[method].title if method != "reg" else "ReG",
                        query)


#: Where the app's notices send a user to train ReG — said from this page, it is the panel at its bottom (audit 45
#: read "Train … in the Train panel of the Evidence chains page" on the Evidence chains page).
ELSEWHERE, HERE = "the Train panel of the Evidence chains page", "the Train panel at the bottom of this page"


def on_this_page(text: str) -> str:
    """``text`` with "the Train panel of the Evidence chains page" said as seen from that page."""
    return text.replace(ELSEWHERE, HERE)


def evidence(act: Active, res: Any, method: str) -> list[str]:
    """The answer step's evidence: raw triples beside the ReG evidence chains, the two prompts with their token
    counts, and (reg) its kept triples in the graph. Returns the run's notices and quiet notes it showed (the
    Train panel does not say them again)."""
    graph = act.graph
    # a partial replay says so before anything else (a workspace without recordings was said once, before the run)
    replay_banner(res, said=unrecorded_workspace(act.llm_name, act.workspace.name))
    notices = method_notices(res, app=True)
    for notice in notices:  # e.g. reg without a trained retriever is not ReG's retriever
        st.warning(md_escape(on_this_page(notice)), icon=":material/warning:")
    quiet = list(quiet_notes(res))
    data = AnswerStepData.of(res.trace, last=True)  # the answer step's evidence in the three formats
    for s in res.trace.steps:
        if s.fallback:
            st.caption(f"Fallback — {md_escape(s.stage)}: "
                       f"{md_escape(on_this_page(public_text(step_fallback(s, app=True))))}")
    if data is None or data.evidence_tokens is None:
        st.info(f"{method} answered without KG evidence on this question (e.g. an early exit), so there are no triples "
                "to reorganize.")
        st.stop()

    # at its own budget, said in the answer's line (the whole sentence in its tooltip): audit 44 read a wrong answer
    # here and Compare's right one for ReG, unexplained, and a caption of its own pushed the triples below a
    # projector's fold on the tour
    budget = own_budget_line(res)
    own = "; own budget: Compare's may differ" if budget else ""
    st.markdown(f"**Answer** ({md_escape(data.made_by)}{own}): {md_escape(res.answer or '(none)')}",
                help=md_escape(budget) if budget else None)
    gold_answer_line(act, res.answer or "", res.query, by_llm=answer_by_llm(res), result=res)  # the gold answer with EM / F1, as on Ask
    tok = data.evidence_tokens

    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("Retrieved triples (unordered)")
        triples = data.triples or []
        st.dataframe(pd.DataFrame({"triple": triples}), hide_index=True, height=min(420, 36 + 35 * max(1, len(triples))))
    with right:
        st.subheader("ReG evidence chains")
        stats = data.reorganization or {}
        st.caption(f"{stats.get('expanded', 0)} chains after BFS expansion → {stats.get('chains', 0)} after merging "
                   f"({stats.get('multi_answer_chains', 0)} with merged answers, {stats.get('multi_entity_groups', 0)} "
                   f"multi-entity groups, {stats.get('unanchored', 0)} unanchored). Each chain is drawn from a question "
                   "entity: → chains start there; ← chains ended there (App. D.4.1 expands both ways) and are read "
                   "back from it, arrows reversed. The prompt writes every chain left to right.")
        st.html(chains_html(data.chains or []))
    # the counts and what they cost in prompt tokens under the two columns: above them they pushed the triples and
    # chains a guided demo points to under a 900-px fold (an audit found them at y≈860)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Triples", data.evidence_triples)
    m2.metric("Evidence chains", data.evidence_chains)
    m3.metric("Prompt tokens: triples", tok.get("triples", 0))
    saving = data.chain_token_saving
    m4.metric("Prompt tokens: chains", tok.get("chains", 0),
              delta=None if saving is None else f"{-saving:+.0%} vs triples", delta_color="inverse")
    st.caption(f"Tokenizer: {md_escape(data.tokenizer or '?')}. Query entities in the evidence: "
               f"{md_escape(', '.join(data.query_entities or ()) or 'none (all chains are unanchored)')}.")
    for note in quiet:  # e.g. a retriever below cosine by less than noise: a caption, not a warning (beside the link to
        st.caption(md_escape(on_this_page(note)))  # the Train panel, under the evidence: above it, it pushed the triples down)
    st.caption(f"[(Re)train ReG's retriever ↓](#{train_view.REG_ANCHOR}): the Train panel is at the bottom of this page.")

    with st.expander("The two prompts", expanded=False):
        st.plotly_chart(charts.token_figure(tok), key=S.REG_TOKENS_CHART)
        pa, pb = st.columns(2)
        pa.markdown(f"**Raw triples** — {tok.get('triples', 0)} tokens")
        shown = data.prompts or {}
        pa.code(shown.get("triples", ""), language=None)
        pb.markdown(f"**Evidence chains** — {tok.get('chains', 0)} tokens")
        pb.code(shown.get("chains", ""), language=None)

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
    return [*notices, *quiet]


def supervision(act: Active, items: list[Any], query: str) -> None:
    """ReG §4.1 on the question: the candidate pool, what compression removed, what the LLM kept vs the
    shortest-path signal (refined on a click when an LLM is set)."""
    by_q = {it.question: it for it in items}
    st.header("Supervision (ReG §4.1)")
    item = by_q.get(query)
    # the candidate pool walks the paths between the question's and the answer's entities over the whole KG
    full = (workspaces.whole_graph_if_it_fits(act.workspace, "ReG's supervision candidate pool (paths over the whole KG, §4.1)")
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
            sup, _ = reg_supervision(act.workspace, item, act.llm, act.key, item.qid,
                                         act.llm_name if refine else "none", refine)
        except EgxError as exc:
            st.error(md_escape(error_text(exc)))
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


#: The training curves the radio offers, in words (an audit read the result's keys, "val_recall", "train_loss")
CURVES = {"val_recall": "validation recall", "train_loss": "training loss", "val_loss": "validation loss"}
#: The held-out figures of a training run as the table heads them (the result's keys were shown raw: an audit read
#: "test gold_passage_recall" and "train_examples")
HELD_OUT = {"gold_passage_recall": "gold-passage triple recall", "answer_hit": "answer hit",
            "label_recall": "own-label recall"}


def training_table(trained: Mapping[str, Mapping[str, Any]], k: int) -> pd.DataFrame:
    """One row per training run: its supervision, best epoch, held-out figures at ``k`` ("n/a" where no held-out
    question has the target — a raw ``None`` was shown) and example counts, in words."""
    def figure(v: Any) -> str:
        try:
            x = float(v)
        except (TypeError, ValueError):
            return "n/a"
        return "n/a" if math.isnan(x) else f"{x:.3f}"

    rows = []
    for label, r in trained.items():
        test = r.get("test", {}) or {}
        row: dict[str, Any] = {"run": label, "supervision": r.get("supervision"), "best epoch": r.get("best_epoch")}
        row.update({f"held-out {name}@{k}": figure(test.get(key)) for key, name in HELD_OUT.items()})
        row.update({k2.replace("_", " "): v for k2, v in (r.get("counts", {}) or {}).items() if k2.endswith("examples")})
        rows.append(row)
    return pd.DataFrame(rows)


def training_columns(columns: Sequence[str]) -> dict[str, Any]:
    """Short headers for :func:`training_table`'s long ones, the whole name in each header's tooltip: at 1440 px an
    audit found its last column cut ("train ex…") behind a sideways scroll."""
    out: dict[str, Any] = {}
    for c in columns:
        if c.startswith("held-out "):
            short = c.removeprefix("held-out ").replace("gold-passage triple recall", "gold triples") \
                .replace("own-label recall", "own labels")
            out[c] = st.column_config.TextColumn(short, help=f"{c} (the test split: questions never trained on)")
        elif c.endswith(" examples"):
            out[c] = st.column_config.NumberColumn(c.removesuffix(" examples"), help=f"{c}", width="small")
    return out


def verdict_lines(trained: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The installed runs' verdicts in words, kept with the run (an audit reloaded the page after training and found
    nothing saying the model was installed, only a scorer line higher up): the held-out comparison that installed
    it. A run kept aside is said by the Train panel above, with its **Use it anyway**."""
    return [f"{md_escape(label)} — **installed**: the scorer `reg` uses now; {md_escape(str(r['verdict']))}."
            for label, r in trained.items() if r.get("verdict") and not r.get("kept_aside")]


def training(act: Active, items: list[Any], said: Sequence[str] = ()) -> None:
    """The Train panel and the trained retrievers' curves and held-out recall; ``said``: the notices the page
    already showed (:func:`evidence`)."""
    st.header("Trained retriever (ReG@Triple)")

    train_view.reg_panel(act, [it.qid for it in items], said=said)  # Start → a background job in a worker process
    trained = training_runs(act.workspace.path, shipped_model_dir(act.workspace))
    if not trained:
        st.info("No trained retriever for this workspace yet: train one above. Its curves and held-out recall "
                "appear here.")
    else:
        k = int(next(iter(trained.values())).get("config", {}).get("recall_k", 30))
        metric = S.keep(S.REG_CURVE, st.radio("Curve", list(CURVES), horizontal=True, format_func=CURVES.__getitem__,
                                              key=S.bind(S.REG_CURVE, "val_recall")))
        st.plotly_chart(charts.curves_figure(trained, metric), key=S.REG_CURVES_CHART)
        st.plotly_chart(charts.heldout_figure(trained, k), key=S.REG_HELDOUT_CHART)
        table = training_table(trained, k)
        st.dataframe(table, hide_index=True, column_config=training_columns(table.columns))
        for line in verdict_lines(trained):
            st.markdown(line)
        st.caption("Test split = questions never trained on or used for checkpoint selection. Gold-passage triple "
                   "recall and answer hit use the same targets for every run; own-label recall is each run's own "
                   "supervision (not comparable across runs). “n/a”: no held-out question has that target (gold-"
                   "passage recall needs a gold passage's triple in a held-out question's neighbourhood).")
