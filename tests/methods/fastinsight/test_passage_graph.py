"""Passage graphs: corpus graphs as they are, KGs through shared entities (oracle: brute force)."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from core.errors import ConfigError, EmptyGraphError, UnknownNameError
from core.graph.graph_builder import GraphBuilder
from core.graph.passage_graph import PassageGraph, passage_graph, shared_entities
from tests.methods.fastinsight.helpers import CORPUS_EDGES, random_graph


def _brute_force_shared_entity_edges(graph, cap):
    edges = set()
    for cids in graph.node_chunks:
        members = sorted({graph.chunk_index[c] for c in cids})
        if 2 <= len(members) <= cap:
            edges.update(itertools.combinations(members, 2))
    return edges


def _edges(pg: PassageGraph) -> set[tuple[int, int]]:
    return {(v, int(u)) for v in range(pg.n) for u in pg.neighbors(v) if v < u}


def test_corpus_graph_is_used_as_it_is(corpus_ws):
    pg = passage_graph(corpus_ws.graph)
    assert pg.source == "corpus_graph"
    assert pg.chunk_ids == tuple(c.id for c in corpus_ws.graph.chunks)
    expected = {tuple(sorted((pg.index_of(a), pg.index_of(b)))) for a, b in CORPUS_EDGES}
    assert _edges(pg) == expected  # rag→agentic and agentic→rag collapse into one undirected edge
    g = nx.Graph(list(expected))
    g.add_nodes_from(range(pg.n))
    assert pg.degree.tolist() == [g.degree(v) for v in range(pg.n)]
    assert pg.degree[pg.index_of("lonely")] == 0


def test_derived_graph_matches_brute_force_on_demo(demo_ws):
    graph = demo_ws.graph
    for cap in (2, 3, 20):
        pg = passage_graph(graph, max_entity_passages=cap)
        assert pg.source == "shared_entity" and pg.params["max_entity_passages"] == cap
        assert _edges(pg) == _brute_force_shared_entity_edges(graph, cap)
        assert (pg.degree == np.diff(pg.indptr)).all()


def test_hub_entities_are_skipped_and_reported():
    b = GraphBuilder(name="hub")
    ids = [b.add_chunk(f"T{i}", f"text {i}", chunk_id=f"c{i}") for i in range(5)]
    for cid in ids:  # "Earth" is in every passage: a hub
        b.add_triple("Earth", "mentioned in", f"Thing {cid}", chunk_id=cid)
    b.add_triple("Moon", "orbits", "Earth", chunk_id="c0")
    b.add_triple("Moon", "lit by", "Sun", chunk_id="c1")
    g = b.build()
    pg = passage_graph(g, max_entity_passages=3)
    assert pg.skipped_entities == ("Earth",)
    assert _edges(pg) == {(0, 1)}  # only "Moon" links passages
    assert shared_entities(g, "c0", "c1") == ["Earth", "Moon"]
    assert _edges(passage_graph(g, max_entity_passages=5)) == set(itertools.combinations(range(5), 2))


def test_passage_graph_is_cached_per_graph_and_parameters(demo_ws):
    g = demo_ws.graph
    assert passage_graph(g) is passage_graph(g)
    assert passage_graph(g, max_entity_passages=3) is not passage_graph(g)


def test_subgraph_adjacency_matches_networkx():
    pg = random_graph(40, 0.1, seed=3)
    nodes = np.random.default_rng(0).permutation(40)[:15]
    expected = nx.to_numpy_array(pg.to_networkx(), nodelist=nodes.tolist())
    np.testing.assert_array_equal(pg.subgraph_adjacency(nodes), expected)
    assert pg.subgraph_adjacency([]).shape == (0, 0)


def test_from_edges_drops_direction_duplicates_and_self_loops():
    pg = PassageGraph.from_edges(3, [(0, 1), (1, 0), (1, 1), (0, 1), (2, 1)])
    assert pg.n_edges == 2 and pg.degree.tolist() == [1, 2, 1]


def test_bad_inputs_have_pinned_messages(demo_ws):
    empty = GraphBuilder(name="empty").build(allow_empty=True)
    with pytest.raises(EmptyGraphError, match=r"^Graph 'empty' has no passages \(chunks\), so there is nothing for "
                                              r"FastInsight to retrieve\. Upload a corpus"):
        passage_graph(empty)
    with pytest.raises(ConfigError, match=r"^max_entity_passages must be at least 2 .*got 1\.$"):
        passage_graph(demo_ws.graph, max_entity_passages=1)
    pg = passage_graph(demo_ws.graph)
    with pytest.raises(UnknownNameError, match=r"^Unknown chunk 'no-such-chunk'\. Valid chunks: "):
        pg.index_of("no-such-chunk")
    with pytest.raises(ValueError, match=r"^edge \(0, 5\) refers to a node outside 0\.\.2$"):
        PassageGraph.from_edges(3, [(0, 5)])
