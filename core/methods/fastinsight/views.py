"""Display-ready views of a FastInsight run (pure data; the GRanker page renders them).

* :func:`rank_comparison` — the same candidates ranked by plain reranking and by GRanker, with
  each passage's rank shift;
* :func:`smoothing_graph` — the candidate subgraph as a small graph whose directed edges carry the
  GRanker propagation weights ``P_ij`` (FastInsight Algorithm 2 line 5);
* :func:`stex_table` — one round's STeX proposals with the similarity and structural parts of
  their scores and whether they were added (Algorithm 3, Algorithm 1 line 6).

The per-round metrics the page plots are evaluation: :func:`core.eval.metrics.round_metrics`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from core.graph.model import GraphBuilder, KnowledgeGraph
from core.methods.fastinsight.granker import GRankerResult
from core.methods.fastinsight.loop import FastInsightRound
from core.methods.fastinsight.passage_graph import PassageGraph


@dataclass(frozen=True)
class RankRow:
    """One candidate passage in both rankings (ranks are 1-based)."""

    chunk_id: str
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
        cid = pg.chunk_ids[int(v)]
        rows.append(RankRow(cid, graph.chunk(cid).title or cid, plain_pos[int(v)], r, float(result.plain_scores[i]),
                            float(result.scores[i]), cid in gold_set))
    return rows


def smoothing_graph(result: GRankerResult, pg: PassageGraph, graph: KnowledgeGraph, *,
                    limit: int = 30) -> KnowledgeGraph:
    """The top ``limit`` candidates (by GRanker) as a small corpus graph for drawing.

    Node ids are chunk ids, names the passage titles, descriptions the texts. A directed edge
    ``i → j`` labelled ``"P=0.42"`` is drawn for every ``P_ij > 0`` with ``i ≠ j``: row ``i`` of
    ``P`` says how much of ``j``'s features flow into ``i``'s smoothed features.
    """
    keep = result.order[:limit]
    b = GraphBuilder(kind="corpus_graph", name="GRanker candidates")
    for i in keep.tolist():
        cid = pg.chunk_ids[int(result.nodes[i])]
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
        cid = pg.chunk_ids[v]
        rows.append(ProposalRow(cid, graph.chunk(cid).title or cid, float(p.scores[i]), float(p.i_sim[i]),
                                float(p.i_struct[i]), float(p.beta * p.i_struct[i]), float(p.rank_term[i]),
                                float(p.bridge_term[i]), int(p.r_best[i]), int(p.n_adjacent[i]), v in added))
    return rows
