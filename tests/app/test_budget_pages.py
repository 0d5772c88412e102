"""The answer budget on the Compare and Benchmark pages: chosen next to the methods, shown with what each method
handed its answer (AppTest)."""

from __future__ import annotations

import json

import pytest

from components import state as S
from core.eval.report import RESULTS
from tests.app.helpers import plain, run_page


def test_compare_page_runs_every_method_under_the_chosen_budget(home):
    at = run_page("pages/compare.py")
    at.multiselect(key=S.widget_key(S.COMPARE_METHODS, "compare")).set_value(["dense", "sgrag", "reg"]).run()
    # it starts like for like: BubbleRAG §4.1's one budget for every method (the demo has 23 passages)
    first = at.dataframe[0].value.set_index("method")
    assert first.loc["Naive RAG", "ctx chunks"] == 15 and (first["ctx chunks"] <= 15).all()
    # SG-RAG and ReG hand over triples / chains: the caption says what their ctx chunks and tokens count (an audit
    # read ReG's 9 chunks of 418 tokens as a contradiction)
    cap = next(plain(c.value) for c in at.caption if "Not passages" in c.value)
    assert ("Not passages: **SG-RAG** handed subgraph triples, **ReG** evidence chains — their ctx chunks count the "
            "passages") in cap, cap
    assert any(plain(c.value).startswith("**Answer budget: bubblerag** — BubbleRAG §4.1") for c in at.caption)
    assert at.number_input(key=S.widget_key(S.COMPARE_CUT, "compare")).value == 15
    box = at.selectbox(key=S.widget_key(S.COMPARE_BUDGET, "compare"))
    assert box.value == "bubblerag" and "§4.1" in (box.help or "")  # the help quotes each paper's protocol
    box.set_value("own").run()
    own = at.dataframe[0].value.set_index("method")
    assert (own["ctx chunks"] > 0).all() and own.loc["Naive RAG", "ctx chunks"] == 5  # each method's paper default
    assert any(plain(c.value).startswith("**Answer budget: own** — each method's own paper default") for c in at.caption)
    assert at.number_input(key=S.widget_key(S.COMPARE_CUT, "compare")).value == 5
    at.selectbox(key=S.widget_key(S.COMPARE_BUDGET, "compare")).set_value("fastinsight").run()
    assert not at.exception, [e.value for e in at.exception]
    budgeted = at.dataframe[0].value.set_index("method")
    assert (budgeted["ctx chunks"] <= 10).all() and budgeted.loc["Naive RAG", "ctx chunks"] == 10
    caption = next(c for c in at.caption if plain(c.value).startswith("**Answer budget: fastinsight**"))
    assert len(plain(caption.value)) < 200  # short enough for a projector; what each method was handed on hover
    assert "in the tables; under the (?) icon." in plain(caption.value)  # an audit read "on the ? here" as a broken link
    per = plain(caption.proto.help)
    assert "dense: 10 chunks /" in per and "- reg: " in per and "- sgrag: " in per
    assert at.number_input(key=S.widget_key(S.COMPARE_CUT, "compare")).value == 10  # the cut follows the budget
    at.selectbox(key=S.widget_key(S.COMPARE_BUDGET, "compare")).set_value("custom").run()
    # the caption names the custom budget the table was run under (an audit read "bubblerag ≤ 15 chunks" over a table
    # of 10 chunks a method)
    assert any(plain(c.value).startswith("**Answer budget: 10** — custom: ≤ 10 chunks") for c in at.caption), [
        plain(c.value) for c in at.caption if "Answer budget" in c.value]
    at.text_input(key=S.widget_key(S.COMPARE_BUDGET_CUSTOM, "compare")).set_value("many").run()
    assert any("Budget 'many' is not a budget" in e.value for e in at.error)


@pytest.mark.parametrize("isolated", ["1", "0"])  # in a worker process (the default), and in the server's
def test_benchmark_page_runs_under_a_budget_and_shows_what_was_handed(home, monkeypatch, isolated):
    monkeypatch.setenv("EGX_BUILD_ISOLATED", isolated)
    at = run_page("pages/benchmark.py")
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense", "ppr"])
    at.number_input(key=S.widget_key(S.BENCH_LIMIT, "bench")).set_value(2)
    at.selectbox(key=S.widget_key(S.BENCH_BUDGET, "bench")).set_value("custom").run()
    at.text_input(key=S.widget_key(S.BENCH_BUDGET_CUSTOM, "bench")).set_value("3,300tok").run()
    name = at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).value
    assert name == "demo-hashing-none-budget-3-300tok"  # its own run name: never resumed under another budget
    at.button(key=S.BENCH_RUN).click().run()
    assert not at.exception, [e.value for e in at.exception]
    out = home / "runs" / name
    assert json.loads((out / "run.json").read_text())["settings"]["budget"] == "3,300tok"
    recs = [json.loads(x) for x in (out / RESULTS).read_text().splitlines()]
    assert len(recs) == 4 and all(r["context"]["chunks"] <= 3 and r["context"]["tokens"] <= 300 for r in recs)
    # the metrics are three tables that each fit 1440 px: the context sizes are in the cost table
    summary = next(d.value for d in at.dataframe if "ctx chunks (max)" in d.value.columns).set_index("method")
    assert (summary["ctx chunks (max)"] <= 3).all() and (summary["ctx tokens (max)"] <= 300).all()
    assert any("ctx recall" in d.value.columns for d in at.dataframe)
    assert any(plain(c.value).startswith("Answer budget: 3,300tok — custom: ≤ 3 chunks, ≤ 300 tokens") for c in at.caption)
    # the per-question table says the budget and the context of every row
    table = next(d.value for d in at.dataframe if "context chunks" in d.value.columns)
    assert set(table["budget"]) == {"3,300tok"} and (table["context chunks"] <= 3).all()


def test_benchmark_page_starts_at_the_like_for_like_budget(home):
    at = run_page("pages/benchmark.py")
    assert at.selectbox(key=S.widget_key(S.BENCH_BUDGET, "bench")).value == "bubblerag"
    assert at.text_input(key=S.widget_key(S.BENCH_OUT, "bench")).value == "demo-hashing-none-budget-bubblerag"
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense", "ppr"])
    at.number_input(key=S.widget_key(S.BENCH_LIMIT, "bench")).set_value(2).run()
    at.button(key=S.BENCH_RUN).click().run()
    assert not at.exception, [e.value for e in at.exception]
    # within the budget's 15 chunks no gold passage of these two questions was lost: said, not an empty chart
    assert len(at.get("plotly_chart")) == 3
    assert any("**Where the gold evidence was lost**: nowhere" in c.value and "top 15" in c.value for c in at.caption)


@pytest.mark.parametrize(("llm", "held", "start"), [
    ("none", set(), "bubblerag"),                                  # no recording involved: BubbleRAG §4.1's budget
    ("recorded", {("demo", "own"), ("demo", "bubblerag")}, "bubblerag"),  # recorded under it too: replays
    ("recorded", {("demo", "own"), ("musique", "bubblerag")}, "own"),     # this workspace only at own: starts there
    ("recorded", set(), "bubblerag"),                              # nothing recorded here: nothing to keep
])
def test_a_comparison_starts_where_the_recorded_answers_are(monkeypatch, llm, held, start):
    from components import budget_view, resources

    monkeypatch.setattr(resources, "recorded_budgets", lambda key: frozenset(held))
    got, why = budget_view.default_budget(llm, "demo")
    assert got == start
    assert bool(why) == (start == "own") and (not why or "own budget only" in why)
