"""Where PPR's walk starts and what it walks (HippoRAG §3.2): on a KG the question's entities linked to graph
nodes, weighted by node specificity, on the whole entity graph or, when the whole graph is not in this
process (a graph store), on the seeds' region; on a corpus graph the passages most similar to the
question, on the passage graph."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.graph.reader import GraphLike, read_ahead, read_region, store_url, whole_graph
from core.methods.base import Backends
from core.methods.baselines.config import PPRConfig
from core.methods.baselines.ppr_entities import query_entities
from core.methods.baselines.ppr_graph import entity_graph, passage_incidence, region_incidence
from core.methods.baselines.ppr_synonyms import Synonyms, workspace_synonyms
from core.methods.baselines.stages import EntityGraphData, PPRRegionData
from core.pinning import pin_search
from core.trace import Trace

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

    from core.index.vector_index import VectorIndex
    from core.index.workspace import Workspace


@dataclass(frozen=True)
class SeedLink:
    entity: str  #: query entity (or the whole query)
    node: int  #: linked graph node (KG) or passage (corpus graph)
    name: str
    similarity: float
    weight: float  #: personalization weight before normalization
    doubtful: str = ""  #: why the link looks wrong (:func:`doubtful_link`); it is still a seed, as §3.2 links it


_NUMBER = re.compile(r"\d+")


def doubtful_link(entity: str, name: str) -> str:
    """Why linking the query entity ``entity`` to the node ``name`` looks wrong ("" when it does not): HippoRAG §3.2
    links each query entity to its nearest node by embedding, whatever the distance, and an embedder puts years and
    numbers near one another ("1909" → "1879" at cosine 0.77, an audit's question about a disaster of 1909 seeded
    another man's birth year). A number of the entity that the node's name does not hold is said; the link stays (the
    paper's behaviour), flagged where the trace and the diagnosis show the seeds.

    >>> doubtful_link("1909", "1879")
    '“1909” is linked to “1879”, which does not hold that number'
    >>> doubtful_link("Keldmoor disaster of 1909", "Keldmoor disaster of 1909"), doubtful_link("Keanu Reeves", "keanu")
    ('', '')
    """
    want = set(_NUMBER.findall(entity))
    if want and not want <= set(_NUMBER.findall(name)):
        return f"“{entity}” is linked to “{name}”, which does not hold {'that number' if len(want) == 1 else 'its numbers'}"
    return ""


REMOTE_REGION_HOPS = 3


def kg_seeds(trace: Trace, workspace: Workspace, graph: GraphLike, cfg: PPRConfig, query: str,
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
            found: list[Synonyms] = []

            def build() -> tuple[csr_matrix, int]:
                syn = None
                if thr is not None:  # the workspace keeps the pairs (PPR's preparation found them once)
                    found.append(workspace_synonyms(workspace, backends.embedder, thr))
                    syn = (found[0].pairs, found[0].sims)
                return entity_graph(whole, synonyms=syn, synonym_threshold=thr)

            adjacency, n_syn = whole.derived(("ppr.entity_graph", thr, backends.embedder.model_id), build)
            step.data = EntityGraphData(
                whole.n_nodes, int(adjacency.nnz // 2) - n_syn, n_syn, thr, time.perf_counter() - t0,
                "off" if thr is None else "in this process's memory" if not found
                else f"found now ({found[0].seconds:.1f} s) and kept in the workspace" if found[0].built
                else "read from the workspace").data()
            if found and found[0].note:
                step.fallback = found[0].note
    with trace.timed("query_entities", "Query entities linked to graph nodes", section="HippoRAG §3.2") as qstep:
        ents, how, tokens, kinds = query_entities(query, backends)
        qstep.prompt_tokens, qstep.completion_tokens = tokens["prompt"], tokens["completion"]
        vecs = backends.embedder.embed(ents)
        sims, ids = pin_search("ppr.link.node_search", *node_index.search(vecs, 1), key="\n".join(ents))
        links = [(e, int(i), float(s)) for e, s, i in zip(ents, sims[:, 0], ids[:, 0])]
        linked = sorted({v for _, v, _ in links})
        names = dict(zip(linked, node_names(graph, linked)))
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
            step.data = PPRRegionData(store_url(graph), region.hops, hops, region.capped, int(region.nodes.size),
                                      int(region.edges.size), graph.n_nodes, int(adjacency.nnz // 2) - n_syn, n_syn,
                                      time.perf_counter() - t0).data()
            step.fallback = (f"PPR runs on the {region.nodes.size} nodes within {region.hops} hops of the seeds"
                             + (f" (capped at {cfg.region_max_nodes})" if region.capped else "")
                             + ("" if whole is not None else ", read from the graph store")
                             + ", not on the whole graph: passages outside the region score 0")
    assert adjacency is not None and incidence is not None
    n_passages = np.asarray(incidence.sum(axis=0)).reshape(-1)
    col = (lambda v: v) if rows is None else (lambda v: int(np.searchsorted(rows, v)))
    seeds = [SeedLink(e, v, names[v], s, 1.0 / max(float(n_passages[col(v)]), 1.0) if cfg.node_specificity else 1.0,
                      doubtful_link(e, names[v])) for e, v, s in links]
    qstep.data["links"] = [{"entity": s.entity, "node": s.name, "similarity": s.similarity, "weight": s.weight,
                            **({"doubtful": s.doubtful} if s.doubtful else {})} for s in seeds]
    if any(s.doubtful for s in seeds):
        qstep.data["doubtful"] = [s.doubtful for s in seeds if s.doubtful]
    return seeds, adjacency, incidence, rows


def node_names(graph: GraphLike, nodes: list[int]) -> list[str]:
    read_ahead(graph, names=nodes)
    return [graph.node_names[v] for v in nodes]


def corpus_seeds(trace: Trace, workspace: Workspace, cfg: PPRConfig,
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
