"""A node's name holds the words of the name and no others: an audit's KG made "later the Heron flying boat" and "last
surviving Kestrel biplane" nodes of their own beside "Heron flying boat" and "Kestrel biplane" (BubbleRAG §3.1 step 2:
the entities of a passage)."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_an_adverb_before_the_article_is_no_word_of_the_name(ex):
    got = triples(ex, "Tova Brenn\nTova Brenn was born in Kelso Reach in 1890. She joined Marrow Aircraft in 1915 and "
                      "designed the Osprey monoplane and later the Petrel seaplane.")
    assert ("Tova Brenn", "designed", "Petrel seaplane") in got, got
    assert ("Tova Brenn", "designed", "Osprey monoplane") in got, got
    assert not any(t.startswith("later") for _, _, t in got), got


def test_lower_case_modifiers_before_a_name_are_no_words_of_it(ex):
    got = triples(ex, "Lund Aviation Museum\nThe Lund Aviation Museum opened in 1965. Its curator, Ivo Sand, restored "
                      "the last surviving Osprey monoplane.")
    assert any(t == "Osprey monoplane" for _, _, t in got), got
    got = triples(ex, "Ada Vell\nAda Vell was a painter. She painted the old Lund Harbour lighthouse.")
    assert ("Ada Vell", "painted", "Lund Harbour lighthouse") in got, got


def test_a_capitalised_modifier_and_a_rank_stay(ex):
    got = triples(ex, "Ida Sorn\nIda Sorn was an American Civil War nurse. She later joined the Detroit Red Wings "
                      "staff.")
    assert ("Ida Sorn", "was", "American Civil War nurse") in got, got
    # "the last Morrow Cup winner" is one winner, no node of every winner's
    got = triples(ex, "Ida Sorn\nIda Sorn was the last Morrow Cup winner.")
    assert not any(t == "Morrow Cup winner" for _, _, t in got), got
    # a former church is no church of the kind now, a fictional suburb none at all
    got = triples(ex, "Ida Sorn\nIda Sorn grew up in Dalton, a fictional Boston suburb.")
    assert not any(t == "Boston suburb" for _, _, t in got), got
