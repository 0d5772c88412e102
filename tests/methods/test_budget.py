"""One answer budget for every method (core/methods/budget.py): presets and custom budgets parse, each method's hook
keeps what it hands its answer within the budget, and ``own`` changes nothing."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from core.errors import ConfigError
from core.index.questions import load_questions
from core.methods.answering import AnswerContext, context_of, count_evidence, fit_count, passage_text, record_answer
from core.methods.base import Method, MethodConfig, knob
from core.methods.budget import (
    BUDGETS,
    MIN_TOKENS,
    Budget,
    answer_budget_knob,
    answer_tokens_knob,
    apply_budget,
    budget_configs,
    budget_settings,
    parse_budget,
    passage_budget,
    run_budget,
)
from core.methods.registry import METHODS
from core.methods.run import run_method
from core.trace import Trace
from tests.fakes import TOY_METHOD

# ------------------------------------------------------------------------------------------ parsing


def test_presets_parse_with_their_papers_limits():
    assert parse_budget(None) is BUDGETS["own"] and parse_budget("") is BUDGETS["own"]
    assert parse_budget("own").own and not parse_budget("bubblerag").own
    assert (parse_budget("bubblerag").chunks, parse_budget("bubblerag").tokens) == (15, None)  # BubbleRAG §4.1
    assert (parse_budget("fastinsight").chunks, parse_budget("fastinsight").tokens) == (10, None)  # §4.3.1 top-10
    assert (parse_budget("sgrag").chunks, parse_budget("sgrag").tokens) == (None, 1200)  # SG-RAG §5
    assert parse_budget("reg").tokens == 1300 and parse_budget("reg").chunks is None  # ReG App. E: K=100 triples
    assert parse_budget("BubbleRAG") is BUDGETS["bubblerag"]
    for b in BUDGETS.values():  # each preset says where it comes from (the pages' help text quotes it)
        assert b.label and b.source and parse_budget(b.name) is b


@pytest.mark.parametrize(("text", "chunks", "tokens", "name"), [
    ("10", 10, None, "10"), ("10 chunks", 10, None, "10"), ("1500tok", None, 1500, "1500tok"),
    ("1500 tokens", None, 1500, "1500tok"), ("10,1500tok", 10, 1500, "10,1500tok"), ("1500tok, 10", 10, 1500, "10,1500tok"),
])
def test_custom_budgets_parse(text, chunks, tokens, name):
    b = parse_budget(text)
    assert (b.chunks, b.tokens, b.name) == (chunks, tokens, name)
    assert parse_budget(b.name) == b  # the name reads back as the same budget (run.json, the custom field)


@pytest.mark.parametrize("text", ["abc", "10,20", "10tok,20tok", "1,2,3tok", "-1", "1.5", "15tok chunks"])
def test_a_bad_budget_names_the_value_and_the_accepted_forms(text):
    with pytest.raises(ConfigError, match=rf"Budget {text!r} is not a budget; use a preset \(own, bubblerag, "
                                          r"fastinsight, sgrag, reg\), a chunk count \(10\), a token count \(1500tok\) "
                                          r"or both \(10,1500tok\)\."):
        parse_budget(text)


def test_a_budget_out_of_range_says_the_limit():
    with pytest.raises(ConfigError, match=r"Budget '0': 0 chunks is out of range; use at least 1 chunk"):
        parse_budget("0")
    with pytest.raises(ConfigError, match=rf"Budget '50tok': 50 tokens is out of range; use at least {MIN_TOKENS} tokens"):
        parse_budget("50tok")
    with pytest.raises(ConfigError, match=r"tokens = 99 is out of range"):
        Budget("x", None, 99, "")


def test_run_settings_name_the_budget_except_own():
    assert budget_settings("own") == {}  # a run made before budgets existed resumes as it was
    assert budget_settings("bubblerag") == {"budget": "bubblerag", "budget_limits": {"chunks": 15, "tokens": None}}
    assert run_budget({"budget": "10,1500tok"}).tokens == 1500 and run_budget({}).own


# ------------------------------------------------------------------------------------------ hooks
def test_every_registered_method_declares_a_budget_hook():
    assert all(m.budget is not None for m in METHODS.values())


def test_own_leaves_every_config_as_it_is():
    for m in METHODS.values():
        assert apply_budget(m, None, "own") is None
        cfg = m.make_config()
        assert apply_budget(m, cfg, "own") is cfg
    assert budget_configs(list(METHODS.values()), "own", {"dense": "kept"}) == {"dense": "kept"}


def test_hooks_map_the_budget_onto_each_methods_own_knobs():
    d = apply_budget(METHODS["dense"], None, "bubblerag")
    assert (d.answer_passages, d.top_k, d.answer_tokens, d.answer_budget) == (15, 15, None, "bubblerag")
    d = apply_budget(METHODS["dense"], None, "1500tok")  # tokens only: every retrieved passage while they last,
    # from a list deep enough to fill them (capped at its top 10, dense handed ~410 of 1,200 tokens: an audit)
    assert (d.answer_passages, d.top_k, d.answer_tokens) == (38, 38, 1500)  # ⌈1500 / 40⌉
    r = apply_budget(METHODS["rerank"], None, "sgrag")
    assert r.answer_passages == r.top_k == 30 and r.candidates >= 30 and r.answer_tokens == 1200
    fi = apply_budget(METHODS["fastinsight"], METHODS["fastinsight"].make_config(b_max=10), "20")
    assert (fi.answer_passages, fi.top_k, fi.b_max) == (20, 20, 20)  # the loop must retrieve that many
    bub = apply_budget(METHODS["bubblerag"], None, "3")
    assert (bub.max_chunks, bub.k_chunks) == (3, 3)  # an early exit answers from the pre-retrieved chunks
    sg = apply_budget(METHODS["sgrag"], None, "4,800tok")
    assert (sg.answer_chunks, sg.max_chunks, sg.context_tokens, sg.answer_tokens) == (4, 4, 800, 800)
    reg = apply_budget(METHODS["reg"], None, "fastinsight")
    assert (reg.answer_chunks, reg.answer_passages, reg.max_chunks) == (10, 10, 10)  # either evidence format


def test_a_method_without_the_hook_is_refused_naming_it():
    with pytest.raises(ConfigError, match=r"Method 'toy' declares no budget hook, so the budget 'bubblerag' "
                                          r"\(≤ 15 chunks\) cannot be applied to it\. Declare one on its Method — "
                                          r"Method\(\.\.\., budget=hook\)"):
        apply_budget(TOY_METHOD, None, "bubblerag")
    assert apply_budget(TOY_METHOD, None, "own") is None  # alone, or under own, it runs as always


@dataclass(frozen=True)
class _PassageConfig(MethodConfig):
    top_k: int = knob(10, "Passages retrieved.")
    answer_passages: int = knob(5, "Passages handed to the answer.")


def test_a_passage_method_hook_is_one_line_and_names_the_knobs_its_config_lacks():
    m = Method("newpass", "A new passage method", "none", run=TOY_METHOD.run, config=_PassageConfig,
               budget=passage_budget)  # the whole hook
    # without the budget's name its answer would record "own" under a budget: refused, naming the knob
    with pytest.raises(ConfigError, match=r"_PassageConfig has no answer_budget, which the budget 'bubblerag' "
                                          r"\(≤ 15 chunks\) sets; add the knob"):
        apply_budget(m, None, "bubblerag")

    @dataclass(frozen=True)
    class Named(_PassageConfig):
        answer_budget: str = answer_budget_knob()

    named = dataclasses.replace(m, config=Named)
    assert apply_budget(named, None, "bubblerag").answer_passages == 15
    with pytest.raises(ConfigError, match=r"Named has no answer_tokens, which the budget 'sgrag' \(≤ 1,200 tokens\)"):
        apply_budget(named, None, "sgrag")

    @dataclass(frozen=True)
    class WithKnobs(Named):
        answer_tokens: int | None = answer_tokens_knob()

    cfg = apply_budget(dataclasses.replace(m, config=WithKnobs), None, "sgrag")
    assert (cfg.answer_tokens, cfg.answer_budget) == (1200, "sgrag")


def test_an_evidence_function_of_no_argument_is_still_used_as_it_is(demo_ws, backends, demo_questions):
    """A passage method written before budgets hands record_answer a function of no argument (functools.partial
    of its passages): it is called once, as before."""
    from functools import partial

    from core.methods.passages import PassageSource

    source = PassageSource(demo_ws)
    r = run_method("dense", demo_questions[0], demo_ws, backends)
    passages = source.passages(r.ranked_chunks)
    for fn in (partial(source.evidence, demo_questions[0], passages, backends.llm, max_passages=5),
               source.evidence_for(demo_questions[0], backends.llm)):
        tr = Trace("x", demo_questions[0])
        record_answer(tr, demo_questions[0], passages, backends, evidence_format="chains", evidence=fn)
        step = tr.steps[-1]
        assert step.data["evidence_format"] == "chains" and step.data["context"]["tokens"] > 0
        assert step.data["context"]["chunk_ids"] == [p[0] for p in passages[:5]]


# ------------------------------------------------------------------------------------------ fitting
def test_fit_count_stops_at_the_first_piece_that_does_not_fit():
    assert fit_count([100, 50, 500, 10], 200) == 2  # the 10-token piece never jumps the 500-token one
    assert fit_count([100, 50], None) == 2 and fit_count([300], 200) == 0 and fit_count([], 10) == 0
    assert fit_count([50, 50], 120, used=30) == 1


def test_record_answer_hands_the_passages_that_fit_and_says_when_none_does(backends):
    passages = [(f"c{i}", f"T{i}", "word " * 40) for i in range(6)]
    size = count_evidence([passage_text("T0", "word " * 40)])[0]
    tr = Trace("x", "q")
    record_answer(tr, "q", passages, backends, max_passages=5, max_tokens=2 * size + 1, budget="b")
    ctx = context_of(type("R", (), {"trace": tr})())
    assert ctx == AnswerContext(("c0", "c1"), 2 * size, "b", 5, 2 * size + 1, "passages", 3)
    tr = Trace("x", "q")
    ans = record_answer(tr, "q", passages, backends, max_passages=5, max_tokens=size - 1)
    assert ans.text == "" and f"the answer budget of {size - 1:,} tokens holds no passage: the best one takes " \
                              f"{size:,} tokens" in tr.steps[-1].fallback


# ------------------------------------------------------------------------------------------ every method, demo
@pytest.fixture(scope="module")
def demo_questions(demo_ws):
    return [q.question for q in load_questions(demo_ws)]


@pytest.mark.parametrize("budget", ["1", "3", "bubblerag"])
def test_every_method_hands_at_most_the_budgets_chunks(demo_ws, backends, demo_questions, budget):
    b = parse_budget(budget)
    assert b.chunks is not None
    for m in METHODS.values():
        for q in demo_questions:
            r = run_method(m.name, q, demo_ws, backends, config=apply_budget(m, None, b))
            ctx = context_of(r)
            assert ctx is not None, (m.name, q)
            assert ctx.chunks <= b.chunks and ctx.budget == b.name, (m.name, q, ctx)
            assert len(set(ctx.chunk_ids)) == ctx.chunks


@pytest.mark.parametrize("budget", ["150tok", "400tok", "2,300tok"])
def test_every_method_hands_at_most_the_budgets_tokens(demo_ws, backends, demo_questions, budget):
    b = parse_budget(budget)
    assert b.tokens is not None
    for m in METHODS.values():
        for q in demo_questions:
            ctx = context_of(run_method(m.name, q, demo_ws, backends, config=apply_budget(m, None, b)))
            assert ctx is not None and ctx.tokens <= b.tokens, (m.name, q, ctx)
            assert ctx.chunks <= (b.chunks or ctx.chunks) and ctx.max_tokens == b.tokens


def test_a_run_under_own_equals_a_default_run(demo_ws, backends, demo_questions):
    q = demo_questions[0]
    for m in METHODS.values():
        a = run_method(m.name, q, demo_ws, backends)
        b = run_method(m.name, q, demo_ws, backends, config=apply_budget(m, None, "own"))
        assert (a.answer, [c.chunk_id for c in a.ranked_chunks]) == (b.answer, [c.chunk_id for c in b.ranked_chunks])
        assert context_of(a) == context_of(b) and context_of(a).budget == "own"


def test_a_larger_chunk_budget_hands_the_passage_methods_more(demo_ws, backends, demo_questions):
    q = demo_questions[0]
    for name in ("dense", "rerank", "ppr", "fastinsight"):
        own = context_of(run_method(name, q, demo_ws, backends))
        big = context_of(run_method(name, q, demo_ws, backends, config=apply_budget(METHODS[name], None, "bubblerag")))
        assert own.chunks == 5 and big.chunks > own.chunks and big.chunk_ids[:5] == own.chunk_ids, name


# ------------------------------------------------------------------------------------------ with an LLM
def test_the_llm_prompt_holds_exactly_the_handed_passages(demo_ws, backends, demo_questions):
    import re

    from core.methods.base import Backends
    from tests.fakes import ScriptedLLM

    llm = ScriptedLLM("Hugo Weaving")
    b = Backends(backends.embedder, llm, backends.reranker)
    r = run_method("dense", demo_questions[0], demo_ws, b, config=apply_budget(METHODS["dense"], None, "2"))
    assert r.answer == "Hugo Weaving" and context_of(r).chunks == 2
    assert re.findall(r"^\[(\d+)\] ", llm.prompts[-1], re.M) == ["1", "2"]


def test_an_early_exit_answers_from_the_chunks_the_budget_showed_the_check(demo_ws, backends, demo_questions):
    import json
    import re

    from core.methods.base import Backends
    from tests.fakes import ScriptedLLM

    def sufficient(messages):  # "sufficient", answering with the first preview passage's title (grounded in it)
        first = re.search(r"^\[1\] (.+?): ", messages[-1].content, re.M)
        return json.dumps({"sufficient": True, "answer": first.group(1) if first else "", "reason": "stated"})

    llm = ScriptedLLM(sufficient)
    b = Backends(backends.embedder, llm, backends.reranker)
    cfg = apply_budget(METHODS["bubblerag"], None, "150tok")
    r = run_method("bubblerag", demo_questions[1], demo_ws, b, config=cfg)
    assert r.early_exit
    ctx = context_of(r)
    shown = re.findall(r"^\[(\d+)\] ", llm.prompts[0], re.M)
    assert ctx is not None and 1 <= ctx.chunks == len(shown) < cfg.k_chunks and ctx.tokens <= 150
    own = context_of(run_method("bubblerag", demo_questions[1], demo_ws, Backends(backends.embedder, ScriptedLLM(sufficient),
                                                                               backends.reranker)))
    assert own.chunks == cfg.k_chunks and own.budget == "own"  # without a budget the check sees all k
