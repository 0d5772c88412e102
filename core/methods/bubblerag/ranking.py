"""§3.4 Candidate Evidence Graph Ranking (Eqs. 5-6).

    Score(T) = 1 / (Cost_sem(T) · Penalty_miss(T) + ε)
    Cost_sem(T) = mean over v ∈ V_T of (1 − cos(z_q, z_v))          (size-invariant)
    Penalty_miss(T) = exp(α · r_miss),   r_miss = Σ_{i: S_i ∩ V_T = ∅} w_i

Intra-group CEGs additionally carry the "mild penalty" of §3.3, a multiplicative factor on the
composite cost. α sets the query semantics: large α = AND (all concepts required), α ≈ 0 = OR
(coverage ignored); comparison queries keep the top-n side by side. Ranking is a pure function of
the CEGs, the node costs and the weights, so the UI re-ranks live without re-running the search.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core.methods.bubblerag.expansion import CEG


@dataclass(frozen=True)
class RankedCEG:
    """A CEG with its full score breakdown."""

    ceg: CEG
    rank: int
    cost_sem: float
    r_miss: float
    missing: tuple[int, ...]
    penalty_miss: float
    intra_penalty: float
    score: float


def rank_cegs(cegs: Sequence[CEG], node_cost: Mapping[int, float], weights: Sequence[float] | np.ndarray, *, alpha: float = 1.0,
              epsilon: float = 1e-6, intra_group_penalty: float = 1.2) -> tuple[RankedCEG, ...]:
    """Score and sort CEGs (best first; ties broken by discovery order).

    Parameters
    ----------
    cegs
        Candidates from the bubble expansion.
    node_cost
        ``cost(v) = 1 − cos(z_q, z_v)`` for every node in any CEG (global id → cost).
    weights
        Group importance weights ``w_i`` (sum to 1).
    alpha
        Penalty factor α of Eq. (6).
    """
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    rows = []
    for c in cegs:
        cost_sem = sum(node_cost[v] for v in c.nodes) / len(c.nodes) if c.nodes else 1.0
        missing = tuple(i for i in range(len(weights)) if i not in c.groups)
        r_miss = float(sum(float(weights[i]) for i in missing))
        pen = math.exp(alpha * r_miss)
        intra = intra_group_penalty if c.kind == "intra" else 1.0
        score = 1.0 / (cost_sem * pen * intra + epsilon)
        rows.append((c, cost_sem, r_miss, missing, pen, intra, score))
    rows.sort(key=lambda r: (-r[6], r[0].index))
    return tuple(RankedCEG(c, i + 1, cs, rm, mi, pe, ip, sc) for i, (c, cs, rm, mi, pe, ip, sc) in enumerate(rows))


def first_valid_ceg(cegs: Sequence[CEG], node_cost: Mapping[int, float], weights: Sequence[float] | np.ndarray, *,
                    alpha: float = 1.0, epsilon: float = 1e-6, intra_group_penalty: float = 1.2) -> tuple[RankedCEG, ...]:
    """The §4.3 ablation "w/o CEG ranking": the first valid CEG the expansion returned, alone.

    BubbleRAG §4.3: "we removed the scoring function defined in Eq. (5) ... we simply selected the
    first valid connected subgraph returned by the heuristic expansion." Its Eq. 5 breakdown is still
    computed (for display); it decides nothing. Returns ``()`` when there is no CEG.
    """
    if not cegs:
        return ()
    first = min(cegs, key=lambda c: c.index)
    return rank_cegs([first], node_cost, weights, alpha=alpha, epsilon=epsilon, intra_group_penalty=intra_group_penalty)
