"""A kind of thing in a named place ("X is a dairy in <Place>", "an inn near <Place>") is located there whatever the
small model tagged the place or the holder — an audit's firms gave only ``mentions``, so no "Which city …" question
about them could be answered."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_place_the_small_model_took_for_a_person_is_the_place(ex):
    # "Edwin Combe" tagged PERSON, "Fenna Moor" ORG: after "a dairy in" each is where the dairy lies
    got = triples(ex, "Tobrey Farm\nTobrey Farm is a dairy in Edwin Combe founded in 1951 by Hal Wren. It sells milk.")
    assert ("Tobrey Farm", "located in", "Edwin Combe") in got, got
    assert ("Tobrey Farm", "founded by", "Hal Wren") in got, got
    got = triples(ex, "Tobrey Farm\nTobrey Farm, a dairy in Fenna Moor, was sold in 1980.")
    assert ("Tobrey Farm", "located in", "Fenna Moor") in got, got
    # a name the text made a person's is none ("was born"), nor one after "Mr"
    got = triples(ex, "Farms\nEdwin Combe was born in 1890. Tobrey Farm is a dairy in Edwin Combe.")
    assert not any(r == "located in" for _, r, _ in got), got
    got = triples(ex, "Halls\nThe Grey Hall was a theatre in Mr Tobin Vale.")
    assert not any(r == "located in" for _, r, _ in got), got


def test_a_kind_of_thing_is_no_person_whatever_its_holders_label(ex):
    # the small model tagged "Gilbert Cheese" and "Osk Mill" people's names: a creamery, a bakery are things
    got = triples(ex, "Gilbert Cheese\nGilbert Cheese is a creamery in Morwen Bay.")
    assert ("Gilbert Cheese", "located in", "Morwen Bay") in got, got
    got = triples(ex, "Osk Mill\nOsk Mill is a bakery in Dorran Vale. It was founded in 1901 by Hal Wren.")
    assert ("Osk Mill", "located in", "Dorran Vale") in got, got
    # a person's description is no location, nor a character's work
    got = triples(ex, "Jude Fane\nJude Fane is a character in Ivor Crane. She is a weaver in Dorran Vale.")
    assert not any(r.startswith("located") for _, r, _ in got), got


def test_at_and_near_a_place_after_a_kind(ex):
    got = triples(ex, "Selwyn Trades\nAshby Forge is an ironworks at Selwyn Point. Brindle Cross Inn is an inn near Amos Hill.")
    assert ("Ashby Forge", "located at", "Selwyn Point") in got, got
    assert ("Brindle Cross Inn", "located near", "Amos Hill") in got, got
    # "at" after a person's role is where one works, no location
    got = triples(ex, "Staff\nEllis Marrow was a teacher at Brook Hall.")
    assert not any(r.startswith("located") for _, r, _ in got), got
