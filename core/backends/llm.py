"""LLM backends (chat + JSON output) and the shared :func:`chat_json` helper.

* :class:`NoLLM` — ``"none"``: no model; every caller takes its documented LLM-free fallback.
* :class:`OpenAILLM` — ``"openai"``: any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama,
  LM Studio), configured from the environment; the API key is never written to disk, logged or
  shown.
* :class:`LlamaCppLLM` — ``"local"`` / ``"local-small"``: llama.cpp running Qwen2.5-Coder 1.5B /
  0.5B Instruct (Q4_K_M) assembled from PyPI packages by :mod:`core.backends.gguf`.
* :class:`GuardedLLM` — what :func:`core.backends.registry.get_llm` returns around every available
  backend: the one place that bounds LLM waits (per-attempt wall-clock timeout, retries with
  backoff, a per-question budget, a circuit breaker) under :class:`LLMSettings`. Callers open a
  per-question scope with :func:`question_scope`; every failure surfaces as an :class:`LLMError`
  whose message names the setting to change, so each stage can take its visible fallback.

:func:`chat_json` adds what every JSON-producing step needs on top of ``LLM.chat``: parsing,
repair of almost-JSON, validation, and retries with a corrective follow-up message.
:func:`answer_problem` tells a usable text answer from a refusal or garbage.

This module holds :class:`NoLLM` and this map; each job lives in a module of its own and is imported from it
(no names are re-exported here).

=======================  =========================================================
``llm_errors``           the errors every backend raises; where each limit is set
``llm_openai``           :class:`OpenAILLM`
``llm_transport``        its HTTP transport: the reply size cap, connections an abandoned attempt shuts
``llm_local``            :class:`LlamaCppLLM`, its prompt-state cache, decoding options
``llm_guard``            :class:`LLMSettings`, :func:`question_scope`, :class:`GuardedLLM`
``llm_attempt``          what a backend sees of the guard's attempt: its deadline, its abandonment
``llm_json``             :func:`chat_json`
``answer_check``         :func:`check_answer`, :func:`answer_problem`
=======================  =========================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.backends.base import ChatMessage, LLMResponse
from core.backends.llm_errors import NO_LLM_MESSAGE
from core.errors import LLMUnavailableError


class NoLLM:
    """The ``none`` backend: no model at all.

    ``available`` is False and :meth:`chat` raises :class:`LLMUnavailableError`; callers check
    ``available`` first and take their deterministic, LLM-free fallback (keywords from the query
    text, embedding-based grouping, extractive answers, rule-based triples).
    """

    name = "none"
    model_id = "none"
    available = False

    def __repr__(self) -> str:
        return "NoLLM()"

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
             temperature: float = 0.0, json_schema: dict[str, Any] | None = None) -> LLMResponse:
        """Always raises :class:`LLMUnavailableError`."""
        raise LLMUnavailableError(NO_LLM_MESSAGE)
