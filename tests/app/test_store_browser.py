"""A graph store in a real browser (headless Debian chromium via Playwright): a workspace whose graph lives in
FalkorDB, picked in the sidebar of a real ``streamlit run`` server. The sidebar names the store, the Ask
page answers the Keanu Reeves question and draws its evidence graph from the store, and the Data page
searches the store and draws a neighbourhood. The server process reads the store over loopback like
any user's app would; ``tests/app/test_store_pages.py`` checks that no page reads the whole graph.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.backends.registry import get_embedder
from tests.app.browser_support import app_server, launch_chromium
from tests.methods.store_helpers import user_store_workspace

pytestmark = pytest.mark.browser

QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
TIMEOUT = 90_000


def test_a_falkordb_workspace_in_the_browser(tmp_path: Path, falkordb_server) -> None:
    from playwright.sync_api import expect, sync_playwright

    ws = user_store_workspace(tmp_path / "home", falkordb_server, "browser_store", get_embedder("hashing"))
    with app_server(tmp_path) as (base, _), sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            page.goto(f"{base}/bubble_ask", wait_until="domcontentloaded")
            expect(page.get_by_role("heading", name="Ask")).to_be_visible(timeout=TIMEOUT)
            sidebar = page.locator("section[data-testid='stSidebar']")
            sidebar.locator("[data-testid='stSelectbox']").first.click()
            page.get_by_role("option", name=re.compile("Stored demo")).click()
            expect(sidebar.get_by_text(f"graph store: FalkorDB {ws.store_url}", exact=False).filter(visible=True).first
                   ).to_be_visible(timeout=TIMEOUT)
            box = page.get_by_label("Question", exact=True)
            box.fill(QUESTION)
            box.press("Enter")
            expect(page.get_by_text("Answer", exact=True).filter(visible=True).first).to_be_visible(timeout=TIMEOUT)
            frame = page.frame_locator("iframe").first
            expect(frame.locator("#mynetwork canvas")).to_be_visible(timeout=TIMEOUT)
            srcdoc = page.locator("iframe").first.get_attribute("srcdoc") or ""
            assert "Keanu Reeves" in srcdoc and "Laurence Fishburne" in srcdoc
            page.screenshot(path=str(tmp_path / "store_ask.png"), full_page=True)

            page.get_by_role("link", name="Data").first.click()
            expect(page.get_by_role("heading", name="Data")).to_be_visible(timeout=TIMEOUT)
            expect(page.get_by_text("lives in a graph store", exact=False).filter(visible=True).first
                   ).to_be_visible(timeout=TIMEOUT)
            search = page.get_by_label("Search nodes by name", exact=True)
            search.fill("fishburne")
            search.press("Enter")
            expect(page.get_by_role("heading", name="Node: Laurence Fishburne")).to_be_visible(timeout=TIMEOUT)
            expect(page.frame_locator("iframe").first.locator("#mynetwork canvas")).to_be_visible(timeout=TIMEOUT)
            page.screenshot(path=str(tmp_path / "store_data.png"), full_page=True)
        finally:
            browser.close()
    assert (tmp_path / "store_ask.png").stat().st_size > 10_000
