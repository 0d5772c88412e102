"""Benchmark: run every method on the workspace's questions, or load a finished run.

A browser user picks a run *name*, never a path: runs live in ``$EGX_HOME/runs/<name>``, so the page
cannot write outside the project's folders. The run is `egx bench` in the page (same runner, same files
in the run folder, resumable), with a progress bar. Every figure shows its 95 % bootstrap interval and the
question count; charts: Recall@k by method and latency vs recall (with error bars), and where each method
lost the gold evidence (failure-stage stacked bars); "which differences are real" compares two methods
paired, in words (within noise, or which is better). The per-question table (verdict, gold
ranks and titles, retrieved titles, the answer beside the gold answer, EM / F1 / answer match) shows the
failures by default, filters by method and verdict, and downloads as CSV or JSON; a selected row (or the
"Open" button) opens the question on the Compare-methods page.
Panels: components/benchmark_view.py (figures: components/bench_view.py).
"""

from __future__ import annotations

import streamlit as st

from components import benchmark_view as bv
from components.page import header

act = header("Every method on the workspace's questions with gold evidence: Recall@k, all-recall, nDCG, TR, the "
             "failure diagnosis per question, latency and LLM tokens. Same runner and files as `egx bench`.")
bv.few_passages(act)  # a workspace of a few passages: recall cannot tell the methods apart
run_tab, load_tab = st.tabs(["Run", "Load a report"])
with run_tab:
    bv.run_panel(act)
with load_tab:
    bv.load_panel(act)
bv.report(act)
