"""One question per workspace across every method page (AppTest).

A lecturer types a question on Ask and opens Compare, GRanker, SG-RAG, Evidence chains and HippoRAG 2: the
question is there, never a page's own leftover. A page's "use another question on this page only" switch
keeps a question of its own there without changing the others'; switching workspace brings that
workspace's own question to every page.
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from components import state as S
from components.question import OWN_QUESTION_LABEL
from tests.app.helpers import run_page, switch

TYPED = "Who directed The Matrix?"  # not one of the demo's questions: the pickers show it typed
MUSIQUE_Q = "Who was the first president of the association which published Journal of Psychotherapy Integration?"

#: page → (its question value, its typed-question value, the widget scope of its picker)
PICKERS = {
    "pages/compare.py": (S.COMPARE_QUESTION, S.COMPARE_CUSTOM, "compare"),
    "pages/granker.py": (S.GRANKER_QUESTION, S.GRANKER_CUSTOM, ""),
    "pages/subgraph.py": (S.SGRAG_QUESTION, S.SGRAG_CUSTOM, ""),
    "pages/evidence_chains.py": (S.REG_QUESTION, S.REG_CUSTOM, ""),
    "pages/hipporag2.py": (S.HIPPORAG2_QUESTION, S.HIPPORAG2_CUSTOM, ""),
}


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown(at: AppTest, page: str) -> str:
    """The question the page's picker shows (the typed one when it shows "type your own")."""
    key, custom, scope = PICKERS[page]
    choice = at.selectbox(key=S.widget_key(key, scope)).value
    if choice == S.CUSTOM_QUESTION:
        return at.text_input(key=S.widget_key(custom, scope)).value
    return str(choice)


def _ask(at: AppTest) -> str:
    return at.text_input(key=S.widget_key(S.BUBBLE_QUESTION, "ask")).value


def _toggle(at: AppTest) -> object:
    found = [t for t in at.toggle if t.label == OWN_QUESTION_LABEL]
    assert len(found) == 1, [t.label for t in at.toggle]
    return found[0]


def test_a_question_typed_on_ask_is_on_every_method_page(home: Path) -> None:
    at = run_page("pages/bubble_ask.py", **{S.COMPARE_METHODS: ["dense"]})
    at.text_input(key=S.widget_key(S.BUBBLE_QUESTION, "ask")).input(TYPED)
    _ok(at.run())
    for page in PICKERS:
        _ok(switch(at, page))
        assert _shown(at, page) == TYPED, page
        assert at.query_params["q"] == TYPED  # the link names the question shown
    for page in ("pages/bubble_ranking.py", "pages/bubble_expansion.py"):
        _ok(switch(at, page))
        assert at.session_state[S.BUBBLE_QUESTION] == TYPED


def test_a_question_picked_on_one_page_follows_to_ask_and_compare(home: Path) -> None:
    at = run_page("pages/granker.py", **{S.COMPARE_METHODS: ["dense"]})
    box = at.selectbox(key=S.widget_key(S.GRANKER_QUESTION))
    picked = next(o for o in box.options if o not in (box.value, S.CUSTOM_QUESTION))
    _ok(box.set_value(picked).run())
    _ok(switch(at, "pages/bubble_ask.py"))
    assert _ask(at) == picked
    _ok(switch(at, "pages/compare.py"))
    assert _shown(at, "pages/compare.py") == picked


def test_the_switch_keeps_a_question_on_one_page_only(home: Path) -> None:
    at = run_page("pages/bubble_ask.py", **{S.COMPARE_METHODS: ["dense"]})
    ask_q = _ask(at)
    _ok(switch(at, "pages/granker.py"))
    assert _shown(at, "pages/granker.py") == ask_q
    # off: the page says its question is shared
    assert any(c.value.startswith("Shared question: Ask, the paper pages") for c in at.caption)
    _ok(_toggle(at).set_value(True).run())
    # on: said at once, in a box of its own, naming the question the other pages keep (an audit saw no change)
    said = [i.value for i in at.info if i.value.startswith("This page now keeps its own question")]
    assert len(said) == 1 and f"the other pages keep “{ask_q}”" in said[0], [i.value for i in at.info]
    assert not any(c.value.startswith("Shared question:") for c in at.caption)
    box = at.selectbox(key=S.widget_key(S.GRANKER_QUESTION))
    own = next(o for o in box.options if o not in (ask_q, S.CUSTOM_QUESTION))
    _ok(box.set_value(own).run())
    said = [i.value for i in at.info if i.value.startswith("This page now keeps its own question")]
    assert len(said) == 1 and f"the other pages keep “{ask_q}”" in said[0], said  # still the shared one, not own
    _ok(switch(at, "pages/bubble_ask.py"))
    assert _ask(at) == ask_q  # the other pages keep the workspace's question
    _ok(switch(at, "pages/compare.py"))
    assert _shown(at, "pages/compare.py") == ask_q
    _ok(switch(at, "pages/granker.py"))
    assert _shown(at, "pages/granker.py") == own and _toggle(at).value is True  # its own stays, switch on
    _ok(_toggle(at).set_value(False).run())
    assert _shown(at, "pages/granker.py") == ask_q  # off: the workspace's question is back


def test_each_workspace_brings_its_own_question_to_every_page(home: Path) -> None:
    at = run_page("pages/bubble_ask.py", **{S.COMPARE_METHODS: ["dense"]})
    at.text_input(key=S.widget_key(S.BUBBLE_QUESTION, "ask")).input(TYPED)
    _ok(at.run())
    _ok(switch(at, "pages/granker.py"))
    assert _shown(at, "pages/granker.py") == TYPED
    _ok(at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("musique").run())
    assert _shown(at, "pages/granker.py") == MUSIQUE_Q  # MuSiQue's own first question, not the demo's
    _ok(switch(at, "pages/bubble_ask.py"))
    assert _ask(at) == MUSIQUE_Q
    _ok(at.sidebar.selectbox(key=S.widget_key(S.WORKSPACE)).set_value("demo").run())
    assert _ask(at) == TYPED  # the demo's question is back
    _ok(switch(at, "pages/granker.py"))
    assert _shown(at, "pages/granker.py") == TYPED
