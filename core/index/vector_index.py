"""FAISS inner-product index over L2-normalized float32 embeddings (cosine similarity).

One :class:`VectorIndex` per item kind (nodes, enriched edges, chunks). Exact search
(``IndexFlatIP``): the graphs here are at most a few hundred thousand items, where exact search is
fast and keeps results identical to the numpy oracle the tests compare against.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import WorkspaceError
from core.fsio import atomic_path

if TYPE_CHECKING:
    from core.backends.base import Embedder

Progress = Callable[[str, float], None]
ITEM_OVERHEAD_CHARS = 64  # characters: what one more item costs an encoder beyond its text (padding, calls)


def embed_texts(texts: Sequence[str], embedder: Embedder, *, batch_size: int = 256,
                progress: Progress | None = None, label: str = "items", out: np.ndarray | None = None) -> np.ndarray:
    """Embed ``texts`` in batches (so a progress bar can move) and return float32 unit rows.

    Texts are embedded in order of length and put back afterwards: transformer encoders pad each
    batch to its longest member, so length-sorted batches waste least work (sentence-transformers
    does the same inside one ``encode`` call; sorting globally keeps that benefit across our
    progress-sized slices).
    """
    n = len(texts)
    if out is None:
        out = np.empty((n, embedder.dim), dtype=np.float32)
    elif out.shape != (n, embedder.dim):
        raise ValueError(f"out has shape {out.shape}, expected {(n, embedder.dim)}")
    order = sorted(range(n), key=lambda i: -len(texts[i]))
    # Progress counts characters (plus a per-item overhead), not items: the longest texts come first
    # and cost the most, so an item count would race ahead and then crawl.
    weight = [len(texts[i]) + ITEM_OVERHEAD_CHARS for i in order]
    total = float(sum(weight)) or 1.0
    done = 0.0
    for start in range(0, n, batch_size):
        if progress:
            progress(f"Embedding {label}: {start:,}/{n:,}", done / total)
        sel = order[start:start + batch_size]
        out[sel] = embedder.embed([texts[i] for i in sel])
        done += sum(weight[start:start + batch_size])
    if progress:
        progress(f"Embedded {n:,} {label}", 1.0)
    return out


TIE_EPS = 1e-5  #: more than FAISS's float32 rounding of a unit-vector dot product (~1e-7)
MAX_WIDEN = 4096  #: how many rows past k a search may widen to close a tie class at the cut


class VectorIndex:
    """Exact cosine search over unit vectors.

    Parameters
    ----------
    vectors
        ``(n, d)`` float32 array; rows are normalized again defensively.
    copy
        ``False`` normalizes ``vectors`` in place when it already is C-contiguous float32 (the
        index build passes the array it just embedded: one copy less of the largest array).

    Notes
    -----
    ``vectors`` is a view of the FAISS index's own storage, so the vectors are held once.
    """

    def __init__(self, vectors: np.ndarray, *, copy: bool = True) -> None:
        import faiss

        arr = np.asarray(vectors)
        if arr.ndim != 2:
            raise ValueError(f"vectors must be 2-D (n, d), got shape {arr.shape}")
        arr = np.array(arr, dtype=np.float32, order="C", copy=True) if copy else np.ascontiguousarray(arr, np.float32)
        _normalize_rows(arr)
        self._index: Any = faiss.IndexFlatIP(arr.shape[1])
        if len(arr):
            self._index.add(arr)
        self.vectors = _storage_view(self._index, arr)

    @classmethod
    def build(cls, n: int, dim: int, fill: Callable[[np.ndarray], object]) -> VectorIndex:
        """An index of ``n`` vectors that ``fill(out)`` writes straight into FAISS's own storage
        (``out`` is ``(n, dim)`` float32, normalized afterwards): building holds the vectors once,
        not twice (for a million edges at dimension 384 that is 1.5 GB less at peak)."""
        import faiss

        index: Any = faiss.IndexFlatIP(dim)
        try:
            index.codes.resize(n * dim * 4)
            index.ntotal = n
            out = np.asarray(faiss.rev_swig_ptr(index.get_xb(), n * dim)).view(np.float32).reshape(n, dim)
        except (AttributeError, TypeError, RuntimeError, ValueError):  # a FAISS without resizable storage
            vecs = np.empty((n, dim), dtype=np.float32)
            fill(vecs)
            return cls(vecs, copy=False)
        fill(out)
        _normalize_rows(out)
        obj = cls.__new__(cls)
        obj._index = index
        obj.vectors = _storage_view(index, None)
        return obj

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
        # FAISS's float32 scores depend on its kernel, and so on the thread count: the same question got
        # other candidates in a one-thread Ray actor than in this process (a near-tie flipped).
        # So FAISS only proposes: the search is widened until every row's k-th score clears the next
        # one by more than FAISS's rounding (TIE_EPS), the proposals are scored again exactly (float64
        # sums without BLAS, rounded to float32), and each row is ordered by (score desc, id asc) and
        # cut at k. Ties and near-ties then break the same way on every machine and thread count.
        # (A tie class wider than MAX_WIDEN rows at the cut, e.g. thousands of identical vectors, is
        # cut at that width: memory stays bounded, and only such a class may still split by thread.)
        limit = min(self.size, k + MAX_WIDEN)
        m = min(k + 1, limit)
        scores, ids = self._index.search(q, m)
        while m < limit and bool((scores[:, m - 1] >= scores[:, k - 1] - TIE_EPS).any()):
            m = min(2 * m, limit)
            scores, ids = self._index.search(q, m)
        vecs = self.vectors[ids]  # (nq, m, d)
        exact = np.einsum("imd,id->im", vecs, q, dtype=np.float64).astype(np.float32)
        order = np.lexsort((ids, -exact), axis=-1)[:, :k]
        return np.take_along_axis(exact, order, axis=-1), np.take_along_axis(ids, order, axis=-1)

    def scores(self, query: np.ndarray, ids: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """Cosine of ``query`` with the given items (all when ``ids`` is None)."""
        vecs = self.vectors if ids is None else self.vectors[np.asarray(ids, dtype=np.int64)]
        return vecs @ np.asarray(query, dtype=np.float32).reshape(-1)

    def save(self, path: Path) -> None:
        """Write atomically (unique temporary file, fsync, rename) as a FAISS index file."""
        import faiss

        with atomic_path(Path(path)) as tmp:
            faiss.write_index(self._index, str(tmp))

    @classmethod
    def load(cls, path: Path, *, dim: int | None = None, size: int | None = None,
             rebuild: str = "`egx index --workspace <folder> --rebuild`") -> VectorIndex:
        """Read an index written by :meth:`save`, checking dimension and size when given.

        Raises
        ------
        WorkspaceError
            "This workspace is damaged" — the file is missing, truncated, not a FAISS flat index,
            or of another size or dimension — naming ``rebuild``, the command that rebuilds it.
        """
        import faiss

        path = Path(path)
        fix = f"Rebuild the index with {rebuild}."
        if not path.exists():
            raise WorkspaceError(f"This workspace is damaged: the index file {path} is missing. {fix}")
        if dim is not None and size is not None:
            # An IndexFlatIP file is a small header plus exactly size x dim float32 values: a file of
            # another length is damaged, and is refused before FAISS allocates what its header claims.
            need, have = 4 * dim * size, path.stat().st_size
            if not need <= have <= need + 4096:
                raise WorkspaceError(f"This workspace is damaged: {path} is {have:,} bytes, but {size:,} vectors of "
                                     f"dimension {dim} take {need:,}. {fix}")
        try:
            idx = faiss.read_index(str(path))
        except (RuntimeError, MemoryError) as exc:
            first = str(exc).strip().splitlines()[-1][:160] if str(exc).strip() else type(exc).__name__
            raise WorkspaceError(f"This workspace is damaged: {path} is not a readable FAISS index ({first}). "
                                 f"{fix}") from None
        if not isinstance(idx, faiss.IndexFlat):
            raise WorkspaceError(f"This workspace is damaged: {path} is a {type(idx).__name__}, not the flat "
                                 f"index egx writes. {fix}")
        if dim is not None and idx.d != dim:
            raise WorkspaceError(f"This workspace is damaged: {path.name} has dimension {idx.d}, expected {dim}. {fix}")
        if size is not None and idx.ntotal != size:
            raise WorkspaceError(f"This workspace is damaged: {path.name} holds {idx.ntotal} items, expected {size}. "
                                 f"{fix}")
        obj = cls.__new__(cls)
        obj._index = idx
        obj.vectors = _storage_view(idx, None)
        return obj

    def __repr__(self) -> str:
        return f"VectorIndex(size={self.size}, dim={self.dim})"

    def __getstate__(self) -> dict[str, Any]:  # picklable for st.cache_resource / multiprocessing
        return {"vectors": self.vectors}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["vectors"])  # type: ignore[misc]


def _normalize_rows(arr: np.ndarray) -> None:
    """L2-normalize rows in place, in blocks (no temporary of the array's size)."""
    for start in range(0, len(arr), 65536):
        block = arr[start:start + 65536]
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        block /= np.where(norms > 0, norms, 1.0)


def _storage_view(index: Any, fallback: np.ndarray | None) -> np.ndarray:
    """The ``(ntotal, d)`` float32 vectors inside a FAISS flat index, as a read-only view (no copy);
    a copy via ``reconstruct_n`` where this FAISS build does not expose its storage."""
    import faiss

    n, d = int(index.ntotal), int(index.d)
    if n == 0:
        return np.zeros((0, d), np.float32)
    try:
        raw = np.asarray(faiss.rev_swig_ptr(index.get_xb(), n * d)).view(np.float32).reshape(n, d)
        view = np.asarray(_Owned(raw, index))  # the array's base keeps the index (its memory) alive
    except (AttributeError, TypeError, RuntimeError, ValueError):
        view = np.ascontiguousarray(index.reconstruct_n(0, n) if fallback is None else fallback, dtype=np.float32)
    view.flags.writeable = False
    return view


class _Owned:
    """Exposes an array through ``__array_interface__`` while holding a reference to its owner."""

    def __init__(self, arr: np.ndarray, owner: Any) -> None:
        self.__array_interface__ = arr.__array_interface__
        self._arr = arr
        self._owner = owner
