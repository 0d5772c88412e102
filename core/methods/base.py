"""What every retrieval method shares: the backends it runs with, and the result it returns.

A method is one package under ``core/methods/`` exposing ``run(query, workspace, *, config=None,
backends) -> result`` where ``result`` satisfies :class:`MethodResult`. Register it in
:data:`core.methods.registry.METHODS` and the CLI (``egx ask --method``), the comparison page and the
benchmark runner pick it up with no other change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from core.backends.base import LLM, Embedder, Reranker
from core.trace import Trace

if TYPE_CHECKING:
    from core.index.workspace import Workspace


@dataclass(frozen=True)
class Backends:
    """The models a method may use. ``reranker`` is None for methods that do not rerank."""

    embedder: Embedder
    llm: LLM
    reranker: Reranker | None = None

    def names(self) -> dict[str, str]:
        out = {"embedder": f"{self.embedder.name} ({self.embedder.model_id})",
               "llm": f"{self.llm.name} ({self.llm.model_id})"}
        if self.reranker is not None:
            out["reranker"] = f"{self.reranker.name} ({self.reranker.model_id})"
        return out

    def embed_query(self, query: str) -> np.ndarray:
        """The query's unit embedding, shape ``(dim,)`` (the embedder's query path, e.g. bge's instruction)."""
        return np.asarray(self.embedder.embed_queries([query])[0], dtype=np.float32)


@dataclass(frozen=True)
class RankedChunk:
    chunk_id: str
    score: float


@runtime_checkable
class MethodResult(Protocol):
    """Fields every method's result has (methods add their own intermediates)."""

    @property
    def method(self) -> str: ...

    @property
    def query(self) -> str: ...

    @property
    def ranked_chunks(self) -> tuple[RankedChunk, ...]:
        """Retrieved passages, best first (what retrieval metrics are computed on)."""
        ...

    @property
    def answer(self) -> str:
        """The generated (or, in ``none`` mode, extractive) answer; may be empty."""
        ...

    @property
    def trace(self) -> Trace: ...


class MethodRunner(Protocol):
    def __call__(self, query: str, workspace: Workspace, *, config: object | None = None,
                 backends: Backends) -> MethodResult: ...
