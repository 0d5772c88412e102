"""Names listed after a plural noun, gapped objects, a description before a name and a pronoun-like "one" — readings
an audit's KG check found wrong on its own type-foundry corpus ("<town> · is · <one of its mills>", a purchase left as
a title link, a node "<profession> <name>" beside the name, "bought · one")."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_a_name_among_a_plural_noun_is_one_of_its_things_not_is(ex):
    got = triples(ex, "Selby Fen\nSelby Fen is a market town on the river Ouse. It is known for its paper mills, "
                      "among them the Kessock Paper Mill.")
    assert ("Selby Fen", "is", "Kessock Paper Mill") not in got, got
    assert ("Selby Fen", "known for", "Kessock Paper Mill") in got, got
    got = triples(ex, "Selby Fen\nIt has three paper mills, among them the Kessock Paper Mill.")
    assert ("Selby Fen", "has", "Kessock Paper Mill") in got, got
    # a member the parser made the verb's object keeps its verb
    got = triples(ex, "Anna Brack\nAnna Brack taught many students, among them Paul Weller.")
    assert ("Anna Brack", "taught", "Paul Weller") in got, got


def test_a_noun_joined_to_the_verb_is_a_second_object_with_its_date(ex):
    got = triples(ex, "Tallis Holdings\nTallis Holdings is a shipping company based in Orbury. The company bought "
                      "Ferrin Docks in 1911 and the Cobb Ropeworks in 1925.")
    assert ("Tallis Holdings", "bought", "Ferrin Docks") in got, got
    assert ("Tallis Holdings", "bought", "Cobb Ropeworks") in got, got
    assert ("Cobb Ropeworks", "bought in", "1925") in got, got
    assert ("Cobb Ropeworks", "bought in", "1911") not in got, got


def test_a_profession_before_a_name_is_no_word_of_the_name(ex):
    got = triples(ex, "Wenna Holt\nWenna Holt was a bookbinder from Dunmoor. She married Tobin Rusk in 1920. Her "
                      "brother was the typographer Piet Holt.")
    assert ("Piet Holt", "brother of", "Wenna Holt") in got, got
    assert not any(n.startswith("typographer") for n in nodes(got)), got
    got = triples(ex, "Wenna Holt\nHer cousin was the typographer Arno Pike.")
    assert ("Arno Pike", "cousin of", "Wenna Holt") in got, got


def test_a_typeface_after_its_name_is_the_name(ex):
    got = triples(ex, "Orla Finch\nOrla Finch was a printer who designed the Marram typeface. She was born in Holt.")
    assert ("Orla Finch", "designed", "Marram") in got, got
    assert "Marram typeface" not in nodes(got), got


def test_its_first_one_is_no_node(ex):
    got = triples(ex, "Orme Press\nThe Orme Press was built by Hollis Vane in 1886. Dunmore Printing Works bought "
                      "its first one in 1890.")
    assert "one" not in nodes(got), got
    assert ("Dunmore Printing Works", "bought in", "1890") in got, got
    # a work named "One" is a name
    got = triples(ex, "Kessa Vale\nKessa Vale is a singer from Holt. She released One in 1991.")
    assert ("Kessa Vale", "released", "One") in got, got
