"""An audit's "When did the founder of the Northern Grain Cooperative die?" was answered by every method with the
founding sentence ("… was founded in Lautmar in 1912 by the farmer Edda Rune."), though the founder's passage said
"She died in 1960 in Lautmar.". Two rules missed it: the agent "by the farmer Edda Rune" stood seven words after
"founded", past the six-word reach of the bridge rule (core/methods/bridges.py), so no founder was found; and spaCy
tagged the question's last word "die" a noun, so the question-verb rule (core/methods/question_verb.py) saw no verb.
Invented names below."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.base import Backends
from core.methods.bridges import clause_bridges
from core.methods.extractive import pick_sentence
from core.methods.question_verb import asked_verb, question_verbs

COOP = ("p1", "Southern Wool Cooperative", "The Southern Wool Cooperative was founded in Ostrand in 1907 by the weaver "
        "Mira Holt. It bought looms along the Vell river.")
FOUNDER = ("p2", "Mira Holt", "Mira Holt was a weaver born in Pellick in 1871. She died in 1951 in Ostrand. She "
           "founded the Southern Wool Cooperative with her two sisters.")
Q = "When did the founder of the Southern Wool Cooperative die?"


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


def test_an_agent_after_a_role_noun_and_a_long_adjunct_is_the_founder() -> None:
    found = clause_bridges(Q, ["The Southern Wool Cooperative was founded in Ostrand in 1907 by the weaver Mira Holt."])
    assert [name for _, name, _, _ in found] == ["Mira Holt"]


def test_an_agent_too_far_from_the_verb_is_still_no_founder() -> None:
    far = "The Southern Wool Cooperative was founded in the small harbour town of Ostrand in 1907 by Mira Holt."
    assert clause_bridges(Q, [far]) == []


def test_the_word_after_did_is_the_asked_verb_whatever_its_tag() -> None:
    for q in (Q, "When did the founder of the Tallow Bay Cooperative die?",
              "Where did the founder of the Lower Barley Cooperative retire?"):
        assert asked_verb(q) in ("die", "retir"), q
        assert question_verbs(q)[0] in ("die", "retir"), q
    assert asked_verb("Who owned the die?") == ""  # no do-support: a noun stays a noun
    # the question's verb is "become", not the preposition it ends on
    assert asked_verb("Who won the Vell Cup, and which airline did he later become chief pilot of?") != "of"


def test_the_death_sentence_answers_when_the_founder_died() -> None:
    for order in ([COOP, FOUNDER], [FOUNDER, COOP]):
        pick = pick_sentence(Q, order, _backends())
        assert pick.text.startswith("She [Mira Holt] died in 1951"), pick.candidates[:3]
