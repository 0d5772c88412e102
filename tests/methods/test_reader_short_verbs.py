"""Short verbs in a question's description and at its end (an invented organ-works corpus, none mode):

- "the town where Aurelio Brandt died" resolves by "… died in Kelsing in 1902": a verb too short for a five-letter
  stem ("died", "won") is its own word, where no bridge was found and every method quoted the death sentence for
  "Which river does the town where Aurelio Brandt died lie on?";
- "In what year did the workshop that Aurelio Brandt founded move?" asks about the move: spaCy tags "move" a noun after
  the description's "founded", and the founding year was quoted;
- "the River Auberle" is a place for "Which river …?" though the small model tags it none."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.answer_types import typed_mentions
from core.methods.base import Backends
from core.methods.bridges import clause_bridges
from core.methods.extractive import pick_sentence
from core.methods.question_verb import asked_verb, other_verb_only, question_verbs

BRANDT = ("b", "Aurelio Brandt", "Aurelio Brandt was a cabinet maker and organ builder. He was born in 1841 in "
          "Morvaine. He retired in 1899 and died in Kelsing in 1902.")
KELSING = ("k", "Kelsing", "Kelsing is a market town in the upper valley. It lies on the River Auberle, at the point "
           "where the old salt road crossed the water by a ford. The town was founded in 1620 by Mira Tolland.")
WORKS = ("w", "Tarrowby Organ Works", "Tarrowby Organ Works is an organ-building workshop in the town of Kelsing. It "
         "was founded in 1874 by the cabinet maker Aurelio Brandt. The old barn on Mill Lane was pulled down in 1934, "
         "and the workshop moved to a brick hall beside the station.")


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


def test_a_short_verb_of_a_description_resolves_its_place():
    got = clause_bridges("Which river does the town where Aurelio Brandt died lie on?",
                         ["Aurelio Brandt retired in 1899 and died in Kelsing in 1902."])
    assert [(q, name) for q, name, _, _ in got] == [("Which river does the town Kelsing lie on?", "Kelsing")]


def test_the_river_of_the_town_where_he_died():
    pick = pick_sentence("Which river does the town where Aurelio Brandt died lie on?", [BRANDT, KELSING], _backends())
    assert "River Auberle" in pick.text, pick.candidates[:3]
    assert "no sentence of the top passages names a place" not in pick.note


def test_who_founded_the_town_where_he_died():
    pick = pick_sentence("Who founded the town where Aurelio Brandt died?", [BRANDT, KELSING], _backends())
    assert "Mira Tolland" in pick.text, pick.candidates[:3]


def test_a_final_verb_tagged_a_noun_after_a_description_verb():
    q = "In what year did the workshop that Aurelio Brandt founded move?"
    assert question_verbs(q) == ("move", ("found",))
    assert asked_verb("Which river does the town where Aurelio Brandt died lie on?") == "lie"
    # a bare verb between is no description's: "go public" asks nothing of "public"
    assert question_verbs("In what year did the company go public?") == ("", ())


def test_a_short_asked_verb_meets_its_inflection():
    q = "In what year did the workshop that Aurelio Brandt founded move?"
    sents = ["It was founded in 1874 by the cabinet maker Aurelio Brandt.",
             "The old barn was pulled down in 1934, and the workshop moved to a brick hall."]
    assert other_verb_only(q, sents, [True, True]) == [True, False]


def test_the_move_year_is_quoted_not_the_founding():
    pick = pick_sentence("In what year did the workshop that Aurelio Brandt founded move?", [WORKS], _backends())
    assert "1934" in pick.text, pick.candidates[:3]


def test_a_river_or_lake_named_as_such_is_a_place():
    assert typed_mentions("It lies on the River Auberle, at the ford.", "place", names=True) == ["River Auberle"]
    assert "Lake Orm" in typed_mentions("The village stands near Lake Orm.", "place", names=True)
    assert typed_mentions("The Brisk River Company was founded in 1901.", "place", names=True) == []


def test_a_function_word_after_the_first_name_is_no_verb():
    # "the movie where Keanu Reeves and Laurence Fishburne starred": "and" names no event, so no bridge to Fishburne
    got = clause_bridges("Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred "
                         "together?", ["Keanu Reeves and Laurence Fishburne played in The Matrix."])
    assert got == []
