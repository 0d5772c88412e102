"""Every ``st.session_state`` key the app uses, in one place, and the one way pages use them.

Pages and components import the constants from here instead of spelling strings, so two widgets
can never collide and a reader can see at a glance what state the app keeps.

The idiom, for every widget that holds a value:

    value = S.keep(S.X, st.selectbox("Label", options, key=S.bind(S.X, default)))

``S.X`` names the value and is the source of truth: Streamlit drops a widget's own state on any run
of a page that does not draw it, so the widget gets a key of its own (:func:`bind` seeds it from the
value, :func:`keep` writes the value back) and the value survives page switches. A widget drawn on
several pages passes one ``scope`` per page. Callbacks change a value with :func:`set_value`.
Widgets without a value to keep (buttons, uploads, downloads, charts) use their constant as key;
keys of a family (a player's buttons) are spelled with :func:`sub`.

A page that opens another page on a question (Benchmark → Compare, Compare → a method's
step-through page) hands over the question *with its workspace and method* (:func:`hand_over`): the
sidebar switches to that workspace before the next page runs, and the page takes the question once
with :func:`take_handoff` (:func:`peek_handoff` reads the whole :class:`Handoff` without taking it).

One question follows the user across the method pages: :data:`QUESTION` is the workspace's question,
which Ask, the four paper pages, HippoRAG 2 and Compare all show (:func:`workspace_question` before the
page's question widget is drawn, :func:`share_question` after), unless the page's "use another question on
this page only" switch (:data:`QUESTION_OWN`) keeps a question of its own there.

A question belongs to a workspace: :func:`follow_workspace` keeps a page's question per workspace, so
switching from the demo to MuSiQue shows a MuSiQue question and switching back restores the demo's.
A default made of the context (a run name made of the workspace and the backends) follows the context
while the user has not typed over it (:func:`follow_default`), and a choice among one question's results
(a CEG, a matched subgraph, a frame) starts over when the question changes (:func:`reset_on_change`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import streamlit as st

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER

# ---------------------------------------------------------------- sidebar (shared by all pages)
WORKSPACE = "egx.workspace"  #: name of the active workspace (sidebar selectbox)
PENDING_WORKSPACE = "egx.pending_workspace"  #: set by a page to switch workspace on the next run
#: set with PENDING_WORKSPACE when the name came from a URL (anyone can type one), not from a record of a workspace
PENDING_FROM_LINK = "egx.pending_workspace.from_link"
#: the workspace names the sidebar has listed in this session: a link's name among them was deleted since
WORKSPACES_SEEN = "egx.workspaces_seen"
EMBEDDER = "egx.embedder"  #: embedder registry name
RERANKER = "egx.reranker"  #: reranker registry name (or "cross-encoder:" prefix, see RERANKER_MODEL)
RERANKER_MODEL = "egx.reranker_model"  #: path or hub id for the cross-encoder reranker
EMBEDDER_MODEL = "egx.embedder_model"  #: path or hub id for the "st:" embedder
LLM = "egx.llm"  #: LLM registry name
LLM_TIMEOUT = "egx.llm_timeout"  #: seconds per LLM attempt (0 = the backend's default)
LLM_RETRIES = "egx.llm_retries"  #: extra attempts after a transport failure or malformed reply
LLM_BUDGET = "egx.llm_budget"  #: LLM seconds per question (0 = no limit)
LLM_CACHE = "egx.llm_cache"  #: reuse cached LLM replies (the sidebar's switch; off = --no-cache)
#: the questions this session asked to run with a live LLM: (workspace key, LLM name, question) — nothing that calls
#: a live model for tens of seconds starts before the person's click (components/runs.py)
LIVE_RUNS_OK = "egx.live_runs_ok"

#: this browser session's id: its jobs are those it started or joined (components/jobs_view.py)
JOBS_SESSION = "egx.jobs.session"

# What the sidebar resolved this run (read by pages; written only by components/sidebar.py).
ACTIVE = "egx.active"  #: an :class:`components.sidebar.Active` record
PAGE = "egx.page"  #: the page this run shows ("pages/x.py"), set by the frame for exactly that run

# ---------------------------------------------------------------- Data page
DATA_UPLOADS = "egx.data.uploads"
DATA_NEW_NAME = "egx.data.new_name"
DATA_BUILD = "egx.data.build"
DATA_BUILT_MESSAGE = "egx.data.built_message"
DATA_BUILT_FILES = "egx.data.built_files"  #: what became of each uploaded file in the last build or insert
#: the last insert's message and files, shown by the Add documents panel (by its button, not 700 px above it)
DATA_ADDED_MESSAGE = "egx.data.added_message"
DATA_ADDED_FILES = "egx.data.added_files"
#: the last build's / insert's warning that the workspace has too few passages for recall to tell methods apart
DATA_BUILT_WARNING = "egx.data.built_warning"
DATA_ADDED_WARNING = "egx.data.added_warning"
#: how an upload splits documents into passages (a :meth:`core.graph.chunking.PassageSplit.parse` spec)
DATA_PASSAGES = "egx.data.passages"
DATA_SEARCH = "egx.data.search"
DATA_HOPS = "egx.data.hops"
DATA_VIEW_MODE = "egx.data.view_mode"
DATA_NODE = "egx.data.node"
DATA_QUESTIONS = "egx.data.questions"
DATA_DROP_CHECK = "egx.data.drop_check"  #: (the dropped files' identity, what is wrong with them) — checked once
DATA_BUILD_ESTIMATE = "egx.data.build_estimate"  #: (the dropped files and settings, the build's estimate) — measured once
DATA_ADD_DROP_CHECK = "egx.data.add_drop_check"  #: the same for the files dropped on Add documents
DATA_EDGE_LABELS = "egx.data.edge_labels"
DATA_EXPORT_SCOPE = "egx.data.export_scope"
DATA_DL_JSON = "egx.data.download_json"
DATA_DL_GRAPHML = "egx.data.download_graphml"
DATA_DL_HTML = "egx.data.download_html"
DATA_EXTRACTOR = "egx.data.extractor"  #: triple extractor for an uploaded corpus
DATA_SAMPLE_SEED = "egx.data.sample_seed"  #: which sample of extracted triples the Statistics tab shows
DATA_UPLOAD_JOB = "egx.data.upload_job"  #: key of this session's upload build (a background job)
DATA_ADD_UPLOADS = "egx.data.add_uploads"  #: documents to add to the active workspace
DATA_ADD = "egx.data.add"  #: the "Add documents" button
DATA_ADD_CONFIRM = "egx.data.add-confirm"  #: "Drop them and add": ticked before Add documents drops trained models
DATA_TAB = "egx.data.tab"  #: the Data page's tab: kept when a message or a finished job changes what is drawn above it
DATA_ADD_SENT = "egx.data.add_sent"  #: the workspace and files of this session's last insert (a repeated click)
DATA_QUESTIONS_NEW = "egx.data.questions_new"  #: a questions file to replace the active workspace's
DATA_QUESTIONS_USE = "egx.data.questions_use"  #: the "Use these questions" button
DATA_QUESTIONS_SAID = "egx.data.questions_said"  #: (level, text) of the last replacement, shown once by its button
DATA_ADD_JOB = "egx.data.add_job"  #: key of this session's insert into the active workspace (a background job)
DATA_UPLOAD_DONE = "egx.data.upload_done"  #: an upload build ended: clear the upload form on the next run
DATA_UPLOAD_OUTCOME = "egx.data.upload_outcome"  #: (level, text[, "shown"]) of a build that failed, till Build is clicked again

# ---------------------------------------------------------------- BubbleRAG pages (shared by all four)
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
BUBBLE_SUGGESTED = "egx.bubble.suggested"  #: ask page: the suggested-question buttons (sub(..., i))
BUBBLE_DL_JSON = "egx.bubble.download_json"
BUBBLE_DL_GRAPHML = "egx.bubble.download_graphml"
BUBBLE_DL_HTML = "egx.bubble.download_html"
BUBBLE_DL_TRACE = "egx.bubble.download_trace"
BUBBLE_WEIGHTS_CHART = "egx.bubble.weights_chart"
BUBBLE_LATENCY = "egx.bubble.latency"
BUBBLE_SAVED_LATENCY = "egx.bubble.saved_latency"

# ---------------------------------------------------------------- GRanker page (FastInsight)
GRANKER_QUESTION = "egx.granker.question"  #: picked question (a workspace question or CUSTOM_QUESTION)
GRANKER_CUSTOM = "egx.granker.custom_question"  #: text of a typed question
GRANKER_ALPHA = "egx.granker.alpha"
GRANKER_BETA = "egx.granker.beta"
GRANKER_B_MAX = "egx.granker.b_max"
GRANKER_BATCH = "egx.granker.batch"
GRANKER_GRAPH = "egx.granker.graph"  #: FastInsightConfig.graph on KG workspaces ("kg_nodes" or "passages")
GRANKER_ROUND = "egx.granker.round"
GRANKER_SHIFT_CHART = "egx.granker.shift_chart"
GRANKER_STEX_CHART = "egx.granker.stex_chart"
GRANKER_METRICS_CHART = "egx.granker.metrics_chart"
GRANKER_TAB = "egx.granker.tab"  #: the open tab below the rankings (only it is computed: on_change="rerun")

# ---------------------------------------------------------------- Subgraph matching page (SG-RAG)
SGRAG_QUESTION = "egx.sgrag.question"
SGRAG_L = "egx.sgrag.l"
SGRAG_MAX_CANDIDATES = "egx.sgrag.max_candidates"
SGRAG_MAX_INSTANTIATIONS = "egx.sgrag.max_instantiations"
SGRAG_MAX_SUBGRAPHS = "egx.sgrag.max_subgraphs"
SGRAG_DOMINANCE = "egx.sgrag.dominance"
SGRAG_DOUBTFUL = "egx.sgrag.doubtful"
SGRAG_PICK = "egx.sgrag.pick"
SGRAG_RETRAIN = "egx.sgrag.retrain"
SGRAG_CUSTOM = "egx.sgrag.custom_question"  #: text of a typed question (SGRAG_QUESTION is the picked one)

# ---------------------------------------------------------------- Evidence chains page (ReG)
REG_QUESTION = "egx.reg.question"  #: picked question (a workspace question or CUSTOM_QUESTION)
REG_CUSTOM = "egx.reg.custom_question"  #: text of a typed question
REG_METHOD = "egx.reg.method"
REG_FORMAT = "egx.reg.format"
REG_REFINE = "egx.reg.refine"  #: whether the supervision was refined with the LLM
REG_REFINE_BUTTON = "egx.reg.refine_button"
REG_CURVE = "egx.reg.curve"
REG_TOKENS_CHART = "egx.reg.tokens"
REG_CURVES_CHART = "egx.reg.curves"
REG_HELDOUT_CHART = "egx.reg.heldout"

# ---------------------------------------------------------------- HippoRAG 2 page (baseline)
HIPPORAG2_QUESTION = "egx.hipporag2.question"  #: picked question (a workspace question or CUSTOM_QUESTION)
HIPPORAG2_CUSTOM = "egx.hipporag2.custom_question"  #: text of a typed question
HIPPORAG2_LINKING = "egx.hipporag2.linking_top_k"
HIPPORAG2_PASSAGE_WEIGHT = "egx.hipporag2.passage_node_weight"
HIPPORAG2_DAMPING = "egx.hipporag2.damping"
HIPPORAG2_MEMORY = "egx.hipporag2.recognition_memory"
HIPPORAG2_MASS_CHART = "egx.hipporag2.mass_chart"

# ---------------------------------------------------------------- Train panels (ReG retriever, SG-RAG dominance model)
TRAIN_REG_SUPERVISION = "egx.train.reg.supervision"  #: "refined" (S(I), needs an LLM) or "weak" (w/o S(I))
TRAIN_REG_SELECTION = "egx.train.reg.selection"  #: how refined supervision asks the LLM
TRAIN_REG_UNIT = "egx.train.reg.unit"  #: retrieval unit: triple (ReG@Triple) or entity (ReG@Entity)
TRAIN_REG_EPOCHS = "egx.train.reg.epochs"
TRAIN_REG_START = "egx.train.reg.start"
TRAIN_REG_JOB = "egx.train.reg.job"  #: key of this session's ReG training (a background job)
TRAIN_REG_USE_ANYWAY = "egx.train.reg.use_anyway"  #: installs the retriever training kept aside (it lost)
TRAIN_DOM_JOB = "egx.train.dominance.job"  #: key of this session's dominance training (a background job)

# ---------------------------------------------------------------- Evaluate pages
COMPARE_QUESTION = "egx.compare.question"  #: the question compared (the benchmark table's rows set it too)
COMPARE_CUSTOM = "egx.compare.custom"  #: text of a typed question
COMPARE_METHODS = "egx.compare.methods"  #: methods shown side by side
COMPARE_CUT = "egx.compare.cut"  #: rank cut of the diagnosis
COMPARE_BUDGET = "egx.compare.budget"  #: the answer budget every method runs under (a preset's name or "custom")
COMPARE_BUDGET_CUSTOM = "egx.compare.budget_custom"  #: a custom budget's text ("10", "1500tok", "10,1500tok")
COMPARE_SUGGESTED = "egx.compare.suggested"  #: the suggested-question buttons (sub(..., i))
COMPARE_OPEN = "egx.compare.open"  #: the step-through buttons, one per method: sub(COMPARE_OPEN, name)
COMPARE_FOCUS = "egx.compare.focus"  #: the method the overlaid evidence graph highlights ("" = every method)
COMPARE_DOWNLOAD = "egx.compare.download"  #: the comparison's CSV / JSON buttons: sub(COMPARE_DOWNLOAD, "csv")
#: the :class:`Handoff` (question, workspace, method) a page hands to the page it opens; see take_handoff
HANDOFF_QUESTION = "egx.handoff.question"
BENCH_METHODS = "egx.bench.methods"
BENCH_BUDGET = "egx.bench.budget"  #: the answer budget of the run (a preset's name or "custom")
BENCH_BUDGET_CUSTOM = "egx.bench.budget_custom"  #: a custom budget's text
BENCH_LIMIT = "egx.bench.limit"
BENCH_OUT = "egx.bench.out"  #: run name (a folder under $EGX_HOME/runs)
BENCH_RUN = "egx.bench.run"  #: the run button
BENCH_LOADED = "egx.bench.loaded"  #: run name of the report shown
BENCH_OPENED_LATEST = "egx.bench.opened_latest"  #: the workspaces whose latest run was opened once this session
BENCH_SCROLL = "egx.bench.scroll"  #: a run just finished: scroll its report into view once
BENCH_FILTER_METHOD = "egx.bench.filter_method"
BENCH_FILTER_STAGE = "egx.bench.filter_stage"
BENCH_FAILURES_ONLY = "egx.bench.failures_only"  #: the per-question table shows failures only (default on)
BENCH_LOSSES_ONLY = "egx.bench.losses_only"  #: ... and of those only the retrieval losses (default off)
BENCH_DOWNLOAD = "egx.bench.download"  #: the per-question table's CSV / JSON buttons: sub(BENCH_DOWNLOAD, "csv")
BENCH_TABLE = "egx.bench.table"  #: the per-question dataframe (row selection opens the comparison)
BENCH_LOAD = "egx.bench.load"  #: the load button
BENCH_LOAD_PICK = "egx.bench.load_pick"  #: the finished run to load
BENCH_LOAD_OWN = "egx.bench.load_own"  #: above another workspace's report: load this workspace's newest run
BENCH_OPEN_PICK = "egx.bench.open_pick"  #: a question of the table to open in the comparison
BENCH_OPEN = "egx.bench.open"
BENCH_RECALL_CHART = "egx.bench.fig.recall"
BENCH_LATENCY_CHART = "egx.bench.fig.latency"
BENCH_FAILURE_CHART = "egx.bench.fig.failure"
BENCH_JOB = "egx.bench.job"  #: key of this session's benchmark run (a background job)
BENCH_JUDGE = "egx.bench.judge"  #: the judge LLM's backend name ("none", "same" or a registry name)
BENCH_PAIR_A = "egx.bench.pair_a"  #: "which differences are real": the first method compared (A in A − B)
BENCH_PAIR_B = "egx.bench.pair_b"  #: … and the second
BENCH_DIFF_CHART = "egx.bench.fig.differences"  #: the paired differences of A and B, with their intervals
BENCH_REFUSED = "egx.bench.refused"  #: why the run name cannot take this run ({name, state, text}), with its buttons
BENCH_LAUNCH = "egx.bench.launch"  #: a run asked for by a refusal's button ({name, resume_unverified})
BENCH_MOVED = "egx.bench.moved"  #: Run on an out-of-date run: {old, fresh, why, apply} of the new run started instead
BENCH_NEW_RUN = "egx.bench.new_run"  #: "Start a new run" (a fresh run name) under a refusal
BENCH_RESUME_ANYWAY = "egx.bench.resume_anyway"  #: resume a run saved before runs kept their identity
BENCH_KEEP_TRAINED = "egx.bench.keep_trained"  #: keep the questions a benchmarked method's model was trained on

# ---------------------------------------------------------------- Papers page (components/papers_view.py)
PAPERS_PAPER = "egx.papers.paper"  #: the paper shown (an egx reproduce --paper id)
PAPERS_TABLE = "egx.papers.table"  #: its table shown, when it has several ("SG-RAG Table 5")
PAPERS_METRICS = "egx.papers.metrics"  #: the metrics a table too wide for the page shows: sub(PAPERS_METRICS, table)
PAPERS_MODE = "egx.papers.mode"  #: the LLM mode of the figures shown ("none" or "recorded")
PAPERS_LIMIT = "egx.papers.limit"  #: the questions a re-run on the active workspace takes
PAPERS_RUN = "egx.papers.run"  #: the "Re-run on this workspace" button
PAPERS_JOB = "egx.papers.job"  #: key of this session's reproduction (a background job)

# ---------------------------------------------------------------- guided demo (components/tour.py)
TOUR = "egx.tour"  #: the running tour (a components.tour.TourState); its buttons and notes are sub(TOUR, ...)

# ---------------------------------------------------------------- the question every method page shares
QUESTION = "egx.question"  #: the workspace's question: what every method page shows (workspace_question)
#: sub(QUESTION_OWN, page key): the page keeps a question of its own ("use another question on this page only")
QUESTION_OWN = "egx.question.own"
#: (workspace, page key) → (workspace's question, page's question) when the page last showed the shared one
QUESTION_SYNCED = "egx.question.synced"

# ---------------------------------------------------------------- per-workspace values (follow_workspace)
WORKSPACE_OF = "egx.workspace_of"  #: value key → the workspace its current value belongs to
PER_WORKSPACE = "egx.per_workspace"  #: (workspace, value key) → the values it had there
DEFAULT_OF = "egx.default_of"  #: value key → the default it was last seeded with (follow_default)
CHOSEN_FOR = "egx.chosen_for"  #: value key → what its choice was made for, e.g. the question (reset_on_change)

# ---------------------------------------------------------------- defaults
CUSTOM_QUESTION = "(type your own question)"  #: the option of a question picker that opens a text box
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


# ---------------------------------------------------------------- the idiom
def sub(key: str, part: str) -> str:
    """The key of one member of a family of widgets under ``key`` (e.g. a player's buttons)."""
    return f"{key}.{part}"


#: the tour's projector mode (the bar's "Projector" toggle, :mod:`components.tour`) and how much larger it sets the text a
#: class reads and the drawings' labels; here, not in the tour, so that the drawings (:mod:`components.graph_view`)
#: read it without importing the tour (which imports them)
TOUR_QUIET = sub(TOUR, "quiet")
PROJECTOR_SCALE = 1.25


def projector_scale() -> float:
    """:data:`PROJECTOR_SCALE` while a tour runs in projector mode, else 1: what the drawings scale their labels by."""
    return PROJECTOR_SCALE if st.session_state.get(TOUR) is not None and st.session_state.get(TOUR_QUIET) else 1.0


def widget_key(key: str, scope: str = "") -> str:
    """The key of the widget that edits the value ``key`` (on the page ``scope``, if it is drawn on several)."""
    return sub(key, "w") + (f".{scope}" if scope else "")


def bind(key: str, default: Any, scope: str = "") -> str:
    """Widget key for the value ``key`` (seeded with ``default`` the first time); draw the widget with
    it, then :func:`keep` its value. A widget drawn on several pages needs one ``scope`` per page:
    Streamlit gives each page's widget its own identity, so a shared widget key would come up empty
    on the next page."""
    ss = st.session_state
    if key not in ss:
        ss[key] = default
    wkey = widget_key(key, scope)
    if wkey not in ss:
        ss[wkey] = ss[key]
    return wkey


def keep(key: str, value: Any) -> Any:
    """Store the value a bound widget returned (and return it)."""
    st.session_state[key] = value
    return value


def uploader_key(key: str) -> str:
    """The key of the file uploader ``key`` this run: it changes with :func:`clear_uploader`, which is the only
    way to empty a Streamlit uploader (its files are not session state a page may set)."""
    n = int(st.session_state.get(sub(key, "round"), 0))
    return sub(key, str(n)) if n else key


def clear_uploader(key: str) -> None:
    """Empty the uploader ``key`` from the next run on (after a build, its files are spent)."""
    rk = sub(key, "round")
    st.session_state[rk] = int(st.session_state.get(rk, 0)) + 1


def set_value(key: str, value: Any) -> None:
    """Set a bound value and every widget bound to it (from a callback, before the widgets are drawn)."""
    ss = st.session_state
    ss[key] = value
    prefix = widget_key(key)
    for k in [k for k in ss if isinstance(k, str) and (k == prefix or k.startswith(prefix + "."))]:
        ss[k] = value
    ss[prefix] = value


@dataclass(frozen=True)
class Handoff:
    """A question handed to the page about to be opened, with the workspace it belongs to and the
    method it was opened for ("" when any)."""

    question: str
    workspace: str
    method: str = ""


def hand_over(question: str, *, workspace: str | None = None, method: str = "") -> None:
    """Give ``question`` (of ``workspace``, default the active one; for ``method``) to the page about to
    be opened with ``st.switch_page``. The sidebar switches to ``workspace`` on that run
    (:data:`PENDING_WORKSPACE`), so the question never lands on another workspace's graph."""
    ss = st.session_state
    if workspace is None:
        rec = ss.get(ACTIVE)
        workspace = rec.info.name if rec is not None else str(ss.get(WORKSPACE) or "")
    ss[HANDOFF_QUESTION] = Handoff(str(question), str(workspace or ""), str(method or ""))
    if workspace:
        ss[PENDING_WORKSPACE] = workspace


def peek_handoff() -> Handoff | None:
    """The hand-off waiting for this page, left in place (None when there is none)."""
    h = st.session_state.get(HANDOFF_QUESTION)
    if isinstance(h, str):  # a bare question (hand-offs from before the record)
        return Handoff(h, "")
    return h if isinstance(h, Handoff) else None


def take_handoff() -> str | None:
    """The question handed over to this page, once (None when there is none)."""
    h = peek_handoff()
    st.session_state.pop(HANDOFF_QUESTION, None)
    return h.question if h is not None and h.question else None


def follow_workspace(workspace: str, *keys: str) -> bool:
    """Keep the values ``keys`` (a page's question and its typed text) per workspace.

    Call it before the widgets of ``keys`` are drawn. When the workspace changed since these values
    were last used, their values are put aside for the old workspace and the new workspace's are
    brought back — or dropped, so that :func:`bind` seeds the page's default for this workspace (its
    first question). Returns whether the workspace changed. The first call only records the workspace,
    so values preset before it (a test, a hand-off) stand.
    """
    ss = st.session_state
    homes: dict[str, str] = ss.setdefault(WORKSPACE_OF, {})
    saved: dict[tuple[str, str], dict[str, Any]] = ss.setdefault(PER_WORKSPACE, {})
    tag = keys[0]
    old = homes.get(tag)
    homes[tag] = workspace
    if old is None or old == workspace:
        return False
    saved[(old, tag)] = {k: ss[k] for k in keys if k in ss}
    for k in keys:
        prefix = widget_key(k)
        for wk in [w for w in ss if isinstance(w, str) and (w == k or w == prefix or w.startswith(prefix + "."))]:
            del ss[wk]
    for k, v in saved.get((workspace, tag), {}).items():
        ss[k] = v
    return True


def follow_default(key: str, default: Any) -> None:
    """Let the value ``key`` follow its ``default`` while the user has not changed it.

    For a default made of the context (``demo-bge-small-none`` for a run name): when the context changes,
    a value still equal to the default it was seeded with takes the new default; a value the user typed
    stays. Call it before the widget is drawn (with :func:`bind`'s usual default after it).
    """
    ss = st.session_state
    seeded: dict[str, Any] = ss.setdefault(DEFAULT_OF, {})
    if key in seeded and key in ss and ss[key] == seeded[key] and default != seeded[key]:
        set_value(key, default)
    seeded[key] = default


def reset_on_change(key: str, context: object) -> bool:
    """Forget the value ``key`` (and its widgets) when ``context`` — what the choice was made for, e.g. the
    question whose CEGs it picks from — differs from the last run's; :func:`bind` then seeds its default.

    A choice among one question's results means nothing for the next question, even where the same
    index exists there (CEG #3 of another question is another CEG). Call it before the widget is drawn.
    Returns whether the value was forgotten.
    """
    ss = st.session_state
    chosen: dict[str, object] = ss.setdefault(CHOSEN_FOR, {})
    old = chosen.get(key, context)
    chosen[key] = context
    if old == context:
        return False
    prefix = widget_key(key)
    for k in [k for k in ss if isinstance(k, str) and (k == key or k == prefix or k.startswith(prefix + "."))]:
        del ss[k]
    return True


# ---------------------------------------------------------------- the question every method page shares
#: What :func:`release_own_question` records as the questions last seen: the page takes the workspace's
#: question on its next run, whatever its own is.
_NOT_SEEN = "\x00"


def own_question(page: str) -> bool:
    """Whether the page whose question is the value ``page`` keeps a question of its own (its switch is on)."""
    return bool(st.session_state.get(sub(QUESTION_OWN, page), False))


def release_own_question(workspace: str, page: str) -> None:
    """The page's switch was turned off (a callback): its next run shows the workspace's question again."""
    synced: dict[tuple[str, str], tuple[str, str]] = st.session_state.setdefault(QUESTION_SYNCED, {})
    synced[(workspace, page)] = (_NOT_SEEN, _NOT_SEEN)


def workspace_question(workspace: str, page: str, own: str | None) -> str | None:
    """The workspace's question for the page whose question is the value ``page`` to take before it draws its
    question widget, or None when the page's own question ``own`` (None: not set yet) stands.

    The page's question stands when its switch keeps one of its own, when no page has shown a question on
    this workspace yet, and when it was set from outside the page's widget since the page last showed the
    shared one (a hand-off, a deep link, a suggestion's button, the guided demo): :func:`share_question` then
    makes it the workspace's question. Otherwise the page takes the workspace's question when it changed
    elsewhere (typed on Ask, picked on Compare) since the page last showed it.
    """
    ss = st.session_state
    follow_workspace(workspace, QUESTION)  # each workspace has its own question
    shared = ss.get(QUESTION)
    if own_question(page) or not shared:
        return None
    if own is None:
        return str(shared)
    last = ss.get(QUESTION_SYNCED, {}).get((workspace, page))
    if last is not None and (last[0] == _NOT_SEEN or (own == last[1] and shared != last[0])):
        return str(shared)
    return None


def share_question(workspace: str, page: str, question: str) -> None:
    """After the page drew its question widget: its ``question`` becomes the workspace's question (unless
    the page keeps one of its own), and the page remembers having shown it."""
    if own_question(page):
        return
    ss = st.session_state
    ss[QUESTION] = question
    ss.setdefault(QUESTION_SYNCED, {})[(workspace, page)] = (question, question)
