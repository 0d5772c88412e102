"""The question follows the user, in a real browser (headless Debian chromium via Playwright): typed on Ask,
it is on Compare and on GRanker without picking it again (a lecturer re-picked it on every page). On the way, at
1440 px: every column of Compare's summary is inside its grid (the right-hand ones were hidden), and the ranking
page's "AND" preset is shown whole (it showed as "ND"). Screenshots go under
``tmp_path`` (and ``$EGX_ARTIFACTS`` when set)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.app.browser_support import app_server, launch_chromium

pytestmark = pytest.mark.browser
TIMEOUT = 180_000
TYPED = "Who directed The Matrix?"  # not one of the demo's questions: the pickers show it typed


def _idle(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.wait_for_timeout(400)
    expect(page.locator("[data-testid='stStatusWidget']")).to_be_hidden(timeout=TIMEOUT)


def _open(page, label: str) -> None:  # type: ignore[no-untyped-def]
    """Open a page from the sidebar (the same session, as a user does)."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=label, exact=True).click()
    _idle(page)


def _headers(grid) -> list[str]:  # type: ignore[no-untyped-def]
    """The column headers the browser's grid shows (glide-data-grid's accessible table)."""
    return [(th.text_content() or "").strip() for th in grid.locator("th[role='columnheader']").all()]


def _shot(page, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True)
    if os.environ.get("EGX_ARTIFACTS"):
        Path(os.environ["EGX_ARTIFACTS"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(os.environ["EGX_ARTIFACTS"]) / name)


def test_a_question_typed_on_ask_is_on_compare_and_granker(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with app_server(tmp_path) as (base, _), sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1400})
            page.goto(base, wait_until="domcontentloaded")
            expect(page.get_by_role("heading", name="Evidence Graph Explorer")).to_be_visible(timeout=TIMEOUT)
            _idle(page)
            _open(page, "Ask")
            box = page.locator("input[aria-label='Question']").first
            expect(box).to_be_visible(timeout=TIMEOUT)
            box.fill(TYPED)
            box.press("Enter")
            # the question taken (Ask writes it into the address bar) before another page opens: under load the
            # rerun had not begun 400 ms after Enter, the idle check passed, and Compare opened on its default
            page.wait_for_function("(q) => new URLSearchParams(location.search).get('q') === q", arg=TYPED,
                                   timeout=TIMEOUT)
            _idle(page)
            for label, heading, shot in (("Compare methods", "Compare methods", "shared_q_compare.png"),
                                         ("GRanker vs plain reranking", "GRanker vs plain reranking", "shared_q_granker.png")):
                _open(page, label)
                expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=TIMEOUT)
                _idle(page)
                expect(page.locator("input[aria-label='Your question']").first).to_have_value(TYPED, timeout=TIMEOUT)
                _shot(page, tmp_path, shot)
                if label == "Compare methods":  # every column of the summary inside its grid at 1440 px
                    from components.compare_view import column_width

                    expect(page.get_by_role("heading", name="Side by side")).to_be_visible(timeout=TIMEOUT)  # ran
                    _idle(page)

                    # a typed question has no gold: no recall columns. The grid draws its headers after the page
                    # went idle, later on a loaded machine (a full suite on 2 cores missed them once): wait for them
                    deadline = time.monotonic() + TIMEOUT / 1000
                    while not (grid := next((g for g in page.locator("[data-testid='stDataFrame']").all()
                                             if "seconds" in _headers(g)), None)):
                        assert time.monotonic() < deadline, "no summary grid with a seconds column"
                        page.wait_for_timeout(250)
                    box = grid.bounding_box()
                    heads = [h for h in _headers(grid) if h]
                    assert "ctx chunks" in heads, heads
                    assert box is not None and sum(column_width(h) for h in heads) <= box["width"], (heads, box)
            _open(page, "Ranking and reasoning")
            preset = page.get_by_test_id("stButtonGroup").get_by_text("AND", exact=True).first
            expect(preset).to_be_visible(timeout=TIMEOUT)
            _shot(page, tmp_path, "shared_q_ranking.png")
            # the whole label inside its button group and inside the window: nothing clipped
            fits = preset.evaluate("e => { const r = e.getBoundingClientRect(), g = e.closest("
                                   "'[data-testid=\"stButtonGroup\"]').getBoundingClientRect();"
                                   " return e.scrollWidth <= e.clientWidth + 1 && r.left >= g.left - 1"
                                   " && r.right <= g.right + 1 && r.left >= 0 && r.right <= window.innerWidth; }")
            assert fits
        finally:
            browser.close()
