"""A proper name's phrase with a plural head is the singular's node where the graph has the singular: an audit's KG had
"Heron flying boats" beside "Heron flying boat" (BubbleRAG §3.1 step 3: entities of different chunks are one node)."""

from __future__ import annotations

from core.backends.base import ExtractedTriple
from core.graph.builder import ExtractionResult, add_extracted
from core.graph.graph_builder import GraphBuilder


def _extracted(rows: dict[str, list[tuple[str, str, str]]]) -> ExtractionResult:
    return ExtractionResult({c: tuple(ExtractedTriple(*t) for t in ts) for c, ts in rows.items()}, "x", 0, len(rows))


def _builder(*cids: str) -> GraphBuilder:
    b = GraphBuilder()
    for cid in cids:
        b.add_chunk(cid, "text", chunk_id=cid)
    return b


def test_a_plural_meets_its_singular_in_either_order():
    b = _builder("c1", "c2")
    add_extracted(b, _extracted({"c1": [("Greta Holm", "flown", "Petrel seaplanes")],
                                 "c2": [("Petrel seaplane", "entered service in", "1931")]}))
    g = b.build()
    assert "petrel seaplanes" not in g.node_ids, g.node_ids
    assert g.node_names[g.node("petrel seaplane")] == "Petrel seaplane"
    assert g.node_chunks[g.node("petrel seaplane")] == ("c1", "c2")


def test_a_plural_inserted_later_meets_the_graphs_singular():
    b = _builder("c1", "c2")
    add_extracted(b, _extracted({"c1": [("Petrel seaplane", "entered service in", "1931")]}))
    add_extracted(b, _extracted({"c2": [("Greta Holm", "flown", "Petrel seaplanes")]}))
    g = b.build()
    assert "petrel seaplanes" not in g.node_ids and "Greta Holm flown Petrel seaplane" in g.edge_texts, g.edge_texts


def test_plurals_without_their_singular_or_of_several_names_stay():
    b = _builder("c1", "c2")
    add_extracted(b, _extracted({
        "c1": [("Bismarck", "influenced by", "Hamburg merchants"), ("Blue Mountains", "bounded by",
                                                                    "Nepean and Hawkesbury rivers")],
        "c2": [("Hawkesbury river", "flows into", "Broken Bay"), ("Harrow buses", "run to", "Wealdstone"),
               ("Harrow bus", "is", "bus")],
    }))
    g = b.build()
    assert {"hamburg merchants", "nepean and hawkesbury rivers", "harrow buses"} <= set(g.node_ids), g.node_ids
