"""Every method survives every LLM fault: against the scripted local server,
BubbleRAG, SG-RAG, ReG and dense retrieval finish with a visible fallback — never an exception, never
longer than the breaker allows — and a refusal or a JSON fragment is never shown as the answer."""

from __future__ import annotations

import json
import re
import time

import pytest

from core.backends.llm_guard import GuardedLLM, LLMSettings, question_scope
from core.backends.llm_openai import OpenAILLM
from core.methods.base import Backends
from core.methods.run import run_method
from tests.fake_openai import FAULTS, fake_openai_server

QUESTION = "When did Lothair II's mother die?"
METHODS = ("bubblerag", "sgrag", "reg", "dense")
#: tiny limits: 0.3 s per attempt, one retry; the breaker opens at the third failure in a row
FAST = LLMSettings(timeout=0.3, retries=1, backoff=0.01, budget=20.0, cooldown=30.0)
#: for replies the fake server gives at once (a bad answer, not a slow one): 0.3 s ran out on a loaded machine before
#: the server's thread answered, and the call failed as a timeout instead of as the reply under test
PROMPT = LLMSettings(timeout=5.0, retries=1, backoff=0.01, budget=20.0, cooldown=30.0)

FAULT_TEXT = {
    "hang": r"timed out after 0\.3 s|did not finish its reply within 0\.3 s",
    "http500": r"HTTP 500",
    "html": r"answered HTTP 200 with an HTML page instead of a chat completion",
    "no_choices": r"answered HTTP 200 with JSON that is not a chat completion \(no 'choices'",
    "truncated": r"could not be read as a chat completion \(truncated or corrupt",
    "slow_tokens": r"did not finish its reply within 0\.3 s",
}


def llm_for(server, settings: LLMSettings = FAST) -> GuardedLLM:
    return GuardedLLM(OpenAILLM(model="fake-model", base_url=server.base_url, api_key="sk-x"), settings)


@pytest.fixture(scope="module")
def prepared(demo_ws, hashing):
    """SG-RAG trains its dominance model on the first question of a workspace: do it once, LLM-free."""
    from core.methods.sgrag import prepare

    prepare(demo_ws, hashing)
    return demo_ws


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("method", METHODS)
def test_every_method_survives_every_fault(prepared, hashing, method, fault):
    with fake_openai_server(FAULTS[fault]) as server:
        llm = llm_for(server, FAST if fault in ("hang", "slow_tokens") else PROMPT)
        t0 = time.monotonic()
        r = run_method(method, QUESTION, prepared, Backends(hashing, llm, None))  # opens the question scope
        took = time.monotonic() - t0
        requests = server.chat_requests
    assert r.answer, "the fallback answer is missing"
    fallbacks = [f"{s.stage}: {s.fallback}" for s in r.trace.steps if s.fallback]
    text = "\n".join(fallbacks)
    assert re.search(FAULT_TEXT[fault], text), text
    # at most 1 + 1 retry for the first call and 1 attempt for the next, then the breaker skips the rest
    assert requests <= 3
    if requests == 3:
        assert "circuit breaker" in text
    # the per-attempt limits and the breaker end it (measured at most 4 s, BubbleRAG on a hang, on a loaded
    # 2-core machine); without them the hang would run into the 20 s question budget
    assert took < FAST.budget / 2
    assert llm.breaker_open or requests < 3


def test_the_breaker_makes_the_remaining_bubblerag_stages_fall_back_at_once(prepared, hashing):
    with fake_openai_server(FAULTS["http500"]) as server:
        llm = llm_for(server, PROMPT)
        with question_scope(llm) as scope:
            from core.methods.bubblerag import run

            r = run(QUESTION, prepared, backends=Backends(hashing, llm))
        assert server.chat_requests == 3
    skipped = [s.stage for s in r.trace.steps if "LLM call skipped: the circuit breaker" in s.fallback]
    assert len(skipped) >= 4, [(s.stage, s.fallback[:60]) for s in r.trace.steps]
    assert scope.skipped >= 4 and scope.failures == 3
    assert r.answer_by == "extractive"


def test_the_budget_stops_a_slow_but_working_endpoint(prepared, hashing):
    """Every reply takes 0.2 s; a 0.5 s budget lets two or three calls through, the rest fall back."""
    with fake_openai_server({"sleep": 0.2, "content": "not json"}) as server:
        llm = llm_for(server, LLMSettings(timeout=5, retries=0, budget=0.5, backoff=0.01))
        t0 = time.monotonic()
        r = run_method("bubblerag", QUESTION, prepared, Backends(hashing, llm, None))
        assert time.monotonic() - t0 < 3.0
        assert server.chat_requests <= 4
    text = "\n".join(s.fallback for s in r.trace.steps)
    assert "this question's LLM budget of 0.5 s is spent" in text and "--llm-budget or EGX_LLM_BUDGET" in text


# --- refusals and fragments are never the answer ----------------------------------------------------

REFUSAL = "I'm sorry, but I can't help with that."
FRAGMENT = '{"answer": "Ermengarde of To'
def _responder(bad: str):
    return lambda body: bad


@pytest.mark.parametrize(("bad", "problem"), [(REFUSAL, 'a refusal ("I\'m sorry, but I can\'t help with that.")'),
                                              (FRAGMENT, "a truncated or broken JSON fragment")])
@pytest.mark.parametrize("method", ["bubblerag", "reg", "dense"])
def test_unusable_answers_fall_back_to_the_extractive_answer(prepared, hashing, method, bad, problem):
    with fake_openai_server({"content": _responder(bad)}) as server:
        r = run_method(method, QUESTION, prepared, Backends(hashing, llm_for(server, PROMPT), None))
    assert r.answer and r.answer != bad and "sorry" not in r.answer.lower() and not r.answer.startswith("{")
    step = r.trace.stage("answer")[-1]
    assert f"the LLM's answer was unusable ({problem}" in step.fallback
    assert step.fallback.endswith("extractive answer instead") or "; " in step.fallback
    assert step.data["rejected_answer"] == bad
    if method == "bubblerag":
        assert r.answer_by == "extractive"
    else:
        assert step.data["mode"] == "extractive"


def test_sgrag_rejects_a_refusal_as_its_answer(tmp_path, hashing):
    """On the paper's App. G example the query graph matches, so the answer step asks the LLM."""
    from core.index.create import create_workspace
    from tests.methods.sgrag.conftest import MAGNESIUM_TRIPLES, write_triples
    from tests.methods.sgrag.test_llm_stages import GRAPH
    from tests.methods.sgrag.test_llm_stages import QUESTION as MG_QUESTION

    ws = create_workspace([write_triples(tmp_path / "in" / "t.csv", MAGNESIUM_TRIPLES)], tmp_path / "ws", name="m",
                          embedder=hashing)

    def reply(body: dict) -> str:
        if "UNK" in body["messages"][0]["content"]:
            return json.dumps(GRAPH)
        return json.dumps({"answer": REFUSAL})

    with fake_openai_server({"content": reply}) as server:
        r = run_method("sgrag", MG_QUESTION, ws, Backends(hashing, llm_for(server, PROMPT), None))
        answer_prompts = [q for q in server.requests if "UNK" not in q["body"]["messages"][0]["content"]]
    assert r.answer == "Magnesium" and r.answer_detail.by == "unk-binding"
    assert len(answer_prompts) == 3  # chat_json's two corrective retries
    step = r.trace.stage("answer")[-1]
    assert "the answer is unusable (a refusal" in step.fallback
    # the model was told why on its retry
    assert "the answer is unusable (a refusal" in answer_prompts[-1]["body"]["messages"][-1]["content"]
