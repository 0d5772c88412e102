"""BubbleRAG step 3 — CEG ranking (§3.4, Eqs. 5-6, Figure 4) and reasoning-aware expansion (§3.5).

α and n re-rank the CEGs live with ``BubbleResult.rerank`` (a pure function of the CEGs, their node
costs and the group weights: no search is re-run). Presets: AND (large α: every concept required),
OR (α = 0: coverage ignored), compare (top-n side by side). The reasoning expansion shown below was
computed with the run's α and n; "Use for the answer" makes the current ones the run's.
"""

from __future__ import annotations

import time

import streamlit as st

from components import deep_link, replay_time
from components import state as S
from components.bubblerag import ranking as panels
from components.bubblerag import shared as bubble
from components.knobs import knob_widget
from components.page import header
from core.methods.bubblerag import BubbleConfig

act = header()
query = bubble.question_ui(act, "ranking")
result = bubble.current_run(act, query)
if result is not None and not bubble.early_exit_note(result):
    cfg = result.config
    n_cegs = len(result.expansion.cegs)
    st.html(bubble.group_chips(result.groups.groups))
    # presets, α and n on one row, so the table the tour points at starts above the fold at 900 px (an audit saw 6 of
    # its 19 rows); the presets' column is wide enough for its four buttons ("AND" showed as "ND" in 2/7 of the page)
    # a reload keeps the preset, α and n (the URL carries them where they differ from the run's)
    deep_link.read_knobs("ranking", {"preset": (S.BUBBLE_PRESET, panels.parse_preset),
                                     "alpha": (S.BUBBLE_ALPHA, panels.parse_alpha), "n": (S.BUBBLE_N, panels.parse_n)})
    c1, c2, c3 = st.columns([4, 3, 2], vertical_alignment="bottom")
    S.keep(S.BUBBLE_PRESET, c1.segmented_control(
        "Preset", list(panels.PRESETS), key=S.bind(S.BUBBLE_PRESET, None), on_change=panels.apply_preset,
        help="AND: α = 10 (every concept required) · balanced: α = 1 · OR: α = 0 (coverage "
             "ignored) · compare: balanced α with the top-n drawn side by side."))
    alpha = knob_widget(BubbleConfig, "alpha", S.BUBBLE_ALPHA, where=c2, default=float(cfg.alpha))
    n = knob_widget(BubbleConfig, "n", S.BUBBLE_N, where=c3, default=cfg.n, hi=max(n_cegs, 2))  # at most the CEGs found
    deep_link.publish_knobs({"preset": st.session_state.get(S.BUBBLE_PRESET) or "",
                             "alpha": float(alpha) if alpha != cfg.alpha else None, "n": n if n != cfg.n else None})
    t0 = time.perf_counter()
    ranked = result.rerank(alpha=alpha)
    rerank_ms = (time.perf_counter() - t0) * 1000
    baseline = {r.ceg.index: r.rank for r in result.ranked}
    st.caption(f"Re-ranked {n_cegs} CEGs in {rerank_ms:.2f} ms (no search re-run). “shift” compares with the "
               f"run's ranking at α = {cfg.alpha:g}. {panels.groups_caption(result)}")
    st.dataframe(panels.ranking_table(result, ranked, n, baseline), hide_index=True, width="stretch",
                 column_config=panels.ranking_columns())
    best = ranked[0]
    st.markdown(f"**Best CEG at α = {alpha:g}: #{best.ceg.index}** ({best.ceg.kind}, covers "
                f"{len(best.ceg.groups)}/{len(result.groups.groups)} groups, score {best.score:.3f})")
    if (alpha, n) != (cfg.alpha, cfg.n):
        st.button(f"Use α = {alpha:g}, n = {n} for reasoning expansion and the answer", key=S.BUBBLE_ALPHA + ".apply",
                  on_click=panels.use_for_answer, args=(alpha, n),
                  help="Re-runs the pipeline with these values (cached); the Ask page then uses them.")
    # the hops the model added come right under the ranking (the tour asks for the rank-1 CEG's), the drawings after
    panels.create_reasoning_ui(act, result)
    replay_time.stage_time_captions(act.llm, result.trace, ("ranking",))
    panels.create_cegs_ui(act, result, ranked, n, query)
