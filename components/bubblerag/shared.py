"""What the four BubbleRAG pages share: the question box, the cached run, group colours, drawings.

Every page calls :func:`question_ui` and :func:`current_run`; the run comes from
``runs.method_run`` keyed by (workspace, backends, question, config), so the four pages show
one run. A group keeps one colour (:func:`group_color`) on every page.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import streamlit as st

from components import colors, graph_view, resources, runs
from components import state as S
from components.question import question_box, workspace_questions
from components.sidebar import Active
from components.ui import error_text, md_escape, md_escape_keep_code, public_text
from core.errors import EgxError
from core.graph.reader import read_ahead
from core.methods.answering import step_fallback
from core.methods.bubblerag import METHOD, BubbleConfig
from core.methods.bubblerag.expansion import budget_place, budget_tally, counts_toward_budget

if TYPE_CHECKING:
    from core.graph.reader import GraphLike
    from core.methods.bubblerag import AnchorGroup, BubbleResult
    from core.methods.bubblerag.expansion import CEG, ExpansionFrame

DEMO_QUESTION = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
DEFAULTS = BubbleConfig()

#: The node shape of the anchors (the terminals every bubble starts from) on the expansion drawing.
ANCHOR_SHAPE = "diamond"
ANCHOR_LEGEND = graph_view.LegendItem("diamond: anchor, where a bubble starts", "#555555", ANCHOR_SHAPE)


# ------------------------------------------------------------------------------------- question
def question_ui(act: Active, page: str) -> str:
    """The question box of the four pages (:func:`components.question.question_box`, typed, with example
    questions: the demo's first, then the workspace's). One "use another question on this page only" switch for
    the four: they step through one run."""
    examples = [DEMO_QUESTION] if act.info.name == "demo" else []
    examples += [q.question for q in workspace_questions(act)[:40]]
    return question_box(list(dict.fromkeys(examples)), key=S.BUBBLE_QUESTION, scope=page,
                        help="Shared by the four BubbleRAG pages and, unless the switch below is on, by every "
                             "method page. Press Enter to run.")


# ------------------------------------------------------------------------------------------ run
def run_config() -> BubbleConfig:
    ss = st.session_state
    return DEFAULTS.with_(h=int(ss.get(S.BUBBLE_H, DEFAULTS.h)), B=int(ss.get(S.BUBBLE_B, DEFAULTS.B)),
                          alpha=float(ss.get(S.BUBBLE_RUN_ALPHA, DEFAULTS.alpha)),
                          n=int(ss.get(S.BUBBLE_RUN_N, DEFAULTS.n)))


def config_params(cfg: BubbleConfig) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(cfg.overrides().items()))


def backends_key(act: Active) -> str:
    return f"{act.embedder_name}|{act.llm_name}"


def run_key(act: Active, query: str, cfg: BubbleConfig) -> str:
    return f"{act.key}|{backends_key(act)}|{config_params(cfg)}|{query}"


def current_run(act: Active, query: str) -> BubbleResult | None:
    """The cached run for the question and the current config, or None (with a message why)."""
    if not query:
        st.info("Type a question above (or pick an example) to run BubbleRAG.", icon=":material/edit:")
        return None
    cfg = run_config()
    try:
        # said while it runs or replays (in the page's own flow, never inside a placeholder a later element replaces):
        # on a busy server an audit's first tour step stood blank under its question box for those seconds
        with st.spinner("Running BubbleRAG on this question …"):
            return runs.method_run(METHOD, act.workspace, act.key, act.backends, query, cfg)
    except EgxError as exc:
        st.error(f"**BubbleRAG could not run.** {md_escape(error_text(exc))}")
        return None


def early_exit_note(result: BubbleResult) -> bool:
    """Say so (and return True) when pre-retrieval answered and the graph stages were skipped."""
    if not result.early_exit:
        return False
    st.info("The LLM judged the pre-retrieved passages sufficient, so BubbleRAG exited early (§3.2) and the "
            "graph stages were skipped. The Ask page shows the answer and the passages.", icon=":material/bolt:")
    return True


def fallback_notes(result: BubbleResult, stages: Sequence[str]) -> None:
    """Show the trace's fallback reasons of ``stages`` (fallbacks are always visible)."""
    for s in result.trace.steps:
        if s.stage in stages and s.fallback:
            st.caption(f"↪ {md_escape(s.title)}: fallback — {md_escape_keep_code(public_text(step_fallback(s, app=True)))}")


# ------------------------------------------------------------------------------ expansion budget
@dataclass(frozen=True)
class BudgetText:
    """What the expansion page says of the CEGs against the budget B at one frame (§3.3)."""

    metric: str  #: "counted / B"
    caption: str  #: every CEG so far, their numbers, and which of them count toward B
    lines: tuple[str, ...]  #: one per CEG found at this frame: its number and its place against B


def ceg_ids(indices: Sequence[int]) -> str:
    """CEG numbers as the expansion page writes them, runs joined: [0, 1, 2, 5, 7, 8] → "#0–#2, #5, #7–#8"."""
    runs: list[list[int]] = []
    for k in sorted(indices):
        if runs and k == runs[-1][-1] + 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    return ", ".join(f"#{r[0]}" if len(r) == 1 else f"#{r[0]}–#{r[-1]}" for r in runs)


def intra_ids(cegs: Sequence[CEG], until_step: int | None = None) -> str:
    """The numbers of the intra-group CEGs found at or before the settle step ``until_step`` (None: all of them), as
    every counter of the expansion page lists them beside its count (audit 57 read "7 intra-group" in the caption
    next to "6 intra-group (#0–#5)" on the way to Lothair's collision, with nothing to say that #6 was found at the
    collision's own step)."""
    return ceg_ids([c.index for c in cegs if c.kind == "intra" and (until_step is None or c.found_at <= until_step)])


def budget_text(cegs: Sequence[CEG], frame: ExpansionFrame, cfg: BubbleConfig) -> BudgetText:
    """The expansion page's budget metric, caption and CEG lines at ``frame``, all read from one
    :func:`~core.methods.bubblerag.expansion.budget_tally` of the run's CEG list ``cegs``, so that they agree
    (a collision said "→ CEG #11" under "2 / 10": #11 numbers every CEG, intra-group ones too, while B counts
    only those that consume it)."""
    until = None if frame.done else frame.step
    tally = budget_tally(cegs, cfg.B, intra_counts=cfg.intra_counts, until_step=until)
    numbered = f" (#0–#{tally.total - 1})" if tally.total > 1 else " (#0)" if tally.total else ""
    ids = f" ({intra_ids(cegs, until)})" if tally.uncounted else ""
    caption = (f"{tally.total} CEG{'' if tally.total == 1 else 's'} so far{numbered}: {tally.counted} count toward B"
               + (" (intra-group ones included)" if cfg.intra_counts else
                  f", {tally.uncounted} intra-group{ids} do not (at most B of them)") + ".")
    lines = []
    for c in frame.new_cegs:
        place = budget_place(cegs, c, intra_counts=cfg.intra_counts)
        lines.append(f"CEG #{c.index}, {place} of B = {cfg.B}" if counts_toward_budget(c, cfg.intra_counts) else
                     f"CEG #{c.index}, intra-group {place} of at most {cfg.B}, not counted toward B")
    return BudgetText(f"{tally.counted} / {cfg.B}", caption, tuple(lines))


# -------------------------------------------------------------------------------------- colours
def group_color(gid: int) -> str:
    return colors.nth(colors.ANCHOR_GROUPS, gid)


def blend(hexes: Sequence[str]) -> str:
    """Mean RGB of ``hexes`` (several bubbles on one node)."""
    if not hexes:
        return colors.UNVISITED
    rgb = [tuple(int(h[i:i + 2], 16) for i in (1, 3, 5)) for h in hexes]
    return "#" + "".join(f"{round(sum(c[i] for c in rgb) / len(rgb)):02x}" for i in range(3))


def mask_groups(mask: int) -> list[int]:
    return [g for g in range(mask.bit_length()) if (mask >> g) & 1]


def group_legend(groups: Sequence[AnchorGroup]) -> tuple[graph_view.LegendItem, ...]:
    return tuple(graph_view.LegendItem(f"group {g.gid}: {graph_view.short_label(g.concept, 28)}", group_color(g.gid))
                 for g in groups)


def group_chips(groups: Sequence[AnchorGroup]) -> str:
    """HTML chips, one per group in its colour (concepts escaped)."""
    return " ".join(
        f'<span style="background:{group_color(g.gid)};color:{_ink(group_color(g.gid))};padding:2px 8px;'
        f'border-radius:10px;margin-right:4px;white-space:nowrap">{html.escape(g.concept)} · '
        f'w={g.weight:.2f}</span>' for g in groups)


def _ink(bg: str) -> str:
    r, g, b = (int(bg[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def highlighted_question(query: str, groups: Sequence[AnchorGroup]) -> str:
    """The question as HTML with each group's concept highlighted in its colour (as in Figures 3-4)."""
    spans, _ = _question_spans(query, groups)
    out, pos = [], 0
    for s, e, gid in sorted(spans):
        out.append(html.escape(query[pos:s]))
        c = group_color(gid)
        out.append(f'<span style="background:{c};color:{_ink(c)};padding:1px 4px;border-radius:4px">'
                   f"{html.escape(query[s:e])}</span>")
        pos = e
    out.append(html.escape(query[pos:]))
    return '<div style="font-size:1.15rem;line-height:1.8">' + "".join(out) + "</div>"


def unmarked_groups(query: str, groups: Sequence[AnchorGroup]) -> list[str]:
    """The concepts of the groups :func:`highlighted_question` marks no word of the question for (inferred keywords,
    the names a passage suggested), so the page can say why they are not coloured in it."""
    _, found = _question_spans(query, groups)
    return [g.concept for g in groups if g.gid not in found]


def _question_spans(query: str, groups: Sequence[AnchorGroup]) -> tuple[list[tuple[int, int, int]], set[int]]:
    """(start, end, group id) of the words of ``query`` each group stands for, none overlapping; and the groups some
    words of the question stand for, coloured or not (words another group's colour took: an audit read "no word
    stands for 'Rennick Dye Works'" beside "dye works" in the question)."""
    spans: list[tuple[int, int, int]] = []
    found: set[int] = set()
    low = query.lower()
    for g in groups:
        # the concept, else each name of a merged one ("Lothair II / Lothair I": an audit saw only "mother" marked in
        # "When did Lothair II's mother die?"), else the question's keywords its anchors were found for
        terms = [g.concept, *g.concept.split(" / "),
                 *(k for c in getattr(g, "members", ()) for k in getattr(c, "keywords", ()))]
        for term in dict.fromkeys(t.lower().strip() for t in terms if t and t.strip()):
            # a whole-word match first; else the whole word the concept sits in ("author" in "authored" marks
            # "authored": an audit saw half a word highlighted)
            m = re.search(rf"(?<!\w){re.escape(term)}(?!\w)", low) or re.search(rf"\w*{re.escape(term)}\w*", low)
            if m is None:
                continue
            found.add(g.gid)
            i, j = m.span()
            if all(i >= e or j <= s for s, e, _ in spans):
                spans.append((i, j, g.gid))
                break
    return spans, found


def terminal_groups(result: BubbleResult, graph: GraphLike) -> dict[int, list[int]]:
    """Node → the groups it is a terminal (anchor) of."""
    out: dict[int, list[int]] = {}
    if result.groups is None:
        return out
    for g in result.groups.groups:
        for v in g.terminals(graph):
            out.setdefault(int(v), []).append(g.gid)
    return out


def anchor_shapes(result: BubbleResult, graph: GraphLike, nodes: Iterable[int]) -> tuple[tuple[int, str], ...]:
    """(node, :data:`ANCHOR_SHAPE`) for each drawn node that is an anchor (a terminal of some group:
    node anchors and both ends of edge anchors, §3.2), so a drawing shows where the bubbles start."""
    terminals = terminal_groups(result, graph)
    return tuple((int(v), ANCHOR_SHAPE) for v in sorted({int(v) for v in nodes}) if int(v) in terminals)


def group_name(result: BubbleResult, gid: int) -> str:
    assert result.groups is not None
    return result.groups.groups[gid].concept


# ------------------------------------------------------------------------------------- drawings
def cost_sizes(result: BubbleResult, nodes: Iterable[int], lo: float = 10, hi: float = 30) -> dict[int, float]:
    """Node size grows as the semantic cost 1 − cos(q, v) falls (unknown cost: the small size)."""
    return {v: lo + (hi - lo) * max(0.0, 1.0 - result.node_cost[v]) if v in result.node_cost else lo for v in nodes}


def anchor_colour_groups(result: BubbleResult, graph: GraphLike) -> dict[int, list[int]]:
    """Node → the groups whose colour it is drawn in: the groups it is a *node* anchor of; only a node
    that is no group's node anchor takes the groups of the edge anchors it ends (an edge anchor
    contributes both endpoints as terminals, §3.2). So "Keanu Reeves" keeps the colour of the group
    that names him even when "The Matrix starring Keanu Reeves" is an anchor of the film group."""
    node_of: dict[int, list[int]] = {}
    edge_of: dict[int, list[int]] = {}
    if result.groups is None:
        return {}
    read_ahead(graph, edges=[c.index for g in result.groups.groups for c in g.members if c.kind != "node"])
    for g in result.groups.groups:
        for c in g.members:
            if c.kind == "node":
                node_of.setdefault(int(c.index), []).append(g.gid)
            else:
                for v in (int(graph.edge_head[c.index]), int(graph.edge_tail[c.index])):
                    edge_of.setdefault(v, []).append(g.gid)
    out = {v: sorted(set(gs)) for v, gs in edge_of.items()}
    out.update({v: sorted(set(gs)) for v, gs in node_of.items()})
    return out


def drawing_labels(result: BubbleResult, graph: GraphLike, nodes: Iterable[int], *,
                   first: Iterable[int] = ()) -> list[int]:
    """The nodes worth a canvas label in a BubbleRAG drawing, most important first: ``first`` (the
    meeting node, the node settled now, a new CEG), then the node anchors, then the other terminals
    (the rest of the drawing shows its names on hover)."""
    drawn = {int(v) for v in nodes}
    colour = anchor_colour_groups(result, graph)
    node_anchors = ({int(c.index) for g in result.groups.groups for c in g.members if c.kind == "node"}
                    if result.groups is not None else set())
    order = [int(v) for v in first]
    order += sorted(v for v in drawn if v in node_anchors)
    order += sorted(v for v in drawn if v in colour)
    return [v for v in dict.fromkeys(order) if v in drawn]


def named_anchors(result: BubbleResult, graph: GraphLike) -> list[int]:
    """The node anchors that carry their group's own name ("Keanu Reeves" of the group "Keanu Reeves", "Lothair II"
    of "Lothair II / Lothair I"): the question's subjects, whose names a drawing keeps on the canvas."""
    out: list[int] = []
    for g in result.groups.groups if result.groups is not None else ():
        names = {part.strip().lower() for part in g.concept.split(" / ")}
        out += [int(c.index) for c in g.members if c.kind == "node" and graph.node_names[c.index].lower() in names]
    return list(dict.fromkeys(out))


def subgraph_html(act: Active, result: BubbleResult, nodes: Sequence[int], edges: Sequence[int] | None, *,
                  outline_nodes: Iterable[int] = (), outline_edges: Iterable[int] = (), height: int = 520,
                  extra_legend: Sequence[graph_view.LegendItem] = (), show_legend: bool = True,
                  mark_anchors: bool = False) -> str:
    """A CEG / evidence graph: anchors in their group colour (mixed when a node anchors several
    groups; :func:`anchor_colour_groups`), size by cost, ``outline_*`` in red. Labels: the outlined
    nodes, the anchors and the CEG's own nodes; the rest on hover. ``mark_anchors``: anchors drawn as
    diamonds too (:func:`anchor_shapes`)."""
    g = act.graph
    by_colour = anchor_colour_groups(result, g)
    fills = tuple((v, blend([group_color(x) for x in by_colour[v]])) for v in nodes if v in by_colour)
    on = set(outline_nodes)
    borders = tuple((v, colors.CEG, 4) for v in nodes if v in on)
    oe = set(outline_edges)
    edge_colors = tuple((e, colors.CEG) for e in (edges or ()) if e in oe)
    widths = tuple((e, 3.0) for e in (edges or ()) if e in oe)
    ceg_nodes = sorted({int(x) for e in oe for x in (g.edge_head[e], g.edge_tail[e])})
    labels = tuple(drawing_labels(result, g, nodes, first=[*sorted(on), *ceg_nodes]))
    groups = result.groups.groups if result.groups is not None else ()
    shapes = anchor_shapes(result, g, nodes) if mark_anchors else ()
    legend = drawing_legend(groups, (*((ANCHOR_LEGEND,) if shapes else ()), *extra_legend)) if show_legend else ()
    notes = tuple((v, f"semantic cost 1 − cos(q, v) = {result.node_cost[v]:.3f}") for v in nodes if v in result.node_cost)
    return resources.styled_network_html(
        g, act.key, tuple(sorted(nodes)), colors=fills, sizes=tuple(sorted(cost_sizes(result, nodes).items())),
        borders=borders, edges=None if edges is None else tuple(sorted(edges)), edge_colors=edge_colors,
        edge_widths=widths, notes=notes, legend=legend, edge_labels=True, height=height, labels=labels,
        shapes=shapes, must_label=labels)  # a CEG is small: each of its names is what the drawing is for


def drawing_legend(groups: Sequence[AnchorGroup],
                   extra: Sequence[graph_view.LegendItem] = ()) -> tuple[graph_view.LegendItem, ...]:
    """The legend of :func:`subgraph_html` (also shown once above a row of such drawings)."""
    return (*group_legend(groups),
            graph_view.LegendItem("mixed colour: anchor of several groups", blend(colors.ANCHOR_GROUPS[:2])),
            graph_view.LegendItem("other node (name on hover)", graph_view.NODE_COLOR), *extra)


# ------------------------------------------------------------------------------------- replay
@st.cache_resource(show_spinner="Recording the bubble expansion frame by frame…", max_entries=16)
def bubblerag_replay(_result: Any, _graph: GraphLike, run_key: str) -> Any:
    """The run's expansion replayed frame by frame (``core.methods.bubblerag.replay.ExpansionReplay``)."""
    from core.methods.bubblerag.replay import expansion_replay

    cfg = _result.config
    return expansion_replay(_graph, _result.local, _result.groups.groups, budget=cfg.B,
                            intra_group=cfg.intra_group, intra_counts=cfg.intra_counts)

