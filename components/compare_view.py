"""Pieces of the Compare-methods and Benchmark pages (issue 6): method colours, the overlaid
evidence subgraphs, ranked-chunk tables with gold marks, verdict badges and the hand-off into each
method's step-through page (``Method.page``, with the question and workspace in ``state.HANDOFF_QUESTION``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from components import state as S
from components.graph_view import LegendItem
from components.navigation import page_path
from components.ui import md_escape
from core.eval.diagnosis import STAGE_LABELS, Diagnosis, stages_for
from core.graph.model import KnowledgeGraph
from core.methods.base import Method

#: Okabe–Ito colours (colour-blind safe), one per method in registry order, with brown for the 7th (Okabe–Ito yellow
#: is too close to the gold-passage border); overlap is black.
METHOD_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#8c564b", "#999999")
OVERLAP_COLOUR = "#222222"
GOLD_BORDER = "#ffd700"


def method_colour(method: str, methods: Sequence[str]) -> str:
    i = list(methods).index(method) if method in methods else len(methods)
    return METHOD_COLOURS[i % len(METHOD_COLOURS)]


# ------------------------------------------------------------------------------ step-through pages
def step_link(spec: Method[Any, Any], question: str) -> None:
    """A button that opens the method's step-through page (``spec.page``) with the same question."""
    if not spec.page:
        st.caption("No step-through page for this method.")
        return
    if st.button(f"Step through → {spec.title}", key=S.sub(S.COMPARE_OPEN, spec.name), icon=":material/open_in_new:"):
        S.hand_over(question, method=spec.name)  # with the active workspace
        st.switch_page(page_path(spec.page))


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
        prov = graph.chunk_provenance()
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
    #: nodes worth a canvas label, most important first: gold entities, those several methods reached, the hubs
    labels: tuple[int, ...] = ()


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
    labels = [*sorted(v for v in owners if v in gold_nodes),
              *sorted((v for v, ms in owners.items() if len(ms) > 1), key=lambda v: (-len(owners[v]), v)),
              *sorted(owners, key=lambda v: (-int(graph.degree[v]), v))]
    return Overlay(sorted(owners), colors, borders, notes, legend, sum(1 for ms in owners.values() if len(ms) > 1),
                   tuple(dict.fromkeys(labels)))


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
