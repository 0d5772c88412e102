"""Audit 49's glassworks corpus: a definite description with a common-noun modifier ("the town hall of Daskirrow",
"the grain market", "the village school", "the award ceremony") is its own thing, never the passage's title; "Under
X the company opened a shop in Brannock that sold …" keeps the shop's place; "the last furnace at Vellmora" is the
glassworks of "Vellmora Glassworks", no node "Vellmora"."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_modified_description_is_not_the_place_or_the_medal(ex):
    """The KG read "Daskirrow · built in · 1790" (the town hall), "Olbrecht · opened in · 1911" (the school)."""
    got = triples(ex, "Daskirrow\nDaskirrow is a market town in Tessaly. The town hall of Daskirrow was built in 1790. "
                      "The grain market closed in 1930, and the fair moved away.")
    assert not {("Daskirrow", "built in", "1790"), ("Daskirrow", "closed in", "1930")} & set(got), got
    assert ("grain market", "closed in", "1930") in got, got
    got = triples(ex, "Olbrecht\nOlbrecht is a hill village in Tessaly. A narrow road was built in 1902, and the "
                      "village school opened in 1911.")
    assert ("Olbrecht", "opened in", "1911") not in got, got
    assert ("village school", "opened in", "1911") in got, got
    got = triples(ex, "Ruby Pane Medal\nThe Ruby Pane Medal is an award given by the Tessaly Guild of Glass. The award "
                      "ceremony is held in the town hall of Quessarin.")
    assert not any(h == "Ruby Pane Medal" and r == "held in" for h, r, _ in got), got


def test_the_titles_own_kind_with_a_modifier_is_still_the_title(ex):
    """"Kestrel Vane is a rock band … The rock band split" is the band: the text gave the title that noun."""
    got = triples(ex, "Kestrel Vane\nKestrel Vane is an English rock band from Leeds. The rock band split in 1999.")
    assert ("Kestrel Vane", "split in", "1999") in got, got
    got = triples(ex, "Golden Censer Prize\nThe Golden Censer Prize is a prize for perfumers. Since 1960 the prize jury "
                      "has included one botanist.")  # the title's word: still the jury's
    assert ("prize jury", "included", "one botanist") in got, got


def test_an_indefinite_object_keeps_its_named_place(ex):
    """"opened a shop in Brannock that sold ruby glass lamps" gave only "opened under · Tobin Harrowfield"."""
    got = triples(ex, "Harrowfield Trading Company\nThe Harrowfield Trading Company was a merchant firm. Under Tobin "
                      "Harrowfield the company opened a shop in Brannock that sold ruby glass lamps.")
    assert ("Harrowfield Trading Company", "opened under", "Tobin Harrowfield") in got, got
    assert ("Harrowfield Trading Company", "opened shop in", "Brannock") in got, got


def test_a_firms_first_word_at_a_thing_is_the_firm(ex):
    """"The last furnace at Vellmora" is the glassworks; "founded in Vellmora" (a place of its own) stays a place."""
    got = triples(ex, "Vellmora Glassworks\nVellmora Glassworks is a glass factory in the harbour town of Quessarin. "
                      "It was founded in 1852 by Idrun Paskevel. The last furnace at Vellmora was put out in 1981.")
    assert "Vellmora" not in nodes(got), got
    assert ("Vellmora Glassworks", "put out in", "1981") in got, got
    got = triples(ex, "Vellmora Glassworks\nVellmora Glassworks is a glass factory. It was founded in Vellmora in "
                      "1852 by Idrun Paskevel.")
    assert ("Vellmora Glassworks", "founded in", "Vellmora") in got, got
