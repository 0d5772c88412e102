"""BubbleRAG's stage results as typed values (what the steps record and the pages and diagnosis read by attribute)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from core.methods.evidence.formats import AnswerStepData


@dataclass(frozen=True)
class EarlyExitData(AnswerStepData):
    """The early exit (§3.2): the pre-retrieved chunks were judged sufficient, so their answer is the run's
    answer and graph retrieval is skipped. It records what an answer step records (read with it through
    :func:`~core.methods.evidence.formats.answering_steps`) and why the check judged them sufficient."""

    STAGE: ClassVar[str] = "early_exit"
    reason: str | None = None
