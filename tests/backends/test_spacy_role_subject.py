"""Audit 37's Harvoy page: "The puppeteer Odile Castemar was born in Harvoy in 1851" gave "Harvoy · born in · 1851":
the parser made "the puppeteer" a second subject, which read as the passage's title."""

from __future__ import annotations

from tests.backends.spacy_case import triples  # the extractor fixture ``ex`` is spacy_case's, via conftest


def test_a_role_noun_before_a_name_is_no_second_subject(ex):
    got = triples(ex, "Harvoy", "Harvoy is a hill village. The puppeteer Odile Castemar was born in Harvoy in 1851.")
    assert ("Odile Castemar", "born in", "1851") in got, got
    assert ("Odile Castemar", "born in", "Harvoy") in got, got
    assert ("Harvoy", "born in", "1851") not in got, got
