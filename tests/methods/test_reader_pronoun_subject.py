"""Whom the extractive answer reads a passage's "He" as (core.methods.pronoun_subjects, core.methods.extractive rule 5),
which city a description names ("the harbour city of X", core.methods.answer_types), and the question's own verb
against its description's (core.methods.question_verb): "He married Odile Fenwright in 1869. He died in Orlesby in
1910." was shown as "He [Odile Fenwright] died …" and answered where the founder's wife was from."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.answer_types import typed_mentions
from core.methods.base import Backends
from core.methods.extractive import antecedents, pick_sentence
from core.methods.question_verb import other_verb_only, question_verbs

LUCAN = ("Lucan Marvetti", "Lucan Marvetti was a tightrope walker born in Cazzora in 1841. He married Odile Fenwright "
         "in 1869. He died in Orlesby in 1910.")
ODILE = ("Odile Fenwright", "Odile Fenwright was an equestrian performer from the harbour city of Brastow. After her "
         "marriage she trained the horses of her husband's circus.")
CIRCUS = ("Circus Marvetti", "Circus Marvetti was founded in 1872 by Lucan Marvetti in the river town of Orlesby. Its "
          "first tent was raised on the Orlesby water meadows.")


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


def test_a_he_continues_the_he_before_it_not_that_sentences_object():
    sents = ["The troupe was led by Lucan Marvetti.", "He married Odile Fenwright in 1869.", "He died in Orlesby in 1910."]
    assert antecedents(sents, "Marvetti family notes") == ["", "Lucan Marvetti", "Lucan Marvetti"]
    # a passage about its title: the second "He" is the title's, never the wife the sentence before named
    assert "Odile Fenwright" not in antecedents([s + "." for s in LUCAN[1].split(". ")], LUCAN[0])


def test_a_she_after_a_he_is_still_the_person_named_last():
    sents = ["The troupe was led by Lucan Marvetti.", "He married Odile Fenwright in 1869.", "She trained the horses."]
    assert antecedents(sents, "Marvetti family notes")[2] == "Odile Fenwright"


def test_a_title_said_born_shows_its_he_bracketed():
    frost = ("Amias Frost", "Amias Frost was born in Varley in 1875. He sold the Gilded Menagerie to Tarrant Canvas "
             "in 1916.")
    menagerie = ("Gilded Menagerie", "The Gilded Menagerie was opened in 1908 by Ninian Frost's brother, Amias Frost.")
    pick = pick_sentence("Who bought the Gilded Menagerie?", [("m", *menagerie), ("a", *frost)], _backends())
    shown = {c.sentence: c.shown for c in pick.candidates}
    assert shown["He sold the Gilded Menagerie to Tarrant Canvas in 1916."].startswith("He [Amias Frost] sold"), shown


def test_a_he_is_never_the_club_its_founder_founded():
    """Audit 45: "Taddeo Brunmark (1884–1949) was a railway clerk and the founder of Orvenna Rovers. He was born in
    the village of Pellisca" was shown as "He [Orvenna Rovers] was born …" (the small model tags the club PERSON)."""
    text = ("Taddeo Brunmark (1884–1949) was a railway clerk and the founder of Orvenna Rovers. He was born in the "
            "village of Pellisca in 1884. His father kept an inn at Pellisca.")
    pick = pick_sentence("In which village was the founder of Orvenna Rovers born?",
                         [("t", "Taddeo Brunmark", text)], _backends())
    shown = {c.sentence: c.shown for c in pick.candidates}
    assert shown["He was born in the village of Pellisca in 1884."].startswith("He [Taddeo Brunmark] was born"), shown
    assert "Orvenna Rovers]" not in " ".join(shown.values()), shown


def test_the_bridge_is_not_put_in_for_the_husbands_he():
    pick = pick_sentence("Which city was the wife of the founder of Circus Marvetti from?",
                         [("c", *CIRCUS), ("l", *LUCAN), ("o", *ODILE)], _backends())
    assert not any("[Odile Fenwright]" in c.shown for c in pick.candidates), [c.shown for c in pick.candidates]
    assert "Brastow" in pick.text, pick.candidates[:3]


def test_the_city_a_description_names_is_a_place():
    assert "Brastow" in typed_mentions(ODILE[1].split(". ")[0] + ".", "place", names=True)
    assert typed_mentions("She was a performer of the city circus.", "place", names=True) == []


def test_the_questions_verb_beats_its_descriptions_verb():
    q = "In what year was the circus founded by Lucan Marvetti sold?"
    sale = ("Sale of Circus Marvetti", "In 1927 Circus Marvetti was sold to the Pendry Amusement Syndicate. The sale "
            "was arranged by Rafe Marvetti, the founder's son.")
    pick = pick_sentence(q, [("c", *CIRCUS), ("s", *sale), ("l", *LUCAN)], _backends())
    assert "1927" in pick.text, pick.candidates[:3]
    assert question_verbs(q) == ("sell", ("found",))  # "sold" read as its verb (core.methods.verb_forms)
    assert question_verbs("Who bought the Gilded Menagerie?") == ("", ())
    # a noun the tagger calls a verb ("the rigging teacher") describes nothing
    assert question_verbs("In which town was the rigging teacher of Wilmot Tarrant born?") == ("born", ())
    # no typed sentence holds the question's verb: nothing moves
    assert other_verb_only(q, ["It was founded in 1872.", "It closed in 1930."], [True, True]) == [False, False]
