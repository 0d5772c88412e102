"""The Benchmark page says how long a run will take before Run, and a finished run's report says where its wall
time went beside the methods' own seconds (AppTest)."""

from __future__ import annotations

from components import state as S
from tests.app.helpers import plain, run_page

PAGE = "pages/benchmark.py"


def _estimates(at):
    return [plain(c.value) for c in at.caption if "Estimate:" in plain(c.value)]


def test_an_estimate_before_run_and_the_wall_time_after(home):
    at = run_page(PAGE)
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense", "ppr"])
    at.number_input(key=S.widget_key(S.BENCH_LIMIT, "bench")).set_value(2)
    at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).set_value("timed").run()
    assert not at.exception, [e.value for e in at.exception]
    # no run yet: the methods' seconds measured on the MuSiQue sample, and what lies outside the methods
    (first,) = _estimates(at)
    assert "2 questions × 2 methods" in first and "measured on the MuSiQue sample (1,890 passages) for dense, ppr" in first
    assert "outside them" in first
    at.button(key=S.BENCH_RUN).click().run()
    assert not at.exception, [e.value for e in at.exception]
    # the report: the run's wall time, the methods' part and the phases outside them, beside the s / q column
    times = [plain(c.value) for c in at.caption if "**Time** — wall" in plain(c.value)]
    assert len(times) == 1, [c.value for c in at.caption]
    assert "methods" in times[0] and "(4 runs)" in times[0] and "report (intervals, summary, files)" in times[0]
    assert "Seconds are each method's own" in times[0]
    # the next estimate reads this run's seconds
    again = run_page(PAGE)
    again.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense", "ppr", "rerank"])
    again.number_input(key=S.widget_key(S.BENCH_LIMIT, "bench")).set_value(2).run()
    (second,) = _estimates(again)
    assert "earlier runs of this workspace and LLM (“timed”)" in second
    assert "measured on the MuSiQue sample (1,890 passages) for rerank" in second  # the method that run lacked
    assert "as in the run “timed”" in second  # its start-up, set-up and report


def test_no_estimate_without_a_method(home):
    at = run_page(PAGE)
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value([]).run()
    assert not at.exception and not _estimates(at)
