"""Where SG-RAG lost the gold evidence (failure diagnosis; contract in :mod:`core.methods.diagnoser`).

Read from the :class:`~core.methods.sgrag.pipeline.SGRAGResult` only (no stage is re-run). For every
gold passage outside the top ``cut`` chunks, with ``E_c`` the nodes that come from it:

``not_in_graph``   ``E_c`` is empty (the passage is not in the workspace, or no node/edge comes from it).
``no_anchor``      a query entity was normalized to no node or only doubtfully (Alg. 3 similarity below
                   ``doubtful_below``) and no confidently normalized query entity lies in ``E_c``.
``not_connected``  every entity was anchored but no exact subgraph matched the query graph, so the 1-hop
                   fallback was used (or the exact subgraphs avoid ``E_c``); the evidence names the
                   query paths whose candidate lists were empty and the completion candidates.
``ranked_out``     the passage was retrieved below the cut (or matched subgraphs exist but were capped); one
                   never retrieved though a match reaches its entities gets the reason (:func:`never_appeared`).
``answer_wrong``   all gold retrieved, the (LLM) answer is wrong (:func:`core.methods.diagnoser.finish`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from core.graph.model import passage_label
from core.methods.base import Diagnosis, Gold, StageDecl
from core.methods.diagnoser import diagnoser, finish, missing_from_graph
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
    why, info = never_appeared(result, graph, [c for c in lost if ranks.get(c) is None])
    if not why:
        return None
    d = finish(method, result, gold, ranks, cut=cut, evidence={**ev, "never_appeared": info})
    return replace(d, summary=f"{d.summary} {why}")


def _titles(titles: list[str]) -> str:
    q = [f"“{t}”" for t in titles]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1]


def never_appeared(result: SGRAGResult, graph: Any, absent: list[str]) -> tuple[str, dict[str, Any]]:
    """Why gold passages ``absent`` (never retrieved) never appeared although a matched subgraph passes through an
    entity of theirs, in one sentence naming passages by title, and its evidence (chunk id → entities, the query
    nodes bound to them, the passages whose triples reached them). SG-RAG's passages are the provenance of the
    matched subgraphs' edges (§4.4, Alg. 8; :func:`core.methods.sgrag.pipeline._ranked_chunks`): a match that binds
    an entity of the passage (an audit's q5: the asked-for ``UNK`` → Anton Mehlberg) through triples of other
    passages retrieves those, not it; a matched triple of its own is lost only to ``max_chunks``. ``("", {})``
    when no such passage is left (an audit read "1 never appeared" with no reason)."""
    subgraphs = result.assembly.subgraphs
    qg = result.query_graph
    cap = result.config.max_chunks
    clauses: list[str] = []
    info: dict[str, Any] = {}
    for cid in absent:
        if cid not in graph.chunk_index:
            continue
        ents = [v for v in graph.chunk_entities(cid) if any(v == u for s in subgraphs for _, u in s.mapping)]
        if not ents:
            continue
        title = passage_label(graph, cid)
        own = [e for s in subgraphs for e in s.edges if cid in graph.edge_chunks[e]]
        if own:  # a matched triple of its own: only the chunk cap can have dropped it
            clauses.append(f"a match holds its triple “{graph.edge_text(own[0])}”, but the max_chunks = {cap} "
                           f"passages were filled by better-scored subgraphs first" if len(result.ranked_chunks) >= cap
                           else f"a match holds its triple “{graph.edge_text(own[0])}”")
            info[cid] = {"title": title, "own_edges": sorted(set(own)), "max_chunks": cap}
            continue
        through = [s for s in subgraphs if any(u in ents for _, u in s.mapping)]
        roles = sorted({q for s in through for q, u in s.mapping if u in ents}, key=qg.ids.index)

        def role(q: str) -> str:
            return qg.node(q).description or "UNK" if qg.node(q).unknown else f"the query's “{qg.node(q).label}”"

        # each entity with the query node it stands for ("Lotte Brack (as the asked-for entity) and Tessburg (as the
        # query's “Tessburg”)"): one role after a list of names read as every name's (an audit)
        as_of = {v: list(dict.fromkeys(role(q) for s in through for q, u in s.mapping if u == v)) for v in ents}
        named = [f"{graph.node_names[v]} (as {' / '.join(as_of[v])})" if as_of[v] else graph.node_names[v]
                 for v in sorted(ents, key=lambda v: not as_of[v])[:3]]
        names = (", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]) + (
            f" and {len(ents) - 3} more" if len(ents) > 3 else "")
        via = {c for s in through for e in s.edges if {int(graph.edge_head[e]), int(graph.edge_tail[e])} & set(ents)
               for c in graph.edge_chunks[e] if c != cid}
        others = sorted({passage_label(graph, c) for c in via})
        n = len(subgraphs)
        which = "the one matched subgraph" if n == 1 else f"{len(through)} of the {n} matched subgraphs"
        # an end of the query graph (an UNK with one query edge): the chain it asks for stops at the passage's entity
        end = all(qg.node(q).unknown and qg.degree(q) == 1 for q in roles)
        clauses.append(f"{which} reach{'es' if len(through) == 1 else ''} {names}, "
                       f"{'an entity' if len(ents) == 1 else 'entities'} of this passage, "
                       + (f"only through triples of {_titles(others)}" + (", where the query graph ends" if end else "")
                          + f" — so SG-RAG retrieved {'that passage' if len(others) == 1 else 'those passages'}, "
                            "not this one" if others else "through no triple of it"))
        info[cid] = {"title": title, "entities": [graph.node_names[v] for v in ents], "bound_to": roles,
                     "through": others}
    if not clauses:
        return "", {}
    names = _titles([info[c]["title"] for c in info])
    return (f"{names} never appeared because SG-RAG retrieves only the passages of matched triples: "
            + "; ".join(f"“{info[c]['title']}”: {w}" if len(info) > 1 else w for c, w in zip(info, clauses)) + "."), info
