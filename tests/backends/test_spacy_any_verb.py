"""Audit 50's saltworks corpus: audit 49's fixes made general. "Under X the company built a warehouse in Y" keeps the
warehouse ("built warehouse in · Y", never the firm "built in · Y"), for any verb; "Under the new owners …" (a generic
noun phrase) gives no "under" edge; "bought carts, barges and warehouses across Corvath" has no verb "barges"."""

from __future__ import annotations

from tests.backends.spacy_case import nodes
from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_an_indefinite_object_keeps_the_verbs_place(ex):
    got = triples(ex, "Quarrel Vale Carrying Company\nThe Quarrel Vale Carrying Company was a haulage firm. Under Maudie "
                      "Quarrel the company built a warehouse in Stroud Amberley that stored salt for the inland markets.")
    assert ("Quarrel Vale Carrying Company", "built warehouse in", "Stroud Amberley") in got, got
    assert ("Quarrel Vale Carrying Company", "built in", "Stroud Amberley") not in got, got
    got = triples(ex, "Harrow Mills\nHarrow Mills was a textile firm. Under John Harrow the firm built a chapel in "
                      "Halifax in 1870.")
    assert ("Harrow Mills", "built chapel in", "Halifax") in got, got
    assert ("Harrow Mills", "built in", "Halifax") not in got, got


def test_under_a_generic_noun_phrase_is_no_edge(ex):
    got = triples(ex, "Brennick Saltworks\nBrennick Saltworks is a salt making works at Ulvane. Under the new owners "
                      "the works laid a short tramway to the quay at Ulvane.")
    assert "new owners" not in nodes(got), got
    assert ("Brennick Saltworks", "laid", "short tramway") in got, got
    got = triples(ex, "Harrow Mills\nHarrow Mills was a textile firm. Under the new management the mill laid a "
                      "railway siding to Halifax.")
    assert "new management" not in nodes(got), got


def test_a_list_of_bare_plurals_has_no_verb(ex):
    got = triples(ex, "Quarrel Vale Carrying Company\nThe Quarrel Vale Carrying Company was a haulage firm. The "
                      "company grew steadily and bought carts, barges and warehouses across Corvath.")
    assert not any(r.startswith("barges") for _, r, _ in got), got
    got = triples(ex, "Harrow Mills\nHarrow Mills was a textile firm. It bought looms, spindles and sheds across "
                      "Lancashire.")
    assert not any(r.startswith("spindles") for _, r, _ in got), got


def test_the_noun_of_the_title_is_its_own_thing(ex):
    """"the chapel of Tarsk was built in 1893" gave "Tarsk · built in · 1893" (a hamlet is no chapel)."""
    got = triples(ex, "Tarsk\nTarsk is a moorland hamlet in Corvath. The road was paved in 1880, and the chapel of "
                      "Tarsk was built in 1893.")
    assert ("Tarsk", "built in", "1893") not in got, got
    assert ("chapel of Tarsk", "built in", "1893") in got, got
    got = triples(ex, "Hollby\nHollby is a village in Kent. The church of Hollby was rebuilt in 1720. The corn "
                      "exchange of Hollby was built in 1822.")
    assert ("church of Hollby", "rebuilt in", "1720") in got, got
    assert ("corn exchange of Hollby", "built in", "1822") in got, got
    got = triples(ex, "Hollby\nHollby is a village in Kent. The population of Hollby was 400 in 1900.")
    assert ("Hollby", "was", "400") in got, got  # its own measure stays the title's


def test_a_relative_clauses_pronoun_is_the_person_named_before(ex):
    """"… was Corra Molgrave, for a flaked salt she made … at Brennick" gave "Heron Salt Prize · made at · Brennick"."""
    got = triples(ex, "Heron Salt Prize\nThe Heron Salt Prize is an award for salt makers. It was first awarded in 1901. "
                      "The first winner of the Heron Salt Prize was Corra Molgrave, for a flaked salt she made in the "
                      "white salt house at Brennick.")
    assert ("Corra Molgrave", "made at", "Brennick") in got, got
    assert not any(h == "Heron Salt Prize" and r.startswith("made") for h, r, _ in got), got
    got = triples(ex, "Ruby Pane Medal\nThe Ruby Pane Medal is an award for glass makers. The first holder of the Ruby "
                      "Pane Medal was Tobin Harrowfield, for a lamp he blew in the old furnace at Quessarin.")
    assert ("Tobin Harrowfield", "blew at", "Quessarin") in got, got
    assert not any(h == "Ruby Pane Medal" and r.startswith("blew") for h, r, _ in got), got


def test_the_family_a_thing_was_bought_from_is_one_node(ex):
    """"bought Brennick Saltworks from the Molgrave family" also gave "mentions · Molgrave"."""
    got = triples(ex, "Quarrel Vale Carrying Company\nThe Quarrel Vale Carrying Company was a haulage firm. In 1897 it "
                      "bought Brennick Saltworks from the Molgrave family.")
    assert ("Quarrel Vale Carrying Company", "bought from", "Molgrave family") in got, got
    assert "Molgrave" not in nodes(got), got
    got = triples(ex, "Harrow Mills\nHarrow Mills was a textile firm. In 1910 it bought the Calder Dyeworks from the "
                      "Pellam family.")
    assert ("Harrow Mills", "bought from", "Pellam family") in got, got
    assert "Pellam" not in nodes(got), got
