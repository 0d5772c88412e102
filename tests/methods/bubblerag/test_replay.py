"""The compact expansion replay folds back into exactly the snapshots the search yields."""

from __future__ import annotations

import numpy as np
import pytest

from core.methods.bubblerag.expansion import bubble_expansion, iter_bubble_expansion
from core.methods.bubblerag.localize import localized_graph
from core.methods.bubblerag.replay import expansion_replay
from tests.methods.bubblerag.test_expansion import make_groups, random_graph, unit


@pytest.mark.parametrize("seed", range(4))
def test_state_at_equals_every_snapshot(seed):
    rng = np.random.default_rng(seed)
    g = random_graph(seed)
    groups = make_groups(g, rng, 3)
    terminals = {v for grp in groups for v in grp.terminals(g)}
    local = localized_graph(g, terminals, unit(rng, g.n_nodes), unit(rng, 1)[0], h=3)
    frames = list(iter_bubble_expansion(g, local, groups, budget=4))
    replay = expansion_replay(g, local, groups, budget=4)
    assert len(replay) == len(frames)
    assert replay.result.cegs == bubble_expansion(g, local, groups, budget=4).cegs
    for k, f in enumerate(frames):
        if f.done:
            break
        s = replay.state_at(k)
        assert s.settled == f.settled
        assert s.costs == f.costs
        expect = {}
        for grp, vs in f.frontier.items():
            for v in vs:
                expect[v] = expect.get(v, 0) | (1 << grp)
        assert s.frontier == expect
    some = list(replay.visited[:5])
    part = replay.state_at(len(frames) // 2, some)
    assert set(part.settled) <= set(some) and set(part.frontier) <= set(some)
    assert replay.collision_frames() == [i for i, f in enumerate(frames) if any(c.kind == "collision" for c in f.new_cegs)]
