"""Backend contracts: small Protocols every implementation satisfies.

Kept deliberately tiny (one or two required methods each, as in simonw/llm): conveniences such as
JSON repair, retries and batching are built on top in :mod:`core.backends.llm` and friends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalized float32 vectors of a fixed dimension.

    Two entry points, because retrieval models are often asymmetric: :meth:`embed_queries` for
    search queries (a question searched against passages, nodes or edges) and :meth:`embed` for
    everything else — passages, node names, edge texts, and texts compared symmetrically (entity
    linking, sentence selection). Models with a query instruction (bge) apply it only in
    :meth:`embed_queries`; symmetric models return the same vectors from both.
    """

    @property
    def name(self) -> str:
        """Registry name, e.g. ``"minilm"``."""
        ...

    @property
    def model_id(self) -> str:
        """What goes into index manifests (a change rebuilds the index)."""
        ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Passages (and symmetric texts): an ``(len(texts), dim)`` float32 array with unit-norm rows."""
        ...

    def embed_queries(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Search queries: an ``(len(texts), dim)`` float32 array with unit-norm rows."""
        ...


@runtime_checkable
class Reranker(Protocol):
    """A reranker split at its head so GRanker can smooth pre-head features (FastInsight §3.3)."""

    @property
    def name(self) -> str: ...

    @property
    def model_id(self) -> str: ...

    @property
    def linear_head(self) -> bool:
        """True when ``head`` is linear, so smoothing features equals smoothing scores."""
        ...

    @property
    def description(self) -> str:
        """One sentence shown in the UI: what this reranker is and what that implies."""
        ...

    def features(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Pre-head features ``H`` of shape ``(len(passages), f)``."""
        ...

    def head(self, features: np.ndarray) -> np.ndarray:
        """Relevance scores of shape ``(n,)`` from features ``H``."""
        ...


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "system" | "user" | "assistant"
    content: str


#: what :class:`LLMResponse.notes` says of a reply that stopped at ``max_tokens``
TRUNCATED_NOTE = "stopped at max_tokens (truncated)"


@dataclass(frozen=True)
class LLMResponse:
    """One completion with its accounting."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    latency_s: float = 0.0
    attempts: int = 1
    repaired: bool = False  #: JSON output needed repair
    data: Any = None  #: parsed JSON, when JSON was requested
    notes: tuple[str, ...] = field(default_factory=tuple)
    cached: bool = False  #: answered from the LLM cache or a recording (no LLM time spent)
    cache_key: str = ""  #: the request's cache key, when a cache saw it
    original_latency_s: float = 0.0  #: for a cached answer, what the LLM took when it was recorded
    #: the reply stopped at ``max_tokens`` (``finish_reason: "length"``): never cached, shown as truncated
    truncated: bool = False


@runtime_checkable
class LLM(Protocol):
    """Chat completion with optional JSON output."""

    @property
    def name(self) -> str: ...

    @property
    def model_id(self) -> str: ...

    @property
    def available(self) -> bool:
        """False for the ``none`` backend: callers must take their documented fallback."""
        ...

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0,
             json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """One completion. With ``json_schema`` the backend constrains output where it can."""
        ...


class LLMWrapper:
    """Base of an LLM that wraps another (the guard, the cache): it is named, identified and available as
    its ``inner`` backend is, and any other attribute is the inner backend's."""

    inner: Any

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def model_id(self) -> str:
        return str(self.inner.model_id)

    @property
    def available(self) -> bool:
        return bool(self.inner.available)

    def __getattr__(self, item: str) -> Any:
        inner = self.__dict__.get("inner")
        if inner is None or item.startswith("__"):
            raise AttributeError(item)
        return getattr(inner, item)



def split_passage(passage: str) -> tuple[str | None, str]:
    r"""``(title, text)`` of a passage handed to a :class:`TripleExtractor`.

    The convention: ``"title\ntext"``; a passage without a title starts with ``"\n"`` (what
    :func:`core.graph.builder.extract_triples` hands over for an untitled chunk), so the first line of
    an untitled multi-line text is never taken for a title. Text with no newline has no title.

    >>> split_passage("Lothair II\nHe was born in 835.")
    ('Lothair II', 'He was born in 835.')
    >>> split_passage("\nIn 1990 the firm moved.\nIt grew fast.")
    (None, 'In 1990 the firm moved.\nIt grew fast.')
    """
    text = str(passage)
    head, sep, rest = text.partition("\n")
    if not sep:
        return None, text
    title = " ".join(head.split())
    return (title or None), rest


#: What opens a passage handed with the passage before it (:func:`with_previous`): a control character, which no
#: stored passage holds (:func:`core.text.safe_text` drops them).
_PREVIOUS = "\x1d"


def with_previous(passage: str, previous: str) -> str:
    r"""``passage`` handed to an extractor together with the text of the passage before it in the same document.

    Only extractors whose ``reads_previous`` is true get this form (the workspace builder checks); they read
    it back with :func:`split_previous`. A pronoun that opens the passage ("He bought the chalice") may then stand
    for the person the previous paragraph ended on.

    >>> split_previous(with_previous("Museum\nHe bought it.", "Its director was Owen Pike."))
    ('Its director was Owen Pike.', 'Museum\nHe bought it.')
    """
    return f"{_PREVIOUS}{previous.replace(_PREVIOUS, ' ')}{_PREVIOUS}{passage}" if previous.strip() else passage


def split_previous(passage: str) -> tuple[str | None, str]:
    r"""``(previous text or None, passage)`` of what :func:`with_previous` made; a plain passage is ``(None, it)``.

    >>> split_previous("Museum\nHe bought it.")
    (None, 'Museum\nHe bought it.')
    """
    text = str(passage)
    if not text.startswith(_PREVIOUS):
        return None, text
    end = text.find(_PREVIOUS, 1)
    if end < 0:
        return None, text[1:]
    return text[1:end], text[end + 1:]


@dataclass(frozen=True)
class ExtractedTriple:
    head: str
    relation: str
    tail: str


@runtime_checkable
class TripleExtractor(Protocol):
    """Turns passages into (head, relation, tail) triples (BubbleRAG §3.1 step 2).

    An extractor may set ``reads_previous = True``: the workspace builder then hands it each passage of a
    document after the first with the text of the passage before it (:func:`with_previous`)."""

    @property
    def name(self) -> str: ...

    @property
    def model_id(self) -> str:
        """Part of the per-chunk extraction cache key."""
        ...

    def extract(self, passages: Sequence[str]) -> list[list[ExtractedTriple]]:
        """One list of triples per passage, in order."""
        ...


#: One extraction batch's outcome: triples per passage, the positions whose extraction failed
#: (not cached, retried next build) and the extractor's notes.
BatchExtraction = tuple[list[list[ExtractedTriple]], set[int], list[str]]


def extract_batch(extractor: TripleExtractor, passages: Sequence[str]) -> BatchExtraction:
    """Run ``extractor`` on one batch: its ``extract_detailed`` when it has one (failures and notes),
    else ``extract`` (no failures)."""
    detailed = getattr(extractor, "extract_detailed", None)
    if detailed is not None:
        res = detailed(list(passages))
        return list(res.triples), set(res.failed), list(res.notes)
    return list(extractor.extract(list(passages))), set(), []


@runtime_checkable
class BatchRunner(Protocol):
    """Where the heavy batch work of a workspace build runs: embedding and triple extraction.

    ``None`` wherever a runner is accepted means this process (the default). The Ray runner
    (:class:`core.batch.ray_runner.RayRunner`, ``egx index --ray``) spreads the same batches over model-holding
    actors and returns the same vectors and triples.
    """

    def describe(self) -> dict[str, Any]:
        """What the manifest records about where the work ran (backend, address, workers)."""
        ...

    def embed(self, embedder: Embedder, texts: dict[str, list[str]],
              progress: Any = None) -> dict[str, np.ndarray]:
        """``(len(texts[k]), embedder.dim)`` float32 rows per key, row i the embedding of ``texts[k][i]``."""
        ...

    def extract(self, extractor: TripleExtractor, batches: Sequence[Sequence[str]]) -> Any:
        """Iterate ``(batch position, BatchExtraction)`` for every batch, in any order."""
        ...
