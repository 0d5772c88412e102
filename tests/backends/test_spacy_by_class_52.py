"""Audit 52's cider-house corpus, by class rather than wording: a "he"/"him"/"his"/"her" stands for a person, never for
a place, firm, prize or building title (the nearest person named before it, else no edge)."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_personal_pronoun_is_never_a_things_title(ex):
    got = triples(ex, "Skelby\nSkelby is a hamlet in the Marrow hills, about nine miles west of Wexholm. Skelby is known "
                      "for its orchards of Sallow Pippin apples, which are sold to the cider makers of Wexholm. The cider "
                      "maker Odran Pellew was born in Skelby in 1829. Pellew Row, the hamlet's only street of houses, is "
                      "named after him.")
    assert ("Pellew Row", "named after", "Odran Pellew") in got, got
    assert ("Pellew Row", "named after", "Skelby") not in got, got
    got = triples(ex, "Brannock Cider House\nThe Brannock Cider House is a cider maker in the market town of Wexholm. "
                      "Today the Brannock Cider House employs forty people and sells cider across the northern valleys. "
                      "A small museum in the tithe barn shows the coopers' tools that Odran Pellew brought from his "
                      "workshop, and the ledger in which he recorded his first sale of cider in the spring of 1862.")
    assert not any(h == "Brannock Cider House" and r.startswith("recorded") for h, r, _ in got), got
    got = triples(ex, "Harlow Bridge\nHarlow Bridge is a village on the river Esk. The weaver Maud Ashby was born there "
                      "in 1790. The village green is named after her.")
    assert ("village green", "named after", "Maud Ashby") in got, got
    got = triples(ex, "Orrin Mill\nOrrin Mill is a water mill on the Tarrow brook. The miller Jossa Wren worked there "
                      "from 1820. The mill pond is named after her.")  # "Orrin" is a given name: the text's kind wins
    assert ("mill pond", "named after", "Jossa Wren") in got, got
    got = triples(ex, "Varrow Tannery\nThe Varrow Tannery is a leather works in Kessock. It was founded in 1840 by Odran "
                      "Quell, a saddler. Today the Varrow Tannery employs twenty people. A case in the office shows the "
                      "knives that Odran Quell brought from his shop, and the book in which he wrote his first order.")
    assert ("Odran Quell", "wrote", "first order") in got, got  # "a saddler" makes him a person
