"""The numbers that matter, in a real browser at 1280×800: the key columns of the GRanker, ranking and Compare
tables are inside the visible area without horizontal scrolling. Screenshots are saved under the
test's ``tmp_path`` (and copied to ``$EGX_ARTIFACTS`` when set) for a person to look at."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.app.browser_support import launch_chromium, page_server

pytestmark = pytest.mark.browser

VIEW = {"width": 1280, "height": 800}


#: Streamlit's named column widths in pixels (st.column_config docs: small 75, medium 200, large 400).
NAMED = {"small": 75, "medium": 200, "large": 400}


def _configured_widths(page_file: str) -> dict[str, int]:
    """Column → width in px as the page configures it (the same objects the page passes to st.dataframe)."""
    if page_file == "pages/compare.py":
        from components.compare_view import summary_columns

        cfg = summary_columns()  # the least widths: a long verdict widens its column (summary_layout)
    else:  # the ranking page's panels live in its UI module, importable without running the page
        from components.bubblerag.ranking import ranking_columns

        cfg = ranking_columns()
    return {k: (NAMED[v["width"]] if isinstance(v["width"], str) else int(v["width"])) for k, v in cfg.items()}


def _headers(grid) -> list[str]:
    """The column headers in the order the browser's grid shows them (glide-data-grid's accessible table)."""
    return [(th.text_content() or "").strip() for th in grid.locator("th[role='columnheader']").all()]


def _shot(page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=False)
    if os.environ.get("EGX_ARTIFACTS"):
        Path(os.environ["EGX_ARTIFACTS"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(os.environ["EGX_ARTIFACTS"]) / name)
    return path


@pytest.mark.parametrize("page_file,table_key,columns,shot", [
    ("pages/compare.py", "R@5", ("method", "verdict", "EM", "F1", "R@5"), "compare-1280.png"),
    ("pages/bubble_ranking.py", "Cost_sem", ("CEG", "rank", "Score", "Cost_sem", "r_miss", "top-n"), "ranking-1280.png"),
    ("pages/granker.py", None, (), "granker-1280.png"),
])
def test_key_columns_fit_a_1280_window(tmp_path: Path, page_file: str, table_key: str | None,
                                       columns: tuple[str, ...], shot: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with page_server(tmp_path, page_file) as base, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport=VIEW)
            page.goto(base, wait_until="domcontentloaded")
            expect(page.locator("[data-testid='stDataFrame'], [data-testid='stTable']").first).to_be_visible(
                timeout=180_000)
            page.wait_for_timeout(1500)  # let the grid lay out its columns
            _shot(page, tmp_path, shot)
            assert page.evaluate("document.documentElement.scrollWidth") <= VIEW["width"]
            if table_key is None:
                return
            grids = page.locator("[data-testid='stDataFrame']")
            grid = next(grids.nth(i) for i in range(grids.count()) if table_key in _headers(grids.nth(i)))
            grid.scroll_into_view_if_needed()
            box = grid.bounding_box()
            assert box is not None and box["x"] + box["width"] <= VIEW["width"]
            # Compare's verdict header names the depth it was judged at ("verdict (top 5)"): the column is "verdict"
            order = [re.sub(r"^verdict \(top \d+\)$", "verdict", h) for h in _headers(grid)]
            widths = _configured_widths(page_file)
            assert order[:len(columns)] == list(columns), order
            # every key column ends inside the grid as the browser laid it out: no horizontal scrolling to see it
            right = sum(widths[c] for c in order[:len(columns)])
            assert right <= box["width"], (right, box["width"], order)
            _shot(page, tmp_path, "table-" + shot)
        finally:
            browser.close()
