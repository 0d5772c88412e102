"""SG-RAG's reason for a gold passage that never appeared though a matched subgraph passes through its entity: the
match binds the entity through triples of other passages, and SG-RAG retrieves only the passages of matched triples
(§4.4, Alg. 8). An audit read only "1 never appeared" (q5: the asked-for ``UNK`` bound to Anton Mehlberg through the
school's passage; Anton Mehlberg's own passage, with his birthplace, never retrieved)."""

from __future__ import annotations

from types import SimpleNamespace

from core.graph.graph_builder import GraphBuilder
from core.methods.base import Gold, RankedChunk
from core.methods.sgrag.diagnosis import diagnose
from core.methods.sgrag.query_graph import QNode, QueryGraph


def _workspace(*extra: tuple[str, str, str, str]) -> SimpleNamespace:
    """"In which city was the merchant who funded the school directed by Petra Lind born?"; ``extra``: more (head,
    relation, tail, chunk) triples."""
    b = GraphBuilder(name="puppets")
    for cid, title in (("p1", "Petra Lind"), ("p2", "Quessel School"), ("p3", "Anton Mehl")):
        b.add_chunk(title, f"text of {title}", chunk_id=cid)
    b.add_triple("Petra Lind", "directs", "Quessel School", chunk_id="p1")
    b.add_triple("Quessel School", "funded by", "Anton Mehl", chunk_id="p2")
    b.add_triple("Anton Mehl", "born in", "Lautmar", chunk_id="p3")
    for head, relation, tail, chunk in extra:
        b.add_triple(head, relation, tail, chunk_id=chunk)
    return SimpleNamespace(graph=b.build(), name="puppets")


def _result(ws: SimpleNamespace, *, max_chunks: int = 15, own: bool = False) -> SimpleNamespace:
    g = ws.graph
    petra, school, anton = (g.node_index[n] for n in ("petra lind", "quessel school", "anton mehl"))
    edge = {(int(g.edge_head[e]), int(g.edge_tail[e])): e for e in range(g.n_edges)}
    edges = (edge[(petra, school)], edge[(school, anton)])
    if own:  # a match that holds a triple of the lost passage (then only the cap can drop it)
        edges += (edge[(anton, g.node_index["lautmar"])],)
    qg = QueryGraph((QNode("q0", "UNK", "the asked-for entity"), QNode("q1", "Petra Lind"),
                     QNode("q2", "UNK", "a bridge entity")), (("q1", "q2"), ("q2", "q0")))
    sub = SimpleNamespace(mapping=(("q0", anton), ("q1", petra), ("q2", school)), edges=edges, score=0.9)
    mapping = SimpleNamespace(query_label="Petra Lind", node_name="Petra Lind", node=petra, similarity=0.99,
                              doubtful=False)
    return SimpleNamespace(method="sgrag", answer="", query_graph=qg, normalized=SimpleNamespace(mappings=[mapping]),
                           fallback=False, assembly=SimpleNamespace(subgraphs=(sub,), found=1),
                           config=SimpleNamespace(retrieval="subgraph", max_chunks=max_chunks), matches=(),
                           ranked_chunks=(RankedChunk("p1", 0.9), RankedChunk("p2", 0.9)))


def test_a_passage_reached_through_other_passages_triples_says_why_it_never_appeared():
    ws = _workspace()
    d = diagnose(_result(ws), ws, Gold("q5", ("p1", "p2", "p3"), ("Lautmar",)), cut=15)
    assert d.stage == "ranked_out", d  # the verdict is unchanged; its words say why
    assert "1 never appeared" in d.summary, d.summary
    assert ("“Anton Mehl” never appeared because SG-RAG retrieves only the passages of matched triples: the one "
            "matched subgraph reaches Anton Mehl (as the asked-for entity), an entity of this passage, only through "
            "triples of “Quessel School”, where the query graph ends — so SG-RAG retrieved that passage, not this "
            "one.") in d.summary, d.summary
    assert d.evidence["never_appeared"]["p3"]["bound_to"] == ["q0"]
    assert d.evidence["never_appeared"]["p3"]["through"] == ["Quessel School"]


def test_a_matched_triple_of_its_own_lost_to_the_chunk_cap_says_so():
    ws = _workspace()
    r = _result(ws, max_chunks=2, own=True)
    d = diagnose(r, ws, Gold("q5", ("p1", "p2", "p3"), ("Lautmar",)), cut=2)
    assert "a match holds its triple" in d.summary and "max_chunks = 2" in d.summary, d.summary


def test_no_reason_is_made_up_when_the_passage_was_retrieved():
    ws = _workspace()
    r = _result(ws)
    r.ranked_chunks = (*r.ranked_chunks, RankedChunk("p3", 0.1))
    d = diagnose(r, ws, Gold("q5", ("p1", "p2", "p3"), ("Lautmar",)), cut=2)
    assert "never appeared" not in d.summary and "never_appeared" not in d.evidence, d.summary


def test_each_entity_reached_is_named_with_the_query_node_it_stands_for():
    """An audit read "its entities Tessburg, Lotte Brack (as the asked-for entity)": one role after a list of names
    reads as every name's. Each entity now carries its own."""
    ws = _workspace(("Quessel School", "located in", "Lautmar", "p2"))
    r = _result(ws)
    g = ws.graph
    school, lautmar = g.node_index["quessel school"], g.node_index["lautmar"]
    sub = r.assembly.subgraphs[0]
    edge = {(int(g.edge_head[e]), int(g.edge_tail[e])): e for e in range(g.n_edges)}
    r.assembly.subgraphs = (SimpleNamespace(mapping=(*sub.mapping, ("q3", lautmar)),
                                            edges=(*sub.edges, edge[(school, lautmar)]), score=0.9),)
    r.query_graph = QueryGraph((*r.query_graph.nodes, QNode("q3", "Lautmar")), (*r.query_graph.edges, ("q2", "q3")))
    d = diagnose(r, ws, Gold("q5", ("p1", "p2", "p3"), ("Lautmar",)), cut=15)
    assert ("reaches Anton Mehl (as the asked-for entity) and Lautmar (as the query's “Lautmar”), entities of this "
            "passage, only through triples of “Quessel School”") in d.summary, d.summary
