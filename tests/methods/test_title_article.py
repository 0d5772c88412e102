"""A passage whose title opens with "The" shows that title as written in the bracket of a leading "It"
(core/methods/title_it.py, ``is_title``): an audit read "It [Matrix] stars …" in the passage "The Matrix". Invented names."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm
from core.methods.base import Backends
from core.methods.extractive import _title_is_person, antecedents, pick_sentence
from core.methods.title_it import title_its
from core.text import split_sentences

LANTERN = ("The Glass Lantern is a 1962 mystery film directed by Oda Marrin. It stars Pell Audry as the keeper and "
           "Wynn Corsa as the thief. The keeper finds the lantern broken.")


def _shown(title: str, text: str) -> list[str]:
    sents = [s.strip() for s in split_sentences(text)]
    return title_its(sents, title, antecedents(sents, title), title_is_person=_title_is_person(sents, title))


def test_a_title_with_its_article_is_shown_whole() -> None:
    assert _shown("The Glass Lantern", LANTERN)[1] == "The Glass Lantern"
    pick = pick_sentence("Who stars in The Glass Lantern as the thief?", [("c1", "The Glass Lantern", LANTERN)],
                         Backends(HashingEmbedder(), get_llm("none")))
    assert pick.text.startswith("It [The Glass Lantern] stars Pell Audry"), pick.candidates[:3]


def test_a_title_without_the_article_and_another_thing_keep_their_readings() -> None:
    # the title written without "The": the bracket is the title as written
    assert _shown("Glass Lantern", LANTERN)[1] == "Glass Lantern"
    # a named thing that is not the title stays the thing the sentence before opens with
    assert _shown("Ferries of the Pellow", "The Brown Ox was a ferry. It worked the Pellow Reach crossing.") == [
        "", "Brown Ox"]


def test_a_titles_disambiguation_is_no_word_of_the_bracket() -> None:
    """The demo read "It [Speed (1994 film)] stars Keanu Reeves …": the title's "(1994 film)" tells passages apart,
    the sentence names the film "Speed"."""
    from core.methods.extractive import bracketed

    assert bracketed("It stars Pell Audry.", "Glass Lantern (1962 film)") == "It [Glass Lantern] stars Pell Audry."
    assert bracketed("Its keeper was Wynn Corsa.", "Glass Lanterns (band)") == "Its [Glass Lanterns’] keeper was Wynn Corsa."
    assert bracketed("He sang.", "Oda (Marrin) Vell") == "He [Oda (Marrin) Vell] sang."  # not at the end: kept
