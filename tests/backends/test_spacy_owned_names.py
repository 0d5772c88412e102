"""Audit 36, Petra Lusk's page: "Her best-known book, The Cacao Atlas, published in 1899, described forty varieties of
the cacao tree" gave "best-known book · described varieties of · cacao tree" and "best-known book · is · Cacao Atlas":
a possessive pronoun, modifiers and a common noun with a name in apposition is that name (as kg36's "her own company,
X"), and the owner gets "<noun> of" as "Her best-known book was X" gives."""

from __future__ import annotations

from tests.backends.spacy_case import nodes, triples  # the extractor fixture ``ex`` is spacy_case's, via conftest

_LUSK = ("Petra Lusk (1856–1934) was a botanist who studied tropical crops. Lusk studied plant anatomy by "
         "correspondence. Her best-known book, The Cacao Atlas, published in 1899, described forty varieties of the "
         "cacao tree with hand-coloured plates.")


def test_her_best_known_book_is_the_name_after_it(ex):
    got = triples(ex, "Petra Lusk", _LUSK)
    assert ("Cacao Atlas", "described", "forty varieties") in got, got
    assert ("Cacao Atlas", "published in", "1899") in got, got
    assert ("Cacao Atlas", "book of", "Petra Lusk") in got, got
    assert not any("book" in n for n in nodes(got)), got


def test_his_first_ship_is_the_name_after_it(ex):
    got = triples(ex, "Orla Brenn", "Orla Brenn was a shipbuilder. His first ship, the Kestrel, sank in 1902.")
    assert ("Kestrel", "sank in", "1902") in got, got
    assert ("Kestrel", "ship of", "Orla Brenn") in got, got
    assert "first ship" not in nodes(got), got


def test_an_owner_other_than_the_passages_person_gets_no_relation(ex):
    """MuSiQue: a "his"/"her" read as another person gave "Walter Cunningham · classmate of · Austen" (Scout's
    classmate) in 4–5 of 16 such relations: only the passage's own person owns one; the name still stands."""
    got = triples(ex, "To Kill a Mockingbird", "To Kill a Mockingbird is a novel by Harper Lee. Scout Finch meets "
                  "the teacher Caroline Fisher. Her classmate, Walter Cunningham, has no lunch.")
    assert not any(r == "classmate of" for _, r, _ in got), got
    assert "classmate" not in " ".join(nodes(got)), got
