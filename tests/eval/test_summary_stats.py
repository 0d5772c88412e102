"""Every aggregate figure of a benchmark summary carries its interval and every two methods a paired result
(core.eval.summary_stats through core.eval.report); summaries written before still render."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.eval.report import markdown_report, metric_rows, paper_rows, summarize
from core.eval.report_charts import charts_html, recall_figure
from core.eval.stats import bootstrap_interval, compare_paired
from core.eval.summary_stats import best_two, pairs_between, record_scores, with_interval

N = 30


def _records(method: str, r5: list[float], *, judged: bool = False, emp: float | None = None) -> list[dict]:
    out = []
    for i, v in enumerate(r5):
        r = {"question_id": f"q{i:02d}", "method": method, "question": f"question {i}", "gold": ["c1"],
             "answers": ["A"], "ranked": ["c1"], "scores": [1.0],
             "metrics": {"R@2": v / 2, "R@5": v, "R@10": max(v, 0.5), "nDCG@10": v * 0.9},
             "answer": "A", "answer_judged": judged, "em": (1.0 if v > 0.5 else 0.0) if judged else None,
             "f1": v if judged else None, "seconds": 0.1, "stages": {}, "tokens": {"total": 0},
             "diagnosis": {"stage": "ok"}, "error": None,
             "paper": {"precision": v, "recall": v, "f1": v, "hit": float(v > 0), "hit1": float(v > 0), "matched": 1,
                       "predicted": 1, "gold": 1}}
        if emp is not None:
            r["judge"] = {"model": "fake:judge", "ACC_L": float(v > 0.5), "Emp.S": emp + (i % 3), "why": ""}
        out.append(r)
    return out


@pytest.fixture(scope="module")
def records():
    rng = np.random.default_rng(0)
    base = list(rng.choice([0.0, 0.5, 1.0], size=N))
    better = [min(1.0, v + 0.5) if i % 2 else v for i, v in enumerate(base)]  # ahead on every other question
    close = [v if i % 5 else (1.0 - v) for i, v in enumerate(base)]  # a few flips either way: noise
    return (_records("dense", base, judged=True, emp=1.0) + _records("ppr", better, judged=True, emp=1.0)
            + _records("bubblerag", close, judged=True, emp=1.0))


def test_every_mean_has_the_interval_of_its_per_question_scores(records):
    s = summarize(records)
    dense = s["methods"]["dense"]
    want = {"R@2", "R@5", "R@10", "nDCG@10", "answers EM", "answers F1", "paper Precision", "paper Recall",
            "paper F1", "paper Macro-F1", "paper Hit", "paper Hit@1", "ACC_L", "Emp.S"}
    assert want <= set(dense["intervals"])
    r5 = [r["metrics"]["R@5"] for r in sorted(records, key=lambda r: r["question_id"]) if r["method"] == "dense"]
    iv = bootstrap_interval(r5)  # oracle: the module's own bootstrap of the same questions' scores
    assert dense["intervals"]["R@5"] == {"low": iv.low, "high": iv.high, "n": N}
    assert dense["intervals"]["R@5"]["low"] <= dense["metrics"]["R@5"] <= dense["intervals"]["R@5"]["high"]
    em = dense["intervals"]["answers EM"]
    assert em["low"] <= dense["answers"]["EM"] <= em["high"] and em["n"] == N
    assert dense["intervals"]["paper Macro-F1"] == dense["intervals"]["paper F1"]  # the mean of the same F1s
    assert s["stats"]["n_resamples"] == 10_000 and s["stats"]["level"] == 0.95
    assert json.loads(json.dumps(s)) == s  # summary.json keeps it as it is


def test_pairs_cover_every_two_methods_on_the_headline_metrics(records):
    s = summarize(records)
    got = {(p["a"], p["b"], p["metric"]) for p in s["pairs"]}
    assert got == {(a, b, m) for a, b in (("dense", "ppr"), ("dense", "bubblerag"), ("ppr", "bubblerag"))
                   for m in ("R@2", "R@5", "nDCG@10", "EM", "F1")}
    p = next(p for p in s["pairs"] if (p["a"], p["b"], p["metric"]) == ("dense", "ppr", "R@5"))
    scores = {m: record_scores([r for r in records if r["method"] == m]) for m in ("dense", "ppr")}
    oracle = compare_paired("dense", scores["dense"]["R@5"], "ppr", scores["ppr"]["R@5"], metric="R@5")
    assert p == oracle.to_dict()
    assert p["better"] == "ppr" and p["words"].endswith(": ppr is better") and p["losses"] > 0 and p["wins"] == 0
    noise = next(p for p in s["pairs"] if (p["a"], p["b"], p["metric"]) == ("dense", "bubblerag", "R@5"))
    assert noise["verdict"] == "noise" and "within noise (the interval holds 0)" in noise["words"]


def test_unjudged_answers_are_not_compared():
    recs = _records("dense", [0.0, 1.0] * 6) + _records("ppr", [1.0, 1.0] * 6)
    s = summarize(recs)
    assert {p["metric"] for p in s["pairs"]} == {"R@2", "R@5", "nDCG@10"}
    assert not {"answers EM", "answers F1", "ACC_L"} & set(s["methods"]["dense"]["intervals"])


def test_under_five_questions_no_interval_and_the_run_says_why():
    """An audit's benchmark after ReG training ran 2 questions a method and read "R@2 50.0 [50.0, 50.0]"."""
    from core.eval.run_notes import run_note_items
    from core.eval.summary_stats import MIN_INTERVAL_QUESTIONS

    assert MIN_INTERVAL_QUESTIONS == 5
    s = summarize(_records("dense", [1.0, 0.0]) + _records("ppr", [0.0, 0.0]))
    assert s["methods"]["dense"]["intervals"] == {} and s["methods"]["ppr"]["intervals"] == {}
    notes = dict(run_note_items(s))
    assert notes["No intervals"].startswith("dense ran on 2 questions, ppr ran on 2 questions: under 5 questions")
    five = summarize(_records("dense", [1.0, 0.0, 1.0, 1.0, 0.0]))
    assert set(five["methods"]["dense"]["intervals"]) and "No intervals" not in dict(run_note_items(five))


def test_few_passages_note_speaks_of_the_reports_recall_not_the_diagnosis_cut():
    """Audit 40: "a method's top 15 holds all of them, so recall@15 cannot tell" (the verdicts' cut) beside a table of
    R@2, R@5 and R@10, while the Benchmark page's warning said top 5."""
    from core.eval.run_notes import REPORT_TOP_K, run_note_items

    s = summarize(_records("dense", [1.0, 0.0]))
    s["settings"] = {"cut": 15, "content": {"passages": 8}}
    few = dict(run_note_items(s))["Few passages"]
    assert REPORT_TOP_K == 5 and "top 5 holds 5 of them" in few and "recall@5" in few and "15" not in few
    s["settings"]["content"]["passages"] = 40
    assert "Few passages" not in dict(run_note_items(s))


def test_the_same_extracted_sentence_from_every_method_is_said():
    """Audit 40: Hit 27.3 % for all 8 methods without an LLM (each quoted the same sentence) read as broken."""
    from core.eval.run_notes import run_note_items

    recs = _records("dense", [1.0, 0.0, 1.0]) + _records("ppr", [0.0, 0.0, 1.0])
    for r in recs:
        r.update(answer_judged=False, answer=f"Sentence {r['question_id']}.")
    recs[-1]["answer"] = "Another  sentence."
    s = summarize(recs)
    assert s["extracted_alike"] == {"questions": 3, "same": 2}
    assert dict(run_note_items(s))["Same answers"].startswith("On 2 of 3 questions every method's answer was the same")
    for r in recs:
        r.update(answer_judged=True, em=0.0, f1=0.0)  # an LLM wrote them: no note
    assert "extracted_alike" not in summarize(recs)


def test_one_question_gets_no_interval_and_no_verdict():
    s = summarize(_records("dense", [1.0]) + _records("ppr", [0.0]))
    assert s["methods"]["dense"]["intervals"] == {}
    assert s["pairs"][0]["verdict"] == "too_few" and "too few questions to tell" in s["pairs"][0]["words"]
    assert "| dense | 1 | 50.0 | 100.0 |" in markdown_report(s)  # the value alone, never a [x, x] "interval"


def test_the_report_shows_intervals_question_counts_and_method_vs_method(records):
    s = summarize(records)
    md = markdown_report(s)
    row = next(line for line in md.splitlines() if line.startswith("| ppr | 30 |"))
    iv = s["methods"]["ppr"]["intervals"]["R@5"]
    cell = f"{100 * s['methods']['ppr']['metrics']['R@5']:.1f} [{100 * iv['low']:.1f}, {100 * iv['high']:.1f}]"
    assert cell in row
    assert "each with its 95 % interval in brackets" in md and "(10,000 resamples; 30 questions)" in md
    section = md[md.index("## Method vs method"):md.index("## The papers' answer metrics")]
    assert "**dense vs ppr**" in section and ": ppr is better." in section
    assert "R@5 points on 30 questions: within noise (the interval holds 0)." in section
    assert "sign test p = " in section and "Wilcoxon p = " in section
    paper = next(line for line in md.splitlines() if line.startswith("| dense | 30 |") and line.count("[") >= 6)
    assert paper.rstrip(" |").split(" | ")[-1].count(".") == 3  # Emp.S on its 0–3 scale, two decimals, with interval


def test_charts_carry_error_bars_and_the_paired_differences(records):
    s = summarize(records)
    fig = recall_figure(s)
    r5 = next(t for t in fig.data if t.name == "R@5")
    dense = s["methods"]["dense"]
    assert r5.error_y.array[0] == pytest.approx(100 * (dense["intervals"]["R@5"]["high"] - dense["metrics"]["R@5"]))
    assert r5.error_y.arrayminus[0] == pytest.approx(100 * (dense["metrics"]["R@5"] - dense["intervals"]["R@5"]["low"]))
    page = charts_html(s)
    assert "Paired R@5 differences with 95 % intervals" in page and "with 95 % intervals" in page


def test_a_pair_read_the_other_way_round_is_the_negated_interval(records):
    s = summarize(records)
    (got,) = [c for c in pairs_between(s, "ppr", "dense") if c.metric == "R@5"]
    scores = {m: record_scores([r for r in records if r["method"] == m]) for m in ("dense", "ppr")}
    direct = compare_paired("ppr", scores["ppr"]["R@5"], "dense", scores["dense"]["R@5"], metric="R@5")
    assert got.difference.low == pytest.approx(direct.difference.low, abs=1e-12)
    assert got.difference.high == pytest.approx(direct.difference.high, abs=1e-12)
    assert (got.wins, got.ties, got.losses, got.better) == (direct.wins, direct.ties, direct.losses, "ppr")
    assert best_two(s) == ("ppr", "dense") or best_two(s) == ("ppr", "bubblerag")


def test_a_summary_written_before_intervals_still_renders(records):
    s = summarize(records)
    old = json.loads(json.dumps(s))
    for m in old["methods"].values():
        del m["intervals"]
    del old["pairs"], old["stats"]
    md = markdown_report(old)
    assert "| dense | 30 | " in md and "[" not in md.split("## Retrieval")[1].split("##")[0]
    assert "## Method vs method" not in md and "written before intervals were computed" in md
    assert recall_figure(old).data[0].error_y.array is None
    assert "Paired R@5 differences" not in charts_html(old)
    assert metric_rows(old)[0]["R@5"] == with_interval(s["methods"]["dense"]["metrics"]["R@5"])
    assert paper_rows(old, intervals=True)[0]["F1"] == with_interval(s["methods"]["dense"]["paper"]["F1"])
    assert pairs_between(old, "dense", "ppr") == []
