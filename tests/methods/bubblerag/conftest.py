"""Fixtures for the BubbleRAG tests that use the real MiniLM embedder: the demo sample built with it
(kept in ``.cache/test-samples`` between runs)."""

from __future__ import annotations

import pytest

from core.backends.registry import get_embedder


@pytest.fixture(scope="module")
def minilm():
    return get_embedder("minilm")


@pytest.fixture(scope="module")
def demo(minilm, real_sample):
    return real_sample("demo", minilm)
