"""Deep links: the workspace, the question and the method in a page's URL, so a shared link opens the same view.

``/granker?workspace=musique&q=Who+founded+...`` (any question page; ``&method=ppr`` on the Evidence chains
and Compare pages; ``q`` may also be a workspace question's id, ``&q=lothair-mother``): on the first run of a
session with that link, or when the link changes, the frame hands the question to the page exactly as the Compare
page's "Step through" does (:func:`state.hand_over`: the sidebar switches to the workspace, the page picks the
question, or types it when the workspace lacks it).
Each question page then writes its workspace and question back (:func:`publish`), so the address bar is
always a link to what is on screen. Link values are user text: they are shown escaped, like any question.

The sidebar's backends ride along where they differ from the server's defaults (``&llm=recorded``,
``&embedder=minilm``; :func:`publish_backends` on every page), so a reload keeps the recorded runs a lecturer
chose instead of falling back to ``none`` (an audit pressed F5 after the tour). A link is read once, at a
session's first run (:func:`apply`), and only for choices that cost the server nothing it was not going to
spend: the LLM as ``none`` or ``recorded`` (never a live model), a model as one of the picker's own names
(never a path or a hub id).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from components import state as S

#: The query parameters a link may carry.
WORKSPACE, QUESTION, METHOD = "workspace", "q", "method"
#: The longest question a link carries (longer is cut: a URL is no place for a document).
MAX_QUESTION_CHARS = 2000
#: Session key: the link last applied or published, so a rerun does not apply it again.
APPLIED = "egx.deep_link.applied"
#: the sidebar's choices a link may carry: query parameter → the state key the sidebar's picker edits
BACKENDS = {"llm": S.LLM, "embedder": S.EMBEDDER, "reranker": S.RERANKER}
#: the LLMs a link may choose: neither starts a model (a live one is picked in the sidebar, never by a link)
LINK_LLMS = ("none", "recorded")
#: Session key: the link's backends were read (at the session's first run; afterwards the sidebar writes them)
BACKENDS_READ = "egx.deep_link.backends_read"
#: Session key: what of the link's backends was not applied, said once on the page
REFUSED = "egx.deep_link.refused"


def _link() -> tuple[str, str, str]:
    qp = st.query_params
    return (str(qp.get(WORKSPACE, "") or ""), str(qp.get(QUESTION, "") or "")[:MAX_QUESTION_CHARS],
            str(qp.get(METHOD, "") or ""))


def linkable(kind: str, name: str) -> bool:
    """Whether a link may choose backend ``name`` of ``kind`` (see the module's doc)."""
    from core.backends import registry

    if kind == "llm":
        return name in LINK_LLMS
    return name in [n for n in registry.list_backends().get(kind, []) if "<" not in n and ":" not in n]


def _apply_backends() -> None:
    """The link's backends into the sidebar's state, at the session's first run only (then the sidebar is the
    truth and :func:`publish_backends` writes it back)."""
    ss = st.session_state
    if ss.get(BACKENDS_READ):
        return
    ss[BACKENDS_READ] = True
    qp = st.query_params
    refused = []
    for param, key in BACKENDS.items():
        name = str(qp.get(param, "") or "")
        if name and linkable(param, name):
            S.set_value(key, name)
        elif name:  # said, never ignored in silence (an audit's `llm=bogus` left the page as if the link said nothing)
            may = ", ".join(LINK_LLMS) if param == "llm" else "a name the sidebar's picker lists"
            refused.append(f"{param} “{name[:60]}” (a link may choose {may})")
    if refused:
        ss[REFUSED] = ("The link's " + "; ".join(refused) + " was not applied: the sidebar keeps its own "
                       + ("choices" if len(refused) > 1 else "choice") + ".")


def refused_note() -> None:
    """Say once what of the link's backends was not applied (:func:`_apply_backends`)."""
    note = st.session_state.pop(REFUSED, None)
    if note:
        from components.ui import md_escape

        st.warning(md_escape(note), icon=":material/link_off:")


def publish_backends() -> None:
    """Write the sidebar's backends into the URL where they differ from the server's defaults (and a link may
    carry them); drop them where they do not. Called by the frame after the sidebar, on every page."""
    ss = st.session_state
    defaults = {"llm": S.default_llm(), "embedder": S.default_embedder(), "reranker": S.default_reranker()}
    qp = st.query_params
    for param, key in BACKENDS.items():
        name = str(ss.get(key, "") or "")
        if name and name != defaults[param] and linkable(param, name):
            if qp.get(param) != name:
                qp[param] = name
        elif param in qp:
            del qp[param]
    _follow_workspace()


def _follow_workspace() -> None:
    """Keep the URL's workspace the active one once its link was applied: a build (or a switch on a page without a
    question box) made another workspace active while the URL still named the old one, and a reload went back to it
    (an audit). The link's question and method belonged to the old view and go with it; a question page writes its
    own back (:func:`publish`)."""
    qp = st.query_params
    rec = st.session_state.get(S.ACTIVE)
    if rec is None or st.session_state.get(S.PENDING_WORKSPACE):
        return
    if WORKSPACE not in qp:
        # another workspace than a new session opens: in the URL, so a reload or a bookmark keeps it (an audit built
        # its own, opened the Benchmark page anew and benchmarked the demo, told only by the sidebar). A URL without
        # it is a page opened from the sidebar's menu (which drops the query) or typed: nothing is pending there (the
        # link applied before was another page's), so the page writes it too — an audit's reload of the Benchmark
        # page, reached from the menu, opened the demo
        if rec.info.name != S.DEFAULT_WORKSPACE and (not any(_link())
                                                     or st.session_state.get(APPLIED, _link()) == _link()):
            qp[WORKSPACE] = rec.info.name
            st.session_state[APPLIED] = _link()
        return
    if st.session_state.get(APPLIED) != _link():
        return
    if qp.get(WORKSPACE) != rec.info.name:
        qp[WORKSPACE] = rec.info.name
        for k in (QUESTION, METHOD):
            if k in qp:
                del qp[k]
        st.session_state[APPLIED] = _link()


def apply() -> None:
    """Hand the link's question (and workspace, method) to the page, once per link, and its backends at the
    session's first run. Called by the frame before the sidebar, so the sidebar switches to the link's workspace
    and backends on this very run."""
    _apply_backends()
    link = _link()
    if not any(link) or st.session_state.get(APPLIED) == link:
        return
    st.session_state[APPLIED] = link
    workspace, question, method = link
    method = _known_method(method)
    if question:
        S.hand_over(question, workspace=workspace or None, method=method)
    elif workspace:
        st.session_state[S.PENDING_WORKSPACE] = workspace
    if workspace:  # a typed or mistyped name, not one a run or trace recorded: the sidebar words its absence so
        st.session_state[S.PENDING_FROM_LINK] = True


def _known_method(method: str) -> str:
    """The link's method where a method of that name is registered, else "" with the page told so, as a link's
    unknown LLM is (:func:`_apply_backends`; an audit's `method=bogus` was ignored in silence)."""
    if not method:
        return ""
    from core.methods.registry import method_names

    names = method_names()
    if method in names:
        return method
    note = (f"The link's method “{method[:60]}” (a link may choose {', '.join(names)}) was not applied: the page "
            "keeps its own.")
    prev = st.session_state.get(REFUSED)
    st.session_state[REFUSED] = f"{prev} {note}" if prev else note
    return ""


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


#: Session key prefix: a page's knobs were read from the link (once per session and page).
KNOBS_READ = "egx.deep_link.knobs_read"


def read_knobs(page: str, spec: dict[str, tuple[str, Callable[[str], Any]]]) -> None:
    """A page's own knobs from the URL (query parameter → (state key, parser)), at the page's first run in a session:
    a reload kept the workspace and the question but put the Ranking page's α preset back to its default (an audit's
    OR → α = 1). A value the parser refuses (ValueError) is left out; the state's own value, once set, wins."""
    ss = st.session_state
    flag = f"{KNOBS_READ}.{page}"
    if ss.get(flag):
        return
    ss[flag] = True
    for param, (key, parse) in spec.items():
        raw = st.query_params.get(param)
        if raw is None or key in ss:
            continue
        try:
            S.set_value(key, parse(str(raw)[:40]))
        except (ValueError, TypeError):
            continue


def publish_knobs(values: dict[str, Any]) -> None:
    """Write a page's knobs into the URL (None or "" drops one): what :func:`read_knobs` reads after a reload."""
    qp = st.query_params
    for param, v in values.items():
        text = "" if v is None else f"{v:g}" if isinstance(v, float) else str(v)
        if not text:
            if param in qp:
                del qp[param]
        elif qp.get(param) != text:
            qp[param] = text
