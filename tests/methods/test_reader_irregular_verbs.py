"""The question-verb rule (core/methods/question_verb.py) compared verbs by their first five letters, which meet a
regular verb's forms ("founded", "found") but not an irregular one's ("sink" / "sank", "written" / "wrote",
"buy" / "bought") nor the noun a sentence names the event by ("die" / "her death in 1951", "born" / "birth",
"sold" / "sale"). core/methods/verb_forms.py reads such a word as its verb first. Invented names below."""

from __future__ import annotations

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.base import Backends
from core.methods.extractive import pick_sentence
from core.methods.question_verb import _stem, asked_verb, other_verb_only, question_verbs, verb_about_bridge
from core.methods.verb_forms import BASE_VERBS, base_verb

LOOMS = ("w1", "Ostrel Looms", "Ostrel Looms is a weaving company founded in 1890 in Kellby by the weaver Hanna Brisk. "
         "It made sailcloth for the Kellby yards.")
BRISK = ("w2", "Hanna Brisk", "Hanna Brisk was a weaver born in Pellick in 1871. She trained in Ostrand before "
         "founding Ostrel Looms. Her death in 1951 closed the looms for a year.")
HYMN = ("h1", "Lowmere Hymn", "In 1890 the ship owner Tessa Marl commissioned the Lowmere Hymn, a hymn for the harbour "
        "chapel. Jory Vance wrote it in 1893.")
MARL = ("h2", "Tessa Marl", "Tessa Marl was a ship owner of Lowmere. She commissioned hymns and charts.")


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


def test_an_irregular_form_and_an_event_noun_read_as_their_verb() -> None:
    assert [base_verb(w) for w in ("sank", "Wrote", "written", "bought", "won", "led", "built", "taught")] == [
        "sink", "write", "write", "buy", "win", "lead", "build", "teach"]
    assert [base_verb(w) for w in ("death", "birth", "sale", "marriage")] == ["die", "born", "sell", "marry"]
    assert _stem("sold") == _stem("sell") and _stem("written") == _stem("wrote") and _stem("flew") == _stem("fly")
    # "found" is the founding verb of these passages, not "find"; a regular word is left as it is
    assert base_verb("found") == "found" and _stem("found") == _stem("founded")
    assert base_verb("Kellby") == "kellby"
    assert all(" " not in f and f == f.casefold() for f in BASE_VERBS)


def test_the_asked_irregular_verb_meets_its_past_form() -> None:
    q = "Whom did the weaver trained by Hanna Brisk teach?"
    assert question_verbs(q) == ("teach", ("train",))
    said = ["Ada Kell was trained by Hanna Brisk in Ostrand.", "Ada Kell taught the young weaver Ansel Drew."]
    assert other_verb_only(q, said, [True, True]) == [True, False]  # the training sentence ranks after the teaching


def test_a_participle_meets_the_simple_past() -> None:
    q = "In what year was the hymn commissioned by Tessa Marl written?"
    said = ["Tessa Marl commissioned the hymn in 1890.", "Jory Vance wrote the hymn in 1893."]
    assert other_verb_only(q, said, [True, True]) == [True, False]


def test_a_sale_is_what_sold_asks_about() -> None:
    q = "In what year was the mill founded by Hanna Brisk sold?"
    said = ["Hanna Brisk founded the mill in 1890.", "The mill's sale to the Vell Company was agreed in 1931."]
    assert other_verb_only(q, said, [True, True]) == [True, False]


@pytest.mark.parametrize(("q", "right", "wrong"), [
    ("When did the founder of Ostrel Looms die?", "Hanna Brisk's death in 1951 closed the looms.",
     "Hanna Brisk was born in Pellick in 1871."),
    ("In what year was the founder of Ostrel Looms born?", "The parish register gives Hanna Brisk's birth as 1871.",
     "Hanna Brisk died in 1951."),
    ("Which mill did the founder of Ostrel Looms buy?", "In 1901 Hanna Brisk bought the Pellick Mill.",
     "Hanna Brisk worked at the Kellby Mill."),
    ("Which prize did the founder of Ostrel Looms win?", "Hanna Brisk won the Silver Shuttle Prize in 1902.",
     "Hanna Brisk endowed the Ostrel Prize in 1920."),
    ("Which expedition did the founder of Ostrel Looms lead?", "In 1899 Hanna Brisk led the Sallow Expedition.",
     "Hanna Brisk joined the Tarn Expedition as its weaver."),
    ("Whom did the founder of Ostrel Looms teach?", "Hanna Brisk taught the young weaver Ansel Drew.",
     "Hanna Brisk married the carpenter Jonas Pell."),
    ("Which bridge did the founder of Ostrel Looms build?", "Hanna Brisk built the Kell Footbridge in 1911.",
     "Hanna Brisk crossed the Sallow Bridge daily."),
])
def test_the_bridge_said_with_the_asked_verb_in_another_form_comes_first(q: str, right: str, wrong: str) -> None:
    assert asked_verb(q), q
    assert verb_about_bridge(q, [right, wrong], [True, True], ["Hanna Brisk"]) == [True, False], q


def test_marriage_already_met_marry_and_still_does() -> None:
    q = "Whom did the founder of Ostrel Looms marry?"
    said = ["Hanna Brisk's marriage to the carpenter Jonas Pell lasted forty years.", "Hanna Brisk taught Ansel Drew."]
    assert verb_about_bridge(q, said, [True, True], ["Hanna Brisk"]) == [True, False]


def test_the_death_noun_answers_when_the_founder_died() -> None:
    """A guard: the cross-encoder already scored "death" high for "die" here; the rule must keep it first."""
    for order in ([LOOMS, BRISK], [BRISK, LOOMS]):
        pick = pick_sentence("When did the founder of Ostrel Looms die?", order, _backends())
        assert "death in 1951" in pick.text, pick.candidates[:3]


def test_the_writing_answers_when_the_hymn_was_written() -> None:
    for order in ([HYMN, MARL], [MARL, HYMN]):
        pick = pick_sentence("In what year was the hymn commissioned by Tessa Marl written?", order, _backends())
        assert pick.text == "Jory Vance wrote it in 1893.", pick.candidates[:3]  # the base: the commission sentence
