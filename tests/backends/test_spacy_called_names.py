"""Audit 37's Tavrin Marionette Theatre page: "The theatre's most famous figure was a tall heron called Master Quill"
gave "most famous figure · was · tall heron": the name a noun is called is the noun, and the theatre that owns the
figure is the passage's title."""

from __future__ import annotations

from tests.backends.spacy_case import nodes, triples  # the extractor fixture ``ex`` is spacy_case's, via conftest

_TAVRIN = ("The Tavrin Marionette Theatre is a puppet theatre in the market town of Brelloc. The theatre's most famous "
           "figure was a tall heron called Master Quill, who introduced every performance.")


def test_a_figure_called_a_name_is_the_titles(ex):
    got = triples(ex, "Tavrin Marionette Theatre", _TAVRIN)
    assert ("Master Quill", "figure of", "Tavrin Marionette Theatre") in got, got
    assert not {"most famous figure", "tall heron"} & nodes(got), got


def test_a_thing_called_a_name_is_the_name(ex):
    got = triples(ex, "Ida Marrow", "Ida Marrow was a film director. In 1950 she directed a short film called "
                  "Night Harbour.")
    assert ("Ida Marrow", "directed", "Night Harbour") in got, got
