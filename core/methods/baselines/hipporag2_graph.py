"""HippoRAG 2's graph (Gutiérrez et al. 2025, §3.1): phrase nodes and passage nodes in one undirected, weighted
graph, as the released code builds it (``add_fact_edges``, ``add_passage_edges``, ``add_synonymy_edges``).

Rows ``0 .. P-1`` of the adjacency are the phrase (entity) nodes, rows ``P .. P+C-1`` the passage nodes, one per
passage of the workspace. The weights are the code's: it counts each fact (a triple of a passage) once in each
direction of an undirected igraph graph, so a phrase pair joined by ``k`` triple occurrences weighs ``2k``; a
passage joins each phrase it contains with one edge of weight 1; a synonym edge is added from each phrase whose
name has more than two letters or digits to each of its (at most 101) most similar phrases with cosine ≥ the
threshold, weight = cosine, so a pair that qualifies both ways weighs twice its cosine. The walk
(:func:`~core.methods.baselines.ppr_walk.personalized_pagerank`) reads parallel weights summed, as igraph's does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

    from core.graph.model import KnowledgeGraph

#: The code stops adding a phrase's synonym edges after this many (its ``num_nns > 100`` break).
MAX_SYNONYMS_PER_PHRASE = 101
#: The code adds synonym edges only from a phrase with more than this many letters or digits.
MIN_SYNONYM_CHARS = 2

WEIGHTS = ("fact: 2 × the triples joining the pair (the code stores each triple in both directions); "
           "passage–phrase: 1; synonym: the cosine, once from each side that qualifies")

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


@dataclass(frozen=True, eq=False)
class JointGraph:
    """The walked graph: a symmetric adjacency over phrase rows then passage rows, and what it holds."""

    adjacency: csr_matrix
    phrases: np.ndarray | None  #: global KG node of each phrase row (None: every node, in order)
    n_phrases: int
    n_passages: int
    fact_pairs: int
    passage_edges: int
    synonym_edges: int
    passages_per_phrase: np.ndarray  #: passages each phrase row appears in (its passage edges)

    def phrase_row(self, node: int) -> int:
        """The row of global KG node ``node`` (it must be walked)."""
        if self.phrases is None:
            return int(node)
        pos = int(np.searchsorted(self.phrases, node))
        if pos >= self.phrases.size or int(self.phrases[pos]) != int(node):
            raise KeyError(f"node {node} is not in the walked region")
        return pos

    def phrase_node(self, row: int) -> int:
        """The global KG node of phrase row ``row``."""
        return int(row) if self.phrases is None else int(self.phrases[row])


def synonym_weights(pairs: np.ndarray, sims: np.ndarray, names: Sequence[str], *,
                    per_phrase: int = MAX_SYNONYMS_PER_PHRASE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The synonym edges the code adds, from the pairs above the threshold: ``(src, dst, cosine)`` per direction.

    A direction ``a → b`` is kept when ``a``'s name has more than :data:`MIN_SYNONYM_CHARS` letters or digits and
    ``b`` is among ``a``'s ``per_phrase`` most similar partners (ties by node order).

    >>> p = np.array([[0, 1], [0, 2]]); s = np.array([0.9, 0.85])
    >>> [x.tolist() for x in synonym_weights(p, s, ["Paris", "Paris city", "ab"])]
    [[0, 0, 1], [1, 2, 0], [0.9, 0.85, 0.9]]
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    sims = np.asarray(sims, dtype=np.float64).reshape(-1)
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    cos = np.concatenate([sims, sims])
    long_name = np.array([len(_NOT_ALNUM.sub("", n)) > MIN_SYNONYM_CHARS for n in names], dtype=bool)
    keep = long_name[src] if src.size else np.zeros(0, dtype=bool)
    src, dst, cos = src[keep], dst[keep], cos[keep]
    order = np.lexsort((dst, -cos, src))
    src, dst, cos = src[order], dst[order], cos[order]
    if src.size:
        starts = np.flatnonzero(np.r_[True, src[1:] != src[:-1]])
        rank = np.arange(src.size) - np.repeat(starts, np.diff(np.r_[starts, src.size]))
        keep = rank < per_phrase
        src, dst, cos = src[keep], dst[keep], cos[keep]
    return src, dst, cos


def joint_graph(graph: KnowledgeGraph, incidence: csr_matrix, *,
                synonyms: tuple[np.ndarray, np.ndarray] | None = None,
                phrases: np.ndarray | None = None) -> JointGraph:
    """HippoRAG 2's graph over ``graph``'s phrases and every passage (module docstring for the weights).

    Parameters
    ----------
    graph : KnowledgeGraph
        The phrases and facts walked: the whole KG, or a region of it (then ``phrases`` names the global node of
        each of its nodes).
    incidence : scipy.sparse matrix, shape (n_passages, graph.n_nodes)
        Passage ``c`` contains phrase ``v`` (0/1; provenance).
    synonyms : (pairs, cosines) or None
        Phrase pairs ``(i, j)``, ``i < j``, with cosine ≥ the threshold, in ``graph``'s node numbering.
    phrases : ndarray or None
        Global KG node of each node of ``graph`` (a region), sorted; None for the whole KG.

    Returns
    -------
    JointGraph
    """
    from scipy.sparse import coo_matrix, csr_matrix

    p = graph.n_nodes
    inc = csr_matrix(incidence)
    c = inc.shape[0]
    if inc.shape[1] != p:
        raise ValueError(f"incidence has {inc.shape[1]} phrase columns for a graph of {p} nodes")
    h, t = graph.edge_head.astype(np.int64), graph.edge_tail.astype(np.int64)
    occurrences = np.array([max(1, len(cids)) for cids in graph.edge_chunks], dtype=np.float64)
    loop = h == t  # the code skips a fact whose subject is its object
    h, t, occurrences = h[~loop], t[~loop], occurrences[~loop]
    # each occurrence is stored once per direction, and igraph sums the two parallel undirected edges
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = [(h, t, 2.0 * occurrences)]
    fact_pairs = int(np.unique(np.minimum(h, t) * max(p, 1) + np.maximum(h, t)).size)
    n_syn = 0
    if synonyms is not None and len(synonyms[0]):
        src, dst, cos = synonym_weights(synonyms[0], synonyms[1], graph.node_names)
        parts.append((src, dst, cos))
        n_syn = int(np.unique(np.minimum(src, dst) * max(p, 1) + np.maximum(src, dst)).size)
    pc = inc.tocoo()
    parts.append((pc.row.astype(np.int64) + p, pc.col.astype(np.int64), np.ones(pc.nnz)))  # passage–phrase
    # every edge is undirected: its weight goes into both (a, b) and (b, a)
    rows = np.concatenate([x for a, b, _ in parts for x in (a, b)])
    cols = np.concatenate([x for a, b, _ in parts for x in (b, a)])
    w = np.concatenate([x for _, _, x in parts for _ in (0, 1)])
    adjacency = coo_matrix((w, (rows, cols)), shape=(p + c, p + c)).tocsr()  # duplicates summed: igraph's parallel edges
    per_phrase = np.asarray((inc > 0).sum(axis=0)).reshape(-1).astype(np.int64)
    return JointGraph(adjacency, None if phrases is None else np.asarray(phrases, dtype=np.int64), p, c, fact_pairs,
                      int(pc.nnz), n_syn, per_phrase)
