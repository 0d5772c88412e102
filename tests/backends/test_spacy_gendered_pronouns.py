"""A gendered pronoun ("she", "his", "her") stands for a person, never for a place: an audit's KG read "… a porcelain
painter born in <village>. Her daughter X …" as "X · daughter of · <village>", the small model having tagged the
village PERSON (BubbleRAG §3.1 step 2: the entities of a passage and their relations)."""

from __future__ import annotations

from tests.backends.spacy_case import passage_triples as triples  # the extractor: ``ex`` in conftest


def test_her_after_a_place_tagged_as_a_person_is_the_person(ex):
    got = triples(ex, "Ilse Marrant\nIlse Marrant was a glass engraver born in Kestrel Mill. She designed the first "
                      "green goblet of the Brenmoor Glassworks. Her son Aldo Marrant later ran the cutting room.")
    assert not any(t == "Kestrel Mill" and r != "born in" for _, r, t in got), got
    assert not any(h == "Kestrel Mill" for h, _, _ in got), got
    assert ("Aldo Marrant", "son of", "Ilse Marrant") in got, got


def test_a_name_as_a_role_nouns_subject_is_a_person_under_another_title(ex):
    got = triples(ex, "Engravers\nIlse Marrant was a glass engraver born in Kestrel Mill. She designed a green goblet. "
                      "Her son Aldo Marrant later ran the cutting room.")
    assert ("Aldo Marrant", "son of", "Ilse Marrant") in got, got
    assert not any(r == "son of" and t in ("Kestrel Mill", "Engravers") for _, r, t in got), got
