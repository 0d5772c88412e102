"""A bare surname two people of one passage share (audit 35: Cassia Ostberg's page, whose nephew Rurik Ostberg is
named last): the title's person when the title is a person with that surname, else the person named nearest
before it, never one named only after it."""

from __future__ import annotations

from tests.backends.spacy_case import nodes, triples  # the extractor fixture ``ex`` is spacy_case's, via conftest

_OSTBERG = ("Cassia Ostberg (1858–1937) was an optician and inventor in the province of Quorvath. At sixteen Ostberg "
            "was apprenticed to a spectacle grinder in Velmora. In 1911 the Quorvath Astronomical Society awarded "
            "Ostberg its newly created Lumen Medal. She handed the company to her nephew Rurik Ostberg in 1929.")


def test_a_bare_surname_is_the_title_person_not_the_kin_named_last(ex):
    got = triples(ex, "Cassia Ostberg", _OSTBERG)
    assert ("Cassia Ostberg", "apprenticed to", "spectacle grinder") in got, got
    assert ("Quorvath Astronomical Society", "awarded", "Cassia Ostberg") in got, got
    assert not any(h == "Rurik Ostberg" and r != "nephew of" for h, r, _ in got), got
    assert ("Quorvath Astronomical Society", "awarded", "Rurik Ostberg") not in got, got


def test_a_bare_surname_is_the_person_named_before_it_in_another_titles_passage(ex):
    """In a town's passage the surname is the person named before it, not the nephew named after it."""
    got = triples(ex, "Velmora", "Velmora is a town in Quorvath. " + _OSTBERG)
    assert ("Cassia Ostberg", "apprenticed to", "spectacle grinder") in got, got
    assert "Ostberg" not in nodes(got), got
    assert not any(h == "Rurik Ostberg" and r == "apprenticed to" for h, r, _ in got), got
    assert ("Quorvath Astronomical Society", "awarded", "Rurik Ostberg") not in got, got


def test_a_bare_surname_is_never_a_person_named_only_after_it(ex):
    got = triples(ex, "Velmora", "Velmora is a town in Quorvath. At sixteen Ostberg was apprenticed to a spectacle "
                                 "grinder in Velmora. Decades later the grinder's shop passed to Rurik Ostberg.")
    assert not any(h == "Rurik Ostberg" and r == "apprenticed to" for h, r, _ in got), got
    assert "Rurik Ostberg" in nodes(got), got


def test_a_place_titles_own_name_is_the_title_not_the_man_named_after_it(ex):
    """MuSiQue's "Hosterman, West Virginia": "Hosterman" is the community (the title before its comma), not the
    worker "Theodore G. Hosterman" the text names last, nor a node of its own."""
    got = triples(ex, "Hosterman, West Virginia",
                  "Hosterman is an unincorporated community in Pocahontas County, West Virginia. Hosterman is located "
                  "on the Greenbrier River. The community presently has the name of Theodore G. Hosterman, a worker in "
                  "the local lumber industry.")
    assert ("Hosterman, West Virginia", "located on", "Greenbrier River") in got, got
    assert "Hosterman" not in nodes(got), got
    assert not any(h == "Theodore G. Hosterman" for h, _, _ in got), got


def test_a_full_name_inside_a_longer_chunk_still_comes_first(ex):
    """MuSiQue's "Washington Naval Treaty": the full name sits in the chunk "US Secretary of State Charles Evans
    Hughes" (the pieces' spans are not kept in text order), and is still named before "Hughes"."""
    got = triples(ex, "Washington Naval Treaty",
                  "At the first plenary session held November 21, 1921, US Secretary of State Charles Evans Hughes "
                  "presented his country's proposals. Hughes provided a dramatic beginning for the conference.")
    assert ("Charles Evans Hughes", "provided", "dramatic beginning") in got, got
    assert "Hughes" not in nodes(got), got
