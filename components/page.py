"""What every page opens with, in one call: :func:`header` draws the page's title, the guided demo's bar on a
page the demo visits, the intro with its paper citation on a method page, and a caption, and returns the
sidebar's :class:`~components.sidebar.Active` record.

The header knows its page from the frame (:func:`components.frame.run_app` stores it under
:data:`components.state.PAGE` for exactly the run of the page), so no page spells its own file name; the
title is :func:`components.navigation.heading`'s, the intro the method package's (``Method.intros``).
"""

from __future__ import annotations

import streamlit as st

from components import state as S
from components import tour
from components.navigation import heading
from components.sidebar import Active, active
from components.teaching import has_intro, page_intro

#: Home draws the tour's own panel (start, resume): no bar there
HOME = "pages/home.py"


def current() -> str:
    """The page this run shows (``"pages/x.py"``; ``""`` outside the frame)."""
    return str(st.session_state.get(S.PAGE, ""))


def header(caption: str = "") -> Active:
    """Open the page: the sidebar's record, then the title, the tour's bar, the intro and ``caption`` (Markdown,
    written by the page, never user text)."""
    act = active()
    page = current()
    st.title(heading(page))
    if page != HOME:
        # the guided demo's step when one runs; on a page off the tour (GRanker, SG-RAG, ...), the way back to it:
        # an audit found those pages with no sign of the paused tour
        tour.bar(page)
    else:  # the note of a tour just finished, at the top of Home (its panel is further down)
        tour.notice()
    if has_intro(page):
        page_intro(page)  # what you are looking at, and the paper section
    if caption:
        st.caption(caption)
    return act
