"""The spaCy extractor's simple coreference and its appositive names, on the sentences an audit of a
user corpus found wrong: "It" after a sentence about the lighthouse is the lighthouse, not the
passage's title, and "designed by the engineer Sofia Marrow" is no "Vellmora is Sofia Marrow"."""

from __future__ import annotations

import pytest

from core.backends.spacy_extractor import SpacyExtractor


@pytest.fixture(scope="module")
def ex() -> SpacyExtractor:
    return SpacyExtractor(n_process=1)


def triples(ex: SpacyExtractor, passage: str) -> set[tuple[str, str, str]]:
    return {(t.head, t.relation, t.tail) for t in ex.extract([passage])[0]}


LIGHTHOUSE = ("Vellmora\nThe Vellmora lighthouse stands on the rocky point west of the harbour. It was designed "
              "by the engineer Sofia Marrow and was first lit in 1850.")
BRIDGE = ("Ostra River\nThe Ostra bridge at Vellmora was built in 1866 to a design by Sofia Marrow. "
          "It replaced a wooden ferry landing.")


def test_it_is_the_previous_sentences_subject_not_the_title(ex):
    got = triples(ex, LIGHTHOUSE)
    assert ("Vellmora lighthouse", "designed by", "Sofia Marrow") in got
    assert ("Vellmora lighthouse", "lit in", "1850") in got
    assert not any(h == "Vellmora" and t == "Sofia Marrow" and r != "mentions" for h, r, t in got), got
    got = triples(ex, BRIDGE)
    assert ("Ostra bridge", "replaced", "wooden ferry landing") in got
    assert not any(h == "Ostra River" and r == "replaced" for h, r, _ in got), got


def test_a_chain_of_pronouns_keeps_the_antecedent(ex):
    got = triples(ex, BRIDGE + " It was rebuilt in 1950.")
    assert ("Ostra bridge", "rebuilt in", "1950") in got


def test_he_is_a_person_subject_it_falls_back_to_the_title(ex):
    got = triples(ex, "Tarnby\nAldo Marrow was a clockmaker in Tarnby. He was born in Edinburgh.")
    assert ("Aldo Marrow", "born in", "Edinburgh") in got and ("Tarnby", "born in", "Edinburgh") not in got
    # "It" cannot be the person of the previous sentence: it stays the passage's title
    got = triples(ex, "The Matrix\nKeanu Reeves was cast in 1998. It was directed by the Wachowskis.")
    assert ("The Matrix", "directed by", "Wachowskis") in got
    assert not any(h == "Keanu Reeves" and r == "directed by" for h, r, _ in got), got
    # "She" after a sentence whose subject is no person is the title, as before
    got = triples(ex, "Sofia Marrow\nThe Vellmora lighthouse was her best known work. She was born in Tarnby.")
    assert ("Sofia Marrow", "born in", "Tarnby") in got


def test_a_name_after_its_role_noun_is_the_object(ex):
    """"founded by the sea captain Idris Kalden": the captain is Idris Kalden, not the passage's title."""
    got = triples(ex, "Vellmora\nVellmora is a harbour town on the northern coast of the Gulf of Rennick. It was "
                      "founded in 1712 by the sea captain Idris Kalden, who built the first stone quay there.")
    assert ("Vellmora", "founded by", "Idris Kalden") in got
    assert ("Vellmora", "is", "Idris Kalden") not in got and ("Vellmora", "is", "harbour town") in got
    got = triples(ex, "Tarnby\nAldo Marrow, the father of the engineer Sofia Marrow, was a clockmaker in Tarnby.")
    assert not any(h == "Tarnby" and t == "Sofia Marrow" and r != "mentions" for h, r, t in got), got


CAPTAINS = ("Captains of the Tessany\nOrla Brisk was the longest-serving captain of the Tessany Ferry Company. She "
            "was born in the fishing village of Kellsworth in 1868. She commanded the ferry Grey Heron from 1895 "
            "until 1931.")


def test_she_is_a_name_the_model_tags_otherwise_when_it_begins_with_a_given_name(ex):
    """An audit's corpus: the small model tags "Orla Brisk" ORG, so "She commanded the ferry Grey Heron" went to
    the passage's title and no path joined her to her ferry (SG-RAG and the graph walks lost the question)."""
    got = triples(ex, CAPTAINS)
    assert ("Orla Brisk", "commanded", "Grey Heron") in got and ("Orla Brisk", "born in", "1868") in got
    assert not any(h == "Captains of the Tessany" and r != "mentions" for h, r, _ in got), got
    # a name whose first word is no given name stays as the model tags it: "She" after it is the title
    got = triples(ex, "Kellsworth Harbour\nKellsworth Ferries was founded in 1868. She sailed at dawn.")
    assert not any(h == "Kellsworth Ferries" and r == "sailed at" for h, r, _ in got), got


def test_a_bare_noun_object_keeps_its_preposition_object(ex):
    """"She took command of the ferry Silver Eel": the noun alone ("command") is no mention; the ferry was lost."""
    got = triples(ex, "Captains of the Tessany\nEdda Thorne took command of the ferry Silver Eel in 1921.")
    assert ("Edda Thorne", "took command of", "Silver Eel") in got
    got = triples(ex, "Awards\nMara Hollis won the award for best actor.")
    assert not any("award for" in r for _, r, _ in got), got  # an object with its determiner keeps its own reading


def test_it_after_a_proper_name_with_the_is_that_thing(ex):
    """"The Grey Heron was a steam ferry … It was scrapped in 1940": the small model tags "The Grey Heron" PERSON and
    "Silver" is a given name, yet a proper name after "the" is a thing; "it" went to the passage's title (an audit)."""
    got = triples(ex, "Ferries and Landings\nThe Grey Heron was a steam ferry built in 1894 at the Kellsworth boatyard. "
                      "It carried up to sixty passengers on the Pellow Reach crossing. It was scrapped in 1940.")
    assert ("Grey Heron", "scrapped in", "1940") in got and ("Grey Heron", "carried up to", "sixty passengers") in got
    got = triples(ex, "Ferries and Landings\nThe Silver Eel was the company's first screw-driven ferry. It was "
                      "launched in 1920.")
    assert ("Silver Eel", "launched in", "1920") in got
    assert not any(h == "Ferries and Landings" and r != "mentions" for h, r, _ in got), got
