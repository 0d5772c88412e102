"""The LLM contract of BubbleRAG's stages with a scripted LLM: one ``max_tokens`` table for the LLM stages,
the bounded JSON schemas of ``tight_json`` (the default: constrained decoding on backends that support it),
stages whose answer is known asking no LLM, and the preview-reading stages sharing their beginning."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from core.backends.llm import NoLLM
from core.methods.base import Backends
from core.methods.bubblerag import prompts
from core.methods.bubblerag.config import BubbleConfig
from core.methods.bubblerag.grouping import group_anchors
from core.methods.bubblerag.keywords import Keywords, extract_keywords
from core.methods.bubblerag.pipeline import run
from core.methods.bubblerag.reasoning import reasoning_expansion
from core.methods.bubblerag.relaxation import relax_schema
from core.methods.bubblerag.specialization import Specialization, specialize_keywords
from core.trace import Trace
from tests.fakes import ScriptedLLM
from tests.methods.bubblerag.test_llm_stages import Q, _cands, _kws, _pre, _ranked, toy  # noqa: F401
from tests.methods.bubblerag.test_pipeline import LOTHAIR_Q

KW = ["Tarn 4", "maker"]


def test_bounded_json_is_the_default():
    assert BubbleConfig().tight_json is True
    assert "tight_json" in BubbleConfig().to_dict()


def test_the_preview_reading_stages_share_their_beginning_and_put_their_task_last():
    chunks = [("Tarn 4", "The Tarn 4 is a camera."), ("Oskel Optics", "Oskel Optics was founded in Brevik.")]
    block = prompts.preview_block(Q, chunks)
    for p in (prompts.sufficiency_prompt(Q, chunks), prompts.keywords_prompt(Q, chunks),
              prompts.relax_prompt(Q, ["first employer"], chunks)):
        assert p.startswith(block) and "Task: " in p[len(block):]


def test_format_lines_show_placeholders_not_values_and_a_copied_placeholder_is_found():
    p = prompts.grouping_prompt(Q, ["Tarn 4", "maker"], [("c1", "node", "Tarn 4", "Tarn 4")])
    assert prompts.placeholders(p) == ("a query concept", "0 to 1", "another query concept")
    assert p.count('"concept"') == 2  # the template shows several groups, not one
    assert not re.search(r'"weight": \d', p)  # no weight to copy
    assert prompts.template_copies({"groups": [{"concept": "a query concept"}]}, p) == ["a query concept"]
    assert prompts.template_copies({"explicit": ["<words of the question>"]}, prompts.keywords_prompt(Q, [])) == \
        ["<words of the question>"]
    assert prompts.template_copies({"groups": [{"concept": "Tarn 4", "members": ["c1"]}]}, p) == []


def _valid(schema, data) -> bool:
    try:
        jsonschema.validate(data, schema)
        return True
    except jsonschema.ValidationError:
        return False


@pytest.mark.parametrize("tight", [False, True])
def test_every_llm_stage_takes_its_max_tokens_from_the_table_and_its_schema_from_the_option(toy, tight):  # noqa: F811
    g, nv, ev, q = toy
    llm = ScriptedLLM(
        json.dumps({"explicit": ["Tarn 4", "maker"], "implicit": []}),
        json.dumps({"rewrites": [{"keyword": "maker", "specialized": "Tarn 4's maker"}]}),
        json.dumps({"relaxations": []}),
        json.dumps({"groups": [{"concept": "Tarn 4", "weight": 0.5, "members": ["c1"]},
                               {"concept": "maker", "weight": 0.5, "members": ["c2", "c3"]}]}),
        '{"selected": [], "sufficient": false}', repeat_last=False)
    kws = extract_keywords(Q, _pre("tarn"), g, llm, tight_json=tight)
    spec = specialize_keywords(Q, kws, llm, tight_json=tight)
    relax_schema(Q, _relaxable(spec), _pre("tarn", "oskel"), g, llm, tight_json=tight)
    group_anchors(Q, _cands(g), llm, tight_json=tight)
    reasoning_expansion(Q, _ranked(g), g, nv, ev, q, llm, d=1, max_neighbors=3, tight_json=tight)
    stages = ["keywords", "specialization", "relaxation", "grouping", "reasoning"]
    assert [c.max_tokens for c in llm.calls] == [prompts.STAGE_MAX_TOKENS[s] for s in stages]
    assert [_bounded(c.json_schema) for c in llm.calls] == [tight] * 5
    if tight:  # the bounded schemas name what this question offers
        assert llm.calls[1].json_schema["properties"]["rewrites"]["items"]["properties"]["keyword"] == {"enum": ["maker"]}
        relax_item = llm.calls[2].json_schema["properties"]["relaxations"]["items"]["properties"]
        assert relax_item["passage"] == {"enum": [1, 2]}
        grp = llm.calls[3].json_schema["properties"]["groups"]
        assert grp["items"]["properties"]["members"]["items"] == {"enum": ["c1", "c2", "c3"]} and grp["minItems"] == 2
        assert llm.calls[4].json_schema["properties"]["selected"]["items"] == {"enum": ["n1", "n2", "n3"]}


def _relaxable(spec: Specialization) -> Specialization:
    """``spec`` with one more concept keyword that has a qualifier to drop, so relaxation asks the LLM."""
    from core.methods.bubblerag.specialization import SearchTerm

    return Specialization((*spec.terms, SearchTerm("founding town", "founding town", "explicit")), spec.source)


def _bounded(schema) -> bool:
    """Whether a schema bounds what a reply may hold (a list length, a string length or an enum)."""
    text = json.dumps(schema)
    return any(k in text for k in ('"maxItems"', '"maxLength"', '"enum"'))


def test_a_reply_that_obeys_the_prompt_fits_the_bounded_schema_and_a_runaway_does_not():
    kw = prompts.keywords_schema(True)
    assert _valid(kw, {"explicit": ["Tarn 4", "maker", "founding town"], "implicit": ["Oskel Optics"]})
    assert not _valid(kw, {"explicit": ["The Matrix"] * 40, "implicit": []})  # the repetition loop of a small model
    assert not _valid(kw, {"explicit": ["x" * 61], "implicit": []})
    assert not _valid(kw, {"explicit": [], "implicit": []})  # the stage rejects this anyway (no explicit keyword)
    assert not _valid(kw, {"explicit": ["Tarn 4"], "implicit": ["a", "b", "c", "d"]})
    suf = prompts.sufficiency_schema(True)
    assert _valid(suf, {"sufficient": False, "answer": ""})
    assert not _valid(suf, {"sufficient": True, "answer": "it is " * 40})
    ex = prompts.expand_schema(True, ["n1", "n2", "n3"])
    assert _valid(ex, {"selected": ["n1", "n3"], "sufficient": True})
    assert not _valid(ex, {"selected": ["n4"], "sufficient": True})
    assert not _valid(ex, {"selected": ["n1", "n2", "n3", "n1"], "sufficient": True})
    assert prompts.expand_schema(True, [f"n{i}" for i in range(1, 31)])["properties"]["selected"]["maxItems"] == \
        prompts.MAX_SELECTED
    sp = prompts.specialize_schema(True, KW)
    assert _valid(sp, {"rewrites": [{"keyword": "maker", "specialized": "Tarn 4's maker"}]})
    assert not _valid(sp, {"rewrites": [{"keyword": "lens", "specialized": "Tarn 4's lens"}]})
    rx = prompts.relax_schema(True, KW, 2)
    assert not _valid(rx, {"relaxations": [{"keyword": "maker", "relaxed": "made", "passage": 3}]})
    gr = prompts.grouping_schema(True, ["Tarn 4", "maker"], ["c1", "c2"], min_groups=2)
    assert _valid(gr, {"groups": [{"concept": "Tarn 4", "weight": 0.7, "members": ["c1"]},
                                  {"concept": "maker", "weight": 0.3, "members": ["c2"]}]})
    assert not _valid(gr, {"groups": [{"concept": "Tarn 4", "weight": 1, "members": ["c1", "c2"]}]})  # one group
    assert not _valid(gr, {"groups": [{"concept": "camera", "weight": 1, "members": ["c1"]},
                                      {"concept": "maker", "weight": 0, "members": ["c7"]}]})
    # with nothing to name, the open schema is used (an empty enum would allow no reply at all)
    assert not _bounded(prompts.expand_schema(True, [])) and not _bounded(prompts.grouping_schema(True, [], []))


def test_the_bounded_schemas_compile_to_llama_cpp_grammars():
    llama_grammar = pytest.importorskip("llama_cpp.llama_grammar")
    for schema in (prompts.sufficiency_schema(True), prompts.keywords_schema(True), prompts.specialize_schema(True, KW),
                   prompts.relax_schema(True, KW, 5),
                   prompts.grouping_schema(True, ["Tarn 4", "maker"], [f"c{i}" for i in range(1, 26)], min_groups=2),
                   prompts.expand_schema(True, [f"n{i}" for i in range(1, 31)])):
        gbnf = llama_grammar.json_schema_to_gbnf(json.dumps(schema))
        assert "root ::=" in gbnf
        assert ('"\\"n10\\""' in gbnf) == ("selected" in schema["properties"])  # ids are whole quoted strings


def test_stages_with_no_keywords_ask_no_llm(toy):  # noqa: F811
    g, *_ = toy
    llm = ScriptedLLM(repeat_last=False)  # any call fails the test
    tr = Trace("bubblerag", Q)
    spec = specialize_keywords(Q, Keywords((), "llm"), llm, trace=tr)
    rx = relax_schema(Q, spec, _pre("tarn"), g, llm, trace=tr)
    assert llm.calls == [] and spec == Specialization((), "empty") and rx.source == "empty" and rx.relaxed == ()
    assert [s.fallback for s in tr.steps] == ["", ""]
    # with a generic keyword and a qualified concept the same stages do ask
    llm2 = ScriptedLLM('{"rewrites": []}', '{"relaxations": []}', repeat_last=False)
    spec2 = specialize_keywords(Q, _kws(("maker", "explicit", False), ("founding town", "explicit", False)), llm2)
    relax_schema(Q, spec2, _pre("tarn"), g, llm2)
    assert len(llm2.calls) == 2
    # names only: nothing generic to specialize, nothing qualified to relax
    llm3 = ScriptedLLM(repeat_last=False)
    spec3 = specialize_keywords(Q, _kws(("Tarn 4", "explicit", True)), llm3)
    assert spec3.source == "empty" and relax_schema(Q, spec3, _pre("tarn"), g, llm3).source == "empty"
    assert llm3.calls == []


def test_none_mode_is_unchanged_by_the_option(toy):  # noqa: F811
    g, *_ = toy
    kws = extract_keywords(Q, _pre("tarn"), g, NoLLM(), tight_json=True)
    assert kws == extract_keywords(Q, _pre("tarn"), g, NoLLM())


@pytest.mark.model
@pytest.mark.parametrize("tight", [False, True])
def test_the_pipeline_passes_the_option_to_every_json_stage(demo, minilm, tight):
    llm = ScriptedLLM("not json <<<", name="broken")  # every stage falls back; the requests are what we check
    run(LOTHAIR_Q, demo, config=BubbleConfig(tight_json=tight), backends=Backends(minilm, llm))
    json_calls = [c for c in llm.calls if c.json_schema is not None]
    assert json_calls and all(_bounded(c.json_schema) is tight for c in json_calls)
    # ... and the answer, plain text, is the same request either way
    assert [c.max_tokens for c in llm.calls if c.json_schema is None] == [BubbleConfig().answer_max_tokens]
