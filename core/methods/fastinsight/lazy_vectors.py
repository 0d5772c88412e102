"""FastInsight's node vectors embedded only for the nodes a question reaches (``node_vectors="lazy"``), an
option beside the full precompute of :mod:`~core.methods.fastinsight.node_vectors` (FastInsight §3.1.1 on
KG nodes, §4.2.2).

Precomputing embeds every node text of the KG once (48k texts on a 6k-passage corpus: minutes on 2 cores,
the largest stage of ``egx index --prepare all``). A question reads far fewer rows of ``V``: its initial
vector search ``O_vs`` (Algorithm 1 line 1) and the ``I_Sim`` of each STeX candidate (Algorithm 3 line 13),
a few hundred nodes on MuSiQue. Lazily:

* **the initial search** runs over a *pool*: the nodes linked to the top ``pool_passages`` passages of the
  chunk index for the same query vector. A node text is the node's name followed by its linked passages, so
  the nodes nearest the query are, in practice, those of the nearest passages; but a node whose text is
  near the query while none of its passages is in the pool is missed, so this search is an approximation of
  the paper's (the fill of an exhausted round searches the pool and every node the run reached, never the
  whole KG). Its cost in R@5 is measured against the precompute (``benchmarks/README.md``);
* **STeX's ``I_Sim``** reads the exact vector of every candidate, embedded on first use.

Each embedded row is kept in the workspace (:class:`LazyVectorCache`: one ``.npz`` shard per write, written
atomically, read with ``allow_pickle=False``), so later questions — in this process or another session —
embed only the nodes no earlier question reached. Results never depend on what the cache holds: the pool
and the candidates are fixed by the question, the cache only decides what is embedded now (a row embedded
in another batch may differ in the last bits of an int8 model's output, as any re-embedding does).
"""

from __future__ import annotations

import hashlib
import threading
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from core.errors import ConfigError
from core.fsio import atomic_path, path_lock, unique_suffix
from core.graph.reader import question_graph
from core.methods.kg_nodes import node_texts_key, node_vectors_name

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.index.workspace import Workspace
    from core.methods.fastinsight.node_graph import KGNodeGraph

#: Shards a cache folder may hold before a writer merges them into one (reading 64 small files costs a few
#: milliseconds; merging rewrites every kept row, so it is not done on every write).
MAX_SHARDS = 64
SHARD_PREFIX = "rows-"


def _read_shard(path: Path, dim: int, n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """A shard's (node ids, vectors), or None when it is gone (merged away) or not whole."""
    try:
        with np.load(path, allow_pickle=False) as f:
            ids, vecs = np.asarray(f["ids"], dtype=np.int64), np.asarray(f["vectors"], dtype=np.float32)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):  # a torn or damaged file is embedded again
        return None
    ok = (ids.ndim == 1 and vecs.shape == (ids.size, dim)
          and (ids.size == 0 or (int(ids.min()) >= 0 and int(ids.max()) < n)))
    return (ids, vecs) if ok else None


def _write_shard(path: Path, ids: np.ndarray, vecs: np.ndarray) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, ids=ids.astype(np.int64), vectors=vecs.astype(np.float32))


class LazyVectorCache:
    """Node vectors embedded so far for one (workspace, embedder, node texts), kept in the workspace.

    The folder ``<index dir>/extra/<node vectors name>.lazy-<key>/`` is named by a hash of the embedder's
    model id and dimension and of the node texts' key (graph content, provenance, text recipe, cut), so a
    changed graph or model never reads stale rows; a new embedder's index folder drops it with the index.

    Writers never lock one another out: each :meth:`add` writes a new shard under a unique name (atomic
    rename), so concurrent sessions only ever add files; a reader that meets a shard merged away meanwhile
    skips it (its rows are in the merged shard, or are embedded again). Merging (:meth:`add`, once there
    are more than :data:`MAX_SHARDS`) holds the folder's lock so that two writers do not merge at once.
    Rows read are kept in this object, and each :meth:`rows` reads only shards it has not read yet.
    """

    def __init__(self, folder: Path, *, dim: int, n: int) -> None:
        self.folder, self.dim, self.n = Path(folder), int(dim), int(n)
        self._rows: dict[int, np.ndarray] = {}
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    @classmethod
    def for_workspace(cls, workspace: Workspace, embedder: Embedder, *, max_chars: int, n: int) -> LazyVectorCache:
        """The cache of ``workspace``'s node texts cut at ``max_chars`` for ``embedder`` (one per folder and
        process: app sessions share it)."""
        key = f"{embedder.model_id}|{embedder.dim}|{node_texts_key(workspace, max_chars)}|{int(n)}"
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
        folder = workspace.index_dir / "extra" / f"{node_vectors_name(max_chars)}.lazy-{digest}"
        with _OPEN_LOCK:
            cache = _OPEN.get(str(folder))
            if cache is None or cache.dim != embedder.dim or cache.n != n:
                cache = _OPEN[str(folder)] = cls(folder, dim=embedder.dim, n=n)
        return cache

    def _shards(self) -> list[Path]:
        try:
            return sorted(p for p in self.folder.iterdir() if p.name.startswith(SHARD_PREFIX) and p.suffix == ".npz")
        except FileNotFoundError:
            return []

    def _refresh(self) -> None:
        for path in self._shards():
            if path.name in self._seen:
                continue
            got = _read_shard(path, self.dim, self.n)
            self._seen.add(path.name)
            if got is not None:
                for i, v in zip(got[0].tolist(), got[1]):
                    self._rows.setdefault(int(i), v)

    def rows(self, ids: Sequence[int] | np.ndarray) -> dict[int, np.ndarray]:
        """The kept vectors among ``ids`` (node rows), reading shards written since the last call."""
        with self._lock:
            self._refresh()
            return {int(i): self._rows[int(i)] for i in np.asarray(ids, dtype=np.int64).tolist() if int(i) in self._rows}

    def __len__(self) -> int:
        with self._lock:
            self._refresh()
            return len(self._rows)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Keep ``vectors`` (row ``j`` is node ``ids[j]``) as a new shard; merge the shards when there are
        more than :data:`MAX_SHARDS`."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        vectors = np.asarray(vectors, dtype=np.float32)
        if ids.size == 0:
            return
        if vectors.shape != (ids.size, self.dim):
            raise ValueError(f"vectors must be ({ids.size}, {self.dim}), got {vectors.shape}")
        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"{SHARD_PREFIX}{time.time_ns():020d}-{unique_suffix()}.npz"
        _write_shard(self.folder / name, ids, vectors)
        with self._lock:
            self._seen.add(name)
            for i, v in zip(ids.tolist(), vectors):
                self._rows.setdefault(int(i), v)
        if len(self._shards()) > MAX_SHARDS:
            self._merge()

    def _merge(self) -> None:
        with path_lock(self.folder / "merge"):
            shards = self._shards()
            if len(shards) <= MAX_SHARDS:
                return  # another writer merged them meanwhile
            rows: dict[int, np.ndarray] = {}
            for path in shards:
                got = _read_shard(path, self.dim, self.n)
                if got is not None:
                    for i, v in zip(got[0].tolist(), got[1]):
                        rows.setdefault(int(i), v)
            ids = np.asarray(sorted(rows), dtype=np.int64)
            vecs = np.stack([rows[int(i)] for i in ids]) if ids.size else np.zeros((0, self.dim), np.float32)
            # the merged shard is in place before any shard it holds goes, so a reader never loses a row
            name = f"{SHARD_PREFIX}{time.time_ns():020d}-{unique_suffix()}.npz"
            _write_shard(self.folder / name, ids, vecs)
            for path in shards:
                path.unlink(missing_ok=True)
            with self._lock:
                self._seen.add(name)


_OPEN: dict[str, LazyVectorCache] = {}
_OPEN_LOCK = threading.Lock()


@dataclass
class LazyStats:
    """What one question's lazy vectors cost: rows read, of which embedded now, and the seconds."""

    pool: int = 0  #: nodes the initial search ran over
    reached: int = 0  #: distinct nodes whose vector the run read
    embedded: int = 0  #: of those, embedded by this run (the rest came from the workspace cache)
    seconds: float = 0.0  #: embedding and cache time


class LazyNodeVectors:
    """The rows of ``V`` a run reads, embedded on first use (the ``node_vectors="lazy"`` option).

    Stands in for the ``(n, d)`` array of :func:`~core.methods.fastinsight.loop.iter_fastinsight` and
    :func:`~core.methods.fastinsight.stex.stex`: ``shape``, ``ndim``, ``v[ids]`` (those rows, embedded when
    the cache lacks them) and :meth:`search`, the vector search over the question's pool (plus every node
    the run reached) instead of the whole KG.
    """

    ndim = 2

    def __init__(self, texts: Sequence[str], embedder: Embedder, cache: LazyVectorCache,
                 pool: Sequence[int] | np.ndarray) -> None:
        self.texts, self.embedder, self.cache = texts, embedder, cache
        self.shape = (len(texts), int(embedder.dim))
        self.pool = np.unique(np.asarray(pool, dtype=np.int64))
        self._rows: dict[int, np.ndarray] = {}
        self.stats = LazyStats(pool=int(self.pool.size))

    def __getitem__(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        idx = np.asarray(ids, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.shape[0]):
            raise IndexError(f"node rows must be in 0..{self.shape[0] - 1}")
        self._ensure(idx)
        out = np.zeros((idx.size, self.shape[1]), dtype=np.float32)
        for j, i in enumerate(idx.tolist()):
            out[j] = self._rows[i]
        return out

    def _ensure(self, idx: np.ndarray) -> None:
        want = [i for i in dict.fromkeys(idx.tolist()) if i not in self._rows]
        if not want:
            return
        t0 = time.perf_counter()
        self._rows.update(self.cache.rows(want))
        missing = [i for i in want if i not in self._rows]
        if missing:
            prefetch = getattr(self.texts, "prefetch", None)  # a graph store's node texts: one read
            if prefetch is not None:
                prefetch(missing)
            vecs = np.asarray(self.embedder.embed([self.texts[i] for i in missing]), dtype=np.float32)
            self.cache.add(np.asarray(missing, dtype=np.int64), vecs)
            self._rows.update(zip(missing, vecs))
            self.stats.embedded += len(missing)
        self.stats.reached = len(self._rows)
        self.stats.seconds += time.perf_counter() - t0

    def search(self, query_vector: np.ndarray, k: int, *,
               exclude: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``O_vs`` over the pool and every node this run reached: top-``k`` by ``v_q · V_n``, best first,
        ties to the lower index, skipping the nodes flagged in the boolean mask ``exclude``."""
        among = np.union1d(self.pool, np.fromiter(self._rows, dtype=np.int64, count=len(self._rows)))
        if exclude is not None:
            among = among[~np.asarray(exclude, dtype=bool)[among]]
        k = max(0, min(int(k), among.size))
        if k == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float64)
        sims = (self[among] @ np.asarray(query_vector, dtype=np.float32).reshape(-1)).astype(np.float64)
        order = np.lexsort((among, -sims))[:k]
        return among[order], sims[order]


def top_passages(chunk_scores: np.ndarray, pool_passages: int) -> np.ndarray:
    """Rows of the ``pool_passages`` passages with the highest ``chunk_scores`` (the chunk index's
    ``v_q · p``), best first, ties to the lower row: the passages whose nodes form the lazy pool."""
    if pool_passages < 1:
        raise ConfigError(f"lazy_pool_passages must be at least 1, got {pool_passages}.")
    s = np.asarray(chunk_scores, dtype=np.float64)
    return np.lexsort((np.arange(s.size), -s))[:min(int(pool_passages), s.size)].astype(np.int64)


def lazy_node_vectors(workspace: Workspace, ng: KGNodeGraph, embedder: Embedder, query_vector: np.ndarray, *,
                      max_chars: int, pool_passages: int) -> LazyNodeVectors:
    """The lazy stand-in for ``V`` of one question on ``workspace`` (see the module notes): its pool, every
    node linked to one of the top ``pool_passages`` passages of the chunk index, and its rows from the
    workspace's :class:`LazyVectorCache` or embedded now. On a graph store only those passages' ids and
    their nodes' provenance are read."""
    rows = top_passages(workspace.index("chunks", embedder).scores(query_vector), pool_passages)
    g = question_graph(workspace)
    prefetch = getattr(g.chunks, "prefetch", None)  # a graph store's view reads the rows in one batch
    if prefetch is not None:
        prefetch(rows.tolist())
    pool = ng.gold_nodes([g.chunks[int(r)].id for r in rows])  # the gold-node rule: nodes linked to these
    cache = LazyVectorCache.for_workspace(workspace, embedder, max_chars=max_chars, n=ng.n)
    return LazyNodeVectors(ng.passages, embedder, cache, pool)
