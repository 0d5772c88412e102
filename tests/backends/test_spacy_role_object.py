"""A verb's object "the <role noun> <Name>" is the name, where the parser left the name loose: an audit's KG read
"… married the architect Jonas Pell" as only "mentions", with no "married" edge (BubbleRAG §3.1 step 2)."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_the_role_noun_before_a_loose_name_is_the_name(ex):
    got = triples(ex, "Edda Morrow\nEdda Morrow was born in Tallin Cross. She was chairman of the Wexley Trust and "
                      "married the architect Mira Dell.")
    assert ("Edda Morrow", "married", "Mira Dell") in got, got
    # the parser makes "Pike" the verb's adverb here
    got = triples(ex, "Edda Morrow\nEdda Morrow was a weaver. She married the architect Jonas Pike.")
    assert ("Edda Morrow", "married", "Jonas Pike") in got, got


def test_a_name_in_apposition_and_an_owners_name_stay_as_they_were(ex):
    # the parser's own apposition was read before: the same edge
    got = triples(ex, "Edda Morrow\nIn 1920 Edda Morrow met the poet Lars Edvin.")
    assert ("Edda Morrow", "met", "Lars Edvin") in got, got
    # a possessive name is the owner of what follows, never the role noun's name
    got = triples(ex, "Edda Morrow\nEdda Morrow bought the painter Corvin Hale's house in 1931.")
    assert ("Edda Morrow", "bought", "Corvin Hale") not in got, got
