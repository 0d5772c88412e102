"""Recording under a comparison budget: replies the shipped bundles hold answer the requests a budget leaves
unchanged (:func:`core.batch.recording.reuse_recorded`), a recorded run replays under any budget that maps onto
the same settings (the budget's name is a label), and the bundles say which budgets they hold."""

from __future__ import annotations

import json

from core.backends.base import ChatMessage
from core.backends.llm_bundles import Recorder, recorded_budgets, save_recording, write_bundle
from core.backends.llm_cache import CachedLLM, DiskCache
from core.backends.llm_recorded import RecordedLLM
from core.batch.recording_reuse import reuse_recorded, reused_stage_seconds
from tests.fakes import ScriptedLLM

ASKED = [ChatMessage("user", "Which film?")]


def _bundle(tmp_path, runs, *, replies=("The Matrix",), name="rec.json", model="scripted"):
    """A bundle whose entries are the live replies of a fake model to ``ASKED`` (and its ``runs``)."""
    rec = Recorder()
    llm = CachedLLM(ScriptedLLM(*replies, name=model), DiskCache(tmp_path / f"cache-{name}"), recorder=rec)
    llm.chat(ASKED)
    entries = rec.take()
    prov = {"model_id": f"fake:{model}", "model_key": llm.model_key, "model": "Fake", "quantization": "none"}
    path = tmp_path / name
    for run in runs:
        save_recording(path, prov, run, entries)
    return path


def test_reused_replies_answer_the_same_request_without_asking_the_model(tmp_path):
    bundle = _bundle(tmp_path, [{"workspace": "demo", "method": "dense", "question": "q"}])
    fake = ScriptedLLM("a live reply", name="scripted")
    llm = CachedLLM(fake, DiskCache(tmp_path / "fresh"))
    keys = reuse_recorded(llm, [bundle])
    assert len(keys) == 1
    r = llm.chat(ASKED)
    assert r.text == "The Matrix" and r.cached and not fake.calls  # the recorded reply, no model time
    llm.chat([ChatMessage("user", "Which villain?")])  # a request the budget changed: asked live
    assert len(fake.calls) == 1


def test_replies_of_another_model_or_failed_ones_are_never_reused(tmp_path):
    other = _bundle(tmp_path, [{"workspace": "demo", "method": "dense", "question": "q"}], model="other",
                    name="other.json")
    fake = ScriptedLLM("live", name="scripted")
    llm = CachedLLM(fake, DiskCache(tmp_path / "fresh"))
    assert reuse_recorded(llm, [other]) == set()
    assert llm.chat(ASKED).text == "live"
    failed = _bundle(tmp_path, [{"workspace": "demo", "method": "dense", "question": "q"}], name="failed.json")
    data = json.loads(failed.read_text())
    for e in data["entries"].values():  # a timed-out, a rejected and a cut reply replay as such, never as a reply
        e.update(error="timed out", invalid="unusable JSON", truncated=True)
    write_bundle(failed, data)
    assert reuse_recorded(CachedLLM(ScriptedLLM("x", name="scripted"), DiskCache(tmp_path / "f2")), [failed]) == set()


def test_a_run_replays_under_a_budget_whose_settings_are_its_own(tmp_path):
    own = {"max_chunks": 15, "k_chunks": 5, "answer_budget": "own"}
    bundle = _bundle(tmp_path, [{"workspace": "demo", "method": "bubblerag", "question": "q", "config": own,
                                 "backends": {"embedder": "e"}}])
    rec = RecordedLLM([bundle])
    same = {**own, "answer_budget": "bubblerag"}  # BubbleRAG §4.1's budget is BubbleRAG's own 15 chunks
    assert rec.find_run("demo", "bubblerag", "q", same, {"embedder": "e"}) is not None
    assert rec.find_run("demo", "bubblerag", "q", {**same, "max_chunks": 5}, {"embedder": "e"}) is None


def test_the_bundles_say_which_budgets_they_hold_per_workspace(tmp_path):
    a = _bundle(tmp_path, [{"workspace": "demo", "method": "dense", "question": "q", "config": {"top_k": 10}},
                           {"workspace": "demo", "method": "dense", "question": "q2",
                            "config": {"answer_budget": "bubblerag"}}], name="a.json")
    b = _bundle(tmp_path, [{"workspace": "musique", "method": "reg", "question": "q",
                            "config": {"answer_budget": "own"}}], name="b.json")
    assert recorded_budgets([a, b]) == {("demo", "own"), ("demo", "bubblerag"), ("musique", "own")}


def test_a_reused_stage_keeps_the_live_seconds_of_the_run_it_came_from():
    earlier = {"stages": [{"stage": "keywords", "seconds": 8.5, "prompt_tokens": 480, "completion_tokens": 20},
                          {"stage": "answer", "seconds": 17.8, "prompt_tokens": 385, "completion_tokens": 8}]}
    now = [{"stage": "keywords", "seconds": 0.001, "prompt_tokens": 480, "completion_tokens": 20, "cached": True},
           {"stage": "answer", "seconds": 0.002, "prompt_tokens": 981, "completion_tokens": 8, "cached": True}]
    out = reused_stage_seconds(now, earlier)
    assert (out[0]["seconds"], out[0]["reused"], out[0]["cached"]) == (8.5, True, False)
    # another request (the budget's longer answer prompt, cached from another method's identical one): not reused
    assert out[1]["seconds"] == now[1]["seconds"] and "reused" not in out[1]  # passed through, not recomputed
    assert reused_stage_seconds(now, None) == now
