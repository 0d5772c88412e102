"""The Benchmark page shows every figure with its interval and says which differences between two methods are
real; a run folder written before intervals existed loads the same way (AppTest)."""

from __future__ import annotations

import json

from components import state as S
from core.eval.report import RESULTS
from tests.app.helpers import plain, run_page

N = 40


def _old_run(folder, per_method):
    """A run folder as older versions wrote it: results.jsonl only (no run.json, no summary keys of today)."""
    folder.mkdir(parents=True)
    lines = []
    for method, r5 in per_method.items():
        for i, v in enumerate(r5):
            lines.append({"question_id": f"q{i:02d}", "method": method, "question": f"Question {i}?", "gold": ["c1"],
                          "answers": ["A"], "ranked": ["c1"], "scores": [1.0],
                          "metrics": {"R@2": v, "R@5": v, "R@10": v, "nDCG@10": v}, "answer": "A",
                          "answer_judged": False, "em": None, "f1": None, "seconds": 0.1, "stages": {},
                          "tokens": {"total": 0}, "diagnosis": {"stage": "ok"}, "error": None})
    (folder / RESULTS).write_text("".join(json.dumps(x) + "\n" for x in lines))


def _panel_words(at):
    return [plain(m.value) for m in at.markdown if " points on " in m.value]


def test_intervals_and_which_differences_are_real(home):
    base = [1.0 if i % 2 else 0.0 for i in range(N)]
    _old_run(home / "runs" / "old", {
        "dense": base,
        "ppr": [1.0 if i % 2 or i % 4 == 0 else 0.0 for i in range(N)],  # ahead on 10 of 40, never behind
        "bubblerag": [1.0 - v if i in (0, 1, 2, 3) else v for i, v in enumerate(base)],  # two up, two down
    })
    at = run_page("pages/benchmark.py")
    at.selectbox(key=S.BENCH_LOAD_PICK).set_value("old")
    at.button(key=S.BENCH_LOAD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value.set_index("method")
    assert table.loc["dense", "R@5"].startswith("50.0 [") and table.loc["ppr", "R@5"].startswith("75.0 [")
    assert any("95 % bootstrap interval of each mean" in c.value and f"{N} questions" in c.value for c in at.caption)
    # what R@k is, by the table: capped recall can fall as k grows (an audit read R@2 > R@5 as a bug), and what it
    # divides by (a later audit recomputed R@2 uncapped and got other numbers), in the caption and the headers' help
    assert any("R@k is capped: hits in the top k / min(k, number of gold passages)" in c.value
               and "can fall as k grows" in c.value for c in at.caption)
    from components import bench_view

    helps = {c: bench_view._columns(at.dataframe[0].value, [c])[c]["help"] for c in ("R@2", "R@5", "R@10")}
    assert all(h.startswith(f"Capped Recall@{c[2:]}: ") and f"over min({c[2:]}, the question's gold passages)" in h
               for c, h in helps.items()), helps
    from components.benchmark_view import PER_QUESTION_COLUMNS  # the per-question table's R@k, the same words

    assert all(PER_QUESTION_COLUMNS[c]["help"] == helps[c] for c in helps)
    # the panel starts on the two best by R@5, and says the gap is real
    assert at.selectbox(key=S.BENCH_PAIR_A).value == "ppr" and at.selectbox(key=S.BENCH_PAIR_B).value in (
        "dense", "bubblerag")
    at.selectbox(key=S.BENCH_PAIR_B).set_value("dense").run()
    words = _panel_words(at)  # each method by the papers' name, with the registry name the tables use
    assert len(words) == 3  # R@2, R@5, nDCG@10 (no judged answers: no EM / F1)
    assert all("HippoRAG PPR (ppr) − Naive RAG (dense) = +25.0 [" in w and f"on {N} questions: HippoRAG PPR (ppr) is better" in w for w in words), words
    assert all("HippoRAG PPR (ppr) wins 10, ties 30, loses 0; sign test p = 0.002" in w for w in words)
    # dense vs bubblerag: two questions each way is noise
    at.selectbox(key=S.BENCH_PAIR_A).set_value("dense").run()
    at.selectbox(key=S.BENCH_PAIR_B).set_value("bubblerag").run()
    words = _panel_words(at)
    assert words and all("Naive RAG (dense) − BubbleRAG (bubblerag) = 0.0 [" in w and "within noise (the interval holds 0)" in w for w in words)
    # recall, latency and the paired differences; every question "ok", so where evidence was lost is said in words
    assert len(at.get("plotly_chart")) == 3
    assert any("**Where the gold evidence was lost**: nowhere" in c.value for c in at.caption)
    assert not at.exception, [e.value for e in at.exception]


def test_a_run_of_one_method_has_nothing_to_compare(home):
    _old_run(home / "runs" / "solo", {"dense": [1.0, 0.0, 1.0]})
    at = run_page("pages/benchmark.py")
    at.button(key=S.BENCH_LOAD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("This run has one method: there is nothing to compare" in i.value for i in at.info)
    assert len(at.get("plotly_chart")) == 2  # recall and latency (no question lost its evidence: said in words)


def test_an_interval_cell_fits_its_column(home):
    """An audit found "100.0 [100.0, 100.0" cut at the edge of its 112-px column: a column is as wide as its widest
    figure with its interval."""
    from components.bench_view import fit_width
    from tests.app.test_answers_and_tables import _widths

    _old_run(home / "runs" / "full", {"dense": [1.0] * 6, "ppr": [0.5] * 6})
    at = run_page("pages/benchmark.py")
    at.selectbox(key=S.BENCH_LOAD_PICK).set_value("full")
    at.button(key=S.BENCH_LOAD).click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0]
    cell = table.value.set_index("method").loc["dense", "R@5"]
    assert cell == "100.0 [100.0, 100.0]", cell
    widths = _widths(table)
    assert widths["R@5"] >= fit_width([cell]) > 112, widths
    assert fit_width(["50.0 [35.0, 65.0]"]) <= 113  # the usual figure keeps its narrow column
