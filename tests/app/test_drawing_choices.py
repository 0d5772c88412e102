"""What a drawing labels, how it colours anchors, where its legend goes and how it fits its frame
— the pure choices behind tests/app/test_drawings_browser.py."""

from __future__ import annotations

import json
import math
import re
from types import SimpleNamespace

import pytest

from components import graph_view as gv
from components.bubblerag import shared as bubble
from core.graph.graph_builder import graph_from_triples
from core.graph.model import KnowledgeGraph
from core.methods.bubblerag.candidates import Candidate
from core.methods.bubblerag.grouping import AnchorGroup

XSS = "<script>alert(1)</script>"


def _vis_nodes(doc: str) -> dict[int, dict]:
    m = re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", doc, re.S)
    assert m
    return {n["id"]: n for n in json.loads(m.group(1))}


def _vis_edges(doc: str) -> list[dict]:
    m = re.search(r"edges = new vis\.DataSet\((\[.*?\])\);", doc, re.S)
    assert m
    return json.loads(m.group(1))


def _labelled(doc: str) -> set[int]:
    return {v for v, n in _vis_nodes(doc).items() if n["label"].strip()}


@pytest.fixture
def path40() -> KnowledgeGraph:
    return graph_from_triples([(f"n{i}", "next", f"n{i + 1}") for i in range(39)] + [("n0", "hub", f"n{i}")
                                                                                     for i in range(5, 12)])


# ------------------------------------------------------------------------------ label choice
def test_a_small_drawing_labels_every_node() -> None:
    got = gv.label_choice(range(gv.LABEL_ALL_UP_TO), [3])
    assert set(got) == set(range(gv.LABEL_ALL_UP_TO)) and got[0] == 3  # the important one wins an overlap


def test_a_big_drawing_labels_the_important_nodes_first_then_the_best_connected() -> None:
    nodes = range(100)
    degree = [0] * 100
    degree[50], degree[60] = 9, 8
    got = gv.label_choice(nodes, [7, 3, 500], degree=degree, limit=4)  # 500 is not drawn: skipped
    assert got == [7, 3, 50, 60]  # in priority order
    assert gv.label_choice(nodes, [7, 3], degree=degree, fill=False) == [7, 3]
    assert gv.label_choice(nodes, range(100, 0, -1), fill=False, limit=5) == [99, 98, 97, 96, 95]


def test_network_html_labels_only_the_named_nodes_and_keeps_every_name_on_hover(path40: KnowledgeGraph) -> None:
    nodes = list(range(path40.n_nodes))
    keep = [path40.node("n0"), path40.node("n1"), path40.node("n20")]
    doc = gv.network_html(path40, nodes, labels=keep, edge_labels=True)
    assert _labelled(doc) == set(keep)
    drawn = _vis_nodes(doc)
    assert all(drawn[v]["title"].startswith(path40.node_names[v]) for v in nodes)  # the name on hover
    # relation labels only on edges between two labelled nodes (n0 → n1); the rest on hover
    assert [(e["from"], e["to"]) for e in _vis_edges(doc) if "label" in e] == [(keep[0], keep[1])]


def test_default_labels_prefer_highlighted_and_styled_nodes(path40: KnowledgeGraph) -> None:
    sel = path40.node("n30")
    doc = gv.network_html(path40, range(path40.n_nodes), highlight=[sel], colors={sel: gv.SELECTED_COLOR})
    got = _labelled(doc)
    assert sel in got and path40.node("n0") in got  # the selection, then the hub (highest degree)
    assert len(got) == gv.MAX_LABELS < path40.n_nodes


def test_unlabelled_nodes_do_not_fall_back_to_their_index(path40: KnowledgeGraph) -> None:
    doc = gv.network_html(path40, range(path40.n_nodes), labels=[0])
    assert all(n["label"] in (" ", "n0") for n in _vis_nodes(doc).values())  # pyvis would show the id


def test_labels_stay_escaped_when_chosen() -> None:
    g = graph_from_triples([(XSS, "r&d", "AT&T")] + [(f"x{i}", "r", f"x{i + 1}") for i in range(30)])
    doc = gv.network_html(g, range(g.n_nodes), labels=[g.node(XSS), g.node("AT&T")], edge_labels=True)
    assert XSS not in doc
    nodes = _vis_nodes(doc)
    assert nodes[g.node(XSS)]["label"] == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert nodes[g.node("AT&T")]["label"] == "AT&amp;T"
    assert all("<" not in n["title"] for n in nodes.values())


# ------------------------------------------------------------------------------ legend and fit
def test_the_legend_is_a_strip_outside_the_canvas_and_escaped(matrix_graph: KnowledgeGraph) -> None:
    doc = gv.network_html(matrix_graph, range(matrix_graph.n_nodes), legend=[gv.LegendItem(f"<b>{XSS}</b>", "#000")])
    legend_at, canvas_at = doc.index('<div class="egx-legend"'), doc.index('<div id="mynetwork"')
    assert legend_at < canvas_at and doc[legend_at:canvas_at].count("<div") == doc[legend_at:canvas_at].count("</div>")
    assert XSS not in doc and "&lt;b&gt;&lt;script&gt;" in doc
    css = doc[doc.index(".egx-legend {"):]
    assert "position: absolute" not in css[:css.index("}")]  # never drawn over the nodes
    inline = gv.legend_html([gv.LegendItem(XSS, '#000" onmouseover="x')], inline=True)
    assert XSS not in inline and 'onmouseover="x' not in inline and "display:flex" in inline


def test_a_drawing_may_put_its_legend_under_the_canvas_and_ask_for_bigger_labels(matrix_graph: KnowledgeGraph) -> None:
    """The bubble replay: its legend under the canvas (four rows above it pushed the canvas below the fold of a
    1440×900 projector under the tour's bar) and 15-px labels; other drawings keep the legend above, 13-px labels."""
    nodes = range(matrix_graph.n_nodes)
    legend = [gv.LegendItem("a", "#000"), gv.LegendItem("b", "#111")]
    below = gv.network_html(matrix_graph, nodes, legend=legend, legend_below=True, label_px=15)
    canvas_at, legend_at = below.index('<div id="mynetwork"'), below.index('<div class="egx-legend egx-legend-below"')
    assert canvas_at < legend_at and below.count('class="egx-legend') == 1
    assert ".egx-legend-below {" in below and "PX = 15;" in below and "LABEL_PX" not in below
    above = gv.network_html(matrix_graph, nodes, legend=legend)
    assert above.index('<div class="egx-legend"') < above.index('<div id="mynetwork"')
    assert "PX = 13;" in above


def test_every_drawing_is_fitted_after_layout_and_on_resize(matrix_graph: KnowledgeGraph) -> None:
    nodes = range(matrix_graph.n_nodes)
    free = gv.network_html(matrix_graph, nodes, labels=[3, 1])
    assert "declutter(" in free and "(network, container, true, [3, 1, " in free  # overlap priority order
    assert "stabilizationIterationsDone" in free and "physics: {enabled: false}" in free  # stabilise once, freeze
    assert "ResizeObserver(fit)" in free and "net.fit(" in free
    fixed = gv.network_html(matrix_graph, nodes, positions=gv.layout_positions(matrix_graph, nodes))
    assert "(network, container, false, [" in fixed and '"physics": {"enabled": false' in fixed


def test_layout_spreads_with_the_node_count(path40: KnowledgeGraph) -> None:
    small = gv.layout_positions(path40, range(5))
    big = gv.layout_positions(path40, range(40))

    def extent(pos: dict[int, tuple[float, float]]) -> float:
        return max(max(abs(x), abs(y)) for x, y in pos.values())

    assert extent(big) > 1.8 * extent(small)  # 60·√n + 120: 499 vs 254


def test_a_layout_lies_along_the_wide_canvas(path40: KnowledgeGraph) -> None:
    """The long axis of a layout is horizontal: the canvases are wider than tall, and an upright layout was fitted
    by its height with white on both sides (an audit). The replay's frame is then as tall as its layout needs."""
    from components.bubblerag.expansion import HEIGHT, replay_height

    for n in (12, 40):
        pos = gv.layout_positions(path40, range(n))
        xs, ys = [x for x, _ in pos.values()], [y for _, y in pos.values()]
        assert max(xs) - min(xs) >= max(ys) - min(ys), n
        flat = tuple((v, x, y) for v, (x, y) in sorted(pos.items()))
        assert 380 <= replay_height(flat) <= HEIGHT
    assert replay_height(((0, 0.0, 0.0), (1, 900.0, 10.0))) < replay_height(((0, 0.0, 0.0), (1, 10.0, 900.0)))


def _strands(sizes: list[int]) -> KnowledgeGraph:
    """Disjoint paths of the given sizes (nodes s{i}_{k})."""
    return graph_from_triples([(f"s{i}_{k}", "next", f"s{i}_{k + 1}") for i, n in enumerate(sizes) for k in range(n - 1)])


def test_parts_without_the_ceg_take_a_small_share_of_the_drawing() -> None:
    """A cluster where no bubbles collided took the left half of the Lothair collision, a third below the fold (an
    audit): the parts holding no focus node are drawn small at the edge, none dropped."""
    g = _strands([30, 30, 30])
    nodes = list(range(g.n_nodes))
    part = {v: g.node_names[v].split("_")[0] for v in nodes}
    focus = [v for v in nodes if part[v] == "s2"][:3]

    def span(pos: dict[int, tuple[float, float]], which: set[str]) -> tuple[float, float]:
        xs = [pos[v][0] for v in nodes if part[v] in which]
        ys = [pos[v][1] for v in nodes if part[v] in which]
        return max(xs) - min(xs), max(ys) - min(ys)

    plain = gv.layout_positions(g, nodes)
    pos = gv.layout_positions(g, nodes, focus=focus)
    assert set(pos) == set(nodes)  # never dropped
    whole, main = span(pos, {"s0", "s1", "s2"}), span(pos, {"s2"})
    for side in ("s0", "s1"):
        assert max(span(pos, {side})) < 0.4 * max(main), side
        assert max(span(plain, {side})) > 0.8 * max(span(plain, {"s2"})), side  # before: each its full share
    assert main[0] > 0.7 * whole[0]  # the CEG's part spans the drawing's width
    assert [len(c) for c in gv.side_components(g, nodes, focus)] == [30, 30]
    assert gv.side_components(g, nodes, []) == [] and gv.layout_positions(g, nodes, focus=[]) == plain


def test_the_replay_legend_is_short_and_the_frame_with_it_ends_above_the_fold() -> None:
    """At 1440×900 the replay's legend ended at y≈895 under a four-row strip (an audit): its rows are short and the
    frame, legend included, no taller than the room under the tour's bar. Its legend is at the canvas's top, at the
    labels' size (a 12-px row under the canvas was hard to read on a projector: a later audit)."""
    from components.bubblerag import expansion

    concepts = ["Keanu Reeves", "Laurence Fishburne", "played", "main villain", "movie", "starred", "Hugo Weaving",
                "The Matrix"]
    result = SimpleNamespace(groups=SimpleNamespace(groups=[AnchorGroup(gid=i, concept=c, weight=0.1, members=())
                                                            for i, c in enumerate(concepts)]))
    legend = expansion.replay_legend(result)
    assert len(legend) == len(concepts) + 7  # every group and every mark keeps its row item
    assert gv.legend_rows(legend, expansion.CANVAS_PX) <= 3  # was four at most
    assert gv.legend_rows(legend, expansion.CANVAS_PX, font_px=expansion.LEGEND_FONT_PX) <= 4  # at 17 px
    assert expansion.legend_px(legend) > 10 + 3 * 18  # its rows as tall as 17-px text (18-px rows fit 12-px text)
    assert gv.legend_rows(legend, 200) > gv.legend_rows(legend, 3000) == 1
    tall = ((0, 0.0, 0.0), (1, 10.0, 900.0))
    # under the tour's bar the frame starts at y ≈ 402: the legend at its top, the canvas under it, above the fold
    assert expansion.replay_height(tall, legend=legend) <= expansion.HEIGHT <= 900 - 400
    assert expansion.replay_height(tall, legend=legend) - expansion.legend_px(legend) >= 380  # the canvas keeps room


def test_the_replay_is_drawn_for_the_back_of_a_room() -> None:
    """At 1440×900 the expansion drawing was ≈ 690×380 px with labels read as ≈ 12 px (an audit): the replay bleeds
    into the page's side paddings, so its canvas is wider, and its labels are larger; the side panel keeps its width."""
    from components.bubblerag import expansion

    main = 1440 - 300 - 2 * 80  # the page's main column beside the sidebar at 1440 px
    block = main + 2 * 16 * expansion.REPLAY_BLEED_REM
    assert expansion.CANVAS_PX <= (block - 16) * 5 / 7 and expansion.CANVAS_PX >= 760
    assert (block - 16) * 2 / 7 >= 270  # the side panel: no narrower than before
    assert f".st-key-{expansion.REPLAY_KEY}" in expansion.REPLAY_CSS and "width: calc(100% + 7.0rem)" in expansion.REPLAY_CSS
    assert expansion.LABEL_PX >= 16


# ------------------------------------------------------------------------------ anchor colours
def _cand(kind: str, index: int) -> Candidate:
    return Candidate(cid=f"c{kind}{index}", kind=kind, index=index, text="", score=1.0, keywords=("k",))


def test_a_person_keeps_the_colour_of_the_group_that_names_him(matrix_graph: KnowledgeGraph) -> None:
    """Keanu Reeves is a node anchor of the "Keanu Reeves" group and an endpoint of the film group's
    edge anchor "The Matrix starring Keanu Reeves": he is drawn in his own group's colour."""
    g = matrix_graph
    keanu, matrix = g.node("Keanu Reeves"), g.node("The Matrix")
    starring = next(e for e in range(g.n_edges) if {int(g.edge_head[e]), int(g.edge_tail[e])} == {keanu, matrix})
    person = AnchorGroup(0, "Keanu Reeves", 0.5, (_cand("node", keanu),))
    film = AnchorGroup(1, "film", 0.5, (_cand("edge", starring),))
    result = SimpleNamespace(groups=SimpleNamespace(groups=(person, film)))
    colour = bubble.anchor_colour_groups(result, g)
    assert colour[keanu] == [0]  # before: [0, 1] (and the film group's colour when it came first)
    assert colour[matrix] == [1]  # an endpoint of the film group's edge anchor, no node anchor
    both = AnchorGroup(1, "film", 0.5, (_cand("edge", starring), _cand("node", keanu)))
    assert bubble.anchor_colour_groups(SimpleNamespace(groups=SimpleNamespace(groups=(person, both))), g)[keanu] == [0, 1]
    labels = bubble.drawing_labels(result, g, range(g.n_nodes), first=[g.node("Agent Smith")])
    assert labels[:3] == [g.node("Agent Smith"), keanu, matrix]


def test_the_replay_legend_names_only_the_group_colours_a_frame_draws() -> None:
    """The Keanu collision's legend had a yellow "The Matrix" swatch and no yellow node: the group's one anchor was
    settled by other bubbles too and drawn in their mix. A frame's legend names that group with the mix it shows, and
    leaves out a group none of whose anchors is drawn."""
    from components.bubblerag import expansion

    groups = [AnchorGroup(gid=i, concept=c, weight=0.3, members=()) for i, c in enumerate(["Keanu", "The Matrix", "x"])]
    result = SimpleNamespace(groups=SimpleNamespace(groups=groups))
    blue, yellow = bubble.group_color(0), bubble.group_color(1)
    mix = bubble.blend([blue, yellow])
    fills = {1: blue, 2: mix, 3: "#ffffff"}
    legend = expansion.replay_legend(result, drawn={blue, mix, "#ffffff"}, fills=fills,
                                     terminals={1: [0], 2: [1, 0], 3: [2]})
    rows = {item.label: item.color for item in legend}
    assert rows["Keanu"] == blue
    assert "The Matrix" not in rows and rows[f"The Matrix ({expansion.MIXED_ONLY})"] == mix
    assert not [label for label in rows if label.startswith("x")]  # its anchor is drawn white (in the queue) only
    assert {item.color for item in legend[:2]} <= {blue, mix}  # each group swatch a colour the frame draws
    assert [item.label for item in expansion.replay_legend(result)][:3] == ["Keanu", "The Matrix", "x"]  # no frame
    # an anchor another group settled alone shows that group's own colour, no mix: the group keeps its own swatch,
    # said to be on no node (an audit read four legend rows in one pink)
    legend = expansion.replay_legend(result, drawn={blue, "#ffffff"}, fills={1: blue, 2: blue},
                                     terminals={1: [0], 2: [1]})
    rows = {item.label: item.color for item in legend}
    assert rows[f"The Matrix ({expansion.NO_NODE_NOW})"] == yellow and list(rows.values()).count(blue) == 1


def test_side_parts_get_their_own_boxes_and_no_node_hides_another() -> None:
    """Lothair's collision drew a 40-node part without a CEG in a 200×200-px pile, an anchor hidden inside (an audit):
    each side part is spread until no two of its markers overlap, in its own box, the boxes apart."""
    import random

    rng = random.Random(3)
    dense = [(f"c{rng.randrange(40)}", "r", f"c{k}") for k in range(1, 40)]
    dense += [(f"c{rng.randrange(40)}", "r", f"c{rng.randrange(40)}") for _ in range(40)]
    chain = [(f"p{k}", "next", f"p{k + 1}") for k in range(29)]
    main = [(f"m{k}", "r", f"m{(k * 7 + 3) % 30}") for k in range(30)] + [(f"m{k}", "r", f"m{k + 1}") for k in range(29)]
    g = graph_from_triples([t for t in dense + chain + main if t[0] != t[2]] + [("d0", "r", "d1")])
    nodes = list(range(g.n_nodes))
    part = {v: g.node_names[v][0] for v in nodes}
    focus = [v for v in nodes if part[v] == "m"][:3]
    sizes = {v: (24.0 if k % 9 == 0 else 10.0) for k, v in enumerate(nodes)}  # a few big anchors among them
    pos = gv.layout_positions(g, nodes, focus=focus, sizes=sizes)
    assert set(pos) == set(nodes)
    reach = {v: 1.2 * sizes[v] + 2.0 for v in nodes}
    for which in ("c", "p", "d"):
        vs = [v for v in nodes if part[v] == which]
        for i, a in enumerate(vs):
            for b in vs[i + 1:]:
                dist = math.dist(pos[a], pos[b])
                assert dist >= reach[a] + reach[b] + gv.NODE_GAP - 0.5, (which, a, b, dist)

    def box(which: str) -> tuple[float, float, float, float]:
        vs = [v for v in nodes if part[v] == which]
        return (min(pos[v][0] - reach[v] for v in vs), max(pos[v][0] + reach[v] for v in vs),
                min(pos[v][1] - reach[v] for v in vs), max(pos[v][1] + reach[v] for v in vs))

    boxes = [box(w) for w in "cpdm"]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not (a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]), (a, b)
    # still small beside the part the drawing is about
    assert max(box("c")[1] - box("c")[0], box("p")[1] - box("p")[0]) < 0.6 * (box("m")[1] - box("m")[0])
