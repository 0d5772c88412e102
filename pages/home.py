"""Home: what the app is, the four methods and the baseline they compare against, which pages exist, and the active
workspace at a glance. Panels: components/home_view.py."""

from __future__ import annotations

import streamlit as st

from components import deep_link, home_view, tour
from components.page import header

act = header()
deep_link.publish("")  # the address bar names the workspace: a reload or a bookmark of Home keeps it
home_view.what_it_is()
tour.home_panel()  # the guided demo for a class
left, right = st.columns([3, 2], gap="large")
with left:
    home_view.methods_and_pages()
with right:
    home_view.workspace(act)
