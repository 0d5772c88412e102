"""Hashing embedder invariants, device selection, sentence-transformers error messages."""

from __future__ import annotations

import numpy as np
import pytest

from core.backends.device import select_device
from core.backends.embedders import HashingEmbedder, SentenceTransformerEmbedder
from core.errors import BackendError


def test_hashing_shape_dtype_and_unit_norm():
    e = HashingEmbedder(dim=64)
    v = e.embed(["Keanu Reeves", "", "!!!", "The Matrix (1999)"])
    assert v.shape == (4, 64) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-6)
    assert e.embed([]).shape == (0, 64)


def test_hashing_is_deterministic_and_seeded():
    texts = ["Laurence Fishburne", "photosynthesis in plants"]
    a = HashingEmbedder(dim=128, seed=0).embed(texts)
    np.testing.assert_array_equal(a, HashingEmbedder(dim=128, seed=0).embed(texts))
    assert not np.allclose(a, HashingEmbedder(dim=128, seed=1).embed(texts))
    assert HashingEmbedder(dim=128, seed=1).model_id != HashingEmbedder(dim=128, seed=0).model_id


def test_hashing_similar_texts_are_closer():
    e = HashingEmbedder()
    q, near, far = e.embed(["Keanu Reeves", "Keanu Reeves actor", "photosynthesis"])
    assert q @ near > q @ far + 0.3
    q, near, far = e.embed(["who directed the matrix", "The Matrix was directed by the Wachowskis",
                            "green leaves absorb light energy"])
    assert q @ near > q @ far


def test_hashing_case_insensitive_and_empty_text_is_fixed():
    e = HashingEmbedder(dim=32)
    a, b, c, d = e.embed(["Keanu", "keanu", "", "..."])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(c, d)


def test_hashing_rejects_tiny_dim():
    with pytest.raises(BackendError, match="dim must be at least 2, got 1"):
        HashingEmbedder(dim=1)


def test_missing_sentence_transformer_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    with pytest.raises(BackendError, match=r"^Sentence-transformers model 'egx-test/no-such-model' is not in the local "
                                           r"Hugging Face cache and downloads are off \(HF_HUB_OFFLINE=1\)\. Unset "
                                           r"HF_HUB_OFFLINE .* pass the folder: 'st:/path/to/model'\. Or use the bundled "
                                           r"embedders 'bge-small' or 'minilm'\.$"):
        SentenceTransformerEmbedder("egx-test/no-such-model")


# --- device selection ---------------------------------------------------------------------------

@pytest.fixture
def fake_torch(monkeypatch):
    import torch

    state = {"cuda": False, "mps": False}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: state["cuda"])
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: state["mps"])
    monkeypatch.delenv("EGX_DEVICE", raising=False)
    return state


def test_device_auto(fake_torch):
    assert select_device() == "cpu"
    fake_torch["mps"] = True
    assert select_device() == "mps"
    fake_torch["cuda"] = True
    assert select_device() == "cuda"
    assert select_device("auto") == "cuda"


def test_device_prefer_and_env(fake_torch, monkeypatch):
    fake_torch["cuda"] = True
    assert select_device("cpu") == "cpu"
    assert select_device("cuda:1") == "cuda:1"
    monkeypatch.setenv("EGX_DEVICE", "cpu")
    assert select_device() == "cpu"
    assert select_device("cuda") == "cuda"  # the argument beats the environment


def test_device_cuda_requested_but_absent(fake_torch, monkeypatch):
    with pytest.raises(BackendError, match=r"Device 'cuda' was requested \(from argument prefer\) but torch sees no CUDA GPU"):
        select_device("cuda")
    monkeypatch.setenv("EGX_DEVICE", "cuda")
    with pytest.raises(BackendError, match=r"from environment variable EGX_DEVICE"):
        select_device()


def test_device_unknown(fake_torch):
    with pytest.raises(BackendError, match=r"Unknown device 'tpu' \(from argument prefer\)\. Use one of auto, cpu, cuda, mps\."):
        select_device("tpu")
