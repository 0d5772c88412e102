"""Graph labels are user data: on every page, in a real browser, a workspace whose
names, relations, titles, passages and questions carry HTML, script, Markdown links, bare URLs and
e-mail addresses must open no dialog, inject no element and turn nothing into a link.

The hostile workspace is served as the ``demo`` sample (``EGX_SAMPLE_DATA``), so every page opens
it by default.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app.browser_support import app_server, launch_chromium

pytestmark = pytest.mark.browser

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(2)</script>"
LINK = "[click me](javascript:alert(3))"
URL = "https://evil.example/phish"
MAIL = "boss@evil.example"
WWW = "www.evil.example"

PAGES = ["", "data", "bubble_anchors", "bubble_expansion", "bubble_ranking", "bubble_ask", "granker", "subgraph",
         "evidence_chains", "compare", "benchmark"]


def hostile_sample(root: Path) -> Path:
    d = root / "demo"
    d.mkdir(parents=True)
    corpus = [{"id": "c1", "title": f"{SCRIPT} Matrix", "text": f"The Matrix stars {IMG} and {URL}. Mail {MAIL}."},
              {"id": "c2", "title": f"{WWW} notes", "text": f"See {WWW} and {LINK} about Keanu Reeves."}]
    triples = [("The Matrix", "starring", IMG), (IMG, LINK, "Keanu Reeves"), ("Keanu Reeves", "acted in", URL),
               (URL, "contact", MAIL), (MAIL, "links to", WWW), (f"{SCRIPT} film", "sequel of", "The Matrix")]
    (d / "corpus.json").write_text(json.dumps(corpus))
    (d / "triples.json").write_text(json.dumps([[h, r, t, "c1"] for h, r, t in triples]))
    questions = [{"id": "q1", "question": f"Who starred in The Matrix with {IMG}? {URL}",
                  "answer": IMG, "supporting_facts": [[f"{SCRIPT} Matrix", 0]]}]
    (d / "questions.json").write_text(json.dumps(questions))
    (d / "workspace.json").write_text(json.dumps({"name": "demo", "title": f"Hostile {IMG}",
                                                  "description": f"{SCRIPT} {LINK} {URL} {MAIL}",
                                                  "inputs": ["corpus.json", "triples.json"],
                                                  "questions": "questions.json", "attribution": URL}))
    return root


def test_no_page_runs_or_links_user_data(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    samples = hostile_sample(tmp_path / "samples")
    problems: list[str] = []
    with app_server(tmp_path, EGX_SAMPLE_DATA=str(samples)) as (base, _), sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            dialogs: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            for path in PAGES:
                page.goto(f"{base}/{path}", wait_until="domcontentloaded")
                page.locator("h1").first.wait_for(timeout=120_000)
                page.wait_for_timeout(1500)
                page.locator("[data-testid=stStatusWidget]").wait_for(state="hidden", timeout=120_000)
                page.wait_for_timeout(1000)
                for frame in page.frames:
                    n_img = frame.locator("img[src='x']").count()
                    n_script = frame.locator("script", has_text="alert(2)").count()
                    hrefs = [a.get_attribute("href") or "" for a in frame.locator("a").all()]
                    bad = [h for h in hrefs if "evil.example" in h or h.lower().startswith("javascript:")]
                    if n_img or n_script or bad:
                        problems.append(f"/{path} frame {frame.url[:40]}: img={n_img} script={n_script} links={bad}")
                body = page.locator("body").inner_text()
                if "Traceback" in body:
                    problems.append(f"/{path}: a traceback is shown")
                if "evil.example" not in body and path in ("data", "bubble_ask"):
                    problems.append(f"/{path}: the hostile text is not shown at all (test is not testing)")
            if dialogs:
                problems.append(f"dialogs opened: {dialogs}")
        finally:
            browser.close()
    assert problems == [], "\n".join(problems)
