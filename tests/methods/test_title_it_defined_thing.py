"""Audit 58: HippoRAG 2's and ReG's no-LLM answer quoted "It was founded in 1838 by Benedikt Corvin …" bare, "It"
standing for nothing on the page: spaCy's small model tags "Corvin Glassworks" PERSON in "Corvin Glassworks was a glass
factory in Halvard …", so the passage read as a person's and its "It" never the title (core/methods/title_it.py, rule
1). A passage whose first sentence defines its title as a place, a body or a firm is no person's
(:func:`core.methods.title_it.defined_as_thing`). The audit's passage, then invented ones."""

from __future__ import annotations

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.base import Backends
from core.methods.extractive import _title_is_person, pick_sentence
from core.methods.title_it import defined_as_thing
from core.text import split_sentences

CORVIN = ("c1", "Corvin Glassworks", "Corvin Glassworks was a glass factory in Halvard, on the lower Skelde. It was "
          "founded in 1838 by Benedikt Corvin, a former sailor who had learned glassblowing in the ports of the south. "
          "He built two furnaces beside the river, where barges could bring sand and potash to the door.")


@pytest.mark.parametrize("first, title", [
    ("Corvin Glassworks was a glass factory in Halvard, on the lower Skelde.", "Corvin Glassworks"),
    ("Odell Foods is a company headquartered in the city of Tarrow.", "Odell Foods"),
    ("Agnes Brewery was a small brewery on the quay at Wick.", "Agnes Brewery"),
])
def test_a_title_defined_as_a_firm_or_a_place_is_no_person(first: str, title: str) -> None:
    assert defined_as_thing([first], title)
    assert not _title_is_person(split_sentences(first + " It was founded in 1838."), title)


@pytest.mark.parametrize("first, title", [
    ("John Hall was a painter in Wick.", "John Hall"),  # a surname that is a body's word: a person's noun defines him
    ("Ada Mill was an engineer at the Wick foundry.", "Ada Mill"),
    ("Lothair II was the second son of the Emperor Lothair I.", "Lothair II"),
    ("Nora Bank (1850-1920) was a weaver.", "Nora Bank"),  # not a definition this rule reads: left as it was
])
def test_a_person_defined_by_a_person_s_noun_stays_a_person(first: str, title: str) -> None:
    assert not defined_as_thing([first], title)


def test_the_works_it_is_shown_with_the_title() -> None:
    backends = Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))
    pick = pick_sentence("When was Corvin Glassworks founded?", [CORVIN], backends)
    assert pick.text.startswith("It [Corvin Glassworks] was founded in 1838"), pick.candidates[:3]
