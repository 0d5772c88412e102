"""LLM tokens count only what an LLM read and wrote: none in ``none`` mode, none on a workspace the recordings do
not hold (where the app says every method runs without an LLM), a replayed recorded reply's on its own workspace."""

from __future__ import annotations

import pytest

from core.backends.llm import NoLLM
from core.backends.llm_recorded import RecordedLLM
from core.eval.metrics import llm_tokens
from core.methods.base import Backends
from core.methods.run import run_method

#: a question the demo recordings hold: SG-RAG's query-graph and PPR's entity prompts are made of it alone
RECORDED = "When did Lothair II's mother die?"
METHODS = ("sgrag", "reg", "bubblerag", "fastinsight", "hipporag2", "ppr")


@pytest.fixture(scope="module")
def demo(demo_and_upload):  # type: ignore[no-untyped-def]
    return demo_and_upload  # the demo, and the same data under a name the recordings do not hold (an upload)


@pytest.mark.parametrize("method", METHODS)
def test_no_llm_tokens_without_an_llm_or_on_a_workspace_the_recordings_do_not_hold(demo, method):
    """An audit's Compare showed SG-RAG "811 LLM tokens" under the notice that every method runs without an LLM:
    its query-graph prompt, the question alone, had a reply recorded on the demo workspace."""
    emb, _, mine = demo
    for llm in (NoLLM(), RecordedLLM(strict=False)):
        r = run_method(method, RECORDED, mine, Backends(emb, llm))
        assert llm_tokens(r.trace)["total"] == 0, (type(llm).__name__, [
            (s.stage, s.prompt_tokens, s.completion_tokens) for s in r.trace.steps])
        assert all(not s.cached for s in r.trace.steps)  # no step was answered from a recording


def test_a_replayed_reply_counts_on_the_workspace_it_was_recorded_on(demo):
    emb, ws, _ = demo
    llm = RecordedLLM(strict=False)
    assert llm.holds_workspace("demo") and not llm.holds_workspace("mine")
    assert sorted(b.path.name for b in llm.for_workspace("demo").replying) == ["demo-local-bubblerag.json",
                                                                             "demo-local.json"]  # not MuSiQue's
    assert llm.for_workspace("mine").replying == []
    assert llm.for_workspace("mine").recordings == llm.recordings  # the tokenizer and find_run see every bundle
    r = run_method("sgrag", RECORDED, ws, Backends(emb, llm))
    step = r.trace.stage("query_graph")[0]
    assert step.cached and step.prompt_tokens > 0 and llm_tokens(r.trace)["total"] >= step.prompt_tokens


def test_a_trace_no_llm_answered_names_no_llm_in_its_provenance(demo):
    """An audit's saved trace read "llm: recorded (recorded:llama.cpp:…)" over 0 LLM tokens and 6 fallbacks: the
    recorded LLM held no run of that workspace, so no LLM wrote any of it."""
    emb, ws, mine = demo
    llm = RecordedLLM(strict=False)
    r = run_method("ppr", RECORDED, mine, Backends(emb, llm))
    assert r.trace.backends["llm"].startswith("none — the recorded LLM (recorded:")
    assert r.trace.backends["llm"].endswith("holds no run of this workspace")
    assert "holds no run of this workspace" in r.trace.to_json()  # the saved trace file says so too
    r = run_method("ppr", "Which river flows past the Keanu archive?", ws, Backends(emb, llm))
    assert r.trace.tokens == 0 and r.trace.backends["llm"].endswith("holds no run of this question")
    r = run_method("sgrag", RECORDED, ws, Backends(emb, llm))  # a replayed reply: the recorded LLM answered
    assert r.trace.backends["llm"].startswith("recorded (")
