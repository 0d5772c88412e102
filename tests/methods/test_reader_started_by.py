"""The founder of X where X "was started by" someone, and a description inside a description resolved through "X's
first R was NAME" (core.methods.bridges, read by the extractive answer's rule 3).

An audit's "In what year was the founder of <a fair> born?" was answered by every method with the first hop ("The fair
was started in 1911 by NAME"): "started" was not among the verbs that say what "founder" asks, so no founder was
found, though the founder's birth sentence was retrieved. "Who bought the studio founded by the first winner of <a
prize>?" stopped at "Its first winner was the potter NAME": the adjective between the possessive and the noun hid the
relation. Invented names below."""

from __future__ import annotations

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.base import Backends
from core.methods.bridges import clause_bridges
from core.methods.extractive import pick_sentence

FESTIVAL = ("f1", "Orlen Kite Festival", "The Orlen Kite Festival was started in 1908 by Aldous Brenn. It awards the "
            "Orlen Ribbon to the best young kite maker each year.")
FOUNDER = ("f2", "Aldous Brenn", "Aldous Brenn was a draper born in Wexcombe in 1862. He founded the Brenn Cloth "
           "Company in 1890. He died in 1931 in Orlen.")
#: another Brenn, born elsewhere and later, the look-alike the question's words fit
SON = ("f3", "Tobin Brenn", "Tobin Brenn was the son of Aldous Brenn. He was born in Orlen in 1899 and died in 1970.")


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


@pytest.mark.parametrize("said", [
    "The Orlen Kite Festival was started in 1908 by Aldous Brenn.",
    "The Orlen Kite Festival was launched in 1908 by the draper Aldous Brenn.",
])
def test_started_by_names_the_founder(said):
    bridges = clause_bridges("In what year was the founder of the Orlen Kite Festival born?", [said])
    assert [b[1] for b in bridges] == ["Aldous Brenn"], bridges


def test_a_start_said_of_another_thing_names_no_founder():
    assert clause_bridges("In what year was the founder of the Orlen Kite Festival born?",
                          ["The Orlen Kite Festival bought the Wexcombe Green, which was started in 1900 by Ida "
                           "Marl."]) == []


@pytest.mark.parametrize("said", [
    "The Orlen Kite Festival was founded in 1908 by Aldous Brenn.",  # "started" asked, "founded" said
    "Aldous Brenn founded the Orlen Kite Festival in 1908.",
])
def test_the_person_who_started_x_is_its_founder(said):
    bridges = clause_bridges("Where was the person who started the Orlen Kite Festival born?", [said])
    assert [b[1] for b in bridges] == ["Aldous Brenn"], bridges


@pytest.mark.parametrize(("question", "answer"), [
    ("In what year was the founder of the Orlen Kite Festival born?", "1862"),
    ("Where was the founder of the Orlen Kite Festival born?", "Wexcombe"),
    ("In what year was the person who started the Orlen Kite Festival born?", "1862"),
])
def test_the_founders_birth_answers_not_the_start_or_a_namesake(question, answer):
    for passages in ([FESTIVAL, FOUNDER, SON], [FESTIVAL, SON, FOUNDER]):
        pick = pick_sentence(question, passages, _backends())
        assert any(b.startswith("Aldous Brenn") for b in pick.bridges), pick.bridges
        assert answer in pick.text and "Tobin" not in pick.text, pick.trace_data()


RIBBON = ("r1", "Orlen Ribbon", "The Orlen Ribbon is a prize given at the Orlen Kite Festival. Its first winner was the "
          "kite maker Sela Dunn in 1909.")
WINNER = ("r2", "Sela Dunn", "Sela Dunn was a kite maker born in Orlen in 1888. She won the Orlen Ribbon in 1909. She "
          "later founded the Dunn Kite Workshop in Wexcombe.")
WORKSHOP = ("r3", "Dunn Kite Workshop", "The Dunn Kite Workshop was founded by Sela Dunn in 1915 in Wexcombe. It was "
            "sold to the merchant Ivo Strand in 1950.")


def test_the_first_winner_is_read_through_xs_first_winner():
    bridges = clause_bridges("Who bought the workshop founded by the first winner of the Orlen Ribbon?",
                             ["The Orlen Ribbon's first winner was the kite maker Sela Dunn in 1909.",
                              "The Dunn Kite Workshop was founded by Sela Dunn in 1915 in Wexcombe."])
    assert [b[1] for b in bridges] == ["Sela Dunn", "Dunn Kite Workshop"], bridges
    # another adjective is another winner
    assert clause_bridges("Who bought the workshop founded by the first winner of the Orlen Ribbon?",
                          ["The Orlen Ribbon's latest winner was the kite maker Pim Hale in 1950."]) == []


def test_who_bought_the_studio_of_the_first_winner_answers_with_the_buyer():
    pick = pick_sentence("Who bought the workshop founded by the first winner of the Orlen Ribbon?",
                         [RIBBON, WINNER, WORKSHOP], _backends())
    assert "Ivo Strand" in pick.text, pick.trace_data()
