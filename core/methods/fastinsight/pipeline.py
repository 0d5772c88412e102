"""FastInsight end to end (FastInsight §3, Algorithms 1-3): vector search, then GRanker and STeX in
turns until the node budget is spent, every round traced, then the answer.

=======================  ==========================  =====================================
stage                    module                      paper
=======================  ==========================  =====================================
passage graph            passage_graph.py            §2.1 (Definition 1); derived for KGs
initial vector search    loop.py                     §3.2, Algorithm 1 line 1 (``O_vs``)
GRanker                  granker.py                  §3.3, Algorithm 2 (``O_gm``)
STeX                     stex.py                     §3.4, Algorithm 3 (``O_vgs``)
the loop                 loop.py                     §3.2, Algorithm 1
answer                   core/methods/answering.py   (every passage method's answer step)
=======================  ==========================  =====================================
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from core.errors import ConfigError, QueryError, WorkspaceError
from core.methods.answering import record_answer
from core.methods.base import Backends, RankedChunk
from core.methods.fastinsight.config import FastInsightConfig
from core.methods.fastinsight.loop import FastInsightResult, FastInsightRound, iter_fastinsight
from core.methods.fastinsight.passage_graph import PassageGraph, passage_graph
from core.methods.reg.evidence import passage_evidence
from core.methods.reranking import FeatureCache, index_feature_source, resolve_reranker
from core.trace import Trace

if TYPE_CHECKING:
    from core.index.workspace import Workspace


@dataclass(frozen=True, eq=False)
class FastInsightRun:
    """What :func:`run` returns: the method contract plus the engine result for replay."""

    method: str
    query: str
    ranked_chunks: tuple[RankedChunk, ...]
    answer: str
    trace: Trace
    reranker: str  #: registry name and model id of the reranker in use
    reranker_description: str  #: what it is and what that implies (feature vs score smoothing)
    linear_head: bool
    engine: FastInsightResult
    retrieved: tuple[str, ...]  #: the whole final N_ret (chunk ids, best first)
    config: FastInsightConfig


def _chunk_ids(pg: PassageGraph, nodes: np.ndarray) -> list[str]:
    return [pg.chunk_ids[int(v)] for v in nodes]


def _record_round(trace: Trace, pg: PassageGraph, rnd: FastInsightRound) -> None:
    g = rnd.granker
    if rnd.index == 0:
        trace.add("vector_search", f"Initial O_vs: top-{rnd.added.size} passages by dot product",
                  {"chunk_ids": _chunk_ids(pg, rnd.added), "scores": np.round(rnd.added_scores, 6)},
                  section="FastInsight §3.2 (Algorithm 1 line 1)")
    else:
        p = rnd.proposed
        assert p is not None
        shown = min(len(p), 30)
        trace.add("stex", f"Round {rnd.index}: STeX proposed {len(p)}, added {rnd.added.size}", {
            "round": rnd.index, "proposed": len(p), "r_max": p.r_max, "beta": p.beta,
            "top_proposals": [{"chunk_id": pg.chunk_ids[int(p.candidates[i])], "score": p.scores[i],
                               "i_sim": p.i_sim[i], "i_struct": p.i_struct[i], "rank_term": p.rank_term[i],
                               "bridge_term": p.bridge_term[i], "r_best": p.r_best[i],
                               "adjacent": p.n_adjacent[i], "c_max": p.c_max[i]} for i in range(shown)],
            "added": _chunk_ids(pg, rnd.added)},
            seconds=rnd.stex_seconds, fallback=rnd.fallback, section="FastInsight §3.4 (Algorithm 3)")
    order = g.order
    trace.add("granker", f"Round {rnd.index}: GRanker over {g.nodes.size} passages (α = {g.alpha:g})", {
        "round": rnd.index, "alpha": g.alpha, "edges_among_retrieved": int(g.adjacency.sum() // 2),
        "isolated_in_subgraph": int((g.adjacency.sum(axis=1) == 0).sum()),
        "ranking": _chunk_ids(pg, g.nodes[order]), "scores": np.round(g.scores[order], 6),
        "plain_ranking": _chunk_ids(pg, g.plain_ranking)},
        seconds=rnd.granker_seconds, section="FastInsight §3.3 (Algorithm 2)")


def run(query: str, workspace: Workspace, *, config: FastInsightConfig | None = None,
        backends: Backends) -> FastInsightRun:
    """Answer ``query`` on ``workspace`` with FastInsight (FastInsight §3, Algorithms 1–3).

    Parameters
    ----------
    query : str
        The question.
    workspace : Workspace
        Any workspace: a corpus graph is used as it is, a KG through its derived passage graph
        (:func:`~core.methods.fastinsight.passage_graph.passage_graph`).
    config : FastInsightConfig or None
        Defaults to the paper's settings.
    backends : Backends
        ``embedder`` gives ``v_q`` and the chunk index ``V``; ``reranker`` is GRanker's encoder and
        head (the bi-encoder stand-in over the embedder when None, recorded as a fallback);
        ``llm`` writes the answer (extractive in ``none`` mode).

    Returns
    -------
    FastInsightRun
        ``ranked_chunks`` holds the top ``config.top_k`` of the final ``N_ret``; ``engine`` every
        round; ``reranker`` / ``reranker_description`` the reranker in use.

    Raises
    ------
    QueryError
        If the query is empty.
    ConfigError
        If ``config`` is not a :class:`FastInsightConfig`.
    EmptyGraphError, WorkspaceError
        If the workspace has no passages or its index does not match the graph.
    """
    cfg = FastInsightConfig() if config is None else config
    if not isinstance(cfg, FastInsightConfig):
        raise ConfigError(f"fastinsight takes a FastInsightConfig, got {type(cfg).__name__}.")
    if not query or not query.strip():
        raise QueryError("The question is empty. Type a question to retrieve passages for.")
    t_start = time.perf_counter()
    reranker, rr_fallback = resolve_reranker(backends)
    trace = Trace("fastinsight", query, workspace.name, config=asdict(cfg),
                  backends={**backends.names(), "reranker": f"{reranker.name} ({reranker.model_id})"})
    if rr_fallback:
        trace.add("reranker", "No reranker configured: using the bi-encoder stand-in", {"reranker": reranker.name},
                  fallback=rr_fallback)

    with trace.timed("passage_graph", "Passage graph", section="FastInsight §2.1") as step:
        pg = passage_graph(workspace.graph, max_entity_passages=cfg.max_entity_passages)
        step.data = {"source": pg.source, "passages": pg.n, "edges": pg.n_edges, "params": pg.params,
                     "isolated_passages": int((pg.degree == 0).sum()),
                     "mean_degree": float(pg.degree.mean()) if pg.n else 0.0,
                     "skipped_hub_entities": list(pg.skipped_entities[:20])}
    index = workspace.index("chunks", backends.embedder)
    vectors = index.vectors
    if vectors.shape[0] != pg.n:
        raise WorkspaceError(f"The chunk index of {workspace.name!r} holds {vectors.shape[0]} passages but the graph "
                             f"has {pg.n}; rebuild the index (`egx index --workspace ... --rebuild`).")
    q = backends.embed_query(query)
    source = index_feature_source(reranker, str(workspace.manifest.get("index", {}).get("model_id", "")), vectors, query)
    cache = FeatureCache(reranker, query, pg.passages, precomputed=source)
    trace.add("reranker", f"Reranker: {reranker.name}", {
        "reranker": reranker.name, "model_id": reranker.model_id, "linear_head": reranker.linear_head,
        "description": reranker.description,
        "features_from_index": source is not None})

    rounds: list[FastInsightRound] = []
    for rnd in iter_fastinsight(pg, query, q, vectors, reranker, batch=cfg.batch, b_max=cfg.b_max,
                                alpha=cfg.alpha, beta=cfg.beta, on_exhausted=cfg.on_exhausted, features=cache):
        rounds.append(rnd)
        _record_round(trace, pg, rnd)
    engine = FastInsightResult(tuple(rounds), {"batch": cfg.batch, "b_max": cfg.b_max, "alpha": cfg.alpha,
                                               "beta": cfg.beta, "on_exhausted": cfg.on_exhausted}, cache.encoded)
    ranking, scores = engine.ranking, engine.scores
    ranked = tuple(RankedChunk(pg.chunk_ids[int(v)], float(s)) for v, s in zip(ranking[:cfg.top_k], scores[:cfg.top_k]))
    trace.add("retrieved", f"{len(ranking)} passages retrieved in {len(rounds)} rounds", {
        "rounds": len(rounds), "retrieved": len(ranking), "reranker_inputs": cache.encoded,
        "seconds": time.perf_counter() - t_start}, section="FastInsight §3.2")
    g = workspace.graph
    top = [(c.chunk_id, g.chunk(c.chunk_id).title, g.chunk(c.chunk_id).text) for c in ranked]
    ans = record_answer(trace, query, top, backends, max_passages=cfg.answer_passages,
                        evidence_format=cfg.evidence_format,
                        evidence=partial(passage_evidence, query, top, g, backends.llm, max_passages=cfg.answer_passages))
    return FastInsightRun("fastinsight", query, ranked, ans.text, trace, f"{reranker.name} ({reranker.model_id})",
                          reranker.description, bool(reranker.linear_head), engine,
                          tuple(pg.chunk_ids[int(v)] for v in ranking), cfg)
