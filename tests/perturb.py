"""Models and workspaces whose scores are slightly off: a stand-in for another CPU.

int8 ONNX and BLAS kernels give scores whose last digits differ from one CPU to the next (AVX2 against
AVX-512 VNNI, other thread counts, a GPU). The replay of a recorded LLM run must not depend on them
(:mod:`core.pinning`). These wrappers multiply every embedding component and every reranker output by
``1 + eps * u`` with ``u`` uniform in [-1, 1], seeded by the text (the same text gets the same vector
within one run, as on a real machine); :func:`perturbed_workspace` does the same to a copy of a
workspace's stored vectors (what another CPU would have built).

Why ``eps = 3e-2`` by default: per-component noise mostly averages out in a cosine. Measured on 500
bge-small pairs, ``eps = 1e-2`` moved a cosine by 4e-4 on average and 2.2e-3 at most (linear in ``eps``),
so ``3e-2`` moves it by about 1.2e-3 on average and up to ~7e-3: at or above the cross-CPU differences seen
on the recordings (near-ties up to ~3e-3 ordered the other way on an AVX-512 machine; a 7e-3 gap on
MuSiQue), and well above the ±1e-3 relative noise the portability check asks for. Reranker outputs are
scaled by the same ``1 + eps * u`` directly.
"""

from __future__ import annotations

import shutil
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

EPS = 3e-2


def _noise(shape: tuple[int, ...], seed: int, text: str, eps: float) -> np.ndarray:
    rng = np.random.default_rng([seed, zlib.crc32(text.encode("utf-8", "surrogatepass"))])
    return 1.0 + eps * rng.uniform(-1.0, 1.0, size=shape)


def _renorm(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return (v / np.where(n > 0, n, 1.0)).astype(np.float32)


class _Noisy:
    """A model wrapper: ``inner``'s attributes, with the outputs the subclass perturbs."""

    def __init__(self, inner: Any, seed: int, eps: float = EPS) -> None:
        self.inner, self.seed, self.eps = inner, seed, eps

    def __getattr__(self, item: str) -> Any:
        if item.startswith("__"):
            raise AttributeError(item)
        return getattr(self.__dict__["inner"], item)


class NoisyEmbedder(_Noisy):
    """``inner`` with every vector component scaled by ``1 + eps * u`` (then unit length again)."""

    def _perturb(self, texts: Sequence[str], vecs: np.ndarray, tag: str) -> np.ndarray:
        out = np.asarray(vecs, dtype=np.float32).copy()
        for i, t in enumerate(texts):
            out[i] *= _noise(out[i].shape, self.seed, tag + t, self.eps).astype(np.float32)
        return _renorm(out)

    def embed(self, texts: Sequence[str], **kw: Any) -> np.ndarray:
        return self._perturb(texts, self.inner.embed(texts, **kw), "d:")

    def embed_queries(self, texts: Sequence[str], **kw: Any) -> np.ndarray:
        return self._perturb(texts, self.inner.embed_queries(texts, **kw), "q:")


class NoisyReranker(_Noisy):
    """``inner`` with its features and its head's scores scaled by ``1 + eps * u``."""

    def features(self, query: str, passages: Sequence[str]) -> np.ndarray:
        h = np.asarray(self.inner.features(query, passages), dtype=np.float64).copy()
        for i, p in enumerate(passages):
            h[i] *= _noise(h[i].shape, self.seed, query + "\x00" + p, self.eps)
        return h.astype(np.float32)

    def head(self, features: np.ndarray) -> np.ndarray:
        s = np.asarray(self.inner.head(features), dtype=np.float64).reshape(-1)
        key = np.asarray(features, dtype=np.float32).tobytes()[:4096].hex()
        return s * _noise(s.shape, self.seed, key, self.eps)


def noisy_backends(backends: Any, seed: int, eps: float = EPS) -> Any:
    """``backends`` with a :class:`NoisyEmbedder` and (when there is one) a :class:`NoisyReranker`."""
    from core.methods.base import Backends

    rr = backends.reranker
    return Backends(NoisyEmbedder(backends.embedder, seed, eps), backends.llm,
                    NoisyReranker(rr, seed, eps) if rr is not None else None)


def perturbed_workspace(src: Any, dest: Path, seed: int, eps: float = EPS) -> Any:
    """A copy of workspace ``src`` under ``dest`` whose stored vectors (the FAISS indexes and every
    cached ``.npy`` of vectors) are perturbed as :class:`NoisyEmbedder` perturbs new ones, opened.

    Caches a method derives from the vectors and keeps in the workspace (SG-RAG's trained dominance
    model) are removed from the copy, so they are derived again from the perturbed vectors, as another
    machine would."""
    import faiss

    from core.index.workspace import Workspace

    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src.path, dest, ignore=shutil.ignore_patterns("*.lock", "dominance-*.pt"))
    rng = np.random.default_rng(seed)
    for f in sorted(dest.rglob("*.faiss")):
        index = faiss.read_index(str(f))
        n, d = index.ntotal, index.d
        vecs = faiss.rev_swig_ptr(index.get_xb(), n * d).view(np.float32).reshape(n, d).copy() if n else \
            np.zeros((0, d), np.float32)
        vecs = _renorm(vecs * (1.0 + eps * rng.uniform(-1.0, 1.0, size=vecs.shape)).astype(np.float32))
        out = faiss.IndexFlatIP(d)
        if n:
            out.add(vecs)
        faiss.write_index(out, str(f))
    for f in sorted(dest.rglob("*.npy")):
        arr = np.load(f, allow_pickle=False)
        if arr.dtype.kind == "f" and arr.ndim == 2:
            np.save(f, _renorm(arr * (1.0 + eps * rng.uniform(-1.0, 1.0, size=arr.shape))))
    return Workspace.open(dest)
