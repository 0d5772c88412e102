"""A frame slider with step / play controls for replaying an iterative stage.

``frame_controls`` draws the slider and the buttons (keys ``S.sub(key, "first" | "prev" | "play" |
"next" | "jump" | "last")``) and returns the frame to show;
``continue_playing`` (called at the very end of the page, after everything is drawn) advances the
frame and reruns while the player is playing. The play loop lives on the server, so every frame
goes through the same page code as a manual step (the side panel always matches the drawing).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Literal

import streamlit as st

from components import state as S

FRAME_DELAY_S = 0.35


def _pending_key(key: str) -> str:
    return S.sub(key, "pending")


def _go(key: str, frame: int) -> None:
    S.set_value(key, frame)


def _play(key: str, playing_key: str, n: int) -> None:
    if st.session_state.get(playing_key):
        st.session_state[playing_key] = False
        return
    if int(st.session_state.get(key, 0)) >= n - 1:  # at the end: play again from the start
        S.set_value(key, 0)
    st.session_state[playing_key] = True


def frame_controls(key: str, playing_key: str, n: int, marks: Sequence[int], *, label: str = "Frame",
                   help_text: str = "", show_label: bool = True) -> int:
    """Slider over ``range(n)`` bound to ``key``, with start / step / play-pause / step / next / end buttons; ``marks`` are the frames
    the "next event" button jumps to (e.g. collisions); ``show_label=False`` hides the slider's label (a page whose
    side panel already says "Step k / n" saves its line). Returns the frame to show."""
    ss = st.session_state
    pending = ss.pop(_pending_key(key), None)
    if pending is not None:
        S.set_value(key, pending)
    if int(ss.get(key, 0)) > n - 1:
        S.set_value(key, n - 1)
    wkey = S.bind(key, 0)
    frame = st.slider(label, 0, max(n - 1, 1), key=wkey, help=help_text, disabled=n <= 1,
                      label_visibility="visible" if show_label else "collapsed")
    frame = S.keep(key, min(int(frame), n - 1))
    playing = bool(ss.get(playing_key))
    nxt = next((m for m in marks if m > frame), None)
    cols = st.columns([1, 1, 1.4, 1, 1.8, 1])
    cols[0].button("Start", icon=":material/first_page:", key=S.sub(key, "first"), on_click=_go, args=(key, 0), disabled=frame == 0,
                   width="stretch")
    cols[1].button("Step", icon=":material/chevron_left:", key=S.sub(key, "prev"), on_click=_go, args=(key, max(frame - 1, 0)), disabled=frame == 0,
                   width="stretch")
    cols[2].button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:",
                   key=S.sub(key, "play"), on_click=_play, args=(key, playing_key, n),
                   type="primary", width="stretch")
    cols[3].button("Step", icon=":material/chevron_right:", key=S.sub(key, "next"), on_click=_go, args=(key, min(frame + 1, n - 1)),
                   disabled=frame >= n - 1, width="stretch")
    cols[4].button("Next collision", icon=":material/flare:", key=S.sub(key, "jump"), on_click=_go, args=(key, nxt if nxt is not None else n - 1),
                   disabled=nxt is None, width="stretch")
    cols[5].button("End", icon=":material/last_page:", key=S.sub(key, "last"), on_click=_go, args=(key, n - 1), disabled=frame >= n - 1,
                   width="stretch")
    return frame


def continue_playing(key: str, playing_key: str, n: int, stop_at: Sequence[int] = (),
                     scope: Literal["app", "fragment"] = "app") -> None:
    """Advance one frame and rerun while playing; stop at the end or at a frame in ``stop_at``. ``scope``:
    ``"fragment"`` when the player is drawn in an ``st.fragment`` (only it reruns per frame)."""
    ss = st.session_state
    if not ss.get(playing_key):
        return
    frame = int(ss.get(key, 0))
    if frame >= n - 1:
        ss[playing_key] = False
        return
    time.sleep(FRAME_DELAY_S)
    nxt = frame + 1
    ss[_pending_key(key)] = nxt
    ss[key] = nxt
    if nxt >= n - 1 or nxt in set(stop_at):
        ss[playing_key] = False
    st.rerun(scope=scope)
