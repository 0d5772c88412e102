"""SG-RAG's stage results as typed values (what the steps record and the Subgraph page reads by attribute)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from core.trace import StageData


@dataclass(frozen=True)
class DominanceModelData(StageData):
    """The dominance model ℳ used for the question (§4.2, App. C, Alg. 2)."""

    STAGE: ClassVar[str] = "dominance_model"
    from_cache: bool
    epochs: int
    converged: bool
    final_loss: float
    losses: list[float]
    device: str
    dim: int
    train_seconds: float
    key: str = ""
    cache_note: str = ""
    dominance_filter: bool = True


@dataclass(frozen=True)
class PathIndexData(StageData):
    """The path index I_l the matching searched (§4.2, Eq. 4)."""

    STAGE: ClassVar[str] = "index"
    l: int  # noqa: E741 (the paper's name)
    paths: int
    dimension: int
    sem_dims: int
    dom_dims_per_node: int
    build_seconds: float


@dataclass(frozen=True)
class CompletionData(StageData):
    """UNK label completion (§4.3, App. E, Algs. 5-6): each unknown node's candidate labels."""

    STAGE: ClassVar[str] = "completion"
    unknown: list[str]
    candidates: dict[str, list[str | int]]
    found: dict[str, int]
    max_candidates: int
    n_product: int
    instantiations: int
    max_instantiations: int
    intersect: bool = True
    capped_candidates: bool = False
    capped_instantiations: bool = False
    paths_used: dict[str, list[list[str]]] = field(default_factory=dict)


@dataclass(frozen=True)
class QueryGraphData(StageData):
    """The query graph q* (§4.3, App. D, Table 12) and the checks that changed the model's reply."""

    STAGE: ClassVar[str] = "query_graph"
    query_graph: dict[str, Any]
    described_as_unk: list[str] | None = None  #: labels the question only describes → UNK (None: none)
    merged_unknowns: list[list[str]] | None = None  #: UNK leaves on one node, merged (None: none)
    described_not_linked: list[str] | None = None  #: bridge star: described words not linked (None: none)
    rejected: dict[str, Any] | None = None  #: the LLM's query graph when a check rejected it
    heuristic: str | None = None  #: the `none`-mode bridge star's description, when it was used
    mentions: list[str] | None = None
    possessives: dict[str, str] | None = None
    limitation: str | None = None

    def repairs(self) -> list[str]:
        """The checks that changed the query graph, in words (for the page)."""
        out = []
        if self.described_as_unk:
            out.append("made UNK, since the question only describes them: " + ", ".join(map(repr, self.described_as_unk)))
        for ids in self.merged_unknowns or ():
            out.append(f"UNK leaves {', '.join(ids)} on one node merged into {ids[0]} (matching is injective: k leaves "
                       "would need k distinct neighbours)")
        if self.described_not_linked:
            out.append("not linked as entities, since the question only describes them: "
                       + ", ".join(map(repr, self.described_not_linked)))
        return out
