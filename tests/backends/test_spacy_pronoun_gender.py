"""Audit 36, Tomas Wyre's page: "Wyre married the painter Ilse Marrow in 1891; she designed the green and cream
colours of the Karsk cars." gave "Tomas Wyre · designed · green and cream colours": a "she" after a subject the text
had called "he" is the woman named last before it in its sentence (and "he" after a "she" the man), where the text
never called that one the other pronoun; a person of no known gender stays a candidate for either."""

from __future__ import annotations

from tests.backends.spacy_case import triples  # the extractor fixture ``ex`` is spacy_case's, via conftest

_WYRE = ("Tomas Wyre (1860–1929) was a civil engineer who designed funiculars. He was born in 1860 in the city of "
         "Halvek. He went on to build three more funiculars in the province of Estrevia. Wyre married the painter "
         "Ilse Marrow in 1891; she designed the green and cream colours of the Karsk cars.")


def test_she_after_a_he_subject_is_the_woman_named_before_it(ex):
    got = triples(ex, "Tomas Wyre", _WYRE)
    assert ("Ilse Marrow", "designed", "green and cream colours") in got, got
    assert ("Tomas Wyre", "designed", "green and cream colours") not in got, got
    assert ("Tomas Wyre", "married", "Ilse Marrow") in got, got


def test_he_after_a_she_subject_is_the_man_named_before_it(ex):
    got = triples(ex, "Anna Kestrel", "Anna Kestrel (1850–1920) was a weaver. She was born in Halvek. She opened a "
                  "mill in Karsk. Kestrel married the engineer Pim Rattery in 1881; he designed the Karsk Funicular.")
    assert ("Pim Rattery", "designed", "Karsk Funicular") in got, got
    assert ("Anna Kestrel", "designed", "Karsk Funicular") not in got, got


def test_she_after_a_he_pronoun_in_its_sentence_is_the_woman_named_between(ex):
    got = triples(ex, "Tomas Wyre", "Tomas Wyre (1860–1929) was a civil engineer. He was born in 1860 in Halvek. In "
                  "1891 he married the painter Ilse Marrow, and she designed the Karsk Funicular.")
    assert ("Ilse Marrow", "designed", "Karsk Funicular") in got, got
    assert ("Tomas Wyre", "married", "Ilse Marrow") in got, got


def test_the_same_pronoun_goes_on_with_its_subject(ex):
    got = triples(ex, "Tomas Wyre", "Tomas Wyre (1860–1929) was a civil engineer. He was born in 1860 in Halvek. In "
                  "1891 he married the painter Ilse Marrow; he designed the Karsk Funicular.")
    assert ("Tomas Wyre", "designed", "Karsk Funicular") in got, got


_KORVANE = ("Elsbet Korvane (1848–1931) was a bell founder and tuner. She was the daughter of Matthias Korvane and "
            "Idonea Frask, and she was born in Ostrelle.\n\nShe learned casting from her father and took charge of "
            "the Varnholt Bell Foundry when he died in 1879. She retired in 1919.")


def test_he_in_a_clause_of_a_she_subject_is_her_father_named_before(ex):
    """Audit 38: "… when he died in 1879" gave "Elsbet Korvane · died in · 1879"; "her father" before the "he" is the
    father "the daughter of Matthias Korvane and Idonea Frask" named."""
    got = triples(ex, "Elsbet Korvane", _KORVANE)
    assert ("Elsbet Korvane", "died in", "1879") not in got, got
    assert ("Matthias Korvane", "died in", "1879") in got, got
    assert ("Elsbet Korvane", "retired in", "1919") in got, got


def test_he_after_her_father_with_no_father_named_is_no_one(ex):
    """No parent named: the "he" is her father, whom no node stands for; the year is never hers."""
    got = triples(ex, "Elsbet Korvane", "Elsbet Korvane was a bell founder. She learned casting from her father and "
                  "took charge of the Varnholt Bell Foundry when he died in 1879.")
    assert ("Elsbet Korvane", "died in", "1879") not in got, got
    assert ("Elsbet Korvane", "took charge of", "Varnholt Bell Foundry") in got, got
