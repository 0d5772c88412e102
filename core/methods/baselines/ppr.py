"""HippoRAG (v1) personalized PageRank retrieval (HippoRAG, Gutiérrez et al. 2024, §3.2).

HippoRAG's online retrieval, on the workspace KG:

1. **Query entities.** Named entities of the question: by the LLM (JSON NER prompt) when one is
   configured; in ``none`` mode the capitalized-name mentions and years of the question (the same
   mention rules as the rule-based triple extractor). With no entity at all, the whole question is
   used as the one "entity" (recorded as a fallback).
2. **Linking.** Each query entity is linked to its most similar KG node by embedding cosine in the
   node index (HippoRAG links each query NE to the nearest phrase node with the retrieval
   encoder).
3. **Personalization.** Each linked node gets weight ``1 / |passages(v)|`` (HippoRAG's *node
   specificity*, an IDF signal computed from provenance, ``node_specificity=True``), summed when
   several entities link to the same node, then normalized.
4. **PPR** on the undirected entity graph: relation edges with weight 1 per distinct linked pair,
   plus, optionally, HippoRAG's synonymy edges between entity names whose embedding cosine is at
   least ``synonym_threshold`` (weight = cosine). Damping (probability of following an edge)
   0.5, HippoRAG's setting; personalization doubles as the restart *and* the dangling
   distribution, as in ``networkx.pagerank``.
5. **Passage scores** are the sums of the PPR probabilities of the entities each passage
   contains (HippoRAG multiplies the passage × node incidence matrix by the node probabilities).
   Passages the walk never reaches score 0 and are ordered after the reached ones by dense
   similarity (the paper leaves ties open).

On a **corpus graph** (nodes are passages, FastInsight §2.1) there are no entities: following the
FastInsight authors' adaptation of HippoRAG 2 to corpus graphs, the seeds are the
``corpus_seeds`` passages most similar to the question (weighted by their cosine, clipped at 0)
and PPR runs on the reference graph; a passage's score is its own PPR probability.

On a **graph store** (FalkorDB) the whole graph is not in this process: PPR then runs on
the region within ``region_hops`` (default 3) hops of the seed entities, capped at
``region_max_nodes`` nodes, read from the store — the trace's ``ppr_region`` step says so, and
``benchmarks/ppr_region_recall.py`` measures the recall this costs against whole-graph PPR. The same
``region_hops`` on an in-memory workspace gives the identical region (and ranking).

The power iteration (:func:`~core.methods.baselines.ppr_walk.personalized_pagerank`) is scipy sparse
and is tested against ``networkx.pagerank`` with the same personalization.

What PPR would hand over as KG nodes (its result's ``node_ranking``, scored node by node as FastInsight §4.3.1
scores HippoRAG 2 in Table 3) are the entities the walk scored highest: the trace's top nodes with a positive
probability, best first. On a corpus graph the walk ranks passages, so there is none (and the note says why).

================  =========================================================================
module            job
================  =========================================================================
``ppr``           :func:`run`: the method end to end, traced
``ppr_entities``  step 1: the question's entities (LLM NER, mention rules, whole question)
``ppr_seeds``     steps 2-3 and what is walked: linked seeds on the entity graph or its
                  region, or seed passages on the corpus graph
``ppr_graph``     the entity graph with synonymy edges, passage × entity incidence
``ppr_walk``      step 4: the personalized PageRank itself
================  =========================================================================
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np

from core.errors import EmptyGraphError
from core.graph.reader import GraphLike, whole_graph_read
from core.methods.answering import record_answer
from core.methods.base import Backends, RankedChunk
from core.methods.baselines.common import BaselineResult
from core.methods.baselines.config import PPRConfig
from core.methods.baselines.ppr_seeds import SeedLink, corpus_seeds, kg_seeds, node_names
from core.methods.baselines.ppr_walk import personalized_pagerank
from core.methods.kg_nodes import no_kg_nodes_reason
from core.methods.passages import PassageSource
from core.methods.run_start import begin_run
from core.pinning import pin, pin_search

if TYPE_CHECKING:
    from core.index.workspace import Workspace


def run(query: str, workspace: Workspace, *, config: PPRConfig | None = None, backends: Backends) -> BaselineResult:
    """Retrieve passages with HippoRAG (v1) personalized PageRank (HippoRAG §3.2).

    Parameters
    ----------
    query : str
    workspace : Workspace
        KG workspaces use the entity graph; corpus graphs the passage graph.
    config : PPRConfig or None
    backends : Backends
        ``embedder`` links entities (node index) and seeds corpus graphs (chunk index); ``llm``
        extracts query entities when available and writes the answer.

    Returns
    -------
    BaselineResult
        ``details`` holds the seeds, iterations and whether the walk converged.

    Raises
    ------
    QueryError, EmptyGraphError, ConfigError
    """
    start = begin_run("ppr", query, workspace, config, PPRConfig, backends)
    cfg, trace = start.config, start.trace
    source = PassageSource(workspace)  # the question's graph: in memory, or a graph store's read-through view
    if source.n_chunks == 0:
        raise EmptyGraphError(f"Workspace {workspace.name!r} has no passages to retrieve; upload a corpus.")
    chunk_index = workspace.index("chunks", backends.embedder)
    q = backends.embed_query(query)
    dense = chunk_index.scores(q).astype(np.float64)  # seeds (corpus) and tie order: both pinned where decided
    corpus = source.kind == "corpus_graph" or source.graph.n_nodes == 0 or source.graph.n_edges == 0
    if corpus and whole_graph_read(workspace):
        trace.add("store", "Passage graph read from the graph store", {"store": whole_graph_read(workspace)},
                  fallback="PPR on a corpus graph walks the whole passage graph, so it is read from the store "
                           "once (only a KG's PPR runs on a region)")
    rows: np.ndarray | None = None  # global node of each adjacency row (None: all, in order)
    if corpus:
        seeds, adjacency, incidence = corpus_seeds(trace, workspace, cfg, dense)
    else:
        seeds, adjacency, incidence, rows = kg_seeds(trace, workspace, source.graph, cfg, query, backends)
    with trace.timed("ppr", "Personalized PageRank", section="HippoRAG §3.2") as step:
        pers = np.zeros(adjacency.shape[0])
        for s in seeds:
            pers[s.node if rows is None else int(np.searchsorted(rows, s.node))] += s.weight
        res = personalized_pagerank(adjacency, pers, damping=cfg.damping, tol=cfg.tol, max_iter=cfg.max_iter)
        top = np.argsort(-res.scores, kind="stable")[:15]
        top_scores, top = pin_search("ppr.walk.top_nodes", res.scores[top], top)
        top_global = [int(v if rows is None else rows[v]) for v in top]  # graph node (KG) or passage row
        top_names = source.ids(top_global) if corpus else node_names(source.graph, top_global)
        step.data = {"damping": cfg.damping, "iterations": res.iterations, "converged": res.converged,
                     "nodes": int(adjacency.shape[0]), "edges": int(adjacency.nnz // 2),
                     "top_nodes": [{"node": name, "score": float(s)} for name, s in zip(top_names, top_scores)]}
        if not corpus and cfg.synonym_threshold is not None:
            step.data["synonym_edges_walked"] = _synonyms_walked(workspace, source.graph, backends, seeds, top_global,
                                                                 cfg.synonym_threshold)
        if not res.converged:
            step.fallback = f"the power iteration did not converge in {cfg.max_iter} iterations; scores are approximate"
    with trace.timed("passage_scores", "Passage scores from entity scores", section="HippoRAG §3.2") as step:
        scores = res.scores if incidence is None else np.asarray(incidence @ res.scores).reshape(-1)
        order = np.lexsort((np.arange(scores.size), -dense, -scores))
        kept, keep = pin_search("ppr.passages.top", scores[order[:cfg.top_k]], order[:cfg.top_k])
        ranked = tuple(RankedChunk(c, float(x)) for c, x in zip(source.ids(keep.tolist()), kept))
        reached = int((scores > 0).sum())
        step.data = {"how": "own PPR probability (corpus graph)" if incidence is None else
                     "sum of the PPR probabilities of the entities in each passage",
                     "passages_reached": reached, "chunk_ids": [c.chunk_id for c in ranked],
                     "scores": [c.score for c in ranked]}
        if reached < cfg.top_k:
            step.fallback = (f"the walk reached only {reached} passages; the rest of the top-{cfg.top_k} is "
                             "ordered by dense similarity")
    passages = source.passages(ranked)
    ans = record_answer(trace, query, passages, backends, max_passages=cfg.answer_passages,
                        evidence_format=cfg.evidence_format,
                        evidence=source.evidence_for(query, backends.llm),
                        max_tokens=cfg.answer_tokens, budget=cfg.answer_budget)
    details = {"seeds": [asdict(s) for s in seeds], "iterations": res.iterations, "converged": res.converged,
               "graph": "corpus graph" if corpus else "entity graph"}
    # the pinned top nodes, so a replay hands over the recorded ones; a node the walk never reached is no ranking
    nodes = () if corpus else tuple(v for v, s in zip(top_global, top_scores.tolist()) if s > 0)
    note = "" if nodes else (no_kg_nodes_reason(workspace) or (
        "the KG has no edges, so PPR walked the passage graph and ranked no KG node" if corpus
        else "the walk gave no KG node a positive score"))
    return BaselineResult("ppr", query, ranked, ans.text, trace, details=details, node_ranking=nodes,
                          node_ranking_note=note)


def _synonyms_walked(workspace: Workspace, graph: GraphLike, backends: Backends, seeds: list[SeedLink],
                     top: list[int], threshold: float, per_seed: int = 8) -> list[dict[str, object]]:
    """The synonymy edges that carried the walk: those leaving a seed node (the walk
    restarts there) and those joining two of the top-scored nodes (``top``: graph node indices),
    with their cosine."""
    vecs = workspace.index("nodes", backends.embedder).vectors
    out: dict[tuple[int, int], float] = {}
    seed_ids = sorted({s.node for s in seeds})
    if seed_ids:
        sims = vecs[seed_ids] @ vecs.T
        for row, v in zip(sims, seed_ids):
            near = np.argsort(-row, kind="stable")[:per_seed + 1]
            near_sims, near = pin_search("ppr.synonyms.seed_neighbours", row[near], near, key=str(v))
            for u, s in zip(near.tolist(), near_sims.tolist()):
                if u != v and s >= threshold:
                    out[(min(v, u), max(v, u))] = float(s)
    tops = [int(v) for v in top]
    if tops:
        sims = pin("ppr.synonyms.top_pairs", vecs[tops] @ vecs[tops].T, ids=tops)
        for a in range(len(tops)):
            for b in range(a + 1, len(tops)):
                if sims[a, b] >= threshold:
                    out[(min(tops[a], tops[b]), max(tops[a], tops[b]))] = float(sims[a, b])
    pairs = sorted(out.items(), key=lambda kv: -kv[1])[:20]
    ends = sorted({v for (a, b), _ in pairs for v in (a, b)})
    name = dict(zip(ends, node_names(graph, ends)))
    return [{"a": name[a], "b": name[b], "cosine": round(c, 3)} for (a, b), c in pairs]
