"""Triple extractors: LLM OpenIE with a scripted fake, and the deterministic rules."""

from __future__ import annotations

import json

import pytest

from core.backends import prompts
from core.backends.base import ExtractedTriple
from core.backends.extractors import LLMTripleExtractor, RuleBasedExtractor, mentions
from core.errors import LLMError
from core.text import split_sentences
from tests.fakes import ScriptedLLM

T = ExtractedTriple


def test_llm_extractor_single_passage_drops_malformed(scripted_llm):
    out = {"triples": [["Keanu Reeves", "starred in", "The Matrix"], ["only", "two"], ["", "x", "y"],
                       {"subject": "The Matrix", "relation": "released in", "object": 1999},
                       ["Keanu Reeves", "starred in", "the matrix"], [None, "a", "b"]]}
    llm = scripted_llm([json.dumps(out)])
    ex = LLMTripleExtractor(llm, batch_size=1)
    res = ex.extract_detailed(["Keanu Reeves starred in The Matrix (1999)."])
    assert res.triples == [[T("Keanu Reeves", "starred in", "The Matrix"), T("The Matrix", "released in", "1999")]]
    assert res.dropped == 3 and res.failed == () and res.calls == 1
    assert (res.prompt_tokens, res.completion_tokens) == (10, 5)
    assert llm.calls[0].json_schema == prompts.TRIPLES_SCHEMA
    assert "Keanu Reeves starred in The Matrix (1999)." in llm.calls[0].messages[-1].content
    assert ex.model_id == "llm-openie-v2:fake:scripted"


def test_llm_extractor_batches_short_passages(scripted_llm):
    batch = {"passages": [{"index": 1, "triples": [["A", "r", "B"]]}, {"index": 2, "triples": [["C", "r", "D"]]},
                          {"index": 3, "triples": []}]}
    llm = scripted_llm([json.dumps(batch)])
    res = LLMTripleExtractor(llm, batch_size=4).extract_detailed(["A r B.", "C r D.", "Nothing."])
    assert res.triples == [[T("A", "r", "B")], [T("C", "r", "D")], []]
    assert len(llm.calls) == 1 and llm.calls[0].json_schema == prompts.TRIPLES_BATCH_SCHEMA


def test_llm_extractor_long_passages_go_alone_and_missing_batch_items_are_reasked(scripted_llm):
    long = "Keanu Reeves starred in The Matrix. " * 30
    llm = scripted_llm([
        json.dumps({"passages": [{"index": 1, "triples": [["A", "r", "B"]]}]}),  # batch of 2 lacks index 2
        json.dumps({"triples": [["C", "r", "D"]]}),  # passage 2 re-asked alone
        json.dumps({"triples": [["Keanu Reeves", "starred in", "The Matrix"]]}),  # the long one
    ])
    res = LLMTripleExtractor(llm, batch_size=4).extract_detailed(["A r B.", "C r D.", long])
    assert res.triples == [[T("A", "r", "B")], [T("C", "r", "D")], [T("Keanu Reeves", "starred in", "The Matrix")]]
    assert len(llm.calls) == 3 and res.calls == 3
    assert any("lacked 1 passage" in n for n in res.notes)


def test_llm_extractor_unusable_output_is_a_visible_fallback(scripted_llm):
    llm = scripted_llm(["no json"] * 3 + [json.dumps({"triples": [["X", "r", "Y"]]})])
    res = LLMTripleExtractor(llm, batch_size=1).extract_detailed(["first", "second"])
    assert res.triples == [[], [T("X", "r", "Y")]]
    assert res.failed == (0,) and any("passage 0: no triples" in n for n in res.notes)


def test_llm_extractor_transport_errors_stop_the_batch():
    with pytest.raises(LLMError, match="timed out"):
        LLMTripleExtractor(ScriptedLLM(LLMError("timed out"), name="down")).extract(["a", "b"])


def test_rules_keanu_example():
    triples = RuleBasedExtractor().extract(["Keanu Reeves starred in The Matrix with Laurence Fishburne."])[0]
    assert T("Keanu Reeves", "starred in", "The Matrix") in triples
    assert T("The Matrix", "with", "Laurence Fishburne") in triples
    assert len(triples) == 2


def test_rules_title_years_connectors_and_stopwords():
    passage = ("Lothair II\nLothair II was the son of Ermengarde of Tours. He died in 1869. "
               "In 1955, J. R. R. Tolkien visited the University of Oxford.")
    triples = RuleBasedExtractor().extract([passage])[0]
    assert T("Lothair II", "was the son of", "Ermengarde of Tours") in triples
    assert T("Lothair II", "mentions", "Ermengarde of Tours") in triples
    assert T("Lothair II", "mentions", "1869") in triples
    assert T("1955", "related to", "J. R. R. Tolkien") in triples
    assert T("J. R. R. Tolkien", "visited", "University of Oxford") in triples
    heads_tails = {t.head for t in triples} | {t.tail for t in triples}
    assert not heads_tails & {"He", "In", "In 1955", "Lothair II was"}
    assert not any(t.head == t.tail for t in triples)


def test_rules_far_apart_mentions_are_not_linked():
    triples = RuleBasedExtractor().extract(
        ["Alice went on a very long and winding walk along the river towards Bob."])[0]
    assert triples == []


def test_rules_are_deterministic_and_protocol_shaped():
    ex = RuleBasedExtractor()
    texts = ["The Matrix\nThe Matrix is a film by the Wachowskis.", "no capitals here at all", ""]
    assert ex.extract(texts) == ex.extract(texts)
    assert ex.extract(texts)[1:] == [[], []]
    assert ex.extract_detailed(texts).triples == ex.extract(texts)
    assert ex.name == "rules" and ex.model_id == "rules-v3"


def test_sentence_initial_prepositions_open_no_mention():
    """rules-v3: "Besides", "Unlike", ... at a sentence start are no names, in passages and in PPR's
    query entities (MuSiQue's "Besides the continent ..." linked the node "some"); a name opening a
    sentence still is one."""
    from core.methods.baselines.ppr_entities import rule_mentions

    q = "Besides the continent of the river which the Tekeze River turns into, where did Germany have colonies?"
    assert mentions(q) == ["Tekeze River", "Germany"]
    assert rule_mentions(q) == ["Tekeze River", "Germany"]
    assert mentions("Unlike Keanu Reeves, Hugo Weaving played Agent Smith.") == [
        "Keanu Reeves", "Hugo Weaving", "Agent Smith"]
    assert mentions("Paris is the capital of France.") == ["Paris", "France"]


def test_split_sentences():
    assert split_sentences("Mr. Smith went to Washington. He met J. K. Rowling! Then? Done") == [
        "Mr. Smith went to Washington.", "He met J. K. Rowling!", "Then?", "Done"]
