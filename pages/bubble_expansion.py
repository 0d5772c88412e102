"""BubbleRAG step 2 — bubble expansion (§3.3, Algorithm 1), frame by frame.

The localized subgraph G' is laid out once (fixed positions, so frames do not jump); every frame of
``iter_bubble_expansion`` then recolours it: settled nodes take the colour of the groups that
reached them (mixed where bubbles overlap), the frontier is outlined in its group's colour, the node
settled at this step has a black border, and a collision flashes the backtracked CEG in red.
"""

from __future__ import annotations

import streamlit as st

from components import graph_view, replay_time, resources, trace_player
from components import state as S
from components.bubblerag import expansion as panels
from components.bubblerag import shared as bubble
from components.knobs import knob_widget
from components.page import header
from core.methods.bubblerag import BubbleConfig

act = header()
query = bubble.question_ui(act, "expansion")
h_col, b_col = st.columns(2)
h = knob_widget(BubbleConfig, "h", S.BUBBLE_H, where=h_col)
budget = knob_widget(BubbleConfig, "B", S.BUBBLE_B, where=b_col)
result = bubble.current_run(act, query)
replay = None
if result is not None and not bubble.early_exit_note(result):
    local, exp = result.local, result.expansion
    g = act.graph
    st.caption(f"G' = the neighbourhood of the {len(bubble.terminal_groups(result, g))} anchors: "
               f"{local.n_nodes:,} nodes, {local.n_edges:,} edges · {panels.hop_note(local.h, local.h_requested, local.capped, result.config.max_local_nodes)}"
               f" · {exp.steps} settle steps · {panels.run_tally_text(result)}.")
    st.html(bubble.group_chips(result.groups.groups))
    replay_time.stage_time_captions(act.llm, result.trace, ("localize", "expansion"))
    work = local.n_nodes * (exp.steps + 2)
    if work > panels.MAX_REPLAY_WORK:
        st.warning(f"G' has {local.n_nodes:,} nodes and the search took {exp.steps:,} steps: too much to record "
                   "frame by frame, so the final state is shown (CEGs outlined). Lower h or B to replay it.",
                   icon=":material/content_cut:")
        panels.create_final_state_ui(act, result)
    else:
        replay = bubble.bubblerag_replay(result, g, bubble.run_key(act, query, result.config))
        nodes, capped = panels.drawn_nodes(act, result, replay)
        if capped:
            st.warning(f"G' has {local.n_nodes:,} nodes; the drawing shows {len(nodes)} of them: the CEG nodes, the "
                       "anchors and the nodes in the order the search settled them. Frontier nodes outside the "
                       "drawing are counted in the side panel.", icon=":material/content_cut:")
        positions = resources.layout_positions(g, act.key, tuple(nodes))
        collisions = replay.collision_frames()
        left, right = st.columns([5, 2])
        with left:
            if S.reset_on_change(S.BUBBLE_FRAME, (act.info.name, query)):  # a new question replays from frame 0
                st.session_state[S.BUBBLE_PLAYING] = False
            frame = trace_player.frame_controls(S.BUBBLE_FRAME, S.BUBBLE_PLAYING, len(replay), collisions,
                                                help_text="Frame k = the state after k settle steps.")
            pause = S.keep(S.BUBBLE_PAUSE_AT_COLLISION, st.checkbox(
                "Pause when bubbles of different groups collide", key=S.bind(S.BUBBLE_PAUSE_AT_COLLISION, True)))
            doc, _ = panels.frame_drawing(act, result, replay, frame, nodes, positions)
            graph_view.render_html(doc, height=panels.HEIGHT)
            st.caption("Diamonds are the anchors, where the bubbles start. Node size grows as its semantic cost "
                       "1 − cos(q, v) falls; hover a node for its accumulated cost per group.")
        with right:
            panels.create_side_panel(act, result, replay, frame)
        trace_player.continue_playing(S.BUBBLE_FRAME, S.BUBBLE_PLAYING, len(replay), collisions if pause else ())
