"""core.batch.recording.stage_times / recorded_setup: a replayed run's stages beside the seconds its recording
kept for them (the live run's), matched by stage name and occurrence, and what they were measured with."""

from __future__ import annotations

import pytest

from core.backends.llm_bundles import RECORDINGS_DIR, load_recording
from core.batch.recording import recorded_models, recorded_setup, stage_times
from core.trace import Trace

RUN = {"stages": [{"stage": "keywords", "title": "Keywords", "seconds": 8.527, "prompt_tokens": 487,
                   "completion_tokens": 52},
                  {"stage": "reasoning", "seconds": 20.0, "prompt_tokens": 500, "completion_tokens": 40},
                  {"stage": "reasoning", "seconds": 19.0, "prompt_tokens": 600, "completion_tokens": 60},
                  {"stage": "ranking", "seconds": 0.0, "prompt_tokens": 0, "completion_tokens": 0}]}


def _trace(*stages: tuple[str, float]) -> Trace:
    t = Trace("bubblerag", "q", "demo")
    for name, secs in stages:
        t.add(name, name.title(), seconds=secs)
    return t


def test_stages_pair_by_name_and_occurrence_not_position() -> None:
    # the replay has a stage the recording lacks (first) and skips "ranking": nothing shifts
    t = _trace(("embed_query", 0.01), ("keywords", 0.002), ("reasoning", 0.5), ("reasoning", 0.25))
    times = stage_times(RUN, t)
    assert [s.stage for s in times] == ["embed_query", "keywords", "reasoning", "reasoning"]
    assert times[0].recorded_s is None and times[0].replay_s == 0.01 and not times[0].llm
    assert (times[1].recorded_s, times[1].replay_s, times[1].prompt_tokens, times[1].completion_tokens) == \
        (8.527, 0.002, 487, 52)
    assert times[1].llm
    assert [(s.recorded_s, s.replay_s, s.prompt_tokens) for s in times[2:]] == [(20.0, 0.5, 500), (19.0, 0.25, 600)]


def test_a_stage_without_llm_tokens_is_no_llm_stage_and_bad_records_are_skipped() -> None:
    run = {"stages": [{"stage": "ranking", "seconds": 0.0}, "junk", {"stage": "answer", "seconds": "?"}]}
    times = stage_times(run, _trace(("ranking", 0.003), ("answer", 0.1)))
    assert times[0].recorded_s == 0.0 and not times[0].llm
    assert times[1].recorded_s is None  # a value that is no number is not shown as one
    assert stage_times({}, _trace(("keywords", 1.0)))[0].recorded_s is None


def test_setup_names_model_runtime_threads_and_the_live_machine_only() -> None:
    prov = {"model": "Qwen2.5-Coder-1.5B-Instruct", "quantization": "Q4_K_M", "backend": "local", "n_threads": 1,
            "machine": "bundle machine", "date": "2026-11-27"}
    live = {"date": "2026-11-26T10:00:00+00:00", "state_source": {"how": "recorded live", "machine": "x86_64, 2 CPU"}}
    assert recorded_setup(prov, live) == "Qwen2.5-Coder-1.5B-Instruct Q4_K_M · llama.cpp, 1 thread · x86_64, 2 CPU · " \
                                         "2026-11-26"
    # a re-taped run kept the seconds of the machine it was first recorded on: no machine is named
    retaped = {"state_source": {"how": "re-taped: replayed …", "machine": "other"}}
    assert recorded_setup(prov, retaped) == "Qwen2.5-Coder-1.5B-Instruct Q4_K_M · llama.cpp, 1 thread · 2026-11-27"
    served = recorded_setup({"model": "m", "quantization": "(server side)", "backend": "openai"}, {})
    assert served == "m · OpenAI-compatible server"


@pytest.mark.parametrize("bundle", ["demo-local.json", "demo-local-bubblerag.json"])
def test_the_shipped_demo_runs_keep_live_seconds_for_every_llm_stage(bundle: str) -> None:
    """What the pages show comes from the shipped bundle: each BubbleRAG run of the demo keeps its stages'
    live seconds, and every stage that asked the LLM took seconds, not milliseconds, on the 1.5B model — also in
    the bundle recorded under a budget with the replies it left unchanged reused (their stages keep the live
    seconds of the run they came from: Compare's "live s" read 0.0 for BubbleRAG there)."""
    rec = load_recording(RECORDINGS_DIR / bundle)
    runs = [r for r in rec.runs if r["method"] == "bubblerag"]
    assert len(runs) == 5
    for run in runs:
        llm_stages = [s for s in run["stages"] if s["prompt_tokens"] + s["completion_tokens"] > 0]
        assert {s["stage"] for s in llm_stages} >= {"keywords", "grouping", "answer"}
        # a stage the recording answered from the LLM cache (an earlier run's reply) has no live time, and says so
        live = [s for s in llm_stages if s.get("cached") is not True]
        assert "grouping" in {s["stage"] for s in live}, run["question"]
        assert all(s["seconds"] > 1.0 for s in live), run["question"]
    assert recorded_models("demo", runs[0]["question"]) == {"embedder": rec.provenance["embedder"],
                                                           "reranker": rec.provenance["reranker"]}
    assert recorded_models("demo", "a question nobody recorded") == {}


def test_a_stage_the_recording_read_from_the_llm_cache_shows_no_live_time() -> None:
    from components.replay_time import stage_help, stage_line

    t = Trace("bubblerag", "q")
    t.add("keywords", "Keyword extraction", seconds=0.0002)
    t.add("grouping", "Anchor groups", seconds=0.0003)
    got = stage_times({"stages": [{"stage": "keywords", "seconds": 0.001, "prompt_tokens": 480, "cached": True},
                                  {"stage": "grouping", "seconds": 41.5, "prompt_tokens": 700, "cached": False}]}, t)
    assert [x.cached for x in got] == [True, False]
    assert "answered from the LLM cache when recorded" in stage_line(got[0])
    assert "**41.5 s** when recorded live (LLM stage) · this replay" in stage_line(got[1])
    # the tokens and what the recording was made with are on hover, not on every line (an audit: ~200 characters
    # of model and hardware per line, unreadable on a projector)
    assert "setup" not in stage_line(got[1]) and len(stage_line(got[1])) < 100
    assert "700 prompt + 0 completion" in stage_help(got[1], "setup") and "Recorded with setup" in stage_help(
        got[1], "setup")
    assert "LLM cache" in stage_help(got[0], "setup")
