"""FastInsight end to end (FastInsight §3, Algorithms 1-3): vector search, then GRanker and STeX in
turns until the node budget is spent, every round traced, then the answer.

=======================  ==========================  =====================================
stage                    module                      paper
=======================  ==========================  =====================================
search graph             node_graph.py               §4.2.2: KG nodes of a text-rich KG (default)
                         store_graph.py              the same, read item by item from a graph store
node vectors             node_vectors.py             §3.1.1 on KG nodes (embedded once, cached)
                         lazy_vectors.py             the same rows, embedded as a question reaches them (option)
                         passage_graph.py            §2.1 (Definition 1); corpus graph, or derived for KGs
initial vector search    loop.py                     §3.2, Algorithm 1 line 1 (``O_vs``)
GRanker                  granker.py                  §3.3, Algorithm 2 (``O_gm``)
STeX                     stex.py                     §3.4, Algorithm 3 (``O_vgs``)
the loop                 loop.py                     §3.2, Algorithm 1
answer                   core/methods/answering.py   (every passage method's answer step)
=======================  ==========================  =====================================
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.background.jobs import current_job
from core.errors import EgxError, WorkspaceError
from core.graph.passage_graph import PassageGraph, passage_graph
from core.graph.reader import question_graph, read_ahead, whole_graph_read
from core.methods.answering import record_answer
from core.methods.base import Backends, RankedChunk
from core.methods.fastinsight.config import FastInsightConfig
from core.methods.fastinsight.lazy_vectors import LazyNodeVectors, lazy_node_vectors
from core.methods.fastinsight.loop import FastInsightResult, FastInsightRound, iter_fastinsight
from core.methods.fastinsight.node_graph import KGNodeGraph, passages_of_nodes
from core.methods.fastinsight.node_vectors import node_vectors
from core.methods.fastinsight.stages import (
    LazyNodeVectorsData,
    NodeGraphData,
    NodePassagesData,
    PassageGraphData,
    RetrievedData,
)
from core.methods.fastinsight.store_graph import open_node_graph
from core.methods.passages import PassageSource
from core.methods.reranking import (
    FeatureCache,
    active_feature_store,
    index_feature_source,
    small_products,
)
from core.methods.run_start import begin_run
from core.pinning import pin
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
    retrieved: tuple[str, ...]  #: the whole final N_ret (chunk ids, best first; in node mode its passages)
    config: FastInsightConfig
    searched: str = "passages"  #: the graph searched: "kg_nodes" (KG nodes and edges) or "passages"
    #: node mode: the whole final N_ret as KG node indices (rows of the workspace's graph), best first — what
    #: node-level R@10 / nDCG@10 score (FastInsight §4.3.1); empty when the run searched passages
    node_ranking: tuple[int, ...] = ()
    node_ranking_note: str = ""  #: why the node ranking is empty (the run searched passages)

    def search_graph(self, workspace: Workspace) -> PassageGraph:
        """The graph this run searched (its node indices are those of ``engine``)."""
        return searched_graph(workspace, self.config, self.searched)

    def tr_sets(self, workspace: Workspace, ranked: Sequence[str], gold: Sequence[str],
                k: int) -> tuple[PassageGraph, list[int], list[int]] | None:
        """What TR / MissTR of the top ``k`` (§4.3.2) are measured on: the graph this run searched, the
        indices of the top ``k`` it retrieved there and those of the oracle; None when the passage graph
        cannot be read (the evaluation then reports no TR).

        A run that searched KG nodes is measured on the KG node graph: ``N_ret`` is its top ``k`` nodes and
        the oracle the paper's gold nodes, every node linked to a gold passage (§4.2.2). A run on passages
        is measured on the passage graph with its own hub cap, with the top ``k`` passages of ``ranked``."""
        if self.searched == "kg_nodes":
            ng = self.search_graph(workspace)
            assert isinstance(ng, KGNodeGraph)
            return ng, *self._node_sets(ng, gold, k)
        try:
            pg = self.search_graph(workspace)
        except EgxError:
            return None
        idx = {c: i for i, c in enumerate(pg.chunk_ids)}
        return pg, [idx[c] for c in list(ranked)[:k] if c in idx], [idx[c] for c in gold if c in idx]

    def _node_sets(self, ng: KGNodeGraph, gold: Sequence[str], k: int) -> tuple[list[int], list[int]]:
        return list(self.node_ranking[:k]), ng.gold_nodes(gold).tolist()

    @property
    def evidence_nodes(self) -> tuple[int, ...]:
        """None besides its passages (:attr:`~core.methods.base.MethodResult.evidence_nodes`)."""
        return ()


def searched_graph(workspace: Workspace, config: FastInsightConfig, searched: str) -> PassageGraph:
    """The node graph (``searched == "kg_nodes"``) or the passage graph of ``workspace``: what TR /
    MissTR, the GRanker page and the failure diagnosis walk. On a graph-store workspace the node graph
    is a new :class:`~core.methods.fastinsight.store_graph.StoreNodeGraph` (it reads the rows that are
    asked for; TR's BFS reads layer by layer); the passage graph is always derived from the whole graph."""
    if searched == "kg_nodes":
        return open_node_graph(question_graph(workspace), max_chars=config.node_text_chars)
    return passage_graph(workspace.graph, max_entity_passages=config.max_entity_passages)


def _searches_nodes(workspace: Workspace, cfg: FastInsightConfig) -> tuple[bool, str]:
    """Whether this run searches KG nodes, and why not when ``kg_nodes`` was asked for but cannot be."""
    if cfg.graph != "kg_nodes":
        return False, ""
    g = question_graph(workspace)
    if g.kind == "corpus_graph":
        return False, ("The workspace is a corpus graph: its nodes already are passages, so FastInsight searches "
                       "it as it is (graph='kg_nodes' applies to KG workspaces).")
    if g.n_nodes == 0:
        return False, ("The workspace's KG has no nodes (a passage corpus without triples): FastInsight searches "
                       "the passages instead of KG nodes.")
    return True, ""


def _chunk_ids(pg: PassageGraph, nodes: np.ndarray) -> list[str]:
    return [pg.chunk_ids[int(v)] for v in nodes]


def _record_round(trace: Trace, pg: PassageGraph, rnd: FastInsightRound) -> None:
    g = rnd.granker
    # node mode: the items are KG nodes, named by node id (the passages they map to come at the end)
    ids, one, what = (("node_ids", "node_id", "nodes") if isinstance(pg, KGNodeGraph)
                      else ("chunk_ids", "chunk_id", "passages"))
    if rnd.index == 0:
        trace.add("vector_search", f"Initial O_vs: top-{rnd.added.size} {what} by dot product",
                  {ids: _chunk_ids(pg, rnd.added), "scores": np.round(rnd.added_scores, 6)},
                  section="FastInsight §3.2 (Algorithm 1 line 1)")
    else:
        p = rnd.proposed
        assert p is not None
        shown = min(len(p), 30)
        trace.add("stex", f"Round {rnd.index}: STeX proposed {len(p)}, added {rnd.added.size}", {
            "round": rnd.index, "proposed": len(p), "r_max": p.r_max, "beta": p.beta,
            "top_proposals": [{one: pg.chunk_ids[int(p.candidates[i])], "score": p.scores[i],
                               "i_sim": p.i_sim[i], "i_struct": p.i_struct[i], "rank_term": p.rank_term[i],
                               "bridge_term": p.bridge_term[i], "r_best": p.r_best[i],
                               "adjacent": p.n_adjacent[i], "c_max": p.c_max[i]} for i in range(shown)],
            "added": _chunk_ids(pg, rnd.added)},
            seconds=rnd.stex_seconds, fallback=rnd.fallback, section="FastInsight §3.4 (Algorithm 3)")
    order = g.order
    trace.add("granker", f"Round {rnd.index}: GRanker over {g.nodes.size} {what} (α = {g.alpha:g})", {
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
        Any workspace. A KG is searched node by node (``config.graph == "kg_nodes"``, the default,
        FastInsight §4.2.2: :func:`~core.methods.fastinsight.node_graph.node_graph`; node vectors are
        embedded on first use and cached in the workspace) and the ranked nodes are mapped to their
        passages (with ``config.node_vectors == "lazy"`` only the nodes the question reaches are embedded,
        :mod:`~core.methods.fastinsight.lazy_vectors`), or through its derived passage graph (``"passages"``,
        :func:`~core.graph.passage_graph.passage_graph`). A corpus graph is used as it
        is; a KG without nodes falls back to passages (a recorded fallback).
    config : FastInsightConfig or None
        Defaults to the paper's settings.
    backends : Backends
        ``embedder`` gives ``v_q`` and the chunk index ``V``; ``reranker`` is GRanker's encoder and
        head (the bi-encoder stand-in over the embedder when None, recorded as a fallback);
        ``llm`` writes the answer (extractive in ``none`` mode).

    Returns
    -------
    FastInsightRun
        ``ranked_chunks`` holds the top ``config.top_k`` of the final ``N_ret`` (node mode: the first
        ``top_k`` passages of the node ranking); ``engine`` every round (indices into
        :meth:`FastInsightRun.search_graph`); ``searched`` which graph was searched; ``reranker`` / ``reranker_description`` the reranker in use.

    Raises
    ------
    QueryError
        If the query is empty.
    ConfigError
        If ``config`` is not a :class:`FastInsightConfig`.
    EmptyGraphError, WorkspaceError
        If the workspace has no passages or its index does not match the graph.
    """
    t_start = time.perf_counter()
    start = begin_run("fastinsight", query, workspace, config, FastInsightConfig, backends, reranker=True)
    cfg, trace, reranker = start.config, start.trace, start.reranker
    assert reranker is not None  # asked for: the configured one or the stand-in

    use_nodes, why_not = _searches_nodes(workspace, cfg)
    node_note = "" if use_nodes else (why_not or "FastInsight searched passages (graph='passages'), so it ranked no "
                                      "KG node")
    pg: PassageGraph
    vectors: np.ndarray | LazyNodeVectors
    q = backends.embed_query(query)
    if use_nodes and cfg.node_vectors == "lazy":
        with trace.timed("node_graph", "KG node graph", section="FastInsight §4.2.2 (text-rich KG)") as step:
            pg = open_node_graph(question_graph(workspace), max_chars=cfg.node_text_chars)
            vectors = lazy_node_vectors(workspace, pg, backends.embedder, q, max_chars=cfg.node_text_chars,
                                        pool_passages=cfg.lazy_pool_passages)
            step.data = NodeGraphData(
                source=pg.source, nodes=pg.n, edges=pg.n_edges, params=pg.params,
                node_vectors=(f"lazy: embedded as the question reaches them; the initial search runs over the "
                              f"{vectors.stats.pool} nodes of the top {cfg.lazy_pool_passages} passages"),
                embedding_seconds=0.0, **pg.describe()).data()
    elif use_nodes:
        with trace.timed("node_graph", "KG node graph", section="FastInsight §4.2.2 (text-rich KG)") as step:
            job = current_job()  # in the app's background: the first-use embedding shows its progress
            pg, cached = node_vectors(workspace, backends.embedder, max_chars=cfg.node_text_chars,
                                      progress=job.progress if job is not None else None)
            # on a graph store, items are read as Algorithm 1 asks for them (describe() says so)
            step.data = NodeGraphData(
                source=pg.source, nodes=pg.n, edges=pg.n_edges, params=pg.params,
                node_vectors="embedded now" if cached.built else "read from the workspace cache",
                embedding_seconds=round(cached.seconds, 3), **pg.describe()).data()
            if cached.note:
                step.fallback = cached.note
        vectors = cached.vectors
    else:
        with trace.timed("passage_graph", "Passage graph", section="FastInsight §2.1") as step:
            pg = passage_graph(workspace.graph, max_entity_passages=cfg.max_entity_passages)
            store = whole_graph_read(workspace)
            if store:
                why_not = " ".join(x for x in (why_not, (
                    f"The passage graph is derived from the whole KG, which was read from the graph store "
                    f"{store} (graph='kg_nodes', the default, reads only what each question "
                    "touches).")) if x)
            step.data = PassageGraphData(
                source=pg.source, passages=pg.n, edges=pg.n_edges, params=pg.params,
                isolated_passages=int((pg.degree == 0).sum()), mean_degree=float(pg.degree.mean()) if pg.n else 0.0,
                skipped_hub_entities=list(pg.skipped_entities[:20]), graph="passages" if why_not else None).data()
            step.fallback = why_not
        vectors = workspace.index("chunks", backends.embedder).vectors
        if vectors.shape[0] != pg.n:
            raise WorkspaceError(f"The chunk index of {workspace.name!r} holds {vectors.shape[0]} passages but the "
                                 f"graph has {pg.n}; rebuild the index (`egx index --workspace ... --rebuild`).")
    source = index_feature_source(reranker, workspace.meta.index_model_id, vectors, query)
    # in the app, rows computed by an earlier run of the same question (another α or β) are read back
    # (core.methods.reranking.FeatureStore); the loop below still runs GRanker and STeX in full
    scope = f"kg_nodes:{cfg.node_text_chars}" if use_nodes else f"passages:{pg.source}"
    cache = FeatureCache(reranker, query, pg.passages, precomputed=source, store=active_feature_store(), scope=scope)
    trace.add("reranker", f"Reranker: {reranker.name}", {
        "reranker": reranker.name, "model_id": reranker.model_id, "linear_head": reranker.linear_head,
        "description": reranker.description,
        "features_from_index": source is not None, "features_shared_across_runs": cache.store is not None})

    rounds: list[FastInsightRound] = []
    with small_products():  # the head and STeX on ~100 rows: one BLAS thread is 50× faster on a busy CPU
        for rnd in iter_fastinsight(pg, query, q, vectors, reranker, batch=cfg.batch, b_max=cfg.b_max,
                                    alpha=cfg.alpha, beta=cfg.beta, on_exhausted=cfg.on_exhausted, features=cache):
            rounds.append(rnd)
            _record_round(trace, pg, rnd)
    if isinstance(vectors, LazyNodeVectors):
        st = vectors.stats
        trace.add("node_vectors", f"Lazy node vectors: {st.reached} nodes reached, {st.embedded} embedded now",
                  LazyNodeVectorsData("lazy", cfg.lazy_pool_passages, st.pool, st.reached, st.embedded,
                                      st.reached - st.embedded, len(vectors.cache)), seconds=st.seconds,
            section="FastInsight §3.1.1 (V on KG nodes), read row by row")
    engine = FastInsightResult(tuple(rounds), {"batch": cfg.batch, "b_max": cfg.b_max, "alpha": cfg.alpha,
                                               "beta": cfg.beta, "on_exhausted": cfg.on_exhausted}, cache.encoded,
                               cache.reused)
    ranking, scores = engine.ranking, engine.scores
    passages_src = PassageSource(workspace)  # the question's graph: in memory, or a graph store's view
    if isinstance(pg, KGNodeGraph):
        chunk_sims = workspace.index("chunks", backends.embedder).scores(q)  # orders each node's own passages
        pg.read_ahead(ranking.tolist())
        cited = list(dict.fromkeys(c for v in ranking.tolist() for c in pg.linked[int(v)]))
        g = passages_src.graph
        read_ahead(g, chunk_index=cited)
        rows = {c: g.chunk_index[c] for c in cited if c in g.chunk_index}
        at = np.asarray(list(rows.values()), dtype=np.int64)
        passage_scores = dict(zip(rows, pin("fastinsight.node_passages.chunk_sims", chunk_sims[at], ids=at).tolist()))
        mapped = passages_of_nodes(pg, ranking, scores, passage_scores=passage_scores)
        retrieved = tuple(c for c, _, _ in mapped)
        ranked = tuple(RankedChunk(c, s) for c, s, _ in mapped[:cfg.top_k])
        node_ids = tuple(pg.chunk_ids[int(v)] for v in ranking[:50])
        trace.add("node_passages", f"{len(ranking)} nodes → {len(retrieved)} passages (rank order, repeats dropped)",
                  NodePassagesData(
                      graph="kg_nodes", node_ranking=list(node_ids), node_names=[pg.names[int(v)] for v in ranking[:50]],
                      passages=[{"chunk_id": c, "score": round(s, 6), "from_node_rank": r}
                                for c, s, r in mapped[:cfg.top_k]],
                      nodes_without_passage=sum(1 for v in ranking.tolist() if not pg.linked[int(v)]),
                      store_reads=pg.reads or None,
                      within_node_order="a node's passages by the query's similarity to them (chunk index)"),
            section="FastInsight §4.2.2 (gold nodes are the nodes of the gold documents)")
        unit = "nodes"
    else:
        retrieved = tuple(pg.chunk_ids[int(v)] for v in ranking)
        ranked = tuple(RankedChunk(pg.chunk_ids[int(v)], float(s))
                       for v, s in zip(ranking[:cfg.top_k], scores[:cfg.top_k]))
        unit = "passages"
    trace.add("retrieved", f"{len(ranking)} {unit} retrieved in {len(rounds)} rounds",
              RetrievedData("kg_nodes" if use_nodes else "passages", len(rounds), len(ranking), cache.encoded,
                            cache.computed, cache.reused, time.perf_counter() - t_start), section="FastInsight §3.2")
    top = passages_src.passages(ranked)
    ans = record_answer(trace, query, top, backends, max_passages=cfg.answer_passages,
                        evidence_format=cfg.evidence_format,
                        evidence=passages_src.evidence_for(query, backends.llm),
                        max_tokens=cfg.answer_tokens, budget=cfg.answer_budget)
    node_ranking = tuple(int(v) for v in ranking) if use_nodes else ()
    return FastInsightRun("fastinsight", query, ranked, ans.text, trace, f"{reranker.name} ({reranker.model_id})",
                          reranker.description, bool(reranker.linear_head), engine, retrieved, cfg,
                          "kg_nodes" if use_nodes else "passages", node_ranking, node_note)
