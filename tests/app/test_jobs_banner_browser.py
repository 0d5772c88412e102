"""The jobs banner in a real browser: a benchmark started on the Benchmark page runs in a worker process, and
while it runs every other page shows a banner naming it, with its progress and a link back to its page, on one line
(at most 40 px high)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.app.browser_support import launch_chromium, start_benchmark

pytestmark = pytest.mark.browser
TIMEOUT = 120_000


def test_a_running_benchmark_is_named_on_another_page_with_a_link_back(server: tuple[str, float],
                                                                       tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    base, _ = server
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            start_benchmark(page, base, "banner-run", 5)
            # the job is submitted once the page shows its live panel: a page switch before that would stop the
            # script run that handles the click (on a busy machine it had not reached the submit yet)
            expect(page.get_by_role("button", name="Cancel").first).to_be_visible(timeout=TIMEOUT)
            page.get_by_test_id("stSidebarNav").get_by_role("link", name="Home").click()
            banner = page.locator(".st-key-egx-jobs-banner")
            expect(banner).to_contain_text(re.compile(r"Benchmark “banner-run” on the server: .*(elapsed|left)"),
                                           timeout=TIMEOUT)
            page.screenshot(path=str(tmp_path / "jobs_banner.png"))  # the viewport: quick, the run may end soon
            box = banner.bounding_box()  # one line: a 110-px box pushed the tour's content below a 900-px fold
            assert box is not None and box["height"] <= 40, box
            # ... and the line's whole height: a Markdown block pulled up by 1rem left 7 px of it (pixel stubs)
            text = banner.locator("[data-testid='stMarkdownContainer'] p").first.bounding_box()
            assert text is not None and box["height"] >= text["height"] - 1 >= 15, (box, text)
            # and below the app's header, readable: at the main block's top it sat under the header, 7 px showing
            header = page.get_by_test_id("stHeader").bounding_box()
            assert header is not None and box["y"] >= header["y"] + header["height"] - 1, (box, header)
            banner.get_by_role("link", name="Open its page").click()
            expect(page.get_by_role("heading", name="Benchmark")).to_be_visible(timeout=TIMEOUT)
            expect(page.locator(".st-key-egx-jobs-banner")).to_have_count(0, timeout=TIMEOUT)  # gone once done
            assert (tmp_path / "home" / "runs" / "banner-run" / "results.jsonl").read_text().count("\n") >= 5
        finally:
            browser.close()


def _banner_line(tmp_path: Path, shows: str, shot: str, **env: str) -> tuple[str, int, int]:
    """The jobs banner's line on ``tests/app/banner_page.py`` at 1440 px once it ``shows`` (a regex): its text, the
    width it needs and the width it has."""
    from playwright.sync_api import expect, sync_playwright

    from tests.app.browser_support import app_server

    with app_server(tmp_path, "tests/app/banner_page.py", **env) as (base, _), sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(base)
            line = page.locator(".st-key-egx-jobs-banner [data-testid='stMarkdownContainer'] p").first
            expect(line).to_contain_text(re.compile(shows), timeout=TIMEOUT)
            page.screenshot(path=str(tmp_path / shot))
            text, needed, shown = line.evaluate("e => [e.innerText, e.scrollWidth, e.clientWidth]")
            return str(text), int(needed), int(shown)
        finally:
            browser.close()


def test_a_server_builds_banner_line_is_not_cut_at_1440_px(tmp_path: Path) -> None:
    """The server's own sample build: an audit found the line cut at 1440 px in "(the server's own…". The line
    says the essentials (what, progress, time left, where to stop waiting) and fits; the why is in its tooltip."""
    text, needed, shown = _banner_line(tmp_path, r"22 % overall · about .* left", "server_build_banner.png")
    assert "Building workspace “MuSiQue” on the server: " in text and "Stop waiting in the sidebar" in text, text
    assert needed <= shown, (text, needed, shown)  # not cut with "…"


SGRAG_TRAINING = "Training SG-RAG's dominance model for “Demo: the BubbleRAG paper's worked examples” (first use)"


def test_the_first_use_training_banner_names_its_workspace_whole_at_1440_px(tmp_path: Path) -> None:
    """In the first minute after start an audit read "Training SG-RAG's dominance model for “Demo…” (first use) …
    about 1 min 05 s left", the workspace's name cut at 1440 px: the line names the workspace by its name
    (its title's subtitle, "(first use)" and the message's repeated "Dominance model:" are in the tooltip) and fits."""
    text, needed, shown = _banner_line(tmp_path, r"22 % · about .* left", "training_banner.png",
                                       EGX_TEST_BANNER_TITLE=SGRAG_TRAINING,
                                       EGX_TEST_BANNER_MESSAGE="Dominance model: epoch 12, loss 0.01234")
    assert "Training SG-RAG's dominance model for “Demo” on the server: epoch 12, loss 0.01234 · 22 % · " in text
    assert "Stop waiting in the sidebar" in text and "…" not in text, text
    assert needed <= shown, (text, needed, shown)  # not cut with "…"
