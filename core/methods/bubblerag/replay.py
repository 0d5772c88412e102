"""Compact, replayable record of a bubble expansion (for step-through UIs; §3.3, Algorithm 1).

:func:`~core.methods.bubblerag.expansion.iter_bubble_expansion` with ``snapshots=True`` gives every
frame the whole cumulative state, O(|V'|) per frame. Keeping hundreds of those for a G' of
thousands of nodes costs a lot of memory, so :func:`expansion_replay` keeps only each frame's
*events* (the node settled and the labels relaxed) plus the initial snapshot, and
:meth:`ExpansionReplay.state_at` folds the events back into the cumulative state of any frame,
optionally restricted to the nodes a drawing shows. The folded state equals the frame's snapshot
(a test checks it frame by frame).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from core.graph.reader import GraphLike
from core.methods.bubblerag.expansion import BubbleExpansion, ExpansionFrame, iter_bubble_expansion
from core.methods.bubblerag.grouping import AnchorGroup
from core.methods.bubblerag.localize import LocalGraph


@dataclass(frozen=True)
class ReplayState:
    """The cumulative search state after one frame."""

    settled: dict[int, int]  #: global node → bitmask of the groups that settled it
    frontier: dict[int, int]  #: global node → bitmask of the groups that labelled but not yet settled it
    costs: dict[int, dict[int, float]]  #: group → {global node: best accumulated cost so far}


@dataclass(frozen=True)
class ExpansionReplay:
    """Frames without snapshots (events only) plus the initial state and the final result."""

    frames: tuple[ExpansionFrame, ...]  #: frame k = state after k settle steps; the last is ``done``
    initial: ReplayState
    result: BubbleExpansion
    visited: tuple[int, ...]  #: global nodes in the order the search first settled them

    def __len__(self) -> int:
        return len(self.frames)

    def state_at(self, k: int, nodes: Iterable[int] | None = None) -> ReplayState:
        """Cumulative state after frame ``k`` (clamped to the last frame), restricted to ``nodes``."""
        k = max(0, min(int(k), len(self.frames) - 1))
        keep = None if nodes is None else {int(v) for v in nodes}
        ok = (lambda v: True) if keep is None else keep.__contains__
        settled = {v: m for v, m in self.initial.settled.items() if ok(v)}
        costs = {g: {v: c for v, c in cs.items() if ok(v)} for g, cs in self.initial.costs.items()}
        for f in self.frames[1:k + 1]:
            if f.node >= 0 and ok(f.node):
                settled[f.node] = settled.get(f.node, 0) | (1 << f.group)
            for v, g, c in f.relaxed:
                if ok(v):
                    costs.setdefault(g, {})[v] = c
        frontier: dict[int, int] = {}
        for g, cs in costs.items():
            for v in cs:
                if not (settled.get(v, 0) >> g) & 1:
                    frontier[v] = frontier.get(v, 0) | (1 << g)
        return ReplayState(settled, frontier, costs)

    def collision_frames(self, kinds: Sequence[str] = ("collision",)) -> list[int]:
        """Frame indices at which a CEG of one of ``kinds`` was found."""
        return [i for i, f in enumerate(self.frames) if any(c.kind in kinds for c in f.new_cegs)]


def expansion_replay(graph: GraphLike, local: LocalGraph, groups: Sequence[AnchorGroup], *, budget: int = 10,
                     intra_group: bool = True, intra_counts: bool = False) -> ExpansionReplay:
    """Run :func:`iter_bubble_expansion` once and keep a compact replay of it.

    Parameters are those of :func:`~core.methods.bubblerag.expansion.iter_bubble_expansion`.
    The snapshot work is O(|V'|) per frame, so callers should bound ``|V'| × steps``.

    Returns
    -------
    ExpansionReplay
    """
    frames: list[ExpansionFrame] = []
    initial: ReplayState | None = None
    result: BubbleExpansion | None = None
    visited: dict[int, None] = {}
    for f in iter_bubble_expansion(graph, local, groups, budget=budget, intra_group=intra_group,
                                   intra_counts=intra_counts, snapshots=True):
        if initial is None and f.settled is not None:
            frontier: dict[int, int] = {}
            for g, vs in (f.frontier or {}).items():
                for v in vs:
                    frontier[v] = frontier.get(v, 0) | (1 << g)
            initial = ReplayState(dict(f.settled), frontier, {g: dict(c) for g, c in (f.costs or {}).items()})
        if f.node >= 0:
            visited.setdefault(f.node)
        if f.done:
            result = f.result
        frames.append(replace(f, settled=None, frontier=None, costs=None, result=None))
    assert result is not None and initial is not None
    return ExpansionReplay(tuple(frames), initial, result, tuple(visited))


__all__ = ["ExpansionReplay", "ReplayState", "expansion_replay"]
