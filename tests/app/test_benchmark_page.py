"""The Benchmark page (issue 6): run with progress, charts, the per-question table (AppTest)."""

from __future__ import annotations

from components import state as S
from core.eval.runner import RESULTS
from tests.app.helpers import run_page

PAGE = "pages/benchmark.py"


def test_benchmark_page_runs_and_shows_report(home, tmp_path):
    out = tmp_path / "bench"
    at = run_page(PAGE)
    assert at.title[0].value == "Benchmark"
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense", "ppr"])
    at.number_input(key=S.widget_key(S.BENCH_LIMIT, "bench")).set_value(2)
    at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).set_value(str(out))
    at.run()
    at.button(key=S.BENCH_RUN).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert (out / RESULTS).exists() and len((out / RESULTS).read_text().splitlines()) == 4
    assert any("4 runs now" in s.value for s in at.success)
    summary = at.dataframe[0].value
    assert list(summary["method"]) == ["dense", "ppr"] and "R@5" in summary.columns
    charts = at.get("plotly_chart")
    assert len(charts) == 3
    table = at.dataframe[1].value
    assert len(table) == 4 and {"question", "method", "verdict", "why"} <= set(table.columns)
    at.multiselect(key=S.BENCH_FILTER_METHOD).set_value(["ppr"]).run()
    assert set(at.dataframe[1].value["method"]) == {"ppr"}
    # open a question on the Compare page
    q = at.selectbox(key=S.BENCH_OPEN_PICK).value
    at.button(key=S.BENCH_OPEN).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state[S.COMPARE_QUESTION] == q
    assert at.title[0].value == "Compare methods"


def test_benchmark_page_loads_a_report_and_reports_bad_folders(home, tmp_path):
    at = run_page(PAGE)
    at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).set_value(str(tmp_path / "b")).run()
    at.button(key=S.BENCH_RUN).click().run()
    at2 = run_page(PAGE)
    inputs = [t for t in at2.text_input if t.label == "Benchmark folder"]
    inputs[0].set_value(str(tmp_path / "b")).run()
    at2.button(key=S.BENCH_LOAD).click().run()
    assert not at2.exception and len(at2.get("plotly_chart")) == 3
    next(t for t in at2.text_input if t.label == "Benchmark folder").set_value(str(tmp_path / "nothing")).run()
    at2.button(key=S.BENCH_LOAD).click().run()
    assert any("there is no results.jsonl in this folder" in e.value for e in at2.error)
