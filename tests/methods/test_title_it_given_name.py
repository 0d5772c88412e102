"""An audit's none-mode answer "Its first winner was Marta Kessling in 1924." (the passage "Golden String": "The Golden
String is a prize awarded at …") kept a bare "Its": the title's first word is in the given-name lists, so the passage
read as a person's and its "It"/"Its" were never the title's (core/methods/title_it.py, rule 1). A title the passage
writes after "the" is no person's name. Invented names below."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.base import Backends
from core.methods.extractive import pick_sentence
from core.methods.title_it import a_person, title_its
from core.text import named_person

THIMBLE = ("g1", "Silver Thimble", "The Silver Thimble is a prize awarded at the Lowmere Sewing Fair. Its first "
           "winner was Agnes Tilby in 1931.")
FAIR = ("g2", "Lowmere Sewing Fair", "The Lowmere Sewing Fair is held every spring in Lowmere. It awards the Silver "
        "Thimble prize.")


def test_a_title_written_after_the_is_no_person_whatever_its_first_word() -> None:
    sents = ["The Silver Thimble is a prize awarded at the Lowmere Sewing Fair.",
             "Its first winner was Agnes Tilby in 1931."]
    assert named_person("Silver Thimble")  # "Silver" is a given name in the lists: why it read as a person
    assert not a_person(sents, "Silver Thimble")
    assert title_its(sents, "Silver Thimble", ["", ""], title_is_person=True) == ["", "Silver Thimble"]


def test_a_given_name_without_the_article_is_still_a_person() -> None:
    sents = ["Silver Ashdown founded the Lowmere Sewing Fair in 1902.", "Its first prize went to Agnes Tilby."]
    assert a_person(sents, "Silver Ashdown")
    assert title_its(sents, "Silver Ashdown", ["", ""], title_is_person=True) == ["", ""]


def test_the_prize_s_first_winner_shows_the_prize() -> None:
    backends = Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))
    pick = pick_sentence("Who was the first winner of the prize awarded at the Lowmere Sewing Fair?",
                         [FAIR, THIMBLE], backends)
    assert pick.text == "Its [Silver Thimble’s] first winner was Agnes Tilby in 1931.", pick.candidates[:3]
