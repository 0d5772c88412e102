"""Evidence Graph Explorer — the Streamlit entry point.

Run with ``egx app`` (or ``streamlit run app.py``). ``st.navigation`` does not auto-discover
``pages/``: every page is listed here. The sidebar (workspace + backends) is shared by all pages.
"""

from __future__ import annotations

import os

import streamlit as st

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # offline-first: never reach for the hub from the app

from components.sidebar import render_sidebar

st.set_page_config(page_title="Evidence Graph Explorer", page_icon=":material/hub:", layout="wide")

PAGES = {
    "Explore": [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/data.py", title="Data", icon=":material/hub:", url_path="data"),
    ],
}

nav = st.navigation(PAGES)
render_sidebar()
nav.run()
