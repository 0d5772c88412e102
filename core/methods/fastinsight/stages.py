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
