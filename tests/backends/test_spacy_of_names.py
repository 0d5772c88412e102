"""A title-case "X of Y" name after lower-case modifiers is the name: an audit's KG read "won the first Tour of
Varnholm" as "won · tour" plus "mentions · Varnholm", a generic node beside "Tour of Varnholm" (BubbleRAG §3.1 step 2:
the entities of a passage)."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_an_ordinal_before_an_of_name_is_no_word_of_it(ex):
    got = triples(ex, "Pell Orrin\nPell Orrin was a cyclist born in Dunmere in 1899. He won the first Ride of Castora "
                      "in 1931. He later founded Brackwater Tyres.")
    assert ("Pell Orrin", "won", "Ride of Castora") in got, got
    assert not any(t in ("Ride", "Castora") for _, _, t in got), got
    got = triples(ex, "Dunmere Rowing Club\nThe Dunmere Rowing Club was founded in 1925. The club organised the first "
                      "Regatta of Castora.")
    assert ("Dunmere Rowing Club", "organised", "Regatta of Castora") in got, got


def test_an_adjective_before_an_of_name_is_no_word_of_it(ex):
    got = triples(ex, "Pell Orrin\nPell Orrin rode in the annual Ride of Castora.")
    assert any(t == "Ride of Castora" for _, _, t in got), got


def test_a_lower_case_of_phrase_and_a_role_stay(ex):
    # "the first edition of Castora" is no name: no node "edition of Castora"
    got = triples(ex, "Pell Orrin\nPell Orrin won the first edition of Castora in 1931.")
    assert not any("edition of" in t for _, _, t in got), got
    # "was the first Mayor of Dunmere" is a role: mayor of Dunmere, no "mayor of · Mayor of Dunmere"
    got = triples(ex, "Pell Orrin\nPell Orrin was the first Mayor of Dunmere.")
    assert ("Pell Orrin", "mayor of", "Dunmere") in got, got
    assert not any(t == "Mayor of Dunmere" and r == "mayor of" for _, r, t in got), got


def test_an_of_phrase_of_several_is_no_name(ex):
    # "the dominant Quorism of Castora and her colonies" is the faith there, no name "Quorism of Castora"
    got = triples(ex, "Castora Act\nThe act protected settlers of other faiths that did not conform to the dominant "
                      "Quorism of Castora and her colonies.")
    assert ("other faiths", "not conform to", "Quorism") in got, got
    assert not any(t == "Quorism of Castora" for _, _, t in got), got


def test_a_role_before_be_after_a_modal_stays_a_role(ex):
    # the pipeline has no lemmatizer: "be" after "will"/"would" has no lemma, so the role read as a name
    # ("Aldous Frame · mayor of · Mayor of Quenby"); the copula is told by its word
    for verb in ("was", "would be", "will be"):
        got = triples(ex, f"Harl\nHarl is a market town. The first Mayor of Quenby {verb} Aldous Frame.")
        assert ("Aldous Frame", "mayor of", "Quenby") in got, (verb, got)
        assert not any(t == "Mayor of Quenby" for _, _, t in got), (verb, got)
