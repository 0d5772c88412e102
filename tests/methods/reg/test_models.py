"""Which trained retriever `reg` uses, what identifies it (``Method.stamp``) and which questions it saw
(``Method.trained_on``): read from the model folder's manifest, without loading the model."""

from __future__ import annotations

import json

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.reg.config import RegConfig
from core.methods.reg.models import stamp, trained_on, used_model
from core.methods.reg.retriever import FORMAT, MANIFEST_FILE, MODEL_FILE


@pytest.fixture
def demo(tmp_path):
    emb = HashingEmbedder(dim=32)
    return ensure_sample_workspace("demo", emb, root=tmp_path / "ws"), Backends(emb, NoLLM())


def _save(folder, **manifest):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MODEL_FILE).write_bytes(b"weights v1")
    (folder / MANIFEST_FILE).write_text(json.dumps({"format": FORMAT, "version": 1, "unit": "triple", **manifest}))


def test_a_model_that_does_not_fit_is_the_cosine_fallback_and_saw_no_question(demo):
    ws, b = demo  # the demo ships a retriever trained with bge-small: not this embedder's
    assert used_model(ws, b, RegConfig()) is None
    assert stamp(ws, b, RegConfig()) == {"ReG@Triple retriever": "none (the untrained cosine fallback)"}
    assert trained_on(ws, b, RegConfig()) == frozenset()


def test_the_workspaces_own_model_is_identified_by_its_files_and_names_its_training_questions(demo):
    ws, b = demo
    folder = ws.path / "reg" / "retriever"
    split = {"train": ["t1", "t2"], "val": ["v1"], "test": ["matrix-villain"]}
    _save(folder, graph_hash=ws.content_hash, embedder=b.embedder.model_id, split=split)
    first = stamp(ws, b, RegConfig())["ReG@Triple retriever"]
    assert first.startswith("sha256:") and first == stamp(ws, b, None)["ReG@Triple retriever"]
    assert trained_on(ws, b, RegConfig()) == {"t1", "t2", "v1"}  # never the held-out test split
    (folder / MODEL_FILE).write_bytes(b"weights v2")  # retrained: same manifest keys, other weights
    assert stamp(ws, b, RegConfig())["ReG@Triple retriever"] != first
    # the entity unit reads its own folder
    assert stamp(ws, b, RegConfig(retriever="entity")) == {
        "ReG@Entity retriever": "none (the untrained cosine fallback)"}
    # a copy of a model trained on another graph's questions (the demo's copy of the MuSiQue model) saw none of these
    _save(folder, graph_hash=ws.content_hash, trained_on_graph="another-graph", embedder=b.embedder.model_id,
          split=split)
    assert trained_on(ws, b, RegConfig()) == frozenset()
    # trained on another graph altogether: refused at load time, so the cosine fallback runs
    _save(folder, graph_hash="another-graph", embedder=b.embedder.model_id, split=split)
    assert used_model(ws, b, RegConfig()) is None and trained_on(ws, b, RegConfig()) == frozenset()
