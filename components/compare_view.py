"""Pieces of the Compare-methods and Benchmark pages (issue 6): method colours, the overlaid
evidence subgraphs, ranked-chunk tables with gold marks, verdict badges and the hand-off into each
method's step-through page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from components import state as S
from components.graph_view import LegendItem
from components.ui import md_escape
from core.eval.diagnosis import STAGE_LABELS, Diagnosis, chunk_provenance, stages_for
from core.eval.report import VERDICT_COLOURS
from core.graph.model import KnowledgeGraph

#: Okabe–Ito colours (colour-blind safe), one per method in registry order, with brown for the 7th (Okabe–Ito yellow
#: is too close to the gold-passage border); overlap is black.
METHOD_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#8c564b", "#999999")
OVERLAP_COLOUR = "#222222"
GOLD_BORDER = "#ffd700"


def method_colour(method: str, methods: Sequence[str]) -> str:
    i = list(methods).index(method) if method in methods else len(methods)
    return METHOD_COLOURS[i % len(METHOD_COLOURS)]


# ------------------------------------------------------------------------------ step-through pages
def _to_bubble(question: str) -> None:
    from components.bubble import set_value

    set_value(S.BUBBLE_QUESTION, question)


@dataclass(frozen=True)
class StepPage:
    path: str
    title: str


#: Methods with a step-through page. A method registered later can name its page on its MethodSpec
#: (``page="pages/x.py"``); the question is then handed over in ``state.HANDOFF_QUESTION``.
STEP_PAGES: dict[str, StepPage] = {
    "bubblerag": StepPage("pages/bubble_anchors.py", "BubbleRAG step by step"),
    "fastinsight": StepPage("pages/granker.py", "GRanker vs plain reranking"),
    "rerank": StepPage("pages/granker.py", "GRanker vs plain reranking"),
    "sgrag": StepPage("pages/subgraph.py", "SG-RAG subgraph matching"),
    "reg": StepPage("pages/evidence_chains.py", "ReG evidence chains"),
}


def step_page(method: str) -> StepPage | None:
    from core.methods.registry import METHODS

    if method in STEP_PAGES:
        return STEP_PAGES[method]
    spec = METHODS.get(method)
    page = spec.page if spec else ""
    return StepPage(page, spec.title) if page and spec else None


def hand_over(method: str, question: str) -> None:
    """Callback: put ``question`` where ``method``'s step-through page reads it."""
    ss = st.session_state
    ss[S.HANDOFF_QUESTION] = question
    if method == "bubblerag":
        _to_bubble(question)
    elif method in ("fastinsight", "rerank"):
        # pages/granker.py: its selectbox holds the workspace questions, else "(type your own question)"
        ss["egx.granker.question"] = question if question in ss.get(S.COMPARE_GOLD_QUESTIONS, ()) \
            else "(type your own question)"
        ss["egx.granker.custom_question"] = question
    elif method == "sgrag":
        ss["egx.sgrag.question"] = question  # pages/subgraph.py: a text box
    elif method == "reg":
        # pages/evidence_chains.py lists its own questions; the typed-question slot takes any question
        ss["egx.reg.question"] = "(type your own question)"
        ss["egx.reg.custom_question"] = question


def step_link(method: str, question: str, *, key: str) -> None:
    """A button that opens ``method``'s step-through page with the same question (if it has one)."""
    page = step_page(method)
    if page is None:
        st.caption("No step-through page for this method.")
        return
    if st.button(f"Step through → {page.title}", key=key, icon=":material/open_in_new:"):
        hand_over(method, question)
        st.switch_page(page.path)


# ------------------------------------------------------------------------------ evidence subgraphs
def evidence_nodes(result: Any, graph: KnowledgeGraph, *, top: int = 5, per_chunk: int = 6) -> list[int]:
    """The graph nodes a method's evidence covers: BubbleRAG's evidence graph G_final when it has one,
    PPR's seed entities plus, for every method, the entities of its top ``top`` passages (at most
    ``per_chunk`` per passage, so a long passage does not swamp the drawing)."""
    out: list[int] = []
    ev = getattr(result, "evidence", None)
    if ev is not None and getattr(ev, "nodes", None):
        out += [int(v) for v in ev.nodes]
    details = getattr(result, "details", None) or {}
    out += [int(s["node"]) for s in details.get("seeds", []) if details.get("graph") != "corpus graph"]
    if graph.n_nodes:
        prov = chunk_provenance(graph)
        for c in list(result.ranked_chunks)[:top]:
            nodes, edges = prov.get(c.chunk_id, ([], []))
            got = list(nodes)
            for e in edges:
                got += [int(graph.edge_head[e]), int(graph.edge_tail[e])]
            out += list(dict.fromkeys(got))[:per_chunk]
    return list(dict.fromkeys(v for v in out if 0 <= v < graph.n_nodes))


@dataclass(frozen=True)
class Overlay:
    nodes: list[int]
    colors: dict[int, str]
    borders: dict[int, tuple[str, int]]
    notes: dict[int, str]
    legend: list[LegendItem]
    shared: int  #: nodes in more than one method's evidence


def overlay(graph: KnowledgeGraph, per_method: Mapping[str, Sequence[int]], methods: Sequence[str],
            gold_nodes: set[int] | None = None) -> Overlay:
    """One drawing for several methods: a node's fill is its method's colour, or black when several
    methods reached it (the tooltip lists them); gold-passage entities get a golden border."""
    owners: dict[int, list[str]] = {}
    for m, nodes in per_method.items():
        for v in nodes:
            owners.setdefault(int(v), []).append(m)
    colors, borders, notes = {}, {}, {}
    gold_nodes = gold_nodes or set()
    for v, ms in owners.items():
        colors[v] = method_colour(ms[0], methods) if len(ms) == 1 else OVERLAP_COLOUR
        notes[v] = "reached by: " + ", ".join(ms) + (" · in a gold passage" if v in gold_nodes else "")
        if v in gold_nodes:
            borders[v] = (GOLD_BORDER, 5)
    legend = [LegendItem(m, method_colour(m, methods)) for m in per_method]
    legend.append(LegendItem("several methods", OVERLAP_COLOUR))
    if gold_nodes & set(owners):
        legend.append(LegendItem("gold-passage entity (thick border)", GOLD_BORDER, "line"))
    return Overlay(sorted(owners), colors, borders, notes, legend, sum(1 for ms in owners.values() if len(ms) > 1))


# ------------------------------------------------------------------------------ tables and badges
def ranked_table(result: Any, graph: KnowledgeGraph, gold: Sequence[str], *, top: int = 10) -> pd.DataFrame:
    g = set(gold)
    rows = []
    for i, c in enumerate(list(result.ranked_chunks)[:top], start=1):
        title = graph.chunk(c.chunk_id).title if c.chunk_id in graph.chunk_index else c.chunk_id
        row: dict[str, Any] = {"#": i, "passage": title, "score": round(float(c.score), 4)}
        if g:
            row["gold"] = "✓" if c.chunk_id in g else ""
        rows.append(row)
    return pd.DataFrame(rows)


def verdict_badge(diag: Diagnosis) -> None:
    """The verdict as a coloured box with the one-sentence summary."""
    label = STAGE_LABELS.get(diag.stage, diag.stage)
    declared = {s.key: s for s in stages_for(diag.method)} if diag.stage in STAGE_LABELS else {}
    if diag.stage in declared:
        label = declared[diag.stage].label
    text = f"**{md_escape(label)}** — {md_escape(diag.summary)}"
    if diag.stage == "ok":
        st.success(text, icon=":material/check_circle:")
    elif diag.stage == "no_gold":
        st.info(text, icon=":material/help:")
    else:
        st.error(text, icon=":material/report:")


def verdict_colour(stage: str) -> str:
    return VERDICT_COLOURS.get(stage, "#7f7f7f")
