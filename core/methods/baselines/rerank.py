"""Retrieve-then-rerank, the Re2 baseline (FastInsight §3.1.3 Example 3 and §4.1.1).

``O_vs`` retrieves the top-``candidates`` passages (paper: 100) by vector similarity, then the
reranker (``O_m``) scores each (query, passage) pair as ``head(features(q, p))`` and the best
``top_k`` are kept. This is exactly GRanker with α = 0 on the same candidates (a test checks it).

With ``node_level`` Re2 also runs on the KG's nodes, as FastInsight's Table 3 runs it on its KG corpora
(§4.3.1): vector search over the node texts and vectors FastInsight searches (:mod:`core.methods.kg_nodes`)
proposes the top-``candidates`` nodes, the reranker scores each (query, node text) pair, and the best ``top_k``
are the result's ``node_ranking``. The passages retrieved do not change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.backends.base import Reranker
from core.errors import EmptyGraphError
from core.methods.answering import record_answer
from core.methods.base import Backends, RankedChunk
from core.methods.baselines.common import (
    NODE_LEVEL_OFF,
    BaselineResult,
    NodeSearch,
    node_names_of,
    search_nodes,
)
from core.methods.baselines.config import RerankConfig
from core.methods.baselines.stages import RerankData
from core.methods.kg_nodes import texts_of_nodes
from core.methods.passages import PassageSource
from core.methods.reranking import FeatureCache, index_feature_source, rank_order
from core.methods.run_start import begin_run
from core.pinning import pin, pin_search
from core.trace import Trace

if TYPE_CHECKING:
    from core.index.workspace import Workspace


def rerank_scores(query: str, passages: list[str], reranker: Reranker, *, features: FeatureCache | None = None,
                  nodes: np.ndarray | None = None) -> np.ndarray:
    """Plain reranking scores ``head(features(q, p))`` (``O_m``, FastInsight Definition 4)."""
    h = features.get(nodes) if features is not None and nodes is not None else reranker.features(query, passages)
    return np.asarray(reranker.head(h), dtype=np.float64).reshape(-1) if len(h) else np.zeros(0)


def run(query: str, workspace: Workspace, *, config: RerankConfig | None = None, backends: Backends) -> BaselineResult:
    """Retrieve ``candidates`` passages by vector search, rerank them, keep ``top_k`` (Re2).

    Parameters
    ----------
    query : str
    workspace : Workspace
    config : RerankConfig or None
    backends : Backends
        ``reranker`` scores the candidates; when None the bi-encoder stand-in over ``embedder``
        is used (recorded as a fallback).

    Returns
    -------
    BaselineResult
        ``reranker`` names the reranker in use; ``details["vector_rank"]`` maps every kept chunk
        to its rank before reranking. With ``config.node_level`` on a KG, ``node_ranking`` holds the
        ``top_k`` reranked KG nodes (else it is empty and ``node_ranking_note`` says why).

    Raises
    ------
    QueryError, EmptyGraphError, ConfigError
    """
    start = begin_run("rerank", query, workspace, config, RerankConfig, backends, reranker=True)
    cfg, trace, reranker = start.config, start.trace, start.reranker
    assert reranker is not None  # asked for: the configured one or the stand-in
    source = PassageSource(workspace)  # the graph in memory, or row reads from a graph store (never loaded whole)
    if source.n_chunks == 0:
        raise EmptyGraphError(f"Workspace {workspace.name!r} has no passages to retrieve; upload a corpus.")
    index = workspace.index("chunks", backends.embedder)
    with trace.timed("vector_search", f"Top-{cfg.candidates} candidates by cosine similarity",
                     section="FastInsight §3.1.3 Example 3 (O_vs)") as step:
        q = backends.embed_query(query)
        vs, ids = pin_search("rerank.vector_search", *index.search(q, cfg.candidates))
        ids = ids[0].astype(np.int64)
        cand_ids = source.ids(ids.tolist())
        step.data = {"chunk_ids": cand_ids, "scores": np.round(vs[0], 6)}
    with trace.timed("rerank", f"Rerank {ids.size} candidates with {reranker.name}",
                     section="FastInsight §3.1.3 Example 3 (O_m)") as step:
        texts = source.texts(ids.tolist())
        passages = [texts[int(i)] for i in ids]
        features = index_feature_source(reranker, workspace.meta.index_model_id,
                                        index.vectors, query)
        cache = FeatureCache(reranker, query, texts, precomputed=features)  # type: ignore[arg-type]
        scores = pin("rerank.rerank.scores", rerank_scores(query, passages, reranker, features=cache, nodes=ids), ids=ids)
        order = rank_order(scores)
        keep = order[:cfg.top_k]
        ranked = tuple(RankedChunk(cand_ids[int(i)], float(scores[i])) for i in keep)
        vector_rank = {cand_ids[int(i)]: int(i) + 1 for i in keep}
        step.data = RerankData(reranker.name, reranker.model_id, reranker.linear_head, reranker.description,
                               features is not None, [cand_ids[int(i)] for i in order],
                               np.round(scores[order], 6).tolist(), [int(i) + 1 for i in order]).data()
    nodes: tuple[int, ...] = ()
    note = NODE_LEVEL_OFF
    if cfg.node_level:
        found = search_nodes(trace, workspace, backends, q, cfg.candidates)
        if isinstance(found, str):
            note = found
        else:
            nodes, note = rerank_nodes(trace, query, found, reranker, workspace, cfg.top_k), ""
    top = source.passages(ranked)
    ans = record_answer(trace, query, top, backends, max_passages=cfg.answer_passages,
                        evidence_format=cfg.evidence_format,
                        evidence=source.evidence_for(query, backends.llm),
                        max_tokens=cfg.answer_tokens, budget=cfg.answer_budget)
    return BaselineResult("rerank", query, ranked, ans.text, trace, f"{reranker.name} ({reranker.model_id})",
                          reranker.description, {"vector_rank": vector_rank, "candidates": int(ids.size)},
                          node_ranking=nodes, node_ranking_note=note)


def rerank_nodes(trace: Trace, query: str, found: NodeSearch, reranker: Reranker, workspace: Workspace,
                 top_k: int) -> tuple[int, ...]:
    """Re2 on KG nodes (FastInsight §4.1.1 on its KG corpora, §4.3.1): the reranker scores the node texts of the
    vector search's candidates and the best ``top_k`` node rows are kept, traced as ``node_rerank``. Not pinned
    for replay: no prompt reads the node ranking."""
    with trace.timed("node_rerank", f"Rerank {found.nodes.size} candidate KG nodes with {reranker.name} (node level)",
                     section="FastInsight §4.3.1 (node level), §3.1.3 Example 3 (O_m)") as step:
        rows = found.nodes.tolist()
        texts = texts_of_nodes(found.graph, rows)
        features = index_feature_source(reranker, workspace.meta.index_model_id, found.index.vectors, query)
        cache = FeatureCache(reranker, query, dict(zip(rows, texts)), precomputed=features)  # type: ignore[arg-type]
        scores = rerank_scores(query, texts, reranker, features=cache, nodes=found.nodes)
        order = rank_order(scores)
        keep = [rows[int(i)] for i in order[:top_k]]
        step.data = {"reranker": reranker.name, "nodes": keep, "names": node_names_of(found.graph, keep),
                     "scores": np.round(scores[order[:top_k]], 6), "vector_rank": [int(i) + 1 for i in order[:top_k]]}
    return tuple(keep)
