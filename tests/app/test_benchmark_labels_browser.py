"""The Benchmark page at 1440 × 900 in a real browser (headless Debian chromium via Playwright): no widget label or
chosen value is cut with an ellipsis, on the Run tab or in a loaded report's per-question filters (an audit read
"Retrieval los…" beside "Failures only"). Uses the ``server`` fixture of tests/app/conftest.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.browser_support import launch_chromium
from tests.app.test_triage_browser import _prepare_run

pytestmark = pytest.mark.browser
TIMEOUT = 120_000

#: The visible texts of the page's main column that the browser cut: with an ellipsis (text wider than its box), or
#: clipped by a box that hides its overflow, or an input's value wider than the input (a select's chosen value read
#: "own — each method's own pape").
CUT = """() => {
  const cut = [];
  for (const e of document.querySelectorAll('[data-testid="stMain"] *')) {
    if (e.offsetParent === null) continue;
    const s = getComputedStyle(e);
    if (s.textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1 && e.textContent.trim()) {
      cut.push(e.textContent.trim()); continue;
    }
    for (const n of e.childNodes) {
      if (n.nodeType !== 3 || !n.textContent.trim()) continue;
      const r = document.createRange(); r.selectNodeContents(n);
      const right = r.getBoundingClientRect().right;
      for (let a = e; a && a !== document.body; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if ((o === 'hidden' || o === 'clip') && right > a.getBoundingClientRect().right + 1) {
          cut.push(e.textContent.trim()); break;
        }
      }
    }
  }
  const ctx = document.createElement('canvas').getContext('2d');  // a select shows its chosen value in an input
  for (const e of document.querySelectorAll('[data-testid="stMain"] input')) {
    if (e.offsetParent === null || !e.value || !['text', 'search'].includes(e.type)) continue;
    const s = getComputedStyle(e);
    ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
    const room = e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    if (ctx.measureText(e.value).width > room + 1) cut.push(e.value);
  }
  return [...new Set(cut)];
}"""


def test_no_label_or_chosen_value_of_the_benchmark_page_is_cut_at_1440_px(server: tuple[str, float],
                                                                          tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    base, _ = server
    _prepare_run(tmp_path / "home" / "runs")  # the server's $EGX_HOME/runs
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(f"{base}/benchmark", wait_until="domcontentloaded")
            expect(page.get_by_role("heading", name="Benchmark")).to_be_visible(timeout=TIMEOUT)
            expect(page.get_by_text("Run name")).to_be_visible(timeout=TIMEOUT)
            expect(page.get_by_text("Estimate:")).to_be_visible(timeout=TIMEOUT)  # the Run tab drawn whole
            run_tab = page.evaluate(CUT)
            page.locator('[data-testid="stSelectbox"]').filter(has_text="Budget").locator("input").click()
            # the longest preset, chosen
            page.get_by_role("option", name="reg — ReG App. E: top-100 triples (≈ 1,300 tokens)").click()
            expect(page.get_by_text("Run name")).to_be_visible(timeout=TIMEOUT)
            page.wait_for_timeout(1500)
            run_tab += page.evaluate(CUT)
            page.screenshot(path="/tmp/bench13_runtab.png")
            page.get_by_role("tab", name="Load a report").click()
            page.get_by_role("button", name="Load", exact=True).click()
            expect(page.get_by_text("Failures only")).to_be_visible(timeout=TIMEOUT)
            expect(page.get_by_text("Losses only")).to_be_visible(timeout=TIMEOUT)
            page.get_by_text("Failures only").scroll_into_view_if_needed()
            report = page.evaluate(CUT)
            page.screenshot(path=str(tmp_path / "benchmark_labels.png"))
        finally:
            browser.close()
    assert run_tab == [], run_tab
    assert report == [], report
