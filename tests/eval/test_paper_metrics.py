"""The papers' own answer metrics against hand-computed values, and the LLM judges
with a scripted LLM (prompts, parsing, the "not computed" path)."""

from __future__ import annotations

import json

import pytest

from core.backends.llm import NoLLM
from core.eval.paper_metrics import (
    NO_JUDGE,
    AnswerSetScores,
    aggregate_answer_sets,
    answer_items,
    answer_set_scores,
    judge_accuracy,
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


def test_acc_l_with_a_scripted_judge():
    llm = ScriptedLLM('{"correct": 1}', repeat_last=False)
    acc = judge_accuracy("In which town was Oskel Optics founded?", "Brevik", ["Brevik"], llm)
    assert acc.value == 1.0
    assert "Gold answer(s): Brevik" in llm.prompts[0] and "Model answer: Brevik" in llm.prompts[0]
    assert judge_accuracy("q", "", ["a"], ScriptedLLM(repeat_last=False)).value == 0.0  # no answer: no call


def test_a_judge_that_gives_no_usable_reply_is_not_counted():
    bad = ScriptedLLM('{"correct": 7}')
    j = judge_accuracy("q", "a", ["a"], bad)
    assert j.value is None and "must be 0 or 1, not 7" in j.why
    assert judge_accuracy("q", "a", ["a"], NoLLM()).value is None


def test_bench_reports_the_papers_metrics_and_says_what_it_could_not_compute(tmp_path, capsys):
    from core.cli import main

    out = tmp_path / "b"
    assert main(["bench", "--workspace", "demo", "--embedder", "hashing", "--methods", "dense,ppr", "--limit", "2",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "## The papers' answer metrics" in text
    assert "ACC_L, Emp.S and the pairwise win rate: not computed: no judge LLM was chosen" in text
    summary = json.loads((out / "summary.json").read_text())
    paper = summary["methods"]["dense"]["paper"]
    assert paper["n"] == 2 and paper["ACC_L"] is None and paper["Emp.S"] is None
    assert 0.0 <= paper["Hit"] <= 1.0 and paper["Micro-F1"] is not None
    assert summary["judge"] == {"not_computed": NO_JUDGE}
    recs = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    for r in recs:  # the record's scores are those of its answer
        s = answer_set_scores(r["answer"], r["answers"])
        assert r["paper"]["hit"] == s.hit and r["paper"]["f1"] == pytest.approx(s.f1)


def test_micro_f1_never_passes_one_when_an_answer_holds_two_aliases():
    """An audit read Micro-F1 "105.9" on a corpus whose gold lists two forms of one answer ("Pellow Reach", "the Pellow
    Reach crossing"): a one-sentence answer holding both matched twice over one item, and the pooled precision summed
    those. A question's matches count up to its items, as its own Precision does."""
    from core.eval.reproduce_record import micro_f1_interval

    both = answer_set_scores("It worked only the Pellow Reach crossing.", ["Pellow Reach", "the Pellow Reach crossing"])
    assert (both.matched, both.predicted, both.precision) == (2, 1, 1.0)
    agg = aggregate_answer_sets([both, both, answer_set_scores("Brevik", ["Brevik"])])
    assert agg["Micro-F1"] == pytest.approx(1.0)
    wrong = answer_set_scores("Oslo", ["Varn"])
    assert 0 < aggregate_answer_sets([both, wrong])["Micro-F1"] < 1
    recs = [{"paper": {"matched": x.matched, "predicted": x.predicted, "gold": x.gold}} for x in (both, both, wrong, both)]
    iv = micro_f1_interval(recs)
    assert iv is not None and iv["high"] <= 1.0


def test_an_answer_and_its_aliases_are_one_gold_answer():
    """Aliases (MuSiQue's ``answer_aliases``) are other forms of one answer: counting each as a gold answer of its own
    put a right answer's Recall at 1/3 (an audit read Micro-F1 and Hit apart on its own questions file)."""
    one = [("Pellow Reach", "the Pellow Reach crossing", "Pellow")]
    s = answer_set_scores("It worked only the Pellow Reach crossing.", one)
    assert (s.matched, s.predicted, s.gold, s.recall, s.hit) == (1, 1, 1, 1.0, 1.0)
    assert answer_set_scores("Pellow", one).recall == 1.0
    flat = answer_set_scores("Pellow", list(one[0]))  # the same strings as three answers
    assert flat.gold == 3 and flat.recall < 1
    # an answer set: each group counts; a group matched by two of its forms counts once
    two = answer_set_scores("Brevik (Brevik harbour)\nOslo", [("Brevik", "Brevik harbour"), ("Varn",)])
    assert (two.matched, two.gold, two.recall, two.precision) == (1, 2, 0.5, 0.5)
