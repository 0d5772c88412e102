"""The Benchmark page's figures with their error bars: the metrics tables with 95 % intervals and the
"which differences are real" panel (two methods compared paired, in words). The numbers are
core.eval's (:mod:`core.eval.summary_stats`); this module only draws them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components import budget_view
from components import state as S
from components.charts import no_modebar
from components.ui import md_escape
from core.eval.context import CTX_ALL_GOLD, CTX_RECALL
from core.eval.metrics import CAPPED_RECALL_NOTE
from core.eval.report import metric_rows, paper_rows
from core.eval.stats import MIN_VERDICT_QUESTIONS
from core.eval.summary_stats import best_two, differences_figure, intervals_note, pairs_between, scale_of, tr_note
from core.eval.timing import LATENCY_NOTE, timing_line

#: A verdict's mark in the panel: a real difference stands out, noise does not.
_MARK = {"a": ":material/arrow_upward:", "b": ":material/arrow_downward:", "noise": ":material/drag_handle:",
         "too_few": ":material/help:"}


#: The metrics table's column groups, each drawn as a table of its own: at 1440 px one table of every figure with its
#: interval (about 110 px a cell) hid "MissTR" and every column after it. Each group fits the page's ~960 px.
RETRIEVAL_COLUMNS = ("n", "R@2", "R@5", "R@10", "AR@2", "AR@5", "nDCG@10")
EVIDENCE_COLUMNS = ("TR", "MissTR", CTX_RECALL, CTX_ALL_GOLD, "EM", "F1")
COST_COLUMNS = ("mean s", "tokens/q", "ctx chunks (median)", "ctx chunks (max)", "ctx tokens (median)",
                "ctx tokens (max)")

def recall_help(k: int) -> str:
    """R@k's header help: capped (:data:`core.eval.metrics.CAPPED_RECALL_NOTE`), with the sum spelled out."""
    return (f"Capped Recall@{k}: the gold passages among the first {k} retrieved over min({k}, the question's gold "
            "passages), mean over questions")


#: Each column's header help; the cost table's headers are short (their full names are in the help).
_HELP = {
    "n": "Questions the method ran on",
    **{f"R@{k}": recall_help(k) for k in (2, 5, 10)},
    "AR@2": "All-recall@2: the share of questions with every gold passage among the first 2",
    "AR@5": "All-recall@5: the share of questions with every gold passage among the first 5",
    "nDCG@10": "nDCG@10 of the passage ranking against the gold passages",
    "TR": "Topological Recall (FastInsight): how close the retrieved set comes to the gold passages in the graph; "
          "TR = Recall + MissTR",
    "MissTR": "The part of TR that the missed gold passages add by lying near retrieved ones (FastInsight, "
              "Corollary 1)",
    CTX_RECALL: "The share of the gold passages in what the method handed its answer",
    CTX_ALL_GOLD: "The share of questions whose answer was handed every gold passage",
    "EM": "SQuAD exact match of the answer (best over the aliases)",
    "F1": "SQuAD token F1 of the answer (best over the aliases)",
    "mean s": "Mean seconds per question in the method itself (its trace's stages); the run's wall time is in "
              "the Time line under this table",
    "tokens/q": "Mean LLM tokens per question",
    "ctx chunks (median)": "Passages handed to the answer: median over the questions",
    "ctx chunks (max)": "Passages handed to the answer: the most of any question",
    "ctx tokens (median)": "WordPiece tokens of evidence handed to the answer: median over the questions",
    "ctx tokens (max)": "WordPiece tokens of evidence handed to the answer: the most of any question",
}
_SHORT = {"mean s": "s / q", "tokens/q": "LLM tok / q", "ctx chunks (median)": "chunks med",
          "ctx chunks (max)": "chunks max", "ctx tokens (median)": "ctx tok med", "ctx tokens (max)": "ctx tok max"}


#: A figure with its interval ("50.0 [35.0, 65.0]") fits this many pixels; a wider one widens its column.
INTERVAL_WIDTH = 112
#: The grid's text (Source Sans at 14 px): pixels per character by kind, and a cell's padding with some slack.
_CHAR_PX = {**dict.fromkeys("0123456789−-+", 7.0), **dict.fromkeys(".,:; ", 3.5), **dict.fromkeys("[]()", 4.2)}
_CELL_PAD_PX = 20


def text_px(text: str) -> float:
    """The width of ``text`` in the grid's font, estimated from its characters (a letter counts as a digit)."""
    return sum(_CHAR_PX.get(ch, 7.0) for ch in text)


def fit_width(values: Sequence[Any], floor: int = INTERVAL_WIDTH) -> int:
    """A column width that shows the longest of ``values`` whole: an audit found "100.0 [100.0, 100.0" cut at the
    edge of a 112-px column."""
    widest = max((text_px(str(v)) for v in values if v is not None and v == v), default=0.0)  # v == v: not NaN
    return max(floor, int(widest + _CELL_PAD_PX + 0.999))


def method_names_help() -> str:
    """The registry names a run's tables use (as the command line and the downloads do), each with the papers' name
    the lessons and Compare use: "dense = Naive RAG, rerank = Re2, …" (an audit found the Benchmark's "dense,
    rerank" beside Compare's "Naive RAG, Re2" with nothing tying them)."""
    from components.tour import short_name
    from core.methods.registry import method_names

    return ", ".join(f"{m} = {short_name(m)}" for m in method_names() if short_name(m) != m)


def method_label(method: str) -> str:
    """A chart's and a paired line's name of ``method``: the papers' name with the registry name the tables use
    ("HippoRAG 2 (hipporag2)"); the registry name alone where they are the same."""
    from components.tour import short_name

    short = short_name(method)
    return method if short == method else f"{short} ({method})"


def labelled(summary: Mapping[str, Any]) -> dict[str, Any]:
    """``summary`` with its methods keyed by :func:`method_label`, for the charts (an audit found the charts in
    registry names only, beside Compare's papers' names)."""
    return {**summary, "methods": {method_label(m): s for m, s in (summary.get("methods") or {}).items()}}


def method_column() -> Any:
    """The pinned method column of the run's tables, its help naming each method as the papers do."""
    return st.column_config.TextColumn("method", width=90, pinned=True,
                                       help="Registry names, as on the command line and in the downloads; Compare "
                                            "and the lessons call them " + method_names_help())


def _columns(df: pd.DataFrame, cols: list[str]) -> dict[str, Any]:
    """Narrow columns with short headers, each with its help: a figure with its interval needs about 110 px, more
    when its figures are wider (:func:`fit_width`)."""
    cfg: dict[str, Any] = {"method": method_column()}
    for c in cols:
        label, help_ = _SHORT.get(c, c), _HELP.get(c)
        if c in COST_COLUMNS or c == "n":
            cfg[c] = st.column_config.NumberColumn(label, width=80 if c != "n" else 40, help=help_)
        else:
            cfg[c] = st.column_config.TextColumn(label, width=fit_width(list(df[c])), help=help_)
    return cfg


#: What R@k is (:func:`core.eval.metrics.recall_at_k`): an audit read R@2 75.0 above R@5 63.9 as a bug, a later one
#: recomputed R@2 uncapped and got other numbers.
RECALL_NOTE = (f"{CAPPED_RECALL_NOTE} (BEIR; FastInsight §4.3.1), so a question with 4 gold passages and gold at "
               "ranks 1 and 2 scores R@2 100 but R@5 50 — R@k can fall as k grows.")


def metric_table(summary: Mapping[str, Any]) -> pd.DataFrame:
    """The retrieval metrics and EM / F1 of every method, each with its interval, and what the brackets are: three
    tables that each fit the page (retrieval; the evidence handed to the answer and the answers; cost and context
    size). Returns the whole table."""
    rows = metric_rows(dict(summary))
    for row in rows:  # what each method handed its answer, under the run's budget (median and max)
        row.update(budget_view.run_context_cells(summary["methods"][row["method"]]))
    df = pd.DataFrame(rows)
    groups = [("Retrieval", RETRIEVAL_COLUMNS), ("The answer's evidence and the answers", EVIDENCE_COLUMNS),
              ("Cost and context size", COST_COLUMNS)]
    for i, (title, wanted) in enumerate(groups):
        cols = [c for c in wanted if c in df.columns]
        if not cols:
            continue
        if i:
            st.markdown(f"**{title}**")
        st.dataframe(df[["method", *cols]], hide_index=True, width="content", placeholder="",  # a missing figure: blank
                     column_config=_columns(df, cols))
        if not i:
            st.caption(md_escape(intervals_note(summary)) + " " + RECALL_NOTE)
        elif "TR" in cols and tr_note(summary):
            st.caption(md_escape(tr_note(summary)))
    timing = timing_line(summary.get("timing"))
    if timing:  # s / q is the methods' own time: the run's wall time and what lay outside the methods beside it
        st.caption(f":material/timer: **Time** — {md_escape(timing)}. {md_escape(LATENCY_NOTE)}")
    rest = [c for c in df.columns if c != "method" and not any(c in w for _, w in groups)]
    if rest:  # a figure no group names (a metric added since): shown, never dropped
        st.dataframe(df[["method", *rest]], hide_index=True, width="content", placeholder="")
    return df


#: The papers' figures an LLM judge scores: a table of their own, drawn only when a judge scored some.
JUDGED_COLUMNS = ("ACC_L", "Emp.S", "win rate vs this", "its win rate")


def paper_table(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]] = ()) -> None:
    """The papers' answer metrics of every method, each with its interval: a mean over questions has one in the
    summary; Micro-F1 (counts pooled over questions) gets its own from ``records``, the pooled counts of the same
    resampled questions (an audit saw "Micro-F1 15.4" the one figure without an interval)."""
    from core.eval.reproduce_record import with_micro_f1

    shown = with_micro_f1(summary, records) if records else dict(summary)
    df = pd.DataFrame(paper_rows(shown, intervals=True))
    # two tables that each fit 1440 px: the answer-set figures, then the judged ones (only when a judge scored some;
    # else the caption under the table says why they are not computed)
    judged = [c for c in JUDGED_COLUMNS if c in df.columns and df[c].notna().any()]
    sets = [c for c in df.columns if c not in (*JUDGED_COLUMNS, "method")]
    cfg = {"method": method_column(),
           "n": st.column_config.NumberColumn("n", width=40, help="Questions with a gold answer set")}
    st.dataframe(df[["method", *sets]], hide_index=True, width="content", placeholder="",  # not computed: blank
                 column_config={**cfg, **{c: st.column_config.TextColumn(c, width=fit_width(list(df[c])))
                                          for c in sets if c != "n"}})
    if judged:
        st.dataframe(df[["method", *judged]], hide_index=True, width="content", placeholder="",
                     column_config={"method": cfg["method"],
                                    **{c: st.column_config.TextColumn(c, width=fit_width(list(df[c])))
                                       for c in judged}})


def _pick(key: str, options: list[str], default: str) -> str:
    """A selectbox over ``options`` that starts on ``default`` and drops a choice another run lacks."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else options[0]
    return str(st.session_state[key])


def differences_panel(summary: Mapping[str, Any]) -> None:
    """Pick two methods; each headline metric's paired difference in words (within noise, or which is better),
    with wins / ties / losses, the sign-test and Wilcoxon p-values, and a chart of the intervals against 0.
    Starts on the two best methods by R@5."""
    st.subheader("Which differences are real")
    methods = list(summary.get("methods") or {})
    if len(methods) < 2:
        st.info("This run has one method: there is nothing to compare. Run two or more methods to see which "
                "differences are real.")
        return
    if not summary.get("pairs"):
        st.info("This run's summary has no paired comparisons (it was written before they existed, or no question "
                "has scores of two methods). Load the run again to compute them.")
        return
    st.caption("Two methods on the questions both ran, paired: the same resampled questions for both, so what both "
               "find easy or hard cancels out. A difference whose 95 % interval holds 0 is within noise; below "
               f"{MIN_VERDICT_QUESTIONS} questions no winner is named.")
    first, second = best_two(summary) or (methods[0], methods[1])
    c1, c2 = st.columns(2)
    _pick(S.BENCH_PAIR_A, methods, first)
    a = str(c1.selectbox("Method A", methods, key=S.BENCH_PAIR_A, format_func=method_label))
    others = [m for m in methods if m != a]
    _pick(S.BENCH_PAIR_B, others, second if second != a else first)
    b = str(c2.selectbox("Method B", others, key=S.BENCH_PAIR_B, format_func=method_label))
    comparisons = [dataclasses.replace(c, a=method_label(c.a), b=method_label(c.b)) for c in pairs_between(summary, a, b)]
    a, b = method_label(a), method_label(b)
    if not comparisons:
        st.info(f"No question has scores of both {md_escape(a)} and {md_escape(b)}.")
        return
    for c in comparisons:
        st.markdown(f"{_MARK[c.verdict]} **{md_escape(c.metric)}** — {md_escape(c.sentence(scale=scale_of(c.metric)))}. "
                    f"{md_escape(c.tests_sentence())}.")
    st.plotly_chart(no_modebar(differences_figure(comparisons, title=f"{a} − {b}: paired differences with 95 % intervals "
                                                          "(crossing 0: within noise)")),
                    width="stretch", key=S.BENCH_DIFF_CHART)
