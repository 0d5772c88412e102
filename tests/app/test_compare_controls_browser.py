"""Compare's controls in a real browser at a projector's 1440×900: every label on one line and whole (the cut's
label once wrapped as "top-/k"), the eight methods' chips all inside their box, and the Budget box showing its
chosen preset whole — the default and the longest — instead of cutting it off."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.methods.budget import BUDGETS, COMPARISON_DEFAULT
from tests.app.browser_support import launch_chromium, page_server

pytestmark = pytest.mark.browser

VIEW = {"width": 1440, "height": 900}
TIMEOUT = 180_000
LABELS = ("Methods", "Budget", "Diagnosis top-k")

#: Per control label: its text, whether it is cut (scrollWidth over clientWidth) and its height against one line.
_LABELS_JS = """(names) => [...document.querySelectorAll('[data-testid="stWidgetLabel"]')]
  .filter(l => names.includes(l.innerText.trim()))
  .map(l => { const p = l.querySelector('p') || l; const cs = getComputedStyle(p);
              return {text: l.innerText.trim(), cut: p.scrollWidth > p.clientWidth,
                      lines: p.getBoundingClientRect().height / parseFloat(cs.lineHeight)}; })"""

#: The chips of the Methods box: their text, whether each ends inside the box and whether its text is cut.
_CHIPS_JS = """() => { const box = [...document.querySelectorAll('[data-testid="stMultiSelect"]')]
    .find(e => e.innerText.includes('Methods')).querySelector('[data-testid="stMultiSelectTagsContainer"]');
  const right = box.getBoundingClientRect().right;
  return [...box.querySelectorAll('[data-tag]')].map(t => { const s = t.querySelector('span[title]');
    return {text: s.innerText.trim(), inside: t.getBoundingClientRect().right <= right + 0.5,
            cut: s.scrollWidth > s.clientWidth}; }); }"""

#: The Budget box (a text input showing the chosen preset): its value and whether the value's text, measured in
#: the box's own font, is wider than the room inside the box.
_BUDGET_JS = """() => { const box = document.querySelector('input[aria-label="Budget"]'); const cs = getComputedStyle(box);
  const ctx = document.createElement('canvas').getContext('2d'); ctx.font = cs.font;
  const room = box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  return {value: box.value, text: ctx.measureText(box.value).width, room: room,
          cut: box.scrollWidth > box.clientWidth || ctx.measureText(box.value).width > room}; }"""


def _budget_label(name: str) -> str:
    """A preset as the Budget box shows it."""
    return f"{name} — {BUDGETS[name].label}"


def test_compare_controls_fit_a_1440_window(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    longest = max(BUDGETS, key=lambda n: len(_budget_label(n)))
    with page_server(tmp_path, "pages/compare.py") as base, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport=VIEW)
            page.goto(base, wait_until="domcontentloaded")
            expect(page.get_by_text("Diagnosis top-k", exact=True)).to_be_visible(timeout=TIMEOUT)
            page.wait_for_timeout(1000)
            labels = page.evaluate(_LABELS_JS, list(LABELS))
            assert sorted(lb["text"] for lb in labels) == sorted(LABELS), labels
            assert all(not lb["cut"] and lb["lines"] < 1.5 for lb in labels), labels
            chips = page.evaluate(_CHIPS_JS)
            assert len(chips) == 8 and all(c["inside"] and not c["cut"] for c in chips), chips
            for name in (COMPARISON_DEFAULT, "own", longest):  # the page opens at the comparison default
                box = page.locator("input[aria-label='Budget']")
                if name != COMPARISON_DEFAULT:
                    box.click()
                    page.get_by_role("option", name=_budget_label(name)).click()
                    expect(box).to_have_value(_budget_label(name), timeout=TIMEOUT)
                    page.wait_for_timeout(1000)
                shown = page.evaluate(_BUDGET_JS)
                page.screenshot(path=str(tmp_path / f"compare-controls-{name}.png"))
                assert shown["value"] == _budget_label(name) and not shown["cut"], (name, shown)
        finally:
            browser.close()
