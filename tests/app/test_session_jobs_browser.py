"""Per-session jobs in a real browser, two people on one server (two browser contexts: separate cookies and
sessions). Alice starts a benchmark; Bob, on another page, sees neither its name nor a banner, only that one job
of another session runs; Alice sees her banner with the run's name. On a classroom server every student used to
see everyone's runs and errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.app.browser_support import launch_chromium, start_benchmark, wait_text

pytestmark = pytest.mark.browser
TIMEOUT = 120_000
RUN = "alice-secret-run"


def test_another_session_sees_a_count_not_the_run(server: tuple[str, float], tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    base, _ = server
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            alice = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
            bob = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
            bob.goto(base, wait_until="domcontentloaded")  # Bob is in before the run starts
            wait_text(bob, "87 nodes · 90 edges", timeout_s=120)  # the demo is open (built in his first run)

            start_benchmark(alice, base, RUN, 23)
            expect(alice.get_by_role("button", name="Cancel").first).to_be_visible(timeout=TIMEOUT)
            alice.get_by_test_id("stSidebarNav").get_by_role("link", name="Home").click()
            expect(alice.locator(".st-key-egx-jobs-banner")).to_contain_text(
                re.compile(rf"Benchmark “{RUN}” on the server: "), timeout=TIMEOUT)

            bob.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click()
            expect(bob.get_by_role("heading", name="Compare methods")).to_be_visible(timeout=TIMEOUT)
            folded = bob.locator("[data-testid='stExpander']").filter(has_text="1 job of other sessions")
            expect(folded).to_be_visible(timeout=TIMEOUT)
            folded.locator("summary").click()
            expect(folded).to_contain_text("a benchmark · running for", timeout=TIMEOUT)
            bob.screenshot(path=str(tmp_path / "other_session.png"), full_page=True)
            assert RUN not in bob.locator("body").inner_text()
            expect(bob.locator(".st-key-egx-jobs-banner")).to_have_count(0)
            assert not bob.get_by_role("button", name="Cancel").count()  # nothing of Alice's to cancel
        finally:
            browser.close()
