"""BubbleRAG's §4.3 ablation rows as the paper defines them: "w/o Schema Relaxation" retrieves no chunk
before anchor selection, "w/o Anchor Specialization" takes its keywords from a standard NER extractor;
the full method is unchanged."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from core.backends.base import ChatMessage
from core.backends.llm import NoLLM
from core.methods.base import Backends
from core.methods.bubblerag import BubbleConfig, run
from core.methods.bubblerag.ablations import ABLATIONS
from core.methods.bubblerag.ner_keywords import ner_keywords
from core.methods.registry import get_method
from tests.fakes import ScriptedLLM

MATRIX_Q = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
ROWS = {r.name: r for r in ABLATIONS}


def row_config(name: str) -> BubbleConfig:
    cfg = get_method("bubblerag").make_config(**ROWS[name].overrides)
    assert isinstance(cfg, BubbleConfig)
    return cfg


def _reply(messages: Sequence[ChatMessage]) -> str:
    """Keywords for the keyword prompt; an unusable reply (the stage's visible fallback) to every other one."""
    prompt = messages[-1].content
    if "list the keywords" in prompt:
        return json.dumps({"explicit": ["Keanu Reeves", "Laurence Fishburne", "villain"], "implicit": []})
    return "no"


@pytest.fixture
def chunk_searches(demo_ws, monkeypatch):
    """Every search of the chunk index (the passage retrieval BubbleRAG's pre-retrieval makes)."""
    index = demo_ws.index("chunks")
    calls: list[int] = []
    real = index.search

    def spy(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(index, "search", spy)
    return calls


def test_rows_quote_the_papers_definitions():
    assert ROWS["no-relaxation"].overrides == {"pre_retrieval": False, "relaxation": False}
    assert ROWS["no-specialization"].overrides == {"keyword_extraction": "ner", "specialization": False}
    assert "removed the retrieval of text chunks prior to anchor selection" in ROWS["no-relaxation"].definition
    assert "using a standard extractor" in ROWS["no-specialization"].definition
    assert all(r.definition.startswith("§") for r in ABLATIONS)
    # the old switches keep their meaning: each alone skips only its own stage
    assert BubbleConfig(relaxation=False).pre_retrieval and BubbleConfig(specialization=False).keyword_extraction == "latent"


def test_no_relaxation_retrieves_no_chunk_and_the_keywords_see_no_preview(demo_ws, hashing, chunk_searches):
    llm = ScriptedLLM(_reply)
    r = run(MATRIX_Q, demo_ws, config=row_config("no-relaxation"), backends=Backends(hashing, llm))
    assert chunk_searches == []  # no passage retrieval at all before (or after) anchor selection
    assert r.pre.chunk_ids == () and not r.early_exit
    step = r.trace.stage("preretrieval")[0]
    assert step.data["enabled"] is False and "§4.3" in step.data["reason"]
    assert not any("do these passages alone" in p for p in llm.prompts)  # no sufficiency check: nothing to check
    kw_prompts = [p for p in llm.prompts if "list the keywords" in p]
    assert len(kw_prompts) == 1 and "Preview passages" not in kw_prompts[0] and "passages" not in kw_prompts[0]
    assert r.keywords.source == "llm" and "none" in r.trace.stage("keywords")[0].data["preview"]
    assert r.relaxation.source == "disabled" and r.candidates is not None


def test_the_full_method_still_previews_chunks_for_the_keywords(demo_ws, hashing, chunk_searches):
    llm = ScriptedLLM(_reply)
    r = run(MATRIX_Q, demo_ws, config=row_config("full"), backends=Backends(hashing, llm))
    assert len(chunk_searches) == 1 and len(r.pre.chunk_ids) == 5
    kw_prompts = [p for p in llm.prompts if "list the keywords" in p]
    assert len(kw_prompts) == 1 and "Preview passages" in kw_prompts[0]
    assert "enabled" not in r.trace.stage("preretrieval")[0].data


def test_no_relaxation_in_none_mode_infers_nothing_from_a_preview(demo_ws, hashing, chunk_searches):
    r = run(MATRIX_Q, demo_ws, config=row_config("no-relaxation"), backends=Backends(hashing, NoLLM()))
    assert chunk_searches == [] and r.keywords.source == "heuristic" and r.keywords.implicit == ()
    full = run(MATRIX_Q, demo_ws, backends=Backends(hashing, NoLLM()))
    assert full.keywords.implicit  # the full method's `none` mode takes preview titles as implicit keywords


def test_ner_extractor_finds_the_explicit_entities():
    kws = ner_keywords("Keanu Reeves and Laurence Fishburne starred in it.")
    assert kws.source == "ner" and {"Keanu Reeves", "Laurence Fishburne"} <= set(kws.explicit)
    assert kws.implicit == () and all(k.entity for k in kws.items if k.text in ("Keanu Reeves", "Laurence Fishburne"))
    # the generic term stays as written (not "Lothair II's mother"), a name the NER misses is still searched
    lothair = {k.text: k.entity for k in ner_keywords("When did Lothair II's mother die?").items}
    assert lothair == {"Lothair II": True, "mother": False}


def test_ner_extractor_with_nothing_to_find_searches_the_question_and_says_so():
    from core.trace import Trace

    t = Trace("bubblerag", "why?")
    assert ner_keywords("why?", trace=t).explicit == ("why?",)
    assert "question itself" in t.stage("keywords")[0].fallback


def test_no_specialization_takes_ner_keywords_and_asks_no_keyword_or_rewrite_prompt(demo_ws, hashing):
    llm = ScriptedLLM(_reply)
    r = run(MATRIX_Q, demo_ws, config=row_config("no-specialization"), backends=Backends(hashing, llm))
    assert r.keywords.source == "ner" and {"Keanu Reeves", "Laurence Fishburne"} <= set(r.keywords.explicit)
    assert r.keywords.implicit == () and r.specialization.source == "disabled"
    assert not r.specialization.rewrites
    assert not any("list the keywords" in p or "Rewrite each generic keyword" in p for p in llm.prompts)
    step = r.trace.stage("keywords")[0]
    assert step.section == "BubbleRAG §4.3" and step.data["source"] == "ner"
    assert {"Keanu Reeves", "Laurence Fishburne"} <= {e["text"] for e in step.data["entities"]}
    assert r.pre.chunk_ids  # the preview still exists (schema relaxation is kept in this variant)
