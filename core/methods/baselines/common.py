"""What the baselines share: their result type and small helpers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.errors import QueryError
from core.methods.base import RankedChunk
from core.trace import Trace

if TYPE_CHECKING:
    pass

NO_RERANKER = "none (this method does not rerank)"


@dataclass(frozen=True, eq=False)
class BaselineResult:
    """A baseline's answer: the method contract plus the reranker in use and method details."""

    method: str
    query: str
    ranked_chunks: tuple[RankedChunk, ...]
    answer: str
    trace: Trace
    reranker: str = NO_RERANKER  #: registry name and model id of the reranker, or that none was used
    reranker_description: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def evidence_nodes(self) -> tuple[int, ...]:
        """PPR's seed entities (on an entity graph; a corpus graph's seeds are passages)."""
        if self.details.get("graph") == "corpus graph":
            return ()
        return tuple(int(s["node"]) for s in self.details.get("seeds", []))


def check_query(query: str) -> None:
    if not query or not query.strip():
        raise QueryError("The question is empty. Type a question to retrieve passages for.")
