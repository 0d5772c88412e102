"""What every method's run shares: the one way a step enters a trace (counted, and stopped by a cancel), the
run preamble (:func:`core.methods.run_start.begin_run`) and the result fields (:class:`core.methods.base.RunResult`)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from core.backends.llm import NoLLM
from core.background.jobs import Job, JobManager
from core.errors import Cancelled, ConfigError, QueryError
from core.methods.base import Backends, RunResult
from core.methods.baselines.common import BaselineResult
from core.methods.baselines.config import DenseConfig, RerankConfig
from core.methods.baselines.hipporag2 import HippoRAG2Result
from core.methods.reg.pipeline import RegResult
from core.methods.run_start import NO_RERANKER_TITLE, begin_run
from core.trace import Step, Trace

WS = SimpleNamespace(name="demo")


def _in_job(fn):
    """Run ``fn(job)`` as a background job and return the finished job."""
    job = JobManager().submit("t", "Test run", fn)
    assert job.wait(10)
    return job


def test_every_way_of_recording_a_step_counts_it_and_stops_on_cancel():
    seen: list[str] = []

    def fn(job: Job) -> None:
        trace = Trace("m", "q")
        trace.add("a", "A", {"x": np.int64(1)})  # a finished step
        with trace.timed("b", "B") as step:  # a timed one
            step.data["y"] = np.float32(0.5)
        trace.record(Step("c", "C", {"z": (1, 2)}))  # a stage that times itself
        seen.extend(s.stage for s in trace.steps)
        assert [s.data for s in trace.steps] == [{"x": 1}, {"y": 0.5}, {"z": [1, 2]}]  # JSON-ready, each way
        job.cancel()
        try:
            trace.record(Step("d", "D"))  # the cancelled run stops right after this step is recorded
        finally:
            seen.append(f"{len(trace.steps)} steps")
        seen.append("not reached")

    job = _in_job(fn)
    assert seen == ["a", "b", "c", "4 steps"]
    assert job.extra["stages_done"] == 4
    with pytest.raises(Cancelled, match="Test run: cancelled"):
        job.result()


def test_a_failing_timed_stage_is_recorded_and_its_own_error_kept():
    def fn(job: Job) -> list[str]:
        trace = Trace("m", "q")
        with pytest.raises(ValueError, match="boom"), trace.timed("a", "A"):
            job.cancel()  # a cancel while the stage fails: its own error is what unwinds, not the cancel
            raise ValueError("boom")
        return [s.stage for s in trace.steps]

    job = _in_job(fn)
    assert job.extra["stages_done"] == 1


def test_the_preamble_checks_the_config_and_the_question_and_begins_the_trace(hashing):
    backends = Backends(hashing, NoLLM())
    start = begin_run("dense", "Who?", WS, None, DenseConfig, backends)
    assert start.config == DenseConfig() and start.reranker is None
    tr = start.trace
    assert (tr.method, tr.query, tr.workspace) == ("dense", "Who?", "demo")
    assert tr.config == dataclasses.asdict(DenseConfig()) and tr.backends == backends.names() and tr.steps == []
    with pytest.raises(ConfigError, match=r"^dense takes a DenseConfig, got RerankConfig\.$"):
        begin_run("dense", "Who?", WS, RerankConfig(), DenseConfig, backends)
    with pytest.raises(ConfigError, match=r"^x takes an DenseConfig, got dict\.$"):
        begin_run("x", "Who?", WS, {}, DenseConfig, backends, article="an")  # type: ignore[arg-type]
    with pytest.raises(QueryError, match=r"^The question is empty\. Type a question to retrieve passages for\.$"):
        begin_run("dense", "  ", WS, None, DenseConfig, backends)
    with pytest.raises(QueryError, match=r"^Say something\.$"):
        begin_run("dense", "", WS, None, DenseConfig, backends, empty_query="Say something.")


def test_a_reranking_method_without_a_reranker_records_the_stand_in_as_a_fallback(hashing):
    start = begin_run("rerank", "Who?", WS, None, RerankConfig, Backends(hashing, NoLLM()), reranker=True)
    assert start.reranker is not None and start.reranker.name == "biencoder"
    assert start.trace.backends["reranker"] == f"biencoder ({start.reranker.model_id})"
    (step,) = start.trace.steps
    assert (step.stage, step.title) == ("reranker", NO_RERANKER_TITLE)
    assert step.fallback.startswith("no reranker configured; using the bi-encoder stand-in")
    given = Backends(hashing, NoLLM(), reranker=start.reranker)
    again = begin_run("rerank", "Who?", WS, None, RerankConfig, given, reranker=True)
    assert again.reranker is start.reranker and again.trace.steps == []  # a configured one: no fallback


def test_results_that_store_the_contract_share_its_fields():
    names = [f.name for f in dataclasses.fields(RunResult)]
    assert names == ["method", "query", "ranked_chunks", "answer", "trace"]
    for cls in (BaselineResult, HippoRAG2Result, RegResult):
        assert issubclass(cls, RunResult) and [f.name for f in dataclasses.fields(cls)][:5] == names
    r = BaselineResult("dense", "q", (), "a", Trace("dense", "q"))
    assert (r.method, r.answer, r.reranker_description) == ("dense", "a", "")
