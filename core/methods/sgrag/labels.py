"""Node labels ℓ(v) as integer ids (sg_rag.txt §3: L assigns each vertex a label).

Exact matching (§4.3, "o_0(p_q) = o_0(p_z)") compares labels; two nodes with the same normalized
name share a label and therefore an identical label embedding, so comparing label ids is the same
test as comparing o_0 vectors, without float equality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.graph.model import KnowledgeGraph
from core.text import normalize_name


@dataclass(frozen=True, eq=False)
class GraphLabels:
    of_node: np.ndarray  #: label id per node, int32
    names: tuple[str, ...]  #: display name per label id
    keys: dict[str, int]  #: normalized name → label id
    canonical: np.ndarray  #: the first node carrying each label (whose vector is the label embedding)

    def id_of(self, name: str) -> int | None:
        return self.keys.get(normalize_name(name))


def graph_labels(graph: KnowledgeGraph) -> GraphLabels:
    keys: dict[str, int] = {}
    names: list[str] = []
    canon: list[int] = []
    of_node = np.empty(graph.n_nodes, dtype=np.int32)
    for v, name in enumerate(graph.node_names):
        k = normalize_name(name)
        lid = keys.get(k)
        if lid is None:
            lid = keys[k] = len(names)
            names.append(name)
            canon.append(v)
        of_node[v] = lid
    return GraphLabels(of_node, tuple(names), keys, np.asarray(canon, dtype=np.int64))


def label_vectors(labels: GraphLabels, node_vectors: np.ndarray) -> np.ndarray:
    """o_0 per label: the node-index vector of the label's canonical node (identical for equal labels)."""
    return np.ascontiguousarray(node_vectors[labels.canonical], dtype=np.float32)
