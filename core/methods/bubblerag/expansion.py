"""§3.3 Phases 2-3: anisotropic bubble expansion, collision detection and subgraph fusion
(Algorithm 1, lines 6-25), with intra-group connections and the anchor fallback.

A multi-source, cost-guided (Dijkstra-like) search runs inside G' from every anchor at once. Each
node keeps, per the paper, "(i) the minimum accumulated cost to reach it from a given source group,
(ii) a predecessor pointer for path reconstruction, and (iii) a bitmask recording which semantic
anchor groups have reached it". The accumulated cost of a path adds each entered node's semantic
cost ``cost(v) = 1 − cos(z_q, z_v)`` (Eq. 4; anchors start at 0), so bubbles grow fast through
query-aligned regions and stall elsewhere.

Implementation choices where Algorithm 1 as printed is ambiguous (its single ``cost[v]`` cannot
hold "costs from each source group" as the text requires):

* costs and predecessors are kept **per group** (``cost[g][v]``), all groups sharing one priority
  queue ordered by accumulated cost; the bitmask is a Python ``int`` (any number of groups);
* a **collision** is detected when a group *settles* (pops with its final cost) a node already
  settled by a different group. Both labels are then final, so the backtracked paths are exact
  shortest paths — the property the tests check against ``networkx.multi_source_dijkstra``. All
  groups that have settled the meeting node take part, so a later arrival extends an earlier
  two-group CEG into a three-group one;
* an **intra-group connection** is found when a settled node of group g scans a neighbour settled
  by g from a *different* anchor: the two same-group bubbles touch. The CEG is the anchor-to-anchor
  path; ranking gives it the mild penalty of §3.3;
* CEGs are deduplicated by (nodes, edges); the search stops once B distinct CEGs exist (line 8).
  The paper does not say whether intra-group fusions consume B; if they did, same-group anchors
  meeting early (common: the top-k candidates of one keyword are often adjacent) would crowd out
  the inter-group collisions the method is built on. So by default they do not
  (``intra_counts=True`` restores it) and are themselves capped at B;
* **fallback** (lines 23-24): when nothing collides, the single candidate is all terminals.

A CEG's nodes are the union of the backtracked paths; its edges are the traversal edges on those
paths. A path that starts at an endpoint of an *edge* anchor brings that edge (and its other
endpoint) along, and every anchor edge whose endpoints are both in the CEG is included. A group is
covered, as in OISR's coverage constraint (V' ∪ E') ∩ S_i ≠ ∅, when one of its node anchors or
one of its edge anchors is in the CEG.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from core.graph.reader import GraphLike
from core.methods.bubblerag.grouping import AnchorGroup
from core.methods.bubblerag.localize import LocalGraph
from core.trace import Trace

CEGKind = Literal["collision", "intra", "fallback"]
INF = float("inf")


@dataclass(frozen=True)
class CEG:
    """A candidate evidence graph (global node and edge ids)."""

    index: int  #: discovery order
    nodes: tuple[int, ...]
    edges: tuple[int, ...]
    groups: tuple[int, ...]  #: groups covered (a terminal of the group is in ``nodes``)
    kind: CEGKind
    meeting: int  #: global id of the Steiner (meeting) node; -1 for the fallback
    involved: tuple[int, ...]  #: groups whose bubbles met here
    path_costs: tuple[tuple[int, float], ...]  #: (group, accumulated cost anchor → meeting node)
    found_at: int  #: expansion step (frame) at which it was found

    def covers(self, gid: int) -> bool:
        return gid in self.groups


@dataclass(frozen=True)
class ExpansionFrame:
    """One settle step of the search, for step-by-step replay.

    ``settled`` / ``frontier`` / ``costs`` are cumulative snapshots and are only filled by
    :func:`iter_bubble_expansion` (``snapshots=True``); ``relaxed`` holds this step's label updates.
    """

    step: int
    node: int  #: global node settled at this step (-1 for the initial frame)
    group: int  #: group that settled it (-1 for the initial frame)
    cost: float
    relaxed: tuple[tuple[int, int, float], ...]  #: (global node, group, new accumulated cost)
    new_cegs: tuple[CEG, ...]  #: CEGs found at this step
    n_cegs: int
    queue_size: int  #: live entries in the priority queue (stale ones of lazy deletion not counted)
    queue_head: tuple[tuple[int, int, float], ...] = ()  #: the (up to) 5 cheapest live entries (node, group, cost)
    settled: dict[int, int] | None = None  #: global node → bitmask of groups that settled it
    frontier: dict[int, tuple[int, ...]] | None = None  #: group → labelled, unsettled global nodes
    costs: dict[int, dict[int, float]] | None = None  #: group → {global node: accumulated cost}
    done: bool = False
    result: BubbleExpansion | None = None


@dataclass(frozen=True)
class BubbleExpansion:
    cegs: tuple[CEG, ...]
    steps: int  #: nodes settled
    budget: int
    budget_reached: bool
    fallback: bool
    settled: int  #: distinct nodes settled by any group
    local_nodes: int
    seconds: float = 0.0
    meta: dict[str, object] = field(default_factory=dict)


def counts_toward_budget(ceg: CEG, intra_counts: bool = False) -> bool:
    """Whether ``ceg`` consumes the expansion budget B (§3.3, Algorithm 1 line 8: the search stops once B
    CEGs that count exist).

    Collision CEGs and the fallback count; intra-group CEGs count only with ``intra_counts`` (the module
    docstring says why they do not by default: they are capped at B on their own instead).
    """
    return ceg.kind != "intra" or intra_counts


@dataclass(frozen=True)
class BudgetTally:
    """How the CEGs found so far stand against the budget B (§3.3): the numbers every counter and caption
    of the expansion's replay reads, so that they agree with each other and with the CEG list."""

    budget: int  #: B
    counted: int  #: CEGs that consume B (:func:`counts_toward_budget`)
    uncounted: int  #: intra-group CEGs that do not (at most B of them; 0 with ``intra_counts``)
    total: int  #: every CEG found: counted + uncounted; they are numbered #0 … #total − 1 in discovery order

    @property
    def reached(self) -> bool:
        """Whether the search stops here for the budget: B CEGs that count exist."""
        return self.counted >= self.budget


def budget_tally(cegs: Sequence[CEG], budget: int, *, intra_counts: bool = False,
                 until_step: int | None = None) -> BudgetTally:
    """The :class:`BudgetTally` of ``cegs`` (those found at or before the settle step ``until_step``; None:
    all of them)."""
    found = [c for c in cegs if until_step is None or c.found_at <= until_step]
    counted = sum(1 for c in found if counts_toward_budget(c, intra_counts))
    return BudgetTally(budget, counted, len(found) - counted, len(found))


def budget_place(cegs: Sequence[CEG], ceg: CEG, *, intra_counts: bool = False) -> int:
    """``ceg``'s place (1, 2, …) among the CEGs of ``cegs`` that, like it, count toward B, or among those that,
    like it, do not: the collision that reaches B = 10 is the 10th that counts, whatever its number #index."""
    counts = counts_toward_budget(ceg, intra_counts)
    return sum(1 for c in cegs if c.index <= ceg.index and counts_toward_budget(c, intra_counts) == counts)


class _Search:
    def __init__(self, graph: GraphLike, local: LocalGraph, groups: Sequence[AnchorGroup], *, budget: int,
                 intra_group: bool, intra_counts: bool = False) -> None:
        if budget < 1:
            raise ValueError(f"budget B must be >= 1, got {budget}")
        self.graph, self.local, self.groups = graph, local, list(groups)
        self.budget, self.intra, self.intra_counts = budget, intra_group, intra_counts
        self.n_intra = 0
        self.n_counted = 0  #: CEGs that consume the budget B
        n, m = local.n_nodes, len(self.groups)
        self.m = m
        self.indptr = local.indptr.tolist()
        self.nbr = local.nbr.tolist()
        self.eid = local.eid.tolist()
        self.node_cost = local.cost.tolist()
        self.gnode = local.nodes.tolist()
        self.cost = [[INF] * n for _ in range(m)]
        self.pred = [[-1] * n for _ in range(m)]
        self.pred_e = [[-1] * n for _ in range(m)]
        self.root: list[list[str | None]] = [[None] * n for _ in range(m)]
        self.done = [bytearray(n) for _ in range(m)]
        self.settled_mask = [0] * n
        self.term_mask = [0] * n
        self.heap: list[tuple[float, int, int, int]] = []
        self.seq = 0
        self.cegs: list[CEG] = []
        self.keys: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
        self.intra_pairs: set[tuple[int, str, str]] = set()
        self.group_terms: list[set[int]] = []
        self.group_node_anchors: list[set[int]] = []  #: local nodes that are node anchors of the group
        self.group_edge_anchors: list[set[int]] = []  #: edge ids that are edge anchors of the group
        self.anchor_edge_of: dict[str, int] = {}  #: anchor cid → edge id, for edge anchors
        for gi, grp in enumerate(self.groups):
            terms: set[int] = set()
            node_anchors: set[int] = set()
            for c in grp.members:
                if c.kind == "edge":
                    self.anchor_edge_of[c.cid] = c.index
                else:
                    try:
                        node_anchors.add(local.local(c.index))
                    except KeyError:
                        pass
            for v, cid in grp.terminals(graph).items():
                try:
                    lv = local.local(v)
                except KeyError:
                    continue
                terms.add(lv)
                self.term_mask[lv] |= 1 << gi
                if self.cost[gi][lv] > 0:
                    self.cost[gi][lv] = 0.0
                    self.root[gi][lv] = cid
                    heapq.heappush(self.heap, (0.0, self.seq, gi, lv))
                    self.seq += 1
            self.group_terms.append(terms)
            self.group_node_anchors.append(node_anchors)
            self.group_edge_anchors.append(set(grp.anchor_edges))
        self.all_anchor_edges = set().union(*self.group_edge_anchors) if self.group_edge_anchors else set()

    # -- CEG construction ----------------------------------------------------------
    def _backtrack(self, g: int, v: int) -> tuple[list[int], list[int]]:
        nodes, edges = [v], []
        x = v
        for _ in range(len(self.gnode) + 1):
            p = self.pred[g][x]
            if p < 0:
                break
            edges.append(self.pred_e[g][x])
            x = p
            nodes.append(x)
        return nodes, edges

    def _make(self, nodes: set[int], edges: set[int], kind: CEGKind, meeting: int, involved: Sequence[int],
              path_costs: Sequence[tuple[int, float]], step: int) -> CEG | None:
        gnodes = {self.gnode[v] for v in nodes}
        gedges = set(edges)
        # an edge anchor reached through one endpoint brings the edge and its other endpoint
        for gi in involved:
            for v in list(nodes):
                cid = self.root[gi][v]
                if cid in self.anchor_edge_of and self.pred[gi][v] < 0:
                    e = self.anchor_edge_of[cid]
                    gedges.add(e)
                    gnodes.update((int(self.graph.edge_head[e]), int(self.graph.edge_tail[e])))
        # anchor edges induced by the CEG's nodes are part of it
        for e in self.all_anchor_edges:
            if int(self.graph.edge_head[e]) in gnodes and int(self.graph.edge_tail[e]) in gnodes:
                gedges.add(e)
        local_nodes = {self.local.local(v) for v in gnodes}
        covered = tuple(gi for gi in range(self.m)
                        if self.group_node_anchors[gi] & local_nodes or self.group_edge_anchors[gi] & gedges)
        key = (tuple(sorted(gnodes)), tuple(sorted(gedges)))
        if key in self.keys:
            return None
        self.keys.add(key)
        ceg = CEG(len(self.cegs), key[0], key[1], covered, kind, self.gnode[meeting] if meeting >= 0 else -1,
                  tuple(involved), tuple((g, round(c, 6)) for g, c in path_costs), step)
        self.cegs.append(ceg)
        if kind == "intra":
            self.n_intra += 1
        if counts_toward_budget(ceg, self.intra_counts):  # the one rule the replay's counters read too
            self.n_counted += 1
        return ceg

    def _collide(self, v: int, step: int) -> CEG | None:
        mask = self.settled_mask[v]
        involved = [gi for gi in range(self.m) if mask >> gi & 1]
        nodes: set[int] = set()
        edges: set[int] = set()
        for gi in involved:
            ns, es = self._backtrack(gi, v)
            nodes.update(ns)
            edges.update(es)
        return self._make(nodes, edges, "collision", v, involved, [(gi, self.cost[gi][v]) for gi in involved], step)

    def _intra(self, g: int, v: int, u: int, e: int, step: int) -> CEG | None:
        a, b = self.root[g][v], self.root[g][u]
        if a is None or b is None or a == b or self.n_intra >= self.budget:
            return None
        key = (g, min(a, b), max(a, b))
        if key in self.intra_pairs:
            return None
        self.intra_pairs.add(key)
        n1, e1 = self._backtrack(g, v)
        n2, e2 = self._backtrack(g, u)
        return self._make(set(n1) | set(n2), set(e1) | set(e2) | {e}, "intra", v, [g],
                          [(g, self.cost[g][v] + self.cost[g][u] + self.node_cost[u])], step)

    # -- snapshots -------------------------------------------------------------------
    def _queue(self) -> tuple[int, tuple[tuple[int, int, float], ...]]:
        """The live queue entries (lazy deletion leaves stale ones in the heap: a label improved since, or
        a node its group already settled): how many, and the 5 cheapest as (global node, group, cost).
        Counting the heap itself said "72 entries" above an empty head."""
        live = [(c, s, g, v) for c, s, g, v in self.heap if c <= self.cost[g][v] and not self.done[g][v]]
        return len(live), tuple((self.gnode[v], g, round(c, 6)) for c, _, g, v in heapq.nsmallest(5, live))

    def _snapshot(self) -> tuple[dict[int, int], dict[int, tuple[int, ...]], dict[int, dict[int, float]]]:
        settled = {self.gnode[v]: mk for v, mk in enumerate(self.settled_mask) if mk}
        frontier: dict[int, tuple[int, ...]] = {}
        costs: dict[int, dict[int, float]] = {}
        for g in range(self.m):
            cg, dg = self.cost[g], self.done[g]
            lab = [v for v, c in enumerate(cg) if c < INF]
            frontier[g] = tuple(self.gnode[v] for v in lab if not dg[v])
            costs[g] = {self.gnode[v]: round(cg[v], 6) for v in lab}
        return settled, frontier, costs

    # -- main loop ---------------------------------------------------------------------
    def run(self, snapshots: bool) -> Iterator[ExpansionFrame]:
        t0 = time.perf_counter()
        steps = 0
        if snapshots:
            s0, f0, c0 = self._snapshot()
            yield ExpansionFrame(0, -1, -1, 0.0, (), (), 0, *self._queue(), s0, f0, c0)
        heap, cost, pred, pred_e, root, done = self.heap, self.cost, self.pred, self.pred_e, self.root, self.done
        indptr, nbr, eid, node_cost, settled_mask = self.indptr, self.nbr, self.eid, self.node_cost, self.settled_mask
        while heap and self.n_counted < self.budget:
            c, _, g, v = heapq.heappop(heap)
            if c > cost[g][v] or done[g][v]:
                continue
            done[g][v] = 1
            steps += 1
            new: list[CEG] = []
            other = settled_mask[v] & ~(1 << g)
            settled_mask[v] |= 1 << g
            if other:
                made = self._collide(v, steps)
                if made is not None:
                    new.append(made)
            relaxed: list[tuple[int, int, float]] = []
            cg, pg, peg, rg, dg = cost[g], pred[g], pred_e[g], root[g], done[g]
            for j in range(indptr[v], indptr[v + 1]):
                if self.n_counted >= self.budget:
                    break
                u = nbr[j]
                nc = c + node_cost[u]
                if nc < cg[u]:
                    cg[u] = nc
                    pg[u] = v
                    peg[u] = eid[j]
                    rg[u] = rg[v]
                    heapq.heappush(heap, (nc, self.seq, g, u))
                    self.seq += 1
                    if snapshots:
                        relaxed.append((self.gnode[u], g, round(nc, 6)))
                elif self.intra and dg[u] and rg[u] != rg[v]:
                    made = self._intra(g, v, u, eid[j], steps)
                    if made is not None:
                        new.append(made)
            if snapshots:
                s, f, cs = self._snapshot()
                yield ExpansionFrame(steps, self.gnode[v], g, round(c, 6), tuple(relaxed), tuple(new), len(self.cegs),
                                     *self._queue(), s, f, cs)
        fallback = False
        if not self.cegs:
            fallback = True
            terms = set().union(*self.group_terms) if self.group_terms else set()
            self._make(terms, set(self.all_anchor_edges), "fallback", -1, list(range(self.m)), [], steps)
        result = BubbleExpansion(
            tuple(self.cegs), steps, self.budget, self.n_counted >= self.budget and not fallback, fallback,
            sum(1 for mk in settled_mask if mk), self.local.n_nodes, time.perf_counter() - t0)
        yield ExpansionFrame(steps + 1, -1, -1, 0.0, (), (), len(self.cegs), *self._queue(), None, None, None,
                             True, result)


def iter_bubble_expansion(graph: GraphLike, local: LocalGraph, groups: Sequence[AnchorGroup], *,
                          budget: int = 10, intra_group: bool = True, intra_counts: bool = False,
                          snapshots: bool = True) -> Iterator[ExpansionFrame]:
    """Yield one :class:`ExpansionFrame` per settled node (plus an initial and a final frame).

    The final frame has ``done=True`` and carries the :class:`BubbleExpansion` in ``result``.
    With ``snapshots=True`` (the default, for replay in the UI) every frame holds the cumulative
    settled / frontier / cost state; that costs O(|V'|) per frame, so keep G' modest when replaying.

    Parameters
    ----------
    graph
        The full knowledge graph (for edge endpoints of anchor edges).
    local
        G' from :func:`~core.methods.bubblerag.localize.localized_graph` with node costs.
    groups
        The weighted semantic anchor groups.
    budget
        B, the number of distinct CEGs after which the search stops (paper default 10).
    intra_group
        Whether two anchors of the same group meeting also form a CEG (§3.3).
    intra_counts
        Whether intra-group CEGs consume the budget B (default False, see the module docstring).

    Examples
    --------
    >>> frames = list(iter_bubble_expansion(g, local, groups, budget=10))  # doctest: +SKIP
    >>> frames[-1].result.cegs[0].nodes                                      # doctest: +SKIP
    """
    yield from _Search(graph, local, groups, budget=budget, intra_group=intra_group,
                       intra_counts=intra_counts).run(snapshots)


def bubble_expansion(graph: GraphLike, local: LocalGraph, groups: Sequence[AnchorGroup], *, budget: int = 10,
                     intra_group: bool = True, intra_counts: bool = False, trace: Trace | None = None) -> BubbleExpansion:
    """Run the expansion to completion and return the CEGs (Algorithm 1)."""
    result: BubbleExpansion | None = None
    for frame in _Search(graph, local, groups, budget=budget, intra_group=intra_group,
                         intra_counts=intra_counts).run(False):
        result = frame.result
    assert result is not None
    if trace is not None:
        trace.add("expansion", "Anisotropic bubble expansion and collisions", {
            "budget": budget, "cegs": len(result.cegs), "settled_steps": result.steps,
            "settled_nodes": result.settled, "local_nodes": result.local_nodes,
            "budget_reached": result.budget_reached, "fallback": result.fallback,
            "by_kind": {k: sum(1 for c in result.cegs if c.kind == k) for k in ("collision", "intra", "fallback")},
        }, section="BubbleRAG §3.3 Phases 2-3, Algorithm 1", seconds=result.seconds,
            fallback="no bubbles collided within G' and the budget; the CEG is the set of anchors (lines 23-24)"
            if result.fallback else "")
    return result


__all__ = ["CEG", "BubbleExpansion", "BudgetTally", "ExpansionFrame", "bubble_expansion", "budget_place", "budget_tally",
           "counts_toward_budget", "iter_bubble_expansion"]
