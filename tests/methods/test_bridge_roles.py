"""The first hop of "the <role> of X" and of "the <noun> <participle> in X" (core.methods.bridges, read by the
extractive answer's rule 3): the role's verb said another way ("established" for "founder"), X the thing the verb is
said of rather than a name after it, and a description by a participle and a place ("the weaver born in Ashcombe")."""

from __future__ import annotations

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm
from core.methods.base import Backends
from core.methods.bridges import clause_bridges
from core.methods.extractive import pick_sentence

#: another firm's founding, with X only after it ("… and was sold to the Tarrant Valley Bank")
DYNAMO = "Pellwick Dynamo Works was founded in 1871 by Bram Ostler and was sold to the Tarrant Valley Bank in 1902."
BANK = "Tarrant Valley Bank was established in 1880 by the merchant Selma Quist."
FOUNDER_Q = "In what year was the founder of the Tarrant Valley Bank born?"


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"))


def test_a_founding_said_of_another_firm_names_no_founder_of_x():
    assert clause_bridges(FOUNDER_Q, [DYNAMO]) == []
    # X before the verb with another name between: the verb is said of that one ("… bought Pellwick Dynamo Works,
    # which was founded by Bram Ostler")
    assert clause_bridges(FOUNDER_Q, ["The Tarrant Valley Bank bought Pellwick Dynamo Works, which was founded in "
                                      "1871 by Bram Ostler."]) == []


@pytest.mark.parametrize("said", [
    BANK,  # "established" says what "founder" asks
    "Tarrant Valley Bank was founded in 1880 by the merchant Selma Quist.",
    "Tarrant Valley Bank was set up in 1880 by the merchant Selma Quist.",
    "Tarrant Valley Bank's founder was Selma Quist.",
])
def test_the_founder_is_the_agent_of_xs_founding_however_it_is_worded(said):
    bridges = clause_bridges(FOUNDER_Q, [DYNAMO, said])  # the other firm's sentence first, as a ranking may put it
    assert [b[1] for b in bridges] == ["Selma Quist"], bridges
    assert bridges[0][0] == "In what year was the founder Selma Quist born?"


@pytest.mark.parametrize("said", [
    "Lotte Farrin was a weaver born in Ashcombe in 1861.",  # the description's own sentence
    "Ashcombe was the birthplace of the weaver Lotte Farrin.",  # from the place's side
])
def test_a_description_by_a_participle_and_a_place_is_resolved(said):
    bridges = clause_bridges("Who did the weaver born in Ashcombe marry?", [said])
    assert [(b[0], b[1]) for b in bridges] == [("Who did the weaver Lotte Farrin marry?", "Lotte Farrin")]


def test_a_participle_description_needs_the_noun_and_the_verb():
    assert clause_bridges("Who did the weaver born in Ashcombe marry?",
                          ["Lotte Farrin was a potter born in Ashcombe in 1861.",  # another noun
                           "Lotte Farrin was a weaver who lived in Ashcombe."]) == []  # another verb


def test_the_founders_birth_answers_not_the_founder_of_another_firm_named_beside_x():
    passages = [("c1", "Tarrant Valley Bank", "The Tarrant Valley Bank was a savings bank in Hollin. It was established "
                                              "in 1880 by the merchant Selma Quist."),
                ("c2", "Pellwick Dynamo Works", "Pellwick Dynamo Works was a dynamo maker in Hollin. It was founded in "
                                                "1871 by Bram Ostler and was sold to the Tarrant Valley Bank in 1902."),
                ("c3", "Harrow Mill", "Harrow Mill was a paper mill on the river Dane."),
                ("c4", "Bram Ostler", "Bram Ostler was an engineer born in Crale in 1840."),
                ("c5", "Selma Quist", "Selma Quist was a merchant born in Hollin in 1843.")]
    pick = pick_sentence(FOUNDER_Q, passages, _backends())
    assert any(b.startswith("Selma Quist") for b in pick.bridges), pick.bridges
    assert "1843" in pick.text, pick.trace_data()


ASHCOMBE = ("c1", "Ashcombe", "Ashcombe is a hamlet on the river Dane. It was the birthplace of the weaver Lotte Farrin.")
FARRIN = ("c2", "Lotte Farrin", "Lotte Farrin was a weaver born in Ashcombe in 1861. She married Osmund Pryce in 1885 "
                                "and wove the tapestries of Dane Hall.")


@pytest.mark.parametrize("passages", [[ASHCOMBE, FARRIN], [FARRIN]])  # the description resolved from either passage
def test_who_did_the_described_person_marry_quotes_the_marriage_not_the_description(passages):
    """The sentence that restates the question's description ("… a weaver born in Ashcombe") names the described
    person, the bridge: it is no answer to whom she married."""
    pick = pick_sentence("Who did the weaver born in Ashcombe marry?", passages, _backends())
    assert "Osmund Pryce" in pick.text, pick.trace_data()
    assert any(b.startswith("Lotte Farrin") for b in pick.bridges), pick.bridges
