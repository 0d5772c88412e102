"""BubbleRAG step 2 — bubble expansion (§3.3, Algorithm 1), frame by frame.

The localized subgraph G' is laid out once (fixed positions, so frames do not jump); every frame of
``iter_bubble_expansion`` then recolours it: settled nodes take the colour of the groups that
reached them (mixed where bubbles overlap), the frontier is outlined in its group's colour, the node
settled at this step has a black border, and a collision flashes the backtracked CEG in red.
"""

from __future__ import annotations

import streamlit as st

from components import replay_time, tour
from components import state as S
from components.bubblerag import expansion as panels
from components.bubblerag import shared as bubble
from components.knobs import knob_widget
from components.page import current, header
from core.methods.bubblerag import BubbleConfig

act = header()
with tour.settings_box(current()):  # on the tour: folded, so the drawing comes up under the bar
    query = bubble.question_ui(act, "expansion")
# At 1440×900 under the tour's bar the drawing's canvas started at y ≈ 640, below a row of settings, the frame
# slider's label and a four-row legend: the replay (player, drawing, side panel) now comes first, its legend at the
# drawing's top in the labels' size (a small grey row under the canvas was hard to read on a projector), and the row with h and B (behind a labelled popover) and the pause switch follows it — drawn first
# (the run reads h and B), shown below. The caption, chips and stage times follow that row.
# the replay bleeds into the page's side paddings (a style element takes no room): its drawing and side panel wider
st.html(panels.REPLAY_CSS)
player_box = st.container(key=panels.REPLAY_KEY)
settings_col, pause_col = st.columns([2, 3], vertical_alignment="center")
with settings_col.popover(panels.settings_label(), icon=":material/tune:", width="stretch"):
    knob_widget(BubbleConfig, "h", S.BUBBLE_H)
    knob_widget(BubbleConfig, "B", S.BUBBLE_B)
with player_box:
    result = bubble.current_run(act, query)
    if result is not None and bubble.early_exit_note(result):
        result = None  # said why: nothing to replay
    if result is not None:
        local, exp = result.local, result.expansion
        work = local.n_nodes * (exp.steps + 2)
        if work > panels.MAX_REPLAY_WORK:
            st.warning(f"G' has {local.n_nodes:,} nodes and the search took {exp.steps:,} steps: too much to "
                       "record frame by frame, so the final state is shown (CEGs outlined). Lower h or B to replay "
                       "it.", icon=":material/content_cut:")
            panels.create_final_state_ui(act, result)
        else:
            panels.create_replay_ui(act, result, query, pause_at=pause_col)
if result is not None:
    panels.create_run_notes(act, result)
    replay_time.stage_time_captions(act.llm, result.trace, ("localize", "expansion"))
