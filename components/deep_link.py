"""Deep links: the workspace, the question and the method in a page's URL, so a shared link opens the same view.

``/granker?workspace=musique&q=Who+founded+...`` (any question page; ``&method=ppr`` on the Evidence chains
and Compare pages): on the first run of a session with that link, or when the link changes, the frame hands
the question to the page exactly as the Compare page's "Step through" does (:func:`state.hand_over`: the
sidebar switches to the workspace, the page picks the question, or types it when the workspace lacks it).
Each question page then writes its workspace and question back (:func:`publish`), so the address bar is
always a link to what is on screen. Link values are user text: they are shown escaped, like any question.
"""

from __future__ import annotations

import streamlit as st

from components import state as S

#: The query parameters a link may carry.
WORKSPACE, QUESTION, METHOD = "workspace", "q", "method"
#: The longest question a link carries (longer is cut: a URL is no place for a document).
MAX_QUESTION_CHARS = 2000
#: Session key: the link last applied or published, so a rerun does not apply it again.
APPLIED = "egx.deep_link.applied"


def _link() -> tuple[str, str, str]:
    qp = st.query_params
    return (str(qp.get(WORKSPACE, "") or ""), str(qp.get(QUESTION, "") or "")[:MAX_QUESTION_CHARS],
            str(qp.get(METHOD, "") or ""))


def apply() -> None:
    """Hand the link's question (and workspace, method) to the page, once per link. Called by the frame
    before the sidebar, so the sidebar switches to the link's workspace on this very run."""
    link = _link()
    if not any(link) or st.session_state.get(APPLIED) == link:
        return
    st.session_state[APPLIED] = link
    workspace, question, method = link
    if question:
        S.hand_over(question, workspace=workspace or None, method=method)
    elif workspace:
        st.session_state[S.PENDING_WORKSPACE] = workspace
    if workspace:  # a typed or mistyped name, not one a run or trace recorded: the sidebar words its absence so
        st.session_state[S.PENDING_FROM_LINK] = True


def publish(question: str, *, method: str | None = None) -> None:
    """Write the active workspace and ``question`` (and ``method``; None: leave it as it is) into the URL: a
    link to this view."""
    rec = st.session_state.get(S.ACTIVE)
    want = {WORKSPACE: rec.info.name if rec is not None else "", QUESTION: question[:MAX_QUESTION_CHARS]}
    if method is not None:
        want[METHOD] = method
    qp = st.query_params
    for k, v in want.items():
        if not v:
            if k in qp:
                del qp[k]
        elif qp.get(k) != v:
            qp[k] = v
    st.session_state[APPLIED] = _link()
