""""He"/"she" and the passage's title: cases shaped like the MuSiQue passages whose edges the centering order
(tests/backends/test_spacy_centering.py) moved off the title. The title under a short name is the title; a "he"
after the title as subject, or after a "his" in its own sentence, is the title, not a person named in passing; a
woman a kin noun names ("X's mother, Y") is no "he"; the title the text called "she" is not a man named last; a
noun phrase gives nothing "to" anyone; an "it" inside a sentence whose first "it" is uncertain stays the title."""

from __future__ import annotations

from tests.backends.spacy_case import triples  # the extractor fixture ``ex`` is spacy_case's, via conftest


def test_he_after_the_title_by_its_surname_is_the_title(ex):
    """"Holmbakk was born …" is the title's person (a made person by "was born"), not a node "Holmbakk" of its own
    (the sentence's own "Holmbakk · born in" is its subject's name, as before)."""
    got = triples(ex, "Jan Holmbakk",
                  "Holmbakk was born in Mysen, Norway, the only child of a former Polish prisoner of war, Czesław "
                  "Holmbakk, and a Norwegian farmer's daughter. He grew up in Oslo, stateless until the age of seven. "
                  "When he was 21, he married Tora.")
    assert ("Jan Holmbakk", "grew up in", "Oslo") in got, got
    assert ("Jan Holmbakk", "married", "Tora") in got, got
    assert not any(h == "Holmbakk" and r in ("grew up in", "married") for h, r, _ in got), got


def test_he_after_a_first_name_and_his_is_not_the_record_holder(ex):
    """The title by its first name with "his" ("Ivo began his career") is a man; "In his debut season, he scored" is
    him, not the player whose record he broke (named last in the sentence before)."""
    got = triples(ex, "Ivo Kovrel",
                  "Ivo began his career at Harrowgate United. His early promise saw him make his debut at seventeen, "
                  "breaking the record set by Marco Della. In his debut season, he scored twelve goals.")
    assert ("Ivo Kovrel", "scored", "twelve goals") in got, got
    assert not any(h == "Marco Della" for h, _, _ in got), got


def test_he_after_the_title_as_subject_is_the_title(ex):
    got = triples(ex, "Edwin Harrow (painter)",
                  "Sir Edwin Harrow was an Ostrin painter during the reign of Queen Mathilde of Varn, notable as "
                  "Keeper of the Royal Collection. He was the father of the sculptor Anna Harrow.")
    assert ("Edwin Harrow (painter)", "father of", "Anna Harrow") in got, got
    assert not any(r == "father of" and h != "Edwin Harrow (painter)" for h, r, _ in got), got


def test_a_woman_named_by_a_kin_noun_is_no_he(ex):
    got = triples(ex, "Daro Venn",
                  "Daro Venn was born in Ostrin in 1941. Daro Venn's mother, Ilse Marrow, was a teacher. Inside his "
                  "family, he was nicknamed Dodo.")
    assert ("Daro Venn", "nicknamed", "Dodo") in got, got
    assert not any(h == "Ilse Marrow" and r == "nicknamed" for h, r, _ in got), got


def test_she_the_title_was_called_is_not_a_man_named_last(ex):
    got = triples(ex, "Mira (elephant)",
                  "She was caught in 1950 in Ostrin. In May 1957 the dealer Heini Demmer bought her from the Varn Zoo. "
                  "The Marl Zoo gave the elephant a home until Demmer decided to hire the animal out. She then visited "
                  "the Marl Circus before she arrived at the Dunmore Zoo.")
    assert ("Mira (elephant)", "visited", "Marl Circus") in got, got
    assert ("Mira (elephant)", "arrived at", "Dunmore Zoo") in got, got
    assert not any(h == "Heini Demmer" and r in ("visited", "arrived at") for h, r, _ in got), got


def test_a_noun_phrase_gives_nothing_to_anyone(ex):
    """spaCy's "dative" "to" ("sold it to X") gives an edge only from a named giver: "worldwide attention · gave to ·
    …" was a node of a phrase."""
    got = triples(ex, "Salt Walk",
                  "The Salt Walk was a protest in Varn. The walk gained worldwide attention, which gave impetus to the "
                  "Varn independence movement.")
    assert not any(r == "gave to" for _, r, _ in got), got
    got = triples(ex, "Liesl Tessary", "In 1899 Liesl Tessary sold the workshop to the Corven Instrument Company.")
    assert ("Liesl Tessary", "sold to", "Corven Instrument Company") in got, got


def test_an_it_in_a_clause_after_an_uncertain_it_is_the_title(ex):
    """"When it is climbed it is most often from Quellmark": the first "it" went to the sentence before's subject
    (here the phrase "as well as the fact"), and the second followed it."""
    got = triples(ex, "Brack",
                  "Brack is a mountain in the northern part of the Varn Hills. It stands a long way from a road and "
                  "requires a long walk across the moor top to get to it; this, as well as the fact that it is hidden "
                  "from the rest of the hills by the two giants, make it one of the least visited tops. When it is "
                  "climbed it is most often from Quellmark or from the north.")
    assert ("Brack", "is from", "Quellmark") in got, got
    assert not any(h == "as well as the fact" for h, _, _ in got), got
