"""Readable drawings at every size, in a real browser.

Every page that draws a graph is opened on the demo workspace (and, marked slow, on the MuSiQue
sample); every drawing on it is screenshotted and asked through vis-network's own API, inside its
iframe, whether it is readable: it was laid out and fitted (``window.egxReady``), every node of the
subgraph lies inside the visible canvas (``network.getPositions()`` → ``canvasToDOM`` against the
canvas size, and each node's bounding box with its label), the legend does not cover the canvas,
and no label is drawn over another node. The FastInsight drawing sits in a tab that is hidden when it is drawn, the three drawings of
the "compare" preset share one row: the two cases that were cropped. Screenshots go under
``tmp_path`` (and to ``$EGX_ARTIFACTS`` when set).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.app.browser_support import app_server, launch_chromium

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120_000
KEANU = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
LOTHAIR = "When did Lothair II's mother die?"

#: Evaluated inside a drawing's iframe: what the viewer sees of the subgraph.
CHECK = """() => {
  const box = document.getElementById('mynetwork');
  if (!box || typeof network === 'undefined' || !network) { return null; }
  const W = box.clientWidth, H = box.clientHeight, tol = 4;
  const pos = network.getPositions();
  const outside = [], clipped = [];
  for (const id in pos) {
    const c = network.canvasToDOM(pos[id]);
    if (!(c.x >= 0 && c.y >= 0 && c.x <= W && c.y <= H)) { outside.push(id); continue; }
    const bb = network.getBoundingBox(id);
    const a = network.canvasToDOM({x: bb.left, y: bb.top}), b = network.canvasToDOM({x: bb.right, y: bb.bottom});
    if (a.x < -tol || a.y < -tol || b.x > W + tol || b.y > H + tol) { clipped.push(id); }
  }
  const r = box.getBoundingClientRect();
  let overlap = false;
  document.querySelectorAll('.egx-legend').forEach(function (leg) {
    const l = leg.getBoundingClientRect();
    if (l.width > 0 && l.height > 0 && l.left < r.right && r.left < l.right && l.top < r.bottom && r.top < l.bottom) {
      overlap = true;
    }
  });
  const shown = nodes.get().filter(function (n) { return typeof n.label === 'string' && n.label.trim(); });
  // a label (other than of a node the step is about) drawn over another node hides its colour and ring
  const must = window.egxMust || [], covering = [], mustCovering = [];
  shown.forEach(function (n) {
    const into = must.indexOf(n.id) >= 0 ? mustCovering : covering;
    const m = network.body.nodes[n.id].labelModule.size, v = (n.font || {}).vadjust || 0, q = (window.egxPlaced || {})[n.id];
    // the box the placement gave it (a label beside its node is padded with spaces towards it), else vis-network's
    // own, whose size leaves vadjust out
    const s = q ? {left: q.l, width: q.r - q.l, height: q.b - q.t, top: q.t}
                : {left: m.left, width: m.width, height: m.height, top: m.top + v};
    for (const id in pos) {
      const r = (nodes.get(Number(id)) || {}).size || 10, p = pos[id], e = 2;  // px of anti-aliasing
      if (Number(id) !== n.id && s.left + e < p.x + r && p.x - r < s.left + s.width - e &&
          s.top + e < p.y + r && p.y - r < s.top + s.height - e) { into.push(n.label + ' over ' + id); break; }
    }
  });
  return {nodes: Object.keys(pos).length, outside: outside, clipped: clipped, width: W, height: H,
          legend_overlaps_canvas: overlap, ready: window.egxReady === true, labelled: shown.length,
          covering: covering, must_covering: mustCovering, must: must.length,
          must_blank: must.filter(function (id) {  // a node the step is about, drawn without its label
            const n = nodes.get(id); return n && pos[id] && !(typeof n.label === 'string' && n.label.trim()); }),
          // a node of the CEG found now (its name in the CEG's red) drawn without its label
          red_blank: nodes.get().filter(function (n) {
            return pos[n.id] && ((n.font || {}).color || '').toLowerCase() === '#e41a1c' &&
                   !(typeof n.label === 'string' && n.label.trim()); }).map(function (n) { return n.id; }),
          red_labelled: nodes.get().filter(function (n) {
            return pos[n.id] && ((n.font || {}).color || '').toLowerCase() === '#e41a1c' &&
                   typeof n.label === 'string' && n.label.trim(); }).length};
}"""


class Drawings:
    """Checks and screenshots every visible drawing of a page; collects what is wrong."""

    def __init__(self, tmp_path: Path) -> None:
        self.dir = tmp_path / "drawings"
        self.dir.mkdir(exist_ok=True)
        self.problems: list[str] = []
        self.seen: dict[str, list[dict[str, Any]]] = {}
        self.shots: list[Path] = []
        #: labels of the nodes a step is about drawn over another node (only where no spot near it is clear)
        self.must_covering: list[str] = []

    def check(self, page: Any, name: str, *, expect: int = 1) -> list[dict[str, Any]]:
        from playwright.sync_api import TimeoutError as PwTimeout
        from playwright.sync_api import expect as pw_expect

        frames = page.locator("iframe")
        pw_expect(frames.nth(expect - 1)).to_be_visible(timeout=TIMEOUT)
        page.wait_for_timeout(1000)  # let the script run settle (Streamlit may replace an iframe once)
        results = []
        for i in range(frames.count()):
            loc = frames.nth(i)
            box = loc.bounding_box()
            frame = loc.element_handle().content_frame()
            if box is None or box["width"] < 2 or frame is None or frame.locator("#mynetwork").count() == 0:
                continue
            try:
                frame.wait_for_function("() => window.egxReady === true", timeout=30_000, polling=200)
            except PwTimeout:  # a drawing that never says it is ready is reported below
                frame.wait_for_timeout(3000)
            got = frame.evaluate(CHECK)
            shot = self.dir / f"{name}_{len(results) + 1}.png"
            loc.screenshot(path=str(shot))
            self.shots.append(shot)
            label = f"{name} drawing {len(results) + 1}"
            if got is None:
                self.problems.append(f"{label}: no vis-network drawing")
                continue
            results.append(got)
            if not got["ready"]:
                self.problems.append(f"{label}: never laid out and fitted (window.egxReady)")
            if got["outside"]:
                self.problems.append(f"{label}: {len(got['outside'])} of {got['nodes']} nodes outside the "
                                     f"{got['width']}×{got['height']} canvas")
            if got["clipped"]:
                self.problems.append(f"{label}: {len(got['clipped'])} nodes cut by the canvas edge")
            if got["legend_overlaps_canvas"]:
                self.problems.append(f"{label}: the legend covers the canvas")
            if got["covering"]:
                self.problems.append(f"{label}: labels drawn over other nodes: {got['covering'][:5]}")
            if got["must_covering"]:  # those of the nodes a step is about too: they look all around for a spot
                self.must_covering.append(f"{label}: {got['must_covering'][:5]}")
                self.problems.append(f"{label}: labels of the step's nodes drawn over other nodes: "
                                     f"{got['must_covering'][:5]}")
        if len(results) < expect:
            self.problems.append(f"{name}: {len(results)} drawings checked, expected {expect}")
        self.seen[name] = results
        full = self.dir / f"{name}_page.png"
        page.screenshot(path=str(full), full_page=True)
        self.shots.append(full)
        return results

    def keep(self) -> None:
        art = os.environ.get("EGX_ARTIFACTS")
        if art:
            Path(art).mkdir(parents=True, exist_ok=True)
            for s in self.shots:
                shutil.copy(s, Path(art) / s.name)


def _ask(page: Any, label: str, question: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(question)
    box.press("Enter")


def _custom_question(page: Any, question: str) -> None:
    """Pick "your own question" in a question picker and type ``question``."""
    from playwright.sync_api import expect

    if page.get_by_label("Your question", exact=True).count() == 0:
        page.get_by_label("Question", exact=False).first.click()
        page.get_by_role("option").last.click()
        expect(page.get_by_label("Your question", exact=True)).to_be_visible(timeout=TIMEOUT)
    _ask(page, "Your question", question)


def _open(page: Any, base: str, path: str, heading: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{base}/{path}", wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name=heading).first).to_be_visible(timeout=TIMEOUT)


def _bubblerag_pages(page: Any, base: str, d: Drawings, prefix: str, question: str | None) -> None:
    from playwright.sync_api import expect

    _open(page, base, "bubble_expansion", "Bubble expansion")
    if question:
        _ask(page, "Question", question)
        page.wait_for_timeout(1500)
    d.check(page, f"{prefix}expansion")
    _open(page, base, "bubble_ranking", "Ranking and reasoning expansion")
    page.get_by_test_id("stButtonGroup").get_by_text("compare", exact=True).click()
    expect(page.get_by_role("heading", name=re.compile(r"CEGs side by side"))).to_be_visible(timeout=TIMEOUT)
    d.check(page, f"{prefix}ranking_compare", expect=3)
    _open(page, base, "bubble_ask", "Ask")
    d.check(page, f"{prefix}ask_evidence")


@pytest.mark.slow  # over a minute on 2 cores
def test_every_drawing_fits_its_frame_with_the_legend_outside(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    d = Drawings(tmp_path)
    with app_server(tmp_path) as (base, _), sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1100})
            # BubbleRAG: the Lothair expansion (61-node G'), then the Keanu question's CEGs and evidence
            _bubblerag_pages(page, base, d, "lothair_", LOTHAIR)
            page.set_viewport_size({"width": 1440, "height": 900})  # a projector's, as the audit's tour
            _open(page, base, "bubble_expansion", "Bubble expansion")
            _ask(page, "Question", KEANU)
            page.wait_for_timeout(1500)
            d.check(page, "keanu_expansion")
            # its first collision: the red CEG's names beside it, over no other node, no red edge, the legend above
            # the fold (an audit read "The Matrix" across a green ring and the legend's second row cut at y≈895)
            page.get_by_role("button", name="Next collision").click()
            page.wait_for_timeout(2500)
            collision = d.check(page, "keanu_collision")
            legend = page.frame_locator("iframe").first.locator(".egx-legend").bounding_box()
            assert legend is not None and legend["y"] + legend["height"] <= 900, legend
            # the CEG's own names always; another name the step is about may go to the hover where no spot near its
            # node reads as its own (an audit read two stacked red names as one label, "The Matrix / Agent Smith")
            assert collision and collision[0]["red_labelled"] >= 2 and not collision[0]["red_blank"], collision
            page.set_viewport_size({"width": 1440, "height": 1100})

            # FastInsight: the candidate subgraph lives in a tab, hidden when it is drawn
            _open(page, base, "granker", "GRanker vs plain reranking")
            page.get_by_role("tab", name="Candidate subgraph (P)").click()
            page.wait_for_timeout(500)
            res = d.check(page, "fastinsight_candidates")
            assert not res or res[0]["nodes"] >= 5, res

            _open(page, base, "subgraph", "Subgraph matching")
            d.check(page, "sgrag", expect=2)

            _open(page, base, "evidence_chains", "Evidence chains")
            expect(page.get_by_text("Kept triples in the graph")).to_be_visible(timeout=TIMEOUT)
            d.check(page, "reg_kept_triples")

            _open(page, base, "data", "Data")
            d.check(page, "data_graph")

            _open(page, base, "compare", "Compare methods")
            expect(page.get_by_text("Evidence subgraphs, overlaid")).to_be_visible(timeout=TIMEOUT)
            d.check(page, "compare_overlay")

            # a narrow window: every drawing is refitted to its smaller frame
            page.set_viewport_size({"width": 900, "height": 900})
            _open(page, base, "bubble_ranking", "Ranking and reasoning expansion")
            page.get_by_test_id("stButtonGroup").get_by_text("compare", exact=True).click()
            expect(page.get_by_role("heading", name=re.compile(r"CEGs side by side"))).to_be_visible(timeout=TIMEOUT)
            d.check(page, "narrow_ranking_compare", expect=3)
        finally:
            browser.close()
            d.keep()
    print("must-labels over other nodes:", len(d.must_covering), d.must_covering)
    assert not d.problems, "\n".join(d.problems) + f"\nscreenshots: {d.dir}"
    # labels only where they matter: the 61-node Lothair G' is not a pile of 61 labels
    lothair = d.seen["lothair_expansion"][0]
    assert lothair["nodes"] > 40 and lothair["labelled"] <= 24, lothair
    # the question's subjects keep their names at step 0 (an audit found "The Matrix" unlabelled there)
    keanu = d.seen["keanu_expansion"][0]
    assert keanu["must"] >= 3 and not keanu["must_blank"], keanu


@pytest.mark.slow
def test_musique_drawings_fit_their_frames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The MuSiQue sample (16k entities): the expansion G' drawn at its cap, the compare preset."""
    from playwright.sync_api import sync_playwright

    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace

    samples = tmp_path / "samples"
    samples.mkdir()
    shutil.copytree(ROOT / "sample_data" / "musique", samples / "musique")
    monkeypatch.setenv("EGX_SAMPLE_DATA", str(samples))
    # built before the server starts (hashing embedder: seconds), so the app opens it at once
    ensure_sample_workspace("musique", get_embedder("hashing"), root=tmp_path / "home" / "workspaces")
    d = Drawings(tmp_path)
    with app_server(tmp_path, EGX_SAMPLE_DATA=str(samples)) as (base, _), sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1100})
            _bubblerag_pages(page, base, d, "musique_", None)
            _open(page, base, "granker", "GRanker vs plain reranking")
            page.get_by_role("tab", name="Candidate subgraph (P)").click()
            d.check(page, "musique_fastinsight_candidates")
        finally:
            browser.close()
            d.keep()
    print("must-labels over other nodes:", len(d.must_covering), d.must_covering)
    assert not d.problems, "\n".join(d.problems) + f"\nscreenshots: {d.dir}"
    exp = d.seen["musique_expansion"][0]
    assert exp["nodes"] > 100 and exp["labelled"] <= 24, exp
