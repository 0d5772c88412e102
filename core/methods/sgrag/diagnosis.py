"""Where SG-RAG lost the gold evidence (failure diagnosis; contract in :mod:`core.methods.diagnoser`).

Read from the :class:`~core.methods.sgrag.pipeline.SGRAGResult` only (no stage is re-run). For every
gold passage outside the top ``cut`` chunks, with ``E_c`` the nodes that come from it:

``not_in_graph``   ``E_c`` is empty (the passage is not in the workspace, or no node/edge comes from it).
``no_anchor``      a query entity was normalized to no node or only doubtfully (Alg. 3 similarity below
                   ``doubtful_below``) and no confidently normalized query entity lies in ``E_c``.
``not_connected``  every entity was anchored but no exact subgraph matched the query graph, so the 1-hop
                   fallback was used (or the exact subgraphs avoid ``E_c``); the evidence names the
                   query paths whose candidate lists were empty and the completion candidates.
``ranked_out``     the passage was retrieved below the cut (or matched subgraphs exist but were capped).
``answer_wrong``   all gold retrieved, the (LLM) answer is wrong (:func:`core.methods.diagnoser.finish`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.methods.base import Diagnosis, Gold, StageDecl
from core.methods.diagnoser import diagnoser, missing_from_graph
from core.methods.sgrag.baselines import RETRIEVALS

if TYPE_CHECKING:
    from core.index.workspace import Workspace
    from core.methods.sgrag.pipeline import SGRAGResult

STAGES: tuple[StageDecl, ...] = (
    StageDecl("not_in_graph", "gold passage not in the graph", "no node or triple of the graph comes from the gold passage"),
    StageDecl("no_anchor", "query entity not normalized",
              "a query entity mapped to no KG node or only doubtfully (FAISS similarity below the threshold)"),
    StageDecl("not_connected", "no exact subgraph",
              "no subgraph of the KG matched the query graph (fallback used), or the matches avoid the gold passage"),
    StageDecl("ranked_out", "ranked below the cut", "retrieved from a matched subgraph but below the cut"),
    StageDecl("answer_wrong", "retrieved, answer wrong", "all gold passages in the top chunks; the LLM answer is wrong, or (no LLM) the answer holds no gold answer"),
)


def _evidence(result: SGRAGResult) -> dict[str, Any]:
    mappings = [{"query_label": m.query_label, "node": m.node_name, "similarity": round(m.similarity, 4),
                 "doubtful": m.doubtful} for m in result.normalized.mappings]
    return {"mappings": mappings, "fallback": result.fallback, "subgraphs": result.assembly.found,
            "query_graph": result.query_graph.to_dict()}


@diagnoser(evidence=_evidence)
def diagnose(result: SGRAGResult, workspace: Workspace, gold: Gold, lost: list[str], ranks: dict[str, int | None],
             cut: int, ev: dict[str, Any]) -> Diagnosis | None:
    """SG-RAG's verdict for one question (see the module docstring for the stage rules)."""
    method = result.method
    graph = workspace.graph
    missing = {c: why for c, why in missing_from_graph(workspace, gold, needs_entities=True).items() if c in lost}
    if missing:
        cid, why = next(iter(missing.items()))
        return Diagnosis(method, "not_in_graph", f"Gold passage {cid} could not be retrieved: {why}.",
                         {"missing": missing}, ranks)
    mappings = ev["mappings"]
    confident = {m.node for m in result.normalized.mappings if m.node >= 0 and not m.doubtful}
    unresolved = [m for m in mappings if m["doubtful"]]
    for cid in lost:
        ents = set(graph.chunk_entities(cid))
        if (unresolved or not mappings) and not (ents & confident):
            what = (", ".join(f"{m['query_label']!r} → {m['node'] or 'nothing'} ({m['similarity']})" for m in unresolved)
                    if unresolved else "the question named no entity of the graph")
            return Diagnosis(method, "no_anchor", f"Query entities were not normalized confidently: {what}.",
                             {**ev, "gold": cid}, ranks)
    if lost and result.config.retrieval != "subgraph":  # a Table 5 baseline: no matching to blame
        name = RETRIEVALS[result.config.retrieval]
        return Diagnosis(method, "not_connected",
                         f"{name} (a Table 5 baseline, no structure-guided matching) did not bring the gold passage "
                         f"{lost[0]} within the top {cut}: it ranks the query entities' neighbourhood by similarity to "
                         "the question.", {**ev, "baseline": name, "gold": lost[0]}, ranks)
    if lost and (result.fallback or not result.assembly.subgraphs):
        empty = []
        for pm in result.matches[:1]:
            empty = [list(p) for p, rows in zip(pm.paths, pm.cand_rows) if not len(rows)]
        comp = result.completion
        ev.update({"empty_query_paths": empty,
                   "completion_candidates": {u: len(c) for u, c in comp.candidates.items()} if comp else {},
                   "fallback_reason": result.trace.fallback("fallback")})
        return Diagnosis(method, "not_connected",
                         "No subgraph of the graph matched the query graph exactly; the 1-hop fallback was used"
                         + (f" (query paths with no candidate: {empty})." if empty else "."), ev, ranks)
    in_matches = {v for s in result.assembly.subgraphs for _, v in s.mapping}
    for cid in lost:
        if ranks.get(cid) is None and not (set(graph.chunk_entities(cid)) & in_matches):
            return Diagnosis(method, "not_connected",
                             f"{result.assembly.found} exact subgraph(s) matched, but none passes through the gold "
                             f"passage {cid}.", {**ev, "gold": cid}, ranks)
    return None
