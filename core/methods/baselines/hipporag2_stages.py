"""HippoRAG 2's stage results as typed values: what its trace steps record and its step-through page reads by
attribute (Gutiérrez et al. 2025, §3.2; the released code's ``retrieve``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from core.trace import StageData


@dataclass(frozen=True)
class JointGraphData(StageData):
    """The graph the walk runs on (§3.1): phrase nodes joined by fact and synonym edges, and passage nodes
    joined to the phrases they contain."""

    STAGE: ClassVar[str] = "graph"
    KEEP_NONE: ClassVar[frozenset[str]] = frozenset({"synonym_threshold"})  # None: synonym edges off, said as null
    phrases: int  #: phrase (entity) nodes walked
    passages: int  #: passage nodes walked
    fact_pairs: int  #: phrase pairs joined by at least one fact
    passage_edges: int  #: passage–phrase edges (provenance)
    synonym_edges: int  #: phrase pairs joined by a synonym edge
    synonym_threshold: float | None
    synonyms: str  #: where the synonym pairs came from ("read from the workspace", "off", ...)
    seconds: float
    weights: str  #: how the edges are weighted, in words
    region: dict[str, Any] | None = None  #: the walked region (hops, cap, store) when not the whole graph


@dataclass(frozen=True)
class FactLinkingData(StageData):
    """Query-to-triple linking (§3.2): every fact scored against the question, min-max normalised, top-k kept."""

    STAGE: ClassVar[str] = "fact_linking"
    facts_scored: int
    linking_top_k: int
    #: the linked facts, best first: {"edge", "subject", "relation", "object", "score" (min-max), "cosine"}
    linked: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class RecognitionData(StageData):
    """Recognition memory (§3.2): which linked facts the LLM kept, or the stated fallback."""

    STAGE: ClassVar[str] = "recognition_memory"
    by: str  #: "llm" (the LLM's verdict), "unfiltered" (a fallback or the option off)
    offered: int  #: linked facts shown to the LLM
    kept: list[int] = field(default_factory=list)  #: positions (0-based) in the linked facts, in the LLM's order
    verdict: str = ""  #: what happened, in words


@dataclass(frozen=True)
class SeedsData(StageData):
    """The walk's reset weights (§3.2, ``graph_search_with_fact_entities``): phrase seeds from the kept facts and
    passage seeds from dense retrieval."""

    STAGE: ClassVar[str] = "seeds"
    #: phrase seeds kept, best first: {"node", "name", "weight", "facts", "passages"}
    phrase_seeds: list[dict[str, Any]] = field(default_factory=list)
    #: phrase seeds past ``linking_top_k`` (weight set to 0), same fields
    phrase_dropped: list[dict[str, Any]] = field(default_factory=list)
    passage_node_weight: float = 0.0
    passage_seed_mass: float = 0.0  #: Σ of the passage seed weights (before normalisation)
    phrase_seed_mass: float = 0.0  #: Σ of the phrase seed weights (before normalisation)
    #: the heaviest passage seeds: {"chunk_id", "title", "weight"}
    top_passage_seeds: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class WalkData(StageData):
    """The personalized PageRank over the joint graph and where its mass went (§3.2, ``run_ppr``)."""

    STAGE: ClassVar[str] = "ppr"
    damping: float
    iterations: int
    converged: bool
    nodes: int
    edges: int
    phrase_mass: float  #: Σ of the phrase nodes' PPR scores
    passage_mass: float  #: Σ of the passage nodes' PPR scores
    top_phrases: list[dict[str, Any]] = field(default_factory=list)  #: {"node", "name", "score"}
    top_passages: list[dict[str, Any]] = field(default_factory=list)  #: {"chunk_id", "title", "score"}


@dataclass(frozen=True)
class DenseFallbackData(StageData):
    """HippoRAG 2's dense passage retrieval, taken when no fact survives (its code's rule) or there is no fact."""

    STAGE: ClassVar[str] = "dense_fallback"
    why: str
    chunk_ids: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)  #: min-max-normalised cosine, as the code ranks them
