"""Opening the active workspace: a sample built or a workspace re-indexed as a background job of the server
(with the ask-first offer of a long re-index), and the whole graph for the page parts that need all of it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from components import jobs_view, resources
from components.ui import error_text, md_escape
from core.errors import WorkspaceError

if TYPE_CHECKING:
    from core.background.jobs import Job
    from core.graph.model import KnowledgeGraph
    from core.graph.reader import GraphLike
    from core.index.listing import WorkspaceInfo
    from core.index.workspace import Workspace


#: A preparation expected to take longer than this many seconds waits for the user's click
#: (``$EGX_ASK_BEFORE_S`` overrides it; 0 asks before every estimated one).
ASK_BEFORE_S = 30.0


def ask_before_s() -> float:
    """:data:`ASK_BEFORE_S`, or ``$EGX_ASK_BEFORE_S`` when set to a number of seconds."""
    import os

    try:
        return max(0.0, float(os.environ.get("EGX_ASK_BEFORE_S", ASK_BEFORE_S)))
    except ValueError:
        return ASK_BEFORE_S


def about(seconds: float | None) -> str:
    """A build's estimate as the ask-first offers say it ("7 min"; at least a second)."""
    from core.background.jobs import format_seconds

    return format_seconds(max(1.0, float(seconds or 0.0)))


def open_workspace(info: WorkspaceInfo, embedder_name: str) -> Workspace:
    """The opened, indexed workspace ``info`` for the embedder ``embedder_name``.

    A sample that was never built (or whose recipe changed) is built first, and a workspace whose
    index does not match the embedder is re-indexed — as a background job of the server
    (:func:`jobs`) that runs the build in a child process within the memory and time caps
    (:mod:`core.index.isolated`; ``EGX_BUILD_ISOLATED=0``: in this process), keyed by workspace and
    embedder: it survives page switches and reruns, every session sees it in the sidebar, and a second
    request joins the running build. A build that finishes within a few seconds is waited for; a longer
    one shows its live panel (progress, ETA, Cancel) and stops the page until it is done. Afterwards the
    workspace comes from the cache keyed by its manifest's mtime.

    Raises
    ------
    core.errors.EgxError
        When the workspace cannot be built, opened or indexed.
    """
    emb = resources.embedder(embedder_name)
    path = Path(info.path)

    def ready() -> Workspace | None:
        ws = resources.opened(str(path), resources.manifest_mtime(path)) if resources.manifest_mtime(path) else None
        if ws is not None:
            stale = info.sample and ws.meta.recipe_hash != resources.recipe_hashes().get(info.name)
            if not stale and ws.index_problem(emb) is None:
                return ws
        return None

    ws = ready()
    if ws is not None:
        return ws
    current = resources.opened(str(path), resources.manifest_mtime(path)) if resources.manifest_mtime(path) else None
    if not info.sample and current is None:
        raise WorkspaceError(f"{path} has no manifest.json any more (was it deleted?). "
                             "Pick another workspace or upload the data again.")
    building = info.sample and (current is None or current.meta.recipe_hash != resources.recipe_hashes().get(info.name))
    title = (f"Building workspace “{info.title}”" if building
             else f"Indexing “{info.title}” with {embedder_name}")

    work = workspace_build_work(info, embedder_name, current)
    manager = jobs_view.jobs()
    key = workspace_job_key(info, embedder_name)
    last = manager.get(key)
    if not building and current is not None and (last is None or last.finished):
        # an embedder switch re-indexes the whole workspace (MuSiQue with MiniLM: ~7 min): a long one is asked for
        seconds, how = resources.reindex_estimate(current, workspace_key(current), emb, embedder_name)
        if seconds > ask_before_s() and not _offer_reindex(info, current, embedder_name, seconds, how, key):
            st.stop()
    if building and (last is None or last.finished) and not _server_builds(embedder_name):
        # a sample never built for this embedder is read and embedded whole (MuSiQue with MiniLM: ~7 min), so it
        # is asked for like a re-index; the server's own builds (make app, the default embedder) were asked for
        seconds, how = resources.sample_build_estimate(info.name, resources.recipe_hashes().get(info.name, ""), emb,
                                                       embedder_name)
        if seconds > ask_before_s() and not _offer_sample_build(info, embedder_name, seconds, how, key):
            st.stop()
    job = manager.submit(key, title, work, kind="workspace", restart=False, extra=jobs_view.public(title))
    if job.finished and job.status().state == "done":
        # the build may have finished between ready() above and submit(): then it is ready now, and
        # resubmitting would replace the finished build in the jobs panel with an instant "Indexing" job
        ws = ready()
        if ws is not None:
            return ws
        job = manager.submit(key, title, work, kind="workspace", extra=jobs_view.public(title))  # an earlier build, yet not ready (deleted since?)
    job.wait(jobs_view.inline_wait(8.0) if jobs_view.waits_on(job) else 0.0)  # stopped waiting: no pause
    s = job.status()
    if s.state == "done":
        ws = ready()
        if ws is None:
            raise WorkspaceError(f"{path} was built but cannot be opened with {embedder_name}; build it again.")
        return ws
    if s.state in ("failed", "cancelled"):
        if s.state == "cancelled":
            st.warning(f"{md_escape(s.title)} was cancelled. Nothing was half-written: the previous state of the "
                       "workspace (if it had one) is unchanged, and a new build reuses cached triple extractions.",
                       icon=":material/stop_circle:")
        if jobs_view.again_button("Build again", key):
            manager.submit(key, title, work, kind="workspace", extra=jobs_view.public(title))
            st.rerun()
        if s.state == "cancelled":
            st.stop()
        job.result()  # raises the build's error, which the sidebar shows
    jobs_view.wait_for(job, note=f"{s.title} runs in the background on the server. You can switch pages or close "
                                 "this tab: it keeps going, and this page continues when it is done.")
    raise AssertionError("unreachable: wait_for stops the page")


def workspace_job_key(info: WorkspaceInfo, embedder_name: str) -> str:
    """The job key of building or re-indexing workspace ``info`` for ``embedder_name``: a page that opens it and
    the samples built at the server's start (:mod:`components.startup`) share one job."""
    return f"workspace:{Path(info.path)}:{embedder_name}"


def workspace_ready(info: WorkspaceInfo, embedder_name: str) -> bool:
    """Whether ``info`` is built (a sample: from its current recipe) and indexed for ``embedder_name``, so opening
    it starts no job."""
    path = Path(info.path)
    if not resources.manifest_mtime(path):
        return False
    ws = resources.opened(str(path), resources.manifest_mtime(path))
    if info.sample and ws.meta.recipe_hash != resources.recipe_hashes().get(info.name):
        return False
    return ws.index_problem(resources.embedder(embedder_name)) is None


def workspace_build_work(info: WorkspaceInfo, embedder_name: str, current: Workspace | None) -> Callable[[Job], None]:
    """The job that builds sample ``info`` (from its recipe) or re-indexes workspace ``current`` for
    ``embedder_name``: in a child process within the memory and time caps (:mod:`core.index.isolated`;
    ``EGX_BUILD_ISOLATED=0``: in this process). It commits atomically: a kill leaves the previous state."""
    from core.index.isolated import BuildSpec, build_isolated, isolated_builds
    from core.index.samples import ensure_sample_workspace

    path = Path(info.path)

    def work(job: Job) -> None:
        if isolated_builds():  # in a child process within the memory and time caps, as uploads are
            spec = (BuildSpec.sample(info.name, path, embedder_name) if info.sample
                    else BuildSpec.index(path, embedder_name))
            job.extra["build"] = build_isolated(spec, progress=job.progress, cancel=job.cancel_event)
        elif info.sample:
            ensure_sample_workspace(info.name, resources.embedder(embedder_name), progress=job.progress, root=path.parent)
        else:
            assert current is not None
            current.ensure_index(resources.embedder(embedder_name), progress=job.progress)

    return work



def _server_builds(embedder_name: str) -> bool:
    """Whether this server builds the samples for ``embedder_name`` itself (:mod:`components.startup`: ``egx app``
    builds them for the default embedder as its own jobs), so a page that opens one first need not ask. Read from
    the variable :func:`components.startup.enabled` reads (startup imports this module: no import of it here)."""
    import os

    from components.state import default_embedder
    from core.cli.app import BUILD_SAMPLES_ENV

    return os.environ.get(BUILD_SAMPLES_ENV, "").strip() == "1" and embedder_name == default_embedder()


def _offer_sample_build(info: WorkspaceInfo, embedder_name: str, seconds: float, how: str, key: str) -> bool:
    """The ask-first offer of building a sample that is not built for ``embedder_name`` (never built here, or its
    recipe changed), expected to take longer than :func:`ask_before_s`: the page says what is missing, what would
    be built, how long it should take and why, with the button right under it (:func:`_offer`). True when the
    button was clicked in this run (then the caller starts the job)."""
    return _offer(
        f"The sample workspace “{md_escape(info.title)}” is **not built for the embedder {md_escape(embedder_name)}** "
        f"on this server yet. Building it from its files (its graph, then every node, edge and passage embedded) is "
        f"expected to take **about {about(seconds)}** ({md_escape(how)}), so nothing is started until you ask: "
        "**Build it now** below starts it. Meanwhile any other workspace in the sidebar works as it is.",
        key=f"egx.samplebuild.start.{key}",
        help="Build the sample with this embedder as a background job of the server: its progress, ETA and Cancel "
             "appear on this page and in the sidebar. It is written whole or not at all.")


def _offer_reindex(info: WorkspaceInfo, ws: Workspace, embedder_name: str, seconds: float, how: str,
                   key: str) -> bool:
    """The ask-first offer of an embedder switch's re-index that is expected to take longer than
    :func:`ask_before_s`: the page says the workspace is not ready for this embedder, how long the re-index should
    take and why, with the button right under it (:func:`_offer`), and that switching back needs nothing. True
    when the button was clicked in this run (then the caller starts the job)."""
    built = ws.meta.index_embedder or ws.meta.index_model_id or "another embedder"
    return _offer(
        f"The workspace “{md_escape(info.title)}” is **not ready for the embedder {md_escape(embedder_name)}**: its "
        f"vector indexes were built with {md_escape(built)}. Re-indexing it is expected to take **about "
        f"{about(seconds)}** on this server ({md_escape(how)}), so nothing is started until you ask: **Build it "
        f"now** below starts it. Switching the embedder back to {md_escape(built)} needs nothing; the workspace "
        "works with it as it is.",
        key=f"egx.reindex.start.{key}",
        help="Re-index the workspace with this embedder as a background job of the server: its progress, ETA and "
             "Cancel appear on this page and in the sidebar. The new index replaces the current one when it is "
             "complete (a cancelled build leaves the current one as it is).")


def _offer(text: str, *, key: str, help: str) -> bool:
    """An ask-first offer in the main pane: ``text`` (what is missing, the estimate and its basis) with the one
    **Build it now** button right under it. It was in the sidebar, under the backends and every job card (an audit
    found it 3,300 px down, on a page that said nothing else). True when the button was clicked in this run: the
    offer is cleared then, so the live panel of the job the caller starts is what the page shows."""
    box = st.empty()
    with box.container():
        st.info(text, icon=":material/hourglass_empty:")
        clicked = st.button("Build it now", key=key, icon=":material/play_arrow:", type="primary", help=help)
    if clicked:
        box.empty()
    return clicked


#: The most edges a page part that needs the *whole* graph (the Data page's statistics, SG-RAG, Compare,
#: ReG's supervision pool, the failure diagnosis) reads from a graph store into the app; above it the part
#: says so and does not run. ``EGX_APP_WHOLE_GRAPH_MAX_EDGES`` overrides it.
WHOLE_GRAPH_MAX_EDGES = 1_000_000


def page_graph(ws: Workspace) -> GraphLike:
    """The graph a page draws from: the workspace's graph in memory, or, for a graph store, a new
    read-through :class:`~core.graph.view.StoreGraphView` that reads only what this run shows (the
    drawings, names, passages of a result) and is dropped with the run, so the app's memory does not
    grow with the KG (:func:`core.graph.reader.question_graph`, what a method's run reads too)."""
    from core.graph.reader import question_graph

    return question_graph(ws)


def whole_graph_limit() -> int:
    """:data:`WHOLE_GRAPH_MAX_EDGES`, or ``EGX_APP_WHOLE_GRAPH_MAX_EDGES`` when set (a non-negative int)."""
    import os

    raw = os.environ.get("EGX_APP_WHOLE_GRAPH_MAX_EDGES", "").strip()
    if not raw:
        return WHOLE_GRAPH_MAX_EDGES
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise WorkspaceError(f"EGX_APP_WHOLE_GRAPH_MAX_EDGES={raw!r} is not a number of edges: set a whole number "
                             f"≥ 0, or unset it for the default {WHOLE_GRAPH_MAX_EDGES:,}.")
    return value


def whole_graph(ws: Workspace, purpose: str) -> KnowledgeGraph:
    """The whole graph, for a page that needs all of it (``purpose`` says what for): see
    :func:`whole_graph_if_it_fits`; a graph store above the limit stops the page after saying why."""
    graph = whole_graph_if_it_fits(ws, purpose)
    if graph is None:
        st.stop()
    return graph


def whole_graph_if_it_fits(ws: Workspace, purpose: str) -> KnowledgeGraph | None:
    """The whole graph, for a page part that needs all of it (``purpose`` says what for).

    In memory: the loaded graph. On a graph store: read once into the app (kept with the opened
    workspace), with a caption saying so. A store graph above :func:`whole_graph_limit` edges is not
    read: a warning says why and what to use instead, and the result is ``None`` (a page with other
    parts that still work, such as the Data page's upload, goes on)."""
    from core.graph.reader import whole_graph_read

    if not whole_graph_read(ws):
        return ws.graph
    store = ws.store
    try:
        limit = whole_graph_limit()
    except WorkspaceError as exc:
        st.error(md_escape(error_text(exc)))
        limit = WHOLE_GRAPH_MAX_EDGES
    if store.n_edges > limit:
        st.warning(f"This page needs the whole graph ({md_escape(purpose)}), and the graph store of this workspace holds "
                   f"{store.n_nodes:,} nodes and {store.n_edges:,} edges — more than the {limit:,} edges the app "
                   "reads into its memory. The BubbleRAG, GRanker and Evidence chains pages and the Data page's Graph "
                   "tab read only what they show and work here; for this, use `egx ask` / `egx bench` from the "
                   "command line, or raise the limit with EGX_APP_WHOLE_GRAPH_MAX_EDGES if this machine has the "
                   "memory.", icon=":material/database:")
        return None
    if "graph" not in ws.__dict__:
        with st.spinner(f"Reading the whole graph from the graph store ({store.n_edges:,} edges)…"):
            _ = ws.graph
    st.caption(f"This page reads the whole graph from the graph store ({store.n_nodes:,} nodes, {store.n_edges:,} "
               f"edges) for {md_escape(purpose)}; the BubbleRAG, GRanker and Evidence chains pages read only what "
               "they show.")
    return ws.graph


def workspace_key(ws: Workspace) -> str:
    """A string that changes whenever the workspace on disk changes (cache key for derived views)."""
    return f"{ws.path}@{resources.manifest_mtime(ws.path)}"

