"""The replay line under an answer (components/answer_view.llm_cache_line) with the recorded LLM: a run
that replayed some stages and lost others says which ran without the LLM (a browser audit found
"4 of 4 LLM replies replayed" beside "Not a recorded run" on an uploaded MuSiQue corpus)."""

from __future__ import annotations

from components.answer_view import llm_cache_line
from core.trace import Trace


def _trace(llm: str, hits: int, misses: int = 0, missed_stages: tuple[str, ...] = ()) -> Trace:
    t = Trace("bubblerag", "q", backends={"llm": llm})
    step = t.add("keywords", "Keywords")
    for _ in range(hits):
        step.note_cache(True)
    for _ in range(misses):
        step.note_cache(False)
    t.add("answer", "Unified evidence graph and answer")
    if llm == "recorded":
        t.replay = {"recording": "", "matched": False, "complete": not missed_stages,
                    "missed_stages": list(missed_stages)}
    return t


def test_a_complete_replay_says_how_many_replies_were_replayed():
    assert llm_cache_line(_trace("recorded", 3)) == (
        "Recorded LLM run: 3 of 3 LLM replies replayed from the shipped recording (not generated now; see the "
        "provenance in the sidebar).")


def test_a_partial_replay_names_the_stages_that_ran_without_the_llm():
    line = llm_cache_line(_trace("recorded", 4, missed_stages=("Semantic anchor groups and importance weights",
                                                              "Unified evidence graph and answer")))
    assert line.startswith("Recorded LLM run, in part: 4 LLM replies replayed")
    assert "4 of 4" not in line
    assert line.endswith("ran without the LLM: Semantic anchor groups and importance weights; "
                         "Unified evidence graph and answer.")


def test_other_llms_and_no_llm_calls_are_unchanged():
    assert llm_cache_line(_trace("recorded", 0)) == ""  # nothing replayed, nothing asked: the warning says it
    assert llm_cache_line(_trace("local", 0, misses=2)) == "LLM: 2 replies generated now (none from the LLM cache)."
    assert llm_cache_line(_trace("local", 1, misses=1)).startswith("LLM cache: 1 of 2 LLM replies answered")
