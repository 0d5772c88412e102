"""Rerankers split at their head: bi-encoder, HF cross-encoder (tiny random BERT), LLM yes/no."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.backends import get_reranker
from core.backends.embedders import HashingEmbedder
from core.backends.rerankers import BiEncoderReranker, HFCrossEncoderReranker, LLMYesNoReranker
from core.errors import BackendError, LLMUnavailableError

PASSAGES = ["Keanu Reeves starred in The Matrix.", "Plants use photosynthesis.",
            "Laurence Fishburne played Morpheus in The Matrix."]


def test_biencoder_head_of_features_is_cosine():
    emb = HashingEmbedder(dim=64)
    rr = BiEncoderReranker(emb)
    h = rr.features("who starred in the matrix", PASSAGES)
    assert h.shape == (3, 64) and h.dtype == np.float32
    q = emb.embed(["who starred in the matrix"])[0]
    np.testing.assert_allclose(rr.head(h), emb.embed(PASSAGES) @ q, atol=1e-6)
    assert rr.linear_head
    assert "stand-in" in rr.description and "linear" in rr.description
    assert rr.features("q", []).shape == (0, 64)


def test_biencoder_linear_head_smoothing_commutes():
    rr = BiEncoderReranker(HashingEmbedder(dim=32))
    h = rr.features("the matrix", PASSAGES)
    p = np.array([[0, 0.5, 0.5], [1, 0, 0], [0.5, 0.5, 0]], dtype=np.float32)
    alpha = 0.2
    smoothed = (1 - alpha) * h + alpha * p @ h
    np.testing.assert_allclose(rr.head(smoothed), (1 - alpha) * rr.head(h) + alpha * p @ rr.head(h), atol=1e-6)


def test_cross_encoder_split_matches_full_model(tiny_bert_dir):
    import torch

    rr = get_reranker(f"cross-encoder:{tiny_bert_dir}", device="cpu", batch_size=2)
    assert isinstance(rr, HFCrossEncoderReranker)
    assert not rr.linear_head and rr.hidden_size == 32  # pooler tanh + classifier
    query = "who starred in the matrix"
    h = rr.features(query, PASSAGES)
    assert h.shape == (3, 32) and h.dtype == np.float32
    scores = rr.head(h)

    from transformers import AutoModelForSequenceClassification

    full = AutoModelForSequenceClassification.from_pretrained(tiny_bert_dir).eval()
    with torch.inference_mode():
        logits = full(**rr.encode_pairs(query, PASSAGES)).logits[:, 0].numpy()
    np.testing.assert_allclose(scores, logits, atol=1e-5)
    assert rr.features(query, []).shape == (0, 32)
    assert rr.head(np.zeros((0, 32), dtype=np.float32)).shape == (0,)
    # The head (pooler dense + tanh, then the classifier) is not affine: mixing features is not
    # mixing scores, which is why GRanker smooths features (FastInsight §3.3, §4.1).
    x, y = (np.random.default_rng(s).normal(0, 3, (4, 32)).astype(np.float32) for s in (1, 2))
    mixed = rr.head(0.5 * x + 0.5 * y)
    assert not np.allclose(mixed, 0.5 * rr.head(x) + 0.5 * rr.head(y), atol=1e-4)


def _tiny_model(folder, tiny_vocab, config_cls, model_cls, **extra):
    """A tiny random sequence classifier of ``model_cls`` + a WordPiece tokenizer, saved to ``folder``."""
    import torch
    from transformers import BertTokenizer

    (folder / "vocab.txt").write_text("\n".join(tiny_vocab) + "\n", encoding="utf-8")
    BertTokenizer(vocab_file=str(folder / "vocab.txt")).save_pretrained(folder)
    torch.manual_seed(0)
    cfg = config_cls(vocab_size=len(tiny_vocab), num_labels=1, pad_token_id=0, **extra)
    model = model_cls(cfg).eval()
    model.save_pretrained(folder)
    return model


@pytest.mark.parametrize("arch", ["roberta", "xlm-roberta"])
def test_roberta_style_cross_encoder_is_split_inside_its_classifier(tmp_path, tiny_vocab, arch):
    """bge-reranker-v2-m3 (FastInsight §4's reranker) is XLM-R: its head is classifier.dense + tanh + out_proj."""
    import torch
    from transformers import (
        RobertaConfig,
        RobertaForSequenceClassification,
        XLMRobertaConfig,
        XLMRobertaForSequenceClassification,
    )

    cls = {"roberta": (RobertaConfig, RobertaForSequenceClassification),
           "xlm-roberta": (XLMRobertaConfig, XLMRobertaForSequenceClassification)}[arch]
    full = _tiny_model(tmp_path, tiny_vocab, *cls, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                       intermediate_size=37, max_position_embeddings=130)
    rr = get_reranker(f"cross-encoder:{tmp_path}", device="cpu", batch_size=2)
    assert isinstance(rr, HFCrossEncoderReranker) and rr.head_style == "classifier"
    assert not rr.linear_head and "dense + tanh + out_proj" in rr.description
    query = "who starred in the matrix"
    h = rr.features(query, PASSAGES)
    assert h.shape == (3, 32)
    with torch.inference_mode():
        logits = full(**rr.encode_pairs(query, PASSAGES)).logits[:, 0].numpy()
    np.testing.assert_allclose(rr.head(h), logits, atol=1e-5)
    x, y = (np.random.default_rng(s).normal(0, 3, (4, 32)).astype(np.float32) for s in (1, 2))
    assert not np.allclose(rr.head(0.5 * x + 0.5 * y), 0.5 * rr.head(x) + 0.5 * rr.head(y), atol=1e-4)


def test_cross_encoder_with_another_head_is_rejected(tmp_path, tiny_vocab):
    from transformers import DistilBertConfig, DistilBertForSequenceClassification

    _tiny_model(tmp_path, tiny_vocab, DistilBertConfig, DistilBertForSequenceClassification, dim=32, n_layers=1,
                n_heads=2, hidden_dim=37, max_position_embeddings=128)
    with pytest.raises(BackendError, match=r"\(DistilBertForSequenceClassification\) has no classification head to "
                                           r"split at: supported are BERT-style .* RoBERTa/XLM-R-style"):
        HFCrossEncoderReranker(str(tmp_path), device="cpu")


def test_missing_cross_encoder_names_the_fix(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(BackendError, match=r"^Cross-encoder 'egx-test/no-such-cross-encoder' is not in the local Hugging "
                                           r"Face cache and downloads are off \(HF_HUB_OFFLINE=1\).* "
                                           r"'cross-encoder:/path/to/model'\. Or use the bundled reranker "
                                           r"'ms-marco-minilm'\.$"):
        HFCrossEncoderReranker("egx-test/no-such-cross-encoder", device="cpu")


def test_llm_yes_no_reranker(scripted_llm):
    llm = scripted_llm([
        json.dumps({"relevant": "yes", "confidence": 0.9}),
        json.dumps({"relevant": "no", "confidence": 0.8}),
        "no idea", "still no idea", "nope",  # unusable after chat_json's 2 retries → neutral 0.5
    ])
    rr = LLMYesNoReranker(llm)
    h = rr.features("who starred in the matrix", PASSAGES)
    assert h.shape == (3, 1)
    np.testing.assert_allclose(rr.head(h), [0.9, 0.2, 0.5], atol=1e-6)
    assert rr.last_fallbacks == 1
    assert llm.calls[0].json_schema["required"] == ["relevant", "confidence"]


def test_llm_yes_no_reranker_needs_an_llm():
    from core.backends.llm import NoLLM

    with pytest.raises(LLMUnavailableError, match=r"needs an LLM, but none is configured"):
        LLMYesNoReranker(NoLLM())
