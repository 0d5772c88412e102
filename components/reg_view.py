"""Drawing ReG evidence chains as paths (HTML), and the plotly charts of the Evidence chains page.

A chain is a row of entity boxes joined by relation arrows, read left to right (Appendix F). The
query entity (the root) is outlined; a merged position (multi-answer merging) is a stack of boxes;
chains of one multi-entity group share a coloured frame and a note with the targets that target
refinement removed. Every label is user data and is HTML-escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from components import colors

if TYPE_CHECKING:
    from core.index.workspace import Workspace


_CSS = """<style>
.egx-chains{font-family:sans-serif;font-size:13px;line-height:1.25}
.egx-chain{display:flex;align-items:center;flex-wrap:wrap;gap:4px;padding:5px 6px;margin:3px 0;border-radius:6px;
 border:1px solid #ddd}
.egx-chain .n{color:#777;min-width:1.8em}
.egx-ent{display:inline-flex;flex-direction:column;gap:2px}
.egx-ent span{background:#f1f3f6;border:1px solid #c9ced6;border-radius:4px;padding:2px 6px}
.egx-ent.root span{border:2px solid #333;font-weight:600}
.egx-ent.set span{background:#fff4d6;border-color:#e0b84a}
.egx-rel{color:#555;white-space:nowrap}
.egx-tag{font-size:11px;color:#fff;border-radius:3px;padding:1px 5px;margin-left:6px}
.egx-note{font-size:11px;color:#666;margin-left:6px}
</style>"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def chains_html(chains: Sequence[Mapping[str, Any]], *, limit: int = 60) -> str:
    """HTML for the chains recorded in an answer step (``entities``, ``relations``, ``direction``,
    ``root``, ``group``, ``refined_from``, ``merged_answers``)."""
    rows = [_CSS, '<div class="egx-chains">']
    for i, c in enumerate(chains[:limit], start=1):
        ents: list[list[str]] = c.get("entities") or [[c.get("text", "")]]
        rels: list[str] = c.get("relations") or []
        group = int(c.get("group", -1))
        color = colors.nth(colors.CHAIN_GROUPS, group) if group >= 0 else ""
        style = f' style="border:2px solid {color}"' if color else ""
        root_pos = len(ents) - 1 if c.get("direction") == "backward" else 0
        parts = [f'<div class="egx-chain"{style}><span class="n">{i}.</span>']
        for p, names in enumerate(ents):
            cls = "egx-ent" + (" root" if p == root_pos and c.get("direction") != "unanchored" else "") \
                + (" set" if len(names) > 1 else "")
            parts.append(f'<span class="{cls}">' + "".join(f"<span>{_e(n)}</span>" for n in names) + "</span>")
            if p < len(rels):
                parts.append(f'<span class="egx-rel">→ [{_e(rels[p])}] →</span>')
        if int(c.get("merged_answers", 1)) > 1:
            parts.append(f'<span class="egx-tag" style="background:#b8860b">{int(c["merged_answers"])} answers merged'
                         "</span>")
        if color:
            parts.append(f'<span class="egx-tag" style="background:{color}">entity group {group + 1}</span>')
        if c.get("refined_from"):
            parts.append('<span class="egx-note">targets refined from {' + "; ".join(_e(x) for x in c["refined_from"])
                         + "}</span>")
        if c.get("direction") == "unanchored":
            parts.append('<span class="egx-note">not reached from a query entity</span>')
        parts.append("</div>")
        rows.append("".join(parts))
    if len(chains) > limit:
        rows.append(f'<div class="egx-note">… and {len(chains) - limit} more chains</div>')
    rows.append("</div>")
    return "".join(rows)


# ------------------------------------------------------------------------------------- cached views
@st.cache_resource(show_spinner="Building the supervision candidates…", max_entries=32)
def reg_supervision(_workspace: Workspace, _item: Any, _llm: Any, key: str, qid: str, llm_key: str,
                    refine: bool) -> tuple[Any, Any]:
    """(Supervision, Trace) of one question: candidate pool → compression → selection (ReG §4.1)."""
    from core.methods.reg.supervision import build_supervision
    from core.trace import Trace

    trace = Trace("reg-supervision", _item.question, _workspace.name)
    sup = build_supervision(_item, _workspace.graph, _llm, refine=refine, trace=trace)
    return sup, trace


@st.cache_data(show_spinner=False, max_entries=8)
def reg_questions(_workspace: Workspace, key: str) -> list[Any]:
    """The workspace's questions with answers (``core.methods.reg.supervision.QAItem``; [] if none)."""
    from core.index.questions import chunk_table
    from core.methods.reg.supervision import load_qa

    path = _workspace.questions_path
    return load_qa(path, chunk_table(_workspace)) if path is not None else []  # a store: its chunk rows only
