"""SG-RAG end to end (sg_rag.txt §4, Algorithm 1, Eq. 2): γ(q°, δ(ψ(q°)), σ(φ(ℳ, ε(K)))).

==============================  ==================  ===========================================
stage (tuple element)           module              paper
==============================  ==================  ===========================================
ε  document structuring         (the workspace KG)  §4.2, App. B — any egx workspace graph
ψ  query graph q*               query_graph.py      §4.3, App. D, Table 12
ψ  entity normalization         normalization.py    §4.3, App. D, Alg. 3
ψ  path decomposition           decomposition.py    §4.3, App. E, Alg. 4 (l ∈ [⌈d_q/2⌉, d_q])
ψ  label completion             completion.py       §4.3, App. E, Algs. 5-6
ℳ  dominance GNN                dominance.py        §4.2, App. C, Alg. 2, Eqs. 9-16
φ  path index I_l               index.py            §4.2 Eq. 4, App. K
σ  path-level retrieval         matching.py         §4.3, App. K, Alg. 7 (+ brute-force oracle)
δ  assembly / 1-hop fallback    assembly.py         §4.4, App. M, Alg. 8; Alg. 1 line 22
γ  answer                       answer.py           §4.4, App. I, Table 15
==============================  ==================  ===========================================

Index construction (ℳ and I_l) happens on the first question for a workspace and is cached: the
model on disk under ``<workspace>/sgrag/``, the R*-trees in memory per process (:func:`prepare`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from core.backends.base import Embedder
from core.errors import ConfigError
from core.graph.reader import whole_graph_read
from core.index.workspace import Workspace
from core.methods.base import Backends, Preparation, RankedChunk
from core.methods.run_start import begin_run
from core.methods.sgrag.answer import SubgraphAnswer, generate_answer
from core.methods.sgrag.assembly import Assembly, assemble, fallback_neighbourhood
from core.methods.sgrag.baselines import RETRIEVALS, baseline_retrieval
from core.methods.sgrag.completion import Completion, complete_labels
from core.methods.sgrag.config import DominanceConfig, SGRAGConfig
from core.methods.sgrag.decomposition import Decomposition, decompose
from core.methods.sgrag.dominance import DominanceModel, load_or_train
from core.methods.sgrag.index import PathIndex, SimpleAdjacency, build_path_index, simple_adjacency
from core.methods.sgrag.labels import GraphLabels, graph_labels, label_vectors
from core.methods.sgrag.matching import PathMatches, retrieve
from core.methods.sgrag.normalization import Normalized, normalize_entities
from core.methods.sgrag.query_graph import QueryGraph, extract_query_graph
from core.methods.sgrag.stages import DominanceModelData, PathIndexData
from core.pinning import pin_flag
from core.trace import Trace

Progress = Callable[[str, float], None]


@dataclass(eq=False)
class Prepared:
    """Index-construction state for one workspace + embedder (Alg. 1 lines 1-6)."""

    labels: GraphLabels
    label_vecs: np.ndarray
    model: DominanceModel
    adjacency: SimpleAdjacency
    sem_dims: int
    seed: int
    max_paths: int
    indexes: dict[int, PathIndex] = field(default_factory=dict)
    lock: Any = field(default_factory=threading.Lock)

    def index(self, graph: Any, l: int, *, dominance: bool = True) -> PathIndex:  # noqa: E741 - l is the paper's path length
        key = l if dominance else -l
        with self.lock:
            if key not in self.indexes:
                self.indexes[key] = build_path_index(graph, l, self.labels.of_node, self.label_vecs,
                                                     self.model.node_emb if dominance else None,
                                                     sem_dims=self.sem_dims, seed=self.seed, max_paths=self.max_paths,
                                                     adjacency=self.adjacency)
            return self.indexes[key]


_PREP_LOCK = threading.Lock()  # training writes the model file: one build at a time


def prepare(workspace: Workspace, embedder: Embedder, *, config: SGRAGConfig | None = None,
            dominance: DominanceConfig | None = None, retrain: bool = False, reload: bool = False,
            progress: Progress | None = None) -> Prepared:
    """Labels, label embeddings and the (cached or freshly trained) dominance model for ``workspace``
    (kept on the workspace graph, :meth:`~core.graph.model.KnowledgeGraph.derived`). ``reload`` reads the
    model file again (another process trained it since, e.g. the app's training worker)."""
    cfg = config or SGRAGConfig()
    dcfg = dominance or DominanceConfig(seed=cfg.seed)
    workspace.ensure_index(embedder)
    graph = workspace.graph
    key = ("sgrag.prepared", str(workspace.path), embedder.model_id, repr(asdict(dcfg)), cfg.sem_dims, cfg.seed,
           cfg.max_index_paths, cfg.max_train_stars)

    def build() -> Prepared:
        labels = graph_labels(graph)
        lv = label_vectors(labels, workspace.index("nodes").vectors)
        model = load_or_train(graph, lv[labels.of_node], Path(workspace.path) / "sgrag", embedder.model_id,
                              config=dcfg, max_train_stars=cfg.max_train_stars, retrain=retrain, progress=progress)
        return Prepared(labels, lv, model, simple_adjacency(graph), cfg.sem_dims, cfg.seed, cfg.max_index_paths)

    with _PREP_LOCK:
        return graph.derived(key, build, rebuild=retrain or reload)


def is_prepared(workspace: Workspace, embedder: Embedder, *, config: SGRAGConfig | None = None,
                dominance: DominanceConfig | None = None) -> bool:
    """Whether :func:`prepare` would return at once (model in memory or cached on disk)."""
    from core.methods.sgrag.dominance import model_key

    cfg = config or SGRAGConfig()
    dcfg = dominance or DominanceConfig(seed=cfg.seed)
    if workspace.index_problem(embedder) is not None:
        return False
    key = model_key(workspace.graph, embedder.model_id, dcfg, cfg.max_train_stars)
    return (Path(workspace.path) / "sgrag" / f"dominance-{key}.pt").exists()


def stamp(workspace: Workspace, backends: Backends, config: object) -> dict[str, str]:
    """``{"dominance model": key}`` (``Method.stamp``): the cache key of the dominance model ℳ a run uses, which
    names everything it is trained from (the graph's content, the embedder, its config and seed), so a
    benchmark resumes only with the same ℳ. Its training is seeded, so one key is one model."""
    from core.methods.sgrag.dominance import model_key

    cfg = config if isinstance(config, SGRAGConfig) else SGRAGConfig()
    return {"dominance model": model_key(workspace.graph, backends.embedder.model_id, DominanceConfig(seed=cfg.seed),
                                         cfg.max_train_stars)}


#: SG-RAG's preparation: the labels and the dominance model ℳ (§4.2, App. C), trained once per graph and
#: embedder and kept in the workspace folder (``sgrag/``); the Subgraph page shows its training curve.
#: seconds of dominance training per KG edge on 2 CPU cores, from benchmarks/README.md (sgrag_matching.py:
#: 74 s for FB15k-237's 272k triples, 19 s for 100k), so the app asks before a long first training
TRAIN_S_PER_EDGE = 74 / 272_115


def training_estimate(workspace: Workspace) -> tuple[float, str]:
    """``(seconds, how)`` for :data:`PREPARATION` on ``workspace``: its edges at the measured rate, at least 5 s
    (loading torch_geometric and the label vectors)."""
    n = workspace.graph.n_edges
    return max(5.0, n * TRAIN_S_PER_EDGE), (f"{n:,} KG edges at the measured {1 / TRAIN_S_PER_EDGE:,.0f} edges/s "
                                           "of dominance training on 2 cores (benchmarks/README.md)")


PREPARATION = Preparation(
    # not "(first use)": after documents were added it is trained again, and an audit read "first use" beside a
    # message naming the model it replaces
    title=lambda ws, backends, cfg: f"Training SG-RAG's dominance model for “{ws.title}” (none trained on its current graph)",
    needed=lambda ws, backends, cfg: not is_prepared(ws, backends.embedder, config=cfg),
    run=lambda ws, backends, cfg, progress: prepare(ws, backends.embedder, config=cfg, progress=progress),
    key=lambda ws, backends, cfg: f"sgrag-prepare:{ws.path}:{backends.embedder.model_id}:{cfg.seed}",
    estimate=lambda ws, backends, cfg: training_estimate(ws),
)


@dataclass(frozen=True)
class SGRAGResult:
    """Everything one SG-RAG run produced (None for stages that were not reached)."""

    query: str
    config: SGRAGConfig
    query_graph: QueryGraph
    normalized: Normalized
    decomposition: Decomposition | None
    completion: Completion | None
    matches: tuple[PathMatches, ...]
    assembly: Assembly
    answer_detail: SubgraphAnswer
    chunks: tuple[RankedChunk, ...]
    trace: Trace
    method: str = "sgrag"

    @property
    def answer(self) -> str:
        return self.answer_detail.text

    @property
    def ranked_chunks(self) -> tuple[RankedChunk, ...]:
        return self.chunks

    @property
    def answer_reasoning(self) -> str:
        """Table 14's one line of reasoning ("" unless ``answer_reasoning`` asked for it): what an Emp.S
        judge reads after the answer (:func:`core.eval.judgements.judge_answers`)."""
        return self.answer_detail.reasoning

    @property
    def fallback(self) -> bool:
        return self.assembly.fallback

    @property
    def evidence_nodes(self) -> tuple[int, ...]:
        """None besides its passages (:attr:`~core.methods.base.MethodResult.evidence_nodes`)."""
        return ()

    @property
    def node_ranking(self) -> tuple[int, ...]:
        """What SG-RAG would hand over as KG nodes, best first (scored node by node as FastInsight §4.3.1 scores
        its KG corpora): the KG nodes the matched subgraphs bind, in match rank order (Alg. 8's assembly, best
        first), each subgraph's in query-node order; a node counts once. Empty when no subgraph matched (the 1-hop
        fallback's neighbourhood is no ranking: :attr:`node_ranking_note`)."""
        return tuple(dict.fromkeys(int(v) for sg in self.assembly.subgraphs for _, v in sg.mapping))

    @property
    def node_ranking_note(self) -> str:
        """Why :attr:`node_ranking` is empty ("" when it is not)."""
        if self.node_ranking:
            return ""
        if self.config.retrieval != "subgraph":
            return (f"{RETRIEVALS[self.config.retrieval]} (a Table 5 baseline) retrieves a neighbourhood of the query "
                    "entities, which ranks no KG node")
        if self.assembly.fallback:
            return ("no subgraph matched the query graph, so SG-RAG fell back to the 1-hop neighbourhood of its known "
                    "entities, which ranks no KG node")
        return "SG-RAG matched no subgraph, so it handed over no KG node"


def run(query: str, workspace: Workspace, *, config: SGRAGConfig | None = None, backends: Backends,
        dominance: DominanceConfig | None = None) -> SGRAGResult:
    """Answer ``query`` on ``workspace`` with SG-RAG, recording every stage in the trace.

    Parameters
    ----------
    query
        The question q°.
    workspace
        A KG workspace whose index was built (or will be) with ``backends.embedder``.
    config
        :class:`SGRAGConfig` (l = 0 picks ⌈d_q/2⌉).
    backends
        Embedder and LLM (``none``: heuristic query graph; the UNK binding, or the extractive sentence
        scored by the reranker when the matches bind UNK to several nodes).
    dominance
        :class:`DominanceConfig` for ℳ (cached per workspace).

    Returns
    -------
    SGRAGResult

    Raises
    ------
    QueryError
        For an empty question.
    ConfigError
        For a config that is not an :class:`SGRAGConfig` or an explicit l outside [⌈d_q/2⌉, d_q]
        (out-of-range values are refused when the config is built).
    """
    start = begin_run("sgrag", query, workspace, config, SGRAGConfig, backends, article="an",
                      empty_query="The question is empty; type a question to match against the graph.")
    cfg, trace = start.config, start.trace
    store = whole_graph_read(workspace)
    if store:  # said on every run, since it is what the method costs on a graph store
        trace.add("store", "Graph read from the graph store for SG-RAG's whole-KG indexes", {
            "store": store, "whole_graph": True},
            section="SG-RAG §4.2 (φ(ℳ, ε(K)) indexes every path of the KG)",
            fallback=("SG-RAG's path index I_l and dominance model ℳ cover every path of the KG (§4.2), so on a "
                      f"graph-store workspace the whole graph is read from {store} once per process "
                      "for them (BubbleRAG, FastInsight, ReG, PPR, dense and Re2 read only what a question "
                      "touches)."))
    graph = workspace.graph
    t0 = time.perf_counter()
    prep = prepare(workspace, backends.embedder, config=cfg, dominance=dominance)
    m = prep.model
    converged = pin_flag("sgrag.dominance.converged", m.converged)  # ℳ retrained on another machine may not
    use_filter = cfg.dominance_filter and converged
    not_converged = ""
    if cfg.dominance_filter and not converged:  # a model that violates Eq. 14 on training pairs would prune true matches
        not_converged = (f"the dominance model did not converge (loss {m.losses[-1] if m.losses else float('nan'):.4g} "
                         f"after {m.epochs} epochs, Alg. 2 stops at 0), so the dominance filter is disabled for this "
                         "question: matching is label-only (raise DominanceConfig.max_epochs to retrain)")
    trace.add("dominance_model", "Dominance model ℳ (GAT over 1-hop stars)", DominanceModelData(
        from_cache=m.from_cache, epochs=m.epochs, converged=m.converged, final_loss=m.losses[-1] if m.losses else 0.0,
        losses=list(m.losses), device=m.device, dim=m.config.dim, train_seconds=round(m.seconds, 3),
        key=m.key, cache_note=m.note, dominance_filter=use_filter),
        seconds=time.perf_counter() - t0, section="SG-RAG §4.2, App. C, Alg. 2",
        fallback="; ".join(x for x in (m.note, not_converged) if x))
    qvec = backends.embed_query(query)
    # the chain is none mode's (no LLM): where an LLM's query graph is unusable its run keeps the bridge star it
    # always fell back to, so the recorded runs of such a question replay as they were recorded
    qg = extract_query_graph(query, graph, backends.llm, trace=trace,
                             bridge_hops=1 if backends.llm.available else cfg.bridge_hops)
    norm = normalize_entities(qg, workspace, backends.embedder, prep.labels, k=cfg.normalize_k,
                              doubtful_below=cfg.doubtful_below, trace=trace)
    known = norm.label_of
    unknown = tuple(q for q in qg.ids if q not in known)
    edge_vecs = workspace.index("edges").vectors if graph.n_edges else None
    node_vecs = workspace.index("nodes").vectors
    dec: Decomposition | None = None
    comp: Completion | None = None
    matches: tuple[PathMatches, ...] = ()
    reason = ""
    baseline: Assembly | None = None
    if cfg.retrieval != "subgraph":  # a Table 5 baseline: the same query entities, no exact matching
        baseline = baseline_retrieval(graph, [mp.node for mp in norm.mappings if mp.node >= 0], cfg.retrieval,
                                      edge_vecs, qvec, trace=trace)
    elif not qg.edges:
        reason = "the query graph has no edges (no entity of the question was found in the graph)"
    else:
        try:
            dec = decompose(qg, cfg.l or chain_l(qg), trace=trace)
            t1 = time.perf_counter()
            ix = prep.index(graph, dec.l, dominance=use_filter)
            trace.add("index", f"Path index I_{dec.l} (R*-tree)", PathIndexData(
                l=dec.l, paths=len(ix.paths), dimension=ix.dimension, sem_dims=ix.sem_dims,
                dom_dims_per_node=ix.dom_dims, build_seconds=round(ix.build_seconds, 3)),
                seconds=time.perf_counter() - t1, section="SG-RAG §4.2, Eq. 4")
            comp = complete_labels(dec.paths, known, unknown, ix, max_candidates=cfg.max_candidates,
                                   max_instantiations=cfg.max_instantiations, intersect=cfg.intersect_completion,
                                   label_names=prep.labels.names, trace=trace)
            matches = retrieve(qg, dec.paths, comp.instantiations, ix,
                               model=m if use_filter else None, label_vecs=prep.label_vecs,
                               tolerance=cfg.tolerance, trace=trace)
            asm = assemble(qg, matches, ix, graph, edge_vecs, qvec, max_subgraphs=cfg.max_subgraphs,
                           max_combinations=cfg.max_combinations, trace=trace)
            if not asm.subgraphs:
                reason = "no exact subgraph matched the query graph: " + why_no_match(qg, norm, comp, matches)
        except ConfigError as exc:
            if cfg.l:
                raise
            reason = f"exact matching not possible at automatic l: {exc}"
    if baseline is not None:
        asm = baseline
    elif reason:
        known_nodes = [mp.node for mp in norm.mappings if mp.node >= 0]
        asm = fallback_neighbourhood(graph, known_nodes, edge_vecs, qvec, max_edges=cfg.max_fallback_edges,
                                     reason=reason, trace=trace)
    ans = generate_answer(query, qg, asm, graph, backends.llm, node_vecs=node_vecs, qvec=qvec,
                          max_tokens=cfg.answer_max_tokens, context_tokens=cfg.context_tokens, trace=trace,
                          answer_chunks=cfg.answer_chunks, answer_tokens=cfg.answer_tokens, budget=cfg.answer_budget,
                          reasoning=cfg.answer_reasoning, backends=backends)
    chunks = _ranked_chunks(graph, asm, edge_vecs, qvec, cfg.max_chunks)
    return SGRAGResult(query, cfg, qg, norm, dec, comp, matches, asm, ans, chunks, trace)


def chain_l(qg: QueryGraph) -> int:
    """l for the ``none``-mode chain (``bridge_hops`` > 1): d_q, the top of the paper's range, so the one query path
    starts at the known entity; at ⌈d_q/2⌉ a path joins two ``UNK`` nodes and label completion (Alg. 5) searches it
    with every label a wildcard, which caps at the most frequent labels. 0 (automatic) for any other query graph."""
    unk = set(qg.unknown_ids)
    return qg.diameter() if qg.by == "heuristic" and any(a in unk and b in unk for a, b in qg.edges) else 0


def why_no_match(qg: QueryGraph, norm: Normalized, comp: Completion, matches: tuple[PathMatches, ...]) -> str:
    """Which part of the query graph found nothing in the KG: an unknown node no label could complete, a
    query path no KG path matches under any label instantiation, or (every path matched) no combination
    of path matches agrees on the nodes they share."""
    def name(q: str) -> str:
        mp = norm.mapping(q)
        return mp.node_name if mp is not None and mp.node >= 0 else qg.node(q).label

    empty = [q for q in comp.unknown if not comp.candidates.get(q)]
    if empty:
        return (f"no graph label completes {', '.join(empty)} (no KG path from the known nodes has the "
                "query's shape there)")
    if not matches:
        return "no label instantiation of the query graph was left to match"
    dead = [p for i, p in enumerate(matches[0].paths) if all(len(m.cand_rows[i]) == 0 for m in matches)]
    if dead:
        shown = "; ".join(" — ".join(name(q) for q in p) for p in dead[:3])
        return f"no KG path matches the query path {shown}" + (" …" if len(dead) > 3 else "")
    return ("every query path matched KG paths, but no combination of them agrees on the nodes they share "
            f"({len(matches)} label instantiation(s) tried)")


def _ranked_chunks(graph: Any, asm: Assembly, edge_vecs: np.ndarray | None, qvec: np.ndarray,
                   limit: int) -> tuple[RankedChunk, ...]:
    """Provenance chunks of the matched subgraphs' edges, best subgraph first (or of g'')."""
    out: dict[str, float] = {}
    groups: list[tuple[float, tuple[int, ...]]]
    if asm.fallback:
        groups = [(float(edge_vecs[e] @ qvec) if edge_vecs is not None else 0.0, (e,)) for e in asm.fallback_edges]
    else:
        groups = [(s.score, s.edges) for s in asm.subgraphs]
    for score, eids in groups:
        for e in eids:
            for c in graph.edge_chunks[e]:
                if c not in out and len(out) < limit:
                    out[c] = score
    return tuple(RankedChunk(c, s) for c, s in out.items())


