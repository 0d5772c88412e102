"""Interactive graph drawings with pyvis (vis-network), embedded in an iframe.

``network_html`` is pure (no Streamlit): it turns a node set of a
:class:`~core.graph.model.KnowledgeGraph` into one self-contained HTML document (vis-network
inlined, so it works offline and inside the iframe). ``render_html`` embeds it; ``show_graph`` adds
the node cap and its visible note. Later pages (bubble expansion, CEG ranking) reuse the colour and
size maps, the legend and fixed ``positions`` so frames of an animation do not jump around.

Graph labels are user data, so none reaches the page as markup:

* every node/edge label and tooltip is escaped with :func:`html.escape` before it reaches pyvis,
  and pyvis's Jinja ``tojson`` escapes ``<``, ``>``, ``&`` once more inside the ``<script>``;
* in the browser a small script decodes them back into *plain text* (canvas labels; tooltips
  become DOM text nodes — pyvis would otherwise ``innerHTML`` a title containing "href"), so
  ``AT&T`` reads as written and ``<script>`` is shown, never run;
* the legend is escaped with :func:`html.escape`.

Readable at every size, from a narrow column to a full page:

* the legend is an HTML strip *above* the canvas (never drawn over nodes), or below it where the controls
  above already push the canvas down (``legend_below``);
* the layout is stabilised once, then physics is frozen and the view is fitted to the frame
  (``network.fit()``), again whenever the frame changes size (a tab shown, a column resized);
* only the nodes that matter carry a canvas label (:func:`label_choice`): all of a small drawing,
  else the ones a page names (anchors, the meeting node, the CEG, gold) — the rest on hover.

On a workspace whose graph lives in a graph store the drawings take the
:class:`~core.graph.view.StoreGraphView` of the page instead of the whole graph: they read only
per-node and per-edge items (and one neighbour read per BFS layer in :func:`limit_nodes`), fetched in
one batch per kind before drawing, and produce the same HTML as in memory
(``tests/app/test_store_pages.py``).
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from components import colors
from core.graph.model import KnowledgeGraph

if TYPE_CHECKING:
    from core.graph.reader import GraphLike

DEFAULT_MAX_NODES = 300
DEFAULT_HEIGHT = 620

# Colours: components/colors.py (Okabe–Ito based: distinguishable with the common colour-vision deficiencies).
NODE_COLOR = colors.NODE
EDGE_COLOR = colors.EDGE
SELECTED_COLOR = colors.SELECTED
CENTER_COLOR = colors.CENTER
PALETTE = colors.DRAWING
AVOID_EDGE_COLOR = colors.CEG  #: edges drawn in this colour (a CEG's) are kept clear of labels

_LABEL_CHARS = 40
LABEL_ALL_UP_TO = 20  #: drawings with at most this many nodes label every node
MAX_LABELS = 24  #: at most this many canvas labels on a bigger drawing (the rest on hover)
MAX_EDGE_LABELS = 30  #: relation labels only when at most this many edges join labelled nodes
LABEL_PX = 13  #: node labels' height on screen, in pixels, at any zoom (a drawing may ask for more)
LEGEND_FONT_PX = 12  #: the legend strip's text (assets/graph_view.css; a drawing may ask for more)


@dataclass(frozen=True)
class LegendItem:
    """One legend row: a colour swatch and what it means."""

    label: str
    color: str
    shape: str = "dot"  # "dot", "line" or "diamond" (the node shape of a drawing's anchors)


def escape(text: object) -> str:
    """HTML-escape user text (``&``, ``<``, ``>``, quotes)."""
    return html.escape(str(text), quote=True)


def short_label(name: str, limit: int = _LABEL_CHARS) -> str:
    """Clip long names for the canvas (the tooltip keeps the full text)."""
    name = " ".join(str(name).split())
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def degree_sizes(graph: GraphLike, nodes: Iterable[int], *, lo: float = 10, hi: float = 34) -> dict[int, float]:
    """Node sizes growing with the log of the degree, in ``[lo, hi]``."""
    nodes = list(nodes)
    if not nodes:
        return {}
    deg = np.log1p(graph.degree[np.asarray(nodes, dtype=np.int64)].astype(float))
    top = float(deg.max()) or 1.0
    return {v: lo + (hi - lo) * float(d) / top for v, d in zip(nodes, deg)}


def label_choice(nodes: Iterable[int], important: Iterable[int] = (), *, degree: Sequence[int] | None = None,
                 all_up_to: int = LABEL_ALL_UP_TO, limit: int = MAX_LABELS, fill: bool = True) -> list[int]:
    """The drawn nodes that carry a canvas label, most important first (the others show their
    name on hover; where two chosen labels would overlap on screen, the browser shows the first).

    Every node of a drawing with at most ``all_up_to`` nodes; else the ``important`` ones in their
    order (those not drawn are skipped), then — when ``fill`` — the best connected by ``degree``,
    up to ``limit`` labels in all.
    """
    drawn = sorted({int(v) for v in nodes})
    inside = set(drawn)
    out: dict[int, None] = {}
    cap = len(drawn) if len(drawn) <= all_up_to else limit
    for v in important:
        if len(out) >= cap:
            break
        if int(v) in inside:
            out[int(v)] = None
    rest = sorted(drawn, key=lambda u: (-int(degree[u]), u)) if degree is not None else drawn
    if len(drawn) <= all_up_to or fill:
        for v in rest:
            if len(out) >= cap:
                break
            out.setdefault(v, None)
    return list(out)


def limit_nodes(graph: GraphLike, nodes: Iterable[int], max_nodes: int = DEFAULT_MAX_NODES, *,
                center: Sequence[int] = ()) -> tuple[list[int], bool]:
    """Keep at most ``max_nodes`` of ``nodes``: the closest to ``center`` first, then by degree.

    Returns the kept nodes (sorted) and whether anything was dropped.
    """
    nodes = sorted({int(v) for v in nodes})
    if len(nodes) <= max_nodes:
        return nodes, False
    if not isinstance(graph, KnowledgeGraph):
        graph.degree.prefetch(nodes)  # only degrees decide here; the kept nodes' rows are read when drawn
    deg = graph.degree
    hops = _hops_within(graph, center, set(nodes)) if center else {}
    key = {v: (hops.get(v, 1 << 30), -int(deg[v]), v) for v in nodes}
    kept = sorted(nodes, key=key.__getitem__)[:max_nodes]
    return sorted(kept), True


def _hops_within(graph: GraphLike, sources: Sequence[int], allowed: set[int]) -> dict[int, int]:
    """Undirected BFS hop counts from ``sources``, walking only through ``allowed`` nodes (layer by
    layer: on a graph store, one neighbour read per layer)."""
    dist = {int(s): 0 for s in sources}
    layer, hop = sorted(dist), 0
    while layer:
        hop += 1
        nxt: list[int] = []
        for row in _neighbour_rows(graph, layer):
            for u in row:
                if u in allowed and u not in dist:
                    dist[u] = hop
                    nxt.append(u)
        layer = sorted(nxt)
    return dist


def _neighbour_rows(graph: GraphLike, nodes: Sequence[int]) -> list[list[int]]:
    """The neighbours of each of ``nodes`` in either direction: from the CSR of a graph in memory, in
    one read from a graph store's view."""
    if isinstance(graph, KnowledgeGraph):
        indptr, nbr = graph.csr.indptr, graph.csr.nbr
        return [nbr[indptr[v]:indptr[v + 1]].tolist() for v in nodes]
    return [row.tolist() for row in graph.neighbor_lists(list(nodes))]


def _prefetch(graph: GraphLike, nodes: Iterable[int], edges: Iterable[int] = ()) -> None:
    """On a graph store's view, read what a drawing of ``nodes`` / ``edges`` shows in one batch per
    kind (names, descriptions, degrees, edge rows); nothing for a graph in memory."""
    if not isinstance(graph, KnowledgeGraph):
        graph.prefetch_drawing(nodes, edges)


def _lying(pos: Mapping[Any, Any]) -> dict[int, tuple[float, float]]:
    """``pos`` turned about its centre so that its long axis lies horizontal (the principal axis of the points), and
    scaled back into the [-1, 1] box: the canvases are wider than tall, and an upright layout was fitted by its height
    with white on both sides (an audit on the projector)."""
    import numpy as np

    keys = list(pos)
    xy = np.array([pos[k] for k in keys], dtype=float).reshape(len(keys), 2)
    xy -= xy.mean(axis=0)
    if len(keys) > 2:
        _, vecs = np.linalg.eigh(np.cov(xy.T))
        major = vecs[:, -1]  # eigh sorts ascending: the last is the long axis
        major = -major if (major[0], major[1]) < (0.0, 0.0) else major  # one sign on every BLAS: no mirrored layout
        xy = xy @ np.array([[major[0], -major[1]], [major[1], major[0]]])
    half = float(np.abs(xy).max()) or 1.0  # back into the [-1, 1] box spring_layout gives (its packing square)
    return {int(k): (float(x) / half, float(y) / half) for k, (x, y) in zip(keys, xy)}


#: The largest connected part laid out by Kamada–Kawai (its cost grows with the square of the nodes; above this the
#: spring layout).
KK_MAX_NODES = 150


#: The share of a layout's radius a connected part without any ``focus`` node gets (:func:`layout_positions`), at
#: most: a part is spread further where its nodes would overlap.
SIDE_SCALE = 0.35
SIDE_GAP = 60.0  #: the space between two side parts' boxes (layout units)
NODE_GAP = 6.0  #: the least space between two side-part nodes' markers (layout units)


def layout_positions(graph: GraphLike, nodes: Iterable[int], *, seed: int = 0,
                     scale: float | None = None, focus: Iterable[int] = (),
                     sizes: Mapping[int, float] | None = None) -> dict[int, tuple[float, float]]:
    """Deterministic spring layout of the subgraph on ``nodes`` (for frame-stable animations).

    Each connected component gets its own spring layout, in a disc whose radius grows with the
    square root of its size (``scale`` = the radius of a whole connected drawing; default
    ``60·√n + 120``), and the components are packed in rows for a wide frame, biggest first: one
    spring layout of a disconnected drawing pushes the components to the rim and squeezes each
    into a pile. The drawing is fitted
    to its frame in the browser anyway.

    ``focus``: the nodes the drawing is about (the bubble replay: its collisions' CEGs). When some components hold
    one and others none, the others are drawn small in a strip under (or, for a tall main part, beside) the ones that
    do: an unrelated cluster took the left half of the Lothair collision and pushed a third below the fold (an
    audit). They stay drawn, small: nothing is dropped. Each side part gets its own box, packed in rows with
    :data:`SIDE_GAP` between boxes, and is drawn at :data:`SIDE_SCALE` of its size unless its nodes would overlap
    there: then it is spread until no two of its nodes' markers (``sizes``: the drawn sizes, default 12) come
    closer than :data:`NODE_GAP` (a 40-node part of grey nodes piled in a 200-px block over an anchor: an audit)."""
    import networkx as nx

    nodes = sorted({int(v) for v in nodes})
    if not nodes:
        return {}
    g = nx.Graph()
    g.add_nodes_from(nodes)
    for e in graph.induced_edges(nodes).tolist():
        g.add_edge(int(graph.edge_head[e]), int(graph.edge_tail[e]))

    def radius(n: int) -> float:
        return (60.0 * math.sqrt(n) + 120.0) if scale is None else scale * math.sqrt(n / len(nodes))

    def spread(sub: nx.Graph) -> dict[int, tuple[float, float]]:
        if sub.number_of_nodes() <= KK_MAX_NODES:
            # Kamada–Kawai spaces a small drawing by graph distance: the spring layout piled a hub's neighbours
            # (Keanu Reeves, The Matrix and their films) in the middle, where labels sat on nodes (an audit)
            pos = nx.kamada_kawai_layout(sub, pos=nx.spring_layout(sub, seed=seed, iterations=30))
        else:
            pos = nx.spring_layout(sub, seed=seed, k=1.5 / math.sqrt(sub.number_of_nodes()), iterations=100)
        return _lying(pos)

    comps = sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: (-len(c), c[0]))
    wanted = {int(v) for v in focus}
    main = [c for c in comps if wanted.intersection(c)] or comps
    side = [c for c in comps if not wanted.intersection(c)] if len(main) < len(comps) else []
    if len(comps) == 1:
        pos = spread(g)
        r = radius(len(nodes))
        return {int(v): (float(x) * r, float(y) * r) for v, (x, y) in pos.items()}
    out = _pack(g, main, radius, spread)
    if side:
        xs, ys = [p[0] for p in out.values()], [p[1] for p in out.values()]
        left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)
        wide = bottom - top <= 0.75 * (right - left)
        reach = {v: 1.2 * float((sizes or {}).get(v, 12.0)) + 2.0 for v in nodes}  # a marker's half size, diamonds too
        parts = [_side_part(g, c, SIDE_SCALE * radius(len(c)), spread, reach) for c in side]
        strip = _shelves(parts, max(right - left, 300.0) if wide else max(300.0, max(p[1][0] for p in parts)))
        if wide:  # a wide main part: the strip under it
            dx, dy = left, bottom + 90.0
        else:  # a tall one: beside it
            dx, dy = right + 90.0, top
        out.update({v: (x + dx, y + dy) for v, (x, y) in strip.items()})
    return out


def _side_part(g: Any, comp: list[int], r: float, spread: Any,
               reach: Mapping[int, float]) -> tuple[dict[int, tuple[float, float]], tuple[float, float]]:
    """One side part laid out at radius ``r``, spread where two nodes' markers (``reach``: half sizes) would come
    closer than :data:`NODE_GAP`, then pushed apart pair by pair; its positions from its box's top-left corner and the
    box's (width, height), the markers included."""
    import numpy as np

    pos = spread(g.subgraph(comp)) if len(comp) > 1 else {comp[0]: (0.0, 0.0)}
    keys = [int(v) for v in pos]
    xy = np.array([pos[v] for v in keys], dtype=float).reshape(len(keys), 2)
    rad = np.array([reach[v] for v in keys])
    if len(keys) > 1:
        need = rad[:, None] + rad[None, :] + NODE_GAP
        np.fill_diagonal(need, 0.0)
        dist = np.sqrt(((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1))
        np.fill_diagonal(dist, np.inf)
        # the scale at which most nodes clear their nearest neighbour; the few still too close are pushed apart
        r = max(r, float(np.median((need / np.maximum(dist, 1e-9)).max(axis=1))))
        xy *= r
        rng = np.random.default_rng(0)
        for _ in range(300):
            d = xy[:, None, :] - xy[None, :, :]
            dist = np.sqrt((d ** 2).sum(-1))
            np.fill_diagonal(dist, np.inf)
            short = need - dist
            if short.max() <= 0.01:
                break
            same = dist < 1e-6  # two nodes on one spot: apart in a random direction
            d = np.where(same[..., None], rng.normal(size=d.shape), d)
            dist = np.where(same, np.sqrt((d ** 2).sum(-1)), dist)
            push = np.clip(short, 0.0, None)[..., None] * d / dist[..., None] / 2 * 1.05
            xy += push.sum(axis=1)
    lo = (xy - rad[:, None]).min(axis=0)
    hi = (xy + rad[:, None]).max(axis=0)
    step = 2 * float(rad.max()) + NODE_GAP
    cols = math.ceil(math.sqrt(len(keys) * 1.6))  # a grid a little wider than tall, for the wide canvas
    rows = math.ceil(len(keys) / cols)
    if float((hi - lo).max()) > 2 * max(cols, rows) * step:
        # spread without overlaps, a long chain would stretch across the drawing: a grid in breadth-first order
        # from its best connected node keeps it small (its edges join the grid's neighbours mostly)
        import networkx as nx

        sub = g.subgraph(comp)
        start = max(sorted(keys), key=lambda v: sub.degree[v])
        order = [int(v) for v in nx.bfs_tree(sub, start)]
        xy = np.array([((k % cols) * step, (k // cols) * step) for k in range(len(order))], dtype=float)
        keys, rad = order, np.array([reach[v] for v in order])
        lo = (xy - rad[:, None]).min(axis=0)
        hi = (xy + rad[:, None]).max(axis=0)
    return ({v: (float(x - lo[0]), float(y - lo[1])) for v, (x, y) in zip(keys, xy)},
            (float(hi[0] - lo[0]), float(hi[1] - lo[1])))


def _shelves(parts: list[tuple[dict[int, tuple[float, float]], tuple[float, float]]],
             width: float) -> dict[int, tuple[float, float]]:
    """The parts' boxes packed in rows (shelves) at most ``width`` wide, in their order, :data:`SIDE_GAP` apart: no
    two boxes overlap."""
    out: dict[int, tuple[float, float]] = {}
    x = y = row = 0.0
    for pos, (w, h) in parts:
        if x > 0 and x + w > width:
            x, y, row = 0.0, y + row + SIDE_GAP, 0.0
        out.update({v: (x + px, y + py) for v, (px, py) in pos.items()})
        x += w + SIDE_GAP
        row = max(row, h)
    return out


def _pack(g: Any, comps: list[list[int]], radius: Any, spread: Any, *, gap: float = 40.0,
          width: float | None = None, single: float = 30.0) -> dict[int, tuple[float, float]]:
    """The components laid out each in its disc, packed in rows (biggest first) for a wide frame."""
    total = sum((2 * radius(len(c)) + gap) ** 2 for c in comps)
    if width is None:
        width = max(2 * radius(len(comps[0])) + gap, 1.15 * math.sqrt(1.8 * total))  # rows for a wide frame
    out: dict[int, tuple[float, float]] = {}
    x = y = row = 0.0
    for c in comps:
        r = radius(len(c)) if len(c) > 1 else single
        if x > 0 and x + 2 * r > width:
            x, y, row = 0.0, y + row + gap, 0.0
        pos = spread(g.subgraph(c)) if len(c) > 1 else {c[0]: (0.0, 0.0)}
        for v, (px, py) in pos.items():
            out[int(v)] = (x + r + float(px) * r, y + r + float(py) * r)
        x += 2 * r + gap
        row = max(row, 2 * r)
    return out


def network_html(graph: GraphLike, nodes: Iterable[int], *,
                 edges: Iterable[int] | None = None,
                 colors: Mapping[int, str] | None = None,
                 sizes: Mapping[int, float] | None = None,
                 edge_colors: Mapping[int, str] | None = None,
                 positions: Mapping[int, tuple[float, float]] | None = None,
                 highlight: Iterable[int] = (),
                 legend: Sequence[LegendItem] = (),
                 edge_labels: bool = False,
                 height: int = DEFAULT_HEIGHT,
                 borders: Mapping[int, tuple[str, int]] | None = None,
                 edge_widths: Mapping[int, float] | None = None,
                 notes: Mapping[int, str] | None = None,
                 labels: Iterable[int] | None = None,
                 shapes: Mapping[int, str] | None = None,
                 directed: bool = True,
                 legend_below: bool = False,
                 label_px: int = LABEL_PX,
                 must_label: Iterable[int] = (),
                 label_colors: Mapping[int, str] | None = None,
                 keep_label: Iterable[int] = (),
                 legend_px: int = LEGEND_FONT_PX) -> str:
    """Self-contained HTML drawing of ``nodes`` (and the edges among them) with pyvis.

    Parameters
    ----------
    graph
        The knowledge graph the indices refer to.
    nodes
        Node indices to draw.
    edges
        Edge ids to draw; default: every edge induced by ``nodes``.
    colors, sizes
        Per-node colour / size overrides (default colour, size by degree).
    edge_colors
        Per-edge colour overrides.
    positions
        Fixed ``(x, y)`` per node; when given, physics is switched off so the drawing is stable
        between frames (nodes without a position are placed by vis-network).
    highlight
        Nodes drawn with a thick border (selected / centre).
    legend
        Rows of the legend strip shown above the drawing (outside the canvas).
    edge_labels
        Draw relation labels on the edges joining two labelled nodes (when at most
        ``MAX_EDGE_LABELS`` of them; otherwise, and always for the rest, they show on hover).
    height
        Height of the drawing in pixels.
    borders
        Per-node ``(border colour, border width)``: the fill keeps ``colors`` (used by the bubble
        replay to outline frontier nodes and CEGs in another colour than the fill).
    edge_widths
        Per-edge line widths (default 1).
    notes
        Extra per-node tooltip lines (plain text, escaped like the rest).
    labels
        Nodes that matter at this step, most important first: with more than
        ``LABEL_ALL_UP_TO`` nodes only these carry a canvas label (:func:`label_choice`, no
        filling). Default: the highlighted and bordered nodes, then those with their own colour,
        filled up with the best connected.
    shapes
        Per-node vis-network shape instead of the dot (e.g. ``"diamond"``: where BubbleRAG's bubbles
        start); give it a legend row of the same ``shape``.
    directed
        Arrow heads on the edges (a KG's triples); ``False`` for a graph whose edges are node pairs (SG-RAG's
        query graph, Table 12).
    legend_below
        The legend strip under the canvas instead of above it: a drawing under a tall stack of controls (the
        bubble replay on a projector) keeps its canvas's top above the fold.
    label_px
        Node labels' height on screen in pixels, whatever the zoom (edge labels 1 px less: at 3 px less an audit read them at ~9 px, too small for a projector).
    must_label
        Labelled nodes whose label is drawn below them even where no place clear of the other nodes is
        found (still never over another label): the nodes a step is about (default: ``highlight``). The other
        labels go below or above their node where they cover no other node, else show on hover only.
    keep_label
        Labelled nodes whose label is kept on the canvas like ``must_label``'s (a leader line from the node where no
        spot near it reads as its own), placed after those: the bubble replay's anchors, every diamond named (an audit
        asked "where is Fishburne?" of an anchor drawn without its name).
    label_colors
        Per-node label text colour: the nodes a step is about written in their highlight's colour, so a label
        placed a little away from its node still reads as that node's (the bubble replay's collision: "The Matrix"
        above the red CEG, between other names, read as a neighbour's label in an audit).
    legend_px
        The legend's text height in pixels (its swatches scale with it): the bubble replay's legend at its labels'
        size, read from the back of a room like them.
    """
    from pyvis.network import Network

    nodes = sorted({int(v) for v in nodes})
    eids = graph.induced_edges(nodes).tolist() if edges is None else sorted({int(e) for e in edges})
    _prefetch(graph, nodes, eids)
    colors = colors or {}
    sizes = sizes if sizes is not None else degree_sizes(graph, nodes)
    edge_colors = edge_colors or {}
    hl = {int(v) for v in highlight}
    must = sorted({int(v) for v in must_label} or hl)
    kept = sorted({int(v) for v in keep_label} - set(must))
    if labels is None:
        important = [*sorted(hl), *sorted(borders or {}), *sorted(v for v in colors if colors[v] != NODE_COLOR)]
        order = label_choice(nodes, important, degree=graph.degree)
    else:  # every kept name within the cap
        order = label_choice(nodes, labels, degree=graph.degree, fill=False, limit=max(MAX_LABELS, len(must) + len(kept)))
    shown = set(order)
    net = Network(height=f"{height - 10}px", width="100%", directed=directed, cdn_resources="in_line")
    net.templateEnv = _pyvis_templates(net.template_dir)  # compiled once per process, not per drawing (~50 ms)
    for v in nodes:
        name = graph.node_names[v]
        tip = [name, f"id: {graph.node_ids[v]}", f"degree: {int(graph.degree[v])}"]
        desc = graph.node_descriptions[v]
        if desc:
            tip.append(short_label(desc, 300))
        if notes and v in notes:
            tip.append(notes[v])
        kw: dict[str, object] = {}
        if positions is not None and v in positions:
            kw["x"], kw["y"] = positions[v]
            kw["physics"] = False
        fill = colors.get(v, NODE_COLOR)
        border = borders.get(v) if borders else None
        if v in shown:
            kw["label"] = escape(short_label(name))
            if label_colors and v in label_colors:
                kw["font"] = {"color": label_colors[v]}
                kw["egxColor"] = label_colors[v]  # kept when the placement below moves the label
        if shapes and v in shapes:
            kw["shape"] = shapes[v]
        net.add_node(
            v,
            label=kw.pop("label", " "),
            title=escape("\n".join(tip)),
            color=fill if border is None else {"background": fill, "border": border[0],
                                              "highlight": {"background": fill, "border": border[0]}},
            size=float(sizes.get(v, 12)),
            borderWidth=(4 if v in hl else 1) if border is None else border[1],
            **kw,
        )
    keep = set(nodes)
    eids = [e for e in eids if int(graph.edge_head[e]) in keep and int(graph.edge_tail[e]) in keep]
    labelled = {e for e in eids if int(graph.edge_head[e]) in shown and int(graph.edge_tail[e]) in shown}
    if not edge_labels or len(labelled) > MAX_EDGE_LABELS:
        labelled = set()
    for e in eids:
        h, t = int(graph.edge_head[e]), int(graph.edge_tail[e])
        rel = graph.edge_relation[e]
        kw = {"label": escape(short_label(rel, 30))} if e in labelled else {}
        if edge_widths and e in edge_widths:
            kw["width"] = float(edge_widths[e])
        if edge_colors.get(e) == AVOID_EDGE_COLOR:
            kw["egxAvoid"] = True  # a red (CEG) edge: no label is placed across it
        net.add_edge(h, t, title=escape(graph.edge_text(e)), color=edge_colors.get(e, EDGE_COLOR), **kw)
    physics = positions is None or any(v not in positions for v in nodes)
    net.options = _options(physics=physics, n=len(nodes), directed=directed)
    doc = net.generate_html()
    return _finish_html(doc, legend, physics=physics, label_order=order, legend_below=legend_below,
                        label_px=label_px, must_label=must, keep_label=kept, legend_px=legend_px)


def side_components(graph: GraphLike, nodes: Iterable[int], focus: Iterable[int]) -> list[list[int]]:
    """The connected parts of the subgraph on ``nodes`` that hold no ``focus`` node, biggest first: those
    :func:`layout_positions` draws small at the side (none when no part holds a focus node)."""
    import networkx as nx

    nodes = sorted({int(v) for v in nodes})
    g = nx.Graph()
    g.add_nodes_from(nodes)
    for e in graph.induced_edges(nodes).tolist():
        g.add_edge(int(graph.edge_head[e]), int(graph.edge_tail[e]))
    comps = sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: (-len(c), c[0]))
    wanted = {int(v) for v in focus}
    side = [c for c in comps if not wanted.intersection(c)]
    return side if len(side) < len(comps) else []


def legend_rows(legend: Sequence[LegendItem], width_px: float, *, font_px: float = LEGEND_FONT_PX) -> int:
    """How many rows the legend strip wraps into at ``width_px`` (an estimate on the safe side: 0.56 em per
    character, the swatch and the gaps of assets/graph_view.css), for a frame that must end above a fold."""
    rows, x, room = (1 if legend else 0), 0.0, width_px - 12.0  # the strip's padding
    for item in legend:
        w = (1.5 if item.shape == "line" else 1.1) * font_px + 5.0 + 0.56 * font_px * len(item.label)
        if x > 0 and x + w > room:
            rows, x = rows + 1, 0.0
        x += w + 14.0
    return rows


def _options(*, physics: bool, n: int, directed: bool = True) -> dict[str, object]:
    return {
        # a white halo keeps a label readable where it crosses an edge
        "nodes": {"shape": "dot", "font": {"size": 18, "face": "sans-serif", "strokeWidth": 4, "strokeColor": "#ffffff"},
                  "scaling": {"label": {"enabled": False, "drawThreshold": 3}}},
        "edges": {"arrows": {"to": {"enabled": directed, "scaleFactor": 0.5}},
                  "smooth": {"enabled": True, "type": "dynamic" if physics else "continuous"},
                  "font": {"size": 11, "align": "middle", "color": "#555555"}},
        "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False},
        # Stabilised once (then frozen by the script _FIT_SCRIPT adds), so nothing drifts while one reads.
        "physics": {
            "enabled": physics,
            "solver": "forceAtlas2Based",
            "forceAtlas2Based": {"gravitationalConstant": -90, "springLength": 120, "avoidOverlap": 0.6},
            "stabilization": {"enabled": True, "iterations": 300 if n <= 150 else 200, "fit": True},
        },
    }


# The template pulls Bootstrap from a CDN whether or not it is used; offline (or in a sandboxed
# iframe) that request can only fail, and a blocking <script src> delays the drawing until it does.
_CDN_TAG = re.compile(r"<link[^>]*cdn\.jsdelivr\.net[^>]*/>|<script[^>]*cdn\.jsdelivr\.net[^>]*>\s*</script>", re.S)
_DEAD_COMMENT = re.compile(r"<!-- <link rel=\"stylesheet\" href=\"\.\./node_modules.*?-->", re.S)
_NETWORK_NEW = "network = new vis.Network(container, data, options);"
# Labels and titles arrive HTML-escaped. vis-network draws labels as canvas text and shows string
# tooltips with innerText, so both would read "&amp;". Decode them in the browser into plain text
# (a <textarea>'s content is never parsed as markup) and give tooltips as DOM text nodes.
_DECODE_TEXT = """
                  function egxPlainText(items) {
                    var tmp = document.createElement("textarea");
                    function plain(s) { tmp.innerHTML = s; return tmp.value; }
                    items.forEach(function (item) {
                      var patch = {id: item.id};
                      if (typeof item.label === "string") { patch.label = plain(item.label); patch.egxLabel = patch.label; }
                      if (typeof item.title === "string") {
                        var box = document.createElement("div");
                        box.style.whiteSpace = "pre-wrap";
                        box.style.maxWidth = "420px";
                        box.textContent = plain(item.title);
                        patch.title = box;
                      }
                      items.update(patch);
                    });
                  }
                  egxPlainText(nodes);
                  egxPlainText(edges);
"""
# Fit the drawing to its frame: once the layout is stable (physics then frozen: a stabilised layout
# that keeps drifting is unreadable), and again whenever the frame changes size — a drawing in a
# hidden tab or a narrow column is first laid out at size 0 and would stay cropped.
# ``window.egxReady`` tells tests (and nothing else) that the first fit happened.
_FIT_SCRIPT = """
                  window.egxReady = false;
                  var MAX_ZOOM = 1.25, PX = LABEL_PX;  // node labels' height on screen
                  (function (net, box, physics, order, must, keep) {
                    var laidOut = false;
                    function fit() {
                      if (box.clientWidth === 0 || box.clientHeight === 0) { return; }
                      net.setSize("100%", "100%");
                      net.redraw();
                      net.fit({animation: false});
                      var s = net.getScale();
                      if (s > MAX_ZOOM) { net.moveTo({scale: MAX_ZOOM, animation: false}); s = MAX_ZOOM; }  // 3 nodes stay small
                      if (!laidOut || !(s > 0) || !isFinite(s)) { return; }
                      // labels about PX pixels on screen whatever the zoom; their boxes are measured when
                      // drawn, so fit once more after that drawing
                      net.setOptions({nodes: {font: {size: Math.min(96, Math.max(PX - 1, PX / s))}},
                                      edges: {font: {size: Math.min(60, Math.max(PX - 2, (PX - 1) / s))}}});
                      net.once("afterDrawing", function () {
                        declutter(Math.min(96, Math.max(PX - 1, PX / s)));
                        net.fit({animation: false});
                        if (net.getScale() > MAX_ZOOM) { net.moveTo({scale: MAX_ZOOM, animation: false}); }
                        fitPlaced();
                        window.egxReady = true;
                      });
                      net.redraw();
                    }
                    // The labels are placed by egxPlaceLabels (assets/label_place.js): below, above, right or left
                    // of their node where they cover no other label, no other node and no red (CEG) edge, the more
                    // important first (the order comes from label_choice); a node the step is about (``must``)
                    // also tries spots further out; a label with no clear spot shows on hover only. vis-network
                    // moves a label only up or down (vadjust): a label beside its node is padded with no-break
                    // spaces on the side towards the node.
                    function declutter(font) {
                      var pos = net.getPositions(), markers = [], items = [], lines = [], patch = [];
                      var text = document.createElement("canvas").getContext("2d");  // measures as the labels are drawn
                      text.font = font + "px sans-serif";
                      var space = text.measureText("\u00a0").width || font / 4;
                      nodes.get().forEach(function (n) {  // every node, labelled or not, is in the way
                        // a diamond's corners reach past its size, and a label ending against one read as its name
                        var p = pos[n.id], r = (n.size || 10) * (n.shape === "diamond" ? 1.45 : 1) + 2;
                        if (p) { markers.push({id: n.id, l: p.x - r, r: p.x + r, t: p.y - r, b: p.y + r}); }
                      });
                      edges.get().forEach(function (e) {  // the red edges, as short segments along their curve
                        if (!e.egxAvoid || !pos[e.from] || !pos[e.to]) { return; }
                        var body = net.body.edges[e.id], pts = [];
                        for (var i = 0; i <= 8; i++) {
                          try { pts.push(body.edgeType.getPoint(i / 8)); } catch (err) { pts = []; break; }
                        }
                        if (pts.length < 2 || pts.some(function (q) { return !q || !isFinite(q.x) || !isFinite(q.y); })) {
                          pts = [pos[e.from], pos[e.to]];
                        }
                        for (var j = 1; j < pts.length; j++) { lines.push([pts[j - 1].x, pts[j - 1].y, pts[j].x, pts[j].y]); }
                      });
                      order.forEach(function (id) {
                        var n = nodes.get(id), p = pos[id];
                        if (!n || !p || typeof n.egxLabel !== "string" || !n.egxLabel.trim()) { return; }
                        // where vis-network puts the label below the node (its own measure, vadjust aside)
                        var size = (net.body.nodes[id] && net.body.nodes[id].labelModule.size) || {};
                        var r = n.size || 10, h = size.height || font, gap = isFinite(size.top) ? size.top - p.y - r : font / 2 + 4;
                        items.push({id: id, x: p.x, y: p.y, r: r, h: h, gap: gap, must: must.indexOf(id) >= 0,
                                    keep: keep.indexOf(id) >= 0,
                                    w: text.measureText(n.egxLabel).width + 4});
                      });
                      var spots = egxPlaceLabels(items, markers, lines, font / 5);
                      window.egxPlaced = spots;  // for the browser tests: each label's box on the canvas
                      window.egxPlaceInput = [items, markers, lines, font / 5];  // and what the rule was given
                      items.forEach(function (it) {
                        var n = nodes.get(it.id), s = spots[it.id], want = " ", shift = 0;
                        if (s) {
                          var k = Math.round(2 * Math.abs(s.dx) / space), fill = new Array(k + 1).join("\u00a0");
                          want = s.dx > 0 ? fill + n.egxLabel : s.dx < 0 ? n.egxLabel + fill : n.egxLabel;
                          shift = s.dy;
                        }
                        var was = (n.font && n.font.vadjust) || 0;
                        var font2 = {vadjust: shift};
                        if (n.egxColor) { font2.color = n.egxColor; }
                        if (n.label !== want || was !== shift) { patch.push({id: it.id, label: want, font: font2}); }
                      });
                      if (patch.length) { nodes.update(patch); }
                      leaders = [];
                      items.forEach(function (it) {
                        var s = spots[it.id], n = nodes.get(it.id);
                        if (s && s.lead) { leaders.push({id: it.id, to: [s.lead[2], s.lead[3]], color: n.egxColor || "#555555"}); }
                      });
                    }
                    // A name the step is about with no spot near its node that reads as its own (its node walled in
                    // by others) is drawn a little further out, with a thin dashed line from its node's marker
                    // (two red diamonds' names stacked below both read as one two-line label).
                    var leaders = [];
                    net.on("afterDrawing", function (ctx) {
                      if (!leaders.length) { return; }
                      var pos = net.getPositions();
                      ctx.save();
                      ctx.lineWidth = Math.max(1, 1.2 / net.getScale());
                      ctx.setLineDash([4 / net.getScale(), 3 / net.getScale()]);
                      leaders.forEach(function (l) {
                        var p = pos[l.id], n = nodes.get(l.id) || {};
                        if (!p) { return; }
                        var dx = l.to[0] - p.x, dy = l.to[1] - p.y, len = Math.sqrt(dx * dx + dy * dy);
                        var r = (n.size || 10) * (n.shape === "diamond" ? 1.2 : 1) + 2;
                        if (len <= r) { return; }
                        ctx.strokeStyle = l.color;
                        ctx.beginPath();
                        ctx.moveTo(p.x + dx * r / len, p.y + dy * r / len);
                        ctx.lineTo(l.to[0], l.to[1]);
                        ctx.stroke();
                      });
                      ctx.restore();
                    });
                    // vis-network's fit leaves a label moved above or beside its node out (vadjust, padding):
                    // "20 March 851" above a node on the top row was cut by the canvas's edge. Zoom out to the box
                    // of every node and placed label where it reaches past the view.
                    function fitPlaced() {
                      var placed = window.egxPlaced || {}, pos = net.getPositions(), l = Infinity, r = -Infinity,
                          t = Infinity, b = -Infinity;
                      function take(x0, x1, y0, y1) { l = Math.min(l, x0); r = Math.max(r, x1); t = Math.min(t, y0); b = Math.max(b, y1); }
                      Object.keys(pos).forEach(function (id) {
                        var n = nodes.get(Number(id)) || {}, q = pos[id], k = (n.size || 10) * 1.45 + 4;
                        take(q.x - k, q.x + k, q.y - k, q.y + k);
                        // a node with no placed label: vis-network's own box (its blank label under it included), which
                        // the checks of the drawing measure too
                        var bb = placed[id] ? null : net.getBoundingBox(id);
                        if (bb && isFinite(bb.left) && isFinite(bb.bottom)) { take(bb.left, bb.right, bb.top, bb.bottom); }
                      });
                      Object.keys(placed).forEach(function (id) { var p = placed[id]; take(p.l, p.r, p.t, p.b); });
                      var W = box.clientWidth, H = box.clientHeight, s0 = net.getScale();
                      if (!(r > l) || !(b > t) || !W || !H) { return; }
                      var a = net.DOMtoCanvas({x: 0, y: 0}), z = net.DOMtoCanvas({x: W, y: H});
                      if (l >= a.x && r <= z.x && t >= a.y && b <= z.y) { return; }
                      var s1 = Math.min(s0, 0.97 * Math.min(W / (r - l), H / (b - t)));
                      net.moveTo({position: {x: (l + r) / 2, y: (t + b) / 2}, scale: s1, animation: false});
                    }
                    window.egxMust = must;  // for the browser tests: whose label may cover a node
                    window.egxKeep = keep;  // and whose is kept on the canvas, with a leader line where needed
                    function ready() {
                      if (physics) { net.setOptions({physics: {enabled: false}}); }
                      laidOut = true;
                      fit();
                    }
                    if (physics) { net.once("stabilizationIterationsDone", ready); }
                    else { net.once("afterDrawing", ready); }
                    if (window.ResizeObserver) { new ResizeObserver(fit).observe(box); }
                    // The wheel scrolls the page, as everywhere else on it; with Ctrl (or ⌘, or a trackpad's
                    // pinch, which sends Ctrl) it zooms the drawing. Caught before vis-network sees it: a drawing
                    // as wide as the page took every wheel turn over it for a zoom, and the page below (the
                    // side panel, the next stage) was out of reach for a lecturer scrolling on a projector.
                    box.addEventListener("wheel", function (e) {
                      if (!e.ctrlKey && !e.metaKey) { e.stopPropagation(); }
                    }, {capture: true});
                  })(network, container, PHYSICS, LABEL_ORDER, LABEL_MUST, LABEL_KEEP);
"""
_ASSET_CSS = Path(__file__).resolve().parents[1] / "assets" / "graph_view.css"
_ASSET_PLACE = _ASSET_CSS.with_name("label_place.js")  #: the label placement rule, shared with its unit tests


@lru_cache(maxsize=1)
def _label_place_js() -> str:
    return _ASSET_PLACE.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _legend_css() -> str:
    return f"<style>\n{_ASSET_CSS.read_text(encoding='utf-8')}</style>\n"


_INLINE = {"egx-legend": "display:flex;flex-wrap:wrap;gap:2px 14px;align-items:center;font-size:13px;color:#333",
           "egx-item": "display:inline-flex;align-items:center;gap:5px;white-space:nowrap",
           "egx-dot": "width:11px;height:11px;border-radius:50%;display:inline-block;"
                      "box-shadow:inset 0 0 0 1px rgba(0,0,0,.25)",
           "egx-line": "width:16px;height:3px;display:inline-block",
           "egx-diamond": "width:9px;height:9px;display:inline-block;margin:0 1px;transform:rotate(45deg);"
                          "box-shadow:inset 0 0 0 1px rgba(0,0,0,.45)"}
_SWATCH = {"line": "egx-line", "diamond": "egx-diamond"}  #: legend swatch class per LegendItem.shape


def legend_html(legend: Sequence[LegendItem], *, inline: bool = False, font_px: int = LEGEND_FONT_PX) -> str:
    """The legend as an HTML strip (every label escaped): drawn above each drawing's canvas, or,
    with ``inline`` styles, on its own (``st.html``) for a row of drawings that share one legend. ``font_px``: its
    text height, when not the stylesheet's (the swatches are sized in em, so they grow with it)."""
    if not legend:
        return ""

    def style(cls: str, extra: str = "") -> str:
        css = (_INLINE[cls] + ";" if inline else "") + extra
        return f' class="{cls}"' + (f' style="{css}"' if css else "")

    rows = []
    for item in legend:
        swatch = style(_SWATCH.get(item.shape, "egx-dot"), f"background:{escape(item.color)}")
        rows.append(f'<span{style("egx-item")}><span{swatch}></span>{escape(item.label)}</span>')
    size = "" if font_px == LEGEND_FONT_PX else f"font-size:{int(font_px)}px"
    return f'<div{style("egx-legend", size)} role="note" aria-label="Legend">{"".join(rows)}</div>'


def _finish_html(doc: str, legend: Sequence[LegendItem], *, physics: bool = True,
                 label_order: Sequence[int] = (), legend_below: bool = False, label_px: int = LABEL_PX,
                 must_label: Sequence[int] = (), keep_label: Sequence[int] = (),
                 legend_px: int = LEGEND_FONT_PX) -> str:
    doc = _DEAD_COMMENT.sub("", _CDN_TAG.sub("", doc))
    doc = doc.replace("<center>\n<h1></h1>\n</center>", "").replace(
        "<center>\n          <h1></h1>\n        </center>", "")
    if _NETWORK_NEW in doc:
        fit = _FIT_SCRIPT.replace("PHYSICS", "true" if physics else "false").replace(
            "LABEL_ORDER", json.dumps([int(v) for v in label_order])).replace("LABEL_PX", str(int(label_px))).replace(
            "LABEL_MUST", json.dumps([int(v) for v in must_label])).replace(
            "LABEL_KEEP", json.dumps([int(v) for v in keep_label]))
        doc = doc.replace(_NETWORK_NEW, _DECODE_TEXT + _label_place_js() + "\n                  " + _NETWORK_NEW + fit, 1)
    doc = doc.replace("</head>", _legend_css() + "</head>", 1)
    if legend_below:
        strip = legend_html(legend, font_px=legend_px).replace('class="egx-legend"', 'class="egx-legend egx-legend-below"', 1)
        doc = doc.replace('<div id="mynetwork" class="card-body"></div>',
                          '<div id="mynetwork" class="card-body"></div>' + strip, 1)
    else:
        doc = doc.replace('<div id="mynetwork"', legend_html(legend, font_px=legend_px) + '<div id="mynetwork"', 1)
    return doc


def graph_json_bytes(graph: GraphLike, nodes: Iterable[int] | None = None,
                     edges: Iterable[int] | None = None) -> bytes:
    """The egx JSON export (:meth:`KnowledgeGraph.to_dict`) of the graph or of the subgraph on
    ``nodes`` (with the chunks its nodes and edges cite; only ``edges`` when given)."""
    return json.dumps(subgraph(graph, nodes, edges).to_dict(), ensure_ascii=False, indent=1).encode("utf-8")


def graphml_bytes(graph: GraphLike, nodes: Iterable[int] | None = None,
                  edges: Iterable[int] | None = None) -> bytes:
    """GraphML export via networkx (``networkx.write_graphml(g.to_networkx(...))``)."""
    import io

    import networkx as nx

    buf = io.BytesIO()
    whole = edges is None and isinstance(graph, KnowledgeGraph)
    nx.write_graphml(graph.to_networkx(nodes) if whole else subgraph(graph, nodes, edges).to_networkx(), buf)
    return buf.getvalue()


def subgraph(graph: GraphLike, nodes: Iterable[int] | None, edges: Iterable[int] | None = None) -> KnowledgeGraph:
    """The subgraph on ``nodes`` as a new KnowledgeGraph (ids, names and provenance kept): the
    induced one, or only ``edges`` (those with both endpoints in ``nodes``) when given."""
    if nodes is None:
        return graph
    from core.graph.graph_builder import GraphBuilder

    keep = sorted({int(v) for v in nodes})
    if edges is None:
        eids = graph.induced_edges(keep).tolist()
    else:
        _prefetch(graph, (), edges)
        inside = set(keep)
        eids = sorted(e for e in {int(x) for x in edges}
                      if int(graph.edge_head[e]) in inside and int(graph.edge_tail[e]) in inside)
    _prefetch(graph, keep, eids)
    cited: dict[str, None] = {}
    for v in keep:
        cited.update(dict.fromkeys(graph.node_chunks[v]))
    for e in eids:
        cited.update(dict.fromkeys(graph.edge_chunks[e]))
    b = GraphBuilder(kind=graph.kind, name=graph.name)
    for cid in cited:
        if cid in graph.chunk_index:
            c = graph.chunk(cid)
            b.add_chunk(c.title, c.text, chunk_id=c.id)
    for v in keep:
        b.add_node(graph.node_names[v], node_id=graph.node_ids[v], description=graph.node_descriptions[v],
                   chunk_ids=graph.node_chunks[v])
    for e in eids:
        b.add_edge(graph.node_ids[int(graph.edge_head[e])], graph.edge_relation[e],
                   graph.node_ids[int(graph.edge_tail[e])], chunk_ids=graph.edge_chunks[e])
    return b.build(allow_empty=True)


# ---------------------------------------------------------------------------------- Streamlit
@lru_cache(maxsize=2)
def _pyvis_templates(folder: str) -> Any:
    """pyvis's Jinja environment, shared: each ``Network`` makes its own, so its template was parsed and
    compiled again for every drawing (~50 ms, a third of a GRanker slider step's server time)."""
    from jinja2 import Environment, FileSystemLoader

    return Environment(loader=FileSystemLoader(folder))


#: the node labels' size the fit script keeps on screen (:data:`_FIT_SCRIPT`), as :func:`scaled_labels` finds it
_LABEL_PX_JS = re.compile(r"(var MAX_ZOOM = [\d.]+, PX = )(\d+)(;)")


def scaled_labels(doc: str, scale: float) -> str:
    """``doc`` (a drawing of :func:`network_html`) with its node and edge labels ``scale`` times their size on
    screen; ``doc`` itself at 1 or in a drawing without the fit script."""
    if scale == 1:
        return doc
    return _LABEL_PX_JS.sub(lambda m: f"{m.group(1)}{round(int(m.group(2)) * scale)}{m.group(3)}", doc, count=1)


def render_html(doc: str, *, height: int = DEFAULT_HEIGHT) -> None:
    """Embed a drawing: ``st.iframe`` where it exists (Streamlit ≥ 1.5x), else components.html. In the tour's
    projector mode its labels are drawn larger (:func:`components.state.projector_scale`; an audit measured the
    bubble graph's labels at 12 px on a projector); the cached drawing itself is left as it is."""
    import streamlit as st

    from components.state import projector_scale

    doc = scaled_labels(doc, projector_scale())

    if hasattr(st, "iframe"):
        st.iframe(doc, height=height)
    else:  # pragma: no cover - older Streamlit
        import streamlit.components.v1 as components

        components.html(doc, height=height, scrolling=False)


def show_graph(graph: GraphLike, nodes: Iterable[int], *, max_nodes: int = DEFAULT_MAX_NODES,
               center: Sequence[int] = (), height: int = DEFAULT_HEIGHT, **kwargs: object) -> list[int]:
    """Draw ``nodes`` (capped at ``max_nodes``, with a visible note when capped) and return the
    nodes actually drawn. ``kwargs`` go to :func:`network_html`."""
    import streamlit as st

    nodes = list(nodes)
    kept, capped = limit_nodes(graph, nodes, max_nodes, center=center)
    if capped:
        st.warning(f"Showing {len(kept)} of {len(nodes)} nodes (the drawing is capped at {max_nodes}): "
                   "the closest to the centre first, then the best connected. Lower the hop count or pick "
                   "another centre to see the rest.", icon=":material/content_cut:")
    render_html(network_html(graph, kept, height=height, **kwargs), height=height)  # type: ignore[arg-type]
    return kept
