"""The GRanker page's rank-shift slope chart (FastInsight §4.3), checked on the real plotly figure: the lines that
matter are named on the chart (a projector shows no hover), no two names overlap, and the caption and legend say
what every colour the chart draws means."""

from __future__ import annotations

import itertools

import pytest

from components import charts, colors
from core.methods.fastinsight.views import RankRow

LIMIT = 10


def row(i: int, plain: int, granker: int, gold: bool = False, name: str | None = None) -> RankRow:
    return RankRow(str(i), name or f"Candidate node number {i} of the demo graph", plain, granker, 0.0, 0.0, gold)


def keanu_like() -> list[RankRow]:
    """The tour's Keanu question as the audit saw it: gold nodes that moved down (6 → 21, 7 → 12), a gold one up,
    blue and red-orange movers, grey lines that kept their rank."""
    gold = [row(90, 6, 21, True, "Hugo Weaving"), row(91, 7, 12, True, "Laurence Fishburne"),
            row(92, 9, 8, True, "Agent Smith")]
    spec = [(1, 1), (2, 2), (3, 4), (4, 3), (5, 5), (8, 6), (10, 9), (12, 7), (13, 10), (14, 13), (11, 11)]
    return gold + [row(i, p, g) for i, (p, g) in enumerate(spec)]


def dense(n: int = 60) -> list[RankRow]:
    """Many movers over a long rank span: the chart reaches its height cap and rows are tighter than a label."""
    rows = [row(i, i + 1, n - i) for i in range(n)]
    rows[3] = row(3, 4, 40, True, "Hugo Weaving")
    rows[41] = row(41, 42, 2, True, "Laurence Fishburne")
    return rows


def label_boxes(fig) -> list[tuple[str, float, float, float, float]]:
    """Each annotation's screen box (text, left, top, right, bottom) in pixels of a 980-px-wide chart (the page's
    main column at 1440), from the figure's own height, margins, axis ranges and fonts."""
    lay = fig.layout
    m, width, height = lay.margin, 980, lay.height
    (x0, x1), (y0, y1) = lay.xaxis.range, lay.yaxis.range
    pw, ph = width - m.l - m.r, height - m.t - m.b
    out = []
    for a in lay.annotations:
        assert a.xref == "x" and a.yref == "y" and a.xanchor == "left"
        # an annotation outside its axis's range is not drawn (the old chart's names sat at x = 1.02 of [-0.1, 1.0])
        assert min(x0, x1) <= a.x <= max(x0, x1) and min(y0, y1) <= a.y <= max(y0, y1), a.text
        px = m.l + (a.x - x0) / (x1 - x0) * pw + (a.xshift or 0)
        py = m.t + (a.y - y1) / (y0 - y1) * ph
        size = a.font.size
        w, h = 0.6 * size * len(a.text), 1.3 * size
        out.append((a.text, px, py - h / 2, px + w, py + h / 2))
    return out


@pytest.mark.parametrize(("rows", "roomy"), [(keanu_like(), True), (dense(), False)], ids=["keanu", "dense"])
def test_gold_and_biggest_movers_are_named_without_overlap(rows: list[RankRow], roomy: bool) -> None:
    """Where ranks are tighter than a label (``roomy`` false), a mover's name that would overlap one placed before it
    is left to the hover; the gold names are placed first."""
    fig = charts.rank_shift_figure(rows, LIMIT)
    boxes = label_boxes(fig)
    texts = [b[0] for b in boxes]
    for gold in (r for r in rows if r.gold):
        assert any(t.startswith(gold.title) and f"{gold.plain_rank} → {gold.granker_rank}" in t for t in texts), texts
    shown = [r for r in rows if r.plain_rank <= LIMIT or r.granker_rank <= LIMIT]
    for direction in (1, -1) if roomy else ():  # the biggest mover each way, red-orange included
        biggest = max((r for r in shown if not r.gold and r.shift * direction > 0), key=lambda r: abs(r.shift))
        name = charts.graph_view.short_label(biggest.title, 24)
        assert any(t.startswith(f"{name}  {biggest.plain_rank} → ") for t in texts), (name, texts)
    assert all(a.font.size >= 14 for a in fig.layout.annotations)  # read from the back of a room
    for a, b in itertools.combinations(boxes, 2):
        overlap = a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
        assert not overlap, (a, b)
    assert all(b[3] <= 980 for b in boxes), boxes  # the names fit in the right margin, none cut at the edge
    assert fig.layout.height <= charts.SHIFT_MAX_HEIGHT


def test_caption_and_legend_name_every_colour_the_chart_draws() -> None:
    rows = keanu_like()
    fig = charts.rank_shift_figure(rows, LIMIT)
    caption = charts.rank_shift_caption("node")
    lines = [t for t in fig.data if t.x[0] is not None]
    drawn = {t.line.color for t in lines}
    assert drawn == {c for _, c, _ in charts.SHIFT_KINDS}  # gold, up, down and unchanged all occur here
    legend = {t.name: t.line.color for t in fig.data if t.showlegend is not False}
    for color in drawn:
        name = colors.NAMES[color]
        assert f"{name}: " in caption, (name, caption)
        assert color in legend.values()
    # a gold line is green whichever way it moved, and the caption says so (it read "orange moved down, green is
    # gold" under gold lines that moved down in green)
    hugo = next(t for t in lines if "Hugo Weaving" in t.hovertext)
    assert hugo.line.color == colors.GOLD and list(hugo.y) == [6, 21]
    assert f"{colors.NAMES[colors.GOLD]}: gold evidence (thick line), whichever way it moved" in caption
    assert f"{colors.NAMES[colors.EDGE]}: the same rank in both" in caption
    assert "orange moved down" not in caption
