"""What a method page opens with: three sentences on what you are looking at and a link to the paper
section it shows (the first sentence in view, the others under "More"). The intros are the method packages'
(``Method.intros``); the citations come from :mod:`core.papers` (one place)."""

from __future__ import annotations

import streamlit as st

from components import state as S
from components.ui import md_escape
from core.papers import Intro


def _intros() -> dict[str, Intro]:
    """Page file → its intro, from the methods registered now (one registered later brings its pages' intros)."""
    from core.methods.registry import METHODS

    out: dict[str, Intro] = {}
    for spec in METHODS.values():
        out.update(spec.intros)
    return out


#: Page file → its intro, as each method package declares it (``Method.intros``). Every method page
#: (``Method.page`` and the other BubbleRAG pages) has one.
INTROS: dict[str, Intro] = _intros()


def intro_body(page: str) -> None:
    """The intro of ``page`` ("pages/x.py"): its sentences and the paper it cites."""
    intro = _intros()[page]
    st.markdown(md_escape(" ".join(intro.text)))
    _citation(intro)


def _citation(intro: Intro) -> None:
    p = intro.cited
    st.caption(f"Paper: [{md_escape(f'{p.key} {intro.section} — {p.title}')}]({p.url}) · "
               f"{md_escape(f'{p.short_authors}, {p.year}, {p.venue}, arXiv {p.arxiv}')}.")


def _folded(intro: Intro) -> None:
    """The intro's first sentence with its section linked, the other two and the whole citation folded under
    "More": the whole intro took five lines above every stage, and an audit found the stages below a projector's
    fold."""
    p = intro.cited
    st.markdown(f"{md_escape(intro.text[0])} ([{md_escape(f'{p.key} {intro.section}')}]({p.url}))")
    with st.expander("More on this stage", icon=":material/menu_book:"):
        st.markdown(md_escape(" ".join(intro.text[1:])))
        _citation(intro)


def has_intro(page: str) -> bool:
    """Whether ``page`` ("pages/x.py") is a method page with an intro (a registered method's ``Method.intros``)."""
    return page in _intros()


def page_intro(page: str) -> Intro:
    """Draw the intro of ``page`` ("pages/x.py") and return it. On the current step of the guided demo it is
    not drawn here: the step's bar holds it under "More" (:func:`components.tour.bar`), so the stage starts
    above the fold of a 900-px projector."""
    tour = st.session_state.get(S.TOUR)  # components.tour.TourState, read without importing the tour
    if getattr(tour, "page", None) != page:
        with st.container():
            _folded(_intros()[page])
    return _intros()[page]
