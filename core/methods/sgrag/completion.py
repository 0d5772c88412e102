"""ψ, part 4: label completion for unknown nodes (sg_rag.txt §4.3, Appendix E, Algorithms 5-6).

Algorithm 5: a query path with unknown nodes gets wildcard (zero) label embeddings at those
positions; the R*-tree is traversed comparing only the known positions, and the labels found at
the unknown positions of the matching data paths form ``U[unknown id]``. Algorithm 6: the Cartesian
product of ``U`` instantiates label-complete path sets ``P = {Q'_1, …, Q'_n}``.

Decisions where the paper is open, each a config knob:

* Alg. 5 picks *a* path per unknown node; we pick the one whose known labels reach the fewest
  indexed paths (``PathIndex.count``), the cheapest. With ``intersect_completion`` (default) every
  path through the unknown node is queried and the label sets are intersected — result-preserving,
  since a label absent from one path's candidates can never complete a full match.
* Query nodes whose normalization found no node at all are completed like ``UNK`` nodes.
* Candidates are ordered by how many data paths support them (then label id) and capped at
  ``max_candidates`` per node; the product is capped at ``max_instantiations``. Both caps are
  reported (when hit, the match is no longer exhaustive).
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from core.methods.sgrag.index import PathIndex
from core.methods.sgrag.stages import CompletionData
from core.trace import Trace


@dataclass(frozen=True)
class Completion:
    unknown: tuple[str, ...]
    candidates: dict[str, tuple[int, ...]]  #: U: unknown query node id → candidate label ids (capped)
    found: dict[str, int]  #: candidates per unknown node before the cap
    paths_used: dict[str, tuple[tuple[str, ...], ...]]  #: which query paths produced U[id]
    instantiations: tuple[dict[str, int], ...]  #: P: full label maps (known + completed), capped
    n_product: int  #: size of the Cartesian product before the cap
    capped_candidates: bool
    capped_instantiations: bool


def complete_labels(paths: tuple[tuple[str, ...], ...], known: dict[str, int], unknown: tuple[str, ...],
                    index: PathIndex, *, max_candidates: int = 50, max_instantiations: int = 200,
                    intersect: bool = True, label_names: tuple[str, ...] = (),
                    trace: Trace | None = None) -> Completion:
    """Algorithms 5-6: U from wildcard index search, then its capped Cartesian instantiation.

    Parameters
    ----------
    paths
        The query paths Q (node-id sequences).
    known
        Label id of every known (normalized) query node.
    unknown
        Query node ids to complete (``UNK`` and unmapped nodes).
    index
        The path index I_l of the same l as ``paths``.

    Returns
    -------
    Completion
    """
    tr = trace if trace is not None else Trace("sgrag", "")
    with tr.timed("completion", "Label completion for unknown nodes", section="SG-RAG §4.3, App. E, Algs. 5-6") as step:
        unknown = tuple(u for u in unknown if any(u in p for p in paths))
        cands: dict[str, tuple[int, ...]] = {}
        found: dict[str, int] = {}
        used: dict[str, tuple[tuple[str, ...], ...]] = {}
        capped_c = False
        cache: dict[tuple[str, ...], dict[str, Counter[int]]] = {}

        def labels_of(p: tuple[str, ...]) -> np.ndarray:
            return np.array([known.get(q, -1) for q in p], dtype=np.int64)

        def query(p: tuple[str, ...]) -> dict[str, Counter[int]]:
            if p not in cache:
                rows = index.search(labels_of(p), None)
                got: dict[str, Counter[int]] = {}
                for pos, q in enumerate(p):
                    if q not in known:
                        got[q] = Counter(index.path_labels[rows, pos].tolist())
                cache[p] = got
            return cache[p]

        for u in unknown:
            through = [p for p in paths if u in p]
            if not intersect:
                through = [min(through, key=lambda p: (index.count(labels_of(p)), paths.index(p)))]
            support: Counter[int] | None = None
            for p in through:
                c = query(p)[u]
                support = c if support is None else Counter({k: support[k] + v for k, v in c.items() if k in support})
            ranked = sorted((support or Counter()).items(), key=lambda kv: (-kv[1], kv[0]))
            found[u] = len(ranked)
            capped_c |= len(ranked) > max_candidates
            cands[u] = tuple(k for k, _ in ranked[:max_candidates])
            used[u] = tuple(through)
        n_product = int(np.prod([len(cands[u]) for u in unknown])) if unknown else 1
        insts: list[dict[str, int]] = []
        for combo in itertools.islice(itertools.product(*(cands[u] for u in unknown)), max_instantiations):
            insts.append({**known, **dict(zip(unknown, combo))})
        step.data.update(CompletionData(
            unknown=list(unknown), intersect=intersect,
            candidates={u: [label_names[c] if label_names else c for c in cands[u]] for u in unknown},
            found=found, max_candidates=max_candidates, capped_candidates=capped_c,
            paths_used={u: [list(p) for p in used[u]] for u in unknown},
            n_product=n_product, instantiations=len(insts), max_instantiations=max_instantiations,
            capped_instantiations=n_product > max_instantiations).data())
    return Completion(unknown, cands, found, used, tuple(insts), n_product, capped_c, n_product > max_instantiations)
