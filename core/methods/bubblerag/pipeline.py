"""BubbleRAG end to end (§3, Figure 2): the five online stages wired together and traced.

========================  ==============================  ==========================
stage                     module                          paper
========================  ==============================  ==========================
pre-retrieval + check     preretrieval.py                 §3.2 ¶2
keywords (+ latent)       keywords.py                     §3.2, Example 3
  (standard NER)          ner_keywords.py                 §4.3 ablation w/o Anchor Specialization
anchor specialization     specialization.py               §3.2, Example 4
schema relaxation         relaxation.py                   §3.2, Example 5
candidates (nodes+edges)  candidates.py                   §3.2
grouping + weights        grouping.py                     §3.2
localized graph G'        localize.py                     §3.3 Phase 1
bubble expansion          expansion.py                    §3.3 Phases 2-3, Alg. 1
CEG ranking               ranking.py                      §3.4, Eqs. 5-6
reasoning-aware expansion reasoning.py                    §3.5
answer                    answer.py                       §3.6
========================  ==============================  ==========================
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.graph.model import KnowledgeGraph
from core.graph.reader import GraphLike, question_graph, read_ahead, whole_graph
from core.index.workspace import Workspace
from core.methods.answering import AnswerContext
from core.methods.base import Backends, RankedChunk
from core.methods.bubblerag.answer import EvidenceAnswer, EvidenceChunk, EvidenceGraph, generate_answer, unify
from core.methods.bubblerag.candidates import Candidates, retrieve_candidates
from core.methods.bubblerag.config import BubbleConfig
from core.methods.bubblerag.expansion import BubbleExpansion, ExpansionFrame, bubble_expansion, iter_bubble_expansion
from core.methods.bubblerag.grouping import AnchorGroups, group_anchors
from core.methods.bubblerag.keywords import Keywords, extract_keywords
from core.methods.bubblerag.localize import LocalGraph, localized_graph
from core.methods.bubblerag.ner_keywords import ner_keywords
from core.methods.bubblerag.preretrieval import PreRetrieval, pre_retrieve
from core.methods.bubblerag.ranking import RankedCEG, first_valid_ceg, rank_cegs
from core.methods.bubblerag.reasoning import ReasoningExpansion, reasoning_expansion
from core.methods.bubblerag.relaxation import Relaxation, relax_schema
from core.methods.bubblerag.specialization import Specialization, specialize_keywords
from core.methods.bubblerag.stages import EarlyExitData
from core.methods.run_start import begin_run
from core.trace import Trace


@dataclass(frozen=True)
class BubbleResult:
    """Everything one BubbleRAG run produced, stage by stage (None for stages an early exit skipped)."""

    query: str
    config: BubbleConfig
    pre: PreRetrieval
    keywords: Keywords | None
    specialization: Specialization | None
    relaxation: Relaxation | None
    candidates: Candidates | None
    groups: AnchorGroups | None
    local: LocalGraph | None
    expansion: BubbleExpansion | None
    ranked: tuple[RankedCEG, ...]
    reasoning: ReasoningExpansion | None
    evidence: EvidenceGraph | None
    chunks: tuple[EvidenceChunk, ...]
    answer: str
    answer_by: str  #: "llm", "extractive" or "early exit"
    early_exit: bool
    trace: Trace
    method: str = "bubblerag"
    node_cost: dict[int, float] = field(default_factory=dict, repr=False)

    @property
    def ranked_chunks(self) -> tuple[RankedChunk, ...]:
        return tuple(RankedChunk(c.chunk_id, c.score) for c in self.chunks)

    def frames(self, graph: KnowledgeGraph, *, snapshots: bool = True) -> Iterator[ExpansionFrame]:
        """Replay the bubble expansion frame by frame (deterministic: the same CEGs as ``expansion``).

        Frames are regenerated on demand rather than stored, since snapshots cost O(|V'|) each.
        """
        if self.local is None or self.groups is None:
            return iter(())
        return iter_bubble_expansion(graph, self.local, self.groups.groups, budget=self.config.B,
                                     intra_group=self.config.intra_group, intra_counts=self.config.intra_counts,
                                     snapshots=snapshots)

    def rerank(self, *, alpha: float, n: int | None = None) -> tuple[RankedCEG, ...]:
        """Re-rank the CEGs with another α (live in the UI; no search is re-run). ``n`` truncates."""
        if self.expansion is None or self.groups is None:
            return ()
        ranked = rank_cegs(self.expansion.cegs, self.node_cost, self.groups.weights, alpha=alpha,
                           epsilon=self.config.epsilon, intra_group_penalty=self.config.intra_group_penalty)
        return ranked if n is None else ranked[:n]

    @property
    def evidence_nodes(self) -> tuple[int, ...]:
        """The nodes of the unified evidence graph G_final (none after an early exit)."""
        return tuple(int(v) for v in self.evidence.nodes) if self.evidence is not None else ()

    @property
    def node_ranking(self) -> tuple[int, ...]:
        """What BubbleRAG would hand over as KG nodes, best first (scored node by node as FastInsight §4.3.1
        scores its KG corpora): the nodes of the ranked CEGs in CEG rank order (§3.4), each CEG's in its own
        order, then the rest of G_final (§3.5's reasoning-aware expansion) by the best CEG rank that holds each,
        then by node index; a node counts once. Empty after an early exit (:attr:`node_ranking_note`)."""
        order = [int(v) for r in self.ranked for v in r.ceg.nodes]
        if self.evidence is not None:
            rank = self.evidence.node_rank
            order += sorted((int(v) for v in self.evidence.nodes), key=lambda v: (rank.get(v, len(self.ranked) + 1), v))
        return tuple(dict.fromkeys(order))

    @property
    def node_ranking_note(self) -> str:
        """Why :attr:`node_ranking` is empty ("" when it is not)."""
        if self.node_ranking:
            return ""
        if self.early_exit:
            return ("BubbleRAG exited early (§3.2: the pre-retrieved passages were judged sufficient), so it handed "
                    "over passages and no KG node")
        return "BubbleRAG found no candidate evidence graph, so it handed over no KG node"


def highlights(result: BubbleResult, workspace: Workspace, *, top: int = 5) -> dict[str, Any]:
    """The ``top`` ranked CEGs with their score breakdown (§3.4), as ``egx ask`` prints them beside the
    answer; none when the run ranked no CEG (an early exit, or no candidate)."""
    if not result.ranked:
        return {}
    g = workspace.graph
    return {"cegs": [{"rank": r.rank, "score": round(r.score, 4), "cost_sem": round(r.cost_sem, 4),
                      "r_miss": round(r.r_miss, 4), "kind": r.ceg.kind,
                      "nodes": [g.node_names[v] for v in r.ceg.nodes],
                      "triples": [g.edge_text(e) for e in r.ceg.edges]} for r in result.ranked[:top]]}


def run(query: str, workspace: Workspace, *, config: BubbleConfig | None = None, backends: Backends) -> BubbleResult:
    """Answer ``query`` on ``workspace`` with BubbleRAG, recording every stage in the trace.

    Parameters
    ----------
    query
        The user question.
    workspace
        An opened workspace whose index was built with ``backends.embedder``.
    config
        :class:`BubbleConfig` (paper defaults B=10, h=6, d=6, α=1.0, ≤15 chunks).
    backends
        Embedder and LLM (``none`` runs every stage's deterministic fallback).

    Returns
    -------
    BubbleResult

    Raises
    ------
    QueryError
        If the question is empty.
    ConfigError
        If ``config`` is not a :class:`BubbleConfig`.
    """
    start = begin_run("bubblerag", query, workspace, config, BubbleConfig, backends,
                      empty_query="The question is empty. Type a question to retrieve evidence for.")
    cfg, trace = start.config, start.trace
    graph = question_graph(workspace)  # on a graph store a read-through view: the whole graph is never loaded
    workspace.ensure_index(backends.embedder)
    t0 = time.perf_counter()
    qvec = backends.embed_query(query)
    trace.add("embed_query", "Query embedding", {"dim": int(qvec.size)}, seconds=time.perf_counter() - t0)
    llm = backends.llm

    pre = pre_retrieve(query, qvec, workspace, llm, k=cfg.k_chunks, check=cfg.sufficiency_check,
                       tight_json=cfg.tight_json, trace=trace, graph=graph, enabled=cfg.pre_retrieval,
                       max_tokens=cfg.answer_tokens)
    if pre.sufficient:
        chunks = tuple(EvidenceChunk(c, s, "preview", 0.0, s) for c, s in zip(pre.chunk_ids, pre.scores))
        # what the answer was handed: the chunks the sufficiency check saw and answered from
        context = AnswerContext(pre.context_ids, pre.shown_tokens, cfg.answer_budget, cfg.k_chunks, cfg.answer_tokens,
                                "passages", len(pre.chunk_ids) - len(pre.context_ids))
        # the sufficiency check's answer, judged as an LLM answer: what the one answer check found in it is kept
        # here, where every view reads it
        trace.add(EarlyExitData.STAGE, "Pre-retrieved chunks were sufficient: graph traversal skipped",
                  EarlyExitData(answer=pre.answer, reason=pre.reason, by="llm" if llm.available else "heuristic",
                                context=context.data(), **(pre.check.step_fields() if pre.check is not None else {})),
                  section="BubbleRAG §3.2")
        return BubbleResult(query, cfg, pre, None, None, None, None, None, None, None, (), None, None, chunks,
                            pre.answer, "early exit", True, trace)

    tight = cfg.tight_json
    if cfg.keyword_extraction == "ner":  # §4.3, w/o Anchor Specialization: a standard extractor, no LLM
        kws = ner_keywords(query, trace=trace)
    else:  # without pre-retrieval (§4.3, w/o Schema Relaxation) the keywords see no preview at all
        kws = extract_keywords(query, pre if cfg.pre_retrieval else None, graph, llm,
                               none_implicit=cfg.none_implicit, tight_json=tight, trace=trace)
    spec = specialize_keywords(query, kws, llm, enabled=cfg.specialization, tight_json=tight, trace=trace)
    relax = relax_schema(query, spec, pre, graph, llm, enabled=cfg.relaxation, tight_json=tight, trace=trace)
    cands = retrieve_candidates(relax.terms, workspace, backends.embedder, k=cfg.k_candidates,
                                min_similarity=cfg.min_similarity, trace=trace, graph=graph)
    groups = group_anchors(query, cands, llm, entity_share=cfg.none_entity_share, tight_json=tight,
                           review=cfg.review_grouping, trace=trace)

    node_vecs = workspace.index("nodes").vectors
    terminals = {v for grp in groups.groups for v in grp.terminals(graph)}
    local = localized_graph(graph, terminals, node_vecs, qvec, h=cfg.h, max_nodes=cfg.max_local_nodes, trace=trace)
    expansion = bubble_expansion(graph, local, groups.groups, budget=cfg.B, intra_group=cfg.intra_group,
                                 intra_counts=cfg.intra_counts, trace=trace)
    node_cost = {int(v): float(c) for v, c in zip(local.nodes.tolist(), local.cost.tolist())}
    t1 = time.perf_counter()
    select = rank_cegs if cfg.ceg_ranking else first_valid_ceg
    ranked = select(expansion.cegs, node_cost, groups.weights, alpha=cfg.alpha, epsilon=cfg.epsilon,
                    intra_group_penalty=cfg.intra_group_penalty)
    trace.add("ranking", "CEG ranking" if cfg.ceg_ranking else "w/o CEG ranking (§4.3 ablation): first valid CEG", {
        "alpha": cfg.alpha, "n": cfg.n, "ceg_ranking": cfg.ceg_ranking,
        "ranked": [{"rank": r.rank, "ceg": r.ceg.index, "kind": r.ceg.kind, "nodes": len(r.ceg.nodes),
                    "cost_sem": round(r.cost_sem, 4), "r_miss": round(r.r_miss, 4), "missing": list(r.missing),
                    "penalty_miss": round(r.penalty_miss, 4), "intra_penalty": r.intra_penalty,
                    "score": round(r.score, 4)} for r in ranked]},
        seconds=time.perf_counter() - t1, section="BubbleRAG §3.4")

    edge_vecs = workspace.index("edges").vectors
    reasoning = reasoning_expansion(query, ranked, graph, node_vecs, edge_vecs, qvec, llm, n=cfg.n, d=cfg.d,
                                    max_neighbors=cfg.max_neighbors, none_select=cfg.none_select,
                                    time_budget_s=cfg.time_budget_s, tight_json=tight, trace=trace)
    evidence = unify(reasoning)
    _trace_synonym_edges(trace, graph, evidence.edges, stored=None if whole_graph(graph) is not None
                         else workspace.meta.synonym_edges)
    # the answer stage reads these one by one: on a store, read them in a batch
    read_ahead(graph, provenance_edges=evidence.edges, provenance_nodes=evidence.nodes, chunk_ids=pre.chunk_ids)
    ans: EvidenceAnswer = generate_answer(query, evidence, graph, workspace.index("chunks").vectors if graph.n_chunks
                                  else np.zeros((0, 1), np.float32), qvec, pre.chunk_ids, llm, backends.embedder,
                                  max_chunks=cfg.max_chunks, fill_with_preview=cfg.fill_with_preview,
                                  max_tokens=cfg.answer_max_tokens, trace=trace,
                                  evidence_format=cfg.evidence_format, chunk_ranking=cfg.chunk_ranking,
                                  reranker=backends.reranker, answer_tokens=cfg.answer_tokens, budget=cfg.answer_budget)
    return BubbleResult(query, cfg, pre, kws, spec, relax, cands, groups, local, expansion, ranked, reasoning, evidence,
                        ans.chunks, ans.text, ans.by, False, trace, node_cost=node_cost)


def _trace_synonym_edges(trace: Trace, graph: GraphLike, edges: tuple[int, ...], *, stored: bool | None) -> None:
    """Record which stored HippoRAG synonymy edges the evidence graph walked; ``stored``:
    whether the graph stores any (None: scan ``graph``, which must then be in memory)."""
    from core.graph.synonyms import synonym_edges_walked

    data = synonym_edges_walked(graph, edges, stored=stored)
    if data is not None:
        trace.add("synonym_edges", "Synonym edges in the evidence graph", data,
                  section="HippoRAG §3.1 (synonymy edges)")

