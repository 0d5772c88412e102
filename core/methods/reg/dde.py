"""Directional distance encoding (DDE), as ReG@Triple takes it from SubgraphRAG (ReG Appendix E).

Every node starts with a one-hot of "is a topic (query) entity": ``[1, 0]`` for other nodes,
``[0, 1]`` for topic entities. ``rounds`` forward rounds then propagate it along edge direction,
each node taking the **mean** of its in-neighbours' vectors from the previous round (a node without
in-neighbours gets zeros); ``reverse_rounds`` do the same against edge direction, starting again from
the one-hot. The encoding concatenates the one-hot and every round's output:

    DDE(v) = [x0(v), f1(v), …, f_R(v), b1(v), …, b_R'(v)]      (2·(1 + R + R') numbers)

so ``f_k(v)[1]`` is the share of directed length-k walks into ``v`` that start at a topic entity —
a soft "k hops downstream of the query" signal, and ``b_k`` the upstream counterpart. A triple is
encoded by concatenating DDE(head) and DDE(tail). SubgraphRAG aggregates by mean (PyG
``MessagePassing(aggr="mean")``); we do the same with numpy.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def dde(n_nodes: int, heads: np.ndarray, tails: np.ndarray, topic: Iterable[int], *, rounds: int = 2,
        reverse_rounds: int = 2) -> np.ndarray:
    """DDE of every node of a (sub)graph with ``n_nodes`` nodes and edges ``heads[i] → tails[i]``.

    Returns
    -------
    np.ndarray
        Shape ``(n_nodes, 2 * (1 + rounds + reverse_rounds))``, float32.

    Examples
    --------
    >>> dde(3, np.array([0, 1]), np.array([1, 2]), [0], rounds=2, reverse_rounds=0)[:, 2:].tolist()
    [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0]]
    """
    heads = np.asarray(heads, dtype=np.int64)
    tails = np.asarray(tails, dtype=np.int64)
    x0 = np.zeros((n_nodes, 2), dtype=np.float64)
    x0[:, 0] = 1.0
    t = np.fromiter((int(v) for v in topic), dtype=np.int64)
    if t.size:
        x0[t] = (0.0, 1.0)
    out = [x0]
    for src, dst, k in ((heads, tails, rounds), (tails, heads, reverse_rounds)):
        deg = np.bincount(dst, minlength=n_nodes).astype(np.float64)[:, None]
        h = x0
        for _ in range(k):
            acc = np.zeros_like(h)
            np.add.at(acc, dst, h[src])
            h = np.divide(acc, deg, out=np.zeros_like(acc), where=deg > 0)
            out.append(h)
    return np.concatenate(out, axis=1).astype(np.float32)


def dde_dim(rounds: int = 2, reverse_rounds: int = 2) -> int:
    return 2 * (1 + rounds + reverse_rounds)
