"""A resolved bridge's own question: once "the founder of X" is known, a sentence about X itself no longer answers
"which city was the founder of X born in?" (core.methods.extractive, rule 3)."""

from __future__ import annotations

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm
from core.methods.base import Backends
from core.methods.extractive import about_replaced, pick_sentence

BELLS = ("c1", "Marlow Bell Works", "Marlow Bell Works was a bell foundry in the city of Dunhallow. Its founder was "
         "Edric Vane, who cast the first bells in 1790. In 1850 the works were sold to Tolland Metals.")
VANE = ("c2", "Edric Vane", "Edric Vane was a bellmaker born in Corran. He founded Marlow Bell Works in 1788 and died "
        "in 1831.")


@pytest.mark.parametrize("query, passages, bridge, answer", [
    # an agent noun ("the founder of X"): the sentence naming X and "city" outscored the founder's birthplace
    ("Which city was the founder of Marlow Bell Works born in?", [BELLS, VANE], "Edric Vane", "Corran"),
    # a relational noun ("the wife of X"): X's own town is not where his wife was born
    ("Which town was the wife of Edric Vane born in?",
     [("c1", "Edric Vane", "Edric Vane was a bellmaker who lived in the town of Dunhallow. He cast the bells of "
                           "Saint Osric's church."),
      ("c2", "Mira Holt", "Mira Holt was a weaver born in Pennick. She was the wife of Edric Vane and ran his "
                          "workshop after 1831.")], "Mira Holt", "Pennick"),
])
def test_a_sentence_about_the_bridged_entity_does_not_answer_for_the_bridge(query, passages, bridge, answer):
    pick = pick_sentence(query, passages, Backends(HashingEmbedder(), get_llm("none")))
    assert any(b.startswith(bridge) for b in pick.bridges), pick.bridges
    assert answer in pick.text, pick.trace_data()
    assert "Dunhallow" not in pick.text


def test_only_readings_about_the_replaced_entity_alone_are_read_by_the_rewrite():
    query = "Which city was the founder of Marlow Bell Works born in?"
    bridges = [("Which city was the founder Edric Vane born in?", "Edric Vane")]
    readings = ["Marlow Bell Works was a bell foundry in the city of Dunhallow.",  # about X alone
                "Marlow Bell Works's founder was Edric Vane.",  # the first hop names the bridge too
                "Edric Vane was a bellmaker born in Corran.",
                "Vane, the founder of Marlow Bell Works, was born in Corran.",  # the bridge by its surname
                "Tolland Metals is a company in the city of Harwick."]  # names neither: both questions score it
    assert about_replaced(query, bridges, readings).tolist() == [True, False, False, False, False]
    assert not about_replaced(query, [], readings).any()  # no bridge: the question as asked scores every sentence
    # a rewrite that keeps the name of X replaced nothing
    assert not about_replaced("Who founded Marlow Bell Works?", [("Who founded Marlow Bell Works?", "Edric Vane")],
                              readings).any()


def test_without_the_second_hop_the_answer_says_so_instead_of_naming_the_entitys_own_city():
    """The founder's passage not handed (PPR ranked it 6th of a budget of 5): "… in the city of Dunhallow" names a city,
    but the foundry's, so it names no answer and the first hop is shown with a note that nothing answers the rest."""
    pick = pick_sentence("Which city was the founder of Marlow Bell Works born in?", [BELLS],
                         Backends(HashingEmbedder(), get_llm("none")))
    assert "Dunhallow" not in pick.text and "Edric Vane" in pick.text, pick.trace_data()
    assert "only resolves what the question describes" in pick.note
    assert not next(c for c in pick.candidates if "Dunhallow" in c.sentence).typed
