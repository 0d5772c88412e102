"""Path merging before LLM refinement (ReG §4.1, Appendix D.2; Table 1's compression ratio).

(I) **Answer merging** — "only one representative answer is selected from A_q, as correct answers
typically share the same underlying reasoning path". We keep the answer closest to the query
entities (fewest hops; ties: most shortest paths, then input order) and drop the shortest paths and
answer-centric neighbourhoods of the others.

(II) **Relation-chain merging** — "paths sharing the identical relation path are merged into a
unified candidate". The relation path is the ordered relation sequence; we include each edge's
walking direction and the path's anchor entity (query or answer entity) in the key, so a merged
candidate is always textualized from one anchor (the paper's pools are per topic entity too).
Identical edge sequences found by two facets (a 1-hop shortest path is also a query-centric
neighbour) count once, as the shortest path.

Compression ratio = |merged candidates| / |raw pool| (Table 1: 5 % on average for GrailQA).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.methods.reg.candidates import CandidatePath, CandidatePool

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.trace import Trace


@dataclass(frozen=True)
class MergedCandidate:
    """One unified candidate: a representative path and every path it stands for."""

    representative: CandidatePath
    members: tuple[CandidatePath, ...]

    @property
    def kind(self) -> str:
        return self.representative.kind

    @property
    def edges(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(e for m in self.members for e in m.edges))

    def text(self, graph: KnowledgeGraph) -> str:
        more = len(self.members) - 1
        return self.representative.text(graph) + (f"  (+{more} similar)" if more else "")


@dataclass(frozen=True)
class Compression:
    raw: int  #: |P| before merging
    answer: int | None  #: the representative answer node (None: no answer linked)
    dropped_answers: tuple[int, ...]
    after_answer_merge: int
    candidates: tuple[MergedCandidate, ...]
    removed: tuple[CandidatePath, ...]  #: paths dropped by answer merging

    @property
    def ratio(self) -> float:
        """|compressed| / |raw| (Table 1)."""
        return len(self.candidates) / self.raw if self.raw else 1.0


def representative_answer(pool: CandidatePool) -> int | None:
    """The answer entity closest to the query entities (D.2 (I))."""
    if not pool.answer_nodes:
        return None

    def key(ia: tuple[int, int]) -> tuple[int, int, int]:
        i, a = ia
        ds = [d for (q, b), d in pool.distance.items() if b == a]
        n = sum(1 for p in pool.paths if p.kind == "shortest" and p.target == a)
        return (min(ds) if ds else 10**6, -n, i)

    return min(enumerate(pool.answer_nodes), key=key)[1]


def compress(pool: CandidatePool, graph: KnowledgeGraph, *, trace: Trace | None = None) -> Compression:
    """Answer merging then relation-chain merging (Appendix D.2)."""
    rep = representative_answer(pool)
    dropped = tuple(a for a in pool.answer_nodes if a != rep)
    keep: list[CandidatePath] = []
    removed: list[CandidatePath] = []
    seen_edges: set[tuple[int, ...]] = set()
    for p in pool.paths:
        other = (p.kind == "shortest" and p.target != rep) or (p.kind == "answer_1hop" and p.source != rep)
        if other:
            removed.append(p)
            continue
        if p.edges in seen_edges:
            continue
        seen_edges.add(p.edges)
        keep.append(p)
    groups: dict[tuple[object, ...], list[CandidatePath]] = {}
    for p in keep:
        fam = "sp" if p.kind == "shortest" else p.kind
        groups.setdefault((fam, p.source, p.relation_path(graph)), []).append(p)
    cands = tuple(MergedCandidate(ps[0], tuple(ps)) for ps in groups.values())
    out = Compression(len(pool.paths), rep, dropped, len(keep), cands, tuple(removed))
    if trace is not None:
        trace.add("compression", f"Compression: {out.raw} → {len(cands)} candidates ({out.ratio:.0%})", {
            "raw": out.raw, "after_answer_merge": out.after_answer_merge, "compressed": len(cands),
            "ratio": round(out.ratio, 4),
            "representative_answer": graph.node_names[rep] if rep is not None else None,
            "dropped_answers": [graph.node_names[a] for a in dropped],
            "removed_by_answer_merge": [p.text(graph) for p in removed[:100]],
            "candidates": [{"kind": c.kind, "text": c.text(graph), "members": len(c.members)} for c in cands[:200]]},
            section="ReG §4.1, Appendix D.2, Table 1")
    return out
