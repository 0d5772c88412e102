"""Compare methods: one question, every registered method side by side.

Ranked passages with gold marks, the evidence subgraphs of all methods overlaid on one layout
(colour per method, black where they overlap), latency and LLM tokens, the failure diagnosis of each
method (where the gold evidence was lost, and the facts behind the verdict), and a button into each
method's step-through page with the same question.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components import budget_view, resources, runs, tour, workspaces
from components import compare_view as cv
from components import state as S
from components.answer_view import answer_note, gold_answer, replay_banner
from components.graph_view import show_graph
from components.sidebar import active
from components.suggestions import graph_suggestions, suggested_questions_ui
from components.ui import error_text, md_escape, question_picker
from core.errors import EgxError
from core.eval.diagnosis import Gold, diagnose
from core.eval.metrics import llm_tokens
from core.eval.result_metrics import retrieval_metrics
from core.eval.triage import result_row
from core.eval.verdicts import diagnosis_verdict, match_answer, unmatched_note
from core.methods.base import Backends
from core.methods.budget import apply_budget
from core.methods.registry import METHODS, method_names

DEMO_QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"


def _ask_suggested(question: str) -> None:
    S.set_value(S.COMPARE_QUESTION, S.CUSTOM_QUESTION)
    S.set_value(S.COMPARE_CUSTOM, question)


act = active()
ws = act.workspace
st.title("Compare methods")
tour.bar("pages/compare.py")  # the guided demo's step, when one runs
graph = workspaces.whole_graph(ws, "the side-by-side evidence graphs and the failure diagnosis")
st.caption("One question, every retrieval method on the same workspace and backends. For each method: its "
           "ranked passages (✓ = gold), where the gold evidence was lost (the failure diagnosis reads the "
           "method's own trace), latency and LLM tokens. The evidence subgraphs are drawn on one layout.")

try:
    questions = resources.workspace_questions(ws, act.key)
except EgxError as exc:
    st.warning(f"The workspace's questions file could not be read: {exc}")
    questions = []
by_text = {q.question: q for q in questions if q.gold_chunks}
handed = S.peek_handoff()  # a Benchmark row: its question, workspace (the sidebar switched to it) and method
suggested = graph_suggestions(act)  # a workspace without questions: questions its graph answers
query = question_picker(list(by_text), key=S.COMPARE_QUESTION, custom_key=S.COMPARE_CUSTOM, scope="compare",
                        default_custom=DEMO_QUESTION if graph.name == "demo" else
                        suggested[0].question if suggested and not by_text else "",
                        help="Questions of this workspace with gold evidence, or your own.")
suggested_questions_ui(suggested, on_pick=_ask_suggested, key=S.COMPARE_SUGGESTED)
q = by_text.get(query)
gold = Gold.from_question(q) if q else Gold("custom", ())

c1, cb, c2 = st.columns([4, 2, 1])
mkey = S.bind(S.COMPARE_METHODS, method_names(), scope="compare")
st.session_state[mkey] = [m for m in st.session_state[mkey] if m in METHODS]
if handed is not None and handed.method in METHODS and handed.method not in st.session_state[mkey]:
    st.session_state[mkey] = [*st.session_state[mkey], handed.method]  # the Benchmark row's method is compared
methods = S.keep(S.COMPARE_METHODS, c1.multiselect("Methods", method_names(), key=mkey,
                                                 format_func=lambda m: f"{m} — {METHODS[m].title}"))
# the box shows as many chips as fit: say how many are chosen, and which
c1.caption(f"{len(methods)} of {len(method_names())} methods: {', '.join(methods) if methods else 'none'}")
budget = budget_view.budget_select(cb, scope="compare", key=S.COMPARE_BUDGET, custom_key=S.COMPARE_BUDGET_CUSTOM)
if budget is None:
    st.stop()
S.follow_default(S.COMPARE_CUT, budget.chunks or 5)  # "all gold within the budget": the cut follows its chunks
ckey = S.bind(S.COMPARE_CUT, budget.chunks or 5, scope="compare")
cut = int(S.keep(S.COMPARE_CUT, c2.number_input("Diagnosis cut (top-k)", 1, 50, key=ckey,
                                                help="Gold passages below this rank count as lost.")))
if not query:
    st.info("Type a question to compare the methods on it.")
    st.stop()
if not methods:
    st.info("Pick at least one method.")
    st.stop()
if not gold.chunk_ids:
    st.info("This question has no gold evidence in the workspace: rankings are shown, the diagnosis is not.")
elif gold.unmatched:  # counted as gold never retrieved: a misspelt gold title must not raise recall
    st.warning(f"{md_escape(unmatched_note(gold.unmatched, len(gold.chunk_ids) + len(gold.unmatched)))}: it counts "
               "as a gold passage never retrieved in R@k, nDCG and the verdicts, so no method can reach 100 or “ok”.",
               icon=":material/report:")

backends = Backends(act.embedder, act.llm, act.reranker)
results, diags, errors = {}, {}, {}
waiting: dict[str, runs.PreparationPending] = {}  # a method whose long build waits for a click / runs
progress = st.progress(0.0, text="Running the methods…")
for i, m in enumerate(methods):
    progress.progress(i / len(methods), text=f"Running {m}…")
    try:
        results[m] = runs.method_run(METHODS[m], ws, act.key, backends, query,
                                          apply_budget(METHODS[m], None, budget), defer=True)
        if gold.chunk_ids:
            diags[m] = diagnose(results[m], ws, gold, cut=cut)
    except runs.PreparationPending as pending:
        waiting[m] = pending
    except EgxError as exc:
        errors[m] = error_text(exc)
progress.empty()
for m, err in errors.items():
    st.error(f"{m}: {md_escape(err)}")
# what each build needs, its estimate, the button (or the running build): once per build, naming its methods
runs.offer_preparations(waiting)

# --------------------------------------------------------------------------- summary table
rows, triage = [], []
for m, r in results.items():
    row: dict[str, object] = {"method": m}
    met = retrieval_metrics([c.chunk_id for c in r.ranked_chunks], gold.chunk_ids,
                            unmatched=gold.unmatched) if gold.chunk_ids else {}
    if gold.chunk_ids:
        row.update({k: round(100 * met[k], 1) for k in ("R@2", "R@5", "R@10", "AR@5", "nDCG@10")})
        row["verdict"] = diagnosis_verdict(diags[m]).label if m in diags else ""
    if gold.answers:  # EM / F1 and the kind of match beside the verdict
        am = match_answer(r.answer, gold.answers)
        row.update({"EM": am.em, "F1": round(am.f1 or 0.0, 2), "answer match": am.label})
    triage.append(result_row(r, gold, diags.get(m), question=query, title_of=cv.chunk_title(graph), metrics=met))
    row["seconds"] = round(r.trace.seconds, 3)
    row["LLM tokens"] = llm_tokens(r.trace)["total"]
    row["fallbacks"] = sum(1 for s in r.trace.steps if s.fallback)
    row.update(budget_view.context_columns(r))
    rows.append(row)
if rows:
    st.dataframe(cv.summary_frame(rows), hide_index=True, width="stretch", column_config=cv.summary_columns())
    more = cv.more_frame(rows)
    if len(more.columns) > 1:
        st.caption("More figures: R@2, AR@5 (all gold within the top 5), nDCG@10, the stages that fell back, and the "
                   "tokens of evidence handed to the answer.")
        st.dataframe(more, hide_index=True, width="stretch", column_config=cv.summary_columns())
    tour.lesson_ui("pages/compare.py", act, results)  # the guided demo's lesson on these runs
    if len(rows) > 1:  # figures side by side invite a ranking that one question cannot support
        cv.one_question_note()
    cv.triage_downloads(triage, stem=f"{ws.name}-compare", key=S.COMPARE_DOWNLOAD, what="this comparison",
                        workspace=ws.name, question=query, cut=cut, budget=budget.to_dict())
budget_view.context_caption(budget, results)

# --------------------------------------------------------------------------- overlaid evidence
if graph.n_nodes and results:
    st.subheader("Evidence subgraphs, overlaid")
    per = {m: cv.evidence_nodes(r, graph) for m, r in results.items()}
    gold_nodes: set[int] = set()
    for cid in gold.chunk_ids:
        gold_nodes.update(graph.chunk_entities(cid)[:12])
    ov = cv.overlay(graph, per, method_names(), gold_nodes)
    st.caption(f"{len(ov.nodes)} nodes: the entities of each method's top-5 passages (and BubbleRAG's evidence "
               f"graph, PPR's seeds). {ov.shared} are reached by more than one method (black); golden borders "
               "mark entities of gold passages. Hover a node to see which methods reached it.")
    if ov.nodes:
        show_graph(graph, ov.nodes, max_nodes=150, colors=ov.colors, borders=ov.borders, notes=ov.notes,
                   legend=ov.legend, height=520, labels=ov.labels)

# --------------------------------------------------------------------------- side by side
st.subheader("Side by side")
per_row = 3
shown = [m for m in methods if m in results or m in waiting]
for start in range(0, len(shown), per_row):
    cols = st.columns(per_row)
    for col, m in zip(cols, shown[start:start + per_row]):
        with col:
            colour = cv.method_colour(m, method_names())
            st.markdown(f"<span style='color:{colour}'>●</span> **{md_escape(METHODS[m].title)}**",
                        unsafe_allow_html=True)
            if m in waiting:
                job = waiting[m].job
                st.info(f"Waiting for the build: {md_escape(waiting[m].pending.title)}"
                        + (" (running on the server, see above)." if job is not None else
                           " (not started; the button above starts it)."), icon=":material/hourglass_top:")
                continue
            r = results[m]
            if m in diags:
                cv.verdict_badge(diags[m])
            st.dataframe(cv.ranked_table(r, graph, gold.chunk_ids), hide_index=True, width="stretch",
                         column_config=cv.RANKED_COLUMNS)
            tok = llm_tokens(r.trace)
            replay_banner(r)  # a partial replay says so before the answer
            st.caption(f"{r.trace.seconds:.3f} s · {tok['total']} LLM tokens")
            st.markdown(cv.answer_markdown(r.answer))  # the whole answer, wrapped (it was cut at 160 characters)
            gold_answer(r.answer, gold.answers)  # the question's gold answer, EM / F1 and the kind of match
            answer_note(r, compact=True)
            if m in diags:
                with st.expander("Evidence for the verdict"):
                    cv.evidence_view(diags[m], graph)
            with st.expander("Time per stage"):
                from core.eval.metrics import stage_latency

                st.dataframe(pd.DataFrame([{"stage": k, "seconds": round(v, 4)}
                                           for k, v in stage_latency(r.trace).items()]), hide_index=True)
            cv.step_link(METHODS[m], query)
