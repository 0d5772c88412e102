"""LLM-guided candidate refinement (ReG §4.1, Appendix D.3, Appendix F Fig. 6 prompt style).

The compressed candidates are textualized as directed chains and numbered; the LLM, with an
explanation-based in-context demonstration, returns ``{"explanation": ..., "selected": [ids]}``.
The triples of every selected candidate (all the paths it stands for) are the **refined**
supervision ``P*``.

``none`` mode, or unusable LLM output (no JSON after retries, ids out of range, nothing selected),
gives the **weak** signal instead — the query→answer shortest paths — and says so (``mode="weak"``
and ``fallback``); it is never silently mixed with refined labels.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from core.methods.reg import prompts
from core.methods.reg.candidates import CandidatePool
from core.methods.reg.compression import Compression

if TYPE_CHECKING:
    from core.backends.base import LLM
    from core.graph.model import KnowledgeGraph
    from core.trace import Trace

WEAK_LABEL = "weak signal: query→answer shortest paths only (no LLM refinement)"


@dataclass(frozen=True)
class Selection:
    mode: Literal["llm", "weak"]
    selected: tuple[int, ...]  #: candidate indices the LLM kept (empty in weak mode)
    edges: tuple[int, ...]  #: positive triples (edge ids)
    weak_edges: tuple[int, ...]  #: the shortest-path signal, for comparison
    explanation: str = ""
    fallback: str = ""
    prompt: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0


def _parse_ids(data: Any, n: int) -> tuple[list[int], str]:
    if not isinstance(data, dict) or not isinstance(data.get("selected"), list):
        return [], 'the output has no "selected" list'
    ids = [int(x) for x in data["selected"] if isinstance(x, (int, float)) or (isinstance(x, str) and x.isdigit())]
    bad = [i for i in ids if not 0 <= i < n]
    ids = list(dict.fromkeys(i for i in ids if 0 <= i < n))
    if not ids:
        return [], ("every selected id was out of range " + str(bad[:5])) if bad else "the LLM selected no candidate"
    return ids, ""


def select_candidates(query: str, answers: Sequence[str], comp: Compression, pool: CandidatePool,
                      graph: KnowledgeGraph, llm: LLM, *, max_candidates: int = 40, max_tokens: int = 256,
                      trace: Trace | None = None) -> Selection:
    """Ask the LLM for the sufficient, coherent subset of the compressed candidates (§4.1).

    Returns
    -------
    Selection
        ``mode="llm"`` with the selected candidates' triples, or ``mode="weak"`` with the
        shortest-path triples and the reason in ``fallback``.
    """
    from core.methods.llm_steps import ask_json
    from core.trace import Step

    t0 = time.perf_counter()
    weak = pool.shortest_edges
    cands = comp.candidates[:max_candidates]
    step = Step("selection", "LLM selection of supervision paths", section="ReG §4.1, Appendix D.3, Appendix F")
    user = prompts.select_prompt(query, list(answers), [c.text(graph) for c in cands])
    if not cands:
        sel = Selection("weak", (), weak, weak, fallback="the candidate pool is empty; " + WEAK_LABEL)
    else:
        res = ask_json(llm, prompts.SELECT_SYSTEM, user, prompts.select_schema(len(cands)), max_tokens=max_tokens,
                       step=step)
        if res.data is None:
            sel = Selection("weak", (), weak, weak, fallback=f"{res.fallback}; {WEAK_LABEL}", prompt=user,
                            prompt_tokens=res.prompt_tokens, completion_tokens=res.completion_tokens)
        else:
            ids, problem = _parse_ids(res.data, len(cands))
            if problem:
                sel = Selection("weak", (), weak, weak, str(res.data.get("explanation", ""))
                                if isinstance(res.data, dict) else "", f"LLM output unusable: {problem}; {WEAK_LABEL}",
                                user, res.prompt_tokens, res.completion_tokens)
            else:
                edges = tuple(sorted({e for i in ids for e in cands[i].edges}))
                sel = Selection("llm", tuple(ids), edges, weak, str(res.data.get("explanation", "")), "", user,
                                res.prompt_tokens, res.completion_tokens)
    if trace is not None:
        step.data = {
            "mode": sel.mode, "label": "refined (LLM-selected)" if sel.mode == "llm" else WEAK_LABEL,
            "selected": list(sel.selected), "explanation": sel.explanation,
            "kept": [cands[i].text(graph) for i in sel.selected],
            "shortest_path_signal": [graph.edge_text(e) for e in weak[:100]],
            "positive_triples": [graph.edge_text(e) for e in sel.edges[:100]],
            "added_vs_weak": [graph.edge_text(e) for e in sorted(set(sel.edges) - set(weak))[:100]],
            "dropped_vs_weak": [graph.edge_text(e) for e in sorted(set(weak) - set(sel.edges))[:100]],
            "prompt": user[:12000], "candidates_shown": len(cands), "candidates_total": len(comp.candidates)}
        step.fallback = sel.fallback
        step.seconds = time.perf_counter() - t0
        trace.steps.append(step)
    return sel
