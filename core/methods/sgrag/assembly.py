"""δ: subgraph assembly (sg_rag.txt §4.4, Appendix M, Algorithm 8) and the 1-hop fallback (§4.4,
Algorithm 1 line 22).

Algorithm 8 walks the Cartesian product of the query paths' candidate lists and keeps every
combination that maps each query node to one data node without conflict. We enumerate the same
set by backtracking (paths with the fewest candidates first, a partial combination abandoned at
its first conflict), which explores far fewer combinations than the full product; explored
combinations are capped at ``max_combinations`` (reported). Beyond Alg. 8's consistency check the
mapping must be injective (two query nodes never share a data node), which "isomorphic to the query
graph" requires. The result is a subgraph *monomorphism*: the data subgraph contains every query
edge; extra data edges among the matched nodes are allowed, as in path-based matching.

Subgraphs are ranked by the mean cosine between the query and their edges' enriched texts (the
paper does not rank exact matches; a rank is needed for ``ranked_chunks`` and the answer), read
through :func:`core.pinning.pin`, as are the fallback's edge similarities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.graph.model import KnowledgeGraph
from core.methods.sgrag.index import PathIndex
from core.methods.sgrag.matching import PathMatches
from core.methods.sgrag.query_graph import QueryGraph
from core.pinning import pin
from core.trace import Trace


@dataclass(frozen=True)
class Subgraph:
    mapping: tuple[tuple[str, int], ...]  #: (query node id, KG node) pairs in query order
    edges: tuple[int, ...]  #: KG edge ids realizing the query edges
    score: float

    @property
    def map(self) -> dict[str, int]:
        return dict(self.mapping)


@dataclass(frozen=True)
class Assembly:
    subgraphs: tuple[Subgraph, ...]  #: best first, capped at max_subgraphs
    found: int  #: distinct subgraphs before the cap
    explored: int  #: partial combinations explored
    capped_combinations: bool
    capped_subgraphs: bool
    fallback: bool
    fallback_edges: tuple[int, ...] = ()
    fallback_nodes: tuple[int, ...] = ()  #: known entities whose 1-hop neighbourhood was used


def edges_between(graph: KnowledgeGraph, a: int, b: int) -> list[int]:
    nbr, eid = graph.csr.row(a)
    return sorted({int(e) for n, e in zip(nbr.tolist(), eid.tolist()) if n == b})


def iter_assignments(qg: QueryGraph, pm: PathMatches, index: PathIndex, *, max_combinations: int = 100_000):
    """Yield conflict-free injective maps (query node → KG node) from the candidate lists; the
    generator's ``explored`` count is reported through the last yielded item's second element."""
    order = sorted(range(len(pm.paths)), key=lambda i: (len(pm.cand_rows[i]), i))
    explored = 0

    def rec(k: int, mapping: dict[str, int], used: set[int]):
        nonlocal explored
        if k == len(order):
            yield dict(mapping)
            return
        i = order[k]
        qp = pm.paths[i]
        for row in pm.cand_rows[i]:
            explored += 1
            if explored > max_combinations:
                return
            dp = index.paths[row]
            new: dict[str, int] = {}
            ok = True
            for q, v in zip(qp, dp.tolist()):
                if q in mapping or q in new:
                    if mapping.get(q, new.get(q)) != v:
                        ok = False
                        break
                elif v in used or v in new.values():
                    ok = False
                    break
                else:
                    new[q] = v
            if not ok:
                continue
            mapping.update(new)
            used.update(new.values())
            yield from rec(k + 1, mapping, used)
            for q, v in new.items():
                del mapping[q]
                used.discard(v)

    for m in rec(0, {}, set()):
        yield m, explored
    yield None, explored


def assemble(qg: QueryGraph, matches: tuple[PathMatches, ...], index: PathIndex, graph: KnowledgeGraph,
             edge_vecs: np.ndarray | None, qvec: np.ndarray | None, *, max_subgraphs: int = 20,
             max_combinations: int = 100_000, trace: Trace | None = None) -> Assembly:
    """Algorithm 8 over every Q': the distinct exact subgraphs S, best first.

    Parameters
    ----------
    qg
        The query graph.
    matches
        σ's candidate lists per Q'.
    index, graph
        I_l (paths as node rows) and the KG (edge ids for the query edges).
    edge_vecs, qvec
        Edge-text vectors and the query vector used to rank the subgraphs (None = unranked).
    """
    tr = trace if trace is not None else Trace("sgrag", "")
    with tr.timed("assembly", "Conflict-free subgraph assembly", section="SG-RAG §4.4, App. M, Alg. 8") as step:
        seen: dict[tuple[tuple[str, int], ...], tuple[int, ...]] = {}  # mapping → edge ids, in discovery order
        explored_total = 0
        capped = False
        for pm in matches:
            if not pm.paths or not all(len(r) for r in pm.cand_rows):
                continue
            explored = 0
            for m, n_explored in iter_assignments(qg, pm, index, max_combinations=max_combinations):
                explored = n_explored
                if m is None:
                    break
                key = tuple((q, m[q]) for q in qg.ids if q in m)
                if key in seen:
                    continue
                eids: list[int] = []
                for a, b in qg.edges:
                    eids += edges_between(graph, m[a], m[b])
                seen[key] = tuple(eids)
            explored_total += explored
            capped |= explored > max_combinations
        scores = pin("sgrag.assembly.subgraph_score",
                     np.array([float(np.mean(edge_vecs[list(eids)] @ qvec))
                               if edge_vecs is not None and qvec is not None and eids else 0.0
                               for eids in seen.values()], dtype=np.float32),
                     ids=[v for key in seen for _, v in key])
        ranked = sorted((Subgraph(key, eids, float(sc)) for (key, eids), sc in zip(seen.items(), scores)),
                        key=lambda s: (-s.score, s.mapping))
        step.data.update({"found": len(ranked), "explored": explored_total, "max_combinations": max_combinations,
                          "capped_combinations": capped, "max_subgraphs": max_subgraphs,
                          "capped_subgraphs": len(ranked) > max_subgraphs,
                          "subgraphs": [{"mapping": {q: graph.node_names[v] for q, v in s.mapping},
                                         "edges": list(s.edges), "score": round(s.score, 4)}
                                        for s in ranked[:max_subgraphs]]})
    return Assembly(tuple(ranked[:max_subgraphs]), len(ranked), explored_total, capped, len(ranked) > max_subgraphs,
                    False)


def fallback_neighbourhood(graph: KnowledgeGraph, known: list[int], edge_vecs: np.ndarray | None,
                           qvec: np.ndarray | None, *, max_edges: int = 40, reason: str = "",
                           trace: Trace | None = None) -> Assembly:
    """§4.4 / Alg. 1 line 22: no exact subgraph → the 1-hop neighbourhood g'' of the known entities
    (the most query-similar ``max_edges`` edges). Recorded as a visible fallback step."""
    tr = trace if trace is not None else Trace("sgrag", "")
    with tr.timed("fallback", "Fallback: 1-hop neighbourhood of the known entities", section="SG-RAG §4.4, Alg. 1 l. 22") as step:
        step.fallback = reason or "no exact subgraph matched the query graph"
        eids = sorted({int(e) for v in known for e in graph.csr.row(v)[1].tolist()})
        if edge_vecs is not None and qvec is not None and eids:
            sims = pin("sgrag.fallback.edge_similarity", edge_vecs[eids] @ qvec, ids=eids)
            order = np.argsort(-sims, kind="stable")
            eids = [eids[i] for i in order]
        total = len(eids)
        eids = eids[:max_edges]
        step.data.update({"known": [graph.node_names[v] for v in known], "edges_total": total, "edges": eids,
                          "edge_texts": [graph.edge_text(e) for e in eids], "max_edges": max_edges})
    return Assembly((), 0, 0, False, False, True, tuple(eids), tuple(known))
