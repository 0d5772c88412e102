"""Data: upload a corpus or KG (or add documents to the active corpus workspace), read the graph's
statistics, search and draw it, inspect a node with its source passages, and export the graph.

Panels: components/data_view.py (each reads its widgets, calls a cached core function through
``components.resources`` and renders the result).
"""

from __future__ import annotations

import streamlit as st

from components import data_view as dv
from components import state as S
from components import workspaces
from components.add_documents import create_add_documents_ui, show_outcome
from components.page import header
from components.questions_panel import create_questions_ui
from components.ui import md_escape

act = header()
ws = act.workspace
st.markdown(f"**{md_escape(ws.title)}**" + (f" — {md_escape(ws.description)}" if ws.description else ""))
show_outcome(scroll=True)  # the last build's message and files (an insert's are shown by the Add documents panel)

# On a graph store the Graph tab reads neighbourhoods through the page's view; the statistics and a
# whole-graph export read the whole graph (under the app's limit; above it they say why not)
# keyed and stateful: the tab in view stays when a message above the tabs appears (a build or an insert finished),
# where an unkeyed tab bar came back on Graph, losing the user's place on Upload
tab_graph, tab_stats, tab_upload, tab_export = st.tabs(["Graph", "Statistics", "Upload", "Export"], key=S.DATA_TAB,
                                                       on_change="rerun")
with tab_graph:
    shown, shown_is_whole, drawing = dv.create_explore_ui(act, act.graph)
with tab_stats:
    full = workspaces.whole_graph_if_it_fits(ws, "its statistics (components, degrees, relations)")
    if full is not None:
        dv.create_stats_ui(act, full)
with tab_upload:
    dv.create_upload_ui(act)
    st.divider()
    create_add_documents_ui(act, drop_notes=dv.add_drop_notes)
    st.divider()
    create_questions_ui(act)
with tab_export:
    dv.create_export_ui(act, act.graph, shown, shown_is_whole, drawing)
