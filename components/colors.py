"""Every colour the app draws with, in one place: the Okabe–Ito colour-blind-safe set, and the palettes
built from it for what the pages colour (anchor groups, query nodes, chain groups, methods).

Each palette leaves out the colours that already mean something on its drawing (red marks BubbleRAG's CEGs,
orange SG-RAG's asked-for node), so it is a sequence of its own; :func:`nth` cycles through one.
"""

from __future__ import annotations

import re
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

#: The least contrast against white of a colour that alone tells a thing apart (a node's fill, a ring): WCAG 2.x's
#: 3:1 for graphical objects. Okabe–Ito's sky blue (2.3:1), yellow (1.3:1) and orange (2.2:1) read as faint on a
#: projector (an audit could barely see the "Speed" and "The Matrix" anchors).
MIN_CONTRAST = 3.0
#: Okabe–Ito's orange and yellow darkened along their hue to pass :data:`MIN_CONTRAST`; a darkened sky blue came too
#: close to :data:`BLUE`, so purple takes its place.
DARK_ORANGE = "#c46f00"
DARK_YELLOW = "#a08600"
PURPLE = "#7b3294"

#: BubbleRAG's anchor groups: Okabe–Ito (each at least :data:`MIN_CONTRAST` on white), then brown and Tol's muted
#: colours (teal darkened; brown first: Tol's wine beside the purple, and teal beside the green, read as one colour
#: in a 7-group drawing); red is kept out: it marks CEGs and collisions.
ANCHOR_GROUPS = (BLUE, DARK_ORANGE, GREEN, PINK, PURPLE, DARK_YELLOW, "#8c564b", "#882255", "#338877", "#aa4499",
                 "#332288", "#117733")
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
#: is too close to the gold-passage border, and so was orange: an audit could not tell "Re2 alone" from a gold-passage
#: entity's border on a projector, so purple takes its place); near-black marks a node some methods reached, light
#: grey one all did.
METHODS = (BLUE, PURPLE, GREEN, PINK, VERMILLION, SKY, "#8c564b", GREY)
SHARED = "#222222"
#: Compare: a node every compared method reached (the common ground, light so the differences stand out)
COMMON = "#cfcfcf"
GOLD_BORDER = "#ffd700"

#: FastInsight's smoothing graph: gold passages, moved up / down by GRanker.
GOLD = GREEN
MOVED_UP = BLUE
MOVED_DOWN = VERMILLION


def contrast_on_white(colour: str) -> float:
    """WCAG 2.x contrast ratio of ``colour`` ("#rrggbb") against white: (1 + 0.05) / (L + 0.05), L its relative
    luminance (sRGB channels linearised)."""
    if not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
        raise ValueError(f"contrast_on_white takes a colour written #rrggbb, not {colour!r}: write it with six hex digits")

    def linear(c: int) -> float:
        x = c / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(colour[i:i + 2], 16)) for i in (1, 3, 5))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


def nth(palette: Sequence[str], i: int) -> str:
    """The ``i``-th colour of ``palette``, cycling when there are more items than colours."""
    return palette[i % len(palette)]


#: The words for the colours a caption names (a caption built from a chart's own colours cannot drift from it).
NAMES = {BLUE: "blue", ORANGE: "orange", GREEN: "green", PINK: "pink", SKY: "sky blue", VERMILLION: "red-orange",
         YELLOW: "yellow", BLACK: "black", GREY: "grey", EDGE: "grey", DARK_ORANGE: "dark orange",
         DARK_YELLOW: "dark yellow", PURPLE: "purple"}
