"""The panels of the Ask page (pages/bubble_ask.py), each taking the run and the
sidebar's record as arguments; pages/bubble_ask.py composes them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from components import charts, colors, graph_view, replay_time
from components import state as S
from components.answer_view import (
    answer_note,
    gold_answer,
    off_gold_source,
    question_answers,
    question_gold_chunks,
    replay_banner,
    unrecorded_workspace,
)
from components.bubblerag import shared as bubble
from components.question import workspace_questions
from components.ui import error_text, md_code, md_escape, public_text
from core.errors import EgxError
from core.graph.formats.jsonio import parse_json
from core.graph.reader import read_ahead
from core.methods.answering import step_fallback
from core.methods.diagnoser import answer_by_llm
from core.methods.evidence.formats import AnswerStepData
from core.methods.run import is_unanswered
from core.trace import Trace

if TYPE_CHECKING:
    from components.sidebar import Active


HEIGHT = 560


MAX_EVIDENCE_NODES = 200


REPLAYED = ("h", "B", "alpha", "n")


def create_answer_ui(act: Active, result) -> None:
    with st.container(border=True):
        st.markdown("**Answer**")
        # on a workspace the recorded LLM holds nothing of, the page's one notice above says it all
        # (or on a question it holds no run of: a none run, said by the notice before the run)
        said = unrecorded_workspace(act.llm_name, act.workspace.name) or is_unanswered(result.trace)
        replay_banner(result, said=said)  # a partial replay says so before the answer
        st.markdown(md_escape(result.answer) if result.answer else "_(no answer)_")
        gold_answer(result.answer, gold_answers(act, result.query), by_llm=answer_by_llm(result),  # its EM / F1
                    off_gold=off_gold_source(result, question_gold_chunks(workspace_questions(act, warn=False),
                                                                          result.query), act.graph))
        answer_note(result, said=said)  # extractive or generated, and what none mode could not do
        # each knob said with what it counts: "B = 10" beside "a cap of at most 15 chunks" read as one limit (audit 42)
        st.caption(f"α = {result.config.alpha:g} (missing-group penalty), n = {result.config.n} CEGs kept, h = "
                   f"{result.config.h} hops, B = {result.config.B} CEGs (the expansion's budget; the chunk cap above "
                   "counts passages)")
        if not said:
            bubble.fallback_notes(result, ("answer",))  # why the LLM's answer was not used, if it was not


def gold_answers(act: Active, query: str) -> tuple[str, ...]:
    # an unreadable questions file: the question box says why; the answer stands alone
    return question_answers(workspace_questions(act, warn=False), query)


def create_evidence_ui(act: Active, result) -> str:
    """The unified evidence graph drawing; returns its standalone HTML (for the export)."""
    g = act.graph
    ev = result.evidence
    if ev is None or not ev.nodes:
        st.caption("No evidence graph (early exit or nothing retrieved).")
        return ""
    nodes, capped = graph_view.limit_nodes(g, ev.nodes, MAX_EVIDENCE_NODES)
    if capped:
        st.warning(f"The evidence graph has {len(ev.nodes)} nodes; the drawing shows {len(nodes)} (the best "
                   "connected). The exports hold all of them.", icon=":material/content_cut:")
    ceg_edges = {e for r in result.ranked[:result.config.n] for e in r.ceg.edges}
    doc = bubble.subgraph_html(act, result, nodes, list(ev.edges), outline_edges=ceg_edges, height=HEIGHT,
                               extra_legend=(graph_view.LegendItem("red edges: CEG backbone (before expansion)",
                                                                   colors.CEG, "line"),))
    graph_view.render_html(doc, height=HEIGHT)
    st.caption(f"G_final: {len(ev.nodes)} nodes, {len(ev.edges)} edges — the union of the top-{result.config.n} "
               "CEGs after reasoning expansion. Anchors in their group's colour; size grows as the semantic cost falls.")
    return doc


def create_triples_ui(act: Active, result) -> None:
    if result.evidence is not None:
        read_ahead(act.graph, edges=result.evidence.edges)
    triples = result.evidence.triples(act.graph) if result.evidence is not None else []
    st.caption(f"{len(triples)} triples, best CEG rank first — what the answer prompt receives with the passages.")
    st.code("\n".join(triples) or "(none)", language=None)


def trace_table(trace: Trace) -> pd.DataFrame:
    return pd.DataFrame([{"stage": s.stage, "what": s.title, "ms": round(s.seconds * 1000, 2),
                          "prompt tokens": s.prompt_tokens, "completion tokens": s.completion_tokens,
                          "LLM cache": cache_cell(s), "fallback": public_text(step_fallback(s, app=True)), "paper": s.section}
                         for s in trace.steps])


def cache_cell(s) -> str:
    """"hit" / "miss" / "2 hit, 1 miss" for a step's LLM replies; "" for a step without one."""
    h, m = s.llm_cache.get("hits", 0), s.llm_cache.get("misses", 0)
    return "" if not h + m else "hit" if not m else "miss" if not h else f"{h} hit, {m} miss"


def create_latency_ui(act: Active, trace: Trace, key: str) -> None:
    c1, c2, c3 = st.columns(3)
    got = replay_time.stage_times(act.llm, trace)  # a replay: the method's cost is the recorded live run's
    if got is None:
        c1.metric("Total time", f"{trace.seconds * 1000:.0f} ms")
    else:
        live = sum(t.recorded_s or 0.0 for t in got[0])
        c1.metric("Time when recorded live", f"{live:.1f} s",
                  help=f"The recorded run's own seconds ({got[1]}). This replay took {trace.seconds:.2f} s: its LLM "
                       "replies came from the recording, so it says nothing about the method's speed.")
    c2.metric("LLM tokens", f"{trace.tokens:,}")
    c3.metric("Stages with a fallback", sum(1 for s in trace.steps if s.fallback))
    st.plotly_chart(charts.stage_latency_figure(trace, got[0] if got is not None else None), key=key)
    st.dataframe(trace_table(trace), hide_index=True, width="stretch")
    replay_time.stage_time_table(act.llm, trace)  # a replayed run: the recorded live seconds beside the replay's


def create_export_ui(act: Active, result, doc: str) -> None:
    g = act.graph
    ev = result.evidence
    stem = f"{act.workspace.name}-bubblerag"
    c1, c2, c3, c4 = st.columns(4)
    if ev is not None and ev.nodes:
        c1.download_button("Evidence graph (egx JSON)", data=lambda: graph_view.graph_json_bytes(g, ev.nodes, ev.edges),
                           file_name=f"{stem}-evidence.egx.json", mime="application/json", key=S.BUBBLE_DL_JSON,
                           on_click="ignore")
        c2.download_button("Evidence graph (GraphML)", data=lambda: graph_view.graphml_bytes(g, ev.nodes, ev.edges),
                           file_name=f"{stem}-evidence.graphml", mime="application/xml", key=S.BUBBLE_DL_GRAPHML,
                           on_click="ignore")
    if doc:
        c3.download_button("Evidence graph (HTML)", data=doc, file_name=f"{stem}-evidence.html", mime="text/html",
                           key=S.BUBBLE_DL_HTML, on_click="ignore")
    c4.download_button("Full trace (JSON)", data=lambda: result.trace.to_json(indent=1).encode("utf-8"),
                       file_name=f"{stem}-trace.json", mime="application/json", key=S.BUBBLE_DL_TRACE,
                       on_click="ignore")
    st.caption("The HTML drawing is standalone (vis-network inlined, works offline). The trace holds every "
               "stage's intermediates, timings and tokens; load it back below to read it or replay the run.")


def replay(trace: Trace) -> None:
    cfg = trace.config
    # the question goes with its workspace (the sidebar switches to it), like every hand-off between pages
    S.hand_over(trace.query, workspace=trace.workspace or None, method="bubblerag")
    for key, name in ((S.BUBBLE_H, "h"), (S.BUBBLE_B, "B")):
        if name in cfg:
            S.set_value(key, int(cfg[name]))
    if "alpha" in cfg:
        st.session_state[S.BUBBLE_RUN_ALPHA] = float(cfg["alpha"])
        S.set_value(S.BUBBLE_ALPHA, float(cfg["alpha"]))
    if "n" in cfg:
        st.session_state[S.BUBBLE_RUN_N] = int(cfg["n"])
        S.set_value(S.BUBBLE_N, int(cfg["n"]))


def create_trace_upload_ui(act: Active, result) -> None:
    up = st.file_uploader("Load a saved trace (JSON)", type=["json"], key=S.BUBBLE_TRACE_UPLOAD)
    if up is None:
        return
    try:
        trace = Trace.from_dict(parse_json(up.getvalue().decode("utf-8"), up.name,  # bounded depth, clean error
                                           expected="a trace exported by egx"), source=up.name)
    except UnicodeDecodeError as exc:
        st.error(f"{md_escape(up.name)} is not valid JSON ({md_escape(exc)}). Load a trace exported by this page.")
        return
    except EgxError as exc:
        st.error(md_escape(error_text(exc)))
        return
    st.markdown(f"**Saved trace** · method {md_code(trace.method)} · workspace {md_code(trace.workspace)} · "
                f"question: {md_escape(trace.query)}")
    st.caption("Backends: " + md_escape(", ".join(f"{k}: {v}" for k, v in trace.backends.items())))
    saved = AnswerStepData.of(trace)
    if saved is not None:
        st.markdown("Saved answer: " + md_escape(saved.answer or ""))
    create_latency_ui(act, trace, key=S.BUBBLE_SAVED_LATENCY)
    ignored = sorted(k for k, v in trace.config.items()
                     if k not in REPLAYED and hasattr(bubble.DEFAULTS, k) and getattr(bubble.DEFAULTS, k) != v)
    if trace.method != "bubblerag":
        st.caption("This trace is not from BubbleRAG, so it can be read here but not replayed.")
        return
    st.button("Replay this run here", key=S.sub(S.BUBBLE_TRACE_UPLOAD, "replay"), on_click=replay, args=(trace,),
              type="primary", help="Sets the question, h, B, α and n from the trace; every BubbleRAG page then "
                                   "shows the re-run (deterministic with the same workspace and backends).")
    if ignored:
        st.caption("Replay applies h, B, α and n; these saved settings differ from the defaults and are not "
                   "applied: " + md_escape(", ".join(ignored)))
    if result is not None and result.query == trace.query and saved:
        same = saved.answer == result.answer
        (st.success if same else st.warning)(
            "The current run reproduces the saved answer." if same else
            "The current run's answer differs from the saved one (other workspace, backends or settings).")
