"""The Benchmark page's figures with their error bars: the metrics tables with 95 % intervals and the
"which differences are real" panel (two methods compared paired, in words). The numbers are
core.eval's (:mod:`core.eval.summary_stats`); this module only draws them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from components import budget_view
from components import state as S
from components.ui import md_escape
from core.eval.report import metric_rows, paper_rows
from core.eval.stats import MIN_VERDICT_QUESTIONS
from core.eval.summary_stats import best_two, differences_figure, intervals_note, pairs_between, scale_of

#: A verdict's mark in the panel: a real difference stands out, noise does not.
_MARK = {"a": ":material/arrow_upward:", "b": ":material/arrow_downward:", "noise": ":material/drag_handle:",
         "too_few": ":material/help:"}


def metric_table(summary: Mapping[str, Any]) -> pd.DataFrame:
    """The retrieval metrics and EM / F1 of every method, each with its interval, and what the brackets are."""
    rows = metric_rows(dict(summary))
    for row in rows:  # what each method handed its answer, under the run's budget (median and max)
        row.update(budget_view.run_context_cells(summary["methods"][row["method"]]))
    df = pd.DataFrame(rows)
    st.dataframe(df, hide_index=True, width="stretch", placeholder="",  # a figure a method lacks is blank
                 column_config={"method": st.column_config.TextColumn("method", width="small")})
    st.caption(md_escape(intervals_note(summary)))
    return df


def paper_table(summary: Mapping[str, Any]) -> None:
    """The papers' answer metrics of every method, each with its interval where it is a mean over questions."""
    st.dataframe(pd.DataFrame(paper_rows(dict(summary), intervals=True)), hide_index=True, width="stretch",
                 placeholder="")  # not computed: blank, the caption says why


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
    a = str(c1.selectbox("Method A", methods, key=S.BENCH_PAIR_A))
    others = [m for m in methods if m != a]
    _pick(S.BENCH_PAIR_B, others, second if second != a else first)
    b = str(c2.selectbox("Method B", others, key=S.BENCH_PAIR_B))
    comparisons = pairs_between(summary, a, b)
    if not comparisons:
        st.info(f"No question has scores of both {md_escape(a)} and {md_escape(b)}.")
        return
    for c in comparisons:
        st.markdown(f"{_MARK[c.verdict]} **{md_escape(c.metric)}** — {md_escape(c.sentence(scale=scale_of(c.metric)))}. "
                    f"{md_escape(c.tests_sentence())}.")
    st.plotly_chart(differences_figure(comparisons, title=f"{a} − {b}: paired differences with 95 % intervals "
                                                          "(crossing 0: within noise)"),
                    width="stretch", key=S.BENCH_DIFF_CHART)
