"""An audit's "In what year did the founder of Corvane Cycles die?" was answered with the founder's birth sentence,
though her passage said "Morrow died in Hallstead in 1971.": that sentence names her by her surname alone, so it was
never taken from the later passage where the founder (the bridge) was found, and the question-verb rule
(core/methods/question_verb.py) did not see the bridge in it. Invented names below."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.base import Backends
from core.methods.extractive import pick_sentence, resolve_pronoun
from core.methods.pronoun_subjects import surname_reading
from core.methods.question_verb import verb_about_bridge

FOUNDER = ("p4", "Ysolde Brannock", "Ysolde Brannock was born in Tewsby in 1861. She trained as a clockmaker before "
           "founding Marlin Gearworks. In 1888 she married the engineer Hobb Carrow. Brannock died in Pellsworth in 1933.")
PASSAGES = [
    ("p1", "Marlin Gearworks", "Marlin Gearworks is a gear maker founded in 1890 in Pellsworth by Ysolde Brannock. "
                               "Its first product was a brass winch. The company was sold in 1960."),
    ("p2", "Brass winch", "The brass winch was a hand-cranked winch. About two thousand were made before 1910."),
    ("p3", "Pellsworth", "Pellsworth is a harbour town on the Tewe estuary."),
    FOUNDER,
]


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


def test_the_death_sentence_answers_when_the_founder_died() -> None:
    pick = pick_sentence("In what year did the founder of Marlin Gearworks die?", PASSAGES, _backends())
    assert pick.text == "Brannock died in Pellsworth in 1933.", pick.candidates[:3]


def test_a_surname_opening_a_sentence_reads_as_the_passage_title() -> None:
    assert resolve_pronoun("Brannock died in Pellsworth in 1933.", "Ysolde Brannock") == (
        "Ysolde Brannock died in Pellsworth in 1933.")
    assert surname_reading("In 1933, Brannock died at sea.", "Ysolde Brannock") == (
        "In 1933, Ysolde Brannock died at sea.")  # after an opening phrase, as a pronoun
    assert surname_reading("Ysolde Brannock died in 1933.", "Ysolde Brannock") == ""  # the full name already
    assert surname_reading("Brannock Street runs north.", "Ysolde Brannock") == ""  # another name
    assert surname_reading("Gearworks sold well.", "Marlin gearworks") == ""  # a title that is no name


def test_the_question_verb_said_of_the_bridge_by_its_surname_comes_first() -> None:
    q = "In what year did the founder of Marlin Gearworks die?"
    said = ["Brannock died in Pellsworth in 1933.", "Ysolde Brannock was born in Tewsby in 1861.",
            "Hobb Carrow died in 1940."]
    assert verb_about_bridge(q, said, [True, True, True], ["Ysolde Brannock"]) == [True, False, False]


def test_a_verb_ending_in_y_meets_its_inflections() -> None:
    q = "Whom did the founder of Marlin Gearworks marry?"
    said = ["In 1888 Ysolde Brannock married the engineer Hobb Carrow.", "Ysolde Brannock was born in Tewsby in 1861."]
    assert verb_about_bridge(q, said, [True, True], ["Ysolde Brannock"]) == [True, False]
