"""What an "it" after "Its <noun> …" stands for, an owned role noun's name, a noun joined to a copula's description,
and an organisation noun before its name: four readings an audit's KG check found wrong on its own corpus (a perfume
house passage read "first scent · bought · Osterby & Daughters")."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_an_it_after_its_noun_is_the_owner(ex):
    got = triples(ex, "Halden Works\nHalden Works is a glass factory founded in 1880 in Varn. Its first vase, Blue "
                      "Reed, was sold in a shop on Mill Lane. In 1921 it bought Prest & Sons.")
    assert ("Halden Works", "bought", "Prest & Sons") in got, got
    assert not any(r == "bought" and h != "Halden Works" for h, r, _ in got), got


def test_a_founder_in_apposition_founded_the_owner(ex):
    got = triples(ex, "Almer Group\nThe Almer Group is a shipping firm based in Tarn. Its founder, Osric Almer, "
                      "started it in 1902 as a rope maker.")
    assert ("Osric Almer", "founded", "Almer Group") in got, got
    got = triples(ex, "Fenwick Mill\nThe Fenwick Mill grinds rye in Holt. Its owner, Dora Fenwick, sold flour to "
                      "the army.")
    assert ("Dora Fenwick", "owner of", "Fenwick Mill") in got, got


def test_a_noun_joined_to_the_description_shares_its_subject(ex):
    got = triples(ex, "Ilse Marrow\nIlse Marrow was a painter and teacher born in Oskvale in 1870.")
    assert ("Ilse Marrow", "born in", "Oskvale") in got, got
    assert ("Ilse Marrow", "mentions", "Oskvale") not in got, got


def test_an_organisation_noun_before_a_name_is_the_name(ex):
    got = triples(ex, "Tilde Brask\nTilde Brask was born in Holt in 1890. She founded the house Brask & Daughters.")
    assert ("Tilde Brask", "founded", "Brask & Daughters") in got, got
    assert "house" not in nodes(got), got
