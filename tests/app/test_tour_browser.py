"""The guided demo in a real browser (headless Debian chromium via Playwright): started from Home, Next
opens every step's page — anchor grouping, bubble expansion, ranking, Ask, Compare, for the Keanu Reeves
question and then the Lothair II question, then Compare on a question the recorded model answers — each with
its heading and its step, the title near the top and the step's stage above the fold of a 1440×900 projector
(the one-line bar; most of the expansion drawing), Next in reach on a page scrolled down (the bar sticks), no
control scrolled to under the bar, and the lesson above Ask's answer (whole above a 1280×720 projector's fold) and
at the top of Compare; the expansion drawing marks the anchors; Finish returns Home with the person's own choices.
The server starts on the hashing embedder and no LLM: the tour itself switches to the demo, the recorded LLM and the recording's models."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from components import tour
from tests.app.browser_support import launch_chromium

pytestmark = [pytest.mark.browser, pytest.mark.model, pytest.mark.slow]

HEADINGS = {"pages/bubble_anchors.py": "Anchor grouping", "pages/bubble_expansion.py": "Bubble expansion",
            "pages/bubble_ranking.py": "Ranking and reasoning", "pages/bubble_ask.py": "Ask",
            "pages/compare.py": "Compare methods", "pages/granker.py": "GRanker vs plain reranking",
            "pages/subgraph.py": "Subgraph matching", "pages/evidence_chains.py": "Evidence chains",
            "pages/hipporag2.py": "HippoRAG 2"}
#: What a page says of a question the recorded LLM holds no run of (never on a step of the tour); the sidebar's
#: description of the recorded LLM, outside the main area, says "not recorded" too.
UNRECORDED = re.compile(r"This question is not recorded|Not recorded:|question/stage was not recorded|LLM call failed")
PICKER_PAGES = ("pages/granker.py", "pages/subgraph.py", "pages/evidence_chains.py", "pages/hipporag2.py")
TIMEOUT = 180_000
FOLD = 900  #: a projector's 1440×900: each step's stage must start above it
#: The pages whose question and settings the tour folds (tour.settings_box), so that what the Look-at line names comes
#: up to the lesson: an audit found GRanker's rankings at y≈840, SG-RAG's query graph at 680, ReG's triples at 860.
SETTINGS_FOLDED = ("pages/bubble_expansion.py", "pages/granker.py", "pages/subgraph.py", "pages/evidence_chains.py",
                   "pages/hipporag2.py")
MAIN_SHOWN = 300  #: on those pages, the pixels under the main element's top above the fold, at least
DRAWING_SHOWN = 300  #: the expansion drawing's pixels above the fold, at least (its top was at y ≈ 870)
TITLE_TOP = 60  #: the most pixels above a page title's box (Streamlit's padding left a 115-px band)
BAR_HEIGHT = 60  #: the most pixels the one-line bar may take (two lines of title made it 64)
CANVAS_TOP = 460  #: the expansion drawing's canvas starts above this (it was at y ≈ 640, under a 4-row legend; at
#: y ≈ 483 under its legend of 17-px rows, its bottom under the fold; y ≈ 441 with the step's smaller page title)
#: the expansion canvas's least height: as tall as its layout needs at its width (bubblerag.expansion.replay_height)
CANVAS_LEAST = 360

#: The step's "Look at" line under the bar: its box, the bar's bottom, whether it is cut, its height in lines.
_LOOK_JS = """() => { const look = document.querySelector('.egx-tour-look');
  if (!look) return null; const r = look.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, text: look.innerText, tooltip: look.title,
          cut: look.scrollHeight > look.clientHeight + 1 || look.scrollWidth > look.clientWidth + 1,
          lines: r.height / parseFloat(getComputedStyle(look).lineHeight),
          barBottom: document.querySelector('.st-key-egx-tour-bar').getBoundingClientRect().bottom}; }"""

#: The bar as laid out: its height, its title (text, tooltip, cut or not, height in lines) and every button's and
#: toggle's label cut or not (one with a label, not the popover's hidden copy). A label is cut where its text, as wide
#: as it lays out, runs past an ancestor that clips it: its own element keeps its width while a button's box around
#: it clips it to "M…" (the check of the label's own scroll width passed a bar that showed "M…" and "L…").
_BAR_JS = """() => { const bar = document.querySelector('.st-key-egx-tour-bar');
  const title = bar.querySelector('.egx-tour-title');
  const lines = e => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight);
  const cut = e => { const r = document.createRange(); r.selectNodeContents(e); const right = r.getBoundingClientRect().right;
    for (let a = e; a && a !== bar; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible' && right > a.getBoundingClientRect().right + 1) return true; }
    return false; };
  return {height: bar.getBoundingClientRect().height, title: title.innerText, tooltip: title.title,
          titleCut: title.scrollWidth > title.clientWidth || cut(title), titleLines: lines(title),
          buttons: [...bar.querySelectorAll('button p, label p')].filter(p => p.offsetParent && p.innerText.trim())
                   .map(p => ({text: p.innerText.trim(), cut: cut(p), lines: lines(p)}))}; }"""


def _check_bar(page, i: int, step: tour.TourStep) -> None:  # type: ignore[no-untyped-def]
    """The bar of step ``i`` is one line at 1440×900: its title whole (the page's name in its tooltip), every button
    label whole, Next among them, and the bar no taller than :data:`BAR_HEIGHT`."""
    from playwright.sync_api import expect

    bar = page.locator(".st-key-egx-tour-bar")
    for label in ("More", tour.PROJECTOR_LABEL, "Leave"):  # drawn a moment after the title, under load
        expect(bar.get_by_text(label, exact=True).first).to_be_visible(timeout=TIMEOUT)
    got = page.evaluate(_BAR_JS)
    n = len(tour.STEPS)
    assert got["title"].startswith(f"Guided demo · step {i + 1} of {n} · "), got
    assert got["tooltip"] == f"Guided demo · step {i + 1} of {n}: {tour.step_label(i)}", got
    assert not got["titleCut"] and got["titleLines"] < 1.5, got
    print(f"step {i + 1} buttons: {[(b['text'], b['cut']) for b in got['buttons']]}")
    assert all(not b["cut"] and b["lines"] < 1.5 for b in got["buttons"]), got
    assert any(b["text"].startswith("Next: " if i < n - 1 else "Finish") for b in got["buttons"]), got
    assert {"More", tour.PROJECTOR_LABEL, "Leave"} <= {b["text"] for b in got["buttons"]}, got
    assert got["height"] <= BAR_HEIGHT, (i, step.page, got)


#: Every control of the page (not the bar's) scrolled into view, top first, as the keyboard's focus or a link would
#: scroll it: the ones that end under the sticky bar (the main area's scroll padding reserves the bar's height).
_UNDER_BAR_JS = """() => { const bar = document.querySelector('.st-key-egx-tour-bar'); const under = [];
  const main = document.querySelector('[data-testid=stMain]'); const top = main.scrollTop; let n = 0;
  for (const e of main.querySelectorAll('button, input, [role=slider]')) {
    if (bar.contains(e) || !e.offsetParent) continue; n++;
    e.scrollIntoView({block: 'start', behavior: 'instant'});
    if (e.getBoundingClientRect().top < bar.getBoundingClientRect().bottom)
      under.push(e.innerText || e.getAttribute('aria-label') || e.tagName); }
  main.scrollTop = top; return {n, under}; }"""


def _main(page, step: tour.TourStep):  # type: ignore[no-untyped-def]
    """The element a step is about: the stage the anchor page opens on, the expansion drawing, the CEG ranking,
    Ask's lesson (above its answer box), Compare's lesson (at the top of the page while the tour is on Compare)."""
    return {"pages/bubble_anchors.py": lambda: page.get_by_text("6 · Semantic anchor groups and their weights"),
            "pages/bubble_expansion.py": lambda: page.locator("iframe").first,
            "pages/bubble_ranking.py": lambda: page.locator("[data-testid='stDataFrame']").first,
            "pages/bubble_ask.py": lambda: page.locator(".st-key-egx-tour-lesson").first,
            "pages/compare.py": lambda: page.locator(".st-key-egx-tour-lesson").first,
            "pages/granker.py": lambda: page.get_by_text("Plain reranking", exact=True).first,
            "pages/subgraph.py": lambda: page.get_by_text("1 · Query graph", exact=True).first,
            "pages/evidence_chains.py": lambda: page.get_by_text("Retrieved triples (unordered)", exact=True).first,
            "pages/hipporag2.py": lambda: page.get_by_text("1 · Query-to-triple linking", exact=True).first,
            }[step.page]()


#: The first table's element as laid out: its zoom, its grid's right edge and the main column's right edge.
_TABLE_JS = """() => { const grid = document.querySelector('[data-testid=stMain] [data-testid=stDataFrame]');
  const main = document.querySelector('[data-testid=stMainBlockContainer]'), pad = parseFloat(getComputedStyle(main).paddingRight);
  const scroller = grid.querySelector('.dvn-scroller');
  return {zoom: getComputedStyle(grid.closest('[data-testid=stElementContainer]')).zoom,
          right: grid.getBoundingClientRect().right, columnRight: main.getBoundingClientRect().right - pad,
          bottom: grid.closest('[data-testid=stElementContainer]').getBoundingClientRect().bottom,
          hidden: scroller ? scroller.scrollWidth - scroller.clientWidth : 0}; }"""


def _check_projector_tables(page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Projector mode on (the bar's own toggle): the step's first table is zoomed :data:`tour.PROJECTOR_SCALE`× and its
    grid still ends inside the page's column, with no popover left over it (the toggle lived in More, which stayed
    open over Compare's table: audit 40); off again, it is back to 1×."""
    from playwright.sync_api import expect

    def toggle() -> None:
        bar = page.locator(".st-key-egx-tour-bar")
        bar.get_by_text(tour.PROJECTOR_LABEL, exact=True).click()
        expect(page.get_by_text("What this stage does")).to_be_hidden(timeout=TIMEOUT)
        box = bar.get_by_text(tour.PROJECTOR_LABEL, exact=True).bounding_box()
        assert box is not None and box["height"] < 30, box  # its label on one line in the one-line bar

    def sidebar(expanded: str) -> None:  # projector mode folds the sidebar (audit 41: its 290 px cut Compare's table)
        page.wait_for_function(f"() => document.querySelector('[data-testid=stSidebar]')"
                               f".getAttribute('data-collapsed') === '{'false' if expanded == 'true' else 'true'}'",
                               timeout=TIMEOUT)

    before = page.evaluate(_TABLE_JS)
    assert float(before["zoom"]) == 1, before
    sidebar("true")
    toggle()
    sidebar("false")
    expect(page.locator("[data-testid=stMain] [data-testid=stCaptionContainer]").first).to_be_hidden(timeout=TIMEOUT)
    # ... with their elements, not only their text: each empty element kept its column's 1-rem gap (audit 50: an 80-px
    # blank band in Ask's answer card)
    kept = page.evaluate("() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stElementContainer]')]"
                         ".filter(e => e.querySelector('[data-testid=stCaptionContainer]'))"
                         ".filter(e => getComputedStyle(e).display !== 'none').length")
    assert kept == 0, kept
    page.wait_for_timeout(1500)  # the grid lays itself out again at its new width
    got = page.evaluate(_TABLE_JS)
    page.screenshot(path=str(tmp_path / "projector_table.png"))
    print(f"projector mode: table {got}")
    assert float(got["zoom"]) == tour.PROJECTOR_SCALE, got
    assert got["right"] <= got["columnRight"] + 2, got  # 2 px: the grid's border, drawn on the column's edge
    # ... and Compare's summary whole in it: its token and context columns move to the second table (an audit found
    # "LLM tokens" and "ctx chunks" off the projector's screen)
    assert got["hidden"] <= 2, got
    # ... every method's row above the projector's fold (audit 45 found the eighth, ReG's, cut at the bottom)
    assert got["bottom"] <= FOLD, got
    # ... and the page says where they went (its grey captions are hidden in projector mode: an audit took the moved
    # columns for cut off)
    expect(page.get_by_text(re.compile(r"moved here in projector mode"))).to_be_visible(timeout=TIMEOUT)
    toggle()
    sidebar("true")
    page.wait_for_function("() => getComputedStyle(document.querySelector("
                           "'[data-testid=stMain] [data-testid=stDataFrame]').closest("
                           "'[data-testid=stElementContainer]')).zoom === '1'", timeout=TIMEOUT)


def test_the_guided_demo_from_home_through_every_next(server: tuple[str, float], tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    base, _ = server
    n = len(tour.STEPS)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(base, wait_until="domcontentloaded")
            expect(page.get_by_role("heading", name="Guided demo")).to_be_visible(timeout=TIMEOUT)
            page.get_by_role("button", name="Start the guided demo").click()
            for i, step in enumerate(tour.STEPS):
                expect(page.get_by_text(f"Guided demo · step {i + 1} of {n}")).to_be_visible(timeout=TIMEOUT)
                expect(page.get_by_role("heading", name=HEADINGS[step.page], exact=True)).to_be_visible(
                    timeout=TIMEOUT)
                assert f"/{Path(step.page).stem}" in page.url, (i, page.url)
                if step.page in PICKER_PAGES:  # the paper pages pick the step's question
                    expect(page.get_by_role("combobox", name="Question", exact=True, include_hidden=True)).to_have_value(
                        step.question, timeout=TIMEOUT)
                elif step.page != "pages/compare.py":  # the step's question, not the one the address bar held
                    expect(page.get_by_label("Question", exact=True)).to_have_value(step.question, timeout=TIMEOUT)
                # the bar's buttons are drawn after its title: read it once they are (under load, step 13's title
                # was there and its buttons not yet)
                expect(page.locator(".st-key-egx-tour-bar").get_by_role(
                    "button", name=re.compile(r"^(Next: |Finish)"))).to_be_visible(timeout=TIMEOUT)
                # the one-line bar leaves the stage above the fold of a 1440×900 projector
                _check_bar(page, i, step)
                # what to look at, shown without opening More: at most two lines under the bar, none of it cut (an
                # audit found 7 of 11 one-line texts ending in an ellipsis; the whole text is in its tooltip)
                look = page.evaluate(_LOOK_JS)
                assert look is not None, i
                change = tour.question_change(i)  # where the question changes, that is said first
                first = f"{change} · " if change else ""
                assert look["text"].startswith(f"{first}Look at: ") and look["lines"] < 2.5 and not look["cut"], (i, look)
                assert look["tooltip"] == step.look.replace("**", ""), (i, look)
                assert look["barBottom"] <= look["top"] and look["bottom"] < FOLD, (i, look)
                main = _main(page, step)
                expect(main).to_be_visible(timeout=TIMEOUT)
                # every step replays a recorded run of its question: no stage says its reply was not recorded
                expect(page.locator("[data-testid='stMain']").get_by_text(UNRECORDED)).to_have_count(0)
                box = main.bounding_box()
                for _ in range(40):  # a slot a run fills after it ends is redrawn once: measure the element drawn then
                    if box is not None:
                        break
                    page.wait_for_timeout(250)
                    box = main.bounding_box()
                print(f"step {i + 1} {step.page}: main element at {box}")
                assert box is not None and box["y"] < FOLD, (i, step.page, box)
                if step.page in SETTINGS_FOLDED:  # what the Look-at line names, with room under it on the projector
                    if step.lesson:  # measured under the lesson once it is drawn (it fills its slot after the run)
                        expect(page.locator(".st-key-egx-tour-lesson li").first).to_be_visible(timeout=TIMEOUT)
                        page.wait_for_timeout(500)
                        box = main.bounding_box()
                        print(f"step {i + 1} {step.page}: under the lesson at {box}")
                    assert box is not None and box["y"] < FOLD - MAIN_SHOWN, (i, step.page, box)
                    # ... the question and settings folded above it, naming the question
                    folded = page.get_by_test_id("stExpander").filter(has_text="Question and settings, as the tour")
                    expect(folded.locator("summary")).to_contain_text(step.question)
                if step.page == "pages/bubble_expansion.py":  # most of the drawing, not its top edge
                    assert box["y"] < FOLD - DRAWING_SHOWN, (i, box)
                    # the canvas itself, not the iframe's legend strip above it
                    canvas = page.frame_locator("iframe").first.locator("#mynetwork canvas")
                    expect(canvas).to_be_visible(timeout=TIMEOUT)
                    cbox = canvas.bounding_box()
                    assert cbox is not None and cbox["y"] < CANVAS_TOP and cbox["height"] >= CANVAS_LEAST, (i, cbox)
                    # the whole drawing on the projector (an audit scrolled at every step for its lower half)
                    assert cbox["y"] + cbox["height"] <= FOLD, (i, cbox)
                    # its legend at the drawing's top, read first (a small row under the canvas at y ≈ 840–860 was
                    # hard to read on a projector: an audit), at the labels' size
                    legend = page.frame_locator("iframe").first.locator(".egx-legend")
                    lbox = legend.bounding_box()
                    print(f"step {i + 1}: canvas {cbox}, legend {lbox}")
                    assert lbox is not None and lbox["y"] + lbox["height"] <= cbox["y"] + 1, (i, lbox, cbox)
                    assert legend.evaluate("e => getComputedStyle(e).fontSize") == "17px"
                # the title's final place: a rerun that redraws the page (a job's banner coming or going) can hold
                # it lower for a moment (a full run once read y = 101 on step 5, the next 44)
                for _ in range(20):
                    title = page.locator("[data-testid='stMain'] h1").first.bounding_box()
                    if title is not None and title["y"] <= TITLE_TOP:
                        break
                    page.wait_for_timeout(250)
                assert title is not None and title["y"] <= TITLE_TOP, (i, title)
                if step.page in ("pages/bubble_expansion.py", "pages/compare.py"):
                    under = page.evaluate(_UNDER_BAR_JS)
                    assert under["n"] > 5 and not under["under"], (i, step.page, under)
                if step.lesson:  # the lesson read from the runs, under the main element
                    expect(page.get_by_text("What these runs teach")).to_be_visible(timeout=TIMEOUT)
                    if step.paper == "BubbleRAG":  # Ask's and Compare's: where the gold passages ranked
                        expect(page.get_by_text(re.compile(r"^Where the evidence is: ")).first).to_be_visible(
                            timeout=TIMEOUT)
                    else:  # the other papers' pages: their own method, the answer, and no BubbleRAG line
                        box = page.locator(".st-key-egx-tour-lesson").first
                        expect(box.locator("li").first).to_be_visible(timeout=TIMEOUT)
                        top = box.bounding_box()  # it opens the page: under its tables it lay below the fold
                        assert top and top["y"] < 900, (i, top)
                        # the answer line is folded under the method's own lines
                        who = (r"^The recorded 1\.5B model answered" if step.llm == tour.LLM else
                               r"^Without an LLM, the extractive answer step answered")
                        assert box.get_by_text(re.compile(who)).count() >= 1, i
                        assert "BubbleRAG" not in box.inner_text(), (i, box.inner_text())
                if step.page == "pages/bubble_ask.py" and step.question == tour.KEANU:
                    # scrolled to the bottom of a long page, Next is still in reach: the bar sticks under the header
                    page.mouse.move(900, 600)
                    page.mouse.wheel(0, 4000)
                    page.wait_for_timeout(800)
                    nb = page.get_by_role("button", name=re.compile(r"^Next: ")).bounding_box()
                    assert nb is not None and 0 <= nb["y"] < FOLD - nb["height"], nb
                    page.screenshot(path=str(tmp_path / f"tour_{i + 1}_scrolled.png"))
                if i == 0:  # the recorded run: each stage's live seconds beside the replay's
                    expect(page.get_by_text(re.compile(r"when recorded live \(LLM stage")).first).to_be_visible(
                        timeout=TIMEOUT)
                    page.screenshot(path=str(tmp_path / "tour_1_anchors.png"), full_page=True)
                if step.page == "pages/bubble_expansion.py":
                    frame = page.locator("iframe").first
                    expect(frame).to_be_attached(timeout=TIMEOUT)
                    expect(page.frame_locator("iframe").first.get_by_text("diamond: anchor", exact=True)
                           ).to_be_visible(timeout=TIMEOUT)
                    assert '"shape": "diamond"' in (frame.get_attribute("srcdoc") or "")
                    frame.scroll_into_view_if_needed()
                    page.wait_for_timeout(1500)
                    page.screenshot(path=str(tmp_path / f"tour_{i + 1}_expansion.png"))
                if step.page == "pages/compare.py":
                    expect(page.get_by_text("Side by side")).to_be_visible(timeout=TIMEOUT)  # every method ran
                    # the lesson is compact (why and none mode folded), so the summary table under it starts above
                    # the fold: its header and first rows are on the projector with the lesson (measured once the
                    # runs are done: while they run, a progress bar sits above the table)
                    expect(page.get_by_text(re.compile(r"^Running \w+…"))).to_have_count(0, timeout=TIMEOUT)
                    # ... and once a first server's preparations a method waited for (offered above the table, with
                    # their progress) are done: on a loaded machine they outlast the runs (the table sat at y≈1076)
                    expect(page.get_by_text("Waiting for the build")).to_have_count(0, timeout=TIMEOUT)
                    page.wait_for_timeout(1000)
                    table = page.locator("[data-testid='stDataFrame']").first.bounding_box()
                    lesson_box = page.locator(".st-key-egx-tour-lesson").first.bounding_box()
                    page.screenshot(path=str(tmp_path / f"tour_{i + 1}_compare.png"))
                    print(f"step {i + 1}: lesson {lesson_box}, summary table {table}")
                    assert table is not None and lesson_box is not None and lesson_box["y"] < table["y"], i
                    # the whole table, every method's row, on every Compare step: the folded settings sit under it
                    # (above it they pushed ReG's row below the fold on the steps with longer lessons: audit 46)
                    assert table["y"] + table["height"] <= FOLD, (i, table)
                if step.page == "pages/compare.py":  # projector mode sets the tables larger too, within their
                    # column (an audit: the tables stayed the smallest text on the projector; a grid is a canvas,
                    # zoomed, not restyled), with every method's row above the fold on every Compare step (audit 46
                    # found ReG's row cut on the Lothair and second-wife steps, whose lessons are longer)
                    _check_projector_tables(page, tmp_path)
                if step.page == "pages/bubble_ask.py":
                    _check_ask_lesson_on_a_small_projector(page, i, tmp_path)
                if step.page == "pages/bubble_ranking.py":  # last: it scrolls the page
                    _check_scrolled_clear_of_bar(page, "α (missing-group penalty)")
                if i < n - 1:
                    page.get_by_role("button", name=re.compile(r"^Next: ")).click()
            # Finish from far down the page (the bar sticks): Home opens at its top, the note in view (an audit found
            # Home opened mid-page, "your own choices are back" off-screen)
            page.mouse.move(900, 600)
            page.mouse.wheel(0, 3000)
            page.wait_for_timeout(800)
            assert page.evaluate(_SCROLL_JS) > 500
            page.get_by_role("button", name="Finish the tour").click()
            expect(page.get_by_role("heading", name="Evidence Graph Explorer")).to_be_visible(timeout=TIMEOUT)
            expect(page.get_by_text(re.compile("your own choices are back"))).to_be_visible(timeout=TIMEOUT)
            _check_in_view(page, "your own choices are back")
            expect(page.get_by_role("button", name="Start the guided demo")).to_be_visible(timeout=TIMEOUT)
        finally:
            browser.close()


_SCROLL_JS = "() => document.querySelector('[data-testid=stMain]').scrollTop"

#: The main area's elements that hold only a style sheet or a script and still take room (a gap or a height).
_STYLE_ONLY_JS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stElementContainer]')]
  .filter(e => e.querySelector(':scope > [data-testid=stHtml] > :is(style, script):only-child') && e.offsetParent !== null)
  .map(e => e.innerHTML.slice(0, 80))"""
SMALL = {"width": 1280, "height": 720}  #: a small projector's screen (audits 55 and 56 walked the tour at it too)


def _check_ask_lesson_on_a_small_projector(page, i: int, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """On Ask's steps the lesson comes first, above the answer it names, so that on a 1280×720 projector in projector
    mode (text 1.25× as large) the whole lesson — where the evidence is, the model's answer, the passage it came
    from, the none-mode quote — is above the fold (audits 55 and 56 found its last lines under it, below the
    answer box); the answer box follows it."""
    from playwright.sync_api import expect

    page.set_viewport_size(SMALL)
    page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")  # a step scrolled down before
    bar = page.locator(".st-key-egx-tour-bar")
    bar.get_by_text(tour.PROJECTOR_LABEL, exact=True).click()
    try:
        lesson = page.locator(".st-key-egx-tour-lesson").first
        expect(lesson.locator("li").first).to_be_visible(timeout=TIMEOUT)
        page.wait_for_function("() => getComputedStyle(document.querySelector('.egx-tour-look')).webkitLineClamp"
                               " === '3'", timeout=TIMEOUT)  # projector mode's styles are on
        page.wait_for_timeout(1000)
        box = lesson.bounding_box()
        answer = page.get_by_text("Answer", exact=True).first.bounding_box()
        page.screenshot(path=str(tmp_path / f"tour_{i + 1}_ask_720.png"))
        gaps = page.evaluate(_STYLE_ONLY_JS)
        assert gaps == [], gaps  # a style- or script-only element takes no room (its 1-rem gap pushed the lesson down)
        print(f"step {i + 1} at 1280×720, projector mode: lesson {box}, answer {answer}")
        assert box is not None and box["y"] + box["height"] <= SMALL["height"], (i, box)
        assert answer is not None and answer["y"] > box["y"], (i, answer, box)
    finally:
        bar.get_by_text(tour.PROJECTOR_LABEL, exact=True).click()
        page.set_viewport_size({"width": 1440, "height": FOLD})
        page.wait_for_function("() => getComputedStyle(document.querySelector('.egx-tour-look')).webkitLineClamp"
                               " === '2'", timeout=TIMEOUT)


def _check_scrolled_clear_of_bar(page, label: str) -> None:  # type: ignore[no-untyped-def]
    """Scrolled with the wheel until the slider ``label`` is just under the header (the page scrolled on past the
    bar's own place), the stuck bar does not cover it: the bar sits in the header's band (an audit found the Ranking
    page's α / n sliders under the bar after scrolling); and Next on the stuck bar still takes a click."""
    from playwright.sync_api import expect

    slider = page.get_by_test_id("stSlider").filter(has=page.get_by_text(label, exact=True)).first
    expect(slider).to_be_visible(timeout=TIMEOUT)
    # the page drawn whole first: on a loaded machine the part below the slider was still coming, and the page too
    # short to scroll the slider up to the bar
    page.wait_for_function("() => !(document.querySelector('[data-testid=\"stStatusWidget\"]')?.innerText || '')"
                           ".includes('Running')", timeout=TIMEOUT)
    page.wait_for_timeout(1000)
    before = slider.bounding_box()
    assert before is not None
    page.mouse.move(1420, 600)  # the page's right margin: over a table (the CEG list) the wheel scrolls the table
    page.mouse.wheel(0, before["y"] - 70)
    page.wait_for_timeout(800)
    got, bar = slider.bounding_box(), page.locator(".st-key-egx-tour-bar").bounding_box()
    assert got is not None and bar is not None and page.evaluate(_SCROLL_JS) > 100, (before, got)
    assert 0 <= bar["y"] and got["y"] < 150, (bar, got)  # scrolled: the bar stuck, the slider near the top
    assert bar["y"] + bar["height"] <= got["y"], (bar, got)  # the slider's box is not under the bar's
    nxt = page.get_by_role("button", name=re.compile(r"^Next: ")).bounding_box()
    hit = page.evaluate("([x, y]) => !!document.elementFromPoint(x, y).closest('.st-key-egx-tour-bar')",
                        [nxt["x"] + nxt["width"] / 2, nxt["y"] + nxt["height"] / 2])
    assert hit, nxt  # the transparent header above the stuck bar lets its clicks through


def _check_in_view(page, text: str) -> None:  # type: ignore[no-untyped-def]
    """``text`` is on screen at 1440×900 once the page settles (the page scrolled to its top)."""
    page.wait_for_timeout(1500)  # past the scroll Streamlit may restore after a page switch
    box = page.get_by_text(re.compile(text)).first.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= FOLD, box
    assert page.evaluate(_SCROLL_JS) < 50


def _check_bar_narrow(page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """At 1280×720 with the sidebar open (projector mode off) every control of the bar keeps its whole label, the
    title giving up its room first (audit 58 read "M…", "Proje…", "L…"); at most two lines tall."""
    page.set_viewport_size(SMALL)
    try:
        page.wait_for_timeout(800)
        got = page.evaluate(_BAR_JS)
        page.screenshot(path=str(tmp_path / "tour_bar_1280_sidebar.png"))
        print(f"1280×720, sidebar open: bar {got['height']} px, buttons {[(b['text'], b['cut']) for b in got['buttons']]}")
        assert {"More", tour.PROJECTOR_LABEL, "Leave"} <= {b["text"] for b in got["buttons"]}, got
        assert all(not b["cut"] and b["lines"] < 1.5 for b in got["buttons"]), got
        assert got["height"] <= 2 * BAR_HEIGHT, got
    finally:
        page.set_viewport_size({"width": 1440, "height": 900})
        page.wait_for_timeout(500)


def _check_title_and_toggle(page) -> None:  # type: ignore[no-untyped-def]
    """The title sits near the top (the house CSS trims Streamlit's padding) yet below the header: with the sidebar
    collapsed its toggle is in reach and clear of the title's text, and it opens the sidebar again."""
    from playwright.sync_api import expect

    title = "[data-testid='stMain'] h1"
    assert page.locator(title).first.bounding_box()["y"] <= TITLE_TOP
    page.get_by_test_id("stSidebar").hover()  # the collapse button shows on hover only
    page.locator("[data-testid='stSidebarCollapseButton'] button").click()
    toggle = page.get_by_test_id("stExpandSidebarButton")
    expect(toggle).to_be_visible(timeout=TIMEOUT)
    page.wait_for_timeout(800)  # the main area widens after the sidebar slides away
    text = page.evaluate("""(s) => { const r = document.createRange(); r.selectNodeContents(document.querySelector(s));
                                    return r.getBoundingClientRect().toJSON(); }""", title)
    t = toggle.bounding_box()
    assert t is not None and (t["x"] + t["width"] <= text["left"] or t["y"] + t["height"] <= text["top"]), (t, text)
    toggle.click()
    expect(page.get_by_test_id("stSidebarCollapseButton")).to_be_attached(timeout=TIMEOUT)
    expect(page.get_by_role("link", name="Bubble expansion")).to_be_visible(timeout=TIMEOUT)


def test_the_tour_bar_takes_the_theme_s_background(server: tuple[str, float], tmp_path: Path) -> None:
    """The sticky bar was white in the dark theme (light text on white): its background is now the app's own in
    either theme (opaque, so the page scrolls under it unseen), and its title stays inside its border instead of
    spilling onto the question below; in either theme it is one line (:func:`_check_bar`). The page title sits near
    the top with the sidebar's toggle clear of it (:func:`_check_title_and_toggle`)."""
    from playwright.sync_api import expect, sync_playwright

    base, _ = server
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            for scheme in ("dark", "light"):
                ctx = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme=scheme)
                page = ctx.new_page()
                page.goto(base, wait_until="domcontentloaded")
                page.get_by_role("button", name="Start the guided demo").click(timeout=TIMEOUT)
                expect(page.get_by_text("Guided demo · step 1 of")).to_be_visible(timeout=TIMEOUT)
                # the bar's style element may arrive a moment after the bar itself
                page.wait_for_function("""() => [...document.querySelectorAll('style')].some(
                    s => s.textContent.includes('egx-tour-bar'))""", timeout=TIMEOUT)
                got = page.evaluate("""() => {
                  const bar = document.querySelector('.st-key-egx-tour-bar');
                  const title = bar.querySelector('.egx-tour-title');  // the text itself
                  const cs = e => getComputedStyle(e);
                  return {bar: cs(bar).backgroundColor, app: cs(document.querySelector('.stApp')).backgroundColor,
                          text: cs(bar).color, barBottom: bar.getBoundingClientRect().bottom,
                          titleBottom: title.getBoundingClientRect().bottom};
                }""")
                page.screenshot(path=str(tmp_path / f"tour_bar_{scheme}.png"))
                _check_bar(page, 0, tour.STEPS[0])
                if scheme == "light":
                    _check_bar_narrow(page, tmp_path)
                    _check_title_and_toggle(page)
                    # Leave from far down a long page (Ask's): the page goes to its top, where the note is drawn
                    for k in (2, 3, 4):
                        page.get_by_role("button", name=re.compile(r"^Next: ")).click()
                        expect(page.get_by_text(f"Guided demo · step {k} of")).to_be_visible(timeout=TIMEOUT)
                    expect(page.get_by_text("What these runs teach")).to_be_visible(timeout=TIMEOUT)
                    expect(page.get_by_role("tab", name=re.compile("Latency and tokens"))).to_be_visible(
                        timeout=TIMEOUT)  # the page drawn to its end
                    page.wait_for_timeout(1000)
                    page.mouse.move(900, 600)
                    page.mouse.wheel(0, 3000)
                    page.wait_for_timeout(800)
                    assert page.evaluate(_SCROLL_JS) > 400
                    page.get_by_role("button", name="Leave", exact=True).click()
                    expect(page.get_by_text(re.compile("your own choices are back"))).to_be_visible(timeout=TIMEOUT)
                    _check_in_view(page, "your own choices are back")
                ctx.close()
                assert got["bar"] == got["app"] and got["bar"] not in ("rgba(0, 0, 0, 0)", "transparent"), got
                assert (got["bar"] == "rgb(255, 255, 255)") == (scheme == "light"), got
                assert got["text"] != got["bar"], got
                assert got["titleBottom"] <= got["barBottom"], got
        finally:
            browser.close()
