"""AppTest runs of the four BubbleRAG pages (anchor grouping, bubble expansion, ranking, ask).

Hashing embedder and LLM ``none`` (the ``home`` fixture): every page is instant and deterministic.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state as S
from components.bubblerag.shared import ANCHOR_SHAPE, DEMO_QUESTION, group_color
from components.colors import CEG as CEG_COLOR
from tests.app.helpers import drawn_nodes, plain, run_page, switch

PAGES = ("pages/bubble_anchors.py", "pages/bubble_expansion.py", "pages/bubble_ranking.py", "pages/bubble_ask.py")


def _q(page: str) -> str:
    """Key of the question box on ``page`` (one widget per page, one shared value)."""
    return S.widget_key(S.BUBBLE_QUESTION, page)


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> str:
    return " ".join(plain(m.value) for m in [*at.markdown, *at.caption, *at.error, *at.warning, *at.success, *at.info])


def _red_nodes(at: AppTest) -> list[str]:
    """Labels of the drawn nodes outlined in the CEG colour."""
    return [n["label"] for n in drawn_nodes(at)
            if isinstance(n.get("color"), dict) and n["color"].get("border") == CEG_COLOR]


def _ranking(at: AppTest):
    """The CEG ranking table (the dataframe with a Cost_sem column)."""
    return next(d.value for d in at.dataframe if "Cost_sem" in d.value.columns)


def _ceg_order(at: AppTest) -> list[str]:
    return list(_ranking(at)["CEG"])


@pytest.mark.parametrize("workspace", ["demo", "musique"])
def test_every_page_runs_on_the_sample(home: Path, workspace: str) -> None:
    at = run_page(**{S.WORKSPACE: workspace})
    for page in PAGES:
        _ok(switch(at, page))
        name = page.removeprefix("pages/bubble_").removesuffix(".py")
        assert at.text_input(key=_q(name)).value  # an example question is pre-filled
        assert not at.error, [e.value for e in at.error]
    # Ask page: an answer, the trace table and the four exports
    assert "Answer" in _texts(at)
    assert {b.label for b in at.get("download_button")} == {
        "Evidence graph (egx JSON)", "Evidence graph (GraphML)", "Evidence graph (HTML)", "Full trace (JSON)"}


def test_question_is_shared_by_the_pages(home: Path) -> None:
    at = run_page("pages/bubble_anchors.py")
    assert at.text_input(key=_q("anchors")).value == DEMO_QUESTION
    at.text_input(key=_q("anchors")).input("Who directed The Matrix?").run()
    _ok(switch(at, "pages/data.py"))  # a page without the box: the value survives
    _ok(switch(at, "pages/bubble_ranking.py"))
    assert at.text_input(key=_q("ranking")).value == "Who directed The Matrix?"
    _ok(switch(at, "pages/bubble_anchors.py"))
    assert at.text_input(key=_q("anchors")).value == "Who directed The Matrix?"


def test_anchor_stage_control_walks_through_the_stages(home: Path) -> None:
    at = run_page("pages/bubble_anchors.py")
    assert at.select_slider(key=S.widget_key(S.BUBBLE_STAGE)).value.startswith("1")
    assert plain(at.subheader[0].value).startswith("1 · The question")
    # the tour's first view: the pre-retrieved passages in a static table, drawn with the page (a grid showed an
    # empty grey box for ~2 s while the browser loaded it)
    assert not at.dataframe and list(at.table[0].value.columns) == ["passage", "chunk id", "similarity"]
    assert not at.get("plotly_chart")
    at.button(key=S.sub(S.BUBBLE_STAGE, "next")).click().run()
    _ok(at)
    assert plain(at.subheader[0].value).startswith("2 · Explicit and inferred keywords")
    kws = at.table[0].value  # a static table (drawn at once, no grid to load)
    assert {"Keanu Reeves", "Laurence Fishburne"} <= set(kws["keyword"])
    at.select_slider(key=S.widget_key(S.BUBBLE_STAGE)).set_value("4 · Relaxed").run()
    _ok(at)
    assert "main villain" in _texts(at) and "Justifying passage" in _texts(at)
    heads = [m.value.split(" — ")[0] for m in at.markdown if m.value.startswith("**") and "** → **" in m.value]
    assert heads and len(heads) == len(set(heads)), heads  # one box per relaxation, however many passages justify it
    from components.bubblerag.anchors import relaxation_groups
    from core.methods.bubblerag.relaxation import Relaxed

    twice = [Relaxed("main villain", "villain", "matrix", "passage 3 mentions …"),
             Relaxed("main villain", "villain", "keanu-reeves", "passage 4 mentions …"), Relaxed("movie", "film", "m", "")]
    assert {k: [r.chunk_id for r in v] for k, v in relaxation_groups(twice).items()} == {
        ("main villain", "villain"): ["matrix", "keanu-reeves"], ("movie", "film"): ["m"]}
    at.select_slider(key=S.widget_key(S.BUBBLE_STAGE)).set_value("6 · Groups").run()
    _ok(at)
    assert plain(at.subheader[0].value).startswith("6 · Semantic anchor groups")
    assert len(at.get("plotly_chart")) == 1  # the weights bar chart
    # whose weights these are, right beside them (not only in a grey fallback note under the drawing), and what
    # the paper expects of them
    line = next(t for t in (plain(m.value).replace("**", "") for m in at.markdown) if t.startswith("Weights: "))
    assert line.startswith("Weights: rule-based") and "(§3.2) expects the core subject highest" in line, line
    groups = at.dataframe[0].value
    assert "Keanu Reeves" in " ".join(groups["group"])
    # the anchors drawn as the expansion page draws them: diamonds, filled with their group's colour
    nodes = drawn_nodes(at)
    assert nodes and all(n.get("shape") == ANCHOR_SHAPE for n in nodes)
    assert "diamond: anchor, where a bubble starts" in at.get("iframe")[0].proto.srcdoc
    # right under the groups' weights, above the chart and the table (audit 55 scrolled for it after the walk)
    order = [n.type for n in _walk(at.main)]
    assert order.index("iframe") < order.index("plotly_chart") and order.index("iframe") < order.index(type(at.dataframe[0]).__name__.lower())
    fill = {n.get("label"): n["color"]["background"] if isinstance(n.get("color"), dict) else n.get("color")
            for n in nodes}
    # the node anchors of groups 0 and 1 (the table above) in those groups' colours
    assert fill["Keanu Reeves"] == group_color(0) and fill["Laurence Fishburne"] == group_color(1), fill


def test_the_weights_line_says_whose_weights_are_shown() -> None:
    """The LLM's own weights, or the rule's where the LLM's failed the check (the recorded model gave every group
    0.2 on the Keanu question, and a lecturer presented the rule's weights as its judgement)."""
    from components.bubblerag.anchors import weights_line
    from core.methods.bubblerag.grouping import AnchorGroups

    own = plain(weights_line(AnchorGroups((), "llm"))).replace("**", "")
    assert own.startswith("Weights: the LLM's own judgement.") and "core subject highest" in own
    failed = plain(weights_line(AnchorGroups((), "llm", weights_check="every group has the same weight (0.2): no "
                                                                      "group was judged more central"))).replace("**", "")
    assert failed.startswith("Weights: rule-based fallback — the LLM's weights failed the check (every group has "
                             "the same weight (0.2)"), failed
    assert "none-mode weights" in failed.replace("`", "")
    assert "figures as the reply wrote them" in failed  # no groups given: the check's own words
    # "(0.2)" beside 7 groups read as a wrong 1/7 to two audits: the line does the arithmetic
    from core.methods.bubblerag.grouping import AnchorGroup

    seven = tuple(AnchorGroup(i, f"g{i}", 1 / 7, ()) for i in range(7))
    said = plain(weights_line(AnchorGroups(seven, "llm", weights_check="every group has the same weight (0.2): no "
                                                                       "group was judged more central")))
    assert "the reply gave all 7 groups the same weight — 0.2 each as written, 1/7 ≈ 0.14 once normalized" in said, said
    # beside rule weights, what the rule cannot do against §3.2 (a relation weighted like the modifiers looked a bug),
    # folded under the line (six lines of it were too much for a projector)
    from components.bubblerag.anchors import weights_detail
    detail = weights_detail(AnchorGroups((), "llm", weights_check="every group has the same weight (0.2)"))
    assert "weighs every relation and modifier alike" in detail and "need not sum to 1" in detail
    assert weights_detail(AnchorGroups((), "llm")) == "" and "alike" not in own and len(failed) < 330, len(failed)


def test_a_group_that_joins_two_names_is_pointed_out() -> None:
    """"Lothair II / Lothair I" is one group on the Lothair question: bubbles from the father count for the son's
    group, which the tour left a lecturer to spot in the drawing. Kinds joined with a name are no such case."""
    from components.bubblerag.anchors import merged_names_line
    from core.methods.bubblerag.grouping import AnchorGroup, AnchorGroups

    groups = AnchorGroups((AnchorGroup(0, "Lothair II / Lothair I", 0.5, ()), AnchorGroup(1, "mother", 0.25, ()),
                           AnchorGroup(2, "death / died", 0.25, ())), "llm")
    line = plain(merged_names_line(groups)).replace("**", "")
    assert line.startswith("Merged names: “Lothair II / Lothair I” (group 0) joins several names"), line
    assert "mother" not in line and "death" not in line
    assert merged_names_line(AnchorGroups((AnchorGroup(0, "villain / main villain", 1.0, ()),), "llm")) == ""
    assert merged_names_line(AnchorGroups((AnchorGroup(0, "The Matrix / the matrix", 1.0, ()),), "llm")) == ""


def test_hop_tables_list_the_chosen_edges_first() -> None:
    """A hop's table listed the ✓ edges last (rows 13–17 of 17, in the table's own scroll) because it was sorted by
    similarity alone: the chosen ones come first now, each part by similarity."""
    from components.bubblerag.ranking import hop_rows

    class Edges:
        def edge_text(self, e: int) -> str:
            return f"edge {e}"

    rows = hop_rows(Edges(), [1, 2, 3, 4, 5], [0.9, 0.8, 0.7, 0.6, 0.5], {4, 2})
    assert [r["edge"] for r in rows] == ["edge 2", "edge 4", "edge 1", "edge 3", "edge 5"]
    assert [r["chosen"] for r in rows] == ["✓", "✓", "", "", ""]


def test_expansion_frames_collisions_and_controls(home: Path) -> None:
    at = run_page("pages/bubble_expansion.py")
    slider = at.slider(key=S.widget_key(S.BUBBLE_FRAME))
    assert slider.value == 0
    first = at.get("iframe")[0].proto.srcdoc
    assert not _red_nodes(at)  # nothing collided yet
    at.button(key=S.sub(S.BUBBLE_FRAME, "next")).click().run()
    _ok(at)
    assert at.slider(key=S.widget_key(S.BUBBLE_FRAME)).value == 1
    assert at.get("iframe")[0].proto.srcdoc != first  # the frame changed the drawing
    at.button(key=S.sub(S.BUBBLE_FRAME, "jump")).click().run()  # next collision
    _ok(at)
    frame = at.slider(key=S.widget_key(S.BUBBLE_FRAME)).value
    assert frame > 1
    assert "Collision" in " ".join(plain(e.value) for e in at.error)
    doc = at.get("iframe")[0].proto.srcdoc
    assert len(_red_nodes(at)) >= 2  # the backtracked CEG is outlined
    # same positions on every frame: the layout is computed once
    pos = lambda d: sorted(re.findall(r'"x": (-?[\d.]+), "y": (-?[\d.]+)', d))  # noqa: E731
    assert pos(doc) == pos(first) and pos(doc)
    metric = {m.label: m.value for m in at.metric}
    last = int(at.slider(key=S.widget_key(S.BUBBLE_FRAME)).max)
    assert metric["Step"] == f"{frame} / {last}"
    # the last frame is the end frame: said beside the figure (audit 43 read "Step 0 / 36" beside "35 settle steps")
    # under the figures, never a chip cut to "… the end fra…" (audit 44, projector mode)
    assert any(c.value.startswith(f"Steps: {last - 1} settle steps + the end frame.") for c in at.caption)
    # B re-runs the search: with B = 1 the search stops at the first collision
    at.slider(key=S.widget_key(S.BUBBLE_B)).set_value(1).run()
    _ok(at)
    assert {m.label: m.value for m in at.metric}["Toward budget B"].endswith("/ 1")
    at.button(key=S.sub(S.BUBBLE_FRAME, "last")).click().run()
    _ok(at)
    assert {m.label: m.value for m in at.metric}["Toward budget B"] == "1 / 1"
    assert "budget B = 1 reached" in " ".join(plain(s.value) for s in at.success)


def test_alpha_presets_rerank_without_rerunning(home: Path) -> None:
    at = run_page("pages/bubble_ranking.py")
    balanced = _ceg_order(at)
    assert len(balanced) > 3
    table = _ranking(at)
    assert {"Cost_sem", "missing groups", "r_miss", "Penalty_miss", "Score"} <= set(table.columns)
    # the id first: the page names the best CEG "#7", and the table had its id off to the right, out of view
    assert list(table.columns[:2]) == ["CEG", "rank"]
    # the groups are numbers (whole in their narrow columns), each named once in the caption above the table
    named = next(plain(c.value).replace("**", "") for c in at.caption if "Groups in “covers”" in c.value)
    for cell in table["covers"]:
        assert all(g.strip().isdigit() and f" {g.strip()} " in f" {named} " for g in cell.split(",")), (cell, named)
    best = next(t for t in (plain(m.value).replace("**", "") for m in at.markdown) if t.startswith("Best CEG at α"))
    assert f"#{table['CEG'].iloc[0].lstrip('#')}" in best
    at.segmented_control(key=S.widget_key(S.BUBBLE_PRESET)).set_value("AND").run()
    _ok(at)
    assert at.slider(key=S.widget_key(S.BUBBLE_ALPHA)).value == 10.0
    and_order = _ceg_order(at)
    assert and_order != balanced
    top = _ranking(at).iloc[0]
    assert top["missing groups"] == "—" or top["r_miss"] <= min(_ranking(at)["r_miss"])
    at.segmented_control(key=S.widget_key(S.BUBBLE_PRESET)).set_value("OR").run()
    _ok(at)
    assert _ceg_order(at) != and_order
    # n marks the top-n; compare draws them side by side
    at.slider(key=S.widget_key(S.BUBBLE_N)).set_value(2).run()
    assert list(_ranking(at)["top-n"]).count("✓") == 2
    at.segmented_control(key=S.widget_key(S.BUBBLE_PRESET)).set_value("compare").run()
    _ok(at)
    assert len(at.get("iframe")) >= 2
    assert "Reasoning-aware expansion" in " ".join(plain(s.value) for s in at.subheader)
    assert "Why it stopped" in _texts(at)
    for hop in (d.value for d in at.dataframe if "chosen" in d.value.columns):  # the chosen edges first
        marks = list(hop["chosen"])
        assert marks == sorted(marks, key=lambda m: m != "✓"), marks


def test_ask_page_trace_roundtrip_and_escaping(home: Path) -> None:
    at = run_page("pages/bubble_ask.py")
    texts = _texts(at)
    assert "Agent Smith" in texts or "Hugo Weaving" in texts
    code = at.code[0].value
    assert "The Matrix starring Hugo Weaving" in code
    # the demo question comes with its gold answer: shown beside the answer with the kind of match (no EM / F1 in none mode)
    gold = [m.value for m in at.markdown if m.value.startswith("Gold answer: **Hugo Weaving**")]
    assert len(gold) == 1 and "no EM / F1" in gold[0] and " · EM " not in gold[0], gold
    # BubbleRAG's own budget is Compare's cap too: said so, not "may read more"
    own = [c.value for c in at.caption if c.value.startswith("This page runs the method at its paper's own budget")]
    assert len(own) == 1 and "a cap of at most 15 chunks (“bubblerag”, the same cap Compare and the Benchmark" in own[0], own
    # the cap first, then what this run used under it (an audit read "handed 8 … the same cap, at most 15" as 8 vs 15)
    assert re.search(r"This run's answer step used \d+ passages? under that cap\.", own[0]), own
    assert "handed" not in own[0], own
    from core.trace import Trace

    # a trace as the download produces it: the run's trace JSON
    saved = at.session_state[S.BUBBLE_QUESTION]
    assert saved == DEMO_QUESTION
    at.text_input(key=_q("ask")).input("<b>Keanu</b> *Reeves* Matrix?").run()
    _ok(at)
    assert "<b>Keanu</b>" not in "".join(m.value for m in at.markdown)  # shown escaped, never as markup
    assert not [m.value for m in at.markdown if m.value.startswith("Gold answer:")]  # a typed question has none
    # load a trace back and replay it
    trace = Trace("bubblerag", DEMO_QUESTION, workspace="demo", config={"h": 6, "B": 10, "alpha": 10.0, "n": 3})
    at.file_uploader(key=S.BUBBLE_TRACE_UPLOAD).upload("t.json", trace.to_json().encode(), "application/json").run()
    _ok(at)
    assert "Saved trace" in _texts(at)
    at.button(key=S.sub(S.BUBBLE_TRACE_UPLOAD, "replay")).click().run()
    _ok(at)
    assert at.text_input(key=_q("ask")).value == DEMO_QUESTION
    assert at.session_state[S.BUBBLE_RUN_ALPHA] == 10.0
    assert "α = 10" in _texts(at)
    at.file_uploader(key=S.BUBBLE_TRACE_UPLOAD).upload("bad.json", b"{not json", "application/json").run()
    _ok(at)
    assert "bad.json, line 1: invalid JSON" in plain(" ".join(e.value for e in at.error))
    json.loads(trace.to_json())


def test_a_collision_frame_names_the_intra_group_cegs_next_collision_passed() -> None:
    """**Next collision** jumps from the start to the first collision over intra-group CEGs (#0–#3 on the Keanu
    question): the side panel says so, instead of numbering from "#4" with #0–#3 never shown."""
    from types import SimpleNamespace as NS

    from components.bubblerag.expansion import passed_intra_line

    intra = [NS(index=i, kind="intra", found_at=2 + i) for i in range(4)]
    hit = NS(index=4, kind="collision", found_at=9)
    later = NS(index=5, kind="collision", found_at=12)
    frames = [NS(step=s, new_cegs=tuple(c for c in [*intra, hit, later] if c.found_at == s)) for s in range(14)]
    cegs = [*intra, hit, later]
    line = passed_intra_line(cegs, frames, 9)
    assert line.startswith("On the way here: 4 intra-group CEGs (#0–#3)") and "Next collision" in line
    assert passed_intra_line(cegs, frames, 12) == ""  # nothing between the two collisions
    assert passed_intra_line(cegs, frames, 3) == ""  # an intra-group frame itself shows its own CEG


def test_the_question_highlights_whole_words() -> None:
    """A group's concept is highlighted as the whole word it sits in ("author" in "authored" marked half a word, an
    audit), a whole-word match first; each span escaped."""
    from types import SimpleNamespace

    from components.bubblerag.shared import highlighted_question

    groups = [SimpleNamespace(concept=c, gid=i) for i, c in enumerate(("author", "Nobel Prize", "paper", "absent"))]
    got = highlighted_question("Find <papers> authored by the 1921 Nobel Prize winner, a paper-writer", groups)
    marked = re.findall(r"<span [^>]*>([^<]*)</span>", got)
    # "paper" as a word (in "paper-writer") before the word "papers" it is part of; "absent" nowhere
    assert marked == ["authored", "Nobel Prize", "paper"], marked
    assert "&lt;papers&gt;" in got and "<papers>" not in got
    only = highlighted_question("Find papers", [SimpleNamespace(concept="paper", gid=0)])
    assert re.findall(r"<span [^>]*>([^<]*)</span>", only) == ["papers"]
    # a merged group by either of its names, a group by the question's keyword its anchors were found for (an audit
    # saw only "mother" marked in "When did Lothair II's mother die?", beside groups "Lothair II / Lothair I" and
    # "death")
    lothair = [SimpleNamespace(concept="Lothair II / Lothair I", gid=0), SimpleNamespace(concept="mother", gid=1),
               SimpleNamespace(concept="death", gid=2, members=[SimpleNamespace(keywords=("die",))])]
    got = highlighted_question("When did Lothair II's mother die?", lothair)
    assert re.findall(r"<span [^>]*>([^<]*)</span>", got) == ["Lothair II", "mother", "die"], got
    from components.bubblerag.shared import unmarked_groups

    inferred = [*lothair[:2], SimpleNamespace(concept="death", gid=2, members=[SimpleNamespace(keywords=("death",))])]
    assert unmarked_groups("When did Lothair II's mother die?", inferred) == ["death"]  # the page says why
    # a group whose words another group's colour took still stands for them (an audit: "dye works" in the question,
    # "no word stands for 'Rennick Dye Works'")
    works = [SimpleNamespace(concept="dye works", gid=0),
             SimpleNamespace(concept="Rennick Dye Works", gid=1, members=[SimpleNamespace(keywords=("dye works",))])]
    assert unmarked_groups("Who invented the dye made at the dye works?", works) == []


def test_stage_3_says_when_the_llm_s_rewrites_were_rejected() -> None:
    """"here none was rewritten" stood above the three rewrites the check had rejected on the Keanu question (an
    audit): the line says they were proposed and rejected."""
    from components.bubblerag.anchors import specialization_what
    from core.methods.bubblerag.specialization import SearchTerm
    from core.trace import Step

    kept = [SearchTerm("movie", "movie", "explicit")]
    rejected = Step("specialization", "Anchor specialization",
                    fallback="check failed: 'movie' -> 'The Matrix': it drops the keyword 'movie' — searched as it is")
    assert "the check rejected each" in specialization_what(kept, [rejected])
    assert specialization_what(kept, [Step("specialization", "Anchor specialization")]) == "here none was rewritten"
    rewritten = [SearchTerm("director", "director of The Matrix", "explicit", specialized=True)]
    assert "director of The Matrix" in specialization_what(rewritten, [rejected])


def test_a_collision_frame_reds_the_collision_not_the_intra_group_ceg_beside_it() -> None:
    """Lothair's collision frame drew five nodes red for a 3-node CEG: the 4-node intra-group CEG found at the same
    step was red too (an audit). A frame of intra-group CEGs only still shows them red."""
    from types import SimpleNamespace as NS

    from components.bubblerag.expansion import flashed_cegs

    collision, intra = NS(kind="collision", nodes=(1, 2, 3)), NS(kind="intra", nodes=(3, 4, 5, 6))
    assert flashed_cegs([collision, intra]) == [collision]
    assert flashed_cegs([intra]) == [intra]
    assert flashed_cegs([]) == []


def test_the_expansion_legend_is_read_first_at_the_labels_size_in_readable_colours(home: Path) -> None:
    """On a 1440×900 projector the replay's legend was a 12-px grey row under the canvas at y ≈ 840–860, and the
    "Speed" (sky blue, 2.3:1) and "The Matrix" (yellow, 1.3:1) anchors were faint on white (an audit). The drawing the
    page sends: its legend strip at its top, at the node labels' size, short enough to end in the frame's top
    quarter; every anchor's group colour (its ring or fill, and its legend swatch) at least 3:1 on white."""
    from components import colors
    from components.bubblerag import expansion
    from components.graph_view import LegendItem

    at = _ok(run_page("pages/bubble_expansion.py"))
    doc = at.get("iframe")[0].proto.srcdoc
    strip = re.search(r'<div class="egx-legend"([^>]*)>(.*?)</div>', doc, re.S)
    assert strip is not None and 'class="egx-legend egx-legend-below"' not in doc
    assert strip.start() < doc.index('<div id="mynetwork"')  # above the canvas, inside the figure's top
    assert f"font-size:{expansion.LABEL_PX}px" in strip.group(1) and expansion.LABEL_PX >= 17
    items = re.findall(r'<span class="egx-(dot|line|diamond)" style="background:(#[0-9a-f]{6})"></span>([^<]*)</span>',
                       strip.group(2))
    labels = [label for _, _, label in items]
    groups = [(label, colour) for _, colour, label in items[:labels.index("diamond: anchor")]]
    assert len(groups) >= 2, items
    legend = tuple(LegendItem(label, colour, shape) for shape, colour, label in items)
    # the frame (at most HEIGHT tall) starts at y ≈ 402 under the tour's bar at 1440×900 (test_tour_browser.py): a
    # strip in its top quarter ends by y ≈ 530, far above the fold
    assert expansion.legend_px(legend) <= expansion.HEIGHT / 4, expansion.legend_px(legend)
    faint = {label: round(colors.contrast_on_white(c), 2) for label, c in groups if colors.contrast_on_white(c) < 3}
    assert not faint, faint
    group_colours = set(colors.ANCHOR_GROUPS)
    marks = [(n["label"], n["color"]) for n in drawn_nodes(at) if n.get("shape") == ANCHOR_SHAPE]
    drawn = {c for _, col in marks for c in ((col["border"], col["background"]) if isinstance(col, dict) else (col,))
             if c in group_colours}
    assert drawn and all(colors.contrast_on_white(c) >= colors.MIN_CONTRAST for c in drawn), drawn


def test_every_anchor_colour_reads_on_white() -> None:
    """WCAG relative luminance: white 1:1, black 21:1; each anchor group's colour at least 3:1 (sky blue and yellow
    were 2.3:1 and 1.3:1)."""
    from components import colors

    assert colors.contrast_on_white("#ffffff") == pytest.approx(1.0)
    assert colors.contrast_on_white("#000000") == pytest.approx(21.0)
    assert colors.contrast_on_white(colors.YELLOW) < 3 and colors.contrast_on_white(colors.SKY) < 3  # why they left
    low = {c: round(colors.contrast_on_white(c), 2) for c in colors.ANCHOR_GROUPS if colors.contrast_on_white(c) < 3}
    assert not low, low
    assert len(set(colors.ANCHOR_GROUPS)) == len(colors.ANCHOR_GROUPS) and colors.CEG not in colors.ANCHOR_GROUPS
    with pytest.raises(ValueError, match="six hex digits"):
        colors.contrast_on_white("yellow")


def test_a_node_that_anchors_several_groups_is_said_to_when_settled_and_met() -> None:
    """An audit's class saw "Group mother settled Lothair I at accumulated cost 0.000" and a collision of
    "Lothair II / Lothair I" and "mother" at Lothair I, with the look-alike note only under the drawing: the side
    panel says the node anchors both groups."""
    from types import SimpleNamespace

    from components.bubblerag.expansion import anchor_note, shared_anchor_note

    graph = SimpleNamespace(node_names=["Lothair I", "Lothair II", "Ermengarde"])

    def group(gid: int, concept: str, nodes: list[int]) -> SimpleNamespace:
        return SimpleNamespace(gid=gid, concept=concept, terminals=lambda g, n=nodes: n)

    groups = [group(0, "Lothair II / Lothair I", [0, 1]), group(1, "mother", [0, 2]), group(2, "death", [2])]
    result = SimpleNamespace(groups=SimpleNamespace(groups=groups))
    assert "and an anchor of “Lothair II / Lothair I” too" in anchor_note(result, graph, 0, 1)
    assert anchor_note(result, graph, 1, 0) == " (one of its anchors: its bubble starts there)"
    assert anchor_note(result, graph, 1, 1) == ""  # reached, not an anchor of the settling group
    note = shared_anchor_note(result, graph, 0, (0, 1))
    assert "Lothair I is an anchor of “Lothair II / Lothair I” and of “mother”" in note
    assert shared_anchor_note(result, graph, 2, (0, 1)) == ""  # an anchor of one of them only


def _walk(node):
    """Every element under ``node`` (an AppTest block) in page order."""
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)



def test_the_question_as_the_no_llm_answer_re_read_it_is_said_under_the_answer(home: Path) -> None:
    """Audit 57 found the re-read questions (a description replaced by the entity a retrieved sentence names) only in
    the trace's JSON: without an LLM, the Ask page says under the answer how the question was also read."""
    at = run_page("pages/bubble_ask.py")
    at.text_input(key=_q("ask")).input("When did Lothair II's mother die?").run()
    _ok(at)
    said = [plain(c.value) for c in at.caption if plain(c.value).startswith("No LLM: the question was also read")]
    assert said and "question read as: When did Ermengarde of Tours die?" in said[0], [c.value for c in at.caption]
    at.text_input(key=_q("ask")).input(DEMO_QUESTION).run()  # none re-read on the demo's own question: no line
    _ok(at)
    assert not [c for c in at.caption if plain(c.value).startswith("No LLM: the question was also read")]
