"""Where BubbleRAG lost the gold evidence (failure diagnosis; contract in
:mod:`core.methods.diagnoser`).

Read from the :class:`~core.methods.bubblerag.pipeline.BubbleResult` only (no stage is re-run).
For every gold passage that is not in the top ``cut`` chunks, with ``E_c`` the graph nodes that come
from it (provenance nodes and the endpoints of provenance triples), the stage that lost it is the
first of:

``not_in_graph``   ``E_c`` is empty: no node or triple was extracted from the passage.
``no_anchor``      no anchor (terminal of any group, §3.2) lies in ``E_c``, no CEG passes through it and
                   it is farther than ``d`` hops from the top-n CEGs, so neither the bubbles (§3.3) nor
                   the reasoning-aware expansion (§3.5) could reach it.
``not_connected``  an anchor lies in ``E_c`` but no CEG contains it: the bubbles did not join it to
                   the other groups within ``h`` hops (G') or before budget ``B`` CEGs were found.
                   The evidence gives the path through G' that would have connected it (node-cost
                   Dijkstra, Eq. 4 costs) and its cost, or says that G' holds no such path.
``ranked_out``     a CEG contains it but ranked below the top ``n`` (§3.4), or the evidence graph
                   cites it and the chunk ranking (§3.6) put it below the cut or left it out of the
                   ``max_chunks`` it keeps (never retrieved). On an early exit
                   (§3.2 sufficiency check) a gold passage outside the previewed chunks is here too.
``not_expanded``   no CEG contains it but ``E_c`` is within ``d`` hops of the top-n CEGs: the
                   reasoning-aware expansion (§3.5) could have reached it and did not select it.

The question's verdict is the earliest of these (in the declared order) over its lost passages;
with none lost it is ``answer_wrong`` or ``ok`` (:func:`core.methods.diagnoser.finish`).
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

from core.methods.base import Diagnosis, Gold, StageDecl
from core.methods.diagnoser import diagnoser

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.index.workspace import Workspace
    from core.methods.bubblerag.localize import LocalGraph
    from core.methods.bubblerag.pipeline import BubbleResult

STAGES: tuple[StageDecl, ...] = (
    StageDecl("not_in_graph", "gold passage not in the graph", "no node or triple was extracted from the gold passage"),
    StageDecl("no_anchor", "no anchor in a gold passage",
              "no anchor candidate lies in the gold passage's entities, and no CEG or expansion reached them"),
    StageDecl("not_connected", "anchors not connected",
              "an anchor lies in the gold passage but no CEG joins it to the other groups within h hops or budget B"),
    StageDecl("ranked_out", "ranked below the cut",
              "a CEG holds the gold passage but ranked below the top n, or the chunk ranked below the cut"),
    StageDecl("not_expanded", "never expanded into",
              "within d hops of the top-n CEGs, but reasoning-aware expansion did not select it"),
    StageDecl("answer_wrong", "retrieved, answer wrong", "all gold passages in the top chunks; the LLM answer is wrong, or (no LLM) the answer holds no gold answer"),
)
_ORDER = [s.key for s in STAGES]


def _names(graph: KnowledgeGraph, nodes: Any, limit: int = 8) -> list[str]:
    return [graph.node_names[int(v)] for v in list(nodes)[:limit]]


def connecting_path(local: LocalGraph, sources: set[int], targets: set[int]) -> tuple[list[int], float] | None:
    """Cheapest path in G' from any of ``sources`` to any of ``targets`` (global node ids), cost =
    the sum of the Eq. 4 node costs of the nodes entered after the source; None when G' has none."""
    inside = set(local.nodes.tolist())
    src = [local.local(v) for v in sources if v in inside]
    tgt = {local.local(v) for v in targets if v in inside}
    if not src or not tgt:
        return None
    dist = {s: 0.0 for s in src}
    prev: dict[int, int] = {}
    heap = [(0.0, s) for s in src]
    heapq.heapify(heap)
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist.get(u, float("inf")):
            continue
        if u in tgt:
            path = [u]
            while path[-1] in prev:
                path.append(prev[path[-1]])
            return [int(local.nodes[i]) for i in reversed(path)], float(d)
        for i in range(int(local.indptr[u]), int(local.indptr[u + 1])):
            w = int(local.nbr[i])
            nd = d + float(local.cost[w])
            if nd < dist.get(w, float("inf")):
                dist[w], prev[w] = nd, u
                heapq.heappush(heap, (nd, w))
    return None


def _chunk_ranking_loss(cited_by: str, rank: int | None, cut: int, kept: int, max_chunks: int) -> str:
    """Why a passage the evidence graph cites was lost at the chunk ranking (§3.6): ranked below the cut, or not
    among the chunks the ranking kept at all (at most ``max_chunks``; an audit read "put it at no rank")."""
    via = "one of its triples" if cited_by == "edge" else "a node it mentions"
    if rank:
        return (f"the evidence graph cites it (through {via}), but the chunk ranking put it at {rank}, below the cut "
                f"of {cut} ({kept} chunks kept)")
    return (f"the evidence graph cites it (through {via}), but the chunk ranking kept {kept} chunks (at most "
            f"max_chunks = {max_chunks}) and it was not among them, so it was never retrieved")


@diagnoser()
def diagnose(result: BubbleResult, workspace: Workspace, gold: Gold, lost: list[str], ranks: dict[str, int | None],
             cut: int, ev: dict[str, Any]) -> Diagnosis | None:
    """BubbleRAG's verdict for one question (see the module docstring for the stages)."""
    graph = workspace.graph
    method = result.method
    cfg = result.config
    groups = result.groups.groups if result.groups else ()
    term_group: dict[int, int] = {}
    for grp in groups:
        for v in grp.terminals(graph):
            term_group.setdefault(int(v), grp.gid)
    cegs = result.expansion.cegs if result.expansion else ()
    ceg_rank = {r.ceg.index: r.rank for r in result.ranked}
    top_nodes = {int(v) for r in result.ranked[:cfg.n] for v in r.ceg.nodes}
    ev_nodes = set(result.evidence.nodes) if result.evidence else set()
    ev_edges = set(result.evidence.edges) if result.evidence else set()
    reach: set[int] | None = None
    per: dict[str, dict[str, Any]] = {}
    for cid in lost:
        ents = graph.chunk_entities(cid)
        ent_set = set(ents)
        info: dict[str, Any] = {"rank": ranks[cid], "entities": _names(graph, ents)}
        if result.early_exit:
            info.update(stage="ranked_out", why="early exit: the sufficiency check stopped after pre-retrieval "
                        f"and this passage was not among the top {cut} previewed chunks")
            per[cid] = info
            continue
        if not ents:
            info.update(stage="not_in_graph", why="no node or triple comes from this passage")
            per[cid] = info
            continue
        prov_edges = set(graph.chunk_provenance().get(cid, ([], []))[1])
        anchors = sorted(v for v in ent_set if v in term_group)
        holding = sorted((ceg_rank.get(c.index, 10**6), c.index) for c in cegs
                         if ent_set & set(c.nodes) or prov_edges & set(c.edges))
        if ev_nodes & ent_set or ev_edges & prov_edges:
            # through one of its triples, or only through a node it mentions (a hub cites many passages)
            info["cited_by"] = "edge" if ev_edges & prov_edges else "node"
            info.update(stage="ranked_out", why=_chunk_ranking_loss(info["cited_by"], ranks[cid], cut,
                                                                    len(result.chunks), cfg.max_chunks))
        elif holding:
            best_rank, idx = holding[0]
            info.update(stage="ranked_out", ceg=idx, ceg_rank=best_rank, n=cfg.n,
                        why=f"CEG #{idx} contains it but ranked {best_rank}, below the top n = {cfg.n}")
        elif anchors:
            own = {term_group[v] for v in anchors}
            others = {v for v, g in term_group.items() if g not in own}
            info.update(anchors=_names(graph, anchors), groups=sorted(own))
            path = connecting_path(result.local, set(anchors), others) if result.local is not None and others else None
            exp = result.expansion
            budget = ({"B": cfg.B, "cegs_found": len(cegs), "budget_reached": bool(exp.budget_reached),
                       "settled": exp.settled} if exp else {})
            info["budget"] = budget
            if not others:
                why = "every anchor is in one group, so there was nothing to connect it to"
            elif path is None:
                why = (f"G' (h = {result.local.h if result.local else cfg.h}) holds no path from its anchor(s) to "
                       "another group's anchors")
            else:
                nodes, cost = path
                info.update(path=_names(graph, nodes, 50), path_cost=round(cost, 4), path_hops=len(nodes) - 1)
                why = (f"a path of {len(nodes) - 1} hops and cost {cost:.3f} through G' would have joined it "
                       f"to group {term_group.get(nodes[-1], '?')}, but "
                       + ("the budget B was spent on cheaper CEGs" if budget.get("budget_reached")
                          else "the bubbles never met along it"))
            info.update(stage="not_connected", why=why)
        else:
            if reach is None:
                reach = set(graph.khop(top_nodes, cfg.d).tolist()) if top_nodes else set()
            if result.local is not None:  # whether G' held any of its entities at all
                info["in_local"] = bool(ent_set.intersection(result.local.nodes.tolist()))
            if ent_set & reach:
                info.update(stage="not_expanded", d=cfg.d,
                            why=f"within d = {cfg.d} hops of the top-{cfg.n} CEGs, but the reasoning-aware "
                                "expansion did not select a triple into it")
            else:
                info.update(stage="no_anchor", anchors_total=len(term_group),
                            why="no anchor lies in its entities and no CEG or expansion reached them")
        per[cid] = info
    stage = min((p["stage"] for p in per.values()), key=_ORDER.index)
    first = next(c for c, p in per.items() if p["stage"] == stage)
    title = graph.chunk(first).title if first in graph.chunk_index else first
    evidence = {"lost": per, "cut": cut, "early_exit": result.early_exit,
                "anchors": {str(g.gid): _names(graph, g.terminals(graph)) for g in groups}}
    return Diagnosis(method, stage, f"Gold passage “{title}”: {per[first]['why']}.", evidence, ranks)
