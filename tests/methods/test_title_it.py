"""A leading "It" of a passage about its title is shown as the title in the extractive answer
(core/methods/title_it.py), never an expletive "It is said that …" nor an "It" after another thing."""

from __future__ import annotations

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm
from core.methods.base import Backends
from core.methods.extractive import _title_is_person, antecedents, pick_sentence
from core.methods.title_it import brings_a_thing, expletive, title_its
from core.text import split_sentences

AMBERCROFT = "Ambercroft Foods is a food conglomerate headquartered in Lystergate. It was founded in 1921 by Mirabel Oskin."


def _its(title: str, text: str) -> list[str]:
    sents = [s.strip() for s in split_sentences(text)]
    return title_its(sents, title, antecedents(sents, title), title_is_person=_title_is_person(sents, title))


def _answer(question: str, title: str, text: str) -> str:
    return pick_sentence(question, [("c1", title, text)], Backends(HashingEmbedder(), get_llm("none"))).text


def test_the_audit_s_it_is_shown_as_the_passage_title() -> None:
    """An audit read "He [Oriel Vantreck] …" in one answer and a bare "It was founded in 1921 by Mirabel Oskin." in the
    passage "Ambercroft Foods" in another."""
    assert _answer("In what year was Ambercroft Foods founded?", "Ambercroft Foods", AMBERCROFT) == (
        "It [Ambercroft Foods] was founded in 1921 by Mirabel Oskin.")
    # each "It" of a passage that stays about its title; a definition's own words describe the title
    assert _its("Ambercroft Tower", "Ambercroft Tower is the headquarters of Ambercroft Foods. It was completed in "
                                    "1934 and designed by the architect Lucan Reyes. It has twelve floors.") == [
        "", "Ambercroft Tower", "Ambercroft Tower"]
    assert _its("Wren Prize", "The Wren Prize is an award for honey science named after Tobias Wrenfield. It was "
                              "first awarded in 1955.") == ["", "Wren Prize"]
    assert _its("Ambercroft Foods", "It was founded in 1921 by Mirabel Oskin.") == ["Ambercroft Foods"]


@pytest.mark.parametrize("sentence", [
    "It is said that Mirabel Oskin founded the company in 1921.",
    "It was in 1921 that Mirabel Oskin founded the company.",
    "It was not until 1950 that the company sold honey abroad.",
    "It is widely believed that the company began in a shed.",
    "It is difficult to say when the company began.",
    "It seems that the company began in 1921.",
    "It was Mirabel Oskin who founded the company.",
])
def test_an_expletive_it_is_never_bracketed(sentence: str) -> None:
    assert expletive(sentence)
    text = f"Ambercroft Foods is a food conglomerate. {sentence}"
    assert _its("Ambercroft Foods", text) == ["", ""]
    assert "[" not in _answer("When was Ambercroft Foods founded?", "Ambercroft Foods", text)


@pytest.mark.parametrize("sentence", ["It was founded in 1921 by Mirabel Oskin.", "It is known for its annual wax fair.",
                                      "It is said to have been founded in 1921.", "It was sold to Goldmere in 1950.",
                                      "It is a company that sells honey."])
def test_a_referring_it_is_no_expletive(sentence: str) -> None:
    assert not expletive(sentence)


def test_no_title_where_the_it_may_be_another_thing_or_the_title_is_a_person() -> None:
    """"It" after another singular thing may be that thing ("It burned down" is the mill's); a person's passage reads
    "He"/"She" as the title, not "It"; a named thing the sentence before opens with stays its reading."""
    mill = "Ambercroft Foods bought the Lystergate mill in 1930. It burned down in 1950."
    assert _its("Ambercroft Foods", mill) == ["", ""]
    pick = pick_sentence("When did the mill burn down?", [("c1", "Ambercroft Foods", mill)],
                         Backends(HashingEmbedder(), get_llm("none")))
    assert not [c.shown for c in pick.candidates if "[" in c.shown], pick.candidates
    assert _its("Ambercroft Foods", "Ambercroft Foods is a food company. Its first jar was designed by Tobias "
                                    "Wrenfield. It sold well.") == ["", "Ambercroft Foods", ""]  # the jar, maybe
    assert _its("Oriel Vantreck", "Oriel Vantreck was a beekeeper. He founded Goldmere. It was sold in 1950.")[2] == ""
    assert _its("Pellow Ferries", "The Brown Ox was a ferry. It worked only the Pellow Reach crossing.") == [
        "", "Brown Ox"]
    # what counts as another thing: a phrase or a name that is no person, date or the title
    assert brings_a_thing("bought the Lystergate mill", "Ambercroft Foods")
    assert not brings_a_thing(" was founded in March 1921 by the merchant Mirabel Oskin.", "Ambercroft Foods")


def test_the_kind_noun_of_the_title_is_the_title() -> None:
    """Audit 50: "In 1897 it bought Brennick Saltworks from the Molgrave family." stayed bare in the passage "Quarrel
    Vale Carrying Company" because "The company grew steadily and bought carts … across Corvath." before it read as
    bringing in another thing; "The company" (the title's last word) and "The firm" (its definition's kind) are the
    title. Another company named before keeps the "It" bare."""
    text = ("The Quarrel Vale Carrying Company was a haulage firm based in the inland town of Stroud Amberley. It was "
            "founded in 1854 by the sisters Maudie Quarrel and Lettice Quarrel. The company grew steadily and bought "
            "carts, barges and warehouses across Corvath. In 1897 it bought Brennick Saltworks from the Molgrave family.")
    assert _its("Quarrel Vale Carrying Company", text)[1:] == ["Quarrel Vale Carrying Company", "",
                                                              "Quarrel Vale Carrying Company"]
    firm = text.replace("The company grew", "The firm grew")
    assert _its("Quarrel Vale Carrying Company", firm)[-1] == "Quarrel Vale Carrying Company"
    other = ("Ambercroft Foods is a food conglomerate. In 1930 it bought the Lystergate Mill Company. The company "
             "burned down in 1931. It was rebuilt in 1935.")
    assert _its("Ambercroft Foods", other)[-1] == ""
