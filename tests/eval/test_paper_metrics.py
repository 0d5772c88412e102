"""The papers' own answer metrics against hand-computed values, and the LLM judges
with a scripted LLM (prompts, parsing, the "not computed" path)."""

from __future__ import annotations

import json

import pytest

from core.backends.llm import NoLLM
from core.eval.paper_metrics import (
    AnswerSetScores,
    aggregate_answer_sets,
    answer_items,
    answer_set_scores,
    empowerment_score,
    judge_accuracy,
    pairwise_preference,
)
from tests.fakes import ScriptedLLM


def test_answer_items_split_lines_semicolons_and_prefixes():
    assert answer_items("ans: Brevik\n- Pellam; 2) Varn |  \n") == ["Brevik", "Pellam", "Varn"]
    assert answer_items("") == [] and answer_items(" . \n") == []


def test_answer_set_scores_by_hand():
    # 3 items, 3 gold; Brevik and Pellam match, Oslo does not, Varn is missed: P = R = 2/3
    s = answer_set_scores("Brevik\nPellam\nOslo", ["Pellam", "Brevik", "Varn"])
    assert (s.matched, s.predicted, s.gold) == (2, 3, 3)
    assert s.precision == pytest.approx(2 / 3) and s.recall == pytest.approx(2 / 3) and s.f1 == pytest.approx(2 / 3)
    assert s.hit == 1.0 and s.hit1 == 1.0
    # the first item is wrong: Hit but no Hit@1; one of two gold answers found in 2 items: P = 1/2, R = 1/2
    s = answer_set_scores("Oslo\nThe Brevik", ["brevik", "Varn"])
    assert (s.precision, s.recall, s.f1, s.hit, s.hit1) == (0.5, 0.5, 0.5, 1.0, 0.0)
    # containment after SQuAD normalisation, whole words only
    assert answer_set_scores("It was founded in Brevik.", ["Brevik"]).hit1 == 1.0
    assert answer_set_scores("Brevikstad", ["Brevik"]).hit == 0.0
    assert answer_set_scores("", ["Brevik"]) == AnswerSetScores(0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 1)
    with pytest.raises(ValueError, match="needs at least one gold answer"):
        answer_set_scores("x", ["", "  "])


def test_macro_and_micro_f1_by_hand():
    a = answer_set_scores("Brevik", ["Brevik"])  # P = R = F1 = 1, counts 1/1/1
    b = answer_set_scores("Oslo\nVarn", ["Varn", "Pellam", "Dray"])  # P = 1/2, R = 1/3, F1 = 0.4, counts 1/2/3
    agg = aggregate_answer_sets([a, b])
    assert agg["Macro-F1"] == pytest.approx((1 + 0.4) / 2)
    # pooled: matched 2, predicted 3, gold 4 -> P = 2/3, R = 1/2, F1 = 4/7
    assert agg["Micro-F1"] == pytest.approx(4 / 7)
    assert agg["Precision"] == pytest.approx(0.75) and agg["Recall"] == pytest.approx(2 / 3)
    assert agg["Hit"] == 1.0 and agg["Hit@1"] == 0.5
    assert aggregate_answer_sets([]) == dict.fromkeys(agg)


def test_acc_l_and_emp_s_with_a_scripted_judge():
    llm = ScriptedLLM('{"correct": 1}', '{"coherence": 2, "information": 0}', repeat_last=False)
    acc = judge_accuracy("In which town was Oskel Optics founded?", "Brevik", ["Brevik"], llm)
    emp = empowerment_score("In which town was Oskel Optics founded?", "Brevik", llm)
    assert acc.value == 1.0 and emp.value == 2.0
    assert "Gold answer(s): Brevik" in llm.prompts[0] and "Model answer: Brevik" in llm.prompts[0]
    assert "Logical Coherence (0-2 points)" in llm.prompts[1]
    assert judge_accuracy("q", "", ["a"], ScriptedLLM(repeat_last=False)).value == 0.0  # no answer: no call


def test_a_judge_that_gives_no_usable_reply_is_not_counted():
    bad = ScriptedLLM('{"correct": 7}')
    j = judge_accuracy("q", "a", ["a"], bad)
    assert j.value is None and j.why
    assert judge_accuracy("q", "a", ["a"], NoLLM()).value is None


def test_pairwise_preference_judges_both_orders():
    # A wins when shown first (overall 1) and when shown second (overall 2): 1.0; a split verdict: 0.5
    assert pairwise_preference("q", "A", "B", ScriptedLLM('{"overall": 1}', '{"overall": 2}')).value == 1.0
    split = ScriptedLLM('{"overall": 1}', '{"overall": 1}', repeat_last=False)
    assert pairwise_preference("q", "A", "B", split).value == 0.5
    assert "Answer 1: A" in split.prompts[0] and "Answer 1: B" in split.prompts[1]


def test_bench_reports_the_papers_metrics_and_says_what_it_could_not_compute(tmp_path, capsys):
    from core.cli import main

    out = tmp_path / "b"
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense,ppr", "--limit", "2",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "## The papers' answer metrics" in text
    assert "ACC_L, Emp.S and the pairwise win rate: not computed: no LLM is configured" in text
    summary = json.loads((out / "summary.json").read_text())
    paper = summary["methods"]["dense"]["paper"]
    assert paper["n"] == 2 and paper["ACC_L"] is None and paper["Emp.S"] is None
    assert 0.0 <= paper["Hit"] <= 1.0 and paper["Micro-F1"] is not None
    assert summary["judge"] == {"not_computed": "not computed: no LLM is configured (run with --llm local, "
                                                "local-small or openai)"}
    recs = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    for r in recs:  # the record's scores are those of its answer
        s = answer_set_scores(r["answer"], r["answers"])
        assert r["paper"]["hit"] == s.hit and r["paper"]["f1"] == pytest.approx(s.f1)


def _judge_or_answer(messages):
    user = messages[-1].content
    if "Gold answer(s):" in user:
        return '{"correct": 1}'
    if "Logical Coherence" in user:
        return '{"coherence": 1, "information": 1}'
    if "Answer 1:" in user:  # the reference method (first in the first order) wins both orders
        first = user.split("Answer 1:")[1].split("Answer 2:")[0]
        return '{"overall": 1}' if "REF" in first else '{"overall": 2}'
    return "REF answer" if "REF" in user else "Agent Smith"


def test_bench_with_an_llm_judges_and_records_the_judge(tmp_path):
    """ACC_L and Emp.S per answer, the pairwise win rate of the reference method (both orders, resumable),
    and the judge's model and prompts in the summary."""
    from core.backends.embedders import HashingEmbedder
    from core.backends.rerankers import BiEncoderReranker
    from core.eval.datasets import load_questions
    from core.eval.pairwise import pairwise_judgements
    from core.eval.paper_metrics import judge_prompts
    from core.eval.report import markdown_report, paper_rows, summarize
    from core.eval.runner import run_benchmark
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends

    emb = HashingEmbedder(dim=128)
    ws = ensure_sample_workspace("demo", emb, root=tmp_path / "ws")
    llm = ScriptedLLM(_judge_or_answer)
    rep = run_benchmark(ws, load_questions(ws), ["dense", "ppr"], Backends(emb, llm, BiEncoderReranker(emb)),
                        out_dir=tmp_path / "b", limit=2)
    p = rep.summary["methods"]["dense"]["paper"]
    assert p["ACC_L"] == 1.0 and p["Emp.S"] == 2.0 and p["judged"] == 2
    assert rep.summary["judge"] == {"model": "fake:scripted", "prompts": judge_prompts()}
    assert all(r["judge"]["model"] == "fake:scripted" for r in rep.records)
    # pairwise: mark dense's answers as the reference's, judge, and a rerun judges nothing new
    recs = [dict(r, answer="REF " + r["answer"]) if r["method"] == "dense" else r for r in rep.records]
    pairs = pairwise_judgements(tmp_path / "b", recs, llm, reference="dense")
    assert [(x["method"], x["win"]) for x in pairs] == [("ppr", 1.0), ("ppr", 1.0)]
    n = len(llm.calls)
    assert pairwise_judgements(tmp_path / "b", recs, llm, reference="dense") == pairs and len(llm.calls) == n
    summary = summarize(recs, pairwise=pairs)
    assert summary["methods"]["ppr"]["pairwise"] == {"vs": "dense", "n": 2, "win_rate": 1.0}
    assert [r["win rate vs this"] for r in paper_rows(summary)] == [None, 100.0]
    assert "Pairwise win rate of dense against each method" in markdown_report(summary)


def test_no_judge_skips_the_judged_metrics_and_says_so(tmp_path, monkeypatch, openai_server, capsys):
    """`egx bench --no-judge` with an LLM: answers come from the LLM, but no judge call is made, the
    report says why ACC_L is missing, and resuming with the judge on is refused (other settings)."""
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
    assert prompts and not any("Gold answer(s):" in p or "Logical Coherence" in p or "Answer 1:" in p for p in prompts)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge"] == {"not_computed": "not computed: the LLM judge was turned off for this run "
                                                "(egx bench --no-judge)"}
    assert summary["methods"]["dense"]["paper"]["ACC_L"] is None
    capsys.readouterr()
    assert main(args) != 0
    assert "holds a benchmark run with other settings (judge: [False] vs [None])" in capsys.readouterr().err
