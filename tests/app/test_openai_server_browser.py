"""In a real browser: the sidebar points the app at a real OpenAI-compatible server
(llama-cpp-python's, serving the 0.5B GGUF) and SG-RAG's page shows an answer the LLM generated, with the
trace's LLM-cache line. (That a second ask is answered from the LLM cache is tested through the same server in
tests/cli/test_real_openai_server.py; the app and the CLI ask through the same cached backend of
core.backends.registry.get_llm. A restarted app asking the real model again here cost 60–90 s of a CI worker
and, accepting a fresh reply too, could not fail on the cache.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.app.browser_support import launch_chromium, page_server
from tests.app.helpers import LIVE_RUN_BUTTON
from tests.llama_server import llama_server

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.model]


def _pick_llm(page, label: str) -> None:  # type: ignore[no-untyped-def]
    """Open the sidebar's LLM selectbox and pick ``label`` (again if a rerun closed the list under us)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    sidebar = page.locator("section[data-testid='stSidebar']")
    box = sidebar.locator("[data-testid='stSelectbox']").filter(has=page.get_by_text("LLM", exact=True))
    for _ in range(3):
        box.click()
        try:
            page.get_by_role("option", name=label).click(timeout=15_000)
            return
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    raise AssertionError(f"the sidebar's LLM selectbox offered no option {label!r}")


def _ask_sgrag(p, base: str, model: str, expected: re.Pattern[str]) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    browser = launch_chromium(p)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.goto(base, wait_until="domcontentloaded")
        expect(page.get_by_text("6 · Answer").filter(visible=True).first).to_be_visible(timeout=180_000)  # none mode first
        _pick_llm(page, "openai (live)")
        sidebar = page.locator("section[data-testid='stSidebar']")
        expect(sidebar.get_by_text(model, exact=False).filter(visible=True).first).to_be_visible(timeout=30_000)
        go = page.get_by_role("button", name=LIVE_RUN_BUTTON)  # a live LLM's run waits for the click
        expect(go).to_be_visible(timeout=60_000)
        go.click()
        expect(page.get_by_text(expected).filter(visible=True).first).to_be_visible(timeout=300_000)
    finally:
        browser.close()


def test_sidebar_runs_sgrag_against_a_real_openai_compatible_server(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with llama_server(tmp_path) as llm:
        env = {**llm.env(), "EGX_LLM": "none", "EGX_LLM_CACHE_DIR": str(tmp_path / "llm-cache"),
               "EGX_LLM_TIMEOUT": "120"}
        with page_server(tmp_path, "pages/subgraph.py", **env) as base, sync_playwright() as p:
            _ask_sgrag(p, base, llm.model, re.compile(r"LLM: \d+ repl(y|ies) generated now"))
