"""A description through a thing named in lower case resolves too: "the inventor of the bellows regulator" and "the
architect of the old customs house" are whoever a sentence naming "the bellows regulator" / "the old customs house"
says invented / designed it (an invented organ-works corpus: every method quoted "it fitted the bellows regulator to
every instrument" and "the city's best-known building is the old customs house", never the person's birth)."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.base import Backends
from core.methods.bridges import clause_bridges
from core.methods.extractive import pick_sentence

WORKS = ("w", "Tarrowby Organ Works", "Its reputation grew after 1883, when it fitted the bellows regulator to every "
         "instrument it sold. The bellows regulator was invented by the organ builder Teodric Saule, who licensed it "
         "to the works for a small fee on each organ.")
SAULE = ("s", "Teodric Saule", "Teodric Saule was an organ builder and inventor. He was born in 1856 in Lindqvar, a "
         "harbour town in Ostravia. He died in 1929 in Lindqvar.")
ARDENCY = ("a", "Ardency", "Ardency is a port city at the mouth of the valley. The city's best-known building is the "
           "old customs house on the Long Quay. The old customs house was designed by the architect Selma Quaide and "
           "completed in 1889.")
QUAIDE = ("q", "Selma Quaide", "Selma Quaide was an architect. She was born in 1852 in Fennick, a mill town in the "
          "north. She died in 1927.")


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


def test_the_inventor_of_a_lower_case_thing():
    got = clause_bridges("In what year was the inventor of the bellows regulator born?", [WORKS[2].split(". ")[1]])
    assert [(q, name) for q, name, _, _ in got] == [
        ("In what year was the inventor Teodric Saule born?", "Teodric Saule")]


def test_the_architect_of_a_thing_with_an_adjective():
    got = clause_bridges("Where was the architect of the old customs house born?",
                         ["The old customs house was designed by the architect Selma Quaide and completed in 1889."])
    assert [name for _, name, _, _ in got] == ["Selma Quaide"]


def test_a_thing_no_sentence_names_resolves_nothing():
    assert clause_bridges("Where was the architect of the old customs house born?",
                          ["The new town hall was designed by the architect Selma Quaide."]) == []


def test_a_single_lower_case_word_is_no_thing():
    # "the architect of the church" names no one thing: one word is left to the question as asked
    assert clause_bridges("Where was the architect of the church born?",
                          ["The church was designed by the architect Selma Quaide."]) == []


def test_the_birth_sentences_are_quoted():
    pick = pick_sentence("In what year was the inventor of the bellows regulator born?", [WORKS, SAULE], _backends())
    assert "1856" in pick.text, pick.candidates[:3]
    pick = pick_sentence("Where was the architect of the old customs house born?", [ARDENCY, QUAIDE], _backends())
    assert "Fennick" in pick.text, pick.candidates[:3]
