"""With the ``recorded`` LLM, each paper page (GRanker, SG-RAG, Evidence chains) opens on a question the recordings
hold for its method, so its default never shows a not-recorded fallback; a question that is not recorded says so
plainly before the run (pick a recorded one, or switch the LLM) instead of each stage reporting a failed LLM call."""

from __future__ import annotations

from pathlib import Path

import pytest

from components import state as S
from components.answer_view import recorded_first, recorded_questions
from core.backends.llm_recorded import LLMNotRecordedError
from core.methods.llm_steps import failure_reason
from tests.app.browser_support import open_app_page
from tests.app.helpers import plain

PAGES = {"pages/granker.py": ("fastinsight", S.GRANKER_QUESTION), "pages/subgraph.py": ("sgrag", S.SGRAG_QUESTION),
         "pages/evidence_chains.py": ("reg", S.REG_QUESTION)}
RECORDED = {S.WORKSPACE: "demo", S.LLM: "recorded", S.EMBEDDER: "bge-small", S.RERANKER: "ms-marco-minilm"}
UNRECORDED = ("This question is not recorded", "Not recorded:", "question/stage was not recorded", "LLM call failed")


def _said(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [plain(str(e.value)) for kind in ("warning", "info", "error", "caption", "markdown") for e in at.main.get(kind)]


def test_recorded_questions_come_first_only_with_the_recorded_llm() -> None:
    held = recorded_questions("recorded", "demo", "sgrag")
    assert "When did Lothair II's mother die?" in held
    assert "Which film starred Keanu Reeves and Laurence Fishburne?" not in held
    offered = ["Which film starred Keanu Reeves and Laurence Fishburne?", *held]
    assert recorded_first("recorded", "demo", "sgrag", offered)[0] in held
    assert recorded_first("none", "demo", "sgrag", offered) == offered  # another LLM: the page's own order
    assert recorded_questions("none", "demo", "sgrag") == []


def test_a_reply_that_was_not_recorded_is_not_called_a_failed_call() -> None:
    text = failure_reason(LLMNotRecordedError("This question/stage was not recorded (…)."))
    assert text.startswith("Not recorded: ") and "LLM call failed" not in text


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.parametrize("page", list(PAGES))
def test_the_default_question_replays_a_recording(home: Path, page: str) -> None:
    method, key = PAGES[page]
    at = open_app_page(page, timeout=600, **RECORDED)
    question = at.selectbox(key=S.widget_key(key)).value
    assert question in recorded_questions("recorded", "demo", method), question
    said = _said(at)
    assert not [t for t in said if any(u in t for u in UNRECORDED)], [t for t in said if "record" in t]


@pytest.mark.model
@pytest.mark.slow
def test_an_unrecorded_question_says_so_plainly(home: Path) -> None:
    at = open_app_page("pages/subgraph.py", timeout=600, **RECORDED,
                       **{S.SGRAG_QUESTION: "Which film starred Keanu Reeves and Laurence Fishburne?"})
    notes = [plain(str(w.value)) for w in at.warning]
    (note,) = [t for t in notes if "not recorded" in t]
    assert "This question is not recorded for SG-RAG — pick a recorded question (" in note
    assert "When did Lothair II's mother die?" in note and "switch the LLM to none or local" in note
    assert not [t for t in _said(at) if "LLM call failed" in t]
