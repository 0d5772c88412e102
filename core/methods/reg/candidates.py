"""Multi-faceted candidate generation (ReG §4.1, Appendix D.1).

For one (question, answers, query entities) the candidate pool is

    P = P_sp ∪ P_q ∪ P_a

* ``P_sp`` — every query→answer **shortest path** (undirected, as in the weak supervision of
  SubgraphRAG / RoG), up to ``max_len`` hops, at most ``max_paths_per_pair`` per pair;
* ``P_q`` — **query-centric neighbourhoods**: each edge incident to a query entity, a 1-step path
  ("direct properties of the query entities");
* ``P_a`` — **answer-centric neighbourhoods**: each edge incident to an answer entity ("comparisons
  across answer candidates based on numeric or categorical attributes").

A path keeps the KG direction of each edge; it is textualized as a directed chain
``e0 → [r] → e1 ← [r2] ← e2`` (an edge walked against its direction is drawn with ``←``).
Hub entities can have hundreds of incident edges; ``max_neighbors`` keeps the first ones by edge id
(the trace says how many were cut).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.trace import Trace

PathKind = Literal["shortest", "query_1hop", "answer_1hop"]


@dataclass(frozen=True)
class CandidatePath:
    nodes: tuple[int, ...]  #: len(edges) + 1, from the source (query or answer entity) on
    edges: tuple[int, ...]
    kind: PathKind
    source: int  #: the query entity (shortest, query_1hop) or answer entity (answer_1hop)
    target: int

    def directions(self, graph: KnowledgeGraph) -> tuple[bool, ...]:
        """True where the edge is walked head → tail."""
        return tuple(int(graph.edge_head[e]) == self.nodes[i] for i, e in enumerate(self.edges))

    def relation_path(self, graph: KnowledgeGraph) -> tuple[tuple[str, bool], ...]:
        """The ordered (relation, forward?) sequence (Appendix D.2's relation path, with direction)."""
        return tuple((graph.edge_relation[e], d) for e, d in zip(self.edges, self.directions(graph)))

    def text(self, graph: KnowledgeGraph) -> str:
        parts = [graph.node_names[self.nodes[0]]]
        for i, (e, fwd) in enumerate(zip(self.edges, self.directions(graph))):
            r = graph.edge_relation[e]
            parts.append(f"→ [{r}] →" if fwd else f"← [{r}] ←")
            parts.append(graph.node_names[self.nodes[i + 1]])
        return " ".join(parts)


@dataclass(frozen=True)
class CandidatePool:
    query_nodes: tuple[int, ...]
    answer_nodes: tuple[int, ...]
    paths: tuple[CandidatePath, ...]
    distance: dict[tuple[int, int], int] = field(default_factory=dict)  #: (q, a) → hops (absent: > max_len)
    cut: dict[str, int] = field(default_factory=dict)  #: what the caps removed

    def of_kind(self, kind: PathKind) -> tuple[CandidatePath, ...]:
        return tuple(p for p in self.paths if p.kind == kind)

    @property
    def shortest_edges(self) -> tuple[int, ...]:
        """Edges on any query→answer shortest path: the **weak** supervision signal."""
        return tuple(sorted({e for p in self.paths if p.kind == "shortest" for e in p.edges}))


def all_shortest_paths(graph: KnowledgeGraph, s: int, t: int, *, max_len: int = 4,
                       max_paths: int = 50) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], int | None]:
    """Every undirected shortest ``s``–``t`` path as ``(nodes, edges)`` (parallel edges give distinct paths).

    Returns ``(paths, distance)``; ``([], None)`` when ``t`` is farther than ``max_len`` hops.
    At most ``max_paths`` paths are enumerated (in a deterministic order).
    """
    if s == t:
        return [], 0
    dist = graph.hop_distances([s], max_hops=max_len)
    if t not in dist:
        return [], None
    indptr, nbr, eid = graph.csr.indptr, graph.csr.nbr, graph.csr.eid
    out: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def back(v: int, nodes: list[int], edges: list[int]) -> None:
        if len(out) >= max_paths:
            return
        if v == s:
            out.append((tuple(reversed(nodes)), tuple(reversed(edges))))
            return
        lo, hi = indptr[v], indptr[v + 1]
        for u, e in sorted(zip(nbr[lo:hi].tolist(), eid[lo:hi].tolist())):
            if dist.get(u) == dist[v] - 1:
                back(u, [*nodes, u], [*edges, e])

    back(t, [t], [])
    return out, dist[t]


def _one_hop(graph: KnowledgeGraph, v: int, kind: PathKind, max_neighbors: int) -> tuple[list[CandidatePath], int]:
    indptr, nbr, eid = graph.csr.indptr, graph.csr.nbr, graph.csr.eid
    pairs = sorted(set(zip(eid[indptr[v]:indptr[v + 1]].tolist(), nbr[indptr[v]:indptr[v + 1]].tolist())))
    paths = [CandidatePath((v, u), (e,), kind, v, u) for e, u in pairs[:max_neighbors]]
    return paths, max(0, len(pairs) - max_neighbors)


def candidate_pool(graph: KnowledgeGraph, query_nodes: tuple[int, ...] | list[int],
                   answer_nodes: tuple[int, ...] | list[int], *, max_len: int = 4, max_paths_per_pair: int = 50,
                   max_neighbors: int = 100, trace: Trace | None = None) -> CandidatePool:
    """Build ``P = P_sp ∪ P_q ∪ P_a`` (ReG §4.1 "Multi-Faceted Candidate Generation", Appendix D.1).

    Parameters
    ----------
    graph : KnowledgeGraph
    query_nodes, answer_nodes : sequences of node indices
    max_len : int
        Longest shortest path kept (hops).
    max_paths_per_pair : int
        Cap on shortest paths enumerated per (query, answer) pair.
    max_neighbors : int
        Cap on 1-hop candidates per entity.

    Returns
    -------
    CandidatePool
    """
    import time

    t0 = time.perf_counter()
    qs, ans = tuple(dict.fromkeys(int(v) for v in query_nodes)), tuple(dict.fromkeys(int(v) for v in answer_nodes))
    paths: list[CandidatePath] = []
    distance: dict[tuple[int, int], int] = {}
    cut = {"shortest_paths": 0, "query_neighbors": 0, "answer_neighbors": 0}
    for q in qs:
        for a in ans:
            sp, d = all_shortest_paths(graph, q, a, max_len=max_len, max_paths=max_paths_per_pair + 1)
            if d is not None:
                distance[(q, a)] = d
            if len(sp) > max_paths_per_pair:
                cut["shortest_paths"] += 1
                sp = sp[:max_paths_per_pair]
            paths += [CandidatePath(n, e, "shortest", q, a) for n, e in sp]
    for q in qs:
        ps, c = _one_hop(graph, q, "query_1hop", max_neighbors)
        paths += ps
        cut["query_neighbors"] += c
    for a in ans:
        ps, c = _one_hop(graph, a, "answer_1hop", max_neighbors)
        paths += ps
        cut["answer_neighbors"] += c
    pool = CandidatePool(qs, ans, tuple(paths), distance, cut)
    if trace is not None:
        trace.add("candidate_pool", f"Candidate pool: {len(paths)} paths", {
            "query_entities": [graph.node_names[v] for v in qs], "answer_entities": [graph.node_names[v] for v in ans],
            "shortest": len(pool.of_kind("shortest")), "query_1hop": len(pool.of_kind("query_1hop")),
            "answer_1hop": len(pool.of_kind("answer_1hop")),
            "distances": {f"{graph.node_names[q]} → {graph.node_names[a]}": d for (q, a), d in distance.items()},
            "cut": cut, "paths": [{"kind": p.kind, "text": p.text(graph)} for p in paths[:300]]},
            seconds=time.perf_counter() - t0, section="ReG §4.1, Appendix D.1")
    return pool
