"""Backends: Embedder, Reranker, LLM and TripleExtractor protocols, a registry of names, and
implementations that import their heavy dependencies (torch, transformers, llama_cpp, openai)
only when built.

>>> from core.backends import get_embedder, list_backends
>>> list_backends()["llm"]
['none', 'local', 'local-small', 'openai']
"""

from __future__ import annotations

from core.backends.base import (
    LLM,
    ChatMessage,
    Embedder,
    ExtractedTriple,
    LLMResponse,
    Reranker,
    TripleExtractor,
)
from core.backends.registry import (
    default_extractor,
    describe,
    get_embedder,
    get_extractor,
    get_llm,
    get_reranker,
    list_backends,
)

__all__ = [
    "LLM",
    "ChatMessage",
    "Embedder",
    "ExtractedTriple",
    "LLMResponse",
    "Reranker",
    "TripleExtractor",
    "default_extractor",
    "describe",
    "get_embedder",
    "get_extractor",
    "get_llm",
    "get_reranker",
    "list_backends",
]
