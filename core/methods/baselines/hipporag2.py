"""HippoRAG 2 (Gutiérrez, Shu, Qi, Zhou and Su 2025, "From RAG to Memory: Non-Parametric Continual Learning for
Large Language Models", arXiv:2502.14802, §3), the baseline BubbleRAG (Table 2) and FastInsight (Table 3)
compare against, written after its released code (OSU-NLP-Group/HippoRAG, ``src/hipporag/HippoRAG.py``:
``retrieve``, ``get_fact_scores``, ``rerank_facts``, ``graph_search_with_fact_entities``, ``run_ppr``,
``dense_passage_retrieval``) and with its defaults (``utils/config_utils.py``).

Online retrieval, one traced step each:

1. **Query-to-triple linking** (``fact_linking``): every fact (KG edge, its ``head relation tail`` text in the
   workspace's edge index) scored against the question, min-max normalised, the ``linking_top_k`` (5) best kept
   (:mod:`~core.methods.baselines.hipporag2_linking`).
2. **Recognition memory** (``recognition_memory``): the LLM keeps the relevant linked facts; without an LLM, or
   with an unusable reply, the facts stay unfiltered (a stated fallback). When the LLM keeps none, HippoRAG 2
   returns **dense passage retrieval** (the code's rule; step ``dense_fallback``), as it does when there is no
   fact at all (a corpus graph, a KG without edges).
3. **Graph** (``graph``): phrase nodes joined by fact and synonym edges (cosine ≥ 0.8, the workspace's synonymy
   pairs that ``ppr`` keeps too) and one passage node per passage joined to the phrases it contains
   (:mod:`~core.methods.baselines.hipporag2_graph`: the code's weights), built once per graph and embedder. On a
   graph store (or with ``region_hops``) the walk covers the region within ``region_hops`` (3) of the phrase
   seeds, and the step says so.
4. **Seeds** (``seeds``): phrase seeds from the kept facts (score / passages of the phrase, averaged, top
   ``linking_top_k``), passage seeds = min-max dense score × ``passage_node_weight`` (0.05)
   (:mod:`~core.methods.baselines.hipporag2_seeds`).
5. **PPR** (``ppr``): personalized PageRank with damping 0.5 over the joint graph, personalization = the seeds
   (:func:`~core.methods.baselines.ppr_walk.personalized_pagerank`, the same fixed point as igraph's and
   networkx's); the step records where the mass went (phrase nodes vs passage nodes, the top nodes of each).
6. **Passage ranking** (``passage_ranking``): passages by their passage node's PPR score (ties: dense score),
   the ``top_k`` (200) returned and ``answer_passages`` (5, the code's ``qa_top_k``) given to the shared answer
   step.

Every score-driven decision — the linked facts, the phrases of the walk's ranking, the passage ranking — is pinned
(:mod:`core.pinning`), so a recorded run replays the same on any CPU.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.errors import EmptyGraphError
from core.graph.reader import GraphLike, read_ahead, read_region, store_url, whole_graph
from core.graph.synonyms import synonym_pairs
from core.methods.answering import record_answer
from core.methods.base import Backends, RankedChunk, RunResult
from core.methods.baselines.common import NO_RERANKER
from core.methods.baselines.hipporag2_config import HippoRAG2Config
from core.methods.baselines.hipporag2_graph import WEIGHTS, JointGraph, joint_graph
from core.methods.baselines.hipporag2_linking import LinkedFact, link_facts, min_max, recognize
from core.methods.baselines.hipporag2_seeds import PhraseSeed, passage_seeds, phrase_seeds
from core.methods.baselines.hipporag2_stages import (
    DenseFallbackData,
    JointGraphData,
    RecognitionData,
    SeedsData,
    WalkData,
)
from core.methods.baselines.ppr_graph import passage_incidence, region_incidence
from core.methods.baselines.ppr_seeds import REMOTE_REGION_HOPS
from core.methods.baselines.ppr_synonyms import workspace_synonyms
from core.methods.baselines.ppr_walk import personalized_pagerank
from core.methods.passages import PassageSource
from core.methods.run_start import begin_run
from core.pinning import pin_search
from core.trace import Trace

if TYPE_CHECKING:
    from core.index.workspace import Workspace

METHOD = "hipporag2"
#: Phrase nodes kept in :attr:`HippoRAG2Result.node_ranking` (those the walk reached, best first).
NODE_RANKING_SIZE = 100
#: Nodes of each kind the ``ppr`` step lists.
TOP_NODES = 10


@dataclass(frozen=True, eq=False)
class HippoRAG2Result(RunResult):
    """A HippoRAG 2 run: the method contract plus every intermediate its page shows."""

    linked: tuple[LinkedFact, ...] = ()  #: facts linked to the question, best first
    kept: tuple[LinkedFact, ...] = ()  #: the facts recognition memory kept (or all linked ones, unfiltered)
    recognition: RecognitionData | None = None
    phrase_seeds: tuple[PhraseSeed, ...] = ()  #: phrase seeds with weight, best first
    seeds: SeedsData | None = None
    walked_graph: JointGraphData | None = None  #: what the walk ran on (the whole graph, or a region)
    walk: WalkData | None = None
    dense_fallback: DenseFallbackData | None = None  #: set when HippoRAG 2 returned dense retrieval instead
    #: global KG nodes of the phrase nodes the walk reached, highest PPR score first (at most 100)
    node_ranking: tuple[int, ...] = ()
    reranker: str = NO_RERANKER

    @property
    def evidence_nodes(self) -> tuple[int, ...]:
        """The phrase seeds (what the Compare page overlays on the graph)."""
        return tuple(s.node for s in self.phrase_seeds)


def run(query: str, workspace: Workspace, *, config: HippoRAG2Config | None = None,
        backends: Backends) -> HippoRAG2Result:
    """Retrieve passages with HippoRAG 2 (Gutiérrez et al. 2025, §3.2; module docstring for the steps).

    Parameters
    ----------
    query : str
    workspace : Workspace
        Its edge index links facts, its chunk index gives the dense scores, its graph is walked.
    config : HippoRAG2Config or None
        None: the released code's defaults.
    backends : Backends
        ``embedder`` for the question; ``llm`` for recognition memory and the answer (``none`` mode: the
        linked facts unfiltered and an extractive answer, both said in the trace).

    Returns
    -------
    HippoRAG2Result

    Raises
    ------
    QueryError
        If the question is empty.
    EmptyGraphError
        If the workspace has no passages.
    ConfigError
        If ``config`` is not a :class:`HippoRAG2Config`.
    """
    start = begin_run(METHOD, query, workspace, config, HippoRAG2Config, backends)
    cfg, trace = start.config, start.trace
    source = PassageSource(workspace)
    if source.n_chunks == 0:
        raise EmptyGraphError(f"Workspace {workspace.name!r} has no passages to retrieve; upload a corpus.")
    q = backends.embed_query(query)
    dense = workspace.index("chunks", backends.embedder).scores(q).astype(np.float64)
    graph = source.graph
    linked: tuple[LinkedFact, ...] = ()
    kept: tuple[LinkedFact, ...] = ()
    recognition: RecognitionData | None = None
    search = _GraphSearch()
    if graph.kind == "corpus_graph" or graph.n_nodes == 0 or graph.n_edges == 0:
        why = ("this workspace is a corpus graph: it has passages but no facts to link" if graph.kind == "corpus_graph"
               else "this KG has no edges, so there are no facts to link")
        ranked = _dense(trace, source, dense, cfg, f"{why}; HippoRAG 2 returns dense passage retrieval")
    else:
        linked = link_facts(trace, workspace, graph, cfg, backends, q)
        kept, recognition = recognize(trace, query, linked, cfg, backends.llm)
        if not kept:
            ranked = _dense(trace, source, dense, cfg, "recognition memory kept no linked fact; HippoRAG 2 then "
                                                       "returns dense passage retrieval (its code's rule)")
        else:
            search = _graph_search(trace, workspace, source, graph, cfg, backends, kept, dense)
            ranked = search.ranked
    fallback = DenseFallbackData.of(trace)
    passages = source.passages(ranked)
    ans = record_answer(trace, query, passages, backends, max_passages=cfg.answer_passages,
                        evidence_format=cfg.evidence_format,
                        evidence=source.evidence_for(query, backends.llm),
                        max_tokens=cfg.answer_tokens, budget=cfg.answer_budget)
    return HippoRAG2Result(METHOD, query, ranked, ans.text, trace, linked, kept, recognition, search.phrase_seeds,
                           search.seeds, search.walked_graph, search.walk, fallback, search.node_ranking)


@dataclass(frozen=True)
class _GraphSearch:
    """What steps 3-6 produce (empty when HippoRAG 2 took its dense fallback first)."""

    ranked: tuple[RankedChunk, ...] = ()
    phrase_seeds: tuple[PhraseSeed, ...] = ()
    seeds: SeedsData | None = None
    walked_graph: JointGraphData | None = None
    walk: WalkData | None = None
    node_ranking: tuple[int, ...] = ()


def _dense(trace: Trace, source: PassageSource, dense: np.ndarray, cfg: HippoRAG2Config,
           why: str) -> tuple[RankedChunk, ...]:
    """HippoRAG 2's ``dense_passage_retrieval``: passages by min-max-normalised cosine, recorded as the stated
    fallback it is."""
    with trace.timed(DenseFallbackData.STAGE, "Dense passage retrieval (HippoRAG 2's fallback)",
                     section="HippoRAG 2 §3.2 (code: retrieve)") as step:
        score = min_max(dense)
        order = np.lexsort((np.arange(score.size), -score))[:cfg.top_k]
        kept, order = pin_search("hipporag2.dense.top", score[order], order)
        ranked = tuple(RankedChunk(c, float(s)) for c, s in zip(source.ids(order.tolist()), kept))
        step.data = DenseFallbackData(why, [c.chunk_id for c in ranked], [c.score for c in ranked]).data()
        step.fallback = why
    return ranked


def _graph_search(trace: Trace, workspace: Workspace, source: PassageSource, graph: GraphLike,
                  cfg: HippoRAG2Config, backends: Backends, kept: tuple[LinkedFact, ...],
                  dense: np.ndarray) -> _GraphSearch:
    """Graph, seeds, PPR and passage ranking (steps 3-6 of the module docstring)."""
    endpoints = sorted({v for f in kept for v in (f.head, f.tail)})
    jg, graph_data = _joint_graph(trace, workspace, graph, cfg, backends, endpoints)
    n_p = jg.n_phrases
    with trace.timed(SeedsData.STAGE, "Seeds: phrases of the kept facts, and every passage by dense score",
                     section="HippoRAG 2 §3.2 (code: graph_search_with_fact_entities)") as step:
        top, dropped = phrase_seeds(kept, lambda v: int(jg.passages_per_phrase[jg.phrase_row(v)]), cfg.linking_top_k)
        p_seed = passage_seeds(dense, cfg.passage_node_weight)
        pers = np.zeros(n_p + jg.n_passages)
        for s in top:
            pers[jg.phrase_row(s.node)] += s.weight
        pers[n_p:] = p_seed
        heavy = np.lexsort((np.arange(p_seed.size), -p_seed))[:TOP_NODES]
        seeds = SeedsData([s.row() for s in top], [s.row() for s in dropped], cfg.passage_node_weight,
                          float(p_seed.sum()), float(sum(s.weight for s in top)),
                          [{"chunk_id": c, "title": t, "weight": float(p_seed[r])}
                           for r, (c, t, _) in zip(heavy.tolist(), source.rows(heavy.tolist()))])
        step.data = seeds.data()
    if pers.sum() <= 0:  # every seed weighs 0 (passage node weight 0 and phrase scores 0): nothing to walk from
        ranked = _dense(trace, source, dense, cfg, "the seeds carry no weight (passage node weight 0 and phrase "
                                                   "seeds scored 0); HippoRAG 2 returns dense passage retrieval")
        return _GraphSearch(ranked, top, seeds, graph_data)
    with trace.timed(WalkData.STAGE, "Personalized PageRank over phrases and passages",
                     section="HippoRAG 2 §3.2 (code: run_ppr)") as step:
        res = personalized_pagerank(jg.adjacency, pers, damping=cfg.damping, tol=cfg.tol, max_iter=cfg.max_iter)
        phrase, passage = res.scores[:n_p], res.scores[n_p:]
        reached = np.lexsort((np.arange(n_p), -phrase))[:NODE_RANKING_SIZE]
        reached = reached[phrase[reached] > 0]
        node_scores, reached = pin_search("hipporag2.walk.phrases", phrase[reached], reached)
        ranking = tuple(jg.phrase_node(int(r)) for r in reached)
        read_ahead(graph, names=ranking[:TOP_NODES])
        # passages by PPR score, ties by dense score then row: the order the ranking step cuts (and pins)
        order = np.lexsort((np.arange(passage.size), -dense, -passage))
        shown = order[:TOP_NODES].tolist()
        walk = WalkData(cfg.damping, res.iterations, res.converged, int(jg.adjacency.shape[0]),
                        int(jg.adjacency.nnz // 2), float(phrase.sum()), float(passage.sum()),
                        [{"node": v, "name": graph.node_names[v], "score": float(s)}
                         for v, s in zip(ranking[:TOP_NODES], node_scores[:TOP_NODES])],
                        [{"chunk_id": c, "title": t, "score": float(passage[r])}
                         for r, (c, t, _) in zip(shown, source.rows(shown))])
        step.data = walk.data()
        if not res.converged:
            step.fallback = f"the power iteration did not converge in {cfg.max_iter} iterations; scores are approximate"
    with trace.timed("passage_ranking", "Passages by the PPR score of their passage node",
                     section="HippoRAG 2 §3.2 (code: run_ppr)") as step:
        scores, top_rows = pin_search("hipporag2.passages.top", passage[order[:cfg.top_k]], order[:cfg.top_k])
        ranked = tuple(RankedChunk(c, float(x)) for c, x in zip(source.ids(top_rows.tolist()), scores))
        step.data = {"chunk_ids": [c.chunk_id for c in ranked], "scores": [c.score for c in ranked]}
    return _GraphSearch(ranked, top, seeds, graph_data, walk, ranking)


def _joint_graph(trace: Trace, workspace: Workspace, graph: GraphLike, cfg: HippoRAG2Config, backends: Backends,
                 seeds: list[int]) -> tuple[JointGraph, JointGraphData]:
    """The walked graph: the whole graph's, built once per graph and embedder and kept on the graph, or (a graph
    store, or ``region_hops``) the region around ``seeds`` (global nodes), recorded as the ``graph`` step."""
    whole = whole_graph(graph)
    hops = cfg.region_hops if cfg.region_hops is not None else (None if whole is not None else REMOTE_REGION_HOPS)
    thr = cfg.synonym_threshold
    with trace.timed(JointGraphData.STAGE, "Graph: phrases, facts, synonyms and passages",
                     section="HippoRAG 2 §3.1") as step:
        t0 = time.perf_counter()
        region_info: dict[str, object] | None = None
        if hops is None:
            assert whole is not None
            found = []

            def build() -> JointGraph:
                syn = None
                if thr is not None:  # the workspace keeps the pairs (the methods' shared preparation found them)
                    found.append(workspace_synonyms(workspace, backends.embedder, thr))
                    syn = (found[0].pairs, found[0].sims)
                return joint_graph(whole, whole.derived("ppr.incidence", lambda: passage_incidence(whole)),
                                   synonyms=syn)

            jg = whole.derived(("hipporag2.joint_graph", thr, backends.embedder.model_id), build)
            how = ("off" if thr is None else "in this process's memory" if not found else
                   f"found now ({found[0].seconds:.1f} s) and kept in the workspace" if found[0].built
                   else "read from the workspace")
            if found and found[0].note:
                step.fallback = found[0].note
        else:
            region = read_region(graph, seeds, hops=hops, max_nodes=cfg.region_max_nodes, with_chunks=whole is None)
            incidence = (region_incidence(region.graph, graph) if whole is None else
                         whole.derived("ppr.incidence", lambda: passage_incidence(whole))[:, region.nodes])
            syn = None
            if thr is not None:
                vectors = workspace.index("nodes", backends.embedder).vectors[region.nodes]
                syn = synonym_pairs(vectors, thr)
            jg = joint_graph(region.graph, incidence, synonyms=syn, phrases=region.nodes)
            how = "off" if thr is None else "found among the region's phrases"
            region_info = {"store": store_url(graph), "hops": region.hops, "hops_requested": hops,
                           "capped": region.capped, "of_phrases": graph.n_nodes}
            step.fallback = (f"the walk covers the {region.nodes.size} phrases within {region.hops} hops of the phrase "
                             "seeds" + (f" (capped at {cfg.region_max_nodes})" if region.capped else "")
                             + ("" if whole is not None else ", read from the graph store")
                             + ", not the whole graph; every passage keeps its passage node, but one whose phrases "
                               "all lie outside the region has only its dense seed")
        data = JointGraphData(jg.n_phrases, jg.n_passages, jg.fact_pairs, jg.passage_edges, jg.synonym_edges, thr,
                              how, time.perf_counter() - t0, WEIGHTS, region_info)
        step.data = data.data()
    return jg, data


__all__ = ["METHOD", "HippoRAG2Result", "run"]
