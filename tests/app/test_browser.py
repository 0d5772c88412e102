"""The app in a real browser: headless Debian chromium driven by Playwright.

Starts ``streamlit run app.py`` on a free port with an isolated ``EGX_HOME`` and the hashing
embedder, opens the Data page and waits until vis-network has drawn the demo graph on its canvas
inside the iframe. A screenshot is saved under the test's ``tmp_path`` (and copied to
``$EGX_ARTIFACTS`` when set) so a person can look at what the browser saw.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from pathlib import Path

import pytest

from tests.app.browser_support import download, launch_chromium, wait_text

pytestmark = pytest.mark.browser


def test_data_page_draws_the_demo_graph(server: tuple[str, float], tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    base, started = server
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1300})
            page.goto(f"{base}/data", wait_until="domcontentloaded")
            frame = page.frame_locator("iframe").first
            # vis-network draws into a <canvas> inside #mynetwork once the data are loaded.
            expect(frame.locator("#mynetwork canvas")).to_be_visible(timeout=120_000)
            first_render = time.monotonic() - started
            expect(page.get_by_role("heading", name="Data")).to_be_visible()
            expect(page.get_by_text("Bi-encoder stand-in", exact=False).filter(visible=True).first).to_be_visible()
            srcdoc = page.locator("iframe").first.get_attribute("srcdoc") or ""
            assert "Keanu Reeves" in srcdoc
            page.wait_for_timeout(2500)  # let the physics settle for a readable screenshot
            shot = tmp_path / "data_page.png"
            page.screenshot(path=str(shot), full_page=True)
            # Export: the deferred download really produces the egx JSON of the graph.
            page.get_by_role("tab", name="Export").click()
            try:
                got = download(page, "Download egx JSON")  # retried: a click during the tab's rerun is lost
            except Exception as err:  # the server's own account of the click (CI showed only Playwright's timeout)
                log = (tmp_path / "streamlit.log").read_text(encoding="utf-8", errors="replace")
                raise AssertionError(f"no download; the server's log ends:\n{log[-4000:]}") from err
            exported = json.loads(Path(got.path()).read_text(encoding="utf-8"))
            filename = got.suggested_filename
            build_once(page, tmp_path)
        finally:
            browser.close()
    assert shot.stat().st_size > 10_000
    assert exported["format"] == "egx-graph" and filename == "demo.egx.json"
    assert "Keanu Reeves" in {n["name"] for n in exported["nodes"]}
    artifacts = os.environ.get("EGX_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(artifacts) / "data_page.png")
    print(f"cold start to graph canvas visible: {first_render:.1f} s")


def build_once(page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Three files and a questions file, a typed name, ONE click on Build: the build starts (an audit's first
    click did nothing visible for 6 s, not even a job in the sidebar, and a second click ran it), and Statistics
    then keeps how many passages each file became (the build's message is gone by then)."""
    from playwright.sync_api import expect

    notes = tmp_path / "notes.txt"
    notes.write_text("\n\n".join(f"Paragraph {i}: Alice met Bob in Paris." for i in range(4)), encoding="utf-8")
    (tmp_path / "more.md").write_text("# A\nAlice works at Acme.\n\n# B\nBob lives in Rome.\n", encoding="utf-8")
    # enough passages that the build outlasts the click's run: the sidebar lists the job while it runs (it
    # listed none for the first 8 s, the page's wait for the job, and the audit clicked again)
    run = uuid.uuid4().hex[:8]  # new texts: no cache of an earlier run answers for them
    (tmp_path / "c.json").write_text(json.dumps([{"title": f"T{i}", "text": f"Erin {run} visited Oslo {i} times."}
                                                 for i in range(6000)]), encoding="utf-8")
    (tmp_path / "qs.json").write_text(json.dumps([{"question": "Where did Alice meet Bob?", "answer": "Paris",
                                                   "supporting_facts": [["T1", 0]]}]), encoding="utf-8")
    page.get_by_role("tab", name="Upload").click()
    page.locator("input[type=file][multiple][accept*=graphml]").set_input_files(
        [str(notes), str(tmp_path / "more.md"), str(tmp_path / "c.json")])
    expect(page.get_by_text("c.json").first).to_be_visible(timeout=30_000)
    # The corpus upload reruns the page (reading 6,000 passages); a file set on the questions box during that
    # rerun can be dropped with the box it was set on (a loaded CI machine did). Set it once the page is idle,
    # and again if it still did not take.
    # Under the full suite's load (another worker running the local LLM) the file's chip took longer than 20 s, three
    # times running: wait up to a minute for it, four times.
    for attempt in range(4):
        wait_text(page, "c.json", settled=True, timeout_s=120)
        page.locator("input[type=file]:not([multiple])").first.set_input_files(str(tmp_path / "qs.json"))
        try:
            expect(page.get_by_text("qs.json").first).to_be_visible(timeout=60_000)
            break
        except AssertionError:
            if attempt == 3:
                raise
    box = page.get_by_role("textbox", name="Workspace name")
    box.click()
    box.type("clicked-once")  # the focus stays in the box: the click on Build also commits the name
    page.get_by_role("button", name="Build workspace").click()
    sidebar = page.locator("section[data-testid='stSidebar']")
    expect(sidebar.get_by_text("clicked-once", exact=False).first).to_be_visible(timeout=6_000)
    expect(page.get_by_text("Built workspace “clicked-once”", exact=False)).to_be_visible(timeout=300_000)
    expect(page.get_by_text("Passages per file: notes.txt 1, more.md 1, c.json 6,000.", exact=False).first
           ).to_be_visible()
    page.get_by_role("tab", name="Export").click()
    page.get_by_role("tab", name="Statistics").click()
    expect(page.get_by_text("Files and their passages")).to_be_visible(timeout=30_000)
    assert not page.get_by_text("Already building").count()


def test_an_unknown_page_in_the_url_is_said_above_the_page_shown_instead(server: tuple[str, float]) -> None:
    """Audits 40 and 41 opened /nosuchpage and read Home with no word that the link named no page (an unknown workspace
    in a link is said)."""
    from playwright.sync_api import expect, sync_playwright

    base, _ = server
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(f"{base}/nosuchpage", wait_until="domcontentloaded")
            note = page.locator("[data-testid='stMain']").get_by_text("There is no page “nosuchpage” (the link names it)")
            expect(note).to_be_visible(timeout=120_000)
            page.goto(f"{base}/compare", wait_until="domcontentloaded")  # a page that exists: nothing said
            expect(page.get_by_role("heading", name="Compare methods")).to_be_visible(timeout=120_000)
            expect(page.get_by_text("There is no page")).to_have_count(0)
        finally:
            browser.close()
