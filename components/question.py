"""The question box every method page and Compare draw, and the workspace's questions it offers.

One question follows the user: the box shows the workspace's question (:func:`state.workspace_question`),
the one Ask, the paper pages, HippoRAG 2 and Compare share, unless the page's "use another question on this
page only" switch is on; a question asked here becomes the workspace's question. It is kept per workspace
(:func:`state.follow_workspace`), a question handed over by another page (:func:`state.take_handoff`) is taken,
and the address bar links to the view (:func:`deep_link.publish`).

Two layouts of the one box: a "Question" picker over the workspace's questions with "your own question" (the
pages that compare against gold evidence), or a typed question with example questions beside it (BubbleRAG's
four pages, which step through one run).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from components import deep_link, resources
from components import state as S
from components.ui import error_text, md_escape
from core.errors import EgxError

if TYPE_CHECKING:
    from components.sidebar import Active

OWN_QUESTION_LABEL = "Use another question on this page only"
OWN_QUESTION_HELP = ("Off: this page shows the workspace's question, the one Ask, the paper pages, HippoRAG 2 and "
                     "Compare share, and a question picked here becomes theirs. On: this page keeps a question of its "
                     "own and the other pages keep theirs.")


def workspace_questions(act: Active, *, warn: bool = True) -> list[Any]:
    """The workspace's questions (``core.index.questions.Question``, cached); [] when its questions file cannot be
    read, with a warning that says why (``warn``; off where the page's main box already said it)."""
    try:
        return list(resources.workspace_questions(act.workspace, act.key))
    except EgxError as exc:
        if warn:
            st.warning(f"The workspace's questions file could not be read: {md_escape(error_text(exc))}")
        return []


def gold_answer_line(act: Active, answer: str, query: str, *, by_llm: bool = True, result: Any = None) -> None:
    """The gold answer of ``query`` (a workspace question) under a method's answer, with EM / F1 and the kind of
    match, as on Ask; nothing for a question without one. SG-RAG's and ReG's pages drew none, and an audit presented
    a wrong answer there as the method's result. With the method's ``result``: an answer quoted from a passage that
    is not gold says so (:func:`~components.answer_view.off_gold_source`)."""
    from components.answer_view import gold_answer, off_gold_source, question_answers, question_gold_chunks

    qs = workspace_questions(act, warn=False)
    off = off_gold_source(result, question_gold_chunks(qs, query), act.graph) if result is not None else ""
    gold_answer(answer, question_answers(qs, query), by_llm=by_llm, off_gold=off)


def question_box(questions: Sequence[str], *, key: str, custom_key: str = "", default: str = "", scope: str = "",
                 help: str = "", container: Any = None) -> str:
    """The question of the page under ``key`` (its value in :mod:`components.state`), stripped.

    With ``custom_key``: a "Question" selectbox over ``questions`` plus :data:`state.CUSTOM_QUESTION`, which
    opens a "Your question" text box (under ``custom_key``, seeded with ``default``); a question handed over or
    remembered that is not one of ``questions`` is typed there. Without: a "Question" text box (seeded with the
    first of ``questions``) and an "Example questions" picker of ``questions`` beside it. ``scope``: one per page
    that draws the box (:func:`state.bind`)."""
    rec = st.session_state.get(S.ACTIVE)
    workspace = rec.info.name if rec is not None else ""
    if rec is not None:
        S.follow_workspace(workspace, key, *([custom_key] if custom_key else []))  # each workspace keeps its own
    handed = S.take_handoff()  # a Benchmark row, Compare's "Step through" button, a link's `q=`
    if handed is not None:
        S.set_value(key, _by_id(handed, questions, rec) if rec is not None else handed)
    shared = S.workspace_question(workspace, key, _held(key, custom_key))
    if shared is not None:
        S.set_value(key, shared)
    where = container if container is not None else st
    if custom_key:
        question, toggle_at = _picker(questions, key, custom_key, default, scope, help, where), where
    else:
        question, toggle_at = _typed(questions, key, scope, help)
    own_question_toggle(key, scope=scope, container=toggle_at)
    S.share_question(workspace, key, question)
    deep_link.publish(question)  # the address bar links to this view
    return question


def _by_id(handed: str, offered: Sequence[str], act: Active) -> str:
    """``handed`` as a question's text: a link's ``q=q3`` names the workspace question with id "q3" (an audit's
    link was read as the literal question "q3", with "no gold evidence"). A handed text that is a question offered
    here stays itself, so an id never shadows a question that reads like one."""
    if handed in offered:
        return handed
    by_id = {q.id: q.question for q in workspace_questions(act, warn=False) if q.id}
    return by_id.get(handed.strip(), handed)


def _held(key: str, custom_key: str) -> str | None:
    """The question the box of ``key`` holds now (None: it holds none yet)."""
    ss = st.session_state
    if key not in ss:
        return None
    choice = ss[key]
    return str(ss.get(custom_key, "") if custom_key and choice == S.CUSTOM_QUESTION else choice).strip()


def _picker(questions: Sequence[str], key: str, custom_key: str, default: str, scope: str, help: str,
            where: Any) -> str:
    options = [*questions, S.CUSTOM_QUESTION]
    wkey = S.bind(key, options[0], scope=scope)
    current = st.session_state[wkey]
    if current not in options:
        if current:
            S.set_value(custom_key, str(current))
        st.session_state[wkey] = S.CUSTOM_QUESTION
    choice = S.keep(key, where.selectbox("Question", options, key=wkey, help=help))
    if choice != S.CUSTOM_QUESTION:
        return str(choice).strip()
    ckey = S.bind(custom_key, default, scope=scope)
    return str(S.keep(custom_key, st.text_input("Your question", key=ckey))).strip()


def _typed(examples: Sequence[str], key: str, scope: str, help: str) -> tuple[str, Any]:
    wkey = S.bind(key, examples[0] if examples else "", scope=scope)
    left, right = st.columns([3, 1])
    q = S.keep(key, left.text_input("Question", key=wkey, placeholder="Ask something the graph can answer",
                                    help=help))
    if examples:
        right.selectbox("Example questions", examples, index=None, key=S.sub(_examples_key(key), scope),
                        placeholder="Pick an example…", on_change=_use_example, args=(key, scope),
                        help="Questions from the workspace (MuSiQue: the dev questions with gold evidence).")
    return str(q).strip(), left


def _examples_key(key: str) -> str:
    return f"{key}.example"


def _use_example(key: str, scope: str) -> None:
    pick = st.session_state.get(S.sub(_examples_key(key), scope))
    if pick:
        S.set_value(key, pick)


def own_question_toggle(key: str, *, scope: str = "", container: Any = None) -> bool:
    """The page's "use another question on this page only" switch (``key``: the key of its question value;
    ``scope``: one per page that draws it, as for :func:`state.bind`); returns whether it is on. Turning it
    off brings the workspace's question back (:func:`state.release_own_question`)."""
    where = container if container is not None else st
    rec = st.session_state.get(S.ACTIVE)
    workspace = rec.info.name if rec is not None else ""
    own = S.sub(S.QUESTION_OWN, key)
    if getattr(st.session_state.get(S.TOUR), "page", ""):  # a guided tour sets each step's question: on a 900-px
        return bool(st.session_state.get(own, False))  # projector the switch's row only pushed the stage down
    wkey = S.bind(own, False, scope=scope)
    on = bool(S.keep(own, where.toggle(OWN_QUESTION_LABEL, key=wkey, help=OWN_QUESTION_HELP,
                                       on_change=_own_question_changed, args=(workspace, key, wkey))))
    # what the switch does, in view at once: an audit switched it on and saw nothing change
    said = own_question_note(on, str(st.session_state.get(S.QUESTION) or ""))
    if on:
        where.info(said, icon=":material/call_split:")
    else:
        where.caption(said)
    return on


def own_question_note(on: bool, shared: str) -> str:
    """Beside the "use another question on this page only" switch: on, that this page keeps its own question and the
    other pages keep the workspace's (``shared``, named); off, that the question is shared (escaped markdown)."""
    if on:
        keep = f"“{md_escape(shared)}”" if shared else "theirs"
        return (f"This page now keeps its own question; the other pages keep {keep}. Turn the switch off to "
                "show theirs here again.")
    return ("Shared question: Ask, the paper pages, HippoRAG 2 and Compare show this one too, and a question picked "
            "here becomes theirs.")


def _own_question_changed(workspace: str, key: str, wkey: str) -> None:
    on = bool(st.session_state.get(wkey))
    st.session_state[S.sub(S.QUESTION_OWN, key)] = on  # read before the switch is drawn on this run
    if not on:
        S.release_own_question(workspace, key)
