"""Display-ready views of a FastInsight run (pure data; the GRanker page renders them).

* :func:`rank_comparison` — the same candidates ranked by plain reranking and by GRanker, with
  each passage's rank shift;
* :func:`smoothing_graph` — the candidate subgraph as a small graph whose directed edges carry the
  GRanker propagation weights ``P_ij`` (FastInsight Algorithm 2 line 5);
* :func:`stex_table` — one round's STeX proposals with the similarity and structural parts of
  their scores and whether they were added (Algorithm 3, Algorithm 1 line 6);
* :func:`reranker_inputs` — how many candidates were encoded, and how many read back from an earlier run.

The per-round metrics the page plots are evaluation: :func:`core.eval.metrics.round_metrics`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from core.graph.graph_builder import GraphBuilder
from core.graph.model import KnowledgeGraph
from core.graph.passage_graph import PassageGraph
from core.methods.fastinsight.granker import GRankerResult
from core.methods.fastinsight.loop import FastInsightResult, FastInsightRound
from core.methods.fastinsight.node_graph import KGNodeGraph


def item_title(pg: PassageGraph, graph: KnowledgeGraph, v: int) -> str:
    """What an item of the searched graph is called: a KG node's name, or a passage's title."""
    if isinstance(pg, KGNodeGraph):
        return pg.names[v] or pg.chunk_ids[v]
    cid = pg.chunk_ids[v]
    return graph.chunk(cid).title or cid


def is_gold(pg: PassageGraph, v: int, gold: Collection[str]) -> bool:
    """A gold passage, or (KG nodes) a node linked to a gold passage — the paper's gold nodes (§4.2.2)."""
    if isinstance(pg, KGNodeGraph):
        return bool(set(gold).intersection(pg.linked[v]))
    return pg.chunk_ids[v] in gold


@dataclass(frozen=True)
class RankRow:
    """One candidate (passage, or KG node in node mode) in both rankings (ranks are 1-based)."""

    chunk_id: str  #: the item's key: chunk id, or node id in node mode
    title: str
    plain_rank: int
    granker_rank: int
    plain_score: float
    granker_score: float
    gold: bool

    @property
    def shift(self) -> int:
        """Positions gained by GRanker (positive: moved up)."""
        return self.plain_rank - self.granker_rank


def rank_comparison(result: GRankerResult, pg: PassageGraph, graph: KnowledgeGraph,
                    gold: Collection[str] = ()) -> list[RankRow]:
    """Every candidate of ``result`` with its plain and GRanker rank, in GRanker order."""
    plain_pos = {int(v): r for r, v in enumerate(result.plain_ranking.tolist(), start=1)}
    by_node = {int(v): i for i, v in enumerate(result.nodes.tolist())}
    gold_set = set(gold)
    rows = []
    for r, v in enumerate(result.ranking.tolist(), start=1):
        i = by_node[int(v)]
        rows.append(RankRow(pg.chunk_ids[int(v)], item_title(pg, graph, int(v)), plain_pos[int(v)], r,
                            float(result.plain_scores[i]), float(result.scores[i]), is_gold(pg, int(v), gold_set)))
    return rows


def smoothing_graph(result: GRankerResult, pg: PassageGraph, graph: KnowledgeGraph, *,
                    limit: int = 30) -> KnowledgeGraph:
    """The top ``limit`` candidates (by GRanker) as a small graph for drawing.

    Node ids are chunk ids, names the passage titles, descriptions the texts; in node mode
    (:class:`~.node_graph.KGNodeGraph`) the KG nodes themselves with their names and node texts. A directed edge
    ``i → j`` labelled ``"P=0.42"`` is drawn for every ``P_ij > 0`` with ``i ≠ j``: row ``i`` of
    ``P`` says how much of ``j``'s features flow into ``i``'s smoothed features.
    """
    keep = result.order[:limit]
    nodes = isinstance(pg, KGNodeGraph)
    b = GraphBuilder(kind="kg" if nodes else "corpus_graph", name="GRanker candidates")
    for i in keep.tolist():
        v = int(result.nodes[i])
        cid = pg.chunk_ids[v]
        if isinstance(pg, KGNodeGraph):  # KG nodes: the node, its text (name, description, passage text)
            b.add_node(pg.names[v] or cid, node_id=cid, description=pg.passages[v])
            continue
        ch = graph.chunk(cid)
        b.add_chunk(ch.title, ch.text, chunk_id=cid)
        b.add_node(ch.title or cid, node_id=cid, description=ch.text, chunk_ids=(cid,))
    p = result.propagation
    kept = set(keep.tolist())
    for i in keep.tolist():
        for j in np.flatnonzero(p[i] > 0).tolist():
            if j != i and j in kept:
                b.add_edge(pg.chunk_ids[int(result.nodes[i])], f"P={p[i, j]:.2f}", pg.chunk_ids[int(result.nodes[j])])
    return b.build(allow_empty=True)


@dataclass(frozen=True)
class ProposalRow:
    """One STeX candidate of a round (Algorithm 3) and whether Algorithm 1 added it."""

    chunk_id: str
    title: str
    score: float
    i_sim: float
    i_struct: float
    beta_struct: float  #: β · I_Struct, the structural share of the score
    rank_term: float
    bridge_term: float
    r_best: int
    adjacent: int
    added: bool


def stex_table(rnd: FastInsightRound, pg: PassageGraph, graph: KnowledgeGraph, *, limit: int = 30) -> list[ProposalRow]:
    """The top ``limit`` STeX proposals of a round (empty for round 0)."""
    p = rnd.proposed
    if p is None:
        return []
    added = set(rnd.added.tolist())
    rows = []
    for i in range(min(limit, len(p))):
        v = int(p.candidates[i])
        rows.append(ProposalRow(pg.chunk_ids[v], item_title(pg, graph, v), float(p.scores[i]), float(p.i_sim[i]),
                                float(p.i_struct[i]), float(p.beta * p.i_struct[i]), float(p.rank_term[i]),
                                float(p.bridge_term[i]), int(p.r_best[i]), int(p.n_adjacent[i]), v in added))
    return rows


def reranker_inputs(engine: FastInsightResult) -> str:
    """``|N_ret|`` reranker inputs of a run, and how many an earlier run (another α or β) had encoded already
    (read back from the app's feature store, :class:`~core.methods.reranking.FeatureStore`)."""
    return f"{engine.encoded}" + (f" ({engine.reused} encoded by an earlier run and read back)" if engine.reused else "")
