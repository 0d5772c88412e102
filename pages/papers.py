"""Papers: each paper's main table quoted exactly, beside what this app measures under the paper's protocol.

The stored reproduction (the MuSiQue sample, `egx reproduce`, shipped in sample_data/reproduce/) opens at once;
"Re-run on this workspace" runs the same protocol on the active workspace as a background job and shows its figures
beside the stored ones. Panels: components/papers_view.py.
"""

from __future__ import annotations

import streamlit as st

from components import papers_view as pv
from components.page import header

act = header("Each paper's table as it prints it, our figures beside it under the paper's protocol (its methods we "
             "implement, its answer budget, FastInsight on KG nodes), each with its 95 % interval and question count, "
             "every blank with its reason and every difference of setting.")
paper, mode = pv.choose()
body = st.container()  # filled after the re-run panel below, so a run that just finished is shown
with st.expander("Re-run on this workspace", expanded=False):
    pv.rerun(act, paper, mode)
stored, fresh = pv.stored(paper, mode), pv.fresh(act, paper, mode)
shown = [(label, r) for label, r in ((f"ours, stored ({stored['workspace']})" if stored else "", stored),
                                     (f"ours, this workspace ({act.workspace.name})", fresh)) if r]
with body:
    if not shown:
        st.stop()
    table = pv.table_choice([r for _, r in shown])
    pv.citation(shown[0][1], table)
    pv.comparison(table, shown)
    pv.retrieval(shown)
    for label, r in shown:
        pv.facts(label, r, pv.table_of(r, table))
    pv.pairs(table, shown)
    pv.differences(table, shown)
    pv.noise_and_command(shown[0][1])
