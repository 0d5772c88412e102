"""Where FastInsight lost the gold evidence (failure diagnosis; contract in
:mod:`core.methods.diagnoser`).

Read from the :class:`~core.methods.fastinsight.FastInsightRun` (its final ``N_ret`` and rounds).
For each gold passage outside the top ``cut``, in pipeline order:

``not_in_graph``  the passage is not a chunk of the workspace (so not a node of the passage graph).
``not_expanded``  it never entered ``N_ret``: not in the initial vector search (§3.1.1) and STeX
                  (§3.4) never added it before the budget ``b_max`` ran out. The evidence gives its
                  hop distance in the passage graph from ``N_ret`` and its degree (an isolated or far
                  passage cannot be reached by structure).
``ranked_out``    it is in ``N_ret`` but GRanker (§3.3) ranked it below the cut: the rank reached.

Then ``answer_wrong`` / ``ok`` as for every method.

A run that searched KG nodes (``result.searched == "kg_nodes"``, FastInsight §4.2.2) is diagnosed on
the node graph: a gold passage is reached through the nodes linked to it. ``not_in_graph`` then
also covers a passage no KG node links to; ``not_expanded`` means none of its nodes entered
``N_ret`` (hops and degree are of its nearest node); ``ranked_out`` means one did but the passage
came below the cut in the node ranking's passage mapping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from core.graph.csr import bfs_layers
from core.methods.base import Diagnosis, Gold, StageDecl
from core.methods.diagnoser import diagnoser
from core.methods.fastinsight.node_graph import node_graph

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


@diagnoser()
def diagnose(result: FastInsightRun, workspace: Workspace, gold: Gold, lost: list[str], ranks: dict[str, int | None],
             cut: int, ev: dict[str, Any]) -> Diagnosis | None:
    """FastInsight's verdict for one question (see the module docstring)."""
    method = result.method
    if result.searched == "kg_nodes":
        per = _lost_on_nodes(result, workspace, lost, ranks, cut)
    else:
        per = _lost_on_passages(result, workspace, lost, ranks, cut)
    idx = workspace.graph.chunk_index
    n_ret = {c: i for i, c in enumerate(result.retrieved, start=1)}
    stage = min((p["stage"] for p in per.values()), key=_ORDER.index)
    first = next(c for c, p in per.items() if p["stage"] == stage)
    title = workspace.graph.chunk(first).title if first in idx else first
    return Diagnosis(method, stage, f"Gold passage “{title}”: {per[first]['why']}.", {"lost": per, "cut": cut,
                     "n_ret": len(n_ret)}, ranks)


def _lost_on_passages(result: FastInsightRun, workspace: Workspace, lost: list[str], ranks: dict[str, Any],
                      cut: int) -> dict[str, dict[str, Any]]:
    from core.graph.passage_graph import passage_graph

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
    return per


def _lost_on_nodes(result: FastInsightRun, workspace: Workspace, lost: list[str], ranks: dict[str, Any],
                   cut: int) -> dict[str, dict[str, Any]]:
    # the BFS below walks the whole node graph's CSR, by definition: the in-memory node graph (on a graph
    # store the whole graph is read once for a diagnosis), the one the run searched when it was in memory
    ng = node_graph(workspace.graph, max_chars=result.config.node_text_chars)
    chunks = workspace.graph.chunk_index
    n_ret = {c: i for i, c in enumerate(result.retrieved, start=1)}
    node_rank = {int(v): r for r, v in enumerate(result.node_ranking, start=1)}  # node rows of the graph
    initial = set(result.engine.rounds[0].added.tolist()) if result.engine.rounds else set()
    ret_nodes = np.asarray(sorted(node_rank), dtype=np.int64)
    layers = list(bfs_layers(ng.indptr, ng.nbr, ret_nodes, max_hops=6))  # one BFS for every lost passage
    per: dict[str, dict[str, Any]] = {}
    for cid in lost:
        info: dict[str, Any] = {"rank": ranks[cid]}
        linked = ng.nodes_of_chunk(cid)
        if cid not in chunks:
            info.update(stage="not_in_graph", why="it is not a passage of this workspace")
        elif linked.size == 0:
            info.update(stage="not_in_graph", why="no KG node is linked to it, so searching KG nodes cannot reach it")
        elif cid in n_ret:
            best = min(node_rank[int(v)] for v in linked.tolist() if int(v) in node_rank)
            info.update(stage="ranked_out", rank_in_n_ret=n_ret[cid], n_ret=len(n_ret), best_node_rank=best,
                        initial=any(int(v) in initial for v in linked.tolist()), linked_nodes=int(linked.size),
                        why=f"one of its KG nodes is in N_ret (best node rank {best} of {len(node_rank)}), but the "
                            f"passage came {n_ret[cid]} of {len(n_ret)} (cut {cut})")
        else:
            near = next(((d, int(np.intersect1d(layer, linked)[0])) for d, layer in enumerate(layers)
                         if np.intersect1d(layer, linked).size), None)
            deg = int(ng.degree[near[1]]) if near else int(ng.degree[linked].max())
            info.update(stage="not_expanded", degree=deg, hops_from_n_ret=near[0] if near else None,
                        linked_nodes=int(linked.size), b_max=result.config.b_max,
                        why=("none of its KG nodes was in the initial vector search or added by STeX"
                             + (": its nodes have no edge in the KG" if deg == 0 and near is None else
                                f"; its nearest node is {near[0]} hop(s) from N_ret" if near else
                                "; its nodes are more than 6 hops from N_ret")))
        per[cid] = info
    return per
