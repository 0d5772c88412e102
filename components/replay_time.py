"""How long the real LLM run took, beside this replay's time, for a run replayed from a recording.

With the ``recorded`` LLM a run takes milliseconds, which hides what the method costs with a real
model. The recording bundles keep the seconds and tokens of every stage as measured live
(:func:`core.batch.recording.record`); :func:`stage_times` pairs them with the replay's stages
(:func:`core.batch.recording.stage_times`), and the pages show them per stage
(:func:`stage_time_captions`: a short line each, what the recording was made with on hover) or as a table
(:func:`stage_time_table`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components.ui import md_escape
from core.batch.recording import StageTime, recorded_setup
from core.batch.recording import stage_times as _pair


def stage_times(llm: Any, trace: Any) -> tuple[tuple[StageTime, ...], str] | None:
    """(the stages with their recorded and replay seconds, what the recording was made with) for a
    trace the ``recorded`` LLM replayed from a matching recorded run; None for any other run."""
    find = getattr(llm, "find_run", None)
    if find is None or not (trace.replay or {}).get("matched"):
        return None
    found = find(trace.workspace, trace.method, trace.query, trace.config, trace.backends)
    if found is None:
        return None
    rec, run = found
    return _pair(run, trace), recorded_setup(rec.provenance, run)


#: Marks the time lines (a Material icon: an emoji needs a font the offline browser may lack).
TIMER = ":material/timer:"


def _seconds(s: float) -> str:
    return f"{s:.1f} s" if s >= 0.95 else f"{s:.2f} s" if s >= 0.005 else f"{s * 1000:.1f} ms"


def stage_line(t: StageTime) -> str:
    """``Keyword extraction: 8.5 s when recorded live (LLM stage) · this replay 0.2 ms`` (Markdown, user text
    escaped): short enough to read on a projector; the tokens and what the recording was made with are in
    :func:`stage_help` (an audit found ~200 characters of model and hardware repeated on every line)."""
    title = md_escape(t.title or t.stage)
    if t.recorded_s is None:
        return f"{TIMER} {title}: not in the recording · replay {_seconds(t.replay_s)}"
    if t.cached:  # the recording re-used an earlier run's reply: its seconds are a cache read, not the model's
        return (f"{TIMER} {title}: answered from the LLM cache when recorded (no live time) · this replay "
                f"**{_seconds(t.replay_s)}**")
    what = "LLM stage" if t.llm else "no LLM call"
    return f"{TIMER} {title}: **{_seconds(t.recorded_s)}** when recorded live ({what}) · this replay **{_seconds(t.replay_s)}**"


def stage_help(t: StageTime, setup: str) -> str:
    """The tooltip of :func:`stage_line`: the stage's recorded tokens and what the recording was made with (the
    model, its runtime, the machine, the date)."""
    if t.recorded_s is not None and t.cached:
        what = ("When recorded, an earlier run had asked the same prompt, so its reply came from the LLM cache: there "
                "is no live time.")
    elif t.recorded_s is not None and t.llm:
        what = f"Recorded LLM tokens: {t.prompt_tokens:,} prompt + {t.completion_tokens:,} completion."
    else:
        what = "No LLM call in this stage."
    return (f"{what} Recorded with {md_escape(setup)}. The replay reads the recorded replies, so it takes no LLM "
            "time.")


def stage_time_captions(llm: Any, trace: Any, stages: Sequence[str]) -> None:
    """A short caption per stage of ``stages`` (trace stage names): its recorded live seconds beside this
    replay's, the tokens and the recording's model and machine on hover. Nothing for a run that is not a replay
    of a recording."""
    got = stage_times(llm, trace)
    if got is None:
        return
    times, setup = got
    for t in times:
        if t.stage in stages:
            st.caption(stage_line(t), help=stage_help(t, setup))


def stage_time_frame(times: Sequence[StageTime]) -> pd.DataFrame:
    """The table of :func:`stage_time_table`: one row per stage, recorded seconds beside the replay's."""
    return pd.DataFrame([{"stage": t.stage, "what": t.title,
                          "recorded live (s)": None if t.recorded_s is None else round(t.recorded_s, 3),
                          "LLM when recorded": "✓" if t.llm else "",
                          "recorded tokens": t.prompt_tokens + t.completion_tokens,
                          "this replay (s)": round(t.replay_s, 4)} for t in times])


def stage_time_table(llm: Any, trace: Any) -> None:
    """For a replayed run: every stage's seconds in the recorded live run beside this replay's, with
    the totals and what the recording was made with."""
    got = stage_times(llm, trace)
    if got is None:
        return
    times, setup = got
    recorded = sum(t.recorded_s or 0.0 for t in times)
    replay = sum(t.replay_s for t in times)
    st.markdown(f"**Recorded live run vs this replay** — {_seconds(recorded)} when recorded, {_seconds(replay)} "
                "replayed.")
    st.caption(f"Recorded with {md_escape(setup)}.")  # once, not on every stage's line
    st.dataframe(stage_time_frame(times), hide_index=True, width="stretch")
