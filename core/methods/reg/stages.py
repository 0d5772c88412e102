"""ReG's stage results as typed values (what the steps record and the views read by attribute)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from core.trace import StepNotes


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
