"""The Evaluate pages in a real browser (headless Debian chromium via Playwright): run a
3-question benchmark from the Benchmark page, watch it finish, see the charts, then open one
question's comparison. Uses the ``server`` fixture of tests/app/conftest.py (demo workspace,
hashing embedder, no LLM). Screenshots go under ``tmp_path`` (and ``$EGX_ARTIFACTS`` when set).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.app.browser_support import launch_chromium, start_benchmark

pytestmark = pytest.mark.browser
TIMEOUT = 120_000


def test_run_benchmark_then_open_a_comparison(server: tuple[str, float], tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    base, _ = server
    out = tmp_path / "home" / "runs" / "bench-out"  # the server's $EGX_HOME/runs/<run name>
    shots: list[Path] = []
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1400})
            start_benchmark(page, base, out.name, 3)
            expect(page.get_by_text(re.compile(r"runs now, 0 already done"))).to_be_visible(timeout=TIMEOUT)
            # recall and latency with error bars, the failure stages, and the paired differences of the best two
            expect(page.locator(".js-plotly-plot")).to_have_count(4, timeout=TIMEOUT)
            expect(page.get_by_role("heading", name="Which differences are real")).to_be_visible(timeout=TIMEOUT)
            expect(page.get_by_text(re.compile(r"on 3 questions: too few questions to tell")).first).to_be_visible(
                timeout=TIMEOUT)
            assert len((out / "results.jsonl").read_text().splitlines()) % 3 == 0
            page.wait_for_timeout(800)
            path = tmp_path / "evaluate_1_benchmark.png"
            page.screenshot(path=str(path), full_page=True)
            shots.append(path)

            page.get_by_role("button", name="Open in comparison").click()
            expect(page.get_by_role("heading", name="Compare methods")).to_be_visible(timeout=TIMEOUT)
            expect(page.get_by_role("heading", name="Side by side")).to_be_visible(timeout=TIMEOUT)
            expect(page.frame_locator("iframe").first.locator("#mynetwork canvas")).to_be_visible(timeout=TIMEOUT)
            expect(page.get_by_role("button", name=re.compile("Step through"))).not_to_have_count(0, timeout=TIMEOUT)
            page.wait_for_timeout(800)
            path = tmp_path / "evaluate_2_compare.png"
            page.screenshot(path=str(path), full_page=True)
            shots.append(path)
        finally:
            browser.close()
    art = os.environ.get("EGX_ARTIFACTS")
    if art:
        Path(art).mkdir(parents=True, exist_ok=True)
        for s in shots:
            shutil.copy(s, Path(art) / s.name)
