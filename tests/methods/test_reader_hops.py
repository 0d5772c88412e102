"""The extractive answer's reading of a two-hop question where the gold passage was handed but another sentence won
(core.methods.bridges, core.methods.answer_types, core.methods.extractive rule 3/4): a description by what a firm did
to a thing named in lower case ("the mill that ground the barley flour"), a role placed in time ("the former
apprentice of X") and stated by "as" ("trained as an apprentice at X"), a town named only as someone's birthplace, a
company whose name ends in "Trust", and a "He" after a sentence whose subject a kinship apposition names."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm
from core.methods.answer_types import typed_mentions
from core.methods.base import Backends
from core.methods.bridges import clause_bridges
from core.methods.extractive import antecedents, pick_sentence


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"))


def test_a_firm_described_by_what_it_did_to_a_lower_case_thing_is_resolved():
    q = "Which company bought the mill that ground the barley flour after the flood of 1877?"
    said = "After the flood the bakery was rebuilt to use barley flour ground by Tarrow Milling."
    bridges = clause_bridges(q, ["The flood of 1877 closed the bakery for a year.", said])
    assert [(b[0], b[1]) for b in bridges] == [
        ("Which company bought the mill Tarrow Milling after the flood of 1877?", "Tarrow Milling")], bridges
    # one lower-case word ("the film") names no one thing: nothing is resolved from it
    assert clause_bridges("Who founded the studio that made the film?", ["The film was made by Harlow Pictures."]) == []


def test_a_former_role_stated_by_as_is_resolved():
    q = "Who ran the tramway founded by the former apprentice of the Welby Coach Works after 1930?"
    sents = ["Ansel Crake had trained as an apprentice at the Welby Coach Works before he left for the hills.",
             "Hobb Valley Tramway's founder was Ansel Crake."]
    bridges = clause_bridges(q, sents)
    assert [b[0] for b in bridges] == ["Who ran the tramway founded by Ansel Crake after 1930?",
                                       "Who ran the Hobb Valley Tramway after 1930?"], bridges


def test_a_company_named_as_a_trust_answers_which_company():
    s = "It was founded in 1888 by Corin Haske and was sold to the Pellan Valley Trust in 1919."
    assert typed_mentions(s, "named:company", names=True) == ["Pellan Valley Trust"]
    assert typed_mentions("It was sold to Pellan Valley in 1919.", "named:company", names=True) == []


def test_a_town_named_only_as_a_birthplace_is_a_place():
    assert "Wendlow" in typed_mentions("Wendlow is known as the birthplace of Osmer Vall.", "place", names=True)
    # the pronoun is no name: "It is known as …" types nothing by itself
    assert typed_mentions("It is known as the birthplace of Osmer Vall.", "place", names=True) == []


def test_he_after_a_kinship_apposition_is_the_subject_not_the_parent():
    sents = ["Ivo Crake, the son of Ansel Crake, managed the Hobb Valley Tramway from 1920.",
             "He was born in Wendlow in 1886."]
    # the passage is about its title, a person: "He" is Ivor, not the father the sentence named last
    assert antecedents(sents, "Ivo Crake")[1] != "Ansel Crake"


def test_the_third_hop_answers_and_is_not_called_the_first_hop():
    q = "Who ran the tramway founded by the former apprentice of the Welby Coach Works from 1920?"
    passages = [("c1", "Ansel Crake", "Ansel Crake was born in Welby in 1855. He had trained as an apprentice at the "
                                      "Welby Coach Works before founding a tramway of his own."),
                ("c2", "Ivo Crake", "Ivo Crake, the son of Ansel Crake, ran the Hobb Valley Tramway from 1920. He was "
                                     "born in Wendlow in 1886."),
                ("c3", "Hobb Valley Tramway", "The Hobb Valley Tramway was built in 1897. Its founder was Ansel Crake.")]
    pick = pick_sentence(q, passages, _backends())
    assert any(b.startswith("Ansel Crake") for b in pick.bridges), pick.bridges
    assert "Ivo Crake" in pick.text, pick.trace_data()
    assert "only resolves" not in pick.note, pick.note
