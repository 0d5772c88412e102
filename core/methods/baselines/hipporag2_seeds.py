"""Where HippoRAG 2's walk restarts (Gutiérrez et al. 2025, §3.2; the released code's
``graph_search_with_fact_entities`` and ``get_top_k_weights``).

**Phrase seeds.** Each kept fact gives its subject and its object the fact's score (min-max normalised, from
linking) divided by the number of passages the phrase appears in (its node specificity; no division for a phrase
in no passage). A phrase named by several kept facts gets the mean of those values, and only the
``linking_top_k`` heaviest phrases keep their weight (ties: the phrase named first).

**Passage seeds.** Every passage node gets its min-max-normalised dense score times ``passage_node_weight``
(0.05), so dense retrieval lends the walk a small, corpus-wide prior.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.methods.baselines.hipporag2_linking import LinkedFact, min_max


@dataclass(frozen=True)
class PhraseSeed:
    """A phrase node the walk restarts at."""

    node: int  #: global KG node
    name: str
    weight: float  #: mean over its kept facts of (fact score / passages)
    facts: int  #: kept facts naming it (as subject or object)
    passages: int  #: passages it appears in (the divisor)

    def row(self) -> dict[str, object]:
        return {"node": self.node, "name": self.name, "weight": self.weight, "facts": self.facts,
                "passages": self.passages}


def phrase_seeds(kept: Sequence[LinkedFact], passages_of: Callable[[int], int],
                 top_k: int) -> tuple[tuple[PhraseSeed, ...], tuple[PhraseSeed, ...]]:
    """The phrase seeds of the kept facts: the ``top_k`` heaviest, best first, and the rest (weight dropped).

    Parameters
    ----------
    kept : sequence of LinkedFact
        The facts recognition memory kept (or the linked facts, unfiltered).
    passages_of : callable
        Global node → the number of passages the phrase appears in.
    top_k : int
        ``linking_top_k``: phrase seeds that keep their weight.

    Examples
    --------
    >>> f = [LinkedFact(0, 1, 2, "A", "r", "B", 1.0, 0.9), LinkedFact(1, 1, 3, "A", "s", "C", 0.5, 0.8)]
    >>> top, rest = phrase_seeds(f, {1: 2, 2: 1, 3: 0}.__getitem__, 2)
    >>> [(s.name, s.weight, s.facts) for s in top], [s.name for s in rest]
    ([('B', 1.0, 1), ('C', 0.5, 1)], ['A'])
    """
    total: dict[int, float] = {}
    count: dict[int, int] = {}
    name: dict[int, str] = {}
    for f in kept:
        for v, n in ((f.head, f.subject), (f.tail, f.object)):
            p = passages_of(v)
            total[v] = total.get(v, 0.0) + (f.score / p if p > 0 else f.score)
            count[v] = count.get(v, 0) + 1
            name.setdefault(v, n)
    first = {v: i for i, v in enumerate(total)}  # dicts keep insertion order: the phrase named first wins a tie
    seeds = [PhraseSeed(v, name[v], total[v] / count[v], count[v], passages_of(v)) for v in total]
    seeds.sort(key=lambda s: (-s.weight, first[s.node]))
    return tuple(seeds[:top_k]), tuple(seeds[top_k:])


def passage_seeds(dense: np.ndarray, passage_node_weight: float) -> np.ndarray:
    """Every passage's reset weight: its min-max-normalised dense score × ``passage_node_weight``.

    >>> passage_seeds(np.array([0.2, 0.6, 0.4]), 0.05).round(3).tolist()
    [0.0, 0.05, 0.025]
    """
    return min_max(dense) * float(passage_node_weight)
