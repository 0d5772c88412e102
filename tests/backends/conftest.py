"""Fixtures for backend tests: the scripted fake LLM (tests/fakes.py) as a strict factory and a tiny
random BERT cross-encoder saved to disk (the local OpenAI-compatible server is ``tests/fake_openai.py``,
fixture ``openai_server``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import ScriptedLLM


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "model: uses a real model shipped in a PyPI package (MiniLM, Qwen GGUF); runs in CI")


@pytest.fixture
def scripted_llm() -> Callable[[Sequence[str]], ScriptedLLM]:
    """A strict :class:`tests.fakes.ScriptedLLM` from a list of replies: a call past the list fails."""
    return lambda replies: ScriptedLLM(*replies, repeat_last=False)


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


@pytest.fixture(scope="module")
def ex() -> Any:
    """The spaCy extractor, one process (a test module may define its own ``ex``); imported here, when used."""
    from core.backends.spacy_extractor import SpacyExtractor

    return SpacyExtractor(n_process=1)
