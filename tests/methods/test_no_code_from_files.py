"""No model or cache file a user could have made is ever unpickled as code.

A pickle whose ``__reduce__`` calls ``os.system`` is planted where SG-RAG's dominance cache and
ReG's trained retriever live; loading must not run it (the marker file is never created) and the
run must say the file was rejected (a trace fallback), then carry on.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from core.errors import WorkspaceError
from core.methods.sgrag.config import DominanceConfig
from core.methods.sgrag.dominance import load_or_train
from tests.methods.sgrag.conftest import label_features


class _Evil:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {self.marker}",))


def plant(path: Path, marker: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(_Evil(marker), protocol=2))


def test_a_malicious_dominance_cache_is_rejected_not_run(bridge_graph, tmp_path):
    labels, lv = label_features(bridge_graph, dim=16)
    feats = lv[labels.of_node]
    cfg = DominanceConfig(max_epochs=3)
    first = load_or_train(bridge_graph, feats, tmp_path, "hash16", config=cfg)
    (cache,) = tmp_path.glob("dominance-*.pt")
    marker = tmp_path / "PWNED"
    plant(cache, marker)
    m = load_or_train(bridge_graph, feats, tmp_path, "hash16", config=cfg)
    assert not marker.exists()
    assert not m.from_cache
    assert m.note.startswith(f"the cached dominance model {cache.name} was rejected (UnpicklingError: ")
    assert m.note.endswith("; retrained and replaced it")
    np.testing.assert_array_equal(m.node_emb, first.node_emb)  # seeded retraining: the same model
    again = load_or_train(bridge_graph, feats, tmp_path, "hash16", config=cfg)
    assert again.from_cache and again.note == ""  # the replacement is a clean weights file


def test_a_dominance_cache_of_the_wrong_shape_is_retrained(bridge_graph, tmp_path):
    import torch

    labels, lv = label_features(bridge_graph, dim=16)
    cfg = DominanceConfig(max_epochs=2)
    load_or_train(bridge_graph, lv[labels.of_node], tmp_path, "hash16", config=cfg)
    (cache,) = tmp_path.glob("dominance-*.pt")
    d = torch.load(cache, weights_only=True)
    d["node_emb"] = torch.zeros(3, 4)
    torch.save(d, cache)
    m = load_or_train(bridge_graph, lv[labels.of_node], tmp_path, "hash16", config=cfg)
    assert "was rejected (ValueError: node embeddings of shape torch.Size([3, 4])" in m.note


@pytest.mark.slow
def test_sgrag_run_records_the_rejected_cache_in_its_trace(tmp_path):
    from core.backends.registry import get_embedder, get_llm
    from core.index.create import create_workspace
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.sgrag import pipeline
    from tests.conftest import SAMPLE_DATA

    emb = get_embedder("hashing")
    ws = create_workspace([SAMPLE_DATA / "demo" / "triples.csv"], tmp_path / "w", embedder=emb)
    b = Backends(emb, get_llm("none"))
    pipeline.run("Which film starred Keanu Reeves?", ws, backends=b)
    (cache,) = (tmp_path / "w" / "sgrag").glob("dominance-*.pt")
    marker = tmp_path / "PWNED"
    plant(cache, marker)
    ws = Workspace.open(ws.path)  # a new process: a fresh graph, nothing prepared in memory
    res = pipeline.run("Which film starred Keanu Reeves?", ws, backends=b)
    assert not marker.exists()
    step = next(s for s in res.trace.steps if s.stage == "dominance_model")
    assert "was rejected (UnpicklingError" in step.fallback


def test_a_malicious_reg_retriever_is_rejected_not_run(tmp_path):
    import json

    from core.methods.reg.retriever import FORMAT, load_retriever

    folder = tmp_path / "reg" / "retriever"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"format": FORMAT, "version": 1, "in_dim": 8, "hidden": 4}))
    marker = tmp_path / "PWNED"
    plant(folder / "model.pt", marker)
    with pytest.raises(WorkspaceError, match=r"^The ReG retriever file .*model\.pt was rejected \(UnpicklingError: "
                                             r".*train one with `egx train-reg --workspace W --questions FILE`\.$"):
        load_retriever(folder)
    assert not marker.exists()


def test_reg_run_falls_back_visibly_on_a_rejected_retriever(tmp_path):
    import json

    from core.backends.registry import get_embedder, get_llm
    from core.index.create import create_workspace
    from core.methods.base import Backends
    from core.methods.reg.pipeline import run
    from core.methods.reg.retriever import FORMAT
    from tests.conftest import SAMPLE_DATA

    emb = get_embedder("hashing")
    ws = create_workspace([SAMPLE_DATA / "demo" / "triples.csv"], tmp_path / "w", embedder=emb)
    folder = ws.path / "reg" / "retriever"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"format": FORMAT, "version": 1, "embedder": emb.model_id,
                                                      "in_dim": 8, "hidden": 4}))
    marker = tmp_path / "PWNED"
    plant(folder / "model.pt", marker)
    res = run("Who starred in The Matrix?", ws, backends=Backends(emb, get_llm("none")))
    assert not marker.exists()
    step = next(s for s in res.trace.steps if s.stage == "score")
    assert "was rejected (UnpicklingError" in step.fallback and "Scoring by query–triple cosine" in step.fallback
