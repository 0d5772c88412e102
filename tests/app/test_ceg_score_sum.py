"""A CEG's score is shown as the sum it comes from (§3.4, Eqs. 5–6): "score 1.760" beside "Cost_sem 0.514, r_miss
0.10" left a student asking how (an audit). The figures in the text give the score back."""

from __future__ import annotations

import math
import re

from core.methods.bubblerag.expansion import CEG
from core.methods.bubblerag.ranking import rank_cegs


def test_the_score_is_said_as_the_sum_that_gives_it() -> None:
    from components.bubblerag.ranking import score_sum

    cegs = [CEG(0, (1, 2), (), (0,), "collision", 1, (0, 1), (), 0),
            CEG(1, (1,), (), (0, 1), "intra", 1, (0,), (), 1)]
    for r in rank_cegs(cegs, {1: 0.4, 2: 0.6}, [0.9, 0.1], alpha=1.0):
        text = score_sum(r)
        nums = [float(x) for x in re.findall(r"\d+\.\d+", text)]
        cost, pen = nums[0], nums[1]
        intra = nums[2] if "intra-group" in text else 1.0
        score = float(re.search(r"= (\d+\.\d+),", text).group(1))
        assert math.isclose(1 / (cost * pen * intra), score, rel_tol=5e-3), text  # the rounding of 3 decimals
        assert "e^(α·r_miss)" in text


def test_cost_sem_is_said_as_the_mean_of_its_nodes_costs() -> None:
    """Cost_sem 0.514 was shown without the node costs it averages (an audit could not redo it from the drawing)."""
    from components.bubblerag.ranking import COST_TERMS, cost_sem_sum

    names = [f"n{i}" for i in range(30)]
    cost = {1: 0.4, 2: 0.6, 3: 0.5}
    (r,) = rank_cegs([CEG(0, (1, 2, 3), (), (0,), "collision", 1, (0, 1), (), 0)], cost, [1.0])
    text = cost_sem_sum(r, cost, names)
    assert text.startswith("Cost_sem 0.500 is the mean of its 3 nodes' costs")
    terms = [float(x) for x in re.findall(r"n\d+ (\d+\.\d+)", text)]
    assert math.isclose(sum(terms) / 3, r.cost_sem, abs_tol=1e-3) and "/ 3." in text
    assert cost_sem_sum(r, {1: 0.4}, names) == ""  # costs not kept for every node: nothing half said
    big = {v: v / 100 for v in range(1, 21)}
    (rb,) = rank_cegs([CEG(0, tuple(big), (), (0,), "collision", 1, (0, 1), (), 0)], big, [1.0])
    long = cost_sem_sum(rb, big, names)
    assert f"({20 - COST_TERMS} more)" in long and "n1 0.010" in long and "n20 0.200" in long  # cheapest and costliest
