"""ψ, part 3: cost-aware path decomposition (sg_rag.txt §4.3, Appendix E, Algorithm 4).

The query graph q is covered by query paths of exactly l edges. Start at the highest-degree node (paths *through* it when none of length l starts there);
for each initial path of length l from it, greedily add paths of length l that share a node with
the plan so far, each time taking the one with the fewest edges already covered (edge overlap)
and then the smallest weight ``w(p) = −Σ deg(q_i)``; among the initial paths keep the plan of least
``Cost_Q = Σ w(p)``. Two points the pseudo-code leaves open, decided here: a chosen path must cover
at least one new edge (otherwise the loop may not terminate); and when no path of length l that
touches the plan covers a remaining edge (a disconnected query graph), any path covering one may
start a new part. Ties are broken by node order, so the plan is deterministic.

The paper's rule for l is ``l ∈ [⌈d_q/2⌉, d_q]`` with d_q the query graph's longest shortest path
(its diameter); :func:`choose_l` applies it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from core.errors import ConfigError
from core.methods.sgrag.query_graph import QueryGraph
from core.trace import Trace


@dataclass(frozen=True)
class Decomposition:
    l: int  # noqa: E741 - l is the paper's path length
    d_q: int
    paths: tuple[tuple[str, ...], ...]  #: query paths Q as node-id sequences of length l+1
    cost: float  #: Cost_Q(φ) of the chosen plan
    plans_tried: int
    l_range: tuple[int, int]


def choose_l(qg: QueryGraph, l: int = 0) -> tuple[int, int, tuple[int, int]]:  # noqa: E741 - l is the paper's path length
    """(l, d_q, allowed range). ``l=0`` picks ⌈d_q/2⌉; a value outside the rule raises ConfigError."""
    d_q = qg.diameter()
    lo, hi = max(1, math.ceil(d_q / 2)), max(1, d_q)
    if l == 0:
        return lo, d_q, (lo, hi)
    if not lo <= l <= hi:
        raise ConfigError(f"Path length l={l} is outside the paper's rule l ∈ [⌈d_q/2⌉, d_q] = [{lo}, {hi}] for this "
                          f"query graph (d_q={d_q}). Pick l in that range, or 0 for automatic.")
    return l, d_q, (lo, hi)


def _simple_paths(qg: QueryGraph, l: int, start: str | None = None) -> list[tuple[str, ...]]:  # noqa: E741 - l is the paper's path length
    out: list[tuple[str, ...]] = []
    starts = [start] if start is not None else list(qg.ids)

    def walk(path: list[str]) -> None:
        if len(path) == l + 1:
            out.append(tuple(path))
            return
        for v in qg.neighbors(path[-1]):
            if v not in path:
                walk([*path, v])

    for s in starts:
        walk([s])
    # one orientation per path
    seen: set[tuple[str, ...]] = set()
    uniq = []
    for p in out:
        if p[::-1] not in seen:
            seen.add(p)
            uniq.append(p)
    return uniq


def _edges(p: tuple[str, ...]) -> set[frozenset[str]]:
    return {frozenset(e) for e in itertools.pairwise(p)}


def decompose(qg: QueryGraph, l: int, *, trace: Trace | None = None) -> Decomposition:  # noqa: E741 - l is the paper's path length
    """Algorithm 4: the query plan Q of length-l paths covering E(q) with least Cost_Q.

    Parameters
    ----------
    qg
        The (normalized) query graph.
    l
        Path length in edges (``0`` = ⌈d_q/2⌉).

    Returns
    -------
    Decomposition

    Raises
    ------
    ConfigError
        If l is outside [⌈d_q/2⌉, d_q] or an edge lies on no simple path of length l.
    """
    tr = trace if trace is not None else Trace("sgrag", "")
    with tr.timed("decomposition", "Cost-aware path decomposition", section="SG-RAG §4.3, App. E, Alg. 4") as step:
        l, d_q, rng = choose_l(qg, l)  # noqa: E741 - l is the paper's path length
        all_edges = {frozenset(e) for e in qg.edges}
        deg = {q: qg.degree(q) for q in qg.ids}

        def w(p: tuple[str, ...]) -> float:
            return -float(sum(deg[q] for q in p))

        candidates = _simple_paths(qg, l)
        coverable = set().union(*(_edges(p) for p in candidates)) if candidates else set()
        if all_edges - coverable:
            bad = sorted(tuple(sorted(e)) for e in all_edges - coverable)
            raise ConfigError(f"Query edges {bad} lie on no simple path of length l={l}; use a smaller l.")
        best: tuple[tuple[str, ...], ...] = ()
        best_cost = math.inf
        tried = 0
        if all_edges:
            start = max(qg.ids, key=lambda q: (deg[q], -qg.ids.index(q)))
            # paths starting at q_i (Alg. 4 line 3); when q_i is no path's end (l long), paths through it
            initial = _simple_paths(qg, l, start)
            initial += [p[::-1] for p in candidates if p[-1] == start and p[::-1] not in initial]
            initial = initial or [p for p in candidates if start in p] or candidates
            for p0 in initial:
                tried += 1
                local = [p0]
                covered = _edges(p0)
                cost = w(p0)
                while covered != all_edges:
                    nodes = {q for p in local for q in p}
                    pool = [p for p in candidates if _edges(p) - covered]
                    touching = [p for p in pool if nodes & set(p)] or pool
                    p = min(touching, key=lambda p: (len(_edges(p) & covered), w(p), p))
                    local.append(p)
                    covered |= _edges(p)
                    cost += w(p)
                if cost < best_cost:
                    best, best_cost = tuple(local), cost
        step.data.update({"l": l, "d_q": d_q, "l_range": list(rng), "paths": [list(p) for p in best],
                          "cost": best_cost if best else 0.0, "plans_tried": tried})
    return Decomposition(l, d_q, best, best_cost if best else 0.0, tried, rng)
