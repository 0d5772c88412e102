"""A method's own texts' vectors, kept beside the index in ``<index dir>/extra/`` and updated row by row.

:meth:`~core.index.workspace.Workspace.text_vectors` keeps vectors of texts that are not one of the three index
kinds (FastInsight's KG node texts ``c_n``, §3.1.1 on KG nodes) once per (workspace, embedder, texts). Files::

    extra/<name>.faiss      the vectors, a FAISS flat index (no pickle)
    extra/<name>.rows.npy   a 64-bit hash of each row's text, in row order (plain ``uint64``, read without pickle)
    extra/<name>.json       model, dimension, count, and the texts' key or hash (written last)

When the texts change (documents were added: a node gains a passage, new nodes appear), the cache is stale, but
most rows still hold the vector of a text that did not change. :func:`reuse_plan` matches the new texts to the
stored rows by their hash, so only the texts not stored yet are embedded again — an add of one document to the
1,189-node workspace re-embedded 7 node texts (0.13 s) instead of 1,189 (21 s). A row is reused only for a text
with the same hash, so the vectors are the ones a full embedding would give, up to the embedder's batching: an int8
encoder quantizes each batch's activations together, and on that workspace the reused rows differ from a full
re-embedding (min cosine 0.9957) less than two full embeddings in batches of 256 and 64 differ (0.9938).

Kill safety: the rows file is removed before a cache is rewritten and written again only after the new vectors
file, so a rows file present always describes the vectors file beside it; the ``.json`` is written last and
decides a cache hit, as before.
"""

from __future__ import annotations

import hashlib
import io
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.errors import WorkspaceError
from core.fsio import atomic_write_bytes
from core.index.vector_index import VectorIndex

ROWS_SUFFIX = ".rows.npy"
MAX_ROWS_BYTES = 1 << 30  #: a rows file larger than this is not read (8 bytes a row: 134M rows)


def row_hashes(texts: Sequence[str]) -> np.ndarray:
    """A 64-bit BLAKE2b hash of each text, in order (what a stored row is matched by).

    Examples
    --------
    >>> h = row_hashes(["a", "b", "a"])
    >>> h.dtype.name, bool(h[0] == h[2]), bool(h[0] == h[1])
    ('uint64', True, False)
    """
    return np.fromiter((int.from_bytes(hashlib.blake2b(t.encode("utf-8"), digest_size=8).digest(), "little")
                        for t in texts), dtype=np.uint64, count=len(texts))


def rows_path(vectors_path: Path) -> Path:
    """The rows file beside ``extra/<name>.faiss``."""
    return vectors_path.with_suffix(ROWS_SUFFIX)


def read_rows(vectors_path: Path) -> np.ndarray | None:
    """The stored row hashes of ``vectors_path``, or None when there are none (or they are unreadable)."""
    path = rows_path(vectors_path)
    try:
        if not path.is_file() or path.stat().st_size > MAX_ROWS_BYTES:
            return None
        rows = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    return rows if rows.dtype == np.uint64 and rows.ndim == 1 else None


def write_rows(vectors_path: Path, hashes: np.ndarray) -> None:
    """Write the row hashes of ``vectors_path`` atomically (``.npy``, no pickle)."""
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(hashes, dtype=np.uint64), allow_pickle=False)
    atomic_write_bytes(rows_path(vectors_path), buf.getvalue())


@dataclass
class ReusePlan:
    """Which new rows take a stored vector: ``src[i]`` is the stored row of text ``i`` (-1: embed it now)."""

    src: np.ndarray
    stored: VectorIndex | None  #: the stored vectors (None: nothing to reuse)

    @property
    def missing(self) -> np.ndarray:
        return np.flatnonzero(self.src < 0)

    @property
    def reused(self) -> int:
        return int((self.src >= 0).sum())

    def fill_stored(self, out: np.ndarray) -> None:
        """Copy the reused rows' stored vectors into ``out`` (a :meth:`VectorIndex.build` fill's array)."""
        keep = np.flatnonzero(self.src >= 0)
        if len(keep) and self.stored is not None:
            out[keep] = self.stored.vectors[self.src[keep]]


def match_rows(hashes: np.ndarray, stored: np.ndarray | None) -> np.ndarray:
    """For each of ``hashes``, the first stored row with the same hash (-1 where none).

    Examples
    --------
    >>> match_rows(row_hashes(["b", "c", "a"]), row_hashes(["a", "b"])).tolist()
    [1, -1, 0]
    """
    if stored is None or not len(stored):
        return np.full(len(hashes), -1, dtype=np.int64)
    order = np.argsort(stored, kind="stable")  # stable: the first of equal stored hashes comes first
    pos = np.searchsorted(stored[order], hashes)
    pos = np.minimum(pos, len(order) - 1)
    hit = stored[order][pos] == hashes
    return np.where(hit, order[pos], -1).astype(np.int64)


def no_reuse(n: int) -> ReusePlan:
    """The plan that embeds all ``n`` texts."""
    return ReusePlan(np.full(n, -1, dtype=np.int64), None)


def reuse_plan(vectors_path: Path, hashes: np.ndarray, dim: int) -> ReusePlan:
    """Match the new texts' ``hashes`` to the rows stored at ``vectors_path`` (of dimension ``dim``).

    Nothing is reused when there is no rows file (a cache written before rows were kept), or the vectors file
    does not load with the rows' count and ``dim``: then every text is embedded, as before."""
    stored_rows = read_rows(vectors_path)
    if stored_rows is None:
        return no_reuse(len(hashes))
    try:
        stored = VectorIndex.load(vectors_path, dim=dim, size=len(stored_rows))
    except WorkspaceError:
        return no_reuse(len(hashes))
    return ReusePlan(match_rows(hashes, stored_rows), stored)


def to_embed(vectors_path: Path, texts: Sequence[str]) -> int:
    """How many of ``texts`` a rebuild of the stale cache at ``vectors_path`` would embed (cheap: hashes only)."""
    stored = read_rows(vectors_path)
    if stored is None:
        return len(texts)
    return int((match_rows(row_hashes(texts), stored) < 0).sum())


def carry_stale(src: Path, dst: Path) -> list[str]:
    """Copy the cached text vectors of an index's ``extra/`` folder that keep their rows (``<name>.faiss``,
    ``.rows.npy``, ``.json``) into a new index's ``extra/``: an insert keeps them stale for the new graph, so their
    first use re-embeds only the rows whose text changed. Other caches there (a cache written before rows were
    kept, PPR's synonym pairs) are keyed on the old graph and stay behind. Returns the names carried."""
    if not src.is_dir():
        return []
    names = sorted(f.name[: -len(ROWS_SUFFIX)] for f in src.glob(f"*{ROWS_SUFFIX}")
                   if f.is_file() and not f.is_symlink() and (src / f.name.replace(ROWS_SUFFIX, ".faiss")).is_file())
    for name in names:
        dst.mkdir(exist_ok=True)
        for suffix in (".faiss", ROWS_SUFFIX, ".json"):
            if (src / f"{name}{suffix}").is_file():
                shutil.copy2(src / f"{name}{suffix}", dst / f"{name}{suffix}")
    return names
