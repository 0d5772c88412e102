"""Fixtures for backend tests: a scripted fake LLM and a tiny random BERT cross-encoder saved to
disk (the local OpenAI-compatible server is ``tests/fake_openai.py``, fixture ``openai_server``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from core.backends.base import ChatMessage, LLMResponse


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "model: uses a real model shipped in a PyPI package (MiniLM, Qwen GGUF); runs in CI")


class ScriptedLLM:
    """Deterministic fake LLM: returns the scripted outputs in order and records every call."""

    available = True

    def __init__(self, outputs: Sequence[str], name: str = "scripted") -> None:
        self.outputs = list(outputs)
        self.name = name
        self.model_id = f"fake:{name}"
        self.calls: list[dict[str, Any]] = []

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0,
             json_schema: dict[str, Any] | None = None) -> LLMResponse:
        self.calls.append({"messages": list(messages), "max_tokens": max_tokens, "json_schema": json_schema})
        if not self.outputs:
            raise AssertionError(f"ScriptedLLM ran out of outputs after {len(self.calls) - 1} calls")
        return LLMResponse(text=self.outputs.pop(0), prompt_tokens=10, completion_tokens=5,
                           model=self.model_id, latency_s=0.01)


@pytest.fixture
def scripted_llm() -> type[ScriptedLLM]:
    return ScriptedLLM


TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"""
keanu reeves starred in the matrix with laurence fishburne who played agent smith film movie actor
hugo weaving photosynthesis plants light energy sun leaf green chlorophyll water carbon a an of and
is was did what which when where born died year city river mountain john wick directed by
wachowskis 1999 sequel released warner bros lothair ii mother ermengarde tours king son daughter
question answer passage evidence graph node edge chain retrieval rerank score , . ? ! ##s ##ed ##ing
""".split()]


@pytest.fixture(scope="session")
def tiny_vocab() -> list[str]:
    return list(TINY_VOCAB)


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised 1-layer BERT cross-encoder (num_labels=1) + WordPiece tokenizer."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    d = tmp_path_factory.mktemp("tiny_bert")
    vocab = d / "vocab.txt"
    vocab.write_text("\n".join(TINY_VOCAB) + "\n", encoding="utf-8")
    tok = BertTokenizer(vocab_file=str(vocab), do_lower_case=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(TINY_VOCAB), hidden_size=32, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=37, num_labels=1,
                        max_position_embeddings=128)
    model = BertForSequenceClassification(config).eval()
    tok.save_pretrained(d)
    model.save_pretrained(d)
    return d
