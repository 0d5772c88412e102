"""The baselines' stage results that a page or the diagnosis reads, as typed values (:class:`~core.trace.StageData`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from core.trace import StageData


@dataclass(frozen=True)
class RerankData(StageData):
    """What Re2's ``rerank`` step records (FastInsight §3.1.3 Example 3, O_m): every candidate in its reranked
    order with its score and its rank by cosine before reranking; the diagnosis reads the two ranks of a lost
    gold passage, to say whether the reranker or the vector search lost it."""

    STAGE: ClassVar[str] = "rerank"
    reranker: str = ""
    model_id: str = ""
    linear_head: bool = False
    description: str = ""
    features_from_index: bool = False
    ranking: list[str] = field(default_factory=list)  #: candidate chunk ids, reranked, best first
    scores: list[float] = field(default_factory=list)  #: the reranker's score of each, in that order
    vector_rank: list[int] = field(default_factory=list)  #: each one's 1-based rank by cosine, in that order


@dataclass(frozen=True)
class EntityGraphData(StageData):
    """PPR's ``entity_graph`` step (HippoRAG §3.1): the whole graph's entity graph, its relation and synonym edges,
    and where the synonym pairs came from."""

    STAGE: ClassVar[str] = "entity_graph"
    KEEP_NONE: ClassVar[frozenset[str]] = frozenset({"synonym_threshold"})  # None: synonym edges off, said as null
    nodes: int
    relation_pairs: int
    synonym_edges: int
    synonym_threshold: float | None
    build_seconds: float
    synonyms: str  #: "off", "read from the workspace", "found now (… s) and kept in the workspace", ...


@dataclass(frozen=True)
class PPRRegionData(StageData):
    """PPR's ``ppr_region`` step (HippoRAG §3.2 on a region): the nodes within ``hops`` of the seeds the walk runs
    on instead of the whole graph, and its entity graph."""

    STAGE: ClassVar[str] = "ppr_region"
    store: str  #: :func:`core.graph.reader.store_url` of the graph read
    hops: int
    hops_requested: int
    capped: bool
    nodes: int
    edges: int
    of_nodes: int  #: the whole graph's node count
    relation_pairs: int
    synonym_edges: int
    seconds: float
