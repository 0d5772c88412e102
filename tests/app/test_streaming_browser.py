"""In a real browser: with a live OpenAI-compatible LLM (the fake server, speaking server-sent events), the Ask
page shows BubbleRAG's answer while the LLM writes it — growing text under the run's title and the stage
writing it — and then the finished answer; the other stages (JSON replies) are asked without streaming.

A workspace without a questions file offers questions written from its graph; a click runs one."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.app.browser_support import launch_chromium, page_server
from tests.app.helpers import LIVE_RUN_BUTTON
from tests.fake_openai import fake_openai_server, openai_env

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ANSWER = "Hugo Weaving played Agent Smith, the main villain of The Matrix, which starred Keanu Reeves and " \
         "Laurence Fishburne."
WORD_DELAY_S = 0.3


def _reply(body: dict[str, Any]) -> str:
    """The answer to the streamed (answer) request; an empty JSON object to every JSON stage (they fall back)."""
    return ANSWER if body.get("stream") else "{}"


def test_ask_streams_the_answer_as_the_llm_writes_it(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with fake_openai_server({"content": _reply, "stream_delay": WORD_DELAY_S}) as llm:
        env = {**openai_env(llm), "EGX_LLM": "openai", "EGX_LLM_CACHE_DIR": str(tmp_path / "llm-cache"),
               "EGX_JOB_INLINE_WAIT": "0"}
        with page_server(tmp_path, "pages/bubble_ask.py", **env) as base, sync_playwright() as p:
            browser = launch_chromium(p)
            try:
                page = browser.new_page(viewport={"width": 1440, "height": 900})
                page.goto(base, wait_until="domcontentloaded")
                # a live LLM's run waits for the person's click (nothing long starts unasked)
                go = page.get_by_role("button", name=LIVE_RUN_BUTTON)
                expect(go).to_be_visible(timeout=180_000)
                go.click()
                live = page.get_by_text("the answer as the LLM writes it", exact=False).filter(visible=True).first
                expect(live).to_be_visible(timeout=180_000)
                t_first = time.monotonic()
                assert "BubbleRAG" in live.inner_text() and "answer" in live.inner_text().lower()
                growing = page.get_by_text(re.compile("▌")).filter(visible=True).first
                seen: list[str] = []
                while time.monotonic() - t_first < 20 and growing.count():
                    try:
                        seen.append(growing.inner_text(timeout=1_000).replace("▌", "").strip())
                        if len(seen) == 4:
                            page.screenshot(path=str(tmp_path / "ask_streaming.png"))
                    except Exception:  # the panel went away between count() and the read: the run ended
                        break
                    time.sleep(0.2)
                partial = [s for s in seen if s and s != ANSWER]
                assert partial, seen  # text shown before the reply was complete …
                assert all(ANSWER.startswith(s) for s in partial), partial  # … and always a prefix of it
                assert len({len(s) for s in partial}) >= 2, partial  # it grew while we looked
                # then the finished answer, in the page's answer box
                expect(page.get_by_text(ANSWER).filter(visible=True).first).to_be_visible(timeout=60_000)
                t_done = time.monotonic()
                page.screenshot(path=str(tmp_path / "ask_streamed.png"), full_page=True)
            finally:
                browser.close()
        streamed = [r for r in llm.requests if r["body"].get("stream")]
        plain = [r for r in llm.requests if not r["body"].get("stream")]
    assert len(streamed) == 1 and plain  # only the answer stage streams; the JSON stages do not
    assert "response_format" not in streamed[0]["body"]
    # the text was on screen for most of the time the LLM took to write it
    words = len(ANSWER.split())
    print(json.dumps({"words": words, "word_delay_s": WORD_DELAY_S, "snapshots": len(seen),
                      "distinct_partials": len({len(s) for s in partial}),
                      "first_text_to_final_answer_s": round(t_done - t_first, 2)}))


def test_a_suggested_question_runs_on_a_workspace_without_questions(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    from core.backends.registry import get_embedder
    from core.index.create import create_workspace

    src = tmp_path / "films.csv"
    src.write_text("head,relation,tail,source\nThe Matrix,directed by,The Wachowskis,m\n"
                   "The Matrix,starring,Keanu Reeves,m\nJohn Wick (film),starring,Keanu Reeves,w\n"
                   "The Matrix,starring,Laurence Fishburne,m\nLaurence Fishburne,acted in,Apocalypse Now,a\n")
    corpus = tmp_path / "films.json"
    corpus.write_text(json.dumps([
        {"id": "m", "title": "The Matrix", "text": "The Matrix, directed by the Wachowskis, stars Keanu Reeves and "
                                                   "Laurence Fishburne."},
        {"id": "w", "title": "John Wick", "text": "John Wick stars Keanu Reeves."},
        {"id": "a", "title": "Apocalypse Now", "text": "Laurence Fishburne acted in Apocalypse Now."}]))
    home = tmp_path / "home"
    create_workspace([corpus, src], home / "workspaces" / "films", embedder=get_embedder("hashing"))
    with page_server(tmp_path, "pages/bubble_ask.py") as base, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(base + "/?workspace=films", wait_until="domcontentloaded")
            sidebar = page.locator("section[data-testid='stSidebar']")
            box = sidebar.locator("[data-testid='stSelectbox']").first
            expect(box).to_be_visible(timeout=120_000)
            # a searchable selectbox: its value is its input's value, not its text
            if "films" not in box.locator("input").input_value():
                box.click()
                page.get_by_role("option", name=re.compile("films")).click()
            hint = page.get_by_text("Questions its graph answers", exact=False).filter(visible=True).first
            expect(hint).to_be_visible(timeout=120_000)
            page.screenshot(path=str(tmp_path / "ask_suggested.png"))
            button = page.locator("[data-testid='stButton'] button").filter(has_text="?").first
            question = button.inner_text().strip().splitlines()[-1].strip()  # after the icon's ligature name
            assert question.endswith("?") and len(question) > 10
            button.click()
            field = page.locator("input[aria-label='Question']").first
            expect(field).to_have_value(question, timeout=60_000)
            expect(page.get_by_text("Answer", exact=True).filter(visible=True).first).to_be_visible(timeout=120_000)
        finally:
            browser.close()
