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
    // the node and its label as drawn: a label moved beside its node is padded with spaces on the side towards it,
    // which vis-network's box counts on both sides; the placement's own box is the one seen
    const q = (window.egxPlaced || {})[id], nd = nodes.get(Number(id)) || {}, k = (nd.size || 10) * 1.45, p0 = pos[id];
    const bb = q ? {left: Math.min(p0.x - k, q.l), right: Math.max(p0.x + k, q.r), top: Math.min(p0.y - k, q.t),
                    bottom: Math.max(p0.y + k, q.b)} : network.getBoundingBox(id);
    const a = network.canvasToDOM({x: bb.left, y: bb.top}), b = network.canvasToDOM({x: bb.right, y: bb.bottom});
    if (a.x < -tol || a.y < -tol || b.x > W + tol || b.y > H + tol) { clipped.push(id + ' ' + (nodes.get(Number(id)) || {}).egxLabel + ' ' + [a.x, a.y, b.x, b.y].map(Math.round)); }
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


#: Evaluated inside a collision frame's iframe: what a student reads of it. Every anchor (a diamond) and every name
#: the step is about drawn with its label; a label off its node by more than the rule allows (half a label height past
#: vis-network's own place below it) only at the end of a leader line; the legend's group swatches in colours some
#: node is drawn in (fill or ring); the connected parts' boxes disjoint, and no two nodes of a side part overlapping.
COLLISION = """() => {
  const pos = network.getPositions(), placed = window.egxPlaced || {}, input = window.egxPlaceInput || [[]];
  const must = window.egxMust || [], keep = window.egxKeep || [];
  const named = (n) => n && typeof n.label === 'string' && n.label.trim();
  const all = nodes.get(), byId = {};
  all.forEach(function (n) { byId[n.id] = n; });
  const anchorsBlank = all.filter(function (n) { return pos[n.id] && n.shape === 'diamond' && !named(n); })
                          .map(function (n) { return n.egxLabel; });
  const mustBlank = must.filter(function (id) { return pos[id] && !named(byId[id]); }).map(function (id) { return byId[id].egxLabel; });
  const far = [];
  (input[0] || []).forEach(function (it) {
    const b = placed[it.id];
    if (!b || b.lead) { return; }
    const ex = Math.max(b.l - it.x, 0, it.x - b.r), ey = Math.max(b.t - it.y, 0, it.y - b.b);
    if (Math.sqrt(ex * ex + ey * ey) - it.r > it.h / 2 + it.gap + 1) { far.push(byId[it.id].egxLabel); }
  });
  const hex = function (c) { const d = document.createElement('div'); d.style.color = c; document.body.appendChild(d);
    const v = getComputedStyle(d).color; d.remove(); return v; };
  const drawn = new Set();
  all.forEach(function (n) {
    const c = n.color;
    if (typeof c === 'string') { drawn.add(hex(c)); }
    else if (c) { if (c.background) { drawn.add(hex(c.background)); } if (c.border) { drawn.add(hex(c.border)); } }
  });
  const marks = ['several groups', 'ring: in the queue', 'settled now', 'CEG found now', 'not reached'];
  const legendMissing = [];
  document.querySelectorAll('.egx-legend .egx-item').forEach(function (item) {
    const sw = item.querySelector('.egx-dot'), text = item.textContent.trim();
    // a group said to be on no node now keeps its own colour (expansion.NO_NODE_NOW): another group's colour in its
    // swatch read as four rows of one pink (an audit)
    if (!sw || marks.indexOf(text) >= 0 || text.endsWith('(no node of its own now)')) { return; }
    const c = getComputedStyle(sw).backgroundColor;
    if (!drawn.has(c)) { legendMissing.push(text + ' ' + c); }
  });
  // the connected parts (by the drawn edges) and their boxes, markers included
  const up = {};
  const find = function (x) { while (up[x] !== undefined && up[x] !== x) { x = up[x]; } return x; };
  Object.keys(pos).forEach(function (id) { up[id] = id; });
  edges.get().forEach(function (e) { const a = find(String(e.from)), b = find(String(e.to)); if (a !== b) { up[a] = b; } });
  const parts = {};
  Object.keys(pos).forEach(function (id) { const r = find(id); (parts[r] = parts[r] || []).push(id); });
  const list = Object.values(parts).sort(function (a, b) { return b.length - a.length; });
  const rad = function (id) { const n = byId[Number(id)] || {}; return (n.size || 10) * (n.shape === 'diamond' ? 1.2 : 1); };
  const boxes = list.map(function (ids) {
    let l = Infinity, r = -Infinity, t = Infinity, b = -Infinity;
    ids.forEach(function (id) { const p = pos[id], k = rad(id); l = Math.min(l, p.x - k); r = Math.max(r, p.x + k);
      t = Math.min(t, p.y - k); b = Math.max(b, p.y + k); });
    return {l: l, r: r, t: t, b: b, n: ids.length};
  });
  const meet = [];
  for (let i = 0; i < boxes.length; i++) { for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b) { meet.push([a.n, b.n]); } } }
  const overlaps = [];
  list.slice(1).forEach(function (ids) {
    for (let i = 0; i < ids.length; i++) { for (let j = i + 1; j < ids.length; j++) {
      const p = pos[ids[i]], q = pos[ids[j]];
      if (Math.hypot(p.x - q.x, p.y - q.y) < rad(ids[i]) + rad(ids[j])) { overlaps.push([ids[i], ids[j]]); } } }
  });
  return {anchors_blank: anchorsBlank, must_blank: mustBlank, far_without_leader: far, legend_missing: legendMissing,
          parts: boxes.length, parts_meeting: meet, side_overlaps: overlaps.length,
          anchors: all.filter(function (n) { return pos[n.id] && n.shape === 'diamond'; }).length};
}"""


def _collision(page: Any, d: Drawings, name: str, question: str) -> dict[str, Any]:
    """The question's first collision frame on the expansion page, checked like every drawing and by COLLISION."""
    box = page.get_by_label("Question", exact=True)
    box.fill(question)
    box.press("Enter")
    page.wait_for_timeout(1500)
    page.get_by_role("button", name="Next collision").click()
    page.wait_for_timeout(2500)
    d.check(page, name)
    frame = page.locator("iframe").first.element_handle().content_frame()
    frame.wait_for_function("() => window.egxReady === true", timeout=30_000, polling=200)
    got = frame.evaluate(COLLISION)
    print(name, got)
    return got


def _assert_collision(got: dict[str, Any]) -> None:
    assert not got["must_blank"], got  # every name the step is about: "Laurence Fishburne" had none
    # every anchor named where the frame has room: at most one in ten left to the hover in the densest core
    assert len(got["anchors_blank"]) <= 0.1 * got["anchors"], got
    assert not got["far_without_leader"], got  # "Boyz n the Hood" floated above two diamonds with no line
    assert not got["legend_missing"], got  # a yellow "The Matrix" swatch and no yellow node
    from components.bubblerag.expansion import NO_NODE_NOW

    assert NO_NODE_NOW == "no node of its own now"  # the words the check above leaves to their own colour
    assert not got["parts_meeting"] and not got["side_overlaps"], got  # Lothair's 40 grey nodes piled on an anchor


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
                self.problems.append(f"{label}: {len(got['clipped'])} nodes cut by the canvas edge: {got['clipped'][:5]}")
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
    _open(page, base, "bubble_ranking", "Ranking and reasoning")
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
            # every anchor named (a leader line where needed), the legend's colours drawn, the side parts apart: the
            # Keanu and Lothair collisions of the tour (steps 2 and 10)
            frame = page.locator("iframe").first.element_handle().content_frame()
            _assert_collision(frame.evaluate(COLLISION))
            _assert_collision(_collision(page, d, "lothair_collision", LOTHAIR))
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
            _open(page, base, "bubble_ranking", "Ranking and reasoning")
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
