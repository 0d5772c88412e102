"""Fakes for the ReG tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.backends.base import ChatMessage, LLMResponse


class ScriptedLLM:
    """Returns the scripted outputs in order (the last one repeats) and records every prompt."""

    name, available = "scripted", True

    def __init__(self, *outputs: str) -> None:
        self.outputs = list(outputs)
        self.model_id = "fake:scripted"
        self.calls: list[list[ChatMessage]] = []

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0,
             json_schema: dict[str, Any] | None = None) -> LLMResponse:
        self.calls.append(list(messages))
        out = self.outputs.pop(0) if len(self.outputs) > 1 else self.outputs[0]
        return LLMResponse(text=out, prompt_tokens=11, completion_tokens=4, model=self.model_id)
