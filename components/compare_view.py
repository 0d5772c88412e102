"""Pieces of the Compare-methods and Benchmark pages: method colours, the overlaid
evidence subgraphs, ranked-chunk tables with gold marks, verdict badges and the hand-off into each
method's step-through page (``Method.page``, with the question and workspace in ``state.HANDOFF_QUESTION``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from components import budget_view, colors, jobs_view, runs, tour
from components import state as S
from components.answer_view import answer_note, gold_answer, off_gold_source, replay_banner
from components.bench_view import fit_width
from components.graph_view import LegendItem, show_graph
from components.navigation import page_path
from components.page import current
from components.question import question_box, workspace_questions
from components.suggestions import graph_suggestions, suggested_questions_ui
from components.ui import error_text, md_escape
from core.errors import EgxError
from core.eval.diagnose import diagnose, stages_for
from core.eval.metrics import llm_tokens, stage_latency
from core.eval.result_metrics import retrieval_metrics
from core.eval.triage import result_row, to_csv, to_json
from core.eval.verdicts import (
    ANSWER_PARTIAL,
    NOT_RETRIEVED_LABEL,
    OK,
    READ_BY_ANSWER_LABEL,
    VERDICT_LABELS,
    diagnosis_verdict,
    match_answer,
    partly_retrieved_label,
    unmatched_note,
    verdict_label,
)
from core.graph.model import KnowledgeGraph, passage_label
from core.methods.base import Diagnosis, Gold, Method, MethodResult
from core.methods.budget import OWN, apply_budget
from core.methods.diagnoser import answer_by_llm
from core.methods.registry import METHODS, method_names
from core.text import normalize_answer


def method_colour(method: str, methods: Sequence[str]) -> str:
    i = list(methods).index(method) if method in methods else len(methods)
    return colors.nth(colors.METHODS, i)


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
def evidence_nodes(result: MethodResult, graph: KnowledgeGraph, *, top: int = 5, per_chunk: int = 6) -> list[int]:
    """The graph nodes a method's evidence covers: BubbleRAG's evidence graph G_final when it has one,
    PPR's seed entities plus, for every method, the entities of its top ``top`` passages (at most
    ``per_chunk`` per passage, so a long passage does not swamp the drawing)."""
    out: list[int] = list(result.evidence_nodes)
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
    #: labels kept on the canvas even where their node is walled in (a leader line then): the gold entities, then
    #: the hubs several methods reached (:data:`KEPT_LABELS`)
    kept: tuple[int, ...] = ()


#: How many gold entities and shared hubs keep their label on the overlay whatever the crowding: an audit's projector
#: showed Keanu Reeves and Laurence Fishburne, reached by every method, unlabelled (no clear spot beside a hub), while
#: "Canadian" and "1999" had labels; the next one, with those kept, "Speed (1994 film)" (6 methods) and the gold
#: "Carrie-Anne Moss" (one method).
KEPT_LABELS = 16
#: The overlay's node labels on screen (the drawings' default is 13 px: small on a projector, an audit).
OVERLAY_LABEL_PX = 15


def answer_nodes(graph: KnowledgeGraph, results: Mapping[str, MethodResult], *, top: int = 5) -> list[int]:
    """The nodes an answer points at, to label first in the overlay: a node named as a method's answer, and the
    node named as the title of each top-``top`` passage whose text holds that answer — where a wrong answer came
    from ("Howard Payne" from "Speed (1994 film)"), the node a lesson names and an audit found unlabelled."""
    out: dict[int, None] = {}
    for r in results.values():
        answer = normalize_answer(r.answer or "")
        if not answer:
            continue
        for key in (r.answer.strip(), *[c.chunk_id for c in r.ranked_chunks[:top]]):
            if key != r.answer.strip():
                chunk = graph.chunk(key) if key in graph.chunk_index else None
                if chunk is None or f" {answer} " not in f" {normalize_answer(chunk.text)} ":
                    continue
                key = chunk.title
            try:
                out.setdefault(graph.node(key), None)
            except EgxError:  # no node of that name
                continue
    return list(out)


def overlay(graph: KnowledgeGraph, per_method: Mapping[str, Sequence[int]], methods: Sequence[str],
            gold_nodes: set[int] | None = None, *, focus: str = "", important: Sequence[int] = ()) -> Overlay:
    """One drawing for several methods: a node's fill is its method's colour when one method alone reached it,
    near-black when some but not all did, light grey when every method did (the common ground: under one colour
    for all shared nodes, an audit's projector showed 27 black nodes of 28 and no difference between the
    methods); the tooltip lists them; gold-passage entities get a golden border.

    ``focus`` (a method of ``per_method``): that method's nodes in its colour and every other node grey, on the
    same nodes — on a question where the methods agree most nodes are black, and the method colours told nothing
    (an audit counted 27 black nodes of 28)."""
    owners: dict[int, list[str]] = {}
    for m, nodes in per_method.items():
        for v in nodes:
            owners.setdefault(int(v), []).append(m)
    fills, borders, notes = {}, {}, {}
    gold_nodes = gold_nodes or set()
    focus = focus if focus in per_method else ""
    every = len(per_method) > 1
    for v, ms in owners.items():
        if focus:
            fills[v] = method_colour(focus, methods) if focus in ms else colors.UNVISITED
        elif len(ms) == 1:
            fills[v] = method_colour(ms[0], methods)
        else:
            fills[v] = colors.COMMON if every and len(ms) == len(per_method) else colors.SHARED
        notes[v] = "reached by: " + ", ".join(map(table_name, ms)) + (" · in a gold passage" if v in gold_nodes else "")
        if v in gold_nodes:
            borders[v] = (colors.GOLD_BORDER, 5)
    if focus:
        legend = [LegendItem(f"reached by {table_name(focus)}", method_colour(focus, methods)),
                  LegendItem("reached by other methods only", colors.UNVISITED)]
    else:
        legend = [LegendItem(f"{table_name(m)} alone", method_colour(m, methods)) for m in per_method]
        legend.append(LegendItem("several methods, not all", colors.SHARED))
        if every:
            legend.append(LegendItem("every method", colors.COMMON))
    if gold_nodes & set(owners):
        legend.append(LegendItem("gold-passage entity (thick border)", colors.GOLD_BORDER, "line"))
    # the gold entities first (the most reached first), then the best-connected node each method alone reached (what a
    # comparison is about: an audit found every "X alone" node unlabelled), then the hubs several methods reached,
    # best connected first; with a method picked, its own nodes before the hubs
    def degree_first(v: int) -> tuple[int, int]:
        return -int(graph.degree[v]), v

    gold_kept = sorted((v for v in owners if v in gold_nodes), key=lambda v: (-len(owners[v]), -int(graph.degree[v]), v))
    alone: dict[str, list[int]] = {}
    for v, ms in owners.items():
        if len(ms) == 1 and v not in gold_nodes:
            alone.setdefault(ms[0], []).append(v)
    own = ([min(alone[m], key=degree_first) for m in per_method if alone.get(m)] if not focus else
           sorted((v for v, ms in owners.items() if focus in ms and v not in gold_nodes), key=degree_first))
    hubs = sorted((v for v, ms in owners.items() if len(ms) > 1 and v not in gold_nodes),
                  key=lambda v: (-int(graph.degree[v]), -len(owners[v]), v))
    kept = list(dict.fromkeys([*gold_kept, *own, *hubs]))[:KEPT_LABELS]
    labels = [*(v for v in important if v in owners), *kept, *sorted(v for v in owners if v in gold_nodes),
              *sorted((v for v, ms in owners.items() if len(ms) > 1), key=lambda v: (-len(owners[v]), v)),
              *sorted(owners, key=lambda v: (-int(graph.degree[v]), v))]
    return Overlay(sorted(owners), fills, borders, notes, legend, sum(1 for ms in owners.values() if len(ms) > 1),
                   tuple(dict.fromkeys(labels)), tuple(kept))


# ------------------------------------------------------------------------------ tables and badges
#: The ranked-passage table of a method column: the gold mark before the title, so a narrow column
#: (three methods side by side at 1280 px) never cuts it off.
RANKED_COLUMNS: dict[str, Any] = {
    "#": st.column_config.NumberColumn("#", width="small"),
    "gold": st.column_config.TextColumn("gold", width="small", help="✓: a gold passage of this question"),
    "passage": st.column_config.TextColumn("passage", width="medium"),
    "score": st.column_config.NumberColumn("score", width="small", format="%.3f"),
}


def ranked_table(result: Any, graph: KnowledgeGraph, gold: Sequence[str], *, top: int = 10) -> pd.DataFrame:
    g = set(gold)
    rows = []
    for i, c in enumerate(list(result.ranked_chunks)[:top], start=1):
        title = graph.chunk(c.chunk_id).title if c.chunk_id in graph.chunk_index else c.chunk_id
        row: dict[str, Any] = {"#": i}
        if g:
            row["gold"] = "✓" if c.chunk_id in g else ""
        row.update({"passage": title, "score": round(float(c.score), 4)})
        rows.append(row)
    return pd.DataFrame(rows)


#: The Compare page's summary: method and verdict first, then the recall that matters, then cost; the same columns
#: for every question (:func:`summary_layout`). It fits the page at 1440 px (:data:`SUMMARY_WIDTH`) with the widest
#: verdict (:data:`VERDICT_SAMPLES`); the answer match (up to "partial match (part of the gold answer)", 267 px)
#: does not fit beside it, so it opens :data:`MORE_ORDER`'s table below (the verdict says "(F1 0.67)" or "(alias
#: match)" itself). All fourteen figures in one table hid the right-hand columns at 1440 px, behind a scroll bar
#: nobody saw.
SUMMARY_ORDER = ("method", "verdict", "EM", "F1", "R@5", "R@10", "seconds", "live s", "LLM tokens", "ctx chunks")
#: The second table: the rest of the figures (also in the comparison's CSV / JSON download).
MORE_ORDER = ("method", "answer match", "R@2", "AR@5", "nDCG@10", "fallbacks", "ctx tokens")
#: Each column's width in pixels (a width Streamlit names, "small", is 75 px).
_WIDTHS = {"method": 104, "verdict": 220, "EM": 56, "F1": 56, "answer match": 130, "R@5": 64, "R@10": 64, "seconds": 72,
           "live s": 64, "LLM tokens": 88, "ctx chunks": 88, "R@2": 64, "AR@5": 64, "nDCG@10": 80, "fallbacks": 80, "ctx tokens": 88}
#: The most pixels the summary's columns may take: the main column of the wide layout at a 1440 px window with the
#: sidebar open is about 960 px (1440 − the sidebar's ~300 − the page's padding of 2 × 5 rem), less a margin.
SUMMARY_WIDTH = 920


def table_name(method: str) -> str:
    """What the Compare page calls ``method`` (a registry name): :func:`components.tour.short_name`, the papers' name
    the lessons use (an audit found a lesson's "Naive RAG, Re2" beside the table's "dense, rerank")."""
    return tour.short_name(method)


def _frame(rows: Sequence[Mapping[str, Any]], order: Sequence[str]) -> pd.DataFrame:
    """``rows`` (each method's figures, the method by its registry name) as a table of the columns ``order``, each
    method by :func:`table_name`."""
    df = pd.DataFrame([{**r, "method": table_name(str(r["method"]))} if "method" in r else r for r in rows])
    return df[[c for c in order if c in df.columns]]


#: The verdict labels a run can get, the longest first in width: the summary's verdict column fits them all, so it is
#: as wide for every question (an audit found "below the cut, but read by the answe…" cut at 220 px, and then the
#: columns changing between two questions of the tour, as long verdicts pushed some below the table).
VERDICT_SAMPLES = (*VERDICT_LABELS.values(), READ_BY_ANSWER_LABEL, NOT_RETRIEVED_LABEL, partly_retrieved_label(10, 12),
                   f"{VERDICT_LABELS[ANSWER_PARTIAL]} (F1 0.67)", f"{VERDICT_LABELS[OK]} (alias match)",
                   f"{VERDICT_LABELS[OK]} (the quoted sentence holds it)")


#: The summary's columns that move to the second table in the tour's projector mode: its tables are zoomed 1.25×
#: (components.tour), and at that size the last two ran off the projector's screen (an audit)
PROJECTOR_MOVED = ("LLM tokens", "ctx chunks")


#: The summary's row height in projector mode (Streamlit's default is 35 px; zoomed 1.25× there): at the default, the
#: eighth method's row fell under a 1440×900 projector's fold on the tour's Compare step (audit 45); at 29 px it still did
#: on the second-wife step, whose lesson is a line longer (audit 46): 27 px (34 zoomed) hold 17.5-px text.
PROJECTOR_ROW_PX = 27


def summary_layout(rows: Sequence[Mapping[str, Any]], *, projector: bool = False,
                   ) -> tuple[list[str], list[str], dict[str, int]]:
    """The summary's columns, the second table's columns, and every column's width in pixels for ``rows``. The
    columns are :data:`SUMMARY_ORDER`'s and :data:`MORE_ORDER`'s for every question (those ``rows`` lack left
    out); the verdict column fits every verdict label (:data:`VERDICT_SAMPLES`, and a longer cell of ``rows``
    should one come), the answer match its longest cell. ``projector``: :data:`PROJECTOR_MOVED` go to the second
    table, so that the summary, zoomed, still fits the page's width."""
    present: list[str] = []
    for r in rows:
        present += [c for c in r if c not in present]
    widths = dict(_WIDTHS)
    widths["verdict"] = fit_width([*VERDICT_SAMPLES, *(r.get("verdict") for r in rows)], floor=_WIDTHS["verdict"])
    widths["answer match"] = fit_width([r.get("answer match") for r in rows], floor=_WIDTHS["answer match"])
    moved = PROJECTOR_MOVED if projector else ()
    main = [c for c in SUMMARY_ORDER if c in present and c not in moved]
    known = set(SUMMARY_ORDER) | set(MORE_ORDER)
    more = ["method", *[c for c in MORE_ORDER[1:] if c in present], *[c for c in moved if c in present],
            *[c for c in present if c not in known]]
    return main, more, widths


def summary_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The summary rows in :data:`SUMMARY_ORDER` (columns a run lacks, e.g. metrics without gold, left out,
    :func:`summary_layout`)."""
    return _frame(rows, summary_layout(rows)[0])


def more_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The other figures of the summary rows: :data:`MORE_ORDER`, and any column neither order names."""
    return _frame(rows, summary_layout(rows)[1])


def answer_markdown(answer: str) -> str:
    """A method's answer as the Compare page shows it under its passages: whole, wrapped by the column, escaped."""
    return f"**Answer:** {md_escape(answer) if answer.strip() else '(none)'}"


def verdict_header(cut: int | None) -> str:
    """The summary's verdict column header: the depth the verdict was judged at (the diagnosis top-k, ``cut``) beside
    the R@5 and R@10 headers. An audit's step 17 read "retrieved, answer wrong" beside R@5 0 / R@10 50 as a
    contradiction: the verdict's "retrieved" means within the top 15 there.

    >>> verdict_header(15)
    'verdict (top 15)'
    >>> verdict_header(None)
    'verdict'
    """
    return "verdict" if cut is None else f"verdict (top {cut})"


def verdict_help(cut: int | None) -> str:
    """The verdict column's help: what its words judge, at which depth."""
    depth = f"the diagnosis top-k, {cut}" if cut is not None else "the diagnosis top-k"
    return (f"Where each method lost the gold evidence, judged at {depth} (**Diagnosis top-k** above): “retrieved” "
            "means every gold passage ranked within that many passages, which may be deeper than the R@5 and R@10 "
            "columns beside it, so “retrieved” can stand beside R@5 0; “ranked below the cut” means below it")


def summary_columns(widths: Mapping[str, int] | None = None, *, replayed: bool = False,
                    cut: int | None = None, projector: bool = False) -> dict[str, Any]:
    """Column configs of both tables: every column has a width in pixels (``widths``, from :func:`summary_layout`;
    :data:`_WIDTHS` without it), the method pinned (it stays in view when a narrow screen scrolls the table).
    ``replayed``: some run is a replay, whose wall time the "seconds" column then says it is in its header
    (:data:`REPLAY_SECONDS`). ``cut``: the diagnosis top-k the verdicts were judged at, named in the verdict's
    header (:func:`verdict_header`). ``projector``: nothing pinned — Streamlit draws a pinned column's text faded
    (grey, as an index), and an audit read the projector's table as stale; the table fits the screen there
    (:func:`summary_layout`), so nothing needs to stay in view. The verdict is never pinned: it is the column a
    reader reads, in full contrast."""
    w = {**_WIDTHS, **(widths or {})}
    out: dict[str, Any] = {c: st.column_config.NumberColumn(c, width=px) for c, px in w.items()}
    out["method"] = st.column_config.TextColumn(
        "method", width=w["method"], pinned=not projector, help="The papers' names, as the lessons say them; on the "
        "command line, the Benchmark page and in the downloads: " + ", ".join(
            f"{table_name(m)} = {m}" for m in method_names() if table_name(m) != m))
    out["verdict"] = st.column_config.TextColumn(verdict_header(cut), width=w["verdict"], help=verdict_help(cut))
    out["seconds"] = st.column_config.NumberColumn(
        REPLAY_SECONDS if replayed else "seconds", width=w["seconds"], help="This run's wall time. A method's first run in the server's process "
        "includes loading its models and indexes (several seconds); a replayed LLM stage takes no LLM time. "
        "Compare speeds on the Benchmark page, over many questions. A replayed run (recorded LLM) takes "
        "milliseconds here: its **live s** says what it took live")
    out["live s"] = st.column_config.NumberColumn(
        "live s", width=w["live s"], format="%.1f", help="A replayed run (recorded LLM): the seconds the same run "
        "took live when it was recorded, stage by stage (the model and machine the recording names; each page's "
        "timer lines give them per stage). Blank for a run that is no replay")
    out["answer match"] = st.column_config.TextColumn("answer match", width=w["answer match"])
    for c in ("EM", "F1"):  # text: a number, or NOT_SCORED for an answer no LLM wrote
        out[c] = st.column_config.TextColumn(c, width=w[c], help="SQuAD exact match / token F1 of an LLM's answer "
                                             f"against the gold answer; {NOT_SCORED} for a sentence quoted without one")
    out["ctx chunks"] = st.column_config.NumberColumn(
        "ctx chunks", width=w["ctx chunks"], help="Passages handed to the answer; for a method whose evidence is "
        "triples (SG-RAG's subgraph, ReG's chains) the passages its triples come from — not a count of the triples")
    return out


#: EM / F1 of an answer no LLM wrote (not scored, as the Benchmark leaves it)
NOT_SCORED = "–"


#: the "seconds" column's header where a run is a replay: an audit read BubbleRAG's 0.055 s as its cost, and then
#: found the header gave no hint of replay time even beside "live s"
REPLAY_SECONDS = "s (replay)"


def column_width(name: str) -> int:
    """The least width in pixels the summary tables give the column ``name`` (a text column may be wider,
    :func:`summary_layout`)."""
    return _WIDTHS[name]


#: Under the Compare page's figures: one question ranks nothing (a benchmark's ±10 points at 50 questions).
ONE_QUESTION_NOTE = ("One question is no comparison: these figures are this question's alone, and a method that "
                     "wins here may lose on the next. Whether one method is really better takes many questions — the "
                     "Benchmark page shows each figure with its 95 % interval and says which differences are real.")


#: The ranking depth the few-passages warning speaks of: the summary's R@5.
FEW_PASSAGES_TOP = 5


def few_passages_note(n_passages: int, top: int = FEW_PASSAGES_TOP) -> str:
    """The warning for a workspace with no more passages than twice ``top`` ("" otherwise): every method's top
    ``top`` then holds most of the corpus, so R@k is near 100 for all of them (an audit's 4-passage workspace
    read R@5 100 everywhere).

    >>> few_passages_note(4)[:70]
    "This workspace has 4 passages: each method's top 5 holds most of it, s"
    >>> few_passages_note(11)
    ''
    """
    if n_passages > 2 * top:
        return ""
    return (f"This workspace has {n_passages} passage{'' if n_passages == 1 else 's'}: each method's top {top} holds "
            "most of it, so recall cannot tell the methods apart — rebuild it with smaller passages (Data › Upload)")


def few_passages_warning(n_passages: int, top: int = FEW_PASSAGES_TOP) -> None:
    """:func:`few_passages_note` as one warning line, on the Compare and Benchmark pages; nothing when the
    workspace has passages enough."""
    note = few_passages_note(n_passages, top)
    if note:
        st.warning(note + ".", icon=":material/compress:")


def live_seconds(llm: Any, trace: Any) -> float | None:
    """The seconds a replayed run took live when it was recorded (its stages' recorded seconds, this replay's for
    a stage the recording lacks); None for a run that is no replay of a recording."""
    from components.replay_time import stage_times

    found = stage_times(llm, trace)
    if found is None:
        return None
    return float(sum(t.recorded_s if t.recorded_s is not None else t.replay_s for t in found[0]))


def setup_seconds_note(results: Mapping[str, MethodResult]) -> str:
    """Which runs' seconds are mostly set-up outside their stages ("" when none): a method's first run in the
    server's process loads its models and indexes, and an audit read "BubbleRAG 8.075 s" off a replay whose stages
    took 0.25 s."""
    cold = []
    for m, r in results.items():
        total = float(r.trace.seconds)
        outside = total - sum(float(s.seconds) for s in r.trace.steps)
        if outside >= 1.5 and outside >= 0.3 * total:  # seconds a projector shows as the method's (5.3 s, 2 set-up)
            cold.append(f"{table_name(m)} {outside:.1f} of its {total:.1f} s")
    if not cold:
        return ""
    return ("Set-up outside the methods' stages: " + ", ".join(cold) + " — loading models and indexes on a method's "
            "first run in this server process, not the method's own work; run again for a warm figure.")


def one_question_note() -> None:
    """Say plainly that one question compares nothing, with the way to the Benchmark page's intervals."""
    c1, c2 = st.columns([4, 1], vertical_alignment="center")
    c1.caption(ONE_QUESTION_NOTE)
    c2.page_link(page_path("pages/benchmark.py"), label="Benchmark", icon=":material/leaderboard:")


def chunk_title(graph: KnowledgeGraph | Callable[[], Any]) -> Callable[[str], str | None]:
    """Chunk id -> its passage title (None for an id the graph lacks): the triage rows' title lookup. ``graph``
    may be a function that returns it, called on the first lookup only (a run whose records carry their
    titles never opens the graph)."""
    got: list[Any] = []

    def title(cid: str) -> str | None:
        if not got:
            got.append(graph() if callable(graph) else graph)
        g = got[0]
        # the title, with its place where the title is several passages: "Ferries and Landings (2 of 4)"
        return passage_label(g, cid) if cid in g.chunk_index and g.chunk(cid).title else None

    return title


def verdict_badge(diag: Diagnosis) -> None:
    """The verdict as a coloured box with the one-sentence summary: the label is the one every table,
    download and report uses (:mod:`core.eval.verdicts`); a method's own name for the stage follows it."""
    v = diagnosis_verdict(diag)
    text = f"**{md_escape(v.label)}** — {md_escape(diag.summary)}"
    declared = {s.key: s for s in stages_for(diag.method)}.get(diag.stage)
    # the method's own name for the stage, when it differs from the vocabulary's (not from a label the evidence
    # worded: "gold not retrieved" over "sgrag's stage: ranked below the cut" would contradict itself)
    worded = v.label != verdict_label(v.key)
    if declared is not None and declared.label != verdict_label(v.key) and v.tone != "partial" and not worded:
        text += f"  \n{md_escape(diag.method)}'s stage: {md_escape(declared.label)}"
    if v.tone == "ok":
        st.success(text, icon=":material/check_circle:")
    elif v.tone == "info":
        st.info(text, icon=":material/help:")
    elif v.tone == "partial":
        st.warning(text, icon=":material/rule:")
    else:
        st.error(text, icon=":material/report:")


def triage_downloads(rows: Sequence[Mapping[str, Any]], *, stem: str, key: str, what: str, **meta: Any) -> None:
    """Two download buttons, CSV and JSON, for triage rows (:mod:`core.eval.triage`); ``what`` names them
    ("these 12 rows", "this comparison")."""
    c1, c2 = st.columns(2)
    c1.download_button(f"Download {what} (CSV)", data=to_csv(rows), file_name=f"{stem}.csv", mime="text/csv",
                       key=S.sub(key, "csv"), on_click="ignore", icon=":material/download:",
                       disabled=not rows, help="UTF-8; a cell that starts with = + - or @ gets a leading "
                                               "apostrophe so a spreadsheet shows it as text, never as a formula.")
    c2.download_button(f"Download {what} (JSON)", data=to_json(rows, **meta), file_name=f"{stem}.json",
                       mime="application/json", key=S.sub(key, "json"), on_click="ignore", icon=":material/download:",
                       disabled=not rows)


# ------------------------------------------------------------------------------ diagnosis evidence
_EVIDENCE_WORDS = {"cut": "cut (top-k judged)", "retrieved": "passages retrieved", "early_exit": "early exit",
                   "answer_context": "passages the answer read",
                   "rank": "rank", "entities": "entities", "anchors": "anchors", "groups": "groups",
                   "stage": "lost at", "why": "why", "path": "path through G'", "path_cost": "path cost",
                   "path_hops": "path hops", "budget": "budget"}


def _cell(value: Any) -> str:
    """One table cell as plain text: lists joined, small dicts as "key = value" pairs, None as "—"."""
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value[:12]) + (f" … (+{len(value) - 12})" if len(value) > 12 else "")
    if isinstance(value, Mapping):
        return "; ".join(f"{k} = {_cell(v)}" for k, v in list(value.items())[:8])
    return str(value)


def evidence_sentences(evidence: Mapping[str, Any], graph: KnowledgeGraph | None = None) -> list[str]:
    """The verdict's evidence as plain sentences (the answer check, the gold passages below the cut or
    never retrieved); what does not fit a sentence is left to :func:`evidence_tables`."""
    def title(cid: str) -> str:
        return graph.chunk(cid).title if graph is not None and cid in graph.chunk_index else cid

    out: list[str] = []
    ans = evidence.get("answer")
    if isinstance(ans, Mapping):
        gold = ", ".join(str(a) for a in ans.get("gold", [])) or "none given"
        if ans.get("by") == "containment":
            out.append(f"The extractive answer (no LLM) {'contains' if ans.get('contains_gold') else 'does not contain'} "
                       f"the gold answer ({gold}).")
        elif ans.get("judged"):
            out.append(f"The answer scores EM {ans.get('em', 0):g}, token F1 {ans.get('f1', 0):.2f} against the gold "
                       f"answer ({gold}).")
        elif ans.get("why"):
            out.append(f"The answer was not judged: {ans['why']}.")
    below = evidence.get("below_cut")
    if isinstance(below, Mapping) and below:
        out.append(f"Below the top {evidence.get('cut', '?')}: "
                   + ", ".join(f"“{title(c)}” (rank {r})" for c, r in below.items()) + ".")
    absent = evidence.get("not_retrieved")
    if absent:
        out.append(f"Never retrieved (of {evidence.get('retrieved', '?')} passages): "
                   + ", ".join(f"“{title(c)}”" for c in absent) + ".")
    read = evidence.get("read_by_answer")
    if read:
        out.append(f"Read by the answer all the same (among the {evidence.get('answer_context', '?')} passages it was "
                   "handed): " + ", ".join(f"“{title(c)}”" for c in read) + ".")
    return out


def evidence_tables(evidence: Mapping[str, Any], graph: KnowledgeGraph | None = None) -> dict[str, pd.DataFrame]:
    """Small tables for the evidence that is one record per gold passage (``lost``, ``missing``) or a set of
    scalar facts; nested values become short text, never collapsed JSON."""
    tables: dict[str, pd.DataFrame] = {}
    facts: list[dict[str, str]] = []
    for key, value in evidence.items():
        if key in ("answer", "below_cut", "not_retrieved", "read_by_answer"):
            continue
        if isinstance(value, Mapping) and value and all(isinstance(v, Mapping) for v in value.values()):
            rows = []
            for cid, rec in value.items():
                name = graph.chunk(cid).title if graph is not None and cid in graph.chunk_index else str(cid)
                rows.append({"passage": name, **{_EVIDENCE_WORDS.get(k, k): _cell(v) for k, v in rec.items()}})
            tables[key] = pd.DataFrame(rows)
        elif isinstance(value, Mapping) and value:
            rows = [{"passage" if key == "missing" else "item": graph.chunk(k).title
                     if graph is not None and k in graph.chunk_index else str(k), "value": _cell(v)}
                    for k, v in value.items()]
            tables[key] = pd.DataFrame(rows)
        else:
            facts.append({"what": _EVIDENCE_WORDS.get(key, key.replace("_", " ")), "value": _cell(value)})
    if facts:
        tables["facts"] = pd.DataFrame(facts)
    return tables


def evidence_view(diag: Diagnosis, graph: KnowledgeGraph | None = None) -> None:
    """The evidence behind a verdict as sentences and small tables, never raw, collapsed JSON ("{...}")."""
    for line in evidence_sentences(diag.evidence, graph):
        st.markdown(md_escape(line))
    for key, df in evidence_tables(diag.evidence, graph).items():
        st.caption({"lost": "Per gold passage: where it was lost and why", "missing": "Gold passages out of reach",
                    "facts": "Facts"}.get(key, key.replace("_", " ")))
        st.dataframe(df, hide_index=True, width="stretch")
    if not diag.evidence:
        st.caption("No further evidence recorded for this verdict.")


# ------------------------------------------------------------------------------ the Compare page's panels
DEMO_QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"


@dataclass(frozen=True)
class Runs:
    """What one Compare click produced: each method's result and diagnosis, its error, or the build it waits for."""

    results: dict[str, Any]
    diagnoses: dict[str, Diagnosis]
    errors: dict[str, str]
    waiting: dict[str, Any]  #: method → :class:`components.runs.PreparationPending`


def intro() -> None:
    """What the page shows, under its title."""
    st.caption("One question, every retrieval method on the same workspace and backends. For each method: its "
               "ranked passages (✓ = gold), where the gold evidence was lost (the failure diagnosis reads the "
               "method's own trace), latency and LLM tokens. The evidence subgraphs are drawn on one layout.")


def _ask_suggested(question: str) -> None:
    S.set_value(S.COMPARE_QUESTION, S.CUSTOM_QUESTION)
    S.set_value(S.COMPARE_CUSTOM, question)


def question(act: Any, graph: KnowledgeGraph) -> tuple[str, Gold]:
    """The question box over the workspace's questions with gold evidence (or questions its graph answers), and
    the question's gold evidence (none for a typed question)."""
    by_text = {q.question: q for q in workspace_questions(act) if q.gold_chunks}
    suggested = graph_suggestions(act)  # a workspace without questions: questions its graph answers
    query = question_box(list(by_text), key=S.COMPARE_QUESTION, custom_key=S.COMPARE_CUSTOM, scope="compare",
                         default=DEMO_QUESTION if graph.name == "demo" else
                         suggested[0].question if suggested and not by_text else "",
                         help="Questions of this workspace with gold evidence, or your own.")
    suggested_questions_ui(suggested, on_pick=_ask_suggested, key=S.COMPARE_SUGGESTED)
    q = by_text.get(query)
    return query, Gold.from_question(q) if q else Gold("custom", ())


def choices(act: Any, handed: Any) -> tuple[list[str], Any, int]:
    """The methods to compare (a Benchmark row's method added), the answer budget and the diagnosis cut; the page
    stops while no budget is valid."""

    # At 1440 px one row of three clipped all three: the chips of eight methods, the budget's preset name and the
    # cut's label ("top-/k"). The methods take the page's width, as short names whose titles are in the help;
    # the budget and the cut share the row below, each wide enough for its longest text.
    mkey = S.bind(S.COMPARE_METHODS, method_names(), scope="compare")
    st.session_state[mkey] = [m for m in st.session_state[mkey] if m in METHODS]
    if handed is not None and handed.method in METHODS and handed.method not in st.session_state[mkey]:
        st.session_state[mkey] = [*st.session_state[mkey], handed.method]  # the Benchmark row's method is compared
    methods = S.keep(S.COMPARE_METHODS, st.multiselect(
        "Methods", method_names(), key=mkey, format_func=table_name,
        help="The retrieval methods to run on the question: " + "; ".join(
            f"**{table_name(m)}** — {METHODS[m].title} (`{m}` on the command line)" for m in method_names()) + "."))
    # a narrower window shows as many chips as fit: say how many are chosen, and which
    # each with the name the lessons and the papers call it by ("dense" is the papers' Naive RAG): an audit found a
    # lesson's "Naive RAG" beside the table's "dense" with nothing tying the two
    st.caption(f"{len(methods)} of {len(method_names())} methods: "
               + (", ".join(m if table_name(m) == m else f"{table_name(m)} ({m})" for m in methods)
                  if methods else "none"))
    cb, c2, _ = st.columns([4, 1.6, 2.4])
    start, _ = budget_view.default_budget(act.llm_name, act.workspace.name)
    budget = budget_view.budget_select(cb, scope="compare", key=S.COMPARE_BUDGET, custom_key=S.COMPARE_BUDGET_CUSTOM,
                                       default=start)
    if budget is None:
        st.stop()
    S.follow_default(S.COMPARE_CUT, budget.chunks or 5)  # "all gold within the budget": the cut follows its chunks
    ckey = S.bind(S.COMPARE_CUT, budget.chunks or 5, scope="compare")
    cut = int(S.keep(S.COMPARE_CUT, c2.number_input(
        "Diagnosis top-k", 1, 50, key=ckey,
        help="The diagnosis cut: a gold passage ranked below this many counts as lost.")))
    return list(methods), budget, cut


def ready(query: str, methods: Sequence[str], gold: Gold, *, lesson_at: Any | None = None) -> None:
    """Stop the page until there is a question and a method (the lesson slot ``lesson_at`` then cleared: no runs, no
    lesson); say what a question without gold evidence lacks."""

    if not query or not methods:
        tour.clear_lesson(lesson_at)
        st.info("Type a question to compare the methods on it." if not query else "Pick at least one method.")
        st.stop()
    if not gold.chunk_ids:
        st.info("This question has no gold evidence in the workspace: rankings are shown, the diagnosis is not.")
    elif gold.unmatched:  # counted as gold never retrieved: a misspelt gold title must not raise recall
        st.warning(f"{md_escape(unmatched_note(gold.unmatched, len(gold.chunk_ids) + len(gold.unmatched)))}: it "
                   "counts as a gold passage never retrieved in R@k, nDCG and the verdicts, so no method can reach "
                   "100 or “ok”.", icon=":material/report:")


def run_methods(act: Any, query: str, methods: Sequence[str], budget: Any, gold: Gold, cut: int) -> Runs:
    """Every method on ``query`` under ``budget`` (:func:`components.runs.method_run`, cached), each diagnosed
    against ``gold`` at ``cut``; errors are shown, and each long build a method waits for is offered once."""

    out = Runs({}, {}, {}, {})
    beside = jobs_view.jobs_beside()  # counted once, as the runs start
    jobs = f"{beside} other job{'s' if beside != 1 else ''}"
    busy = f" · the server also runs {jobs}: slower meanwhile" if beside else ""
    progress = st.progress(0.0, text="Running the methods…")
    for i, m in enumerate(methods):
        progress.progress(i / len(methods), text=f"Running {table_name(m)} ({i + 1} of {len(methods)})…{busy}")
        try:
            out.results[m] = runs.method_run(METHODS[m], act.workspace, act.key, act.backends, query,
                                             apply_budget(METHODS[m], None, budget if METHODS[m].budget else OWN),
                                             defer=True)
            if gold.chunk_ids:
                out.diagnoses[m] = diagnose(out.results[m], act.workspace, gold, cut=cut)
        except runs.PreparationPending as pending:
            out.waiting[m] = pending
        except EgxError as exc:
            out.errors[m] = error_text(exc)
    progress.empty()
    if unbudgeted := [m for m in methods if m in out.results and not budget.own and METHODS[m].budget is None]:
        names, one = ", ".join(table_name(m) for m in unbudgeted), len(unbudgeted) == 1
        st.caption(f":material/info: {names} declare{'s' if one else ''} no budget hook, so {'it' if one else 'they'} "
                   f"ran at {'its' if one else 'their'} own budget, not “{md_escape(budget.name)}”: not like for like "
                   "(ctx chunks in the table says what each read). Declare one on the Method (core.methods.budget).")
    if beside and out.results:  # the seconds in the table count it
        st.caption(f":material/speed: These runs were made while {jobs} ran on the server beside them: their seconds "
                   "are longer than on an idle server.")
    for m, err in out.errors.items():
        st.error(f"{table_name(m)}: {md_escape(err)}")
    # what each build needs, its estimate, the button (or the running build): once per build, naming its methods
    runs.offer_preparations(out.waiting)
    return out


def summary(act: Any, graph: KnowledgeGraph, found: Runs, *, query: str, gold: Gold, budget: Any, cut: int,
            lesson_at: Any | None = None) -> None:
    """The summary table (R@k, verdict, EM / F1, seconds, tokens, fallbacks, the answer's context), the guided
    demo's lesson (in ``lesson_at``, :func:`components.tour.lesson_slot`, when given), and the comparison's
    downloads."""

    rows, triage = [], []
    for m, r in found.results.items():
        row: dict[str, object] = {"method": m}
        ranked = [c.chunk_id for c in r.ranked_chunks]
        met = retrieval_metrics(ranked, gold.narrowed(ranked).chunk_ids,
                                unmatched=gold.unmatched) if gold.chunk_ids else {}
        if gold.chunk_ids:
            row.update({k: round(100 * met[k], 1) for k in ("R@2", "R@5", "R@10", "AR@5", "nDCG@10")})
            row["verdict"] = diagnosis_verdict(found.diagnoses[m]).label if m in found.diagnoses else ""
        if gold.answers:  # EM / F1 and the kind of match beside the verdict
            am = match_answer(r.answer, gold.answers)
            by_llm = answer_by_llm(r)  # no EM / F1 for an answer no LLM wrote, as the Benchmark scores it
            # "–" (as the Benchmark writes it), not an empty cell: Streamlit shows a missing number as "None"
            row.update({"EM": f"{am.em or 0:g}" if by_llm else NOT_SCORED,
                        "F1": f"{am.f1 or 0.0:.2f}" if by_llm else NOT_SCORED, "answer match": am.label})
        triage.append(result_row(r, gold, found.diagnoses.get(m), question=query, title_of=chunk_title(graph),
                                 metrics=met))
        row["seconds"] = round(r.trace.seconds, 3)
        live = live_seconds(act.llm, r.trace)
        if live is not None:  # a replay's milliseconds beside what the run cost live (an audit read 0.055 s for it)
            row["live s"] = round(live, 1)
        row["LLM tokens"] = llm_tokens(r.trace)["total"]
        row["fallbacks"] = sum(1 for s in r.trace.steps if s.fallback)
        row.update(budget_view.context_columns(r))
        rows.append(row)
    left_out = left_out_note(found)
    if left_out:
        st.caption(left_out)
    if rows:
        if gold.chunk_ids:  # recall is shown: say when the workspace is too small for it to tell methods apart
            few_passages_warning(graph.n_chunks)
        projector = S.projector_scale() > 1
        main, more_cols, widths = summary_layout(rows, projector=projector)
        replayed = any(r.get("live s") is not None for r in rows)
        st.dataframe(_frame(rows, main), hide_index=True, width="stretch",
                     row_height=PROJECTOR_ROW_PX if projector else None,
                     column_config=summary_columns(widths, replayed=replayed, cut=cut, projector=projector))
        more = _frame(rows, more_cols)
        if len(more.columns) > 1:
            if projector:  # its captions hidden: said in the page's text (an audit took the moved columns for cut off)
                st.markdown("More figures, below: " + ", ".join(c for c in PROJECTOR_MOVED if c in more.columns)
                            + " (moved here in projector mode, so that the table above fits the screen), how each "
                            "answer matched, R@2, AR@5, nDCG@10, the stages that fell back.")
            st.caption("More figures: how each answer matched the gold answer, R@2, AR@5 (all gold within the top "
                       "5), nDCG@10, the stages that fell back, and the tokens of evidence handed to the answer.")
            st.dataframe(more, hide_index=True, width="stretch",
                         column_config=summary_columns(widths, projector=projector))
        cold = setup_seconds_note(found.results)
        if cold:
            st.caption(md_escape(cold))
        # the lesson on these runs: atop the page on the guided demo's step, folded here off it
        tour.lesson_ui(current(), act, found.results, where=lesson_at, question=query)
        if len(rows) > 1:  # figures side by side invite a ranking that one question cannot support
            one_question_note()
        triage_downloads(triage, stem=f"{act.workspace.name}-compare", key=S.COMPARE_DOWNLOAD, what="this comparison",
                         workspace=act.workspace.name, question=query, cut=cut, budget=budget.to_dict())
    else:  # no run to read (each failed or waits for a build): no lesson, nor the note that it follows
        tour.clear_lesson(lesson_at)
    budget_view.context_caption(budget, found.results,
                                why_own=budget_view.default_budget(act.llm_name, act.workspace.name)[1])


def left_out_note(found: Runs) -> str:
    """What the summary table leaves out and why, said above it ("" when nothing): each method waiting for a
    build (being built, or offered with its estimate above) and each that failed. A chosen method without a row
    went unremarked while the Methods box said "8 of 8 methods"."""
    parts = []
    for m, exc in found.waiting.items():
        job = exc.job
        how = "being built on the server" if job is not None and not job.finished else "**Build it now** above"
        parts.append(f"**{md_escape(table_name(m))}** waits for a build ({md_escape(exc.pending.title)}: {how})")
    parts += [f"**{md_escape(table_name(m))}** failed (its error is above)" for m in found.errors]
    if not parts:
        return ""
    return ":material/hourglass_top: Not in the table: " + "; ".join(parts) + "."


def overlaid(graph: KnowledgeGraph, found: Runs, gold: Gold) -> None:
    """The evidence subgraphs of every method on one layout (colour per method, near-black where they overlap)."""

    if not (graph.n_nodes and found.results):
        return
    st.subheader("Evidence subgraphs, overlaid")
    per = {m: evidence_nodes(r, graph) for m, r in found.results.items()}
    gold_nodes: set[int] = set()
    for cid in gold.chunk_ids:
        gold_nodes.update(graph.chunk_entities(cid)[:12])
    options = ["every method", *per]
    wkey = S.bind(S.COMPARE_FOCUS, "every method")
    if st.session_state.get(wkey) not in options:  # a method no longer compared
        st.session_state[wkey] = "every method"
    focus = st.segmented_control("Highlight", options, key=wkey, format_func=table_name,
                                 help="One method's nodes in its colour, the others grey, on the same nodes: where "
                                      "most nodes are reached by several methods, the colours alone tell "
                                      "little.") or "every method"
    S.keep(S.COMPARE_FOCUS, focus)
    answers = answer_nodes(graph, found.results)
    ov = overlay(graph, per, method_names(), gold_nodes, focus="" if focus == "every method" else focus,
                 important=answers)
    st.caption(f"{len(ov.nodes)} nodes: the entities of each method's top-5 passages (and BubbleRAG's evidence "
               f"graph, PPR's seeds). {ov.shared} are reached by more than one method (under “every method”: light "
               "grey when every method reached it, black when some did, a method's colour when it alone did; pick "
               "one above to see its own); golden borders mark entities of gold passages. Hover a node to see which "
               "methods reached it.")
    if ov.nodes:
        show_graph(graph, ov.nodes, max_nodes=150, colors=ov.colors, borders=ov.borders, notes=ov.notes,
                   legend=ov.legend, height=520, labels=ov.labels, must_label=answers, keep_label=ov.kept,
                   label_px=OVERLAY_LABEL_PX)


def side_by_side(graph: KnowledgeGraph, methods: Sequence[str], found: Runs, *, query: str, gold: Gold,
                 said: bool = False) -> None:
    """One column per method, three to a row: verdict, ranked passages, answer, the evidence for the verdict,
    time per stage, and the button into its step-through page."""

    st.subheader("Side by side")
    per_row = 3
    shown = [m for m in methods if m in found.results or m in found.waiting]
    for start in range(0, len(shown), per_row):
        for col, m in zip(st.columns(per_row), shown[start:start + per_row]):
            with col:
                st.markdown(f"<span style='color:{method_colour(m, method_names())}'>●</span> "
                            f"**{md_escape(METHODS[m].title)}**", unsafe_allow_html=True)
                if m in found.waiting:
                    job = found.waiting[m].job
                    st.info(f"Waiting for the build: {md_escape(found.waiting[m].pending.title)}"
                            + (" (running on the server, see above)." if job is not None else
                               " (not started; the button above starts it)."), icon=":material/hourglass_top:")
                    continue
                _method_column(METHODS[m], found.results[m], found.diagnoses.get(m), graph, query=query, gold=gold,
                               said=said)


def _method_column(spec: Method[Any, Any], r: Any, diag: Diagnosis | None, graph: KnowledgeGraph, *, query: str,
                   gold: Gold, said: bool = False) -> None:
    """One method's column; ``said``: the page's notice already said this workspace has no recordings (no
    "Not a recorded run" per column)."""

    if diag is not None:
        verdict_badge(diag)
    st.dataframe(ranked_table(r, graph, gold.chunk_ids), hide_index=True, width="stretch",
                 column_config=RANKED_COLUMNS)
    tok = llm_tokens(r.trace)
    replay_banner(r, said=said)  # a partial replay says so before the answer
    st.caption(f"{r.trace.seconds:.3f} s · {tok['total']} LLM tokens")
    st.markdown(answer_markdown(r.answer))  # the whole answer, wrapped (it was cut at 160 characters)
    gold_answer(r.answer, gold.answers, by_llm=answer_by_llm(r),  # the question's gold answer, EM / F1, the match
                off_gold=off_gold_source(r, gold.chunk_ids, graph))
    answer_note(r, compact=True, said=said)
    if diag is not None:
        with st.expander("Evidence for the verdict"):
            evidence_view(diag, graph)
    with st.expander("Time per stage"):
        st.dataframe(pd.DataFrame([{"stage": k, "seconds": round(v, 4)} for k, v in stage_latency(r.trace).items()]),
                     hide_index=True)
    step_link(spec, query)
