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
