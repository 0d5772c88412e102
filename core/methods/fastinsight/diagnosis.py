"""Where FastInsight lost the gold evidence (issue 6 failure diagnosis; contract in
:mod:`core.methods.diagnosis`).

Read from the :class:`~core.methods.fastinsight.FastInsightRun` (its final ``N_ret`` and rounds).
For each gold passage outside the top ``cut``, in pipeline order:

``not_in_graph``  the passage is not a chunk of the workspace (so not a node of the passage graph).
``not_expanded``  it never entered ``N_ret``: not in the initial vector search (§3.1.1) and STeX
                  (§3.4) never added it before the budget ``b_max`` ran out. The evidence gives its
                  hop distance in the passage graph from ``N_ret`` and its degree (an isolated or far
                  passage cannot be reached by structure).
``ranked_out``    it is in ``N_ret`` but GRanker (§3.3) ranked it below the cut: the rank reached.

Then ``answer_wrong`` / ``ok`` as for every method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from core.graph.model import bfs_layers
from core.methods.base import Diagnosis, Gold, StageDecl
from core.methods.diagnosis import finish, gold_ranks, lost_gold, no_gold

if TYPE_CHECKING:
    from core.index.workspace import Workspace
    from core.methods.fastinsight.pipeline import FastInsightRun

STAGES: tuple[StageDecl, ...] = (
    StageDecl("not_in_graph", "gold passage not in the graph", "the gold passage is not a node of the passage graph"),
    StageDecl("not_expanded", "never retrieved into N_ret",
              "not in the initial vector search, and STeX never added it within b_max"),
    StageDecl("ranked_out", "ranked below the cut", "in N_ret, but GRanker ranked it below the cut"),
    StageDecl("answer_wrong", "retrieved, answer wrong", "all gold passages in the top chunks; the LLM answer is wrong, or (no LLM) the answer holds no gold answer"),
)
_ORDER = [s.key for s in STAGES]


def _hops_from(pg: Any, sources: np.ndarray, target: int, limit: int = 6) -> int | None:
    return next((d for d, layer in enumerate(bfs_layers(pg.indptr, pg.nbr, sources, max_hops=limit))
                 if target in layer.tolist()), None)


def diagnose(result: FastInsightRun, workspace: Workspace, gold: Gold, *, cut: int = 5) -> Diagnosis:
    """FastInsight's verdict for one question (see the module docstring)."""
    from core.methods.fastinsight.passage_graph import passage_graph

    ranks = gold_ranks(result, gold)
    method = result.method
    if not gold.chunk_ids:
        return no_gold(method, gold, ranks)
    lost = lost_gold(ranks, cut)
    if not lost:
        return finish(method, result, gold, ranks, cut=cut)
    pg = passage_graph(workspace.graph, max_entity_passages=result.config.max_entity_passages)
    idx = {c: i for i, c in enumerate(pg.chunk_ids)}
    n_ret = {c: i for i, c in enumerate(result.retrieved, start=1)}
    initial = set(result.engine.rounds[0].added.tolist()) if result.engine.rounds else set()
    ret_nodes = np.asarray([idx[c] for c in result.retrieved if c in idx], dtype=np.int64)
    per: dict[str, dict[str, Any]] = {}
    for cid in lost:
        info: dict[str, Any] = {"rank": ranks[cid]}
        if cid not in idx:
            info.update(stage="not_in_graph", why="it is not a passage of this workspace")
        elif cid in n_ret:
            info.update(stage="ranked_out", rank_in_n_ret=n_ret[cid], n_ret=len(n_ret),
                        initial=idx[cid] in initial,
                        why=f"it is in N_ret, but GRanker ranked it {n_ret[cid]} of {len(n_ret)} (cut {cut})")
        else:
            v = idx[cid]
            hops = _hops_from(pg, ret_nodes, v)
            deg = int(pg.degree[v])
            info.update(stage="not_expanded", degree=deg, hops_from_n_ret=hops, b_max=result.config.b_max,
                        why=("not in the initial vector search and STeX never added it"
                             + (": it has no neighbour in the passage graph" if deg == 0 else
                                f"; it is {hops} hop(s) from N_ret" if hops is not None else
                                "; it is more than 6 hops from N_ret")))
        per[cid] = info
    stage = min((p["stage"] for p in per.values()), key=_ORDER.index)
    first = next(c for c, p in per.items() if p["stage"] == stage)
    title = workspace.graph.chunk(first).title if first in idx else first
    return Diagnosis(method, stage, f"Gold passage “{title}”: {per[first]['why']}.", {"lost": per, "cut": cut,
                     "n_ret": len(n_ret)}, ranks)
