"""CEG ranking (BubbleRAG §3.4, Eqs. 5-6)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from core.methods.bubblerag.expansion import CEG
from core.methods.bubblerag.ranking import rank_cegs


def ceg(i: int, nodes, groups, kind="collision") -> CEG:
    return CEG(i, tuple(nodes), (), tuple(groups), kind, nodes[0], tuple(groups), (), 0)


# Lothair II (w=0.8) and mother (w=0.2), the paper's §3.4 weights
W = [0.8, 0.2]
COST = {0: 0.2, 1: 0.2, 2: 0.6, 3: 0.1}
FULL = ceg(0, [0, 1, 2], [0, 1])  # covers both groups, mean cost 1/3
PARTIAL = ceg(1, [3], [1])  # cheap but misses the core subject (r_miss = 0.8)


def test_score_formula_matches_eq5_and_eq6():
    r = {x.ceg.index: x for x in rank_cegs([FULL, PARTIAL], COST, W, alpha=1.0, epsilon=1e-6)}
    assert r[0].cost_sem == pytest.approx((0.2 + 0.2 + 0.6) / 3)
    assert r[0].r_miss == 0 and r[0].penalty_miss == 1.0
    assert r[1].r_miss == pytest.approx(0.8) and r[1].missing == (0,)
    assert r[1].penalty_miss == pytest.approx(math.exp(0.8))
    assert r[1].score == pytest.approx(1 / (0.1 * math.exp(0.8) + 1e-6))


def test_alpha_switches_between_or_and_and_semantics():
    or_rank = rank_cegs([FULL, PARTIAL], COST, W, alpha=0.0)
    and_rank = rank_cegs([FULL, PARTIAL], COST, W, alpha=10.0)
    assert or_rank[0].ceg is PARTIAL  # OR: coverage ignored, the cheapest wins
    assert and_rank[0].ceg is FULL  # AND: missing the core subject is catastrophic


def test_missing_a_peripheral_group_is_tolerated():
    miss_minor = ceg(2, [3, 0], [0])  # misses only "mother" (0.2)
    r = rank_cegs([FULL, miss_minor], COST, W, alpha=1.0)
    assert r[0].ceg is miss_minor  # graceful degradation: a small miss with lower cost can still win


def test_ranking_is_deterministic_and_scores_finite():
    cegs = [ceg(i, [i % 4], [i % 2]) for i in range(8)]
    a = rank_cegs(cegs, COST, W)
    b = rank_cegs(list(reversed(cegs)), COST, W)
    assert [x.ceg.index for x in a] == [x.ceg.index for x in b]
    assert all(math.isfinite(x.score) for x in a)
    zero = rank_cegs([ceg(9, [5], [0, 1])], {5: 0.0}, W, epsilon=1e-6)
    assert zero[0].score == pytest.approx(1e6)
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        rank_cegs(cegs, COST, W, alpha=-1)


def test_without_ceg_ranking_the_first_valid_ceg_is_kept_alone():
    """§4.3 "w/o CEG ranking": the first CEG the expansion returned, whatever Eq. 5 would say."""
    from core.methods.bubblerag.ranking import first_valid_ceg

    ranked = rank_cegs([PARTIAL, FULL], COST, W, alpha=10.0)
    assert ranked[0].ceg is FULL  # Eq. 5 with AND semantics prefers the complete CEG ...
    first = first_valid_ceg([PARTIAL, FULL], COST, W, alpha=10.0)
    assert [x.ceg for x in first] == [FULL]  # ... FULL has discovery index 0, PARTIAL 1
    late_full = dataclasses.replace(FULL, index=5)
    assert [x.ceg for x in first_valid_ceg([late_full, PARTIAL], COST, W, alpha=10.0)] == [PARTIAL]
    assert first_valid_ceg([], COST, W) == ()
