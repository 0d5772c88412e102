from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from core.errors import EmptyGraphError, UnknownNameError
from core.graph.graph_builder import GraphBuilder, graph_from_dict, graph_from_triples
from core.graph.model import KnowledgeGraph


def random_graph(seed: int, n: int = 60, m: int = 120) -> KnowledgeGraph:
    rng = np.random.default_rng(seed)
    triples = [(f"n{rng.integers(n)}", f"r{rng.integers(5)}", f"n{rng.integers(n)}") for _ in range(m)]
    return graph_from_triples(triples)


def undirected(g: KnowledgeGraph) -> nx.Graph:
    u = nx.Graph()
    u.add_nodes_from(range(g.n_nodes))
    u.add_edges_from(zip(g.edge_head.tolist(), g.edge_tail.tolist()))
    return u


def test_enriched_edge_text_is_head_relation_tail(matrix_graph):
    e = matrix_graph.edge_relation.index("main antagonist of")
    assert matrix_graph.edge_text(e) == "Agent Smith main antagonist of The Matrix"
    assert len(matrix_graph.edge_texts) == matrix_graph.n_edges


def test_entities_merge_by_normalized_name_and_keep_first_spelling():
    g = graph_from_triples([("Keanu  Reeves", "starred in", "The Matrix"), ("keanu reeves", "born in", "Beirut"),
                            ('"The Matrix"', "released", "1999")])
    assert g.n_nodes == 4
    assert g.node_names[g.node("KEANU REEVES")] == "Keanu Reeves"
    assert g.node_ids[g.node("the matrix")] == "the matrix"


def test_duplicate_edges_merge_and_union_provenance():
    b = GraphBuilder()
    c1 = b.add_chunk("A", "text one")
    c2 = b.add_chunk("B", "text two")
    b.add_triple("x", "Likes", "y", chunk_id=c1)
    b.add_triple("X", "likes", "Y", chunk_id=c2)
    g = b.build()
    assert g.n_edges == 1
    assert set(g.edge_chunks[0]) == {c1, c2}
    assert set(g.node_chunks[g.node("x")]) == {c1, c2}


def test_same_chunk_text_is_reused_and_conflicting_id_rejected():
    b = GraphBuilder()
    assert b.add_chunk("T", "same") == b.add_chunk("T", "same")
    b.add_chunk("T", "one", chunk_id="k")
    with pytest.raises(ValueError, match="same chunk id is used for two different texts"):
        b.add_chunk("T", "two", chunk_id="k")


def test_empty_builder_raises_clear_error():
    with pytest.raises(EmptyGraphError, match="no chunks, nodes or edges"):
        GraphBuilder().build()


@pytest.mark.parametrize("seed", range(5))
def test_csr_rows_match_networkx_neighbours(seed):
    g = random_graph(seed)
    u = undirected(g)
    for v in range(g.n_nodes):
        assert set(g.neighbors(v).tolist()) == set(u.neighbors(v))
        nbr, eid = g.csr.row(v)
        for w, e in zip(nbr.tolist(), eid.tolist()):
            assert {int(g.edge_head[e]), int(g.edge_tail[e])} == {v, w} or (v == w)
    out = nx.MultiDiGraph()
    out.add_nodes_from(range(g.n_nodes))
    out.add_edges_from(zip(g.edge_head.tolist(), g.edge_tail.tolist()))
    for v in range(g.n_nodes):
        assert sorted(g.csr_out.row(v)[0].tolist()) == sorted(w for _, w in out.out_edges(v))
    # degree counts parallel edges, a self-loop twice (as networkx does)
    mg = nx.MultiGraph()
    mg.add_nodes_from(range(g.n_nodes))
    mg.add_edges_from(zip(g.edge_head.tolist(), g.edge_tail.tolist()))
    assert g.degree.tolist() == [mg.degree(v) for v in range(g.n_nodes)]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("h", [0, 1, 2, 4])
def test_khop_matches_networkx(seed, h):
    g = random_graph(seed)
    u = undirected(g)
    sources = [0, 7, 13]
    want = set()
    for s in sources:
        want |= set(nx.single_source_shortest_path_length(u, s, cutoff=h))
    assert set(g.khop(sources, h).tolist()) == want


def test_bfs_hops_and_components_match_networkx(bridge_graph):
    u = undirected(bridge_graph)
    a1 = bridge_graph.node("a1")
    assert bridge_graph.hop_distances([a1]) == dict(nx.single_source_shortest_path_length(u, a1))
    g = random_graph(3)
    comp = g.components()
    for cc in nx.connected_components(undirected(g)):
        assert len({comp[v] for v in cc}) == 1
    assert len(set(comp.tolist())) == nx.number_connected_components(undirected(g))


def test_node_lookup_unknown_name_lists_close_matches(matrix_graph):
    with pytest.raises(UnknownNameError, match=r"Unknown node 'Keanu'.*'Keanu Reeves'"):
        matrix_graph.node("Keanu")
    assert matrix_graph.node("keanu reeves") == matrix_graph.node("Keanu Reeves")


def test_round_trip_to_dict_and_networkx(lothair_graph, matrix_graph):
    for g in (lothair_graph, matrix_graph):
        g2 = graph_from_dict(g.to_dict())
        assert g2.to_dict() == g.to_dict()
        assert g2.content_hash == g.content_hash
        nxg = g.to_networkx()
        assert nxg.number_of_nodes() == g.n_nodes and nxg.number_of_edges() == g.n_edges
    sub = matrix_graph.to_networkx(nodes=[matrix_graph.node("The Matrix"), matrix_graph.node("Hugo Weaving")])
    assert sub.number_of_nodes() == 2 and sub.number_of_edges() == 1


def test_graphml_export_reads_back(matrix_graph, tmp_path):
    p = tmp_path / "g.graphml"
    nx.write_graphml(matrix_graph.to_networkx(), p)
    back = nx.read_graphml(p)
    assert back.number_of_edges() == matrix_graph.n_edges
    assert {d["name"] for _, d in back.nodes(data=True)} == set(matrix_graph.node_names)


def test_stats(star_graph):
    s = star_graph.stats()
    assert s["nodes"] == 6 and s["edges"] == 5 and s["components"] == 1
    assert s["max_degree"] == 5 and s["hub"] == "hub"
