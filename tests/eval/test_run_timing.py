"""A benchmark run says where its wall time went (the methods' own seconds, and each phase outside them), and how
long a run will take before it starts."""

from __future__ import annotations

import json
import os
import re
import time

import pytest

from core.backends.registry import get_embedder, get_llm
from core.eval.bench_report import load_report
from core.eval.estimate import DEFAULT_SECONDS, MEASURED, estimate_run
from core.eval.report import REPORT, TIMING
from core.eval.report_charts import answer_source, failure_figure
from core.eval.runner import run_benchmark
from core.eval.timing import PhaseClock, timing_line
from core.index.questions import parse_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_phases_split_the_pairs_wall_time_into_methods_and_the_time_between_them():
    clock = FakeClock(100.0)
    pc = PhaseClock(started=97.5, clock=clock, load=lambda: None)  # the worker began 2.5 s before the run
    clock.t = 101.0
    pc.lap("set-up")
    clock.t = 131.0  # 30 s of pairs, of which the methods took 22
    pc.lap("pairs")
    clock.t = 131.0
    pc.lap("judge")
    clock.t = 135.0
    pc.lap("report")
    t = pc.figures([10.0, 12.0], pairs=2)
    assert t["methods"] == 22.0 and t["between methods"] == 8.0
    assert t["start-up"] == 2.5 and t["set-up"] == 1.0 and t["report"] == 4.0 and t["judge"] == 0.0
    assert t["wall"] == pytest.approx(135.0 - 97.5)  # every phase adds up to the wall time
    line = timing_line(t)
    assert line.startswith("wall 37.5 s: methods 22.0 s (2 runs)")
    assert "between methods (scoring, diagnosis, writing each pair) 8.0 s" in line
    assert "judge" not in line  # a phase that took nothing is left out
    assert line.endswith("41% of it outside the methods")


def test_methods_slower_than_the_clock_never_give_negative_time_between_them():
    clock = FakeClock(0.0)
    pc = PhaseClock(clock=clock)  # no start-up known (the page's own process)
    clock.t = 1.0
    pc.lap("pairs")
    t = pc.figures([1.5], pairs=1)
    assert t["between methods"] == 0.0 and "start-up" not in t
    assert timing_line({}) == "" and timing_line(None) == ""


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    emb = get_embedder("hashing")
    ws = ensure_sample_workspace("demo", emb, root=tmp_path_factory.mktemp("ws"))
    return ws, Backends(emb, get_llm("none"))


def test_a_run_keeps_its_timing_and_the_report_says_it(demo, tmp_path):
    ws, backends = demo
    qs = parse_questions([{"id": "m", "question": "Who played Agent Smith?", "supporting_facts": [["The Matrix", 0]]},
                          {"id": "l", "question": "When did Lothair II's mother die?",
                           "supporting_facts": [["Lothair II", 0]]}], ws.graph, source="q.json")
    out = tmp_path / "run"
    rep = run_benchmark(ws, qs, ["dense", "ppr"], backends, out_dir=out, started=time.time() - 5)  # its start-up
    t = rep.summary["timing"]
    assert t["pairs"] == 4
    assert t["methods"] == pytest.approx(sum(r["seconds"] for r in rep.records), abs=0.01)
    assert t["wall"] >= t["methods"] + t["start-up"] and t["start-up"] >= 5
    assert json.loads((out / TIMING).read_text()) == t
    text = (out / REPORT).read_text()
    assert f"**Time** — {timing_line(t)}." in text
    assert "Seconds are each method's own" in text
    # a run read back (the page's report) keeps it
    assert load_report(out).summary["timing"] == t
    # a rerun with nothing left to run keeps the timing of the run that ran
    again = run_benchmark(ws, qs, ["dense", "ppr"], backends, out_dir=out)
    assert again.ran == 0 and json.loads((out / TIMING).read_text()) == t
    assert again.summary["timing"] == t and f"**Time** — {timing_line(t)}." in (out / REPORT).read_text()


def test_the_failure_note_names_the_runs_llm():
    def summary(llm):
        return {"settings": {"backends": {"llm": llm}},
                "methods": {"dense": {"diagnosis": {"answer_wrong": 1}}}}

    assert "without an LLM the answer is an extracted sentence" in answer_source(summary("none"))
    none_ws = "none (no LLM: the recorded LLM x holds no run of this workspace)"
    assert "extracted sentence" in answer_source(summary(none_ws))
    recorded = answer_source(summary("recorded (recorded:llama.cpp:qwen)"))
    assert "recorded LLM" in recorded and "extracted sentence" not in recorded
    assert "local" in answer_source(summary("local (llama.cpp:qwen)"))
    title = failure_figure(summary("recorded (recorded:llama.cpp:qwen)")).layout.title.text
    assert "recorded LLM" in title and "without an LLM" not in title


def _old_run(root, name, workspace, llm, seconds, timing=None):
    d = root / name
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"settings": {"workspace": workspace, "backends": {"llm": llm}}}))
    (d / "results.jsonl").write_text("".join(json.dumps({"method": m, "seconds": s, "error": None}) + "\n"
                                             for m, ss in seconds.items() for s in ss))
    if timing is not None:
        (d / "timing.json").write_text(json.dumps(timing))


def test_the_estimate_reads_earlier_runs_of_the_same_workspace_and_llm(tmp_path):
    root = tmp_path / "runs"
    est = estimate_run(root, "musique", "recorded", ["dense", "rerank"], 10)  # no runs yet: measured defaults
    assert est.sources == {"dense": MEASURED, "rerank": MEASURED}
    assert est.in_methods == pytest.approx(10 * (DEFAULT_SECONDS["dense"] + DEFAULT_SECONDS["rerank"]))
    assert "measured on the MuSiQue sample" in est.sentence() and "10 questions × 2 methods" in est.sentence()
    assert "scaled" not in est.sentence()  # the size unknown: the measured figures as they are
    _old_run(root, "other-ws", "demo", "recorded", {"rerank": [50.0]})  # another workspace: not read
    _old_run(root, "mine", "musique", "recorded (recorded:q)", {"rerank": [3.0, 5.0]},
             timing={"wall": 30, "methods": 8, "pairs": 2, "start-up": 2.0, "report": 4.0, "between methods": 1.0})
    est = estimate_run(root, "musique", "recorded", ["dense", "rerank"], 10)
    assert est.sources == {"dense": MEASURED, "rerank": "mine"} and est.per_question["rerank"] == 4.0
    assert est.overhead == pytest.approx(2.0 + 4.0 + 1.0 / 2 * 20)  # fixed phases + 0.5 s between each of 20 pairs
    assert "“mine”" in est.sentence() and est.total > est.in_methods
    # a small new workspace: the reranking methods' defaults shrink with its passages (at most 100 pairs scored),
    # dense search's does not, nor FastInsight's (its KG nodes: an audit's 8-passage KG had over 100); without an
    # LLM each method's extractive answer is added. Two audits' runs of 12 questions × 8 methods, no LLM: 39 passages,
    # 73.7 s in the methods at load 4.8; 8 passages, 218 s at load 8.5 (its estimate, scaled and without the answers,
    # was 16 s)
    # ... and never below what the quickest of the quiet audits' first runs took (NO_LLM_FLOOR): nine audits' first
    # runs on 8-file corpora took about twice the scaled defaults (audit 47: 57 s estimated, 84.5 s run)
    from core.eval.estimate import NO_LLM_ANSWER_S, NO_LLM_FLOOR, SIZE_SCALING, default_seconds

    small = estimate_run(root, "lh", "none", list(DEFAULT_SECONDS), 12, passages=39)
    assert small.per_question["rerank"] == pytest.approx(DEFAULT_SECONDS["rerank"] * 0.39 + NO_LLM_ANSWER_S)
    assert small.per_question["ppr"] == pytest.approx(max(DEFAULT_SECONDS["ppr"] * SIZE_SCALING["ppr"][1]  # its floor
                                                          + NO_LLM_ANSWER_S, NO_LLM_FLOOR["ppr"]))
    assert small.per_question["fastinsight"] == NO_LLM_FLOOR["fastinsight"]
    assert all(small.per_question[m] >= NO_LLM_FLOOR[m] for m in NO_LLM_FLOOR)
    # within a quarter of that 39-passage run (73.7 s at load 4.8), as the 8-passage one below is of audit 47's
    assert 73.7 * 0.75 < small.in_methods < 73.7 * 1.25 and "scaled to this workspace's 39 passages" in small.sentence()
    assert "0.25 s each for the extractive answer (no LLM) and at least what an 8-file corpus" in small.sentence()
    eight = estimate_run(root, "lh", "none", list(DEFAULT_SECONDS), 11, passages=8).in_methods
    assert 79.4 * 0.7 < eight < 79.4  # audit 47's first run: 11 questions × 8 methods, 79.4 s in the methods
    assert 218 / 5 < estimate_run(root, "lh", "none", list(DEFAULT_SECONDS), 12, passages=8).in_methods < 218
    recorded = estimate_run(root, "lh", "recorded", ["dense"], 12, passages=39)  # replayed answers cost nothing
    assert recorded.per_question["dense"] == DEFAULT_SECONDS["dense"] and "extractive" not in recorded.sentence()
    assert all(default_seconds(m, 5000) == s for m, s in DEFAULT_SECONDS.items())  # never above the measured
    # a live LLM that no earlier run used: its answers' time is unknown, the figure a lower bound
    live = estimate_run(root, "musique", "local", ["dense"], 5)
    assert live.lower_bound and "at least" in live.sentence()


def test_the_estimate_reads_the_run_of_the_most_questions_not_only_the_newest(tmp_path):
    """An audit's 12-question run took 79 s; its next run of 3 questions (each method's first question loads its
    models) made the next 12-question estimate 2 min 18 s, and the Questions box's default fell to 3. The estimate
    reads the newest of the runs that ran a method on the most questions (up to the asked count)."""
    import os

    root = tmp_path / "runs"
    _old_run(root, "big", "ws", "none", {"dense": [0.5] * 12},
             timing={"wall": 9, "pairs": 12, "start-up": 2.0, "report": 1.0, "between methods": 1.2})
    _old_run(root, "small", "ws", "none", {"dense": [1.6] * 3},
             timing={"wall": 9, "pairs": 3, "start-up": 5.0, "report": 1.0, "between methods": 0.3})
    os.utime(root / "big" / "results.jsonl", (1, 1))  # the 12-question run is the older one
    est = estimate_run(root, "ws", "none", ["dense"], 12)
    assert est.sources == {"dense": "big"} and est.per_question["dense"] == 0.5
    assert "“big”" in est.overhead_source and est.overhead == pytest.approx(2.0 + 1.0 + 1.2 / 12 * 12)
    # asked for 3: both ran at least 3, so the newest of them
    assert estimate_run(root, "ws", "none", ["dense"], 3).sources == {"dense": "small"}


def test_a_resumed_run_is_estimated_on_the_pairs_it_has_left(tmp_path):
    """An audit's fully resumed benchmark (88 of 88 pairs in its folder) said "about 40 s left" and ended in 8 s."""
    from core.eval.estimate import pairs_done, remaining_estimate

    out = tmp_path / "run"
    assert pairs_done(out, ["dense"], ["q1"]) == 0  # no folder yet
    out.mkdir()
    rows = [{"question_id": q, "method": m} for q in ("q1", "q2", "q3") for m in ("dense", "ppr")]
    (out / "results.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n{torn", encoding="utf-8")
    assert pairs_done(out, ["dense", "ppr"], ["q1", "q2", "q3"]) == 6
    assert pairs_done(out, ["dense", "rerank"], ["q1", "q2", "q4"]) == 2  # only pairs this run would write
    assert remaining_estimate(40.0, 4.0, 88, 88) == pytest.approx(4.0)  # all done: the fixed costs are left
    assert remaining_estimate(40.0, 4.0, 88, 44) == pytest.approx(22.0)
    assert remaining_estimate(40.0, 4.0, 88, 0) == pytest.approx(40.0)


def test_the_fast_signed_rank_test_gives_scipys_p_values_with_ties_and_zeros():
    """The report's Wilcoxon p-values for up to 13 questions are enumerated in one matrix product (scipy's
    permutation test took ~10 s of a 10-question × 8-method report): the same figures as scipy's."""
    import numpy as np
    from scipy.stats import wilcoxon

    from core.eval.stats import EXACT_SIGN_FLIPS_UP_TO, wilcoxon_test

    rng = np.random.default_rng(7)
    checked = 0
    for trial in range(120):
        n = int(rng.integers(1, EXACT_SIGN_FLIPS_UP_TO + 1))
        d = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0, 0.25], size=n) if trial % 3 else rng.normal(size=n)
        if not np.any(d):
            continue
        assert wilcoxon_test(d) == pytest.approx(float(wilcoxon(d, zero_method="wilcox").pvalue), rel=1e-12, abs=1e-15)
        checked += 1
    assert checked > 100


def slow_preparation(monkeypatch, method, title, steps, *, step_s=0.0, tick=None):
    """``core.methods.run.pending_preparations`` with one more preparation for ``method`` until it is built: its
    work reports ``steps`` progress lines, sleeping ``step_s`` (or calling ``tick``) before each. Returns the list
    each build appends to (it must be built once)."""
    import core.methods.run as R

    real, built = R.pending_preparations, []

    def work(progress):
        for i in range(steps):
            if tick is not None:
                tick()
            time.sleep(step_s)
            if progress is not None:
                progress(f"Slow step {i + 1}/{steps}", (i + 1) / steps)
        built.append(title)

    def pending(spec, ws, backends, config=None):
        out = real(spec, ws, backends, config)
        if spec.name == method and not built:
            out.append(R.PendingPreparation(f"slow:{title}", f"{title} (first use of “{ws.title}”)", work, 90.0,
                                            "stated"))
        return out

    monkeypatch.setattr(R, "pending_preparations", pending)
    return built


def test_what_a_method_needs_built_first_is_timed_as_its_own_phase_not_between_methods(demo, tmp_path, monkeypatch):
    """An audit's MuSiQue run embedded FastInsight's 16,243 node texts inside its first FastInsight pair, and the
    Time line put those 131 s under "between methods (scoring, diagnosis, writing each pair)". The build is its own
    phase, named, and "between methods" holds only the time around the pairs."""
    ws, backends = demo
    built = slow_preparation(monkeypatch, "ppr", "Slow build for ppr", 3, step_s=0.5)
    qs = parse_questions([{"id": "m", "question": "Who played Agent Smith?", "supporting_facts": [["The Matrix", 0]]},
                          {"id": "l", "question": "When did Lothair II's mother die?",
                           "supporting_facts": [["Lothair II", 0]]}], ws.graph, source="q.json")
    out = tmp_path / "run"
    rep = run_benchmark(ws, qs, ["dense", "ppr"], backends, out_dir=out)
    t = rep.summary["timing"]
    assert built == ["Slow build for ppr"]  # built once, before the pairs (a pair would have built it again)
    assert "Slow build for ppr" in t["prepared"] and t["preparing"] >= 1.5
    assert t["between methods"] < 1.5  # the build is not time between the methods
    assert t["wall"] == pytest.approx(sum(float(t[k]) for k in ("methods", "set-up", "preparing", "between methods",
                                                                "judge", "report")), abs=0.05)
    line = timing_line(t)
    assert re.search(r"preparing \([^)]*Slow build for ppr, first use\) \d+\.\d s", line), line
    assert "between methods" not in line or line.index("preparing") < line.index("between methods")
    assert f"**Time** — {line}." in (out / REPORT).read_text()
    assert json.loads((out / TIMING).read_text()) == t
    # a timing.json from before the build was timed apart reads as it was written
    old = {"wall": 155.0, "methods": 20.0, "pairs": 40, "set-up": 4.0, "between methods": 131.0}
    assert "between methods (scoring, diagnosis, writing each pair) 131 s (2 min 11 s)" in timing_line(old)
    assert "preparing" not in timing_line(old)


def test_a_run_records_how_busy_the_machine_was_while_its_pairs_ran():
    clock = FakeClock(0.0)
    loads = iter([(0.5, 2), (3.5, 2)])  # the pairs' start, then their end
    pc = PhaseClock(clock=clock, load=lambda: next(loads))
    pc.lap("set-up")  # not a phase the load is read at
    pc.lap("preparing")
    clock.t = 20.0
    pc.lap("pairs")
    t = pc.figures([15.0], pairs=4)
    assert t["load"] == pytest.approx(2.0) and t["cores"] == 2
    assert "busy" not in timing_line(t)  # load 2 on 2 cores: nothing waited for a CPU
    assert "the machine was busy (load 3.1 on 2 cores)" in timing_line({**t, "load": 3.1})
    unknown = PhaseClock(clock=clock, load=lambda: None)  # Windows: no load average
    unknown.lap("pairs")
    assert "load" not in unknown.figures([1.0], pairs=1)


def test_the_estimate_says_when_the_machine_is_busier_than_when_its_seconds_were_measured(tmp_path):
    """An audit's estimate of 47 s, from a run measured on a quieter machine, ran 94 s beside a test suite."""
    root = tmp_path / "runs"
    _old_run(root, "quiet", "ws", "none", {"rerank": [4.0]},
             timing={"wall": 10, "methods": 4, "pairs": 1, "report": 1.0, "load": 1.2, "cores": 2})
    est = estimate_run(root, "ws", "none", ["rerank"], 10)
    assert est.loads == {"rerank": 1.2} and est.overhead_load == 1.2
    assert est.under_load(1.9, 2) is est  # no more runnable work than CPUs: nothing waits
    assert est.under_load(None, 2) is est  # the load unknown (Windows)
    assert est.under_load(2.1, 2) is est  # busy, but hardly busier than when measured
    busy = est.under_load(4.5, 2)
    assert busy.busy and busy.total == est.total  # said, not scaled: the load did not predict the slowdown
    assert "busy now (load 4.5 on 2 cores; these seconds were measured at load 1.2)" in busy.sentence()
    assert "may take longer" in busy.sentence()
    # with the range's top: the run's share of 2 cores beside load 4.5 (an audit's first run took 1.9× at load 5)
    from core.eval.estimate import duration

    assert f"up to about {duration(est.total * 5.5 / 2)} (2.8×) if it gets only its share" in busy.sentence()
    # ... and the range leads the line (audit 41 read "about 1 min 7 s" first and waited 3 min 7 s at load 5.5)
    assert busy.sentence().startswith(f"Estimate: about {duration(est.total)} on a quiet machine, up to about "
                                      f"{duration(est.total * 5.5 / 2)} on this busy one — ")
    assert "quiet machine" not in est.sentence()
    defaults = estimate_run(root, "ws", "none", ["rerank", "dense"], 10)  # dense: a measured default
    assert "measured on a quieter machine" in defaults.under_load(3.5, 2).sentence()
    newer = time.time() + 5
    _old_run(root, "busy-run", "ws", "none", {"rerank": [9.0]},
             timing={"wall": 20, "methods": 9, "pairs": 1, "report": 1.0, "load": 4.0, "cores": 2})
    os.utime(root / "busy-run" / "results.jsonl", (newer, newer))
    later = estimate_run(root, "ws", "none", ["rerank"], 10)  # measured beside other work already
    assert later.per_question["rerank"] == 9.0 and later.under_load(4.5, 2) is later
