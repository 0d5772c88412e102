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


def test_while_a_run_builds_what_its_methods_need_the_line_says_it_and_time_left_never_runs_away(tmp_path,
                                                                                                 monkeypatch):
    """An audit's MuSiQue run stood at "4/40 · running fastinsight · 10 %" while FastInsight's node texts were
    embedded, and "time left" grew from 4 to 18 minutes (the run ended at 2 min 35 s). The build now runs before
    the first pair, the line says what is built and how far it is, no run-wide "time left" is measured from the
    stalled pair count, and once the pairs run their time left is theirs alone."""
    from components.jobs_view import status_line
    from core.backends.registry import get_embedder, get_llm
    from core.background.jobs import Job
    from core.eval.runner import run_benchmark
    from core.index.questions import parse_questions
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends
    from tests.eval.test_run_timing import slow_preparation

    now = [1000.0]

    def tick() -> None:  # each step of the build: 40 s on the job's clock
        now[0] += 40.0

    slow_preparation(monkeypatch, "ppr", "Slow build for ppr", 4, tick=tick)
    emb = get_embedder("hashing")
    ws = ensure_sample_workspace("demo", emb, root=tmp_path / "ws")
    qs = parse_questions([{"id": "m", "question": "Who played Agent Smith?", "supporting_facts": [["The Matrix", 0]]},
                          {"id": "l", "question": "When did Lothair II's mother die?",
                           "supporting_facts": [["Lothair II", 0]]}], ws.graph, source="q.json")
    job = Job("bench:x", "Benchmark “x”", lambda j: None, clock=lambda: now[0])
    seen: list[tuple[str, object, str]] = []

    def progress(done: int, total: int, msg: str) -> None:  # as the page's job reports a run's progress
        if msg.endswith(" done"):
            now[0] += 1.0  # each pair: 1 s
        job.report(f"{done}/{total} · {msg}", done / max(total, 1))
        s = job.status()
        seen.append((msg, s.eta, status_line(s)))

    run_benchmark(ws, qs, ["dense", "ppr"], Backends(emb, get_llm("none")), out_dir=tmp_path / "run",
                  progress=progress)
    building = [(eta, line) for msg, eta, line in seen if msg.startswith("preparing Slow build for ppr")]
    assert len(building) == 5  # said at once, then at each of its 4 reports
    assert all(eta is None and "left ·" not in line and not line.endswith(" left") for eta, line in building)
    assert "preparing Slow build for ppr (first use of" in building[0][1]
    assert "about 1 min 30 s left of it" in building[0][1]  # its estimate, before it reports its own rate
    assert "Slow step 2/4 · 50 % of it · about " in building[2][1]  # its own progress and time left
    assert building[0][1].startswith("0/4 · ")  # before the first pair: the pair count has not moved yet
    pairs = [eta for msg, eta, _ in seen if msg.endswith(" done")]
    assert pairs and all(eta is None or eta <= 5.0 for eta in pairs), pairs  # 1 s a pair, never the build's 160 s
    assert any(eta is not None for eta in pairs)


def test_a_builds_own_time_left_comes_from_its_rate_once_measured_else_from_its_estimate():
    from core.eval.timing import preparing_text

    title = "Embedding 16,243 KG node texts for FastInsight (first use of “MuSiQue”)"
    assert preparing_text(title, estimate_s=128.0) == f"preparing {title} · about 2 min 8 s left of it"
    line = preparing_text(title, "Embedding KG node texts: 4,061/16,243", 0.25, 30.0, 128.0)
    assert line.endswith("Embedding KG node texts: 4,061/16,243 · 25 % of it · about 1 min 30 s left of it")
    assert preparing_text(title, "", 0.01, 1.0, 128.0).endswith("about 2 min 7 s left of it")  # too early: estimate
    assert preparing_text(title, "", 0.5, 300.0, 128.0).endswith("about 5 min 0 s left of it")  # slower than said
    assert "left" not in preparing_text(title, "", None, 200.0, 128.0)  # past its estimate, no rate: nothing said


def test_the_estimate_says_what_else_runs_on_the_server(home):
    """Audit 44 trained ReG beside its benchmark: 105.6 s for an estimated 62 s, the machine's load still low when
    the estimate was read. The estimate names the jobs the run will share the CPU with."""
    import threading

    from components import jobs_view

    at = run_page(PAGE)
    at.multiselect(key=S.widget_key(S.BENCH_METHODS, "bench")).set_value(["dense"]).run()
    assert not [e for e in _estimates(at) if "The server also runs" in e]
    gate = threading.Event()
    job = jobs_view.jobs().submit("train:test-beside", "Training", lambda j: gate.wait(30), kind="train",
                                  session="")  # the server's own: every session sees it
    try:
        at.run()
        (said,) = _estimates(at)
        assert "The server also runs 1 other job now (the sidebar lists it)" in said, said
    finally:
        gate.set()
        job.wait(30)
