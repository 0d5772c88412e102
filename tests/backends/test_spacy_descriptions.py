"""A copula between a description and a name, and a description relative to its owner: "Her best-known work is the
Larkmere Chalice, a cut-glass cup engraved with river birds" made a node "best-known work" that "is" the Chalice and
the cup and was "engraved with" the birds; "It is now the museum's most visited object" a node "most visited object"."""

from __future__ import annotations

import pytest

from core.backends.spacy_extractor import SpacyExtractor


@pytest.fixture(scope="module")
def ex() -> SpacyExtractor:
    return SpacyExtractor(n_process=1)


def triples(ex: SpacyExtractor, passage: str) -> set[tuple[str, str, str]]:
    return {(t.head, t.relation, t.tail) for t in ex.extract([passage])[0]}


def nodes(got: set[tuple[str, str, str]]) -> set[str]:
    return {h for h, _, _ in got} | {t for _, _, t in got}


def test_a_description_a_copula_names_is_the_name(ex):
    got = triples(ex, "Mirela Stane\nHer best-known work is the Larkmere Chalice, a cut-glass cup engraved with "
                      "river birds. It was made in 1880.")
    assert ("Larkmere Chalice", "work of", "Mirela Stane") in got
    assert ("Larkmere Chalice", "is", "cut-glass cup") in got
    assert ("Larkmere Chalice", "engraved with", "river birds") in got
    assert ("Larkmere Chalice", "made in", "1880") in got
    assert "best-known work" not in nodes(got), got
    got = triples(ex, "Larkmere Glass Museum\nThe museum opened in 1950. Its first director was the historian Owen "
                      "Pike.")
    assert ("Owen Pike", "director of", "Larkmere Glass Museum") in got
    assert "first director" not in nodes(got), got


def test_a_description_relative_to_its_owner_is_no_node(ex):
    got = triples(ex, "Larkmere Glass Museum\nThe Larkmere Chalice came to the museum in 1953. It is now the "
                      "museum's most visited object.")
    assert "most visited object" not in nodes(got), got


def test_descriptions_of_a_name_and_values_keep_their_reading(ex):
    got = triples(ex, "The Matrix\nThe Matrix is a 1999 film directed by the Wachowskis.")
    assert ("The Matrix", "is", "1999 film") in got and ("The Matrix", "directed by", "Wachowskis") in got
    # a value is no name: "5 °F" does not become what the temperature's apposition is about
    got = triples(ex, "Houston\nThe coldest temperature ever recorded was 5 °F (−15 °C) in 1940.")
    assert not any(h.startswith("5") for h, _, _ in got), got


def test_a_place_noun_of_a_name_is_the_name(ex):
    """An audit's KG check read "emil brask —founded in→ river town" where the text says "the river town of Dellmouth"."""
    got = triples(ex, "Ilse Varn\nIlse Varn was a luthier who founded Varn & Daughters in the river town of Oskmouth "
                      "in 1849.")
    assert ("Ilse Varn", "founded in", "Oskmouth") in got, got
    assert "river town" not in nodes(got), got
    got = triples(ex, "Ilse Varn\nIlse Varn was the mother of Tove Varn.")  # not a place noun: the relation stays
    assert "Tove Varn" in nodes(got) and "Ilse Varn" in nodes(got), got
