"""The label placement rule of every drawing (assets/label_place.js, inlined by components/graph_view.py), run with
node: a label never covers another label, another node's marker (a diamond's corners included) or a red (CEG) edge;
a label with no clear spot near its node is left to the hover, and the nodes a step is about look further out first."""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from components import graph_view

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def place(items: list[dict], markers: list[dict], lines: list[list[float]], pad: float = 0.0) -> dict[int, dict]:
    script = (f"const m = require({json.dumps(str(ROOT / 'assets' / 'label_place.js'))});\n"
              f"process.stdout.write(JSON.stringify(m.egxPlaceLabels({json.dumps(items)}, {json.dumps(markers)}, "
              f"{json.dumps(lines)}, {pad})));")
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60, check=True)
    return {int(k): v for k, v in json.loads(out.stdout).items()}


def marker(i: int, x: float, y: float, r: float, diamond: bool = False) -> dict:
    half = r * (1.45 if diamond else 1) + 2
    return {"id": i, "l": x - half, "r": x + half, "t": y - half, "b": y + half}


def hits(a: dict, b: dict) -> bool:
    return a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]


def crosses(box: dict, s: list[float], steps: int = 200) -> bool:
    return any(box["l"] < s[0] + (s[2] - s[0]) * k / steps < box["r"] and box["t"] < s[1] + (s[3] - s[1]) * k / steps
               < box["b"] for k in range(steps + 1))


def scene(seed: int, n: int = 40, must: int = 5) -> tuple[list[dict], list[dict], list[list[float]]]:
    rng = random.Random(seed)
    pts = [(rng.uniform(0, 500), rng.uniform(0, 320), rng.uniform(8, 22), rng.random() < 0.4) for _ in range(n)]
    markers = [marker(i, x, y, r, d) for i, (x, y, r, d) in enumerate(pts)]
    items = [{"id": i, "x": x, "y": y, "r": r * (1.45 if d else 1) + 2, "w": rng.uniform(40, 130), "h": 16.0,
              "gap": 6.0, "must": i < must} for i, (x, y, r, d) in enumerate(pts)]
    lines = [[pts[i][0], pts[i][1], pts[i + 1][0], pts[i + 1][1]] for i in range(0, 6, 2)]
    return items, markers, lines


@pytest.mark.parametrize("seed", range(6))
def test_no_label_covers_a_label_a_node_or_a_red_edge(seed: int) -> None:
    items, markers, lines = scene(seed)
    got = place(items, markers, lines)
    assert got, "some labels are placed"
    boxes = list(got.items())
    for k, (i, box) in enumerate(boxes):
        assert not [m["id"] for m in markers if m["id"] != i and hits(box, m)], (i, box)
        assert not [s for s in lines if crosses(box, s)], (i, box)
        assert not [j for j, other in boxes[:k] if hits(box, other)], (i, box)


def test_a_crowded_node_loses_its_label_and_a_must_node_looks_further_out() -> None:
    # a plain node (0) walled in above, below, left and right by other nodes; a node the step is about (1) with a
    # red cross through it that takes its four usual spots (nodes as close as node 0's walls would make any spot
    # nearer to one of them than to node 1: that label would read as theirs)
    markers = [marker(0, 0.0, 0.0, 10), marker(1, 400.0, 0.0, 10)]
    items = [{"id": i, "x": x, "y": 0.0, "r": 12.0, "w": 60.0, "h": 16.0, "gap": 6.0, "must": i == 1}
             for i, x in enumerate([0.0, 400.0])]
    for k, (dx, dy) in enumerate([(0, 30), (0, -30), (55, 0), (-55, 0)]):
        markers.append(marker(10 + k, dx, dy, 8))
    cross = [[400.0, -60.0, 400.0, 60.0], [340.0, 0.0, 460.0, 0.0]]
    got = place(items, markers, cross)
    assert 0 not in got  # no free spot near it: the name is on hover, nothing is covered
    assert 1 in got  # further out: clear of every node and of the cross
    assert not [m["id"] for m in markers if m["id"] != 1 and hits(got[1], m)]
    assert not [s for s in cross if crosses(got[1], s)]
    assert got[1]["dx"] != 0 and got[1]["dy"] != 0  # neither of its four usual spots


def test_a_label_steps_off_a_red_edge_and_keeps_its_margin() -> None:
    markers = [marker(0, 0, 0, 10, diamond=True), marker(1, 0, 80, 10)]
    items = [{"id": 0, "x": 0.0, "y": 0.0, "r": 16.5, "w": 80.0, "h": 16.0, "gap": 6.0, "must": True}]
    below = place(items, markers, [])[0]
    assert below["dx"] == 0 and below["dy"] == 0  # its usual place below when nothing is in the way
    moved = place(items, markers, [[0.0, 0.0, 0.0, 80.0]])[0]  # a red edge runs down from it
    assert not crosses(moved, [0.0, 0.0, 0.0, 80.0])
    # a margin: a label does not end against another node's marker (an audit measured 5 px to a red diamond)
    near = [marker(0, 0, 0, 10), marker(1, 45, 30, 10, diamond=True)]
    got = place([{**items[0], "r": 12.0}], near, [], pad=4.0)
    box = got[0]
    grown = {"l": box["l"] - 4, "r": box["r"] + 4, "t": box["t"] - 4, "b": box["b"] + 4}
    assert not hits(grown, near[1])


def test_every_drawing_carries_the_rule_and_marks_its_red_edges(tmp_path: Path) -> None:
    from core.graph.graph_builder import GraphBuilder

    b = GraphBuilder(kind="test", name="t")
    for name in "abc":
        b.add_node(name, node_id=name)
    b.add_edge("a", "r", "b")
    b.add_edge("b", "r", "c")
    g = b.build()
    red = graph_view.AVOID_EDGE_COLOR
    doc = graph_view.network_html(g, [0, 1, 2], edge_colors={0: red, 1: "#444444"})
    assert "function egxPlaceLabels" in doc and "egxPlaceLabels(items, markers, lines" in doc
    assert doc.count('"egxAvoid": true') == 1



def nearest(box: dict, x: float, y: float) -> float:
    ex, ey = max(box["l"] - x, 0.0, x - box["r"]), max(box["t"] - y, 0.0, y - box["b"])
    return float((ex * ex + ey * ey) ** 0.5)


def whose(box: dict, item: dict, markers: list[dict]) -> float:
    """How much nearer the box is to its own node's centre than to any other node's (1.5: half as near again)."""
    own = max(nearest(box, item["x"], item["y"]), 1.0)
    return min(nearest(box, (m["l"] + m["r"]) / 2, (m["t"] + m["b"]) / 2) for m in markers if m["id"] != item["id"]) / own


def apart(a: dict, b: dict, sep: float) -> bool:
    return not hits({"l": a["l"] - sep, "r": a["r"] + sep, "t": a["t"] - sep, "b": a["b"] + sep}, b)


def centre_gap(box: dict, item: dict, markers: list[dict]) -> float:
    """The nearest other node's centre from the box."""
    return min(nearest(box, (m["l"] + m["r"]) / 2, (m["t"] + m["b"]) / 2) for m in markers if m["id"] != item["id"])


FAR_OUT = 10  #: label heights a leader line may reach (assets/label_place.js)


@pytest.mark.parametrize("seed", range(6))
def test_each_label_says_whose_it_is_and_stays_near_its_node(seed: int) -> None:
    items, markers, lines = scene(seed)
    for it in items[5:12]:
        it["keep"] = True  # kept like a must, after them
    got = place(items, markers, lines)
    assert got
    for i, box in got.items():
        it = items[i]
        gap = nearest(box, it["x"], it["y"]) - it["r"]
        if "lead" not in box:  # near its node (no further than half a label height past vis-network's own place)
            assert gap <= it["h"] / 2 + it["gap"] + 1, (i, gap)  # and nearer to it than to any other by a margin
            assert whose(box, it, markers) >= 1.5, (i, box)
        else:  # a name the step is about, walled in: a line from its node, passing no other node
            assert it["must"] or it.get("keep")
            assert gap <= FAR_OUT * it["h"] + it["h"], (i, gap)
            assert not [m["id"] for m in markers if m["id"] != i and crosses(m, box["lead"], 400)], (i, box)
            # never set between other nodes nearer to it than its own
            assert centre_gap(box, it, markers) >= min(nearest(box, it["x"], it["y"]), 1.5 * it["h"] + it["r"]) - 1e-6
        # two labels flush against each other read as one block of two lines
        assert all(apart(box, other, it["h"] - 0.5) for j, other in got.items() if j != i), (i, box)
    # the leader lines cross no other label and no other leader line
    for i, box in got.items():
        if "lead" in box:
            assert not [j for j, o in got.items() if j != i and crosses(o, box["lead"], 400)], (i, box)


def test_a_walled_in_anchor_takes_a_leader_line_out_to_free_space() -> None:
    """"Laurence Fishburne", an anchor and the best CEG's meeting node, sat among six named neighbours with no spot
    near it that read as its own, and went unlabelled (an audit: "where is Fishburne?"): its name goes further out,
    at the end of a dashed line that passes no other node."""
    pts = [(0.0, 0.0)] + [(110.0 * math.cos(a * math.pi / 3), 110.0 * math.sin(a * math.pi / 3)) for a in range(6)]
    markers = [marker(i, x, y, 18, diamond=True) for i, (x, y) in enumerate(pts)]
    items = [{"id": i, "x": x, "y": y, "r": 28.0, "w": 180.0 if i else 340.0, "h": 38.0, "gap": 22.0, "must": i <= 1}
             for i, (x, y) in enumerate(pts)]
    got = place(items, markers, [], pad=7.0)
    assert 0 in got and "lead" in got[0], got.get(0)
    assert not [m["id"] for m in markers if m["id"] != 0 and crosses(m, got[0]["lead"], 400)]
    assert not [m["id"] for m in markers if m["id"] != 0 and hits(got[0], m)]


def test_two_close_must_nodes_do_not_share_one_label_block() -> None:
    # the expansion drawing's two red diamonds, one up-left of the other with the red edge between them, walled in by
    # their neighbours: their names were stacked below-left of both and read as one two-line label
    pts = {0: (524, 508, True), 11: (591, 602, True), 2: (471, 574, False), 6: (643, 533, False),
           8: (334, 560, False), 3: (569, 448, True), 1: (506, 415, True), 7: (533, 662, True),
           4: (373, 460, True), 9: (768, 440, True), 5: (639, 387, True), 20: (294, 410, False)}
    markers = [marker(i, x, y, 18.5, d) for i, (x, y, d) in pts.items()]
    width = {0: 176.0, 11: 202.0}
    items = [{"id": i, "x": float(pts[i][0]), "y": float(pts[i][1]), "r": 18.5, "w": width[i], "h": 36.0,
              "gap": 22.0, "must": True} for i in (0, 11)]
    red = [[524.0, 508.0, 591.0, 602.0]]
    got = place(items, markers, red, pad=7.0)
    for i, box in got.items():
        it = items[0 if i == 0 else 1]
        assert not crosses(box, red[0])
        assert "lead" in box or whose(box, it, markers) >= 1.5, (i, box)
    if len(got) == 2:
        assert apart(got[0], got[11], 35.5), got
        # each on the side facing away from the other: The Matrix's (up-left) not below-right of Agent Smith's
        c0 = ((got[0]["l"] + got[0]["r"]) / 2, (got[0]["t"] + got[0]["b"]) / 2)
        c11 = ((got[11]["l"] + got[11]["r"]) / 2, (got[11]["t"] + got[11]["b"]) / 2)
        assert (c11[0] - c0[0]) * (591 - 524) + (c11[1] - c0[1]) * (602 - 508) > 0, got


def test_a_label_with_no_spot_within_reach_is_left_to_the_hover() -> None:
    # a wide name whose node has red edges running close by on both sides: the old rule put it ~6 label heights out
    markers = [marker(0, 0, 0, 10, diamond=True)]
    walls = [[-80.0, -300.0, -80.0, 300.0], [80.0, -300.0, 80.0, 300.0]]
    for must in (True, False):
        item = {"id": 0, "x": 0.0, "y": 0.0, "r": 16.5, "w": 200.0, "h": 16.0, "gap": 6.0, "must": must}
        assert place([item], markers, walls) == {}


#: The Keanu question's first collision frame as the tour drew it at 1440×900 (canvas units): every marker (id, x, y,
#: half size), the labelled nodes (id, marker half size, label width, "m" a name the step is about, "k" another
#: anchor) and the red CEG edge in segments; labels 37.8 high, 22.9 below their node.
KEANU_MARKERS = [
    (0, 524, 508, 29.2), (1, 506, 415, 27.5), (2, 471, 574, 18.6), (3, 569, 448, 30.6), (4, 373, 460, 35.5),
    (5, 639, 387, 36.8), (6, 643, 533, 19.1), (7, 533, 662, 29.0), (8, 334, 560, 18.7), (9, 768, 440, 29.1),
    (10, 778, 581, 18.3), (11, 591, 602, 29.0), (12, 718, 670, 19.0), (13, 640, 734, 19.1), (14, 578, 788, 18.9),
    (15, 648, 898, 28.9), (16, 462, 772, 29.6), (17, 433, 898, 30.9), (18, 387, 354, 18.9), (19, 267, 482, 19.8),
    (20, 294, 410, 19.0), (21, 747, 373, 26.6), (22, 725, 269, 28.1), (23, 606, 269, 27.7), (24, 295, 319, 31.0),
    (25, 329, 188, 30.3), (26, 246, 210, 25.7), (27, 64, 209, 21.0), (28, 162, 285, 27.1), (29, 245, 552, 29.7),
    (30, 189, 664, 18.2), (31, 0, 600, 18.4), (32, 114, 557, 26.4), (33, 707, 136, 28.0), (34, 808, 179, 21.3),
    (35, 866, 274, 20.4), (82, 1010, 184, 18.9), (83, 956, 184, 18.1), (84, 1066, 184, 18.6), (85, 1097, 232, 17.9),
    (86, 1097, 136, 26.9)]
KEANU_ITEMS = [
    (0, 18.8, 183, "m"), (11, 18.6, 210, "m"), (21, 17.0, 164, "m"), (9, 18.7, 172, "m"), (22, 18.0, 286, "m"),
    (23, 17.7, 284, "m"), (4, 23.1, 252, "m"), (5, 24.0, 340, "m"), (15, 18.6, 368, "k"), (24, 20.0, 302, "k"),
    (86, 17.2, 271, "k"), (1, 17.6, 288, "k"), (3, 19.8, 422, "k"), (7, 18.6, 251, "k"), (16, 19.0, 166, "k"),
    (17, 19.9, 604, "k"), (25, 19.5, 258, "k"), (26, 16.3, 206, "k"), (28, 17.3, 252, "k"), (29, 19.1, 273, "k"),
    (32, 16.8, 243, "k"), (33, 17.9, 368, "k")]
KEANU_RED = [[591, 602, 580, 590], [580, 590, 569, 578], [569, 578, 560, 567], [560, 567, 551, 555],
             [551, 555, 543, 543], [543, 543, 536, 532], [536, 532, 529, 520], [529, 520, 524, 508]]


def test_the_keanu_collision_names_every_node_it_is_about_each_pointing_at_its_own() -> None:
    """Tour step 2's collision: "Laurence Fishburne" (an anchor, the best CEG's meeting node) had no label and "Boyz n
    the Hood", shifted up-left of its node, floated above two orange diamonds with no line (an audit)."""
    pos = {i: (float(x), float(y)) for i, x, y, _ in KEANU_MARKERS}
    markers = [{"id": i, "l": x - r, "r": x + r, "t": y - r, "b": y + r} for i, x, y, r in KEANU_MARKERS]
    items = [{"id": i, "x": pos[i][0], "y": pos[i][1], "r": r, "w": float(w), "h": 37.8, "gap": 22.9,
              "must": kind == "m", "keep": kind == "k"} for i, r, w, kind in KEANU_ITEMS]
    got = place(items, markers, KEANU_RED, pad=7.6)
    musts = [it for it in items if it["must"]]
    assert not [it["id"] for it in musts if it["id"] not in got]  # every name the step is about, Fishburne (5) too
    kept = [it for it in items if it["keep"]]
    assert sum(it["id"] in got for it in kept) >= 0.8 * len(kept)  # the other anchors where room is (20 of 22 now)
    for it in items:
        box = got.get(it["id"])
        if box is None:
            continue
        if "lead" in box:  # a line from its node, passing no other node, label or red edge
            assert not [m["id"] for m in markers if m["id"] != it["id"] and crosses(m, box["lead"], 400)], it["id"]
            assert not [j for j, o in got.items() if j != it["id"] and crosses(o, box["lead"], 400)], it["id"]
        else:  # near its node and pointing at it: centred over or under it, or level with it beside it
            assert nearest(box, it["x"], it["y"]) - it["r"] <= it["h"] / 2 + it["gap"] + 1, it["id"]
            cx, cy = (box["l"] + box["r"]) / 2, (box["t"] + box["b"]) / 2
            assert abs(cx - it["x"]) <= it["w"] / 6 + 1e-6 or abs(cy - it["y"]) <= it["h"] / 2 + 1e-6, it["id"]
