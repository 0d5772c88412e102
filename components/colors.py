"""Every colour the app draws with, in one place: the Okabe–Ito colour-blind-safe set, and the palettes
built from it for what the pages colour (anchor groups, query nodes, chain groups, methods).

Each palette leaves out the colours that already mean something on its drawing (red marks BubbleRAG's CEGs,
orange SG-RAG's asked-for node), so it is a sequence of its own; :func:`nth` cycles through one.
"""

from __future__ import annotations

from collections.abc import Sequence

# Okabe & Ito, "Color Universal Design" (2008): told apart under every common colour-vision deficiency.
BLUE = "#0072b2"
ORANGE = "#e69f00"
GREEN = "#009e73"
PINK = "#cc79a7"
SKY = "#56b4e9"
VERMILLION = "#d55e00"
YELLOW = "#f0e442"
BLACK = "#000000"
GREY = "#999999"

#: The graph drawings' defaults (components/graph_view.py).
NODE = "#7fa7d9"
EDGE = "#a0a0a0"
SELECTED = VERMILLION
CENTER = ORANGE
#: Categorical nodes of a plain drawing (the Data page's colour-by).
DRAWING = (BLUE, ORANGE, GREEN, PINK, SKY, VERMILLION, YELLOW, BLACK)

#: BubbleRAG: Okabe–Ito, then Tol's muted colours; red is kept out: it marks CEGs and collisions.
ANCHOR_GROUPS = (BLUE, ORANGE, GREEN, PINK, SKY, YELLOW, "#882255", "#44aa99", "#999933", "#aa4499", "#332288",
                 "#117733")
CEG = "#e41a1c"
UNVISITED = "#e4e4e4"
UNVISITED_BORDER = "#b8b8b8"
CURRENT_BORDER = "#111111"

#: SG-RAG: the asked-for (UNK) nodes are orange and its darker and paler kin, each its own, so "same colour = mapped
#: node" tells which UNK became which graph node (one orange for all: an audit could not see which UNK of two became
#: the villain and which the movie); the other query nodes take the rest, orange left out.
UNK = ORANGE
UNKS = (ORANGE, "#8c510a", "#f5c06b", "#b8860b")
QUERY_NODES = (BLUE, GREEN, PINK, SKY, VERMILLION, YELLOW, "#7f3c8d", "#11a579", "#3969ac", "#e73f74", "#80ba5a",
               "#008695")

#: ReG: the frame of a multi-entity group's chains, and its curves on the training charts.
CHAIN_GROUPS = (BLUE, VERMILLION, GREEN, PINK, ORANGE, SKY)

#: Compare: one colour per method on the overlaid evidence graph, in registry order, with brown for the 7th (yellow
#: is too close to the gold-passage border); near-black marks a node several methods reached.
METHODS = (BLUE, ORANGE, GREEN, PINK, VERMILLION, SKY, "#8c564b", GREY)
SHARED = "#222222"
GOLD_BORDER = "#ffd700"

#: FastInsight's smoothing graph: gold passages, moved up / down by GRanker.
GOLD = GREEN
MOVED_UP = BLUE
MOVED_DOWN = VERMILLION


def nth(palette: Sequence[str], i: int) -> str:
    """The ``i``-th colour of ``palette``, cycling when there are more items than colours."""
    return palette[i % len(palette)]


#: The words for the colours a caption names (a caption built from a chart's own colours cannot drift from it).
NAMES = {BLUE: "blue", ORANGE: "orange", GREEN: "green", PINK: "pink", SKY: "sky blue", VERMILLION: "red-orange",
         YELLOW: "yellow", BLACK: "black", GREY: "grey", EDGE: "grey"}
