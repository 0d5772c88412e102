"""Audit 38's bell-foundry pages: names the small model cut short ("the Clock Tower of", "the Guild of Bell Ringers"
without "of Lesk", "a new bell works" as "new bell"), and the second of two brothers named after a plural noun."""

from __future__ import annotations

from tests.backends.spacy_case import nodes, triples  # the extractor fixture ``ex`` is spacy_case's, via conftest


def test_a_capitalised_name_never_ends_in_of(ex):
    got = triples(ex, "Brannock Carillon", "The Brannock Carillon is a carillon of forty-seven bells in the Clock "
                  "Tower of Brannock, a market town in the valley of the Lesk.")
    assert not any(n.lower().endswith(" of") for n in nodes(got)), got
    assert ("Brannock", "is", "market town") in got, got  # the appositive stays the town's


def test_an_entity_ended_on_of_runs_over_the_name_after_it(ex):
    got = triples(ex, "Silver Clapper Award", "The prize is a small silver clapper mounted on a block of oak from the "
                  "old frame of the Great Tenor of Ostrelle.")
    assert "Great Tenor of Ostrelle" in nodes(got), got
    assert not any(n.lower().endswith(" of") for n in nodes(got)), got


def test_a_name_of_a_name_of_a_place_is_kept_whole(ex):
    got = triples(ex, "Silver Clapper Award", "The Silver Clapper Award is a prize given by the Guild of Bell Ringers "
                  "of Lesk for outstanding work in the making or playing of bells.")
    assert ("Silver Clapper Award", "given by", "Guild of Bell Ringers of Lesk") in got, got
    assert "Guild of Bell Ringers" not in nodes(got), got


def test_works_after_a_noun_is_a_factory_not_a_verb(ex):
    got = triples(ex, "Teskel Metal Company", "In 1921 it bought the Varnholt Bell Foundry and built a new bell works "
                  "at Fallowgate, outside Ostrelle. In 1958 the Teskel Metal Company was taken over by the Ambery "
                  "Group. The Ambery Group closed the bell works at Fallowgate in 1969 and sold its patterns to a "
                  "small foundry in Dunmere.")
    assert ("Teskel Metal Company", "built", "new bell works") in got, got
    assert ("Ambery Group", "closed", "bell works") in got, got
    assert not any(r.startswith("works") for _, r, _ in got), got
    assert "new bell" not in nodes(got), got


def test_a_working_bell_keeps_its_verb(ex):
    """"works" as the main verb of its own clause stays a verb."""
    got = triples(ex, "Old Marrow", "The bell works in all weathers.")
    assert not any("bell works" in n for n in nodes(got)), got


def test_every_name_after_a_plural_role_noun_takes_the_edge(ex):
    got = triples(ex, "Teskel Metal Company", "The Teskel Metal Company was a maker of bronze and brass goods based in "
                  "the city of Kestford. It was founded in 1888 by the brothers Anselm Teskel and Joram Teskel.")
    assert ("Teskel Metal Company", "founded by", "Anselm Teskel") in got, got
    assert ("Teskel Metal Company", "founded by", "Joram Teskel") in got, got


_PLAQUE = ("The old casting hall in Ostrelle closed in 1934 and is now a museum of bell making. A bronze plaque at the "
           "door lists every bell the foundry cast between 1842 and 1921.")


def test_a_clause_without_that_is_no_second_object(ex):
    """Audit 38: "lists every bell the foundry cast" gave "bronze plaque · lists · foundry cast"."""
    got = triples(ex, "Varnholt Bell Foundry", _PLAQUE)
    assert not any("foundry cast" in n for n in nodes(got)), got
    assert ("Varnholt Bell Foundry", "cast between", "1842 and 1921") in got, got


def test_a_date_between_years_is_the_years(ex):
    got = triples(ex, "St Giles", "The church was built between 1731 and 1733.")
    assert ("St Giles", "built between", "1731 and 1733") in got, got


def test_the_town_is_the_town_the_text_described_not_the_title(ex):
    """Audit 38: "the town holds a carillon festival" went to the passage's title, a carillon."""
    got = triples(ex, "Brannock Carillon", "The Brannock Carillon is a carillon of forty-seven bells in the Clock "
                  "Tower of Brannock, a market town in the valley of the Lesk. Every year on the first Sunday of June "
                  "the town holds a carillon festival.")
    assert ("Brannock", "holds", "carillon festival") in got, got
    assert ("Brannock Carillon", "holds", "carillon festival") not in got, got


def test_the_town_of_a_towns_passage_is_the_title(ex):
    got = triples(ex, "Sullivan's Island, South Carolina", "Sullivan's Island is a town and island in Charleston "
                  "County, South Carolina. The town is part of the Charleston metropolitan area.")
    assert ("Sullivan's Island, South Carolina", "part of", "Charleston metropolitan area") in got, got
