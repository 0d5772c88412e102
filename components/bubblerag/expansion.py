"""The panels of the Expansion page (pages/bubble_expansion.py), each taking the run and the
sidebar's record as arguments; pages/bubble_expansion.py composes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import colors, graph_view, resources, trace_player
from components import state as S
from components.bubblerag import shared as bubble
from components.ui import md_escape
from core.methods.bubblerag.expansion import budget_tally
from core.text import normalize_name

if TYPE_CHECKING:
    from components.sidebar import Active


MAX_DRAWN = 250  #: nodes drawn per frame (the expansion region of a bigger G')


MAX_REPLAY_WORK = 30_000_000  #: |V'| × settle steps above which frames are not recorded


def missing_note(result: Any, ceg: Any, meeting: str = "") -> str:
    """What a collision's CEG leaves out (Markdown, to follow its line): the groups none of whose anchors
    it holds and their weight r_miss, which §3.4's ranking charges it for. A collision of two side groups ("played",
    "main villain" meeting at the wrong villain) read as the method's answer to an audit, with nothing saying why.
    ``meeting``: the name of the node the bubbles met at; a missed group named like it is said to be the group, not
    that node (an audit read "met at The Matrix … holds no anchor of “The Matrix”" as a contradiction)."""
    assert result.groups is not None
    groups = result.groups.groups
    missing = [grp for grp in groups if grp.gid not in ceg.groups]
    if not missing:
        return " It holds an anchor of every group."
    r_miss = sum(grp.weight for grp in missing)
    names = ", ".join(f"“{md_escape(grp.concept)}”" for grp in missing)
    alike = next((grp.concept for grp in missing if meeting and normalize_name(grp.concept) == normalize_name(meeting)),
                 "")
    same = (f" (the group “{md_escape(alike)}” is the question's concept: its anchors are other nodes, not the "
            "node of that name the bubbles met at)" if alike else "")
    return (f" It holds no anchor of the group{'s' if len(missing) > 1 else ''} {names}{same} (r_miss = "
            f"{r_miss:.2f} of the weight): a collision is only a candidate, and the ranking (§3.4) charges it "
            "e^(α·r_miss) for what it misses.")


def drawn_nodes(act: Active, result, replay) -> tuple[list[int], bool]:
    """All of G' when small; else the CEG nodes, the anchors and the nodes in settle order, capped."""
    local = [int(v) for v in result.local.nodes.tolist()]
    if len(local) <= MAX_DRAWN:
        return local, False
    g = act.graph
    order: dict[int, None] = {}
    for c in replay.result.cegs if replay is not None else result.expansion.cegs:
        order.update(dict.fromkeys(c.nodes))
    order.update(dict.fromkeys(sorted(bubble.terminal_groups(result, g))))
    if replay is not None:
        order.update(dict.fromkeys(replay.visited))
    return sorted(list(order)[:MAX_DRAWN]), True


def top_ceg_nodes(result: Any, replay: Any, step: int) -> list[int]:
    """The nodes of the best-ranked CEG (§3.4, at the run's α) once the replay has found it at ``step``, its meeting
    node first; [] before."""
    if not result.ranked:
        return []
    top = result.ranked[0].ceg
    found = next((c for c in replay.result.cegs if c.index == top.index), top)
    if found.found_at > step:
        return []
    return [v for v in dict.fromkeys([top.meeting, *sorted(top.nodes)]) if v >= 0]


MIXED_ONLY = "in a mix only"  #: the legend's words for a group whose colour no node shows on its own at a frame
#: ... and for one whose anchors other groups settled alone (each drawn in that group's colour); short: a legend row
#: per group, and three such rows at full length pushed the drawing down by two rows
NO_NODE_NOW = "no node of its own now"


def group_items(result: Any, drawn: set[str] | None = None, fills: dict[int, str] | None = None,
                terminals: dict[int, list[int]] | None = None) -> tuple[graph_view.LegendItem, ...]:
    """One legend row per group in its colour. At a frame (``drawn``: the fills and rings it draws), a group whose
    colour no node shows, its anchors settled by other bubbles too and so filled with a mix, is named with the mix
    its first anchor shows ("The Matrix" had a yellow swatch and no yellow node: an audit), or left out when none of
    its anchors is drawn."""
    out = []
    own = {bubble.group_color(g.gid) for g in result.groups.groups}
    for grp in result.groups.groups:
        colour, name = bubble.group_color(grp.gid), graph_view.short_label(grp.concept, 22)
        if drawn is None or colour in drawn:
            out.append(graph_view.LegendItem(name, colour))
            continue
        shown = [c for v, c in sorted((fills or {}).items())
                 if grp.gid in (terminals or {}).get(v, ()) and c not in ("#ffffff", colors.UNVISITED)]
        # a true mix only: an anchor another group settled alone shows that group's colour, and an audit read four
        # legend rows in one pink ("main villain" and three groups "in a mix only" beside it)
        mix = next((c for c in shown if c not in own), None)
        if mix is not None:
            out.append(graph_view.LegendItem(f"{name} ({MIXED_ONLY})", mix))
        elif shown:  # its anchors drawn in other groups' colours: its own colour, said to be on no node now
            out.append(graph_view.LegendItem(f"{name} ({NO_NODE_NOW})", colour))
    return tuple(out)


def replay_legend(result: Any, *, anchors: bool = True, drawn: set[str] | None = None,
                  fills: dict[int, str] | None = None,
                  terminals: dict[int, list[int]] | None = None) -> tuple[graph_view.LegendItem, ...]:
    """The replay's legend, short: each group by its concept (:func:`group_items`: at a frame, only the colours it
    draws), then what the marks mean. Its long version took four rows under the canvas, the second cut at the fold
    of a 1440×900 projector (an audit); :func:`replay_height` makes room for its rows."""
    return (
        *group_items(result, drawn, fills, terminals),
        *((graph_view.LegendItem("diamond: anchor", bubble.ANCHOR_LEGEND.color, bubble.ANCHOR_LEGEND.shape),) if anchors else ()),
        graph_view.LegendItem("several groups", bubble.blend(colors.ANCHOR_GROUPS[:2])),
        graph_view.LegendItem("ring: in the queue", "#ffffff"),
        graph_view.LegendItem("settled now", colors.CURRENT_BORDER),
        graph_view.LegendItem("CEG found now", colors.CEG),
        graph_view.LegendItem("earlier CEGs", "#444444", "line"),
        graph_view.LegendItem("not reached", colors.UNVISITED))


def focus_nodes(cegs: Sequence[Any]) -> tuple[int, ...]:
    """The nodes the replay is about: its collisions' CEGs (a run without a collision: its CEGs). The connected
    parts of G' that hold none are drawn small under the others (:func:`graph_view.layout_positions`)."""
    chosen = [c for c in cegs if c.kind == "collision"] or list(cegs)
    return tuple(sorted({int(v) for c in chosen for v in c.nodes}))


def side_note(parts: int) -> str:
    """The caption's words for the parts of G' drawn small (:func:`focus_nodes`): "" when none."""
    if not parts:
        return ""
    return (f" {'One part' if parts == 1 else f'{parts} parts'} of G' without a CEG {'is' if parts == 1 else 'are'} "
            "drawn small at the edge.")


def flashed_cegs(found: Sequence[Any]) -> list[Any]:
    """The CEGs a frame draws in red: the collisions found at its step, else (a frame of intra-group CEGs only) those.
    An intra-group CEG found beside a collision is drawn like the earlier ones: an audit counted five red nodes on
    Lothair's 3-node collision, the 4-node intra-group CEG of the same step red too."""
    return [c for c in found if c.kind != "intra"] or list(found)


def frame_drawing(act: Active, result, replay, frame: int, nodes: list[int], positions, *,
                  height: int | None = None) -> tuple[str, object]:
    g = act.graph
    f = replay.frames[frame]
    state = replay.state_at(frame, nodes)
    fills, borders, notes = [], [], []
    terminals = bubble.terminal_groups(result, g)
    flashed = flashed_cegs(f.new_cegs)
    flash_nodes = {v for c in flashed for v in c.nodes}
    flash_edges = {e for c in flashed for e in c.edges}
    older_edges = {e for c in replay.result.cegs if (c.found_at < f.step and c.kind == "collision")
                   or (c.found_at == f.step and c not in flashed) for e in c.edges}
    for v in nodes:
        settled = bubble.mask_groups(state.settled.get(v, 0))
        front = bubble.mask_groups(state.frontier.get(v, 0))
        if settled:
            fills.append((v, bubble.blend([bubble.group_color(x) for x in settled])))
        elif front:
            fills.append((v, "#ffffff"))
        else:
            fills.append((v, colors.UNVISITED))
        if v in flash_nodes:
            borders.append((v, colors.CEG, 6))
        elif v == f.node:
            borders.append((v, colors.CURRENT_BORDER, 5))
        elif front:
            borders.append((v, bubble.group_color(front[0]), 4))
        elif not settled:
            borders.append((v, colors.UNVISITED_BORDER, 1))
        lines = [f"{bubble.group_name(result, gid)}: {state.costs[gid][v]:.3f}"
                 for gid in sorted(state.costs) if v in state.costs[gid]]
        anchor = ("anchor of " + ", ".join(bubble.group_name(result, x) for x in terminals[v]) + "\n"
                  if v in terminals else "")
        if lines or anchor:
            notes.append((v, anchor + ("accumulated cost per group:\n" + "\n".join(lines) if lines else "")))
    edges = g.induced_edges(nodes).tolist()
    edge_colors = tuple((e, colors.CEG if e in flash_edges else "#444444")
                        for e in edges if e in flash_edges or e in older_edges)
    widths = tuple((e, 5.0 if e in flash_edges else 2.5) for e in edges if e in flash_edges or e in older_edges)
    # labels: the node settled now, the CEG found now, the best-ranked CEG once found, the question's subjects, the
    # meeting nodes so far, then every other anchor: all of them kept on the canvas, with a leader line where no spot
    # near the node reads as its own (an audit asked "where is Fishburne?" of an unlabelled diamond, the best CEG's
    # meeting node). The question's subjects are placed before the other anchors: an audit found "The Matrix"
    # unlabelled at step 0, its spots taken by anchors placed before it in index order
    meetings = [c.meeting for c in replay.result.cegs if c.found_at <= f.step and c.meeting >= 0]
    best = top_ceg_nodes(result, replay, f.step)
    first = [f.node, *sorted(flash_nodes), *best, *bubble.named_anchors(result, g), *meetings]
    labels = tuple(bubble.drawing_labels(result, g, nodes, first=first))
    shapes = bubble.anchor_shapes(result, g, nodes)
    fill_of, ring_of = dict(fills), {v: c for v, c, _ in borders}
    legend = replay_legend(result, anchors=bool(shapes), drawn=(set(fill_of.values()) | set(ring_of.values())),
                           fills=fill_of, terminals=terminals)
    must = tuple(v for v in dict.fromkeys(first) if v >= 0)
    doc = resources.styled_network_html(
        g, act.key, tuple(nodes), colors=tuple(fills), sizes=tuple(sorted(bubble.cost_sizes(result, nodes).items())),
        borders=tuple(borders), edge_colors=edge_colors, edge_widths=widths, notes=tuple(notes), positions=positions,
        # relation names on the canvas only in a small G': in a dense cluster they piled over the node labels (the
        # names of the anchors, the settled node and the CEG, the only nodes labelled here); hover shows them
        legend=legend, edge_labels=len(nodes) <= graph_view.LABEL_ALL_UP_TO, height=height or HEIGHT, labels=labels, shapes=shapes,
        legend_px=LEGEND_FONT_PX, label_px=LABEL_PX, must_label=must, keep_label=tuple(v for v, _ in shapes if v not in must),
        # the CEG found now named in its red: a label placed off its node still reads as the collision's
        label_colors=tuple((v, colors.CEG) for v in sorted(flash_nodes)))
    return doc, state


def run_tally_text(result) -> str:
    """The run's CEGs against B, for the caption under the replay, worded as the side panel's caption at the last
    frame ("19 CEGs, 10 toward B = 10 + 9 intra-group" read as 10 = 10 + 9, an audit)."""
    cfg, exp = result.config, result.expansion
    tally = budget_tally(exp.cegs, cfg.B, intra_counts=cfg.intra_counts)  # the last frame's numbers
    numbered = f" (#0–#{tally.total - 1})" if tally.total > 1 else " (#0)" if tally.total else ""
    # said to be the end's: beside a frame's "8 CEGs so far" it read as another count of the same moment (audit 57)
    return (f"by the end frame, {tally.total} CEG{'' if tally.total == 1 else 's'}{numbered}: {tally.counted} count "
            f"toward B (B = {cfg.B})" + (" (intra-group ones included)" if cfg.intra_counts else
                                         f", {tally.uncounted} intra-group ({bubble.intra_ids(exp.cegs)}) do not"
                                         if tally.uncounted else ""))


def passed_intra_line(cegs, frames, frame: int) -> str:
    """On a collision frame, the intra-group CEGs found since the previous collision ("" when none): **Next
    collision** jumps over them, and an audit saw the numbering go from "#3" unseen to "CEG #4"."""
    f = frames[frame]
    if not any(c.kind == "collision" for c in f.new_cegs):
        return ""
    prev = max((g.step for g in frames[:frame] if any(c.kind == "collision" for c in g.new_cegs)), default=-1)
    skipped = [c.index for c in cegs if c.kind != "collision" and prev < c.found_at < f.step]
    if not skipped:
        return ""
    # the intra-group CEGs of this very step, and the count of all so far: the caption's, with the same numbers
    # (audit 57 read the caption's "7 intra-group" beside "6 intra-group (#0–#5)" here, #6 found at this step)
    now = [c.index for c in f.new_cegs if c.kind == "intra"]
    so_far = [c.index for c in cegs if c.kind == "intra" and c.found_at <= f.step]
    here = (f" {bubble.ceg_ids(now)}, intra-group too, {'is' if len(now) == 1 else 'are'} found at this step, beside "
            "the collision." if now else "")
    return (f"On the way here: {len(skipped)} intra-group CEG{'s' if len(skipped) != 1 else ''} "
            f"({bubble.ceg_ids(skipped)}) — anchors of one group meeting each other, not a collision, so **Next "
            f"collision** passes {'them' if len(skipped) != 1 else 'it'}; **Step ›** shows each.{here} Intra-group "
            f"CEGs so far: {len(so_far)} ({bubble.ceg_ids(so_far)}), as the caption above counts them.")


def anchor_note(result, graph, node: int, group: int) -> str:
    """After "Group X settled v at accumulated cost 0.000": that v is an anchor of X (where its bubble starts), and of
    which other groups too ("" when v is no anchor of X). An audit's class saw the "mother" group settle Lothair I at
    cost 0 and Lothair I in the "Lothair II / Lothair I" group, with the look-alike note only under the drawing."""
    of = bubble.terminal_groups(result, graph).get(int(node), [])
    if group not in of:
        return ""
    others = [bubble.group_name(result, x) for x in of if x != group]
    if not others:
        return " (one of its anchors: its bubble starts there)"
    return (" (one of its anchors, and an anchor of " + ", ".join(f"“{o}”" for o in others)
            + " too: their bubbles start on the same node)")


def shared_anchor_note(result, graph, node: int, involved) -> str:
    """After a collision's line: that the meeting node is an anchor of several of the colliding groups, so they met
    where their bubbles started ("" otherwise)."""
    if node < 0:
        return ""
    of = set(bubble.terminal_groups(result, graph).get(int(node), []))
    both = [x for x in involved if x in of]
    if len(both) < 2:
        return ""
    return (f" {graph.node_names[node]} is an anchor of " + " and of ".join(f"“{bubble.group_name(result, x)}”"
                                                                            for x in both)
            + ": their bubbles start on it, so they meet there at once (§3.2's candidates of several keywords).")


def done_text(res, cfg, frame: int) -> str:
    """The side panel's sentence at the end frame: how many settle steps and why the search stopped, and why the
    counter beside it shows one step more (the end frame settles no node; "Step 36 / 36" beside "Done after 35
    settle steps" read as a slip, an audit)."""
    why = (f"budget B = {cfg.B} reached" if res.budget_reached else
           "no collision: the anchors form the fallback CEG (Alg. 1 lines 23-24)" if res.fallback else
           "the queue ran empty (G' exhausted)")
    end = (f" Step {frame} is the end frame: it settles no node, it shows where the search stopped."
           if frame != res.steps else "")
    return f"Done after {res.steps} settle step{'s' if res.steps != 1 else ''} — {why}.{end}"


def create_side_panel(act: Active, result, replay, frame: int) -> None:
    g = act.graph
    f = replay.frames[frame]
    cfg = result.config
    said = bubble.budget_text(replay.result.cegs, f, cfg)
    c1, c2 = st.columns(2)
    # the last frame is the end frame, one past the settle steps: said under the figures (audit 43 read "Step 0 / 36"
    # beside "35 settle steps"; audit 44 saw it cut to "… the end fra…" as the metric's chip in projector mode)
    c1.metric("Step", f"{frame} / {len(replay) - 1}",
              help="Frame k of the slider on the left = the state after k settle steps; the last frame is the end "
                   "frame, where the search stopped.")
    c2.metric("Toward budget B", said.metric,
              help="CEGs that consume B: the search stops when B of them exist (§3.3, Algorithm 1 line 8). "
              + ("Intra-group CEGs count toward B." if cfg.intra_counts else
                 "Intra-group CEGs do not (same-group anchors meeting early would crowd out the collisions); "
                 "they are capped at B on their own."))
    st.caption(f"Steps: {replay.result.steps} settle steps + the end frame. {said.caption}")
    if f.done:
        st.success(done_text(replay.result, cfg, frame))
    elif f.node < 0:
        # an audit's lecturer asked why "Apocalypse Now" anchors the Laurence Fishburne group: say where anchors come from
        st.info("Start: every anchor is in the queue at cost 0, one bubble per group. A group's anchors are the "
                "nodes and triples its keyword's search matched (§3.2's candidates, kept by the grouping), so the "
                "other end of a triple that names the keyword can anchor its group too.")
    else:
        st.markdown(f"Group **{md_escape(bubble.group_name(result, f.group))}** settled "
                    f"**{md_escape(g.node_names[f.node])}** at accumulated cost **{f.cost:.3f}**"
                    f"{md_escape(anchor_note(result, g, f.node, f.group))}; "
                    f"{len(f.relaxed)} neighbour label{'s' if len(f.relaxed) != 1 else ''} improved.")
    passed = passed_intra_line(replay.result.cegs, replay.frames, frame)
    if passed:
        st.caption(passed)
    for c, line in zip(f.new_cegs, said.lines, strict=True):
        groups = ", ".join(bubble.group_name(result, x) for x in c.involved)
        meet = g.node_names[c.meeting] if c.meeting >= 0 else "—"
        text = (f"**Collision**: the bubbles of {md_escape(groups)} met at **{md_escape(meet)}** → {line} "
                f"({len(c.nodes)} nodes, {len(c.edges)} edge{'' if len(c.edges) == 1 else 's'}), backtracked and outlined "
                "in red."
                if c.kind == "collision" else
                f"Intra-group connection in **{md_escape(groups)}** at **{md_escape(meet)}** → {line} "
                f"({len(c.nodes)} nodes; mildly penalized in ranking).")
        if c.kind == "collision":
            st.error(text + md_escape(shared_anchor_note(result, g, c.meeting, c.involved)) + missing_note(result, c, meet),
                     icon=":material/flare:")
        else:
            st.warning(text, icon=":material/join_inner:")
    left = " left when the search stopped" if f.done else ""
    st.markdown(f"**Priority-queue head** ({f.queue_size} {'entry' if f.queue_size == 1 else 'entries'}{left})")
    if f.queue_head:
        # a static table, whose cells wrap: the side column is ≈ 270 px at 1440, where a grid's fixed columns cut
        # "Lothair II / Lothair I" and "science fiction action film" (an audit)
        # (st.table draws its cells as Markdown: names are escaped, a node named "[x](https://…)" is no link)
        st.table(pd.DataFrame([{"node": md_escape(g.node_names[v]), "group": md_escape(bubble.group_name(result, gr)),
                                "cost": f"{c:.3f}"} for v, gr, c in f.queue_head]), hide_index=True, border="horizontal")
    else:
        st.caption("The queue is empty: every node a bubble reached is settled.")
    full = replay.state_at(frame)
    rows = []
    for grp in result.groups.groups:
        costs = full.costs.get(grp.gid, {})
        settled = [v for v, m in full.settled.items() if (m >> grp.gid) & 1]
        rows.append({"group": md_escape(grp.concept),  # a Markdown cell (st.table): escaped
                     "max settled cost": f"{max((costs[v] for v in settled if v in costs), default=0.0):.3f}",
                     "settled": len(settled),
                     "frontier": sum(1 for m in full.frontier.values() if (m >> grp.gid) & 1)})
    st.markdown("**Bubbles** (accumulated cost = Σ 1 − cos(q, v) along the path; max cost: the largest among the "
                "group's settled nodes)")
    # a static table, whose cells wrap: a grid's 92-px group column cut "Laurence Fishburne" in the ≈ 270-px side
    # column at 1440 (an audit)
    st.table(pd.DataFrame(rows, columns=["group", "max settled cost", "settled", "frontier"])
             .rename(columns={"max settled cost": "max cost"}), hide_index=True, border="horizontal")


def create_final_state_ui(act: Active, result) -> None:
    """No replay (G' too big to record every frame): the final CEGs on the drawn region."""
    g = act.graph
    nodes, _ = drawn_nodes(act, result, None)
    ceg_nodes = {v for c in result.expansion.cegs for v in c.nodes}
    ceg_edges = {e for c in result.expansion.cegs for e in c.edges}
    doc = bubble.subgraph_html(act, result, nodes, g.induced_edges(nodes).tolist(), outline_nodes=ceg_nodes,
                               outline_edges=ceg_edges, height=HEIGHT, mark_anchors=True)
    graph_view.render_html(doc, height=HEIGHT)


def hop_note(realized: int, requested: int, capped: bool, max_nodes: int) -> str:
    """Requested h vs the hops G' really spans (a caption said "3-hop" under an h = 6 slider)."""
    if realized == requested:
        return f"h = {requested} hops requested and realized"
    if capped:
        return (f"h = {requested} hops requested, {realized} realized: hop {realized + 1} would take G' past "
                f"{max_nodes:,} nodes")
    return (f"h = {requested} hops requested, {realized} realized: nothing lies farther than {realized} "
            f"hop{'' if realized == 1 else 's'} from the anchors")


HEIGHT = 500  #: the replay's iframe at most, legend included: under the tour's bar it ends at a 900-px fold
LABEL_PX = 17  #: the replay's node labels on screen, read from the back of a lecture room (15 px read as ~12 px)
#: The replay (player, drawing, side panel) reaches 3.5 rem into the page's 5-rem side paddings (:data:`REPLAY_CSS`):
#: at 1440×900 the drawing was ≈ 690×380 px beside a 270-px side panel, hard to read from the back of a room (an
#: audit); the title, the tour's bar and the notes keep the page's width.
REPLAY_KEY = "egx-replay"
REPLAY_BLEED_REM = 3.5
REPLAY_CSS = f"""<style>
.st-key-{REPLAY_KEY} {{ width: calc(100% + {2 * REPLAY_BLEED_REM}rem) !important; max-width: none;
  margin-left: -{REPLAY_BLEED_REM}rem; margin-right: -{REPLAY_BLEED_REM}rem; }}
</style>"""
#: The replay's legend: at the labels' size, above the canvas, where it is read first. A 12-px grey row under the
#: canvas at y ≈ 840–860 of a 1440×900 projector was hard to read from the back of a room (an audit).
LEGEND_FONT_PX = LABEL_PX
#: The replay canvas's width at 1440 px (5/7 of the ~1090-px replay block) and one legend row's height, in pixels
#: (the stylesheet's line height 1.35 and its 2-px row gap).
CANVAS_PX, LEGEND_ROW_PX = 768, round(LEGEND_FONT_PX * 1.35) + 2
LEGEND_PAD_PX = 10  #: the legend strip's padding and border


def legend_px(legend: Sequence[graph_view.LegendItem]) -> int:
    """The legend strip's height above the replay's canvas at 1440 px."""
    return LEGEND_PAD_PX + LEGEND_ROW_PX * graph_view.legend_rows(legend, CANVAS_PX, font_px=LEGEND_FONT_PX)


def replay_height(positions: Sequence[tuple[int, float, float]], *, least: int = 380,
                  legend: Sequence[graph_view.LegendItem] = ()) -> int:
    """The replay's iframe height for its fixed layout: as tall as the layout needs at the canvas's width (with
    the labels' margin) plus the legend's rows, between ``least`` and :data:`HEIGHT`. A wide layout at a fixed 680 px
    was fitted by its width, leaving ~80 px of white canvas above and below, and pushed the legend under a 900-px
    fold (audits)."""
    strip = legend_px(legend) if legend else LEGEND_PAD_PX + 2 * LEGEND_ROW_PX
    if len(positions) < 2:
        return least
    xs, ys = [p[1] for p in positions], [p[2] for p in positions]
    pad = 160.0  # the labels under the nodes and the fit's margin, in layout units (≈ 1.5 × the node spacing)
    aspect = (max(ys) - min(ys) + pad) / (max(xs) - min(xs) + pad)
    return int(min(HEIGHT, max(least, CANVAS_PX * aspect + strip)))


def settings_label() -> str:
    """The label of the popover that holds h and B, with the values the next run uses (the widgets' own, which a
    change has already updated when this rerun starts)."""
    ss = st.session_state
    h = ss.get(S.widget_key(S.BUBBLE_H), ss.get(S.BUBBLE_H, bubble.DEFAULTS.h))
    b = ss.get(S.widget_key(S.BUBBLE_B), ss.get(S.BUBBLE_B, bubble.DEFAULTS.B))
    return f"Search settings: h = {h} hops, B = {b} CEGs"


def create_run_notes(act: Active, result: Any) -> None:
    """Under the drawing: what G' is (anchors, size, requested and realized h, settle steps, CEGs) and the anchor
    groups in their colours."""
    local, exp = result.local, result.expansion
    st.caption(f"G' = the neighbourhood of the {len(bubble.terminal_groups(result, act.graph))} anchors: "
               f"{local.n_nodes:,} nodes, {local.n_edges:,} edges · "
               f"{hop_note(local.h, local.h_requested, local.capped, result.config.max_local_nodes)}"
               f" · {exp.steps} settle steps · {run_tally_text(result)}.")
    st.html(bubble.group_chips(result.groups.groups))


def create_replay_ui(act: Active, result: Any, query: str, *, pause_at: Any = None) -> None:
    """The expansion replayed frame by frame on fixed positions: the player, the drawing, and the side panel;
    ``pause_at`` holds the "pause at collisions" switch (default: above the drawing)."""
    g = act.graph
    local = result.local
    replay = bubble.bubblerag_replay(result, g, bubble.run_key(act, query, result.config))
    nodes, capped = drawn_nodes(act, result, replay)
    if capped:
        st.warning(f"G' has {local.n_nodes:,} nodes; the drawing shows {len(nodes)} of them: the CEG nodes, the "
                   "anchors and the nodes in the order the search settled them. Frontier nodes outside the "
                   "drawing are counted in the side panel.", icon=":material/content_cut:")
    focus = focus_nodes(replay.result.cegs)
    positions = resources.layout_positions(g, act.key, tuple(nodes), focus=focus,
                                           sizes=tuple(sorted(bubble.cost_sizes(result, nodes).items())))
    side = len(graph_view.side_components(g, nodes, focus)) if focus else 0
    collisions = replay.collision_frames()
    if S.reset_on_change(S.BUBBLE_FRAME, (act.info.name, query)):  # a new question replays from frame 0
        st.session_state[S.BUBBLE_PLAYING] = False
    pause = S.keep(S.BUBBLE_PAUSE_AT_COLLISION, (pause_at or st).checkbox(
        "Pause when bubbles of different groups collide", key=S.bind(S.BUBBLE_PAUSE_AT_COLLISION, True)))
    # The player, the drawing and the side panel rerun on their own (a fragment): a step or a Play frame redraws
    # them, not the page above — a whole-page rerun per frame greyed the page and showed the controls twice,
    # squeezed, for a few seconds after Play (an audit at 1440×900)
    st.fragment(_player)(act, result, replay, nodes, positions, collisions, pause, side)


def _player(act: Active, result: Any, replay: Any, nodes: list[int], positions: Any, collisions: list[int],
            pause: bool, side: int = 0) -> None:
    """The frame controls, the frame's drawing and the side panel; Play advances them here (a fragment rerun).
    ``side``: how many connected parts of the drawing hold no CEG (drawn small at its edge, named in the caption)."""
    left, right = st.columns([5, 2])
    with left:
        frame = trace_player.frame_controls(S.BUBBLE_FRAME, S.BUBBLE_PLAYING, len(replay), collisions,
                                            help_text="Frame k = the state after k settle steps.", show_label=False)
        height = replay_height(positions, legend=replay_legend(result))
        doc, _ = frame_drawing(act, result, replay, frame, nodes, positions, height=height)
        graph_view.render_html(doc, height=height)
        # the look-alike named is the Keanu question's own (on another question it named anchors it did not have)
        like = " (“special relativity” for “Speed”)" if "Keanu Reeves" in str(result.query) else ""
        # two short sentences: five lines of it were too much for a projector (an audit)
        st.caption("Diamonds are the anchors, where the bubbles start; a node grows as its semantic cost 1 − cos(q, v) "
                   "falls (hover: its cost per group; Ctrl + wheel zooms). Anchors are their group's nearest candidates "
                   f"by embedding (§3.2), so some are look-alikes{like} that grow bubbles too." + side_note(side))
    with right:
        create_side_panel(act, result, replay, frame)
    trace_player.continue_playing(S.BUBBLE_FRAME, S.BUBBLE_PLAYING, len(replay), collisions if pause else (),
                                  scope="fragment")
