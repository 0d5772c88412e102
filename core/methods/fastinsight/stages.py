"""FastInsight's stage results as typed values (what the steps record and the GRanker page reads by attribute)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from core.trace import StageData


@dataclass(frozen=True)
class NodeGraphData(StageData):
    """The KG node graph searched (§4.2.2, text-rich KG): its size, and how its node vectors were had.
    In memory it also says its isolated nodes and mean degree; on a graph store what it reads instead."""

    STAGE: ClassVar[str] = "node_graph"
    source: str
    nodes: int
    edges: int
    node_vectors: str
    embedding_seconds: float
    graph: str = "kg_nodes"
    params: dict[str, Any] = field(default_factory=dict)
    isolated_nodes: int | None = None
    mean_degree: float | None = None
    nodes_without_passage: int | None = None
    store: str | None = None
    read: str | None = None


@dataclass(frozen=True)
class PassageGraphData(StageData):
    """The passage graph searched (§2.1): a corpus graph's references, or passages sharing an entity."""

    STAGE: ClassVar[str] = "passage_graph"
    source: str
    passages: int
    edges: int
    params: dict[str, Any] = field(default_factory=dict)
    isolated_passages: int = 0
    mean_degree: float = 0.0
    skipped_hub_entities: list[str] = field(default_factory=list)
    graph: str | None = None  #: "passages" when KG nodes were asked for but could not be searched


@dataclass(frozen=True)
class LazyNodeVectorsData(StageData):
    """The ``node_vectors`` step of lazy node vectors (§3.1.1 on KG nodes, read row by row): the pool, the nodes the
    loop reached and how many of their vectors were embedded now or read from the workspace cache."""

    STAGE: ClassVar[str] = "node_vectors"
    node_vectors: str  #: "lazy"
    pool_passages: int
    pool_nodes: int
    reached: int
    embedded_now: int
    from_workspace_cache: int
    kept_in_workspace: int


@dataclass(frozen=True, kw_only=True)
class NodePassagesData(StageData):
    """The ``node_passages`` step of a KG-node run (§4.2.2): the node ranking (its first 50) turned into passages,
    rank order, repeats dropped."""

    STAGE: ClassVar[str] = "node_passages"
    graph: str  #: "kg_nodes"
    node_ranking: list[str]
    node_names: list[str]
    passages: list[dict[str, Any]]  #: {"chunk_id", "score", "from_node_rank"} of the top-k passages
    nodes_without_passage: int
    store_reads: dict[str, int] | None = None  #: rows read from a graph store (None in memory)
    within_node_order: str


@dataclass(frozen=True)
class RetrievedData(StageData):
    """The ``retrieved`` step (§3.2): the rounds, what was retrieved and the reranker's work (features computed now
    or reused from an earlier run of the same question)."""

    STAGE: ClassVar[str] = "retrieved"
    graph: str  #: "kg_nodes" or "passages"
    rounds: int
    retrieved: int
    reranker_inputs: int
    features_computed: int
    features_reused: int
    seconds: float
