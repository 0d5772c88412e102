"""Audit 35, Velmora's page: "… the Quorvath Astronomical Society, founded in 1864 … The society meets in the Sorrel
House … Since 1911 it has awarded the Lumen Medal." gave "Velmora · awarded since · 1911": "it" after a sentence
whose subject is "the society" (a common noun the text gave the society's name) is the society, and a "Since/In
YEAR" phrase before the pronoun changes nothing."""

from __future__ import annotations

import pytest

from tests.backends.spacy_case import triples  # the extractor fixture ``ex`` is spacy_case's, via conftest

_TEXT = ("Velmora is the capital of the province of Quorvath. Velmora is the home of the Quorvath Astronomical "
         "Society, founded in 1864 by the clockmaker Benedikt Sorrel. The society meets in the Sorrel House on "
         "Cobalt Square and keeps a library of star charts. {} it has awarded the Lumen Medal.")


@pytest.mark.parametrize("opening", ["Since 1911", "In 1911"])
def test_it_after_the_society_is_the_society_not_the_town(ex, opening):
    got = triples(ex, "Velmora", _TEXT.format(opening))
    assert ("Quorvath Astronomical Society", "awarded", "Lumen Medal") in got, got
    assert not any(h == "Velmora" and r.startswith("awarded") for h, r, _ in got), got


def test_it_is_never_a_person_titled_passage_s_title_whose_given_name_no_list_knows(ex):
    # audit 48: "The company bought leaf from small growers in the hills and blended it in a warehouse" in the passage
    # "Ismar Tollevane" (no given name in the lists, "He was born …") gave "Verrow Leaf Company · blended · Ismar
    # Tollevane"
    got = triples(ex, "Ismar Tollevane", "Ismar Tollevane was a tea merchant and the founder of the Verrow Leaf "
                  "Company. He was born in 1861 in the hill town of Dastmere. In 1889 Tollevane founded the Verrow Leaf "
                  "Company in Quellhaven. The company bought leaf from small growers in the hills and blended it in a "
                  "warehouse near the harbour.")
    assert not [t for t in got if t[2] == "Ismar Tollevane" and t[1].startswith("blended")], got
    assert ("Verrow Leaf Company", "bought from", "small growers") in got, got
    # a title whose brackets name its kind stays a thing: "It is the fourth installment" is the film's
    got = triples(ex, "Wonder Woman (2017 film)", "Wonder Woman is a 2017 American superhero film based on the DC Comics "
                  "character of the same name. It is the fourth installment in the DC Extended Universe (DCEU). Wonder "
                  "Woman is the second live action theatrical film featuring the titular character, following her debut "
                  "in 2016's Batman v Superman: Dawn of Justice.")
    assert ("Wonder Woman (2017 film)", "is", "fourth installment") in got, got
