"""Every ``st.session_state`` key the app uses, in one place.

Pages and components import the constants from here instead of spelling strings, so two widgets
can never collide and a reader can see at a glance what state the app keeps.
"""

from __future__ import annotations

import os

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER

# ---------------------------------------------------------------- sidebar (shared by all pages)
WORKSPACE = "egx.workspace"  #: name of the active workspace (sidebar selectbox)
PENDING_WORKSPACE = "egx.pending_workspace"  #: set by a page to switch workspace on the next run
EMBEDDER = "egx.embedder"  #: embedder registry name
RERANKER = "egx.reranker"  #: reranker registry name (or "cross-encoder:" prefix, see RERANKER_MODEL)
RERANKER_MODEL = "egx.reranker_model"  #: path or hub id for the cross-encoder reranker
EMBEDDER_MODEL = "egx.embedder_model"  #: path or hub id for the "st:" embedder
LLM = "egx.llm"  #: LLM registry name
LLM_TIMEOUT = "egx.llm_timeout"  #: seconds per LLM attempt (0 = the backend's default)
LLM_RETRIES = "egx.llm_retries"  #: extra attempts after a transport failure or malformed reply
LLM_BUDGET = "egx.llm_budget"  #: LLM seconds per question (0 = no limit)

# What the sidebar resolved this run (read by pages; written only by components/sidebar.py).
ACTIVE = "egx.active"  #: an :class:`components.sidebar.Active` record

# ---------------------------------------------------------------- Data page
DATA_UPLOADS = "egx.data.uploads"
DATA_NEW_NAME = "egx.data.new_name"
DATA_BUILD = "egx.data.build"
DATA_BUILT_MESSAGE = "egx.data.built_message"
DATA_SEARCH = "egx.data.search"
DATA_HOPS = "egx.data.hops"
DATA_VIEW_MODE = "egx.data.view_mode"
DATA_NODE = "egx.data.node"
DATA_QUESTIONS = "egx.data.questions"
DATA_EDGE_LABELS = "egx.data.edge_labels"
DATA_EXPORT_SCOPE = "egx.data.export_scope"
DATA_DL_JSON = "egx.data.download_json"
DATA_DL_GRAPHML = "egx.data.download_graphml"
DATA_DL_HTML = "egx.data.download_html"

# ---------------------------------------------------------------- BubbleRAG pages (shared by all four)
# Values that must survive a page switch live under a plain key; the widget that edits them uses the
# same key plus ``.w`` (see components.bubble.bind): Streamlit drops a widget's state on any run of a
# page that does not draw it, so the plain key is the source of truth.
BUBBLE_QUESTION = "egx.bubble.question"  #: the question, shared by the four BubbleRAG pages
BUBBLE_H = "egx.bubble.h"  #: localization hop h of the run
BUBBLE_B = "egx.bubble.B"  #: expansion budget B of the run
BUBBLE_RUN_ALPHA = "egx.bubble.run_alpha"  #: α the run ranks with (drives reasoning expansion + answer)
BUBBLE_RUN_N = "egx.bubble.run_n"  #: n the run keeps for reasoning expansion + answer
BUBBLE_STAGE = "egx.bubble.anchor_stage"  #: anchor-grouping page: how far the step control has got
BUBBLE_FRAME = "egx.bubble.frame"  #: expansion page: the frame shown
BUBBLE_PLAYING = "egx.bubble.playing"  #: expansion page: the play loop is running
BUBBLE_PAUSE_AT_COLLISION = "egx.bubble.pause_at_collision"
BUBBLE_ALPHA = "egx.bubble.alpha"  #: ranking page: live α (re-rank only)
BUBBLE_N = "egx.bubble.n"  #: ranking page: live n (re-rank only)
BUBBLE_PRESET = "egx.bubble.preset"  #: ranking page: AND / balanced / OR / compare
BUBBLE_CEG = "egx.bubble.ceg"  #: ranking page: CEG drawn
BUBBLE_TRACE_UPLOAD = "egx.bubble.trace_upload"  #: ask page: a trace JSON to load back
BUBBLE_DL_JSON = "egx.bubble.download_json"
BUBBLE_DL_GRAPHML = "egx.bubble.download_graphml"
BUBBLE_DL_HTML = "egx.bubble.download_html"
BUBBLE_DL_TRACE = "egx.bubble.download_trace"

# ---------------------------------------------------------------- Evaluate pages (issue 6)
COMPARE_QUESTION = "egx.compare.question"  #: the question compared (the benchmark table's rows set it too)
COMPARE_CUSTOM = "egx.compare.custom"  #: text of a typed question
COMPARE_METHODS = "egx.compare.methods"  #: methods shown side by side
COMPARE_CUT = "egx.compare.cut"  #: rank cut of the diagnosis
COMPARE_GOLD_QUESTIONS = "egx.compare.gold_questions"  #: the workspace's questions with gold (for hand-offs)
#: the question handed to a method's step-through page by "open in …" (pages of new methods may read it)
HANDOFF_QUESTION = "egx.handoff.question"
BENCH_METHODS = "egx.bench.methods"
BENCH_LIMIT = "egx.bench.limit"
BENCH_OUT = "egx.bench.out"  #: folder the page runs into / loads from
BENCH_RUN = "egx.bench.run"  #: the run button
BENCH_LOADED = "egx.bench.loaded"  #: path of the report shown
BENCH_FILTER_METHOD = "egx.bench.filter_method"
BENCH_FILTER_STAGE = "egx.bench.filter_stage"
BENCH_TABLE = "egx.bench.table"  #: the per-question dataframe (row selection opens the comparison)

# ---------------------------------------------------------------- defaults
DEFAULT_WORKSPACE = "demo"
FALLBACK_RERANKER = "biencoder"  #: always loads: used when the chosen reranker cannot be


def default_embedder() -> str:
    """``$EGX_EMBEDDER`` or the registry default (``"bge-small"``)."""
    return os.environ.get("EGX_EMBEDDER", "").strip() or DEFAULT_EMBEDDER


def default_reranker() -> str:
    """``$EGX_RERANKER`` or the registry default (``"ms-marco-minilm"``, the bundled cross-encoder)."""
    return os.environ.get("EGX_RERANKER", "").strip() or DEFAULT_RERANKER


def default_llm() -> str:
    """``$EGX_LLM`` or ``"none"`` (the deterministic, LLM-free mode)."""
    return os.environ.get("EGX_LLM", "").strip() or "none"
