"""Audit 37's Tavrin Marionette Theatre, Odile Castemar and Harvoy pages: attachments the small parser got wrong in a
list or after a place (``core.backends.spacy_repair.mend_attachments``)."""

from __future__ import annotations

from tests.backends.spacy_case import nodes, triples  # the extractor fixture ``ex`` is spacy_case's, via conftest

_SOLD = ("In 1931 the Tavrin Marionette Theatre was sold to the Quennel Brothers Company, which rebuilt the "
         "auditorium, added electric lighting and a balcony, and began touring the theatre's productions by railway.")


def test_a_verb_in_a_list_of_objects_is_the_first_verbs_conjunct(ex):
    got = triples(ex, "Tavrin Marionette Theatre", _SOLD)
    assert ("Quennel Brothers Company", "added", "electric lighting") in got, got
    assert not any("added" in n for n in nodes(got)), got


def test_goods_in_a_list_stay_goods(ex):
    """No determiner after the participle and no later verb: "smoked fish" is a thing sold."""
    got = triples(ex, "Marrow Stores", "In 1890 the Marrow Stores sold fresh bread, smoked fish and cheese.")
    assert not any(r == "smoked" for _, r, _ in got), got


def test_a_relative_clause_after_joined_nouns_is_the_nearest_ones(ex):
    got = triples(ex, "Tavrin Marionette Theatre", "In its early decades the theatre staged fairy plays, comic sketches "
                  "and long serial dramas that ran over many evenings.")
    assert ("long serial dramas", "ran over", "many evenings") in got, got
    assert not any(h == "comic sketches" and r == "ran over" for h, r, _ in got), got


def test_a_name_after_a_thing_in_a_place_is_the_things(ex):
    got = triples(ex, "Odile Castemar", "Odile Castemar died in Brelloc in 1927. A street in Harvoy, Castemar Row, "
                  "was named after her in 1951, on the hundredth anniversary of her birth.")
    assert ("Castemar Row", "named in", "1951") in got, got
    assert ("Castemar Row", "named after", "Odile Castemar") in got, got
    assert ("Castemar Row", "located in", "Harvoy") in got, got
    assert not any(h == "Harvoy" for h, _, _ in got), got


def test_a_place_in_apposition_to_a_place_stays_where_it_lies(ex):
    got = triples(ex, "Ashby Mill", "Ashby Mill is a watermill in Kent, England.")
    assert not any(h == "watermill" for h, _, _ in got), got



def test_singular_joined_nouns_keep_their_clause(ex):
    """MuSiQue: "a former FBI agent and psychologist who works in Washington" is one person."""
    got = triples(ex, "Alex Cross", "He is the protagonist of the series of books about a former FBI agent and "
                  "psychologist who works in Washington, D.C.")
    assert ("former FBI agent", "works in", "Washington") in got, got


def test_a_place_after_a_place_in_a_description_stays_the_places(ex):
    """MuSiQue: "a rural gmina in Elbląg County, Warmian-Masurian Voivodeship": where the county lies."""
    got = triples(ex, "Gmina Elbląg", "Gmina Elbląg is a rural gmina (administrative district) in Elbląg County, "
                  "Warmian-Masurian Voivodeship, in northern Poland.")
    assert ("Gmina Elbląg", "is", "Warmian-Masurian Voivodeship") not in got, got


def test_a_building_after_a_thing_in_a_town_is_the_things(ex):
    got = triples(ex, "Quennel Brothers Company", "The Quennel Brothers Company was a touring company. The company's "
                  "headquarters in Dovrecka, a brick warehouse beside the railway station, is now a museum.")
    assert not any(h == "Dovrecka" for h, _, _ in got), got
