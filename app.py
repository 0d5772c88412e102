"""Evidence Graph Explorer — the Streamlit entry point.

Run with ``egx app`` (or ``streamlit run app.py``). ``st.navigation`` does not auto-discover
``pages/``: every page is listed here. The sidebar (workspace + backends) is shared by all pages.
"""

from __future__ import annotations

import os

import streamlit as st

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # offline-first: never reach for the hub from the app

from components.sidebar import render_sidebar
from components.ui import md_escape
from core.errors import EgxError

st.set_page_config(page_title="Evidence Graph Explorer", page_icon=":material/hub:", layout="wide")

PAGES = {
    "Explore": [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/data.py", title="Data", icon=":material/hub:", url_path="data"),
    ],
    # BubbleRAG (issue 4): one question, four steps; the question is shared by the four pages. URL paths
    # equal the file names so a deep link also works on the first run of a fresh server (sidebar.active).
    "BubbleRAG": [
        st.Page("pages/bubble_anchors.py", title="Anchor grouping", icon=":material/label:",
                url_path="bubble_anchors"),
        st.Page("pages/bubble_expansion.py", title="Bubble expansion", icon=":material/bubble_chart:",
                url_path="bubble_expansion"),
        st.Page("pages/bubble_ranking.py", title="Ranking and reasoning", icon=":material/leaderboard:",
                url_path="bubble_ranking"),
        st.Page("pages/bubble_ask.py", title="Ask", icon=":material/question_answer:", url_path="bubble_ask"),
    ],
    "FastInsight": [
        st.Page("pages/granker.py", title="GRanker vs plain reranking", icon=":material/swap_vert:",
                url_path="granker"),
    ],
    "SG-RAG": [  # issue 7
        st.Page("pages/subgraph.py", title="Subgraph matching", icon=":material/account_tree:", url_path="subgraph"),
    ],
    "ReG": [  # issue 8
        st.Page("pages/evidence_chains.py", title="Evidence chains", icon=":material/linear_scale:",
                url_path="evidence_chains"),
    ],
    "Evaluate": [  # issue 6
        st.Page("pages/compare.py", title="Compare methods", icon=":material/compare:", url_path="compare"),
        st.Page("pages/benchmark.py", title="Benchmark", icon=":material/analytics:", url_path="benchmark"),
    ],
}

nav = st.navigation(PAGES)
try:
    render_sidebar()
    nav.run()
except EgxError as exc:  # one net for every page: the project's errors are messages, never tracebacks
    st.error(md_escape(exc))
# Anything else is a bug: client.showErrorDetails = "none" (.streamlit/config.toml, `egx app`) keeps its
# traceback and the server's paths out of the browser and in the server log.
