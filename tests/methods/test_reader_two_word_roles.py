"""An agent's role noun may be two words: "founded in 1874 by the cabinet maker Aurelio Brandt" names the founder as
"founded by the maker Aurelio Brandt" does (an invented organ-works corpus: every method quoted the founding sentence
for "In what year was the founder of Tarrowby Organ Works born?", the founder never resolved)."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.base import Backends
from core.methods.bridges import clause_bridges
from core.methods.extractive import pick_sentence

WORKS = ("w", "Tarrowby Organ Works", "Tarrowby Organ Works is an organ-building workshop in the town of Kelsing. It "
         "was founded in 1874 by the cabinet maker Aurelio Brandt, who had spent ten years repairing church instruments.")
BRANDT = ("b", "Aurelio Brandt", "Aurelio Brandt was a cabinet maker and organ builder. He was born in 1841 in "
          "Morvaine, a village of charcoal burners. He retired in 1899 and died in Kelsing in 1902.")


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


def test_a_two_word_role_before_the_agent_names_the_founder():
    got = clause_bridges("In what year was the founder of Tarrowby Organ Works born?",
                         ["Tarrowby Organ Works was founded in 1874 by the cabinet maker Aurelio Brandt."])
    assert [name for _, name, _, _ in got] == ["Aurelio Brandt"]


def test_a_two_word_role_after_a_converse_verb_names_the_buyer():
    got = clause_bridges("Where was the merchant who bought the Kesk Mill born?",
                         ["In 1931 the Kesk Mill was sold to the shipping merchant Ivo Corlan."])
    assert [name for _, name, _, _ in got] == ["Ivo Corlan"]


def test_three_words_before_the_name_are_still_no_role():
    # "by the end of the war Ivo Corlan": a role noun reach of two words, not any phrase after "by"
    got = clause_bridges("In what year was the founder of Tarrowby Organ Works born?",
                         ["Tarrowby Organ Works was founded in 1874 by a very old local man Aurelio Brandt."])
    assert got == []


def test_the_founders_birth_year_is_quoted():
    pick = pick_sentence("In what year was the founder of Tarrowby Organ Works born?", [WORKS, BRANDT], _backends())
    assert "1841" in pick.text, pick.candidates[:3]
