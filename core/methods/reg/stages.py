"""ReG's stage results as typed values (what the steps record and the views read by attribute)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from core.trace import StageData, StepNotes


@dataclass(frozen=True, kw_only=True)
class ScoreData(StepNotes):
    """The ``score`` step (ReG D.3 Eqs. 33–34, App. E): which retriever scored the neighbourhood's triples and the
    top-K it kept. Its notes (:class:`~core.trace.StepNotes`) are what every view of a ReG run shows: that the
    retriever was not trained or trained on weak supervision (``notice``), that it scores below cosine
    (``more_notices``) or below it by less than noise (``quiet_notes``), and the untrained fallback in the app's
    words (``fallback_app``)."""

    STAGE: ClassVar[str] = "score"
    retriever: str  #: "ReG@Triple", "ReG@Entity" or "cosine" (the untrained fallback)
    scorer: str  #: :func:`~core.methods.reg.retriever.scorer_label`
    model_dir: str
    scored: int  #: the triples scored
    top_k: int
    kept: list[dict[str, Any]]  #: {"triple", "score", "edge"} of each kept triple, best first
    merged_parallel: int | None = None  #: ReG@Entity: parallel relations merged into one triple (App. E)


@dataclass(frozen=True, kw_only=True)
class NeighbourhoodData(StageData):
    """The ``neighbourhood`` step (App. E): the triples within ``hops`` of the query entities that the retriever
    scores, and, for a graph read from a store, the region read (:meth:`core.graph.reader.Region.region_data`; all
    None in memory, where nothing was read)."""

    STAGE: ClassVar[str] = "neighbourhood"
    hops: int
    triples: int  #: the triples scored (at most max_candidates)
    before_cap: int  #: the triples within the hops before max_candidates
    store: str | None = None
    region_hops: int | None = None
    hops_requested: int | None = None
    capped: bool | None = None
    region_nodes: int | None = None
    region_edges: int | None = None
    region_max_nodes: int | None = None
    of_nodes: int | None = None
    store_seconds: float | None = None
