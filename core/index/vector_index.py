"""FAISS inner-product index over L2-normalized float32 embeddings (cosine similarity).

One :class:`VectorIndex` per item kind (nodes, enriched edges, chunks). Exact search
(``IndexFlatIP``): the graphs here are at most a few hundred thousand items, where exact search is
fast and keeps results identical to the numpy oracle the tests compare against.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import WorkspaceError

if TYPE_CHECKING:
    from core.backends.base import Embedder

Progress = Callable[[str, float], None]


def embed_texts(texts: Sequence[str], embedder: Embedder, *, batch_size: int = 256,
                progress: Progress | None = None, label: str = "items") -> np.ndarray:
    """Embed ``texts`` in batches (so a progress bar can move) and return float32 unit rows.

    Texts are embedded in order of length and put back afterwards: transformer encoders pad each
    batch to its longest member, so length-sorted batches waste least work (sentence-transformers
    does the same inside one ``encode`` call; sorting globally keeps that benefit across our
    progress-sized slices).
    """
    n = len(texts)
    out = np.empty((n, embedder.dim), dtype=np.float32)
    order = sorted(range(n), key=lambda i: -len(texts[i]))
    for start in range(0, n, batch_size):
        if progress:
            progress(f"Embedding {label}: {start}/{n}", start / max(n, 1))
        sel = order[start:start + batch_size]
        out[sel] = embedder.embed([texts[i] for i in sel])
    if progress:
        progress(f"Embedded {n} {label}", 1.0)
    return out


class VectorIndex:
    """Exact cosine search over unit vectors.

    Parameters
    ----------
    vectors
        ``(n, d)`` float32 array; rows are normalized again defensively.
    """

    def __init__(self, vectors: np.ndarray) -> None:
        import faiss

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2:
            raise ValueError(f"vectors must be 2-D (n, d), got shape {vectors.shape}")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms > 0, norms, 1.0)
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._index: Any = faiss.IndexFlatIP(self.vectors.shape[1])
        if len(self.vectors):
            self._index.add(self.vectors)

    @property
    def size(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` by inner product. Returns ``(scores, ids)``, each ``(m, min(k, size))``,
        best first; a single query vector gives ``(1, k)`` arrays."""
        q = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        if q.shape[1] != self.dim:
            raise ValueError(f"query dimension {q.shape[1]} does not match the index dimension {self.dim}")
        k = min(int(k), self.size)
        if k <= 0:
            return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
        scores, ids = self._index.search(q, k)
        return scores, ids

    def scores(self, query: np.ndarray, ids: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """Cosine of ``query`` with the given items (all when ``ids`` is None)."""
        vecs = self.vectors if ids is None else self.vectors[np.asarray(ids, dtype=np.int64)]
        return vecs @ np.asarray(query, dtype=np.float32).reshape(-1)

    def save(self, path: Path) -> None:
        """Write atomically (temporary file, then rename) as a FAISS index file."""
        import faiss

        path = Path(path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        faiss.write_index(self._index, str(tmp))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path, *, dim: int | None = None, size: int | None = None) -> VectorIndex:
        """Read an index written by :meth:`save`, checking dimension and size when given."""
        import faiss

        path = Path(path)
        if not path.exists():
            raise WorkspaceError(f"Index file {path} is missing; rebuild with `egx index --rebuild` or re-open the workspace.")
        idx = faiss.read_index(str(path))
        if dim is not None and idx.d != dim:
            raise WorkspaceError(f"Index {path.name} has dimension {idx.d}, expected {dim}; rebuild the index.")
        if size is not None and idx.ntotal != size:
            raise WorkspaceError(f"Index {path.name} holds {idx.ntotal} items, expected {size}; rebuild the index.")
        vectors = idx.reconstruct_n(0, idx.ntotal) if idx.ntotal else np.zeros((0, idx.d), np.float32)
        obj = cls.__new__(cls)
        obj.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        obj._index = idx
        return obj

    def __repr__(self) -> str:
        return f"VectorIndex(size={self.size}, dim={self.dim})"

    def __getstate__(self) -> dict[str, Any]:  # picklable for st.cache_resource / multiprocessing
        return {"vectors": self.vectors}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["vectors"])  # type: ignore[misc]
