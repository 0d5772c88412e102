"""ψ, part 2: entity normalization by FAISS (sg_rag.txt §4.3, App. D, Algorithm 3).

Each non-``UNK`` query node label is embedded and the most similar KG node is found in the
workspace's node index (FAISS inner product on unit vectors = cosine). The cosine is kept, and a
mapping below ``doubtful_below`` is flagged *doubtful* so the UI can show it. One guard the paper
does not spell out: when a node with exactly the same normalized name is among the top-k, it wins
over a slightly more similar different name (node texts include descriptions, which can shift the
cosine); ``exact_name`` records when that happened.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.backends.base import Embedder
from core.index.workspace import Workspace
from core.methods.sgrag.labels import GraphLabels
from core.methods.sgrag.query_graph import QueryGraph
from core.pinning import pin_search
from core.text import normalize_name
from core.trace import Trace


@dataclass(frozen=True)
class Mapping:
    qid: str
    query_label: str
    node: int  #: KG node index (-1 when unmapped)
    node_name: str
    label_id: int
    similarity: float
    doubtful: bool
    exact_name: bool
    alternatives: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Normalized:
    """The normalized query graph q: ``mappings`` for known nodes, ``UNK`` nodes left open."""

    query_graph: QueryGraph
    mappings: tuple[Mapping, ...]

    def mapping(self, qid: str) -> Mapping | None:
        return next((m for m in self.mappings if m.qid == qid), None)

    @property
    def label_of(self) -> dict[str, int]:
        """Query node id → label id for every mapped (known) node."""
        return {m.qid: m.label_id for m in self.mappings if m.node >= 0}

    @property
    def doubtful(self) -> tuple[Mapping, ...]:
        return tuple(m for m in self.mappings if m.doubtful or m.node < 0)


def normalize_entities(qg: QueryGraph, workspace: Workspace, embedder: Embedder, labels: GraphLabels, *,
                       k: int = 5, doubtful_below: float = 0.75, trace: Trace | None = None) -> Normalized:
    """Algorithm 3: replace every known query node by its most similar KG node.

    Parameters
    ----------
    qg
        The query graph q* from :func:`extract_query_graph`.
    workspace, embedder
        The node index (built with ``embedder``) searched by FAISS.
    labels
        Label ids of the graph.
    k
        Neighbours kept per query node (shown as alternatives).
    doubtful_below
        Cosine below which a mapping is flagged doubtful.

    Returns
    -------
    Normalized
    """
    tr = trace if trace is not None else Trace("sgrag", "")
    graph = workspace.graph
    with tr.timed("normalization", "Entity normalization (FAISS over node labels)",
                  section="SG-RAG §4.3, App. D, Alg. 3") as step:
        known = [n for n in qg.nodes if not n.unknown]
        out: list[Mapping] = []
        if known and graph.n_nodes:
            vecs = np.asarray(embedder.embed([n.label for n in known]), dtype=np.float32)
            scores, ids = workspace.index("nodes").search(vecs, k)
            for n, srow, irow in zip(known, scores, ids):
                srow, irow = pin_search("sgrag.normalization.node_search", srow, irow, key=n.label)
                cand = [(int(i), float(s)) for i, s in zip(irow, srow) if i >= 0]
                key = normalize_name(n.label)
                exact = [(i, s) for i, s in cand if normalize_name(graph.node_names[i]) == key]
                exact_name = bool(exact) and exact[0][0] != cand[0][0]
                v, s = (exact[0] if exact else cand[0]) if cand else (-1, 0.0)
                out.append(Mapping(n.id, n.label, v, graph.node_names[v] if v >= 0 else "",
                                   int(labels.of_node[v]) if v >= 0 else -1, s,
                                   v < 0 or s < doubtful_below, exact_name,
                                   tuple((graph.node_names[i], round(sc, 4)) for i, sc in cand)))
        else:
            out = [Mapping(n.id, n.label, -1, "", -1, 0.0, True, False) for n in known]
        step.data.update({
            "doubtful_below": doubtful_below,
            "table": [{"qid": m.qid, "query_label": m.query_label, "node": m.node_name, "similarity": round(m.similarity, 4),
                       "doubtful": m.doubtful, "exact_name": m.exact_name, "alternatives": m.alternatives}
                      for m in out],
            "unknown": list(qg.unknown_ids)})
    return Normalized(qg, tuple(out))
