"""GRanker vs plain reranking (FastInsight §3.3–§3.4): same question, same candidates.

On a KG FastInsight searches KG nodes by default (FastInsight §4.2.2, text-rich KGs: node text = name,
description and linked passage text), or the passage graph derived from the KG; the page draws what
was searched. Left: the final FastInsight candidates ranked by the plain reranker (``head(H)``); right: ranked by
GRanker (``head((1−α)H + αPH)``), with each passage's rank shift. Below: the candidate subgraph
with the smoothing weights P on its edges, a round-by-round replay of the STeX loop, and — when the
workspace has gold evidence — R@10, nDCG@10, TR and MissTR of both rankings after every round.
Panels: components/fastinsight_view.py.
"""

from __future__ import annotations

import streamlit as st

from components import fastinsight_view as fv
from components import tour
from components.page import current, header

act = header()
lesson_at = tour.lesson_slot(current())  # the tour's lesson opens the page: below the tables it was under the fold
with tour.settings_box(current()):  # on the tour: folded, so the two rankings come up to the lesson
    query, gold = fv.question(act)
    cfg = fv.knobs(act)
if not query.strip():
    st.info("Type a question to compare the rankings.")
    st.stop()
res, pg = fv.run(act, query, cfg)
rows = fv.rankings(act, res, pg, gold, cfg)
fv.reranker_note(act.reranker)  # under the rankings it explains, which start higher for it
# the guided demo's lesson on this run: how GRanker moved the gold nodes of the two rankings above
tour.lesson_ui(current(), act, {"fastinsight": res}, where=lesson_at, question=query,
              own=tour.granker_lesson(rows, cfg.alpha, nodes=res.searched == "kg_nodes"))
fv.panels(act, res, pg, rows, query, gold, cfg)
