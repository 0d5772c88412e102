"""App. F's in-context demonstrations in ReG's selection and QA prompts, the guard against a reply that copies
them, and the stepwise S(I) that may keep several chains and no extra fact (§4.1, App. D.1)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from core.graph.graph_builder import graph_from_triples
from core.methods.base import Backends
from core.methods.evidence.prompts import DEMO_NAMES, demonstration_copies, qa_demonstration, qa_prompt
from core.methods.reg import prompts
from core.methods.reg.supervision import QAItem, build_supervision
from core.methods.registry import get_method
from core.trace import Trace
from tests.conftest import MUSIQUE
from tests.fakes import ScriptedLLM

ROOT = Path(__file__).resolve().parents[3]

#: a hand-made two-entity question: one query→answer chain from each person, plus 1-hop facts
TWO = [("Ada Pell", "works for", "Corvid Labs"), ("Bo Rusk", "is an engineer at", "Corvid Labs"),
       ("Ada Pell", "born in", "Fenmoor"), ("Fenmoor", "home of", "Corvid Labs"), ("Ada Pell", "plays", "chess"),
       ("Corvid Labs", "founded in", "1999"), ("Bo Rusk", "lives in", "Fenmoor")]
TWO_Q = QAItem("1", "Which company employs both Ada Pell and Bo Rusk?", ("Corvid Labs",))


def _demo_reply(demo: str) -> dict:
    """The reply a demonstration shows (its last ``Reply:`` line), as the model would copy it."""
    return json.loads(demo.rsplit("Reply: ", 1)[1].split("\n\n", 1)[0].replace("\n", ""))


def _stepwise(chain_reply: str | dict, fact_reply: str | dict):
    def reply(messages):
        r = chain_reply if "Paths:" in messages[1].content else fact_reply  # the task, not a retry's correction
        return r if isinstance(r, str) else json.dumps(r)
    return reply


# ---------------------------------------------------------------------------------------- the demonstrations
def test_every_reg_prompt_opens_with_its_demonstration() -> None:
    assert prompts.select_prompt("q?", ["a"], ["x → [r] → a"]).startswith(prompts.SELECT_DEMO)
    assert prompts.chain_prompt("q?", ["a"], [(0, "x → [r] → a")]).startswith(prompts.CHAIN_DEMO)
    assert prompts.context_prompt("q?", ["a"], "x → [r] → a", [(0, "x → [s] → y")], 1).startswith(prompts.CONTEXT_DEMO)
    for fmt in ("chains", "triples"):
        with_demo = qa_prompt("q?", "x → [r] → a", fmt, demonstration=True)
        assert with_demo.startswith(qa_demonstration(fmt)) and with_demo.endswith(qa_prompt("q?", "x → [r] → a", fmt))
    # the explanation-based selection demonstrations show their reply with its explanation (§4.1)
    for demo in (prompts.SELECT_DEMO, prompts.CHAIN_DEMO, prompts.CONTEXT_DEMO):
        assert _demo_reply(demo)["explanation"]


def test_demonstrations_name_only_made_up_entities() -> None:
    """Every capitalised name of the demonstrations is a listed made-up one, and none occurs in a sample's or
    MuSiQue's corpus or questions (the guard could not tell a copy from a real answer otherwise)."""
    demos = prompts.SELECT_DEMO + prompts.CHAIN_DEMO + prompts.CONTEXT_DEMO + qa_demonstration("chains")
    names = {m.group(0) for m in re.finditer(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*", demos)}
    prose = {"Example", "Examples", "Question", "Answer", "Candidates", "Candidate", "Paths", "Facts", "Reply", "Now",
             "The", "Chosen", "Reasoning", "Triples", "Which", "In"}
    assert {n for n in names if n not in prose and not any(n in d for d in DEMO_NAMES)} == set()
    texts = [(ROOT / "sample_data" / "demo" / "questions.json").read_text(encoding="utf-8")]
    for f in (ROOT / "sample_data").glob("*/*.json.gz"):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            texts.append(fh.read())
    texts += [p.read_text(encoding="utf-8") for p in sorted(MUSIQUE.glob("*.json"))]
    corpus = "\n".join(texts).lower()
    assert len(corpus) > 1_000_000  # the corpora were read
    for n in DEMO_NAMES:
        assert not re.search(rf"\b{re.escape(n.lower())}\b", corpus), f"{n!r} is a name of the shipped data"


def test_the_guard_finds_names_and_sentences_copied_from_the_demonstration() -> None:
    demo = qa_demonstration("chains")
    prompt = qa_prompt("Where was Ada Pell born?", "1. Ada Pell → [born in] → Fenmoor", "chains", demonstration=True)
    assert demonstration_copies("Quellstad", prompt, demo) == ["Quellstad"]
    assert demonstration_copies("Fenmoor", prompt, demo) == []
    # a demo name the real question also names is its own, not a copy
    own = qa_prompt("Is Quellstad real?", "1. Quellstad → [is] → real", "chains", demonstration=True)
    assert demonstration_copies("Quellstad", own, demo) == []
    sel = prompts.select_prompt("Where was Ada Pell born?", ["Fenmoor"], ["Ada Pell → [born in] → Fenmoor"])
    copied = demonstration_copies(_demo_reply(prompts.SELECT_DEMO), sel, prompts.SELECT_DEMO)
    assert {"Ilse Varnholt", "Quellstad", "Ober Tamm"} <= set(copied)
    # a whole sentence of the demonstration, names or not
    assert demonstration_copies({"explanation": "Candidate 1 follows the birthplace to its river, as the question asks"},
                                sel, "Reply: candidate 1 follows the birthplace to its river, as the question asks")
    assert demonstration_copies({"explanation": "no fact is needed"}, sel, prompts.CONTEXT_DEMO) == []


# ---------------------------------------------------------------------------------------- copying replies
def test_one_shot_reply_copying_the_demonstration_is_the_weak_signal(matrix_graph) -> None:
    llm = ScriptedLLM(json.dumps(_demo_reply(prompts.SELECT_DEMO)), repeat_last=False)
    tr = Trace("reg", "q")
    item = QAItem("1", "Who played the villain in the film Keanu Reeves and Laurence Fishburne starred in?",
                  ("Hugo Weaving",))
    s = build_supervision(item, matrix_graph, llm, trace=tr)
    assert s.selection.mode == "weak" and s.refined == s.weak
    assert "check failed: the reply copies the prompt's demonstration ('Ilse Varnholt'" in s.selection.fallback
    assert len(llm.calls) == 1  # not sent back: a copy is a failed check, as in BubbleRAG
    assert "copies the prompt's demonstration" in tr.stage("selection")[0].fallback


def test_stepwise_chain_reply_copying_the_demonstration_is_the_weak_signal() -> None:
    g = graph_from_triples(TWO, name="two")
    copy = {**_demo_reply(prompts.CHAIN_DEMO), "paths": [0, 1]}  # the example's words, this question's numbers
    llm = ScriptedLLM(_stepwise(copy, {"explanation": "x", "needed": "none", "selected": []}))
    s = build_supervision(TWO_Q, g, llm, how="stepwise")
    assert s.selection.mode == "weak" and "copies the prompt's demonstration ('Ilse Varnholt'" in s.selection.fallback


def test_stepwise_fact_reply_copying_the_demonstration_keeps_the_chains_only() -> None:
    g = graph_from_triples(TWO, name="two")
    copy = _demo_reply(prompts.CONTEXT_DEMO)  # the second example: "some", fact 1
    tr = Trace("reg", "q")
    s = build_supervision(TWO_Q, g, ScriptedLLM(_stepwise({"explanation": "both jobs", "paths": [0, 1]}, copy)),
                          how="stepwise", trace=tr)
    chains = [i for i, c in enumerate(s.compression.candidates) if c.kind == "shortest"]
    assert s.selection.mode == "llm" and s.selection.selected == tuple(chains)
    assert "check failed: the reply copies the prompt's demonstration" in tr.stage("selection")[0].fallback


def test_reg_answer_copying_the_demonstration_is_rejected(demo_ws, hashing) -> None:
    llm = ScriptedLLM("Quellstad", name="copier")
    r = get_method("reg").run("Who played the main villain in the film Keanu Reeves and Laurence Fishburne starred in?",
                              demo_ws, config=get_method("reg").make_config(evidence_format="chains"),
                              backends=Backends(hashing, llm))
    d = r.trace.stage("answer")[-1].data
    assert llm.prompts[-1].startswith(qa_demonstration("chains"))  # ReG's answer prompt opens with the example
    assert d["mode"] == "extractive" and d["rejected_answer"] == "Quellstad" and r.answer != "Quellstad"
    assert "the LLM's answer copies the prompt's demonstration ('Quellstad')" in r.trace.stage("answer")[-1].fallback


def test_other_methods_answer_prompts_have_no_demonstration(demo_ws, hashing) -> None:
    llm = ScriptedLLM("Hugo Weaving")
    get_method("dense").run("Who played Agent Smith?", demo_ws,
                            config=get_method("dense").make_config(evidence_format="chains"),
                            backends=Backends(hashing, llm))
    assert "Example (made-up entities" not in llm.prompts[-1]


# ---------------------------------------------------------------------------------------- stepwise S(I), §4.1
def test_two_entity_question_keeps_both_chains() -> None:
    g = graph_from_triples(TWO, name="two")
    llm = ScriptedLLM(_stepwise({"explanation": "one job each", "paths": [0, 1]},
                                {"explanation": "enough", "needed": "none", "selected": []}))
    s = build_supervision(TWO_Q, g, llm, how="stepwise")
    cands = s.compression.candidates
    chains = [i for i, c in enumerate(cands) if c.kind == "shortest"]
    assert len(chains) == 2 and {cands[i].representative.source for i in chains} == set(s.query.nodes)
    assert s.selection.mode == "llm" and s.selection.selected == tuple(chains)
    assert set(s.refined) == {e for i in chains for e in cands[i].edges}
    assert "2 of 2 chains chosen" in s.selection.explanation and "no extra fact needed" in s.selection.explanation
    ask = llm.calls[0]
    assert ask.json_schema["properties"]["paths"]["minItems"] == 1
    assert ask.json_schema["properties"]["paths"]["maxItems"] == 2
    facts_asked = llm.prompts[1].rsplit("Chosen paths: ", 1)[1].split("\n", 1)[0]
    assert all(cands[i].text(g) in facts_asked for i in chains)  # the fact step sees every chosen chain


def test_a_question_needing_nothing_more_stops_with_none(matrix_graph) -> None:
    """"none" wins over numbers the reply lists anyway: the chains alone are the supervision."""
    llm = ScriptedLLM(_stepwise({"explanation": "x", "paths": [0]},
                                {"explanation": "the path is enough", "needed": "none", "selected": [0, 1]}))
    item = QAItem("1", "Who played the villain in the film Keanu Reeves and Laurence Fishburne starred in?",
                  ("Hugo Weaving",))
    s = build_supervision(item, matrix_graph, llm, how="stepwise")
    facts = {i for i, c in enumerate(s.compression.candidates) if c.kind != "shortest"}
    assert facts and s.selection.mode == "llm" and not facts & set(s.selection.selected)
    assert "no extra fact needed" in s.selection.explanation
    schema = llm.calls[-1].json_schema
    assert schema["properties"]["needed"]["enum"] == ["none", "some"] and "needed" in schema["required"]


def test_some_facts_are_added_when_the_question_needs_them(matrix_graph) -> None:
    llm = ScriptedLLM(_stepwise({"explanation": "x", "paths": [0]},
                                {"explanation": "a constraint", "needed": "some", "selected": [1]}))
    item = QAItem("1", "Who played the villain in the film Keanu Reeves and Laurence Fishburne starred in?",
                  ("Hugo Weaving",))
    s = build_supervision(item, matrix_graph, llm, how="stepwise")
    facts = [i for i, c in enumerate(s.compression.candidates) if c.kind != "shortest"]
    assert s.selection.selected[-1] == facts[1] and "1 of" in s.selection.explanation


@pytest.mark.parametrize("reply, why", [
    ({"explanation": "x", "selected": [0]}, "lacks the required key(s) 'needed'"),
    ({"explanation": "x", "needed": "maybe", "selected": [0]}, '"needed" must be "none" or "some"'),
    ({"explanation": "x", "needed": "some", "selected": [99]}, '"selected" may hold only the fact numbers'),
])
def test_a_bad_fact_reply_keeps_the_chains_and_says_why(reply, why) -> None:
    g = graph_from_triples(TWO, name="two")
    s = build_supervision(TWO_Q, g, ScriptedLLM(_stepwise({"explanation": "x", "paths": [1]}, reply)), how="stepwise")
    assert s.selection.mode == "llm" and len(s.selection.selected) == 1 and why in s.selection.explanation


def test_a_chain_reply_without_paths_is_the_weak_signal_with_the_reason() -> None:
    g = graph_from_triples(TWO, name="two")
    s = build_supervision(TWO_Q, g, ScriptedLLM(_stepwise({"explanation": "x", "paths": []}, "{}")), how="stepwise")
    assert s.selection.mode == "weak" and 'no non-empty "paths" list' in s.selection.fallback
