"""The panels of the Anchors page (pages/bubble_anchors.py), each taking the run and the
sidebar's record as arguments; pages/bubble_anchors.py composes them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import charts, graph_view, replay_time
from components import state as S
from components.bubblerag import shared as bubble
from components.ui import md_code, md_escape
from core.methods.bubblerag.grouping import RULE_WEIGHTS, AnchorGroups

if TYPE_CHECKING:
    from components.sidebar import Active


HEIGHT = 420  #: the anchors' drawing: shorter than the expansion page's, it sits under the groups' table


MAX_DRAWN = 200  #: anchors drawn at most (the best connected), as the Ask page caps its evidence graph


STAGES = ("1 · Question", "2 · Keywords", "3 · Specialized", "4 · Relaxed", "5 · Candidates", "6 · Groups")


def next_stage() -> None:
    cur = st.session_state.get(S.BUBBLE_STAGE, STAGES[0])
    S.set_value(S.BUBBLE_STAGE, STAGES[min(STAGES.index(cur) + 1, len(STAGES) - 1)])


def create_question_ui(act: Active, result) -> None:
    st.subheader("1 · The question and the pre-retrieved passages")
    groups = result.groups.groups if result.groups is not None else ()
    st.html(bubble.highlighted_question(result.query, groups))
    unmarked = bubble.unmarked_groups(result.query, groups)
    if unmarked:  # an audit's class asked why "death" (a group at stage 6) was no colour in the question
        st.caption("Each word is coloured as its anchor group (stage 6); where two groups stand for the same words, "
                   "the first takes the colour. No word of the question stands for "
                   + ", ".join(f"“{md_escape(c)}”" for c in unmarked)
                   + ": inferred by the keyword step, or a name the pre-retrieved passages suggested.")
    g = act.graph
    if not getattr(result.config, "pre_retrieval", True):
        st.caption("No pre-retrieval: no passage was retrieved before anchor selection (the §4.3 ablation "
                   "'w/o Schema Relaxation'), so the keywords see no preview and nothing is relaxed.")
    else:
        st.caption(f"Dense pre-retrieval fetched the top {len(result.pre.chunk_ids)} passages (§3.2): they suggest "
                   "latent keywords and justify schema relaxations below.")
    # a static table (its cells Markdown: escaped), drawn with the page: the tour's first step showed the grid's empty
    # grey box for ~2 s while the browser loaded the grid (an audit); these tables hold a handful of rows
    rows = [{"passage": md_escape(g.chunk(c).title if c in g.chunk_index else c), "chunk id": md_escape(c),
             "similarity": f"{s:.3f}"} for c, s in zip(result.pre.chunk_ids, result.pre.scores)]
    if rows:
        st.table(pd.DataFrame(rows), hide_index=True, border="horizontal")
    bubble.fallback_notes(result, ("preretrieval",))
    replay_time.stage_time_captions(act.llm, result.trace, ("preretrieval",))


def create_keywords_ui(act: Active, result) -> None:
    st.subheader("2 · Explicit and inferred keywords")
    kws = result.keywords
    by = {"llm": "the LLM", "ner": "a standard NER extractor (spaCy; the §4.3 ablation 'w/o Anchor "
                                  "Specialization': no LLM, nothing inferred)"}.get(kws.source,
                                                                                   "the query-text heuristic (no LLM)")
    st.caption(f"Extracted by {by}: explicit keywords appear in the question; implicit ones are inferred from the "
               "passages (Example 3: the entity the question only describes).")
    rows = [{"keyword": md_escape(k.text), "kind": "explicit" if k.kind == "explicit" else "inferred (implicit)",
             "entity-like": "✓" if k.entity else ""} for k in kws.items]
    st.table(pd.DataFrame(rows, columns=["keyword", "kind", "entity-like"]), hide_index=True, border="horizontal")
    bubble.fallback_notes(result, ("keywords",))
    replay_time.stage_time_captions(act.llm, result.trace, ("keywords",))


def create_specialization_ui(act: Active, result) -> None:
    st.subheader("3 · Specialized keywords (before → after)")
    spec = result.specialization
    what = specialization_what(spec.terms, result.trace.steps)
    st.caption("Under-specified keywords are rewritten into query-conditioned search terms (Example 4: a vague "
               f"keyword is bound to the question's entity, so it searches for that entity's, not any); {what}.")
    rows = [{"keyword (before)": md_escape(t.keyword), "search term (after)": md_escape(t.search),
             "changed": "✓" if t.specialized else "", "kind": t.kind} for t in spec.terms]
    st.table(pd.DataFrame(rows, columns=["keyword (before)", "search term (after)", "changed", "kind"]),
             hide_index=True, border="horizontal")
    bubble.fallback_notes(result, ("specialization",))
    replay_time.stage_time_captions(act.llm, result.trace, ("specialization",))


def specialization_what(terms, steps) -> str:
    """What stage 3 did on this run, after the caption's "Under-specified keywords are rewritten …;": the first
    rewrite, else whether the LLM's rewrites were rejected — "here none was rewritten" stood above the three rewrites
    the check had rejected on the Keanu question (an audit: a contradiction a lecturer had to explain)."""
    changed = [t for t in terms if t.specialized]
    if changed:
        return f"here “{md_escape(changed[0].keyword)}” → “{md_escape(changed[0].search)}”"
    if any(s.stage == "specialization" and s.fallback.startswith("check failed") for s in steps):
        return ("here the LLM proposed rewrites, the check rejected each (the reasons are under the table), and every "
                "keyword is searched as it is")
    return "here none was rewritten"


def relaxation_groups(relaxed: Sequence[Any]) -> dict[tuple[str, str], list[Any]]:
    """(keyword, relaxed wording) → its relaxations, in order: one box per relaxation with every passage that
    justifies it (an audit read "main villain → villain" twice, once per justifying passage)."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for r in relaxed:
        groups.setdefault((r.keyword, r.relaxed), []).append(r)
    return groups


def create_relaxation_ui(act: Active, result) -> None:
    st.subheader("4 · Schema relaxations and the passages that justify them")
    relax = result.relaxation
    st.caption("A KG built by someone else may name a concept differently (Example 5). A keyword is relaxed "
               "into the wording a pre-retrieved passage uses; each relaxation names its passage.")
    if not relax.relaxed:
        st.caption("No relaxation was needed (or the stage is disabled): every keyword is searched as is.")
    g = act.graph
    for (keyword, relaxed), rs in relaxation_groups(relax.relaxed).items():
        with st.container(border=True):
            said = "; ".join(md_escape(r.reason) for r in rs)
            st.markdown(f"**{md_escape(keyword)}** → **{md_escape(relaxed)}** — "
                        + (said if len(rs) == 1 else f"justified by {len(rs)} passages: {said}"))
            for r in rs:
                if r.chunk_id in g.chunk_index:
                    c = g.chunk(r.chunk_id)
                    st.caption(f"Justifying passage: {md_escape(c.title or '(untitled)')} · {md_code(c.id)}")
                    st.text(c.text)
                else:
                    st.caption(f"Justifying passage {md_escape(r.chunk_id)} is not in this workspace.")
    bubble.fallback_notes(result, ("relaxation",))
    replay_time.stage_time_captions(act.llm, result.trace, ("relaxation",))


def create_candidates_ui(act: Active, result) -> None:
    st.subheader("5 · Candidate anchors per keyword")
    cands = result.candidates
    st.caption(f"Each search term retrieves its top {result.config.k_candidates} nodes **and** enriched edges "
               "(“head relation tail” text) by cosine similarity.")
    keywords = list(dict.fromkeys(t.keyword for t in cands.terms))
    tabs = st.tabs([graph_label(k) for k in keywords]) if keywords else []
    for tab, kw in zip(tabs, keywords):
        rows = []
        for c in cands.by_keyword(kw):
            sim = dict(zip(c.keywords, c.keyword_scores)).get(kw, c.score)
            rows.append({"id": c.cid, "kind": c.kind, "text": c.text, "similarity": round(float(sim), 3)})
        with tab:
            if rows:
                st.dataframe(pd.DataFrame(rows).sort_values("similarity", ascending=False), hide_index=True,
                             width="stretch")
            else:
                st.caption("No candidate above the similarity threshold.")
    replay_time.stage_time_captions(act.llm, result.trace, ("candidates",))


def graph_label(text: str) -> str:
    return text if len(text) <= 24 else text[:23] + "…"


#: What §3.2 expects of the weights, said beside them: the page shows whose weights they are against it.
PAPER_WEIGHTS = ("The paper (§3.2) expects the core subject highest, the relations next and the modifiers lowest "
                 "(Example 4: about 0.5 / 0.3 / 0.2).")


def weights_line(groups: AnchorGroups) -> str:
    """Whose weights the groups carry, said right beside them (Markdown): the LLM's own, or the rule's where the
    LLM's failed the check (uniform weights judge nothing) or no LLM grouped, then what §3.2 expects. A lecturer read
    rule weights as the model's judgement when this stood only in a grey fallback note far below the drawing; the
    rest (how the rule weighs) is :func:`weights_detail`, folded: six lines here were too much for a projector."""
    if groups.source == "llm" and not groups.weights_check:
        who = "**Weights: the LLM's own judgement.**"
    elif groups.source == "llm":
        # "(0.2)" beside 7 groups read as a wrong 1/7 to two audits: the figure is the reply's, before normalizing
        n = len(groups.groups)
        same = re.match(r"every group has the same weight \(([\d.]+)\)", groups.weights_check)
        why = (f"the reply gave all {n} groups the same weight — {same.group(1)} each as written, 1/{n} ≈ {1 / n:.2f} "
               "once normalized: no group was judged more central" if same and n else
               f"{groups.weights_check}; figures as the reply wrote them")
        who = f"**Weights: rule-based fallback** — the LLM's weights failed the check ({md_escape(why)}), so `none`-mode weights."
    else:
        who = "**Weights: rule-based** — no LLM grouping here (no LLM, or its reply failed the check): the `none`-mode weights."
    return f"{who} {PAPER_WEIGHTS}"


def weights_detail(groups: AnchorGroups) -> str:
    """How the rule's weights are made and what it cannot judge against §3.2 (Markdown; "" beside the LLM's own)."""
    if groups.source == "llm" and not groups.weights_check:
        return ""
    figures = ("The figures in the check are the reply's own, before any normalizing, so they need not sum to 1. "
               if groups.source == "llm" else "")
    return f"{figures}The `none`-mode weights: {md_escape(RULE_WEIGHTS)} to sum to 1. {RULE_VS_PAPER}"


#: What the rule can and cannot do against §3.2, said beside rule weights: a lecturer read "relations next" beside a
#: relation ("main villain") weighted like the modifiers and took it for a bug.
RULE_VS_PAPER = ("The rule tells only names from other words: it puts the question's first entity highest and the "
                 "other entities next, but weighs every relation and modifier alike (it cannot rank “mother” above "
                 "“death date” as Example 4 does) — that judgement is the LLM's part.")


def merged_names_line(groups: AnchorGroups) -> str:
    """Say which groups join several different names (Markdown; "" when none does): their bubbles start as one
    group, so reaching either name counts for it — right when the names are one entity ("Lothair I / Lothair II's
    father"), a wrong turn when they are two people ("Lothair II / Lothair I"), which an audit found the tour
    leaving a lecturer to spot in a crowded drawing."""
    merged = []
    for g in groups.groups:
        names = [p.strip() for p in g.concept.split(" / ") if any(ch.isupper() or ch.isdigit() for ch in p)]
        if len({n.casefold() for n in names}) > 1:
            merged.append(f"“{md_escape(g.concept)}” (group {g.gid})")
    if not merged:
        return ""
    return ("**Merged names**: " + ", ".join(merged) + (" joins" if len(merged) == 1 else " join")
            + " several names in one group, so a bubble from any of them counts for that group and a CEG may connect "
              "the question's entities through the other name. Check whether they are one entity.")


def create_groups_ui(act: Active, result) -> None:
    st.subheader("6 · Semantic anchor groups and their weights")
    groups = result.groups.groups
    st.caption(f"Candidates are grouped by concept ({'LLM' if result.groups.source == 'llm' else 'embedding clustering'}); "
               "each group S_i gets an importance weight w_i used by the ranking (Eq. 6). Every later page draws a "
               "group in this colour.")
    st.html(bubble.group_chips(groups))
    st.markdown(weights_line(result.groups))
    # the anchors on the graph right under their groups: below the chart and the table they took a scroll after the
    # stage walk's five clicks (audit 55)
    create_anchor_drawing_ui(act, result)
    detail = weights_detail(result.groups)
    if detail:
        with st.expander("How the rule weighs, against §3.2"):
            st.markdown(detail)
    merged = merged_names_line(result.groups)
    if merged:
        st.markdown(merged)
    st.plotly_chart(charts.group_weights_figure(groups, [bubble.group_color(g.gid) for g in groups]),
                    key=S.BUBBLE_WEIGHTS_CHART)
    g = act.graph
    rows = [{"group": f"{grp.gid}: {grp.concept}", "weight": round(grp.weight, 3), "anchor": c.text, "kind": c.kind,
             "similarity": round(c.score, 3)} for grp in groups for c in grp.members]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    n_terms = len({v for grp in groups for v in grp.terminals(g)})
    st.caption(f"{n_terms} terminal nodes in all (edge anchors contribute both endpoints).")
    for note in result.groups.notes:
        st.caption("↪ " + md_escape(note))
    bubble.fallback_notes(result, ("grouping",))
    replay_time.stage_time_captions(act.llm, result.trace, ("grouping",))


def create_anchor_drawing_ui(act: Active, result) -> None:
    """The anchors on the graph, drawn as the expansion page draws them (diamonds in their group's colour,
    mixed where a node anchors several groups), with the edges among them: where the bubbles will start."""
    g = act.graph
    nodes = sorted(bubble.terminal_groups(result, g))
    if not nodes:
        st.caption("No anchor to draw: no group has a member in the graph.")
        return
    shown, capped = graph_view.limit_nodes(g, nodes, MAX_DRAWN)
    st.markdown("**The anchors on the graph**: where the bubbles of the next page start.")
    if capped:
        st.caption(f"{len(nodes)} anchors; the drawing shows the {len(shown)} best connected.")
    doc = bubble.subgraph_html(act, result, list(shown), g.induced_edges(list(shown)).tolist(), height=HEIGHT,
                               mark_anchors=True)
    graph_view.render_html(doc, height=HEIGHT)
