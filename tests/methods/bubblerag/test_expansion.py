"""Bubble expansion (BubbleRAG §3.3, Algorithm 1) against networkx oracles and invariants."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from core.graph.graph_builder import graph_from_triples
from core.graph.model import KnowledgeGraph
from core.methods.bubblerag.candidates import Candidate
from core.methods.bubblerag.expansion import bubble_expansion, iter_bubble_expansion
from core.methods.bubblerag.grouping import AnchorGroup
from core.methods.bubblerag.localize import localized_graph
from core.methods.bubblerag.ranking import rank_cegs


def random_graph(seed: int, n: int = 80, m: int = 160) -> KnowledgeGraph:
    rng = np.random.default_rng(seed)
    return graph_from_triples([(f"n{rng.integers(n)}", f"r{rng.integers(4)}", f"n{rng.integers(n)}") for _ in range(m)])


def unit(rng: np.random.Generator, n: int, d: int = 16) -> np.ndarray:
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def make_groups(g: KnowledgeGraph, rng: np.random.Generator, m: int, per: int = 2, edges: bool = True) -> list[AnchorGroup]:
    groups = []
    used: set[tuple[str, int]] = set()
    k = 0
    for gi in range(m):
        members = []
        while len(members) < per:
            kind = "edge" if edges and rng.random() < 0.3 and g.n_edges else "node"
            idx = int(rng.integers(g.n_edges if kind == "edge" else g.n_nodes))
            if (kind, idx) in used:
                continue
            used.add((kind, idx))
            k += 1
            text = g.edge_text(idx) if kind == "edge" else g.node_names[idx]
            members.append(Candidate(f"c{k}", kind, idx, text, 1.0, (f"kw{gi}",), (1.0,)))
        groups.append(AnchorGroup(gi, f"kw{gi}", 1.0 / m, tuple(members)))
    return groups


def oracle_distances(g: KnowledgeGraph, local, terminals: set[int]) -> dict[int, float]:
    """Dijkstra in G' where entering node v costs cost(v) (anchors start at 0)."""
    d = nx.DiGraph()
    cost = {int(v): float(c) for v, c in zip(local.nodes.tolist(), local.cost.tolist())}
    d.add_nodes_from(cost)
    for e in local.edge_ids().tolist():
        h, t = int(g.edge_head[e]), int(g.edge_tail[e])
        d.add_edge(h, t)
        d.add_edge(t, h)
    return nx.multi_source_dijkstra_path_length(d, terminals, weight=lambda u, v, _: cost[v])


@pytest.mark.parametrize("seed", range(12))
def test_cegs_are_connected_cover_their_groups_and_paths_are_shortest(seed):
    rng = np.random.default_rng(seed)
    g = random_graph(seed)
    nv = unit(rng, g.n_nodes)
    q = unit(rng, 1)[0]
    groups = make_groups(g, rng, m=int(rng.integers(2, 5)))
    terminals = {v for grp in groups for v in grp.terminals(g)}
    local = localized_graph(g, terminals, nv, q, h=3)
    res = bubble_expansion(g, local, groups, budget=10)
    assert res.cegs
    oracles = [oracle_distances(g, local, {v for v in grp.terminals(g) if v in set(local.nodes.tolist())})
               for grp in groups]
    for c in res.cegs:
        sub = nx.Graph()
        sub.add_nodes_from(c.nodes)
        for e in c.edges:
            h, t = int(g.edge_head[e]), int(g.edge_tail[e])
            assert h in c.nodes and t in c.nodes, "CEG edges must join CEG nodes"
            sub.add_edge(h, t)
        if c.kind != "fallback":
            assert nx.is_connected(sub), f"CEG {c.index} is not connected"
        for gi in c.groups:
            grp = groups[gi]
            assert any((m.kind == "node" and m.index in c.nodes) or (m.kind == "edge" and m.index in c.edges)
                       for m in grp.members), f"CEG {c.index} claims group {gi} without one of its anchors"
        if c.kind == "collision":
            assert len(c.involved) >= 2
            for gi, cost in c.path_costs:
                assert cost == pytest.approx(oracles[gi][c.meeting], abs=1e-6)
    keys = {(c.nodes, c.edges) for c in res.cegs}
    assert len(keys) == len(res.cegs), "CEGs are deduplicated"


@pytest.mark.parametrize("budget", [1, 3, 10])
def test_budget_bounds_inter_group_cegs(budget):
    rng = np.random.default_rng(7)
    g = random_graph(7, n=60, m=200)
    groups = make_groups(g, rng, m=4)
    local = localized_graph(g, {v for grp in groups for v in grp.terminals(g)}, unit(rng, g.n_nodes), unit(rng, 1)[0], h=6)
    res = bubble_expansion(g, local, groups, budget=budget)
    counted = [c for c in res.cegs if c.kind != "intra"]
    assert len(counted) <= budget
    assert len([c for c in res.cegs if c.kind == "intra"]) <= budget
    if res.budget_reached:
        assert len(counted) == budget
    with pytest.raises(ValueError, match="budget B must be >= 1"):
        bubble_expansion(g, local, groups, budget=0)


def test_fallback_returns_the_anchors_when_nothing_collides():
    g = graph_from_triples([("a", "r", "b"), ("c", "r", "d")])  # two components: bubbles cannot meet
    groups = [AnchorGroup(0, "A", 0.6, (Candidate("c1", "node", g.node("a"), "a", 1.0, ("A",), (1.0,)),)),
              AnchorGroup(1, "C", 0.4, (Candidate("c2", "node", g.node("c"), "c", 1.0, ("C",), (1.0,)),))]
    local = localized_graph(g, {g.node("a"), g.node("c")}, np.eye(4, dtype=np.float32), np.ones(4) / 2, h=6)
    res = bubble_expansion(g, local, groups, budget=10)
    assert res.fallback and len(res.cegs) == 1
    assert res.cegs[0].kind == "fallback" and set(res.cegs[0].nodes) == {g.node("a"), g.node("c")}
    assert res.cegs[0].groups == (0, 1)


def test_intra_group_connection_is_found_and_mildly_penalized():
    g = graph_from_triples([("a1", "r", "x"), ("x", "r", "a2"), ("a2", "r", "y"), ("y", "r", "b")])
    A = AnchorGroup(0, "A", 0.7, (Candidate("c1", "node", g.node("a1"), "a1", 1.0, ("A",), (1.0,)),
                                  Candidate("c2", "node", g.node("a2"), "a2", 1.0, ("A",), (1.0,))))
    B = AnchorGroup(1, "B", 0.3, (Candidate("c3", "node", g.node("b"), "b", 1.0, ("B",), (1.0,)),))
    vecs = np.tile(np.array([[1.0, 0.0]], np.float32), (g.n_nodes, 1))
    local = localized_graph(g, {g.node(n) for n in ("a1", "a2", "b")}, vecs, np.array([0.6, 0.8]), h=6)
    res = bubble_expansion(g, local, [A, B], budget=5)
    intra = [c for c in res.cegs if c.kind == "intra"]
    assert intra and set(intra[0].nodes) == {g.node("a1"), g.node("x"), g.node("a2")}
    cost = {int(v): float(c) for v, c in zip(local.nodes.tolist(), local.cost.tolist())}
    plain = rank_cegs(intra, cost, [0.7, 0.3], intra_group_penalty=1.0)[0].score
    penal = rank_cegs(intra, cost, [0.7, 0.3], intra_group_penalty=1.2)[0].score
    assert penal < plain
    assert not bubble_expansion(g, local, [A, B], budget=5, intra_group=False).cegs[0].kind == "intra"


def test_more_than_64_groups_are_supported():
    g = graph_from_triples([(f"n{i}", "next", f"n{i + 1}") for i in range(80)])
    groups = [AnchorGroup(i, f"g{i}", 1 / 70, (Candidate(f"c{i}", "node", g.node(f"n{i}"), f"n{i}", 1.0, ("k",), (1.0,)),))
              for i in range(70)]
    local = localized_graph(g, {g.node(f"n{i}") for i in range(70)}, np.eye(81, 8, dtype=np.float32), np.ones(8) / 8 ** .5)
    res = bubble_expansion(g, local, groups, budget=200)
    assert any(69 in c.groups for c in res.cegs)


def test_iter_frames_replay_the_search_and_end_with_the_result(matrix_graph):
    g = matrix_graph
    keanu = Candidate("c1", "node", g.node("Keanu Reeves"), "Keanu Reeves", 1.0, ("Keanu Reeves",), (1.0,))
    fish = Candidate("c2", "node", g.node("Laurence Fishburne"), "Laurence Fishburne", 1.0, ("Laurence Fishburne",), (1.0,))
    groups = [AnchorGroup(0, "Keanu", 0.5, (keanu,)), AnchorGroup(1, "Fishburne", 0.5, (fish,))]
    vecs = np.eye(g.n_nodes, dtype=np.float32)
    q = np.zeros(g.n_nodes, np.float32)
    q[g.node("The Matrix")] = 1.0
    local = localized_graph(g, {keanu.index, fish.index}, vecs, q, h=6)
    frames = list(iter_bubble_expansion(g, local, groups, budget=1))
    assert frames[0].step == 0 and frames[0].node == -1
    assert frames[-1].done and frames[-1].result is not None
    first = next(f for f in frames if f.new_cegs)
    ceg = first.new_cegs[0]
    # the two actor bubbles meet at the shared movie (BubbleRAG Figure 3)
    assert ceg.meeting == g.node("The Matrix")
    assert {g.node_names[v] for v in ceg.nodes} == {"Keanu Reeves", "The Matrix", "Laurence Fishburne"}
    assert first.settled[g.node("The Matrix")] == 0b11
    assert frames[-1].result.cegs[0] == ceg
    # frames are consistent: every settled node appears once per group
    pops = [(f.node, f.group) for f in frames[1:-1]]
    assert len(pops) == len(set(pops))
    assert bubble_expansion(g, local, groups, budget=1).cegs == frames[-1].result.cegs


@pytest.mark.parametrize("seed", range(6))
def test_queue_counts_only_live_entries_and_shows_them(seed):
    """The expansion page said "Priority-queue head (72 entries)" and then "empty" —
    the count included stale heap entries (lazy deletion) and the head skipped them. Oracle: a live
    entry is the current label of an unsettled (node, group), one per labelled-but-unsettled pair."""
    rng = np.random.default_rng(seed)
    g = random_graph(seed)
    groups = make_groups(g, rng, 3)
    terms = {v for grp in groups for v in grp.terminals(g)}
    local = localized_graph(g, terms, unit(rng, g.n_nodes), unit(rng, 1)[0], h=3)
    for f in iter_bubble_expansion(g, local, groups, budget=4):
        assert (f.queue_size == 0) == (not f.queue_head)
        assert len(f.queue_head) == min(5, f.queue_size)
        assert [c for _, _, c in f.queue_head] == sorted(c for _, _, c in f.queue_head)
        if f.frontier is not None:  # snapshot frames: live entries = frontier labels
            assert f.queue_size == sum(len(vs) for vs in f.frontier.values())
            for v, grp, c in f.queue_head:
                assert v in f.frontier[grp] and f.costs[grp][v] == c
