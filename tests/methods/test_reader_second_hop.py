"""The founder of a bridge is a second hop, read in every passage the answer was handed (core.methods.bridge_hops), and
a "born in" question takes the sentence saying the resolved person was born over one that only names a city
(core.methods.question_verb): an audit's BubbleRAG answered "Which city was the founder of the company that bought
Hollowmere Creamery born in?" with "Duskfield Foods is a food company headquartered in Marrowby."."""

from __future__ import annotations

from core.backends.embedders import HashingEmbedder
from core.backends.registry import get_llm, get_reranker
from core.methods.base import Backends
from core.methods.bridge_hops import first_bridges, hop_on
from core.methods.extractive import pick_sentence
from core.methods.question_verb import asked_verb, verb_about_bridge

QUESTION = "Which city was the founder of the company that bought Hollowmere Creamery born in?"
SALE = ("c02", "Sale of Hollowmere", "In 1958 Hollowmere Creamery was sold to Duskfield Foods. The new owner kept the "
        "Hollowmere name and its cave-aged recipes.")
DUSKFIELD = ("c03", "Duskfield Foods", "Duskfield Foods is a food company headquartered in Marrowby. It was founded in "
             "1903 by Wilhelmina Stroud. Its first product was tinned butter.")
STROUD = ("c04", "Wilhelmina Stroud", "Wilhelmina Stroud was an industrialist born in 1871 in Ravensholt. She founded "
          "Duskfield Foods after working as a dairy inspector.")
#: what BubbleRAG handed before the company's and its founder's passages (the audit's order)
BEFORE = [SALE,
          ("c00", "Hollowmere Creamery", "Hollowmere Creamery is a cheese dairy in the town of Caddon Vale. It was "
           "founded in 1921 by Orla Brennick, who ran it for more than thirty years."),
          ("c05", "Grey Lantern", "Grey Lantern is a washed-rind cheese created in 1929 by Ida Mauncey, the head "
           "cheesemaker of Hollowmere Creamery. It is aged in the Saltreed Cave."),
          ("c11", "Saltreed Cave", "The Saltreed Cave is a limestone cave two miles north of Caddon Vale. Hollowmere "
           "Creamery has leased it since 1925 to age its cheeses."),
          ("c17", "Fenwick Milk Cooperative", "The Fenwick Milk Cooperative was established in 1925 by Tomas Wexley. "
           "It collected milk from forty farms and supplied Hollowmere Creamery."),
          ("c24", "Cheese fair of Caddon Vale", "The Thursday cheese fair of Caddon Vale began in 1888. Hollowmere "
           "Creamery has sold there since its founding.")]


def _backends() -> Backends:
    return Backends(HashingEmbedder(), get_llm("none"), get_reranker("ms-marco-minilm"))


def test_the_founder_of_the_bridge_is_read_in_a_later_passage():
    pick = pick_sentence(QUESTION, [*BEFORE, DUSKFIELD, STROUD], _backends())
    assert any(b.startswith("Wilhelmina Stroud (question read as:") for b in pick.bridges), pick.bridges
    assert "Ravensholt" in pick.text, pick.candidates[:3]
    assert "Marrowby" not in pick.text


def test_a_later_passage_not_naming_the_bridge_is_still_not_read():
    # no passage says who founded the company: the founder's birth sentence (it names no bridge) is not taken in
    pick = pick_sentence(QUESTION, [*BEFORE, STROUD], _backends())
    assert not any(b.startswith("Wilhelmina Stroud") for b in pick.bridges), pick.bridges
    assert "Ravensholt" not in pick.text


def test_hop_on_takes_the_sentences_naming_each_new_bridge():
    q = "Where was the founder of the company that bought Brisk Mill born?"
    said = ["Brisk Mill was sold to Odell Foods in 1958."]
    clauses, bridges = first_bridges(q, said, [])
    later = [["Odell Foods was founded in 1903 by Ada Venn."], ["Tarrow is a town."], ["Ada Venn was born in Quillby."]]
    clauses, bridges, taken = hop_on(q, said, later, clauses, bridges)
    assert [name for _, name in bridges] == ["Odell Foods", "Ada Venn"]
    assert taken == [0, 2]
    assert clauses[-1][0] == "Where was the founder Ada Venn born?"


def test_the_born_sentence_beats_a_head_office_sharing_the_questions_words():
    q = "Which city was the founder of the company that bought Brisk Mill born in?"
    passages = [("s", "Sale of Brisk Mill", "In 1958 Brisk Mill was sold to Odell Foods."),
                ("o", "Odell Foods", "Odell Foods is a company headquartered in the city of Tarrow, where its founder "
                 "built the first plant. It was founded in 1903 by Ada Venn."),
                ("a", "Ada Venn", "Ada Venn was a chemist and rower, born in 1871 in Quillby, who later ran a dairy.")]
    pick = pick_sentence(q, passages, _backends())
    assert "Quillby" in pick.text, pick.candidates[:3]


def test_the_questions_verb_about_a_bridge():
    assert asked_verb(QUESTION) == "born"
    assert asked_verb("When did Lothair II's mother die?") == "die"
    assert asked_verb("Who was the husband of Mina Roe?") == ""
    sents = ["Wilhelmina Stroud was an industrialist born in 1871 in Ravensholt.",
             "Duskfield Foods is a food company headquartered in Marrowby.",
             "Orla Brennick was a cheesemaker born in 1894 in Lisford."]
    assert verb_about_bridge(QUESTION, sents, [True] * 3, ["Duskfield Foods", "Wilhelmina Stroud"]) == [True, False, False]
    assert verb_about_bridge(QUESTION, sents, [True] * 3, []) == [False] * 3  # no bridge: nothing moves
    assert verb_about_bridge(QUESTION, sents, [False, True, True], ["Wilhelmina Stroud"]) == [False] * 3
