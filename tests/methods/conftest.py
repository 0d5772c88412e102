"""Fixtures for method tests (FastInsight, baselines): workspaces built once per session with the hashing embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.index.create import create_workspace
from core.index.samples import ensure_sample_workspace
from core.index.workspace import Workspace
from core.methods.base import Backends
from tests.methods.fastinsight.helpers import tiny_bert, write_corpus_graph


@pytest.fixture(scope="session")
def hashing() -> HashingEmbedder:
    return HashingEmbedder(dim=128)


@pytest.fixture(scope="session")
def backends(hashing: HashingEmbedder) -> Backends:
    return Backends(hashing, NoLLM(), BiEncoderReranker(hashing))


@pytest.fixture(scope="session")
def demo_ws(tmp_path_factory: pytest.TempPathFactory, hashing: HashingEmbedder) -> Workspace:
    return ensure_sample_workspace("demo", hashing, root=tmp_path_factory.mktemp("ws_demo"))


@pytest.fixture(scope="session")
def corpus_ws(tmp_path_factory: pytest.TempPathFactory, hashing: HashingEmbedder) -> Workspace:
    root = tmp_path_factory.mktemp("ws_corpus")
    return create_workspace(write_corpus_graph(root / "in"), root / "cg", name="cg", embedder=hashing)


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_bert(tmp_path_factory.mktemp("tiny_bert"))
