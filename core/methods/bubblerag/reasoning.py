"""§3.5 Reasoning-Aware Expansion.

"Starting from each selected candidate T*, we iteratively expand the current frontier up to a
maximum depth d. At each hop ℓ ∈ [1, d], we retrieve the immediate neighbors adjacent to the
current frontier, and prompt the LLM with the query and current evidence to select the most
promising neighbors ... T*_ℓ = T*_{ℓ−1} ∪ Selected(N_ℓ). The expansion continues until the depth
limit d is reached, or terminates early when the LLM selects no new neighbors (or indicates that
the current evidence is sufficient). The expansion is naturally an anytime algorithm: it can be
applied sequentially to CEGs in rank order, and stopped at any point when the time budget is
exhausted."

Neighbours are the graph edges incident to T* that are not yet in it — the paper's N_ℓ(T*), so an
edge offered but not chosen at one hop can still be chosen at the next once the evidence grew. At
most ``max_neighbors`` of them (the most query-similar by enriched-edge embedding) are shown to the
LLM, to keep the prompt bounded on hub nodes.

`none` mode (similarity-based expansion): an offered edge is selected when its value
``cos(z_q, z_e)`` is at least the mean node value of T* — adding it does not lower the information
density Φ that OISR maximises (Eq. 1) — keeping at most ``none_select`` per hop; no selection stops
the expansion.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.backends.base import LLM
from core.graph.reader import GraphLike, read_ahead
from core.methods.bubblerag import checks, prompts
from core.methods.bubblerag.ranking import RankedCEG
from core.methods.llm_steps import ask_json
from core.pinning import pin, pin_flag
from core.trace import Step, Trace


@dataclass(frozen=True)
class ExpansionHop:
    hop: int
    frontier: tuple[int, ...]
    offered: tuple[int, ...]  #: edge ids shown (most query-similar first)
    offered_scores: tuple[float, ...]
    selected: tuple[int, ...]
    sufficient: bool
    by: str  #: "llm" or "similarity"
    note: str = ""


@dataclass(frozen=True)
class ExpandedCEG:
    ceg_index: int
    rank: int
    nodes: tuple[int, ...]
    edges: tuple[int, ...]
    hops: tuple[ExpansionHop, ...]
    stop: str  #: why the expansion of this CEG ended


@dataclass(frozen=True)
class ReasoningExpansion:
    expanded: tuple[ExpandedCEG, ...]
    not_expanded: tuple[int, ...]  #: CEG indices left unexpanded because the time budget ran out
    source: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


def reasoning_expansion(query: str, ranked: Sequence[RankedCEG], graph: GraphLike, node_vectors: np.ndarray,
                        edge_vectors: np.ndarray, qvec: np.ndarray, llm: LLM, *, n: int = 3, d: int = 6,
                        max_neighbors: int = 30, none_select: int = 3, time_budget_s: float = 120.0,
                        tight_json: bool = True, trace: Trace | None = None) -> ReasoningExpansion:
    """Expand the top-``n`` CEGs hop by hop, in rank order, within ``time_budget_s``."""
    t0 = time.perf_counter()
    step = Step("reasoning", "Reasoning-aware expansion", section="BubbleRAG §3.5")
    q = np.asarray(qvec, dtype=np.float32).reshape(-1)
    out: list[ExpandedCEG] = []
    skipped: list[int] = []
    source = "llm" if llm.available else "similarity"
    fallback_notes: list[str] = []
    checks_failed: list[str] = []
    for rc in ranked[:n]:
        if pin_flag("bubblerag.reasoning.out_of_time", time.perf_counter() - t0 > time_budget_s,
                    key=f"ceg {rc.ceg.index}"):
            skipped.append(rc.ceg.index)
            continue
        nodes = set(rc.ceg.nodes)
        edges = set(rc.ceg.edges)
        shown = sorted(edges)  # the evidence as the prompt lists it: the CEG's triples, then each hop's, in order
        frontier = set(nodes)
        hops: list[ExpansionHop] = []
        stop = f"depth limit d={d} reached"
        for hop in range(1, d + 1):
            if pin_flag("bubblerag.reasoning.out_of_time", time.perf_counter() - t0 > time_budget_s,
                        key=f"ceg {rc.ceg.index} hop {hop}"):
                stop = "time budget exhausted"
                break
            # the edges touching the frontier (one read of a graph store per hop), in id order so
            # that ties in similarity break the same way on every store
            ids = graph.incident_edges(frontier)
            ids = ids[~np.isin(ids, np.fromiter(edges, dtype=np.int64, count=len(edges)))]
            if not ids.size:
                stop = "no neighbours left"
                break
            sims = pin("bubblerag.reasoning.edge_cosine", edge_vectors[ids] @ q, ids=ids)
            order = np.argsort(-sims, kind="stable")[:max_neighbors]
            offered = ids[order].tolist()
            offered_scores = sims[order].astype(float).tolist()
            selected: list[int] = []
            sufficient = False
            by = "similarity"
            note = ""
            if llm.available:
                read_ahead(graph, edges=[*sorted(edges), *offered])  # the triples shown: one store read, not one each
                # appended hop by hop (not re-sorted), so consecutive hops' prompts share their beginning
                evidence = [graph.edge_text(e) for e in shown] or [graph.node_names[v] for v in sorted(nodes)]
                labels = {f"n{i + 1}": e for i, e in enumerate(offered)}

                def validate(data: Any, _labels: dict[str, int] = labels) -> None:
                    if not isinstance(data, dict) or not isinstance(data.get("selected"), list):
                        raise ValueError('expected {"selected": [...], "sufficient": bool}')

                res = ask_json(llm, prompts.SYSTEM,
                               prompts.expand_prompt(query, evidence, [(k, graph.edge_text(e)) for k, e in labels.items()]),
                               prompts.expand_schema(tight_json, list(labels)),
                               max_tokens=prompts.STAGE_MAX_TOKENS["reasoning"], validate=validate, step=step)
                if res.data is not None:
                    by = "llm"
                    selected = [labels[s] for s in dict.fromkeys(res.data["selected"]) if s in labels]
                    sufficient = bool(res.data.get("sufficient"))
                    if sufficient:  # only once a hop adds what the question asks for (else d acts as 1)
                        why = checks.sufficiency_problem(query, [graph.edge_text(e) for e in selected])
                        if why:
                            sufficient = False
                            note = f"check failed: 'sufficient' not accepted ({why}); expansion goes on"
                            checks_failed.append(f"CEG {rc.ceg.index} hop {hop}: {why}")
                else:
                    note = res.fallback
                    fallback_notes.append(f"CEG {rc.ceg.index} hop {hop}: {res.fallback}")
            if by == "similarity":
                node_ids = np.array(sorted(nodes), dtype=np.int64)  # a set's order is no key for the tape
                vals = (node_vectors[node_ids] @ q) if nodes else np.zeros(1)
                density = float(pin("bubblerag.reasoning.density", np.mean(vals), ids=node_ids))
                selected = [e for e, s in zip(offered, offered_scores) if s >= density][:none_select]
                note = note or f"selected edges with cos >= mean node value of T* ({density:.3f})"
            new_nodes: set[int] = set()
            for e in selected:
                if e not in edges:
                    shown.append(e)
                edges.add(e)
                for v in (int(graph.edge_head[e]), int(graph.edge_tail[e])):
                    if v not in nodes:
                        new_nodes.add(v)
            nodes |= new_nodes
            hops.append(ExpansionHop(hop, tuple(sorted(frontier))[:200], tuple(offered),
                                     tuple(round(s, 4) for s in offered_scores), tuple(selected), sufficient, by, note))
            if not selected:
                stop = "no neighbour selected"
                break
            if sufficient:
                stop = "LLM: evidence sufficient"
                break
            frontier = set(nodes)
        out.append(ExpandedCEG(rc.ceg.index, rc.rank, tuple(sorted(nodes)), tuple(sorted(edges)), tuple(hops), stop))
    if fallback_notes:
        step.fallback = "; ".join(fallback_notes[:3]) + (" ..." if len(fallback_notes) > 3 else "") + \
            " — those hops used similarity-based selection"
    if checks_failed:
        step.data["sufficiency_rejected"] = checks_failed
    step.data = {**step.data, "source": source, "n": n, "d": d, "time_budget_s": time_budget_s, "not_expanded": skipped,
                 "expanded": [{"ceg": x.ceg_index, "rank": x.rank, "stop": x.stop, "nodes": len(x.nodes),
                               "edges": len(x.edges),
                               "hops": [{"hop": h.hop, "offered": len(h.offered), "by": h.by,
                                         "selected": [graph.edge_text(e) for e in h.selected],
                                         "sufficient": h.sufficient, "note": h.note} for h in x.hops]}
                              for x in out]}
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.record(step)
    return ReasoningExpansion(tuple(out), tuple(skipped), source, step.prompt_tokens, step.completion_tokens)
