"""Audit 36, the Golden Whisk Prize's page: "It was established in 1910 by the Confectioners' Guild of Halvek" gave a
node "Guild": a name with a plural possessive inside ("Confectioners' Guild of Halvek", "Weavers' Guild") is one
name, "of <Place>" with it (the builder may fold that part later); a singular "'s" stays a possessive."""

from __future__ import annotations

from tests.backends.spacy_case import nodes, triples  # the extractor fixture ``ex`` is spacy_case's, via conftest

_WHISK = ("The Golden Whisk Prize is an award for pastry cooks. It was established in 1910 by the Confectioners' Guild "
          "of Halvek, which wanted to honour skill in sugar work. The Weavers' Guild met in the Stone Hall.")


def test_a_plural_possessive_inside_a_name_keeps_it_whole(ex):
    got = triples(ex, "Golden Whisk Prize", _WHISK)
    assert ("Golden Whisk Prize", "established by", "Confectioners' Guild of Halvek") in got, got
    assert ("Weavers' Guild", "met in", "Stone Hall") in got, got
    assert not {"Guild", "Confectioners", "Weavers"} & nodes(got), got


def test_a_singular_possessive_stays_an_owner(ex):
    got = triples(ex, "Ana Kim", "Ana Kim was a baker. Kim's mother, Ida Kim, founded the Bakers' Hall in 1820.")
    assert ("Ida Kim", "founded", "Bakers' Hall") in got, got
    assert not any("Kim's" in n for n in nodes(got)), got


def test_a_thing_a_plural_owns_is_no_part_of_its_name(ex):
    """MuSiQue: "the Allies' Manhattan Project", "US Airways' MetroJet" are owned, not guilds' names."""
    got = triples(ex, "Atomic bombings", "By August 1945, the Allies' Manhattan Project had produced two types of atomic "
                  "bomb. It competed with US Airways' MetroJet.")
    assert not any("'" in n for n in nodes(got)), got
    assert "Manhattan Project" in nodes(got), got
