"""HippoRAG-style personalized PageRank retrieval (HippoRAG, Gutiérrez et al. 2024, §3.2).

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

The power iteration (:func:`personalized_pagerank`) is scipy sparse and is tested against
``networkx.pagerank`` with the same personalization.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from core.errors import ConfigError, EmptyGraphError, LLMError
from core.graph.reader import GraphLike, read_ahead, read_region, store_url, whole_graph, whole_graph_read
from core.graph.synonyms import synonym_pairs
from core.methods.answering import record_answer
from core.methods.base import Backends, RankedChunk
from core.methods.baselines.common import BaselineResult, check_query
from core.methods.baselines.config import HIPPORAG_DAMPING, PPRConfig
from core.methods.passages import PassageSource
from core.replay import pin, pin_search
from core.text import normalize_name
from core.trace import Trace

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

    from core.graph.model import KnowledgeGraph
    from core.index.vector_index import VectorIndex
    from core.index.workspace import Workspace



@dataclass(frozen=True, eq=False)
class PPRResult:
    """Stationary distribution of the personalized random walk."""

    scores: np.ndarray  #: one probability per node, summing to 1
    iterations: int
    converged: bool


def personalized_pagerank(adjacency: csr_matrix, personalization: np.ndarray, *, damping: float = HIPPORAG_DAMPING,
                          tol: float = 1e-10, max_iter: int = 200) -> PPRResult:
    """Personalized PageRank by sparse power iteration (HippoRAG §3.2; FastInsight §3.1.2 Example 2).

    Iterates ``x ← d · (x M + (Σ_{dangling} x) p) + (1 − d) p`` with ``M`` the row-normalized
    weighted adjacency (the transpose of the column-normalized matrix in FastInsight Example 2),
    ``p`` the normalized personalization and ``d`` the damping — the same fixed point as
    ``networkx.pagerank(G, alpha=d, personalization=p)``: dangling nodes (no out-weight) jump back
    to ``p``.

    Parameters
    ----------
    adjacency : scipy.sparse matrix, shape (n, n)
        Non-negative weights; ``adjacency[i, j]`` is the weight of the step ``i → j`` (symmetric
        for an undirected graph).
    personalization : ndarray, shape (n,)
        Non-negative restart weights, not all zero.
    damping : float
        Probability of following an edge, in [0, 1).
    tol : float
        Stop when the L1 change is below ``n · tol`` (networkx's criterion).
    max_iter : int

    Returns
    -------
    PPRResult

    Raises
    ------
    ValueError
        If the personalization is negative, all zero or of the wrong length, or the damping is
        outside [0, 1).

    Examples
    --------
    >>> from scipy.sparse import csr_matrix
    >>> a = csr_matrix(np.array([[0, 1], [1, 0]], dtype=float))
    >>> personalized_pagerank(a, np.array([1.0, 0.0]), damping=0.5).scores.round(4)
    array([0.6667, 0.3333])
    """
    from scipy.sparse import csr_matrix, diags

    a = csr_matrix(adjacency, dtype=np.float64)
    n = a.shape[0]
    p = np.asarray(personalization, dtype=np.float64).reshape(-1)
    if a.shape != (n, n) or p.size != n:
        raise ValueError(f"adjacency must be square and personalization have one entry per node, got {a.shape} "
                         f"and {p.shape}")
    if not 0.0 <= damping < 1.0:
        raise ValueError(f"damping must be in [0, 1), got {damping}")
    if (p < 0).any() or not np.isfinite(p).all() or p.sum() <= 0:
        raise ValueError("personalization must be finite, non-negative and not all zero")
    p = p / p.sum()
    out = np.asarray(a.sum(axis=1)).reshape(-1)
    dangling = out <= 0
    m = diags(np.divide(1.0, out, out=np.zeros_like(out), where=~dangling)) @ a
    mt = m.T.tocsr()
    x = p.copy()
    for it in range(1, max_iter + 1):
        prev = x
        x = damping * (mt @ prev + prev[dangling].sum() * p) + (1.0 - damping) * p
        if np.abs(x - prev).sum() < n * tol:
            return PPRResult(x, it, True)
    return PPRResult(x, max_iter, False)


# ------------------------------------------------------------------------------------ graphs
def entity_graph(graph: KnowledgeGraph, *, node_vectors: np.ndarray | None = None,
                 synonym_threshold: float | None = 0.8) -> tuple[csr_matrix, int]:
    """Symmetric weighted adjacency of the KG for PPR and the number of synonymy edges added.

    Relation edges weigh 1 per distinct linked pair (direction and parallel relations dropped:
    OpenIE directions are arbitrary); synonymy edges weigh their cosine and add to a relation
    edge between the same pair.
    """
    from scipy.sparse import coo_matrix

    n = graph.n_nodes
    h, t = graph.edge_head.astype(np.int64), graph.edge_tail.astype(np.int64)
    keep = h != t
    lo, hi = np.minimum(h[keep], t[keep]), np.maximum(h[keep], t[keep])
    key = np.unique(lo * max(n, 1) + hi)
    lo, hi = key // max(n, 1), key % max(n, 1)
    w = np.ones(lo.size)
    n_syn = 0
    if synonym_threshold is not None and node_vectors is not None:
        pairs, sims = synonym_pairs(node_vectors, synonym_threshold)
        n_syn = int(pairs.shape[0])
        lo, hi, w = np.concatenate([lo, pairs[:, 0]]), np.concatenate([hi, pairs[:, 1]]), np.concatenate([w, sims])
    m = coo_matrix((np.concatenate([w, w]), (np.concatenate([lo, hi]), np.concatenate([hi, lo]))), shape=(n, n))
    return m.tocsr(), n_syn  # duplicate (i, j) entries are summed


def passage_incidence(graph: KnowledgeGraph) -> csr_matrix:
    """``(n_chunks, n_nodes)`` 0/1 matrix: passage ``c`` contains entity ``v`` (provenance)."""
    from scipy.sparse import coo_matrix

    rows, cols = [], []
    index = graph.chunk_index
    for v, cids in enumerate(graph.node_chunks):
        for c in cids:
            if c in index:
                rows.append(index[c])
                cols.append(v)
    data = np.ones(len(rows))
    m = coo_matrix((data, (rows, cols)), shape=(graph.n_chunks, graph.n_nodes)).tocsr()
    m.data[:] = 1.0
    return m


# ------------------------------------------------------------------------------------ seeds
def query_entities(query: str, backends: Backends) -> tuple[list[str], str, dict[str, int], list[str]]:
    """Named entities of the query, how they were found, the LLM token counts, and the LLM's entities
    dropped because they name nothing.

    LLM NER (HippoRAG's query NER prompt) when an LLM is available; otherwise, or when the LLM
    fails, the rule-based mentions; with none found, the whole query. Of the LLM's entities, one the
    question does not write is a guess (of an answer) and one the question writes with no capital
    letter or digit ("country", "the author", "bomb") is a kind, not a named entity (HippoRAG's NER asks
    for named entities; a 1.5B model adds the question's nouns, which link to generic nodes of an OpenIE
    graph and took the walk there): both are dropped, and the trace names the kinds.
    """
    tokens = {"prompt": 0, "completion": 0}
    how = ""
    kinds: list[str] = []
    if backends.llm.available:
        from core.backends import prompts
        from core.backends.base import ChatMessage
        from core.backends.llm import chat_json

        msgs = [ChatMessage("system", prompts.QUERY_NER_SYSTEM), ChatMessage("user", prompts.query_ner_prompt(query))]
        try:
            resp = chat_json(backends.llm, msgs, prompts.QUERY_NER_SCHEMA, max_tokens=128)
            tokens = {"prompt": resp.prompt_tokens, "completion": resp.completion_tokens}
            ents = [str(e).strip() for e in resp.data.get("named_entities", []) if str(e).strip()]
            # "mentioned in this question": a name the question does not write is a guess (of an answer)
            written = normalize_name(query)
            kept = [e for e in ents if normalize_name(_POSSESSIVE.sub("", e)) in written]
            kinds = [e for e in kept if not _written_as_name(_POSSESSIVE.sub("", e), query)]
            kept = [e for e in kept if e not in kinds]
            if kept:
                return list(dict.fromkeys(kept)), "llm", tokens, kinds
            how = (f"the LLM's entities {', '.join(map(repr, ents[:4]))} are not names written in the question; "
                   if ents else "the LLM found no entity; ")
        except LLMError as exc:
            how = f"the LLM failed ({exc}); "
    ents = rule_mentions(query)
    if ents:
        return ents, how + "rules", tokens, kinds
    return [query.strip()], how + "whole-query", tokens, kinds


def _written_as_name(entity: str, query: str) -> bool:
    """Whether ``query`` writes ``entity`` with a capital letter or a digit in one of its words (the question's
    first word counts unless it is a function word: "What", "The" are capitalised as sentence starts).

    >>> _written_as_name("Germany", "Germany had imperial interests where?"), _written_as_name("country", "Which country?")
    (True, False)
    """
    from core.text import STOPWORDS

    for hit in re.finditer(r"(?<!\w)" + re.escape(entity) + r"(?!\w)", query, flags=re.I):
        words = re.findall(r"\w[\w'’\-.]*", hit.group(0))
        if hit.start() == len(query) - len(query.lstrip()) and words and words[0].lower() in STOPWORDS:
            words = words[1:]
        if any(c.isdigit() for c in hit.group(0)) or any(w[:1].isupper() for w in words):
            return True
    return False


_POSSESSIVE = re.compile(r"['’]s$")


def rule_mentions(text: str) -> list[str]:
    """Capitalized-name mentions and years in ``text`` (the rule-based extractor's mention rules),
    without a possessive ``'s`` ("Lothair II's mother" → "Lothair II")."""
    from core.backends.extractors import mentions

    out = [_POSSESSIVE.sub("", m) for m in mentions(text)]
    return list(dict.fromkeys(m for m in out if m))


@dataclass(frozen=True)
class SeedLink:
    entity: str  #: query entity (or the whole query)
    node: int  #: linked graph node (KG) or passage (corpus graph)
    name: str
    similarity: float
    weight: float  #: personalization weight before normalization


# ------------------------------------------------------------------------------------ run
def run(query: str, workspace: Workspace, *, config: PPRConfig | None = None, backends: Backends) -> BaselineResult:
    """Retrieve passages with HippoRAG-style personalized PageRank (HippoRAG §3.2).

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
    cfg = PPRConfig() if config is None else config
    if not isinstance(cfg, PPRConfig):
        raise ConfigError(f"ppr takes a PPRConfig, got {type(cfg).__name__}.")
    check_query(query)
    source = PassageSource(workspace)  # the question's graph: in memory, or a graph store's read-through view
    if source.n_chunks == 0:
        raise EmptyGraphError(f"Workspace {workspace.name!r} has no passages to retrieve; upload a corpus.")
    trace = Trace("ppr", query, workspace.name, config=asdict(cfg), backends=backends.names())
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
        seeds, adjacency, incidence = _corpus_seeds(trace, workspace, cfg, dense)
    else:
        seeds, adjacency, incidence, rows = _kg_seeds(trace, workspace, source.graph, cfg, query, backends)
    with trace.timed("ppr", "Personalized PageRank", section="HippoRAG §3.2") as step:
        pers = np.zeros(adjacency.shape[0])
        for s in seeds:
            pers[s.node if rows is None else int(np.searchsorted(rows, s.node))] += s.weight
        res = personalized_pagerank(adjacency, pers, damping=cfg.damping, tol=cfg.tol, max_iter=cfg.max_iter)
        top = np.argsort(-res.scores, kind="stable")[:15]
        top_scores, top = pin_search("ppr.walk.top_nodes", res.scores[top], top)
        top_global = [int(v if rows is None else rows[v]) for v in top]  # graph node (KG) or passage row
        top_names = source.ids(top_global) if corpus else _node_names(source.graph, top_global)
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
                        evidence=partial(source.evidence, query, passages, backends.llm,
                                         max_passages=cfg.answer_passages))
    details = {"seeds": [asdict(s) for s in seeds], "iterations": res.iterations, "converged": res.converged,
               "graph": "corpus graph" if corpus else "entity graph"}
    return BaselineResult("ppr", query, ranked, ans.text, trace, details=details)


REMOTE_REGION_HOPS = 3


def _kg_seeds(trace: Trace, workspace: Workspace, graph: GraphLike, cfg: PPRConfig, query: str,
              backends: Backends) -> tuple[list[SeedLink], csr_matrix, csr_matrix, np.ndarray | None]:
    # HippoRAG's walk covers the whole entity graph; when the whole graph is not in this process (a graph
    # store's view never loads it) the walk runs on the seeds' region instead, and the trace says so
    whole = whole_graph(graph)
    node_index: VectorIndex = workspace.index("nodes", backends.embedder)
    hops = cfg.region_hops if cfg.region_hops is not None else (None if whole is not None else REMOTE_REGION_HOPS)
    thr = cfg.synonym_threshold
    incidence = None if whole is None else whole.derived("ppr.incidence", lambda: passage_incidence(whole))
    adjacency: csr_matrix | None = None
    if hops is None:
        assert whole is not None
        with trace.timed("entity_graph", "Entity graph for PPR", section="HippoRAG §3.1") as step:
            t0 = time.perf_counter()
            adjacency, n_syn = whole.derived(("ppr.entity_graph", thr, backends.embedder.model_id),
                                             lambda: entity_graph(whole, node_vectors=node_index.vectors,
                                                                  synonym_threshold=thr))
            step.data = {"nodes": whole.n_nodes, "relation_pairs": int(adjacency.nnz // 2) - n_syn,
                         "synonym_edges": n_syn, "synonym_threshold": thr, "build_seconds": time.perf_counter() - t0}
    with trace.timed("query_entities", "Query entities linked to graph nodes", section="HippoRAG §3.2") as qstep:
        ents, how, tokens, kinds = query_entities(query, backends)
        qstep.prompt_tokens, qstep.completion_tokens = tokens["prompt"], tokens["completion"]
        vecs = backends.embedder.embed(ents)
        sims, ids = pin_search("ppr.link.node_search", *node_index.search(vecs, 1), key="\n".join(ents))
        links = [(e, int(i), float(s)) for e, s, i in zip(ents, sims[:, 0], ids[:, 0])]
        linked = sorted({v for _, v, _ in links})
        names = dict(zip(linked, _node_names(graph, linked)))
        qstep.data = {"how": how, "entities": ents}
        if kinds:
            qstep.data["not_names"] = kinds
        if how != "llm":
            qstep.fallback = ("no LLM: query entities are the capitalized names and years of the question"
                              if how == "rules" else f"query entities: {how}")
            if how.endswith("whole-query"):
                qstep.fallback = "no entity found in the question: the whole question is linked as one entity"
    rows: np.ndarray | None = None
    if hops is not None:
        with trace.timed("ppr_region", "PPR region around the seeds", section="HippoRAG §3.2 on a region") as step:
            t0 = time.perf_counter()
            region = read_region(graph, linked, hops=hops, max_nodes=cfg.region_max_nodes, with_chunks=whole is None)
            adjacency, n_syn = entity_graph(region.graph, node_vectors=node_index.vectors[region.nodes],
                                            synonym_threshold=thr)
            # passages × region nodes: sliced from the whole graph's incidence in memory, built from the
            # region's provenance on a store (the same columns: a node's provenance is all of it)
            incidence = (region_incidence(region.graph, graph) if incidence is None
                         else incidence[:, region.nodes])
            rows = region.nodes
            step.data = {"store": store_url(graph), "hops": region.hops, "hops_requested": hops,
                         "capped": region.capped, "nodes": int(region.nodes.size), "edges": int(region.edges.size),
                         "of_nodes": graph.n_nodes, "relation_pairs": int(adjacency.nnz // 2) - n_syn,
                         "synonym_edges": n_syn, "seconds": time.perf_counter() - t0}
            step.fallback = (f"PPR runs on the {region.nodes.size} nodes within {region.hops} hops of the seeds"
                             + (f" (capped at {cfg.region_max_nodes})" if region.capped else "")
                             + ("" if whole is not None else ", read from the graph store")
                             + ", not on the whole graph: passages outside the region score 0")
    assert adjacency is not None and incidence is not None
    n_passages = np.asarray(incidence.sum(axis=0)).reshape(-1)
    col = (lambda v: v) if rows is None else (lambda v: int(np.searchsorted(rows, v)))
    seeds = [SeedLink(e, v, names[v], s, 1.0 / max(float(n_passages[col(v)]), 1.0) if cfg.node_specificity else 1.0)
             for e, v, s in links]
    qstep.data["links"] = [{"entity": s.entity, "node": s.name, "similarity": s.similarity, "weight": s.weight}
                           for s in seeds]
    return seeds, adjacency, incidence, rows


def region_incidence(region_graph: KnowledgeGraph, graph: GraphLike) -> csr_matrix:
    """``(n_chunks, region nodes)`` 0/1 matrix of a region of ``graph``: passage row ``c`` contains region
    node ``j`` (its provenance, the chunk rows looked up in ``graph`` in one read) — the region's columns
    of :func:`passage_incidence` of the whole graph."""
    from scipy.sparse import coo_matrix

    cited = list(dict.fromkeys(c for cids in region_graph.node_chunks for c in cids))
    read_ahead(graph, chunk_index=cited)
    row_of = {c: graph.chunk_index[c] for c in cited if c in graph.chunk_index}
    rows, cols = [], []
    for j, cids in enumerate(region_graph.node_chunks):
        for c in cids:
            if c in row_of:
                rows.append(row_of[c])
                cols.append(j)
    m = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(graph.n_chunks, region_graph.n_nodes)).tocsr()
    m.data[:] = 1.0
    return m


def _node_names(graph: GraphLike, nodes: list[int]) -> list[str]:
    read_ahead(graph, names=nodes)
    return [graph.node_names[v] for v in nodes]


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
    name = dict(zip(ends, _node_names(graph, ends)))
    return [{"a": name[a], "b": name[b], "cosine": round(c, 3)} for (a, b), c in pairs]


def _corpus_seeds(trace: Trace, workspace: Workspace, cfg: PPRConfig,
                  dense: np.ndarray) -> tuple[list[SeedLink], csr_matrix, None]:
    from scipy.sparse import csr_matrix

    from core.graph.passage_graph import passage_graph

    graph = workspace.graph
    with trace.timed("query_entities", "Seed passages by vector similarity (corpus graph)",
                     section="FastInsight §4.1.1 (HippoRAG 2 on corpus graphs)") as step:
        pg = passage_graph(graph)
        k = min(cfg.corpus_seeds, pg.n)
        top = np.lexsort((np.arange(dense.size), -dense))[:k]
        sims, top = pin_search("ppr.corpus.seeds", dense[top], top)
        weights = np.clip(sims, 0.0, None)
        if weights.sum() <= 0:
            weights = np.ones_like(weights)
        seeds = [SeedLink("(question)", int(v), graph.chunks[int(v)].title, float(x), float(w))
                 for v, x, w in zip(top, sims, weights)]
        rows = np.repeat(np.arange(pg.n), np.diff(pg.indptr))
        adjacency = csr_matrix((np.ones(pg.nbr.size), (rows, pg.nbr.astype(np.int64))), shape=(pg.n, pg.n))
        step.data = {"how": "top passages by cosine (a corpus graph has no entities)",
                     "seeds": [{"chunk_id": graph.chunks[s.node].id, "similarity": s.similarity} for s in seeds]}
        if graph.kind != "corpus_graph":
            step.fallback = "the KG has no edges; PPR runs on the (derived) passage graph"
    return seeds, adjacency, None
