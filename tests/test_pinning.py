"""The state tape of :mod:`core.pinning`: what a recorded run's decisions read is handed back, bit for bit,
when that run is replayed; a live run is untouched; a miss is listed (or, strict, raised) and never hidden."""

from __future__ import annotations

import numpy as np
import pytest

from core.pinning import (
    ReplayMissError,
    ReplayStatus,
    StateTape,
    current_tape,
    decode_array,
    encode_array,
    pin,
    pin_flag,
    pin_search,
    replay_notice,
    replay_status,
    tape_scope,
)
from core.trace import Trace


@pytest.mark.parametrize("arr", [
    np.array([0.6507, 0.6475, -1e-30, np.inf], dtype=np.float32),
    np.array([[1.0, 2.5], [np.nextafter(1.0, 2.0), -0.0]], dtype=np.float64),
    np.array([3, -7, 2**40], dtype=np.int64),
    np.array([True, False]),
    np.zeros((0, 5), dtype=np.float32),
    np.array(0.25, dtype=np.float32),
])
def test_arrays_round_trip_bit_for_bit(arr):
    back = decode_array(encode_array(arr))
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert back.tobytes() == np.ascontiguousarray(arr).tobytes()


def test_a_damaged_array_is_refused():
    one = encode_array(np.array([1.5]))
    with pytest.raises(ValueError, match="1 values for shape"):
        decode_array(one.replace("f8:1:", "f8:2:"))
    with pytest.raises(ValueError, match="unknown array type"):
        decode_array("c16:1:AAAA")


def test_without_a_tape_every_pin_returns_its_input_unchanged():
    assert current_tape() is None
    v = np.array([0.3, 0.1], dtype=np.float32)
    assert pin("x.scores", v, ids=[4, 2]) is v
    s, i = np.zeros((1, 2)), np.zeros((1, 2), dtype=np.int64)
    assert pin_search("x.search", s, i) == (s, i)
    assert pin_flag("x.budget", True) is True


def _record(values_by_call):
    tape = StateTape("record")
    with tape_scope(tape):
        for site, ids, key, v in values_by_call:
            pin(site, v, ids=ids, key=key)
    return tape


def test_a_replay_hands_back_the_recorded_scores_not_the_ones_computed_now():
    here = np.array([0.6507, 0.6475], dtype=np.float32)  # the recording machine's near-tie
    tape = _record([("bubble.preview", [7, 3], "", here)])
    there = np.array([0.6475, 0.6507], dtype=np.float32)  # another CPU orders it the other way
    replay = StateTape("replay", dict(tape.entries))
    with tape_scope(replay):
        got = pin("bubble.preview", there, ids=[7, 3])
    assert got.tobytes() == here.tobytes() and replay.hits == 1 and not replay.misses
    # the dtype of the value computed now is kept (a float64 caller gets float64)
    replay = StateTape("replay", dict(tape.entries))
    with tape_scope(replay):
        assert pin("bubble.preview", there.astype(np.float64), ids=[7, 3]).dtype == np.float64


def test_one_site_called_for_several_texts_and_twice_for_the_same_one():
    a, b, c = (np.array([x], dtype=np.float32) for x in (0.1, 0.2, 0.3))
    tape = _record([("cands", None, "Keanu", a), ("cands", None, "Matrix", b), ("cands", None, "Keanu", c)])
    assert len(tape.entries) == 3
    replay = StateTape("replay", dict(tape.entries))
    with tape_scope(replay):  # by key first, then in call order among equal keys
        got = [float(pin("cands", np.zeros(1, np.float32), key=k)[0]) for k in ("Matrix", "Keanu", "Keanu")]
    assert got == pytest.approx([0.2, 0.1, 0.3]) and not replay.misses


def test_scores_recorded_for_other_items_are_a_miss_not_a_silent_substitute():
    tape = _record([("reg.triples", [1, 2, 3], "", np.array([0.5, 0.4, 0.3]))])
    replay = StateTape("replay", dict(tape.entries))
    now = np.array([0.9, 0.8, 0.7])
    with tape_scope(replay):
        other = pin("reg.triples", now, ids=[1, 2, 4])  # other items: computed now, and listed
        same = pin("reg.triples", now, ids=[1, 2, 3])
    assert np.array_equal(other, now) and same.tolist() == [0.5, 0.4, 0.3]
    assert replay.misses == ["reg.triples (not on the tape)"] and replay.hits == 1
    # the same ids with another shape of scores: recorded for other items
    replay = StateTape("replay", dict(tape.entries))
    with tape_scope(replay):
        pin("reg.triples", np.zeros(4), ids=[1, 2, 3])
    assert replay.misses == ["reg.triples (recorded for other items)"]


def test_strict_replay_raises_at_the_first_miss_naming_the_site():
    replay = StateTape("replay", {}, strict=True)
    with tape_scope(replay), pytest.raises(ReplayMissError, match=r"'sgrag\.normalize' \(Keanu\) is not on the tape"):
        pin("sgrag.normalize", np.zeros(2), key="Keanu")


def test_search_results_and_flags_are_pinned_too():
    tape = StateTape("record")
    with tape_scope(tape):
        pin_search("dense.search", np.array([[0.9, 0.8]], np.float32), np.array([[4, 1]]), key="q")
        pin_flag("bubble.budget", False, key="hop 1")
    replay = StateTape("replay", dict(tape.entries))
    with tape_scope(replay):
        s, i = pin_search("dense.search", np.array([[0.8, 0.9]], np.float32), np.array([[1, 4]]), key="q")
        cut = pin_flag("bubble.budget", True, key="hop 1")  # a slow machine ran out of time; the recording did not
    assert i.tolist() == [[4, 1]] and np.allclose(s, [[0.9, 0.8]]) and cut is False


def test_a_damaged_entry_is_a_miss():
    tape = _record([("x", None, "", np.arange(3.0))])
    bad = {k: v[:-4] + "!!!!" for k, v in tape.entries.items()}
    replay = StateTape("replay", bad)
    with tape_scope(replay):
        assert pin("x", np.ones(3)).tolist() == [1.0, 1.0, 1.0]
    assert replay.misses == ["x (recorded for other items)"]


def test_tapes_are_per_context_and_restored():
    outer = StateTape("record")
    with tape_scope(outer):
        with tape_scope(None):
            assert current_tape() is None
        assert current_tape() is outer
    assert current_tape() is None


def _trace(*fallbacks: str) -> Trace:
    t = Trace("bubblerag", "q")
    for i, f in enumerate(fallbacks):
        t.add(f"s{i}", f"Stage {i}", fallback=f)
    return t


def test_status_and_notice_of_a_full_a_partial_and_an_unmatched_replay():
    tape = StateTape("replay", {})
    full = replay_status(_trace("", ""), tape, "Qwen Q4, recorded 2026-11-24")
    assert full.complete and replay_notice(full.to_dict()) == ""
    partial = replay_status(_trace("", "LLM call failed: This question/stage was not recorded (...)"), tape, "r")
    assert not partial.complete and partial.missed_stages == ("Stage 1",)
    text = replay_notice(partial.to_dict())
    assert text.startswith("Partly replayed: stages Stage 1 ran without the LLM because their prompts were not "
                           "recorded") and "This is not the recorded run" in text
    tape.misses.append("fastinsight.granker (not on the tape)")
    text = replay_notice(replay_status(_trace(""), tape, "r").to_dict())
    assert "retrieval state at fastinsight.granker (not on the tape) was not on the recording" in text
    unmatched = replay_status(_trace("x was not recorded"), None, "r")
    assert not unmatched.matched and replay_notice(unmatched.to_dict()).startswith("Not a recorded run")
    # an unmatched run may still have had a reply replayed (the same prompt elsewhere, the cache): the notice
    # does not claim every stage ran without the LLM (a browser audit saw it beside "1 of 1 replayed")
    assert "every LLM stage" not in replay_notice(unmatched.to_dict())
    assert ReplayStatus.from_dict(partial.to_dict()) == partial
    assert replay_notice({}) == "" and replay_notice(None) == ""
