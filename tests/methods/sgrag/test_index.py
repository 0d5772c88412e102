"""φ / σ: the R*-tree path index returns exactly the brute-force matches (Alg. 7, App. K)."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import ConfigError
from core.graph.model import KnowledgeGraph
from core.methods.sgrag.index import (
    brute_force_match,
    build_path_index,
    count_paths,
    enumerate_paths,
    simple_adjacency,
)
from tests.methods.sgrag.conftest import label_features


def _oracle_paths(graph: KnowledgeGraph, l: int) -> set[tuple[int, ...]]:  # noqa: E741 - l is the paper's path length
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(graph.n_nodes))
    g.add_edges_from((int(h), int(t)) for h, t in zip(graph.edge_head, graph.edge_tail) if h != t)
    out: set[tuple[int, ...]] = set()

    def walk(p: list[int]) -> None:
        if len(p) == l + 1:
            out.add(tuple(p))
            return
        for v in g.neighbors(p[-1]):
            if v not in p:
                walk([*p, v])

    for s in g.nodes:
        walk([s])
    return out


@pytest.mark.parametrize("l", [1, 2, 3])
def test_enumerated_paths_are_all_simple_paths(bridge_graph: KnowledgeGraph, l: int) -> None:  # noqa: E741 - l is the paper's path length
    adj = simple_adjacency(bridge_graph)
    got = {tuple(p) for p in enumerate_paths(adj, l).tolist()}
    assert got == _oracle_paths(bridge_graph, l)
    if l <= 2:
        assert count_paths(adj, l) == len(got)


def test_too_many_paths_is_a_config_error(umls_graph: KnowledgeGraph) -> None:
    with pytest.raises(ConfigError, match=r"l=2 would store about .* Use a smaller l"):
        enumerate_paths(simple_adjacency(umls_graph), 2, max_paths=1000)


def _check_oracle(ix, rng: np.random.Generator, n: int, wildcard: bool) -> int:
    nonempty = 0
    for _ in range(n):
        r = int(rng.integers(len(ix.paths)))
        labels = ix.path_labels[r].astype(np.int64).copy()
        dom = None
        if ix.node_emb is not None:
            # a dominance bound between 0 and the path's own embedding: some paths pass, some do not
            dom = ix.node_emb[ix.paths[r]].reshape(-1) * rng.uniform(0.5, 1.05)
        if wildcard:
            labels[rng.integers(len(labels))] = -1
            if rng.random() < 0.5:
                dom = None
        got = ix.search(labels, dom)
        want = brute_force_match(ix, labels, dom)
        assert np.array_equal(got, want), (labels, got[:10], want[:10])
        nonempty += bool(len(want))
    return nonempty


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("l", [1, 2])
def test_index_equals_brute_force_on_umls(umls_graph, umls_model, seed: int, l: int) -> None:  # noqa: E741 - l is the paper's path length
    labels, lv, model = umls_model
    ix = build_path_index(umls_graph, l, labels.of_node, lv, model.node_emb, seed=seed)
    rng = np.random.default_rng(seed)
    assert _check_oracle(ix, rng, 40, wildcard=False) > 0
    assert _check_oracle(ix, rng, 40, wildcard=True) > 0


@pytest.mark.parametrize("seed", range(3))
def test_index_equals_brute_force_on_fb15k_slice(fb_slice: KnowledgeGraph, seed: int) -> None:
    labels, lv = label_features(fb_slice, dim=32)
    rng = np.random.default_rng(seed)
    node_emb = rng.random((fb_slice.n_nodes, 3)).astype(np.float32)  # any embedding: this tests the tree
    ix = build_path_index(fb_slice, 1, labels.of_node, lv, node_emb, seed=seed)
    assert len(ix.paths) == count_paths(simple_adjacency(fb_slice), 1)
    assert _check_oracle(ix, rng, 60, wildcard=False) > 0
    assert _check_oracle(ix, rng, 60, wildcard=True) > 0


def test_label_only_index(umls_graph, umls_model) -> None:
    labels, lv, _ = umls_model
    ix = build_path_index(umls_graph, 1, labels.of_node, lv, None)
    assert ix.dom_dims == 0 and ix.dimension == 2 * ix.sem_dims
    assert _check_oracle(ix, np.random.default_rng(1), 30, wildcard=True) > 0
