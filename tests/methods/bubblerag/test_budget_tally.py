"""What B counts (§3.3, Algorithm 1 line 8), walked frame by frame against the CEG list: the tally the
expansion page's counters read agrees with the search's own stop, its numbering and its result."""

from __future__ import annotations

import numpy as np
import pytest

from core.methods.bubblerag.expansion import budget_place, budget_tally, counts_toward_budget, iter_bubble_expansion
from core.methods.bubblerag.localize import localized_graph
from tests.methods.bubblerag.test_expansion import make_groups, random_graph, unit


def _frames(seed: int, budget: int, intra_counts: bool) -> list:
    rng = np.random.default_rng(seed)
    g = random_graph(seed, n=60, m=200)
    groups = make_groups(g, rng, m=3, per=4)  # four anchors a group: same-group bubbles meet (intra CEGs)
    local = localized_graph(g, {v for grp in groups for v in grp.terminals(g)}, unit(rng, g.n_nodes),
                            unit(rng, 1)[0], h=6)
    return list(iter_bubble_expansion(g, local, groups, budget=budget, intra_counts=intra_counts))


@pytest.mark.parametrize("intra_counts", [False, True])
@pytest.mark.parametrize("budget", [1, 3, 10])
def test_every_frame_counts_the_cegs_it_has_found(budget: int, intra_counts: bool) -> None:
    saw_intra = False
    for seed in range(6):
        frames = _frames(seed, budget, intra_counts)
        res = frames[-1].result
        assert frames[-1].done and res is not None
        cegs = res.cegs
        assert [c.index for c in cegs] == list(range(len(cegs)))  # #0 … #n−1 in discovery order
        for k, f in enumerate(frames[:-1]):
            tally = budget_tally(cegs, budget, intra_counts=intra_counts, until_step=f.step)
            assert tally.total == f.n_cegs  # the frame's own count of CEGs found so far
            assert tally.counted + tally.uncounted == tally.total
            # the CEGs found now are the last numbers so far
            assert [c.index for c in f.new_cegs] == list(range(tally.total - len(f.new_cegs), tally.total))
            if k < len(frames) - 2:
                assert not tally.reached  # the search only goes on while fewer than B CEGs count
        final = budget_tally(cegs, budget, intra_counts=intra_counts)
        assert final.total == len(cegs)
        assert final.counted <= budget and final.uncounted <= budget
        if not res.fallback:
            assert res.budget_reached == final.reached
        if intra_counts:
            assert final.uncounted == 0
        saw_intra |= any(c.kind == "intra" for c in cegs)
        # places: 1, 2, … among the CEGs that count, and among those that do not, in discovery order
        for counts in (True, False):
            mine = [c for c in cegs if counts_toward_budget(c, intra_counts) == counts]
            assert [budget_place(cegs, c, intra_counts=intra_counts) for c in mine] == list(range(1, len(mine) + 1))
    assert saw_intra  # the walk met intra-group CEGs, so the two kinds of count were both exercised


def test_only_intra_group_cegs_are_left_out_of_the_budget() -> None:
    frames = _frames(0, 10, False)
    cegs = frames[-1].result.cegs
    assert {c.kind for c in cegs if not counts_toward_budget(c)} <= {"intra"}
    assert all(counts_toward_budget(c, intra_counts=True) for c in cegs)
