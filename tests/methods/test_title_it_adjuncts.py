"""Which leading "It"/"Its" of a passage the extractive answer shows as the passage title (core/methods/title_it.py):
a place or a passive's agent in an adjunct of the sentence before does not block it, "Its" and "In 1971 it" read
the same way, a PERSON tag alone does not make the title a person, and an object still blocks it."""

from __future__ import annotations

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm
from core.methods.base import Backends
from core.methods.extractive import _title_is_person, antecedents, pick_sentence
from core.methods.title_it import title_its, without_settings
from core.text import split_sentences


def _shown(title: str, text: str, question: str) -> list[str]:
    """Every candidate sentence of the passage as the answer would show it."""
    pick = pick_sentence(question, [("c1", title, text)], Backends(HashingEmbedder(), get_llm("none")))
    return [c.shown or c.sentence for c in pick.candidates]


def _its(title: str, text: str) -> list[str]:
    sents = [s.strip() for s in split_sentences(text)]
    return title_its(sents, title, antecedents(sents, title), title_is_person=_title_is_person(sents, title))


@pytest.mark.parametrize(("title", "text", "shown"), [
    # places in "between … and …" of a sentence whose subject is the title
    ("Veldmoor Glider Rally", "The Veldmoor Glider Rally was first held in 1931 between Kelmsby and Dunholt. It was won "
                              "by Arvo Lintz flying a Swallow monoplane.",
     "It [Veldmoor Glider Rally] was won by Arvo Lintz flying a Swallow monoplane."),
    # a place and a passive's agent, then "Its"
    ("Pellow Sailing School", "Pellow Sailing School was opened in 1950 at Harlby Harbour by Tarn Shipping. Its first "
                              "teacher was Ada Wrenfold.",
     "Its [Pellow Sailing School’s] first teacher was Ada Wrenfold."),
    # a definition, then "Its" (the possessive of a name ending in s)
    ("Brindle Ropeworks", "Brindle Ropeworks is a rope maker founded in 1890 in Harlby by Osric Pellam. Its best-known "
                          "rope is the Tarn Hawser.",
     "Its [Brindle Ropeworks’] best-known rope is the Tarn Hawser."),
    # a lower-case "it" after an opening phrase
    ("Kite Post", "Kite Post was a courier firm founded in 1960 by Lena Vossberg. In 1971 it was sold to Tarn Shipping.",
     "In 1971 it [Kite Post] was sold to Tarn Shipping."),
    # "on the northern shore of …": a setting, not a thing the "Its" stands for
    ("Oxley Airfield", "Oxley Airfield opened in 1936 on the northern shore of Harlby Water. Its main hangar was "
                       "designed by Ada Wrenfold.",
     "Its [Oxley Airfield’s] main hangar was designed by Ada Wrenfold."),
])
def test_it_after_an_adjunct_or_as_its_reads_as_the_title(title: str, text: str, shown: str) -> None:
    assert shown in _shown(title, text, f"Who is named in the passage about {title}?")


@pytest.mark.parametrize(("title", "text"), [
    # an object may be what "It" stands for ("It burned down" is the granary's)
    ("Harlby Mills", "Harlby Mills bought the old granary in 1930. It burned down in 1950."),
    # no passive: "by the river" is no agent, so the river may be the "It"
    ("Harlby Mills", "Harlby Mills built the granary by the river in 1930. It flooded in 1950."),
    # a person's passage: "It" is not the person
    ("Ada Wrenfold", "Ada Wrenfold was born in Harlby in 1901. She founded Kite Post. It was sold in 1971."),
])
def test_no_title_where_it_may_be_another_thing_or_the_title_is_a_person(title: str, text: str) -> None:
    assert not [s for s in _shown(title, text, "What happened in 1950?") if "[" in s and s.startswith("It")]


def test_adjuncts_of_place_and_agent_are_dropped_but_objects_stay() -> None:
    assert without_settings(" was first held in 1931 between Kelmsby and Dunholt.") == " was first held."
    assert without_settings(" was opened in 1950 at Harlby Harbour by Tarn Shipping.") == " was opened."
    assert "Oxley granary" in without_settings(" bought the Oxley granary in 1930.")
    assert "river" in without_settings(" built the granary by the river.")


def test_a_passage_opening_with_its_title_then_he_is_about_that_person() -> None:
    """"Eskil Varn inherited the Vell Tannery from his father. He married …": the "He" continues the subject."""
    text = "Eskil Varn inherited the Vell Tannery from his father. He married Ines Carrow in 1902."
    assert "He [Eskil Varn] married Ines Carrow in 1902." in _shown("Eskil Varn", text, "Whom did he marry?")
    # another person named first: the "He" may be that one, so no title reading
    other = "Vell Tannery was sold to Ansel Drewitt. He married Ines Carrow in 1902."
    assert "He [Vell Tannery] married Ines Carrow in 1902." not in _shown("Vell Tannery", other, "Whom did he marry?")
    assert _its("Vell Tannery", "Vell Tannery was founded in 1850. It closed in 1921.") == ["", "Vell Tannery"]
