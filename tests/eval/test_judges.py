"""The judge of a benchmark run is its own LLM: chosen, recorded and labelled; Emp.S as SG-RAG Table 17
(one call per question, gold and every answer side by side); FastInsight's pairwise win rate on the
generator's long-form answers, judged by the judge in both placements. Fake LLMs only."""

from __future__ import annotations

import json

import pytest

from core.backends.llm import NoLLM
from core.errors import ConfigError
from core.eval.judge_choice import OLDER_RUN, SAME, choose_judge, judge_label, run_judge
from core.eval.paper_metrics import NO_JUDGE, empowerment_scores, pairwise_verdict
from tests.fakes import ScriptedLLM

PAIR_WIN_1 = json.dumps({k: {"Winner": "Answer 1", "Explanation": "more detail"}
                         for k in ("Comprehensiveness", "Diversity", "Empowerment", "Overall Winner")})
PAIR_WIN_2 = PAIR_WIN_1.replace("Answer 1", "Answer 2")


def _generator(messages):
    """Answers only: a judge prompt reaching the generator fails the test."""
    user = messages[-1].content
    assert "Gold answer(s):" not in user and "Answer List:" not in user and "Answer 1:" not in user, user[:200]
    if "Short answer:" in user:
        return "Agent Smith"
    return "LONG: a long-form answer that walks through the passages."


def _judge(messages):
    user = messages[1].content  # the request (a retry appends the reply and a correction)
    if "Gold answer(s):" in user:
        return '{"correct": 1}'
    if "Answer List:" in user:
        labels = [ln.split("]")[0].strip(" [") for ln in user.split("Answer List:")[1].split("Evaluation")[0]
                  .splitlines() if ln.strip().startswith("[")]
        return json.dumps({lab: {"logic": 2, "insight": 1, "total": 3} for lab in labels})
    if "Answer 1:" in user:
        return PAIR_WIN_1  # always the first placement: the two placements disagree, a tie
    raise AssertionError(f"the judge was asked to answer: {user[:200]}")


@pytest.fixture
def demo(tmp_path):
    from core.backends.embedders import HashingEmbedder
    from core.backends.rerankers import BiEncoderReranker
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace

    emb = HashingEmbedder(dim=128)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path / "ws")
    return ws, load_questions(ws), emb, BiEncoderReranker(emb)


def _bench(demo, out, gen, judge, methods=("dense", "ppr")):
    from core.eval.runner import run_benchmark
    from core.methods.base import Backends

    ws, qs, emb, rr = demo
    return run_benchmark(ws, qs, list(methods), Backends(emb, gen, rr), out_dir=out, limit=2, judge=judge)


# ------------------------------------------------------------------------------------ choosing
def test_choose_judge_names_a_separate_llm_or_the_generator_only_when_asked():
    gen = ScriptedLLM("x", name="gen")
    built = []

    def build(name):
        built.append(name)
        return ScriptedLLM("x", name=name)

    assert choose_judge(None, gen) is None and choose_judge("none", gen) is None
    j = choose_judge("local-small", gen, build=build)
    assert built == ["local-small"] and j.llm is not gen and j.model_id == "fake:local-small" and not j.self_judged
    assert j.settings() == {"llm": "local-small", "model": "fake:local-small", "self_judged": False}
    same = choose_judge(SAME, gen)
    assert same.llm is gen and same.self_judged and "self-judged" in judge_label(same.settings())
    # the generator's own backend under its name: the same model, reused and labelled self-judged
    own = choose_judge("gen", gen, build=build)
    assert own.llm is gen and own.self_judged and built == ["local-small"]
    with pytest.raises(ConfigError, match="--judge-llm same asks the generator to judge itself, but the generator is"):
        choose_judge(SAME, NoLLM())


def test_run_json_without_a_judge_reads_as_an_older_self_judged_run():
    assert run_judge({}) == {"llm": SAME, "model": "", "self_judged": True, "older": True}
    assert judge_label(run_judge({})) == OLDER_RUN == "self-judged (older run)"
    assert run_judge({"judge": False}) is None


# ------------------------------------------------------------------------------------ the runner
def test_a_separate_judge_is_the_one_called_and_the_run_names_it(demo, tmp_path):
    from core.eval.judge_choice import Judge
    from core.eval.report import markdown_report

    gen, judge = ScriptedLLM(_generator, name="gen"), ScriptedLLM(_judge, name="judge")
    rep = _bench(demo, tmp_path / "b", gen, Judge(judge, "local-small", False))
    assert judge.calls and not any("Short answer:" in p for p in judge.prompts)
    p = rep.summary["methods"]["dense"]["paper"]
    assert p["ACC_L"] == 1.0 and p["Emp.S"] == 3.0 and p["judged"] == 2
    j = rep.summary["judge"]
    assert j["model"] == "fake:judge" and j["llm"] == "local-small" and not j["self_judged"]
    assert j["missing"] == {"ACC_L": 0, "Emp.S": 0, "why": {}}
    settings = json.loads((tmp_path / "b" / "run.json").read_text())["settings"]
    assert settings["judge"] == {"llm": "local-small", "model": "fake:judge", "self_judged": False}
    text = markdown_report(rep.summary)
    assert "Judge: fake:judge (`local-small`, separate from the generator)" in text and "Self-judged" not in text
    # Emp.S: one call per question (2), ACC_L one per answer (4); a rerun judges nothing again
    assert sum("Answer List:" in x for x in judge.prompts) == 2
    assert sum("Gold answer(s):" in x for x in judge.prompts) == 4
    n = len(judge.calls)
    again = _bench(demo, tmp_path / "b", gen, Judge(judge, "local-small", False))
    assert len(judge.calls) == n and again.summary["methods"]["dense"]["paper"] == p


def test_self_judging_only_when_asked_and_labelled(demo, tmp_path):
    from core.eval.bench_report import load_report
    from core.eval.report import markdown_report

    def both(messages):  # the generator's answers, and its own verdicts on them
        asks = messages[1].content
        return _judge(messages) if "Gold answer(s):" in asks or "Answer List:" in asks else "Agent Smith"

    gen = ScriptedLLM(both, name="gen")
    rep = _bench(demo, tmp_path / "b", gen, choose_judge(SAME, gen))
    assert rep.summary["judge"]["self_judged"] and rep.summary["judge"]["llm"] == SAME
    assert json.loads((tmp_path / "b" / "run.json").read_text())["settings"]["judge"]["self_judged"] is True
    text = markdown_report(rep.summary)
    assert "self-judged (the generator judged its own answers)" in text and "**Self-judged**" in text
    assert load_report(tmp_path / "b").summary["judge"]["self_judged"]


def test_no_judge_by_default_the_metrics_are_absent_with_the_fix(demo, tmp_path):
    from core.eval.report import markdown_report

    gen = ScriptedLLM(_generator, name="gen")
    rep = _bench(demo, tmp_path / "b", gen, None)
    assert not any("Gold answer(s):" in p or "Answer List:" in p for p in gen.prompts)  # never self-judged
    assert rep.summary["judge"] == {"not_computed": NO_JUDGE}
    assert rep.summary["methods"]["dense"]["paper"]["ACC_L"] is None
    assert rep.summary["methods"]["dense"]["paper"]["Emp.S"] is None
    assert "pass --judge-llm local-small" in markdown_report(rep.summary)
    assert all("judge" not in r for r in rep.records)


def test_resuming_with_another_judge_is_refused_and_a_judge_may_join_an_unjudged_run(demo, tmp_path):
    from core.eval.judge_choice import Judge

    gen = ScriptedLLM(_generator, name="gen")
    _bench(demo, tmp_path / "b", gen, None)
    a = ScriptedLLM(_judge, name="a")
    rep = _bench(demo, tmp_path / "b", gen, Judge(a, "local", False))  # no verdicts yet: judge a joins
    assert rep.summary["judge"]["model"] == "fake:a" and rep.ran == 0
    b = ScriptedLLM(_judge, name="b")
    with pytest.raises(ConfigError, match=r"judged by fake:a \(`local`, separate from the generator\); this run asks "
                                          r"for judge fake:b .* resume it with --judge-llm local, or use another"):
        _bench(demo, tmp_path / "b", gen, Judge(b, "openai", False))
    with pytest.raises(ConfigError, match="resume it with --judge-llm local"):
        _bench(demo, tmp_path / "b", gen, None)
    assert not b.calls


# ------------------------------------------------------------------------------------ Emp.S
def test_emp_s_is_one_call_with_gold_and_every_answer_anonymised():
    judge = ScriptedLLM('{"Method_A": {"logic": 2, "insight": 0, "total": 2}, '
                        '"Method_B": {"logic": 1, "insight": 1, "total": 2}}', repeat_last=False)
    e = empowerment_scores("Who trained Neo?", ["Morpheus"], [("bubblerag", "Morpheus trained him."),
                                                              ("dense", "Trinity")], judge)
    assert len(judge.calls) == 1
    prompt = judge.prompts[0]
    assert "Gold Answer: Morpheus" in prompt and "[Method_A] Morpheus trained him." in prompt
    assert "[Method_B] Trinity" in prompt and "bubblerag" not in prompt and "dense" not in prompt
    assert "Logical Coherence (0-2)" in prompt and "Insight (0-1)" in prompt
    assert e.scores == {"bubblerag": {"logic": 2, "insight": 0, "total": 2}, "dense": {"logic": 1, "insight": 1, "total": 2}}
    assert e.labels == {"Method_A": "bubblerag", "Method_B": "dense"}
    schema = judge.calls[0].json_schema
    assert schema["required"] == ["Method_A", "Method_B"] and schema["additionalProperties"] is False


@pytest.mark.parametrize(("reply", "why"), [
    ('{"Method_A": {"logic": 2, "insight": 0, "total": 2}, "Method_B": {"logic": 1, "insight": 1, "total": 2}, '
     '"Method_C": {"logic": 1, "insight": 1, "total": 2}}', "labels that are not in the answer list: 'Method_C'"),
    ('{"Method_A": {"logic": 5, "insight": 0, "total": 5}, "Method_B": {"logic": 1, "insight": 1, "total": 2}}',
     "Method_A's logic is 5; it must be one of 0, 1, 2"),
    ('{"Method_A": {"logic": 2, "insight": 1, "total": 2}, "Method_B": {"logic": 1, "insight": 1, "total": 2}}',
     "Method_A's total is 2, not logic + insight = 3"),
    ("I think both are fine.", "unusable"),
])
def test_a_malformed_emp_s_reply_leaves_the_question_missing_with_the_reason(reply, why):
    judge = ScriptedLLM(reply)
    e = empowerment_scores("q", ["g"], [("a", "x"), ("b", "y")], judge)
    assert e.scores is None and why in e.why and len(judge.calls) == 3  # told what is wrong, twice more


def test_a_failed_emp_s_is_missing_in_the_summary_with_its_reason(demo, tmp_path):
    from core.eval.judge_choice import Judge

    def judge_fn(messages):
        return '{"Method_A": {"logic": 9}}' if "Answer List:" in messages[1].content else _judge(messages)

    judge = ScriptedLLM(judge_fn, name="judge")
    rep = _bench(demo, tmp_path / "b", ScriptedLLM(_generator, name="gen"), Judge(judge, "local", False))
    p = rep.summary["methods"]["dense"]["paper"]
    assert p["Emp.S"] is None and p["ACC_L"] == 1.0
    miss = rep.summary["judge"]["missing"]
    assert miss["Emp.S"] == 4 and any("Emp.S: LLM output unusable" in w for w in miss["why"])


# ------------------------------------------------------------------------------------ pairwise
def test_pairwise_verdict_judges_both_placements_and_splits_are_ties():
    assert pairwise_verdict("q", "R", "O", ScriptedLLM(PAIR_WIN_1, PAIR_WIN_2, repeat_last=False)).outcome == "win"
    assert pairwise_verdict("q", "R", "O", ScriptedLLM(PAIR_WIN_2, PAIR_WIN_1, repeat_last=False)).outcome == "loss"
    split = ScriptedLLM(PAIR_WIN_1, PAIR_WIN_1, repeat_last=False)
    v = pairwise_verdict("q", "R", "O", split)
    assert v.outcome == "tie" and v.orders[0]["Overall Winner"] == "reference" and v.orders[1]["Diversity"] == "other"
    assert "Answer 1:\nR" in split.prompts[0] and "Answer 1:\nO" in split.prompts[1]
    assert "Comprehensiveness" in split.prompts[0] and "Empowerment" in split.prompts[0]
    assert pairwise_verdict("q", "R", "O", ScriptedLLM('{"Overall Winner": 1}')).outcome is None


def test_pairwise_compares_long_form_answers_with_the_judge(demo, tmp_path):
    from core.eval.judge_choice import Judge
    from core.eval.pairwise import LONG_ANSWERS, pairwise_judgements
    from core.eval.report import markdown_report, paper_rows, summarize

    ws = demo[0]
    gen, judge_llm = ScriptedLLM(_generator, name="gen"), ScriptedLLM(_judge, name="judge")
    judge = Judge(judge_llm, "local-small", False)
    rep = _bench(demo, tmp_path / "b", gen, judge)
    pairs = pairwise_judgements(tmp_path / "b", rep.records, judge, generator=gen, workspace=ws, reference="dense")
    assert [(x["method"], x["outcome"], x["judge"]) for x in pairs] == [("ppr", "tie", "fake:judge")] * 2
    long_prompts = [p for p in gen.prompts if p.rstrip().endswith("Answer:")]
    assert len(long_prompts) == 4 and all("[1]" in p for p in long_prompts)  # one per question x method
    assert len((tmp_path / "b" / LONG_ANSWERS).read_text().splitlines()) == 4
    compared = [p for p in judge_llm.prompts if "Answer 1:" in p]
    assert len(compared) == 4 and all("LONG: a long-form answer" in p for p in compared)
    n = len(judge_llm.calls)
    assert pairwise_judgements(tmp_path / "b", rep.records, judge, generator=gen, workspace=ws,
                               reference="dense") == pairs and len(judge_llm.calls) == n
    summary = summarize(list(rep.records), pairwise=pairs)
    assert summary["methods"]["ppr"]["pairwise"] == {"vs": "dense", "n": 2, "win_rate": 0.0, "loss_rate": 0.0,
                                                     "tie_rate": 1.0}
    assert [r["win rate vs this"] for r in paper_rows(summary)] == [None, 0.0]
    assert "| ppr | 2 | 0.0 | 0.0 | 100.0 |" in markdown_report(summary)


def test_pairwise_without_a_generator_llm_writes_no_long_answers(demo, tmp_path):
    from core.eval.judge_choice import Judge
    from core.eval.pairwise import pairwise_judgements

    judge_llm = ScriptedLLM(_judge, name="judge")
    rep = _bench(demo, tmp_path / "b", NoLLM(), Judge(judge_llm, "local", False))
    assert rep.summary["methods"]["dense"]["paper"]["ACC_L"] is not None  # extractive answers: still judged
    assert pairwise_judgements(tmp_path / "b", rep.records, Judge(judge_llm, "local", False), generator=NoLLM(),
                               workspace=demo[0], reference="dense") == []
    assert not any("Answer 1:" in p for p in judge_llm.prompts)


# ------------------------------------------------------------------------------------ older runs
def test_an_older_run_folder_still_loads_as_self_judged(tmp_path):
    from core.eval.bench_report import load_report
    from core.eval.report import RESULTS, markdown_report

    out = tmp_path / "old"
    out.mkdir()
    base = {"question": "q", "gold": ["c1"], "answers": ["Brevik"], "ranked": ["c1"], "scores": [1.0],
            "metrics": {"R@5": 1.0}, "answer": "Brevik", "answer_judged": True, "em": 1.0, "f1": 1.0, "seconds": 0.1,
            "stages": {}, "tokens": {"total": 3}, "diagnosis": {"stage": "ok"}, "error": None,
            "paper": {"precision": 1.0, "recall": 1.0, "f1": 1.0, "hit": 1.0, "hit1": 1.0, "matched": 1,
                      "predicted": 1, "gold": 1}}
    recs = [dict(base, question_id="q1", method=m, judge={"model": "fake:gen", "ACC_L": 1.0, "Emp.S": 2.0, "why": "",
                                                         "tokens": 4}) for m in ("fastinsight", "dense")]
    (out / RESULTS).write_text("".join(json.dumps(r) + "\n" for r in recs))
    (out / "run.json").write_text(json.dumps({"settings": {"workspace": "demo", "cut": 5}, "methods": ["fastinsight",
                                                                                                     "dense"]}))
    (out / "pairwise.jsonl").write_text(json.dumps({"question_id": "q1", "reference": "fastinsight", "method": "dense",
                                                    "win": 0.5, "model": "fake:gen"}) + "\n")
    rep = load_report(out)
    assert rep.summary["judge"] == {"model": "fake:gen", "llm": "same", "self_judged": True, "label": OLDER_RUN}
    assert rep.summary["methods"]["dense"]["paper"]["Emp.S"] == 2.0
    assert rep.summary["methods"]["dense"]["pairwise"]["tie_rate"] == 1.0
    text = markdown_report(rep.summary)
    assert "Judge: self-judged (older run)" in text and "**Self-judged**" in text


# ------------------------------------------------------------------------------------ the CLI
def test_the_judge_flags_parse(capsys):
    from core.cli import build_parser

    p = build_parser()
    base = ["bench", "--out", "x"]
    assert p.parse_args(base).judge_llm is None and not p.parse_args(base).no_judge
    assert p.parse_args([*base, "--judge-llm", "local-small"]).judge_llm == "local-small"
    assert p.parse_args([*base, "--judge-llm", "same"]).judge_llm == "same"
    assert p.parse_args(["ablate", "--method", "bubblerag", "--out", "x", "--judge-llm", "local"]).judge_llm == "local"
    for bad in (["--judge-llm", "gpt9"], ["--judge-llm", "local", "--no-judge"]):
        with pytest.raises(SystemExit):
            p.parse_args([*base, *bad])
    err = capsys.readouterr().err
    assert "invalid choice: 'gpt9'" in err and "not allowed with argument" in err


def test_bench_no_judge_with_an_llm_makes_no_judge_call(tmp_path, monkeypatch, openai_server, capsys):
    """`egx bench --no-judge` (as the default): answers come from the LLM, no judge call is made, the
    report says how to get the judged metrics, and the run resumes without the flag."""
    from core.cli import main
    from tests.fake_openai import openai_env

    openai_server.reply({"content": "Agent Smith"})
    for k, v in openai_env(openai_server).items():
        monkeypatch.setenv(k, v)
    out = tmp_path / "b"
    args = ["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense,ppr", "--limit", "2",
            "--llm", "openai", "--out", str(out)]
    assert main([*args, "--no-judge"]) == 0
    prompts = [r["body"]["messages"][-1]["content"] for r in openai_server.requests if r["body"].get("messages")]
    assert prompts and not any("Gold answer(s):" in p or "Answer List:" in p or "Answer 1:" in p for p in prompts)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge"] == {"not_computed": NO_JUDGE}
    assert summary["methods"]["dense"]["paper"]["ACC_L"] is None
    capsys.readouterr()
    assert main(args) == 0 and "4 already done" in capsys.readouterr().out


def test_a_judged_run_asks_sgrag_for_one_line_of_reasoning_and_emp_s_reads_it(demo, tmp_path):
    """SG-RAG Table 14: the paper's answers carry their reasoning, which Emp.S (Table 17) scores; ACC_L and
    EM still see the bare label."""
    from core.eval.judge_choice import Judge
    from core.eval.runner import reasoning_configs
    from core.methods.sgrag import SGRAGConfig

    def gen(messages):
        user = messages[-1].content
        if "UNK" in messages[0].content:
            return "not a query graph"  # Table 12: the bridge star takes over
        line = next((ln for ln in user.splitlines() if ln.startswith(("— Candidate answers", "— Entity labels"))), "")
        label = line.split(": ", 1)[1].replace(";", ",").split(", ")[0] if line else "Unable to determine"
        if "reasoning" not in messages[0].content:
            return json.dumps({"answer": label})
        return json.dumps({"answer": label, "reasoning": "because the graph relates it to every entity named"})

    assert reasoning_configs(["sgrag", "dense"], None) == {"sgrag": SGRAGConfig(answer_reasoning=True)}
    judge = ScriptedLLM(_judge, name="judge")
    rep = _bench(demo, tmp_path / "j", ScriptedLLM(gen, name="gen"), Judge(judge, "local-small", False),
                 methods=("sgrag",))
    recs = [json.loads(x) for x in (tmp_path / "j" / "results.jsonl").read_text().splitlines()]
    assert all(r["reasoning"] == "because the graph relates it to every entity named" for r in recs if r["answer"])
    emp = [p for p in judge.prompts if "Answer List:" in p]
    assert emp and all(f"Answer: {r['answer']}. Reasoning: because" in " ".join(emp) for r in recs if r["answer"])
    acc = [p for p in judge.prompts if "Gold answer(s):" in p]
    assert acc and not any("Reasoning:" in p for p in acc)  # ACC_L judges the answer alone
    assert rep.summary["methods"]["sgrag"]["paper"]["Emp.S"] == 3.0
