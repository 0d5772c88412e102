"""Every ``st.session_state`` key the app uses, in one place.

Pages and components import the constants from here instead of spelling strings, so two widgets
can never collide and a reader can see at a glance what state the app keeps.
"""

from __future__ import annotations

import os

# ---------------------------------------------------------------- sidebar (shared by all pages)
WORKSPACE = "egx.workspace"  #: name of the active workspace (sidebar selectbox)
PENDING_WORKSPACE = "egx.pending_workspace"  #: set by a page to switch workspace on the next run
EMBEDDER = "egx.embedder"  #: embedder registry name
RERANKER = "egx.reranker"  #: reranker registry name (or "cross-encoder:" prefix, see RERANKER_MODEL)
RERANKER_MODEL = "egx.reranker_model"  #: path or hub id for the cross-encoder reranker
EMBEDDER_MODEL = "egx.embedder_model"  #: path or hub id for the "st:" embedder
LLM = "egx.llm"  #: LLM registry name

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

# ---------------------------------------------------------------- defaults
DEFAULT_WORKSPACE = "demo"
DEFAULT_RERANKER = "biencoder"


def default_embedder() -> str:
    """``$EGX_EMBEDDER`` or ``"minilm"``."""
    return os.environ.get("EGX_EMBEDDER", "").strip() or "minilm"


def default_llm() -> str:
    """``$EGX_LLM`` or ``"none"`` (the deterministic, LLM-free mode)."""
    return os.environ.get("EGX_LLM", "").strip() or "none"
