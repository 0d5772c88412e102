"""The panels of the Ranking page (pages/bubble_ranking.py), each taking the run and the
sidebar's record as arguments; pages/bubble_ranking.py composes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components import colors, graph_view, replay_time
from components import state as S
from components.bubblerag import shared as bubble
from components.ui import md_escape
from core.methods.bubblerag import ALPHA_PRESETS

if TYPE_CHECKING:
    from components.sidebar import Active


PRESETS = {"AND": ALPHA_PRESETS["AND"], "balanced": ALPHA_PRESETS["balanced"], "OR": ALPHA_PRESETS["OR"],
           "compare": ALPHA_PRESETS["balanced"]}


def apply_preset() -> None:
    name = st.session_state.get(S.widget_key(S.BUBBLE_PRESET))
    if name in PRESETS:
        S.set_value(S.BUBBLE_ALPHA, PRESETS[name])
        if name == "compare":
            S.set_value(S.BUBBLE_N, max(int(st.session_state.get(S.BUBBLE_N, 3)), 3))


def parse_preset(text: str) -> str:
    """A preset's name from a link (ValueError for any other text)."""
    if text not in PRESETS:
        raise ValueError(text)
    return text


def parse_alpha(text: str) -> float:
    """α from a link: a number in [0, 100] (ValueError otherwise)."""
    v = float(text)
    if not 0.0 <= v <= 100.0:
        raise ValueError(text)
    return v


def parse_n(text: str) -> int:
    """n from a link: a whole number in [1, 50] (ValueError otherwise)."""
    v = int(text)
    if not 1 <= v <= 50:
        raise ValueError(text)
    return v


def use_for_answer(alpha: float, n: int) -> None:
    st.session_state[S.BUBBLE_RUN_ALPHA] = alpha
    st.session_state[S.BUBBLE_RUN_N] = n


def ceg_label(result, r) -> str:
    c = r.ceg
    # No rank in the label: the browser keeps showing a selected option's old label when only the
    # label changes, and the rank changes with α.
    return f"CEG #{c.index} · {c.kind} · {len(c.nodes)} nodes · covers {len(c.groups)}/{len(result.groups.groups)}"


#: The CEG's id first (the page names the best one "#7", and the drawing and the hops below go by it), then what α
#: changes (Score, Cost_sem, r_miss), so it is visible at 1280 px without scrolling.
RANKING_COLUMNS = ("CEG", "rank", "Score", "Cost_sem", "r_miss", "top-n", "shift", "covers", "missing groups",
                   "Penalty_miss", "intra ×", "kind", "nodes")


#: Pixel widths of the ranking table's columns: every header whole ("Cost_sem", "Penalty_miss": an audit saw them cut
#: at 58 px) and all thirteen inside the ≈ 975 px of the main area beside the sidebar at 1440 px (951 px in all; an
#: earlier audit saw "Penalty_miss" and "intra ×" cut at the right edge). The group lists are group numbers, named above.
COLUMN_PX = {"CEG": 52, "rank": 48, "Score": 62, "Cost_sem": 80, "r_miss": 62, "top-n": 56, "shift": 56,
             "covers": 112, "missing groups": 125, "Penalty_miss": 108, "intra ×": 70, "kind": 64, "nodes": 56}


def ranking_columns() -> dict[str, object]:
    """Widths for the ranking table (:data:`COLUMN_PX`): numbers narrow, the group lists wider."""
    num = {c: st.column_config.NumberColumn(c, width=COLUMN_PX[c], pinned=c == "rank") for c in (
        "rank", "Score", "Cost_sem", "r_miss", "Penalty_miss", "intra ×", "nodes")}
    text = {c: st.column_config.TextColumn(c, width=COLUMN_PX[c], pinned=c == "CEG") for c in (
        "top-n", "shift", "covers", "missing groups", "CEG", "kind")}
    return {**num, **text}


def groups_caption(result) -> str:
    """The anchor groups by number, for the ranking table's "covers" and "missing groups" columns (escaped)."""
    return "Groups in “covers” and “missing groups”: " + " · ".join(
        f"**{g.gid}** {md_escape(g.concept)}" for g in result.groups.groups) + "."


def ranking_table(result, ranked, n: int, baseline: dict[int, int]) -> pd.DataFrame:
    rows = []
    for r in ranked:
        c = r.ceg
        shift = baseline.get(c.index, r.rank) - r.rank
        rows.append({"rank": r.rank, "shift": f"▲ {shift}" if shift > 0 else f"▼ {-shift}" if shift < 0 else "=",
                     "CEG": f"#{c.index}", "kind": c.kind, "nodes": len(c.nodes),
                     # group numbers, named in groups_caption above the table: the names were cut at 112 px
                     # ("Keanu Reeves, Lau")
                     "covers": ", ".join(str(x) for x in c.groups),
                     "missing groups": ", ".join(str(x) for x in r.missing) or "—",
                     "Cost_sem": round(r.cost_sem, 4), "r_miss": round(r.r_miss, 3),
                     "Penalty_miss": round(r.penalty_miss, 3), "intra ×": r.intra_penalty, "Score": round(r.score, 4),
                     "top-n": "✓" if r.rank <= n else ""})
    return pd.DataFrame(rows, columns=list(RANKING_COLUMNS))


MEETING_LEGEND = graph_view.LegendItem("red ring: meeting (Steiner) node", colors.CEG)


def create_ceg_drawing(act: Active, result, r, *, height: int = 460, show_legend: bool = True) -> None:
    c = r.ceg
    g = act.graph
    doc = bubble.subgraph_html(act, result, list(c.nodes), list(c.edges), outline_nodes=[c.meeting] if c.meeting >= 0 else [],
                               outline_edges=c.edges, height=height, extra_legend=(MEETING_LEGEND,),
                               show_legend=show_legend)
    graph_view.render_html(doc, height=height)
    meet = md_escape(g.node_names[c.meeting]) if c.meeting >= 0 else "— (fallback: the anchors)"
    st.caption(f"CEG #{c.index} ({c.kind}) met at {meet}; {score_sum(r)}. "
               + md_escape(cost_sem_sum(r, getattr(result, "node_cost", {}), g.node_names)))


#: How many of a CEG's nodes its Cost_sem line names one by one (a larger CEG: the costliest and cheapest, with a count).
COST_TERMS = 8


def cost_sem_sum(r: Any, node_cost: Any, names: Any) -> str:
    """Cost_sem as the mean it is (§3.4, Eq. 5: the average of cost(v) = 1 − cos(z_q, z_v) over the CEG's nodes), each
    node's cost named, so a class can check it against the drawing: the score's sum stopped at "Cost_sem 0.514" and
    an audit could not tell where 0.514 came from. "" when the run kept no node costs (a run from before they were)."""
    nodes = list(r.ceg.nodes)
    costs = [(names[v], float(node_cost[v])) for v in nodes if v in node_cost]
    if not nodes or len(costs) != len(nodes):
        return ""
    costs.sort(key=lambda nc: nc[1])
    said = [f"{n} {c:.3f}" for n, c in costs]
    if len(said) > COST_TERMS:  # the cheapest and the costliest, the rest counted
        half = COST_TERMS // 2
        said = [*said[:half], f"… ({len(said) - 2 * half} more)", *said[-half:]]
    terms = " + ".join(said)
    return (f"Cost_sem {r.cost_sem:.3f} is the mean of its {len(costs)} nodes' costs 1 − cos(question, node): "
            f"({terms}) / {len(costs)}.")


def score_sum(r: Any) -> str:
    """How a CEG's score comes from the figures shown (§3.4, Eqs. 5–6), as a sum a class can redo: "score 1.760"
    beside "Cost_sem 0.514, r_miss 0.10" left a student asking how (an audit)."""
    intra = f" × intra-group {r.intra_penalty:g}" if abs(r.intra_penalty - 1.0) > 1e-9 else ""
    return (f"score = 1 / (Cost_sem {r.cost_sem:.3f} × Penalty_miss {r.penalty_miss:.3f}{intra}) = {r.score:.3f}, "
            f"where Penalty_miss = e^(α·r_miss) with r_miss {r.r_miss:.2f} (the weight of the groups it misses)")


def hop_rows(g: Any, offered: Sequence[int], scores: Sequence[float], chosen: set[int]) -> list[dict[str, object]]:
    """A hop's table: the chosen edges first, then the rest, each part most query-similar first. Sorted by
    similarity alone, the chosen ones were rows 13–17 of 17, out of sight in the table's own scroll."""
    order = sorted(zip(offered, scores), key=lambda es: (es[0] not in chosen, -float(es[1])))
    return [{"chosen": "✓" if e in chosen else "", "edge": g.edge_text(e), "similarity": round(float(s), 3)}
            for e, s in order]


def create_reasoning_ui(act: Active, result) -> None:
    g = act.graph
    rex = result.reasoning
    st.subheader("Reasoning-aware expansion (§3.5)")
    if rex is None or not rex.expanded:
        st.caption("No CEG was expanded.")
        return
    by = "the LLM" if rex.source == "llm" else "query similarity (`none` mode: no LLM)"
    st.caption(f"The top-{result.config.n} CEGs (ranked with the run's α = {result.config.alpha:g}) are grown hop "
               f"by hop, at most d = {result.config.d} hops: each hop offers the neighbouring edges, most "
               f"query-similar first, and {by} picks which to add and whether the evidence now suffices. Each hop's "
               "table lists the chosen edges (✓) first, then the rest, each part by similarity.")
    for ex in rex.expanded:
        with st.expander(f"CEG #{ex.ceg_index} (rank {ex.rank}): {len(ex.hops)} hop(s), "
                         f"{len(ex.nodes)} nodes — stopped: {ex.stop}", expanded=ex.rank == 1):
            for hp in ex.hops:
                sel = set(hp.selected)
                st.markdown(f"**Hop {hp.hop}** — {len(hp.offered)} edges offered, {len(hp.selected)} chosen by "
                            f"{md_escape(hp.by)}" + (" · judged **sufficient**" if hp.sufficient else "")
                            + (f" · {md_escape(hp.note)}" if hp.note else ""))
                rows = hop_rows(g, hp.offered, hp.offered_scores, sel)
                if rows:
                    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                                 height=min(36 * len(rows) + 40, 260))
            st.markdown(f"**Why it stopped:** {md_escape(ex.stop)}")
    if rex.not_expanded:
        st.caption(f"Not expanded (time budget spent): CEGs {', '.join(f'#{i}' for i in rex.not_expanded)}.")
    bubble.fallback_notes(result, ("reasoning",))
    replay_time.stage_time_captions(act.llm, result.trace, ("reasoning",))


def create_cegs_ui(act: Active, result: Any, ranked: Any, n: int, query: str) -> None:
    """The top-n CEGs side by side (the compare preset), or the one CEG picked, drawn."""
    top = ranked[:n]
    if st.session_state.get(S.BUBBLE_PRESET) == "compare" and len(top) > 1:
        st.subheader(f"Top-{len(top)} CEGs side by side (comparison query)")
        # one legend for the row: three copies would take most of each narrow drawing
        st.html(graph_view.legend_html(bubble.drawing_legend(result.groups.groups, (MEETING_LEGEND,)), inline=True))
        for col, r in zip(st.columns(min(len(top), 3)), top[:3]):
            with col:
                create_ceg_drawing(act, result, r, height=380, show_legend=False)
    else:
        st.subheader("Draw a CEG")
        labels = {r.ceg.index: ceg_label(result, r) for r in ranked}
        # CEG #3 of another question is another CEG: a new question starts on its best one
        S.reset_on_change(S.BUBBLE_CEG, (act.info.name, query))
        ckey = S.bind(S.BUBBLE_CEG, next(iter(labels)))
        if st.session_state[ckey] not in labels:  # a run with other knobs found fewer CEGs
            st.session_state[ckey] = next(iter(labels))
        pick = S.keep(S.BUBBLE_CEG, st.selectbox(
            "CEG", list(labels), format_func=labels.__getitem__, key=ckey,
            help="In rank order, best first. Anchors take their group's colour; the meeting node is ringed red."))
        create_ceg_drawing(act, result, next(r for r in ranked if r.ceg.index == pick))
