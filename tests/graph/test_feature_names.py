"""A river, lake or mountain named with its kind word ("the Amsel river", "the River Amsel") is the node of its bare name
("the Amsel", the title "Amsel (river)") where the text makes that clear: an audit's KG of an invented corpus had the
river as two nodes (BubbleRAG §3.1 step 3: entities of different chunks are one node). The triples are the spaCy
extractor's for the passages quoted."""

from __future__ import annotations

from core.backends.base import ExtractedTriple
from core.graph.builder import ExtractionResult, _feature_name, add_extracted
from core.graph.graph_builder import GraphBuilder


def _graph(rows: dict[str, list[tuple[str, str, str]]]):
    b = GraphBuilder()
    add_extracted(b, ExtractionResult({c: tuple(ExtractedTriple(*t) for t in ts) for c, ts in rows.items()}, "x", 0,
                                      len(rows)))
    return b.build()


# "Amsel (river)\nThe Amsel is a river in Lower Saxony. The Amsel river rises in the Harz hills and flows into the Weser."
RIVER = [("Amsel (river)", "located in", "Lower Saxony"), ("Amsel river", "rises in", "Harz hills"),
         ("Amsel river", "flows into", "Weser")]
# "Brenk\nBrenk is a town on the River Amsel. The Amsel flooded Brenk in 1910."
TOWN = [("Brenk", "located on", "River Amsel"), ("Amsel", "flooded", "Brenk"), ("Amsel", "flooded in", "1910")]


def test_a_river_named_with_and_without_its_kind_word_is_one_node():
    g = _graph({"c1": RIVER, "c2": TOWN})
    assert "amsel river" not in g.node_ids and "river amsel" not in g.node_ids, list(g.node_names)
    assert {"Amsel rises in Harz hills", "Brenk located on Amsel", "Amsel flooded Brenk"} <= set(g.edge_texts)
    assert g.node_chunks[g.node("amsel")] == ("c1", "c2")


def test_two_spellings_with_the_kind_word_meet_without_the_bare_name():
    # "Osk is a village on the Amsel River." / "Brenk lies on the River Amsel."
    g = _graph({"c1": [("Osk", "located on", "Amsel River")], "c2": [("Brenk", "lies on", "River Amsel")],
                "c3": [("Lake Morra", "lies near", "Osk"), ("Morra Lake", "is", "deep lake")]})
    assert "river amsel" not in g.node_ids and "Brenk lies on Amsel River" in g.edge_texts, g.edge_texts
    assert "morra lake" not in g.node_ids and "Lake Morra is deep lake" in g.edge_texts, g.edge_texts


def test_a_bare_name_the_text_makes_something_else_stays_apart():
    # "Amsel\nAmsel is a town on the Amsel River." : a town on its river, two things
    g = _graph({"c1": [("Amsel", "is", "town"), ("Amsel", "located on", "Amsel River")]})
    assert {"amsel", "amsel river"} <= set(g.node_ids), list(g.node_names)
    g = _graph({"c1": [("Amsel", "located on", "Amsel River"), ("Amsel", "founded in", "1200")]})
    assert {"amsel", "amsel river"} <= set(g.node_ids), list(g.node_names)
    # a person: "Tom Amsel" is no river, nor is an "Amsel" born somewhere
    g = _graph({"c1": [("Osk", "located on", "Amsel River"), ("Amsel", "born in", "Osk")]})
    assert {"amsel", "amsel river"} <= set(g.node_ids), list(g.node_names)
    # the kind words of two kinds: "Morra Lake" and "Morra River" are two things
    g = _graph({"c1": [("Osk", "located on", "Morra River"), ("Morra", "flooded", "Osk")],
                "c2": [("Pell", "lies near", "Morra Lake")]})
    assert {"morra", "morra river", "morra lake"} <= set(g.node_ids), list(g.node_names)


def test_a_bare_name_in_the_same_passage_is_not_enough():
    # MuSiQue: "Marietta lies on the Ohio River in Ohio": the state, not the river
    g = _graph({"c1": [("Marietta", "located on", "Ohio River"), ("Marietta", "located in", "Ohio")]})
    assert {"ohio", "ohio river"} <= set(g.node_ids), list(g.node_names)
    # a creek is no river: "Conestoga Creek" and "Conestoga River" are two
    g = _graph({"c1": [("Lancaster", "lies on", "Conestoga River")], "c2": [("Ephrata", "lies on", "Conestoga Creek")]})
    assert {"conestoga river", "conestoga creek"} <= set(g.node_ids), list(g.node_names)


def test_a_bare_name_in_another_passage_only_is_not_enough():
    # "the Amsel" named only elsewhere, never said to be a river: maybe a town, a band, a family
    g = _graph({"c1": [("Osk", "located on", "Amsel River")], "c2": [("Amsel", "won", "Gold Cup")]})
    assert {"amsel", "amsel river"} <= set(g.node_ids), list(g.node_names)


def test_which_names_carry_a_feature_kind_word():
    assert _feature_name("Amsel river") == ("Amsel", "river") == _feature_name("River Amsel")
    assert _feature_name("Mount Tarn") == ("Tarn", "mountain") == _feature_name("Tarn Mountain")
    assert _feature_name("Forest Hill") is None and _feature_name("Ambleside Fell") is None
    for name in ("river", "Red River Valley", "Isle of Dunmore", "Nepean and Hawkesbury rivers", "upper river",
                 "Amsel (river)"):
        assert _feature_name(name) is None, name
