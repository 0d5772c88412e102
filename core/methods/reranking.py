"""Reranking pieces shared by GRanker (FastInsight §3.3) and the retrieve-then-rerank baseline (Re2,
FastInsight §3.1.3 Example 3): which reranker runs, its pre-head features ``H`` cached per passage,
the exact shortcut for the bi-encoder stand-in, and the stable rank order.

Both methods score ``head(features(q, p))`` (``O_m``, FastInsight Definition 4); GRanker smooths ``H``
over the passage graph first, Re2 does not. Keeping the pieces here means neither method imports the
other's internals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from core.backends.base import Reranker
from core.methods.base import Backends


def rank_order(scores: np.ndarray) -> np.ndarray:
    """Positions sorted by score, best first; ties keep their input order (stable)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


class FeatureCache:
    """Reranker features ``H`` per passage for one query, computed once per passage.

    Algorithm 1 re-applies GRanker to the whole, growing ``N_ret`` after every batch, but a
    passage's features ``Encoder(q, n_i)`` do not depend on the other retrieved passages, so each
    passage is encoded once: the total number of reranker inputs is ``|N_ret| <= b_max``, which is
    how the paper counts the cost of a run ("the number of O_m operators", §5.2.1).

    Parameters
    ----------
    reranker : Reranker
    query : str
    passages : sequence of str
        Text of every passage-graph node.
    precomputed : callable or None
        ``nodes -> H`` used instead of ``reranker.features`` (the bi-encoder stand-in reads its
        passage embeddings from the chunk index rather than embedding them again).
    """

    def __init__(self, reranker: Reranker, query: str, passages: Sequence[str], *,
                 precomputed: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
        self.reranker = reranker
        self.query = query
        self.passages = passages
        self.precomputed = precomputed
        self._rows: dict[int, np.ndarray] = {}
        self.encoded = 0  #: passages sent through the reranker (or read from the index)

    def get(self, nodes: np.ndarray | Sequence[int]) -> np.ndarray:
        nodes = np.asarray(nodes, dtype=np.int64)
        missing = [int(v) for v in dict.fromkeys(nodes.tolist()) if int(v) not in self._rows]
        if missing:
            if self.precomputed is not None:
                h = np.asarray(self.precomputed(np.asarray(missing, dtype=np.int64)))
            else:
                prefetch = getattr(self.passages, "prefetch", None)
                if prefetch is not None:  # texts kept in a graph store: read the missing ones in one go
                    prefetch(missing)
                h = np.asarray(self.reranker.features(self.query, [self.passages[v] for v in missing]))
            if h.ndim != 2 or h.shape[0] != len(missing):
                raise ValueError(f"reranker features must have shape ({len(missing)}, f), got {h.shape}")
            for v, row in zip(missing, h):
                self._rows[v] = row
            self.encoded += len(missing)
        if nodes.size == 0:
            dim = next(iter(self._rows.values())).shape[0] if self._rows else 0
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([self._rows[int(v)] for v in nodes])


def resolve_reranker(backends: Backends) -> tuple[Reranker, str]:
    """The reranker to use and, when none is configured, why the bi-encoder stand-in was taken."""
    if backends.reranker is not None:
        return backends.reranker, ""
    from core.backends.rerankers import BiEncoderReranker

    return BiEncoderReranker(backends.embedder), ("no reranker configured; using the bi-encoder stand-in over "
                                                  f"the embedder {backends.embedder.model_id}")


def index_feature_source(reranker: Reranker, index_model_id: str, node_vectors: np.ndarray,
                         query: str) -> Callable[[np.ndarray], np.ndarray] | None:
    """Features of the bi-encoder stand-in read from the chunk index, when that is exact.

    The stand-in's features are ``q ⊙ p`` with ``p`` the passage embedding; when the index was
    built by the same embedder, ``p`` is already row ``i`` of the index, so embedding the passage
    again would only cost time. Returns None for every other reranker (cross-encoders must read
    the text).
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
