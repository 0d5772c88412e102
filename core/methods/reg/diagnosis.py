"""Where the ``reg`` method lost the gold evidence (failure diagnosis; contract in
:mod:`core.methods.diagnoser`).

Stages, in pipeline order, read from the :class:`~core.methods.reg.pipeline.RegResult` and its trace:

* ``not_in_graph`` — no triple of the KG comes from the gold passage (ReG retrieves triples, so a
  passage without triples can never be reached);
* ``no_anchor`` — no query entity was linked by name (the link step fell back to embedding
  neighbours or found nothing) and the gold passage was lost;
* ``not_connected`` — the passage's triples lie outside the ``hops``-hop neighbourhood of the linked
  query entities (the evidence gives the hop distance to the nearest gold entity);
* ``ranked_out`` — its triples were scored but none made the top-K, or its chunk ranks below the cut;
* ``answer_wrong`` — all gold passages within the cut; the LLM's answer is wrong.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.methods.base import Diagnosis, Gold, StageDecl
from core.methods.diagnoser import diagnoser

if TYPE_CHECKING:
    from core.index.workspace import Workspace
    from core.methods.reg.pipeline import RegResult

STAGES: tuple[StageDecl, ...] = (
    StageDecl("not_in_graph", "gold passage has no triple", "no KG triple comes from the gold passage"),
    StageDecl("no_anchor", "no query entity linked", "no node name occurs in the question; ReG had no topic entity"),
    StageDecl("not_connected", "outside the neighbourhood",
              "the passage's triples are farther than `hops` from the linked query entities"),
    StageDecl("ranked_out", "triples scored below top-K", "its triples were scored but none kept, or its chunk is "
                                                         "below the cut"),
    StageDecl("answer_wrong", "retrieved, answer wrong", "all gold passages within the cut; the LLM answer is wrong, or (no LLM) the answer holds no gold answer"),
)


def _hops_to(graph: Any, sources: tuple[int, ...], targets: set[int], limit: int = 8) -> int | None:
    if not sources or not targets:
        return None
    return next((d for d, layer in enumerate(graph.bfs_layers(sources, max_hops=limit))
                 if targets.intersection(layer.tolist())), None)


def _evidence(result: RegResult) -> dict[str, Any]:
    linked = result.linked
    return {"query_entities": list(linked.names), "linking": linked.how, "scorer": result.scorer,
            "hops": result.config.hops, "top_k": result.config.top_k, "scored": result.candidates}


@diagnoser(evidence=_evidence)
def diagnose(result: RegResult, workspace: Workspace, gold: Gold, lost: list[str], ranks: dict[str, int | None],
             cut: int, ev: dict[str, Any]) -> Diagnosis | None:
    """ReG: not_in_graph / no_anchor / not_connected / ranked_out / answer_wrong (module docstring)."""
    graph = workspace.graph
    method = result.method
    linked = result.linked
    prov = graph.chunk_provenance()
    kept = {t.edge for t in result.kept}
    order = [s.key for s in STAGES]
    per: dict[str, dict[str, Any]] = {}
    for cid in lost:
        edges = prov.get(cid, ([], []))[1]
        info: dict[str, Any] = {"rank": ranks[cid], "title": graph.chunk(cid).title if cid in graph.chunk_index else ""}
        if cid not in graph.chunk_index or not edges:
            info.update(stage="not_in_graph", why="no KG triple comes from this passage")
        elif linked.how != "string match":
            info.update(stage="no_anchor", why=f"no node name occurs in the question (linking: {linked.how})")
        else:
            ents = {int(graph.edge_head[e]) for e in edges} | {int(graph.edge_tail[e]) for e in edges}
            nb = set(graph.khop(linked.nodes, result.config.hops).tolist())
            inside = [e for e in edges if int(graph.edge_head[e]) in nb and int(graph.edge_tail[e]) in nb]
            d = _hops_to(graph, linked.nodes, ents, limit=max(8, result.config.hops + 1))
            info["hops_to_passage"] = d
            if not inside:
                h = result.config.hops
                # at the neighbourhood's edge, say what keeps it out: "3 hops … not within the 3-hop neighbourhood"
                # read as a contradiction (an audit)
                why = (f"its nearest entity is {d} hop{'s' if d != 1 else ''} from the query entities, but each of its "
                       f"triples has its other end beyond the {h}-hop neighbourhood ReG scores (a triple is scored "
                       "only with both ends inside)" if d is not None and d <= h else
                       f"its nearest entity is {d if d is not None else 'more than 8'} hops from the query entities, "
                       f"outside the {h}-hop neighbourhood ReG scores")
                info.update(stage="not_connected", why=why)
            elif kept.intersection(edges):
                info.update(stage="ranked_out", why=f"a triple of it was kept but its passage ranks "
                                                    f"{ranks[cid] or 'below the retrieved'} (cut {cut})")
            else:
                info.update(stage="ranked_out", gold_triples=[graph.edge_text(e) for e in edges[:5]],
                            why=f"its {len(edges)} triple(s) were in the scored neighbourhood but none made the "
                                f"top-{result.config.top_k} ({result.scorer})")
        per[cid] = info
    first = min(per, key=lambda c: order.index(per[c]["stage"]))
    info = per[first]
    ev["lost"] = per
    return Diagnosis(method, info["stage"], f"Gold passage “{info['title']}”: {info['why']}.", ev, ranks)
