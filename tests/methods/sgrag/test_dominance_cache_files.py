"""SG-RAG's cached dominance model is data: read only when it is a regular file no larger than the model
and node embeddings it can hold, with this graph's input width; anything else is retrained, visibly."""

from __future__ import annotations

from core.methods.sgrag.config import DominanceConfig
from core.methods.sgrag.dominance import load_or_train
from tests.methods.sgrag.conftest import label_features


def _cached(bridge_graph, tmp_path):
    labels, lv = label_features(bridge_graph, dim=16)
    feats = lv[labels.of_node]
    cfg = DominanceConfig(max_epochs=2)
    load_or_train(bridge_graph, feats, tmp_path, "hash16", config=cfg)
    (cache,) = tmp_path.glob("dominance-*.pt")
    return feats, cfg, cache


def test_a_dominance_cache_linked_to_dev_zero_is_retrained_not_read(bridge_graph, tmp_path):
    feats, cfg, cache = _cached(bridge_graph, tmp_path)
    cache.unlink()
    cache.symlink_to("/dev/zero")
    m = load_or_train(bridge_graph, feats, tmp_path, "hash16", config=cfg)
    assert not m.from_cache
    assert m.note.startswith(f"the cached dominance model {cache.name} was rejected (DataFileError: The cached "
                             f"dominance model {cache} is a character device, not a regular file; it was not read.")
    assert not cache.is_symlink()  # replaced by a clean file: the rename replaces the link, never /dev/zero


def test_a_dominance_cache_larger_than_its_model_is_retrained_not_read(bridge_graph, tmp_path):
    feats, cfg, cache = _cached(bridge_graph, tmp_path)
    with cache.open("ab") as fh:
        fh.write(b"\0" * (17 * 2**20))
    m = load_or_train(bridge_graph, feats, tmp_path, "hash16", config=cfg)
    assert "was rejected (DataFileError: " in m.note and "more than any cached dominance model can be" in m.note


def test_a_dominance_cache_of_another_input_width_is_retrained(bridge_graph, tmp_path):
    import torch

    feats, cfg, cache = _cached(bridge_graph, tmp_path)
    d = torch.load(cache, weights_only=True)
    d["in_dim"] = 10**9  # a model built from it would allocate gigabytes
    torch.save(d, cache)
    m = load_or_train(bridge_graph, feats, tmp_path, "hash16", config=cfg)
    assert "was rejected (ValueError: input width 1000000000 for node features of width 16)" in m.note
