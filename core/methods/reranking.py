"""Reranking pieces shared by GRanker (FastInsight §3.3) and the retrieve-then-rerank baseline (Re2,
FastInsight §3.1.3 Example 3): which reranker runs, its pre-head features ``H`` cached per passage,
the exact shortcut for the bi-encoder stand-in, and the stable rank order.

Both methods score ``head(features(q, p))`` (``O_m``, FastInsight Definition 4); GRanker smooths ``H``
over the passage graph first, Re2 does not. Keeping the pieces here means neither method imports the
other's internals.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.backends.base import Reranker

_BLAS: Any = None
_BLAS_LOCK = threading.Lock()


@contextmanager
def small_products() -> Iterator[None]:
    """Run the small dense products of a FastInsight loop (a reranker head on ~100 × 384 features, the STeX
    scores) with one BLAS thread.

    A (100 × 384) @ (384 × 384) product takes 0.4 ms on one thread; with OpenBLAS's threads on a busy
    machine (two cores, a background job, other sessions) the same product measured 23 ms, its threads
    spinning for cores — and a loop calls the head twice per round. The limit is process-wide
    (threadpoolctl), for the ~second a loop takes; without threadpoolctl nothing changes."""
    global _BLAS
    try:
        import threadpoolctl
    except ImportError:  # pragma: no cover - installed with scikit-learn / the declared dependency
        yield
        return
    with _BLAS_LOCK:
        if _BLAS is None:
            _BLAS = threadpoolctl.ThreadpoolController()
    with _BLAS.limit(limits=1, user_api="blas"):
        yield


def rank_order(scores: np.ndarray) -> np.ndarray:
    """Positions sorted by score, best first; ties keep their input order (stable)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def reranker_identity(reranker: Reranker) -> str:
    """What names a reranker's features: its class, registry name, model id and the truncation length
    (a cross-encoder cut at 256 tokens reads other features than the same model at 512)."""
    length = getattr(reranker, "max_length", None)
    return "|".join((type(reranker).__qualname__, str(reranker.name), str(reranker.model_id),
                     "" if length is None else f"max_length={int(length)}"))


def text_digest(text: str) -> str:
    """A 128-bit digest of one passage / node text (the feature store's key for the text)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@dataclass(frozen=True)
class FeatureStoreStats:
    """What a :class:`FeatureStore` holds and how it was used."""

    rows: int
    bytes: int
    hits: int
    misses: int
    evicted: int


class FeatureStore:
    """Reranker features ``H`` kept across runs: a bounded, thread-safe LRU of feature rows.

    A row ``Encoder(q, n)`` depends only on the reranker, the question and the text of ``n`` (FastInsight
    §3.3: GRanker smooths it over the retrieved subgraph *afterwards*), so a run with another α or β — which
    changes which candidates STeX adds and how GRanker mixes them, never a row itself — re-reads the rows of
    the candidates it shares with an earlier run instead of sending them through the cross-encoder again.

    Rows are keyed by ``(reranker identity, scope, question, digest of the text)``
    (:func:`reranker_identity`, :func:`text_digest`; ``scope`` names the graph searched, e.g. KG nodes cut at
    512 characters or passages), so another reranker, question, graph mode or a changed text never returns
    a stale row. The least recently used rows are dropped beyond ``max_rows`` rows or ``max_bytes`` bytes.

    Parameters
    ----------
    max_rows : int
        At most this many rows (default 50,000: 500 full FastInsight runs of ``b_max = 100``).
    max_bytes : int
        At most this many bytes of feature data (default 256 MiB; a MiniLM [CLS] row is 1.5 KiB).
    """

    def __init__(self, *, max_rows: int = 50_000, max_bytes: int = 256 * 2**20) -> None:
        if max_rows < 1 or max_bytes < 1:
            raise ValueError(f"a feature store needs room for a row, got max_rows={max_rows}, max_bytes={max_bytes}")
        self.max_rows = int(max_rows)
        self.max_bytes = int(max_bytes)
        self._rows: OrderedDict[tuple[str, str, str, str], np.ndarray] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._hits = self._misses = self._evicted = 0

    def get(self, keys: Sequence[tuple[str, str, str, str]]) -> list[np.ndarray | None]:
        """The stored row of each key (None where there is none); a found row becomes the most recent."""
        out: list[np.ndarray | None] = []
        with self._lock:
            for k in keys:
                row = self._rows.get(k)
                if row is None:
                    self._misses += 1
                else:
                    self._rows.move_to_end(k)
                    self._hits += 1
                out.append(row)
        return out

    def put(self, keys: Sequence[tuple[str, str, str, str]], rows: np.ndarray | Sequence[np.ndarray]) -> None:
        """Keep ``rows[i]`` under ``keys[i]`` (read-only copies), dropping the least recently used beyond the bounds."""
        with self._lock:
            for k, r in zip(keys, rows):
                row = np.array(r, copy=True)
                row.setflags(write=False)
                old = self._rows.pop(k, None)
                if old is not None:
                    self._bytes -= old.nbytes
                self._rows[k] = row
                self._bytes += row.nbytes
            while self._rows and (len(self._rows) > self.max_rows or self._bytes > self.max_bytes):
                _, dropped = self._rows.popitem(last=False)
                self._bytes -= dropped.nbytes
                self._evicted += 1

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self._bytes = 0

    def stats(self) -> FeatureStoreStats:
        with self._lock:
            return FeatureStoreStats(len(self._rows), self._bytes, self._hits, self._misses, self._evicted)

    def __len__(self) -> int:
        return len(self._rows)


_ACTIVE_STORE: ContextVar[FeatureStore | None] = ContextVar("egx_feature_store", default=None)


@contextmanager
def feature_store(store: FeatureStore | None) -> Iterator[FeatureStore | None]:
    """Let the runs inside the ``with`` block (this thread or task) share ``store`` (None: none).

    The app's server holds one store and runs its interactive method runs inside it; the CLI, the
    benchmark runner and tests do not, so their runs encode every candidate and their timings stay honest.
    """
    token = _ACTIVE_STORE.set(store)
    try:
        yield store
    finally:
        _ACTIVE_STORE.reset(token)


def active_feature_store() -> FeatureStore | None:
    """The store set by the innermost :func:`feature_store` block around this call, or None."""
    return _ACTIVE_STORE.get()


class FeatureCache:
    """Reranker features ``H`` per passage for one query, computed once per passage.

    Algorithm 1 re-applies GRanker to the whole, growing ``N_ret`` after every batch, but a
    passage's features ``Encoder(q, n_i)`` do not depend on the other retrieved passages, so each
    passage is encoded once: the total number of reranker inputs is ``|N_ret| <= b_max``, which is
    how the paper counts the cost of a run ("the number of O_m operators", §5.2.1).

    With a :class:`FeatureStore` the rows are also looked up in (and added to) that store, shared across
    runs: a rerun with another α or β encodes only the candidates no earlier run reached.

    Parameters
    ----------
    reranker : Reranker
    query : str
    passages : sequence of str
        Text of every passage-graph node.
    precomputed : callable or None
        ``nodes -> H`` used instead of ``reranker.features`` (the bi-encoder stand-in reads its
        passage embeddings from the chunk index rather than embedding them again; such rows are
        cheap and never stored).
    store : FeatureStore or None
        Rows shared across runs (default: none, each run encodes its candidates).
    scope : str
        What the texts are (e.g. ``"kg_nodes:512"``, ``"passages"``): part of the store's key.
    """

    def __init__(self, reranker: Reranker, query: str, passages: Sequence[str], *,
                 precomputed: Callable[[np.ndarray], np.ndarray] | None = None,
                 store: FeatureStore | None = None, scope: str = "") -> None:
        self.reranker = reranker
        self.query = query
        self.passages = passages
        self.precomputed = precomputed
        self.store = store if precomputed is None else None
        self.scope = scope
        self._identity = reranker_identity(reranker) if self.store is not None else ""
        self._rows: dict[int, np.ndarray] = {}
        self.encoded = 0  #: passages whose features this run used (= |N_ret|: the paper's count of O_m inputs)
        self.computed = 0  #: of those, sent through the reranker (or read from the index) by this run
        self.reused = 0  #: of those, read from the shared store (computed by an earlier run)

    def _compute(self, missing: list[int]) -> np.ndarray:
        if self.precomputed is not None:
            return np.asarray(self.precomputed(np.asarray(missing, dtype=np.int64)))
        return np.asarray(self.reranker.features(self.query, [self.passages[v] for v in missing]))

    def get(self, nodes: np.ndarray | Sequence[int]) -> np.ndarray:
        nodes = np.asarray(nodes, dtype=np.int64)
        missing = [int(v) for v in dict.fromkeys(nodes.tolist()) if int(v) not in self._rows]
        if missing:
            if self.precomputed is None:
                prefetch = getattr(self.passages, "prefetch", None)
                if prefetch is not None:  # texts kept in a graph store: read the missing ones in one go
                    prefetch(missing)
            keys: list[tuple[str, str, str, str]] = []
            found: list[np.ndarray | None] = [None] * len(missing)
            if self.store is not None:
                keys = [(self._identity, self.scope, self.query, text_digest(self.passages[v])) for v in missing]
                found = self.store.get(keys)
            todo = [i for i, row in enumerate(found) if row is None]
            if todo:
                h = self._compute([missing[i] for i in todo])
                if h.ndim != 2 or h.shape[0] != len(todo):
                    raise ValueError(f"reranker features must have shape ({len(todo)}, f), got {h.shape}")
                for i, row in zip(todo, h):
                    found[i] = row
                if self.store is not None:
                    self.store.put([keys[i] for i in todo], h)
            for v, row in zip(missing, found):
                assert row is not None
                self._rows[v] = row
            self.encoded += len(missing)
            self.computed += len(todo)
            self.reused += len(missing) - len(todo)
        if nodes.size == 0:
            dim = next(iter(self._rows.values())).shape[0] if self._rows else 0
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([self._rows[int(v)] for v in nodes])


def index_feature_source(reranker: Reranker, index_model_id: str, node_vectors: Any,
                         query: str) -> Callable[[np.ndarray], np.ndarray] | None:
    """Features of the bi-encoder stand-in read from the chunk index, when that is exact.

    The stand-in's features are ``q ⊙ p`` with ``p`` the passage embedding; when the index was
    built by the same embedder, ``p`` is already row ``i`` of the index, so embedding the passage
    again would only cost time. Returns None for every other reranker (cross-encoders must read
    the text). ``node_vectors`` is an ``(n, d)`` array or rows read on demand (FastInsight's lazy node
    vectors: ``shape``, ``ndim`` and ``v[ids]``).
    """
    from core.backends.rerankers import BiEncoderReranker

    if not isinstance(reranker, BiEncoderReranker) or reranker.embedder.model_id != index_model_id:
        return None
    if node_vectors.ndim != 2 or node_vectors.shape[1] != reranker.embedder.dim:
        return None
    qv = np.asarray(reranker.embedder.embed_queries([query])[0], dtype=np.float32)

    def features(nodes: np.ndarray) -> np.ndarray:
        return (node_vectors[np.asarray(nodes, dtype=np.int64)] * qv[None, :]).astype(np.float32)

    return features
