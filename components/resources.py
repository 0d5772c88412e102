"""Cached core objects. The ONLY module that uses ``st.cache_resource`` / ``st.cache_data``.

* backends (embedder, LLM, reranker) by registry name, shared by every session of the process;
* opened workspaces by ``(path, mtime of the manifest)``: a rebuilt or re-indexed workspace gets
  a new key, so nobody sees a stale graph;
* method runs (:func:`method_run`, the one wrapper for every method);
* derived views that cost more than a few milliseconds (graph statistics, graph drawings), keyed by
  the workspace key plus their arguments.

Work that writes to disk (building a sample workspace, building an index) is never done inside a
cached function: :func:`open_workspace` runs it as a background job of the server (:func:`jobs`;
it survives page switches and reruns, and a second request joins it), and then opens the result
through the cache. A method run that waits on an LLM is such a job too (:func:`method_run`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import streamlit as st

from components import graph_view, jobs_view
from components.jobs_view import jobs as jobs  # the server's job manager lives with the panels that draw it
from components.ui import error_text, md_escape
from core.backends import registry
from core.errors import WorkspaceError
from core.methods.reranking import feature_store

if TYPE_CHECKING:
    from core.backends.base import LLM, Embedder, Reranker
    from core.background.jobs import Job
    from core.graph.model import KnowledgeGraph
    from core.graph.reader import GraphLike
    from core.index.listing import WorkspaceInfo
    from core.index.workspace import Workspace
    from core.methods.base import Backends, Method, MethodConfig
    from core.methods.reranking import FeatureStore

R = TypeVar("R")


# ------------------------------------------------------------------------------------ backends
@st.cache_resource(show_spinner="Loading the embedder…")
def embedder(name: str) -> Embedder:
    """The embedder registered as ``name`` (loaded once per process)."""
    return registry.get_embedder(name)


@st.cache_resource(show_spinner=False)
def llm(name: str, limits: tuple[float | None, int, float] | None = None, cache: bool | None = None) -> LLM:
    """The LLM backend ``name`` under the sidebar's ``(timeout or None, retries, budget)`` limits (``None``:
    from the environment), with the LLM response cache on or off (``None``: ``$EGX_LLM_CACHE``).
    Construction is cheap; local models load on first use."""
    from core.backends.llm import LLMSettings

    settings = LLMSettings.from_env() if limits is None else LLMSettings(*limits)
    return registry.get_llm(name, settings=settings, cache=cache)


@st.cache_resource(show_spinner="Loading the reranker…")
def reranker(name: str, embedder_name: str, llm_name: str) -> Reranker:
    """The reranker ``name``; the bi-encoder wraps the active embedder, ``llm`` the active LLM."""
    return registry.get_reranker(name, embedder=embedder(embedder_name),
                                 llm=llm(llm_name) if name == "llm" else None)


# ---------------------------------------------------------------------------------- workspaces
def manifest_mtime(path: str | Path) -> float:
    """Modification time of a workspace manifest (0.0 when there is none yet)."""
    from core.index.manifest import MANIFEST

    try:
        return (Path(path) / MANIFEST).stat().st_mtime
    except OSError:
        return 0.0


@st.cache_resource(show_spinner=False, max_entries=8)
def _opened(path: str, mtime: float) -> Workspace:
    from core.graph.reader import whole_graph_read
    from core.index.workspace import Workspace

    ws = Workspace.open(path)
    if not whole_graph_read(ws):
        _ = ws.graph  # load once here, not in the first page that touches it
    # a graph store's graph is never loaded here: pages read it through page_graph / whole_graph
    return ws


def _recipe_hashes() -> dict[str, str]:
    from core.index.samples import sample_recipes

    return {r.name: r.hash for r in sample_recipes()}


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
    emb = embedder(embedder_name)
    path = Path(info.path)

    def ready() -> Workspace | None:
        ws = _opened(str(path), manifest_mtime(path)) if manifest_mtime(path) else None
        if ws is not None:
            stale = info.sample and ws.meta.recipe_hash != _recipe_hashes().get(info.name)
            if not stale and ws.index_problem(emb) is None:
                return ws
        return None

    ws = ready()
    if ws is not None:
        return ws
    current = _opened(str(path), manifest_mtime(path)) if manifest_mtime(path) else None
    if not info.sample and current is None:
        raise WorkspaceError(f"{path} has no manifest.json any more (was it deleted?). "
                             "Pick another workspace or upload the data again.")
    building = info.sample and (current is None or current.meta.recipe_hash != _recipe_hashes().get(info.name))
    title = (f"Building workspace “{info.title}”" if building
             else f"Indexing “{info.title}” with {embedder_name}")

    work = workspace_build_work(info, embedder_name, current)
    manager = jobs()
    key = workspace_job_key(info, embedder_name)
    last = manager.get(key)
    if not building and current is not None and (last is None or last.finished):
        # an embedder switch re-indexes the whole workspace (MuSiQue with MiniLM: ~7 min): a long one is asked for
        seconds, how = reindex_estimate(current, workspace_key(current), emb, embedder_name)
        if seconds > ask_before_s() and not _offer_reindex(info, current, embedder_name, seconds, how, key):
            st.stop()
    if building and (last is None or last.finished) and not _server_builds(embedder_name):
        # a sample never built for this embedder is read and embedded whole (MuSiQue with MiniLM: ~7 min), so it
        # is asked for like a re-index; the server's own builds (make app, the default embedder) were asked for
        seconds, how = sample_build_estimate(info.name, _recipe_hashes().get(info.name, ""), emb, embedder_name)
        if seconds > ask_before_s() and not _offer_sample_build(info, embedder_name, seconds, how, key):
            st.stop()
    job = manager.submit(key, title, work, kind="workspace", restart=False)
    if job.finished and job.status().state == "done":
        # the build may have finished between ready() above and submit(): then it is ready now, and
        # resubmitting would replace the finished build in the jobs panel with an instant "Indexing" job
        ws = ready()
        if ws is not None:
            return ws
        job = manager.submit(key, title, work, kind="workspace")  # an earlier build, yet not ready (deleted since?)
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
            manager.submit(key, title, work, kind="workspace")
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
    if not manifest_mtime(path):
        return False
    ws = _opened(str(path), manifest_mtime(path))
    if info.sample and ws.meta.recipe_hash != _recipe_hashes().get(info.name):
        return False
    return ws.index_problem(embedder(embedder_name)) is None


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
            ensure_sample_workspace(info.name, embedder(embedder_name), progress=job.progress, root=path.parent)
        else:
            assert current is not None
            current.ensure_index(embedder(embedder_name), progress=job.progress)

    return work


@st.cache_data(show_spinner="Estimating how long indexing with this embedder takes…", max_entries=32)
def reindex_estimate(_workspace: Workspace, key: str, _embedder: Embedder, embedder_name: str) -> tuple[float, str]:
    """Cached :func:`core.index.estimate.reindex_estimate` (it may embed a few texts to measure the rate), keyed by
    the workspace key and the embedder's name."""
    from core.index.estimate import reindex_estimate as estimate

    return estimate(_workspace, _embedder)


def _server_builds(embedder_name: str) -> bool:
    """Whether this server builds the samples for ``embedder_name`` itself (:mod:`components.startup`: ``egx app``
    builds them for the default embedder as its own jobs), so a page that opens one first need not ask. Read from
    the variable :func:`components.startup.enabled` reads (startup imports this module: no import of it here)."""
    import os

    from components.state import default_embedder
    from core.cli.app import BUILD_SAMPLES_ENV

    return os.environ.get(BUILD_SAMPLES_ENV, "").strip() == "1" and embedder_name == default_embedder()


@st.cache_data(show_spinner="Estimating how long building this sample takes…", max_entries=32)
def sample_build_estimate(name: str, recipe_hash: str, _embedder: Embedder, embedder_name: str) -> tuple[float, str]:
    """Cached :func:`core.index.estimate.sample_build_estimate` (it reads the recipe's inputs and embeds a few of
    their texts), keyed by the sample, its recipe's hash and the embedder's name."""
    from core.index.estimate import sample_build_estimate as estimate

    return estimate(name, _embedder)


def _offer_sample_build(info: WorkspaceInfo, embedder_name: str, seconds: float, how: str, key: str) -> bool:
    """The ask-first offer of building a sample that is not built for ``embedder_name`` (never built here, or its
    recipe changed), expected to take longer than :func:`ask_before_s`: the sidebar says what would be built, how
    long it should take and why, with the button; the page says what is missing. True when the button was
    clicked in this run (then the caller starts the job)."""
    sb = st.sidebar
    sb.info(f"**“{md_escape(info.title)}” is not built for {md_escape(embedder_name)} yet.** Building it from its "
            f"files (its graph, then every node, edge and passage embedded) is expected to take **about "
            f"{_about(seconds)}** ({md_escape(how)}). Nothing is started until you ask.", icon=":material/build:")
    if sb.button("Build it now", key=f"egx.samplebuild.start.{key}", icon=":material/play_arrow:",
                 help="Build the sample with this embedder as a background job of the server: its progress, ETA "
                      "and Cancel appear on the page and in the sidebar. It is written whole or not at all."):
        return True
    st.info(f"The sample workspace “{md_escape(info.title)}” is **not built for the embedder "
            f"{md_escape(embedder_name)}** on this server yet. Building it takes about {_about(seconds)}, so it "
            "waits for you: **Build it now** in the sidebar starts it. Meanwhile any other workspace in the sidebar "
            "works as it is.", icon=":material/hourglass_empty:")
    return False


def _offer_reindex(info: WorkspaceInfo, ws: Workspace, embedder_name: str, seconds: float, how: str,
                   key: str) -> bool:
    """The ask-first offer of an embedder switch's re-index that is expected to take longer than
    :func:`ask_before_s`: the sidebar says what would be built, how long it should take and why, with the button
    that starts it; the page says the workspace is not ready for this embedder and that switching back needs
    nothing. True when the button was clicked in this run (then the caller starts the job)."""
    built = ws.meta.index_embedder or ws.meta.index_model_id or "another embedder"
    sb = st.sidebar
    sb.info(f"**Not indexed for {md_escape(embedder_name)} yet.** Re-indexing “{md_escape(info.title)}” is expected "
            f"to take **about {_about(seconds)}** ({md_escape(how)}). Nothing is started until you ask.",
            icon=":material/build:")
    if sb.button("Build it now", key=f"egx.reindex.start.{key}", icon=":material/play_arrow:",
                 help="Re-index the workspace with this embedder as a background job of the server: its progress, "
                      "ETA and Cancel appear on the page and in the sidebar. The new index replaces the current "
                      "one when it is complete (a cancelled build leaves the current one as it is)."):
        return True
    st.info(f"The workspace “{md_escape(info.title)}” is **not ready for the embedder {md_escape(embedder_name)}**: "
            f"its vector indexes were built with {md_escape(built)}. Re-indexing it takes about {_about(seconds)} "
            "on this server, so it waits for you: **Build it now** in the sidebar starts it. Switching the embedder "
            f"back to {md_escape(built)} needs nothing; the workspace works with it as it is.",
            icon=":material/hourglass_empty:")
    return False


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
    return f"{ws.path}@{manifest_mtime(ws.path)}"


# ------------------------------------------------------------------------------- derived views
@st.cache_data(show_spinner=False, max_entries=16)
def graph_stats(_graph: KnowledgeGraph, key: str) -> dict[str, Any]:
    """``KnowledgeGraph.stats()`` (components, degree percentiles: ~0.2 s on 16k nodes)."""
    return _graph.stats()


@st.cache_data(show_spinner=False, max_entries=64)
def top_degree_nodes(_graph: GraphLike, key: str, limit: int) -> list[int]:
    """The ``limit`` best-connected nodes (ties by name), default choices for node pickers (on a graph
    store, sorted by the server)."""
    import numpy as np

    from core.graph.view import StoreGraphView

    if isinstance(_graph, StoreGraphView):
        return _graph.store.top_degree_nodes(limit)
    deg = _graph.degree
    order = np.lexsort((np.asarray(_graph.node_names, dtype=object).astype(str), -deg))
    return [int(v) for v in order[:limit]]


@st.cache_data(show_spinner=False, max_entries=64)
def network_html(_graph: GraphLike, key: str, nodes: tuple[int, ...], *,
                 highlight: tuple[int, ...] = (), colors: tuple[tuple[int, str], ...] = (),
                 legend: tuple[graph_view.LegendItem, ...] = (), edge_labels: bool = False,
                 positions: tuple[tuple[int, float, float], ...] | None = None,
                 height: int = graph_view.DEFAULT_HEIGHT) -> str:
    """Cached :func:`components.graph_view.network_html` (pyvis takes ~0.3 s for 300 nodes)."""
    pos: Mapping[int, tuple[float, float]] | None = (
        None if positions is None else {v: (x, y) for v, x, y in positions})
    return graph_view.network_html(_graph, nodes, highlight=highlight, colors=dict(colors), legend=legend,
                                   edge_labels=edge_labels, positions=pos, height=height)


@st.cache_data(show_spinner=False, max_entries=16)
def layout_positions(_graph: GraphLike, key: str, nodes: tuple[int, ...],
                     seed: int = 0) -> tuple[tuple[int, float, float], ...]:
    """Cached deterministic layout (for pages that animate on fixed positions)."""
    pos = graph_view.layout_positions(_graph, nodes, seed=seed)
    return tuple((v, x, y) for v, (x, y) in sorted(pos.items()))


# ============================================================================ method runs
def method_run(spec: Method[Any, R], workspace: Workspace, key: str, backends: Backends, query: str,
               config: MethodConfig | None = None, *, defer: bool = False) -> R:
    """``spec.run`` on ``query`` (``config`` None: the paper defaults; generators seeded with 0), cached.

    The one way every page runs a retrieval method. A run is keyed by the workspace key, the method,
    the backends it uses (a method that does not rerank ignores the reranker), the question and the
    config fields that differ from the defaults, so pages showing the same run share it and moving a
    slider back to a value seen before is instant. Results are kept as objects (cache_resource): they
    are frozen dataclasses, and pickling them on every access (cache_data) would cost more than a
    `none`-mode run itself.

    What the method needs built first runs as a background job (:func:`prepare_in_background`); a long one
    waits for the user's click. ``defer``: raise :class:`PreparationPending` instead of drawing that offer
    and stopping the page (Compare runs the other methods meanwhile).

    Raises
    ------
    core.errors.EgxError
        What the method raises (bad question, bad config, unusable workspace); :class:`PreparationPending`
        with ``defer``.
    """
    from core.methods.run import backends_for

    used = backends_for(spec.name, backends)
    cfg = config if config is not None else spec.config()
    # e.g. FastInsight's node vectors on first use of a KG (a long one only when asked for; ``defer``: see there)
    prepare_in_background(spec, workspace, used, cfg, defer=defer)
    params = tuple(sorted(cfg.overrides().items()))
    names = used.names()
    if used.llm is not None and getattr(used.llm, "enabled", True) is False:
        names["llm_cache"] = "off"  # the sidebar's switch is off: a fresh run, not the one that used the cache
    from core.batch.tasks import model_stamp

    stamp = model_stamp(workspace, spec.name)  # a model trained since (Train panel, CLI) makes this a new run
    if stamp:
        names["models"] = stamp
    backends_key = json.dumps(names, sort_keys=True)
    if used.llm is not None and used.llm.available:  # it waits on an LLM: a job you can watch and stop
        return _method_job(spec, workspace, used, key, backends_key, query, params)  # type: ignore[no-any-return]
    return _method_run(spec.name, workspace, used, key, backends_key, query,  # type: ignore[no-any-return]
                       params)


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


class PreparationPending(WorkspaceError):
    """A method cannot run yet: what it needs first is a long build that waits for the user's click
    (``job`` None) or is running as a background job (``job``). :func:`offer_preparation` draws either."""

    def __init__(self, method: str, pending: Any, job: Job | None) -> None:
        self.method, self.pending, self.job = method, pending, job
        when = ("is being built on the server" if job is not None else
                "has to be built first" + (f" (about {_about(pending.estimate_s)})" if pending.estimate_s else ""))
        super().__init__(f"{method} is waiting: {pending.title} {when}.")


def _about(seconds: float | None) -> str:
    from core.background.jobs import format_seconds

    return format_seconds(max(1.0, float(seconds or 0.0)))


def preparation_work(p: Any) -> Callable[[Job], None]:
    """The job that computes preparation ``p`` (a :class:`core.methods.run.PendingPreparation`)."""
    def work(job: Job) -> None:
        p.work(job.progress)

    return work


def offer_preparations(waiting: Mapping[str, PreparationPending], *, compact: bool = False) -> None:
    """:func:`offer_preparation` once per build, naming every method that waits for it (``ppr`` and
    ``hipporag2`` share the synonym edges: one panel, one button)."""
    by_build: dict[str, list[PreparationPending]] = {}
    for exc in waiting.values():
        by_build.setdefault(exc.pending.key, []).append(exc)
    for group in by_build.values():
        offer_preparation(group[0], compact=compact, methods=[e.method for e in group])


def offer_preparation(exc: PreparationPending, *, compact: bool = False, methods: list[str] | None = None) -> None:
    """Draw what a waiting method needs: the running build's live panel (progress, ETA, Cancel), or what
    would be built, how long it is expected to take and why, with the button that starts it as a
    background job of the server (the page reruns when it is done). ``methods``: every method waiting for this
    build (default: ``exc.method``)."""
    p = exc.pending
    who = " and ".join(f"**{md_escape(m)}**" for m in (methods or [exc.method]))
    one = len(methods or [exc.method]) == 1
    if exc.job is not None and not exc.job.finished:
        st.info(f"{who} {'waits' if one else 'wait'} for: {md_escape(p.title)}. It runs once in the background on "
                "the server and is then kept with the workspace; the rest of the app stays usable meanwhile.",
                icon=":material/hourglass_top:")
        jobs_view.watch(exc.job)
        return
    est = f" It is expected to take **about {_about(p.estimate_s)}** ({md_escape(p.estimate_how)})." \
        if p.estimate_s else ""
    st.info(f"{who} {'needs' if one else 'need'} something built first: {md_escape(p.title)}.{est} "
            + ("" if compact else "It runs once, in the background on the server (you can switch pages or close the "
               "tab), and is then kept with the workspace, so later runs start at once. ")
            + "Nothing is started until you ask.", icon=":material/build:")
    if st.button("Build it now", key=f"egx.prep.start.{p.key}", icon=":material/play_arrow:",
                 help="Start this build as a background job; its progress, ETA and Cancel appear here and in "
                      "the sidebar."):
        jobs().submit(p.key, p.title, preparation_work(p), kind="workspace")
        st.rerun()


def prepare_in_background(spec: Method[Any, Any], workspace: Workspace, backends: Backends, config: Any, *,
                          defer: bool = False) -> None:
    """Compute what ``spec`` needs in ``workspace`` before it runs (:func:`core.methods.run.pending_preparations`:
    the indexes, then the method's own preparation — FastInsight's KG node vectors, SG-RAG's dominance
    model), each as a background job of the server with a live progress bar and ETA, keyed so that pages
    asking for the same preparation share it. Returns at once when everything is in the workspace already.

    A preparation expected to take longer than :func:`ask_before_s` (its estimate from a measured or stated
    rate) is not started unasked: the page says what it would build and how long that should take, with a
    button that starts it (:func:`offer_preparation`), and stops there. With ``defer`` (a page running
    several methods, such as Compare) nothing is drawn and nothing stops: :class:`PreparationPending` is
    raised for the page to draw in the method's place while the other methods run."""
    from core.methods.run import pending_preparations

    manager = jobs()
    for p in pending_preparations(spec, workspace, backends, config):
        job = manager.get(p.key)
        running = job is not None and not job.finished
        long = p.estimate_s is not None and p.estimate_s > ask_before_s()
        if not running and long:
            exc = PreparationPending(spec.title, p, None)
            if defer:
                raise exc
            offer_preparation(exc)
            st.stop()
        job = manager.submit(p.key, p.title, preparation_work(p), kind="workspace", restart=False)
        if job.finished and job.status().state in ("failed", "cancelled"):
            job = manager.submit(p.key, p.title, preparation_work(p), kind="workspace")
        job.wait(0.0 if (defer and long) or not jobs_view.waits_on(job) else jobs_view.inline_wait(8.0))
        s = job.status()
        if s.state == "done":
            continue
        if s.state in ("failed", "cancelled"):
            job.result()  # raises the error (or Cancelled), which the page shows
        if defer:
            raise PreparationPending(spec.title, p, job)
        jobs_view.wait_for(job, note=f"{s.title} runs once on the server and is then kept in the workspace folder; "
                                     f"{spec.title} continues when it is done.")
        raise AssertionError("unreachable: wait_for stops the page")


def _method_job(spec: Method[Any, Any], workspace: Workspace, backends: Backends, key: str, backends_key: str,
                query: str, params: tuple[tuple[str, Any], ...]) -> Any:
    """A method run with an LLM, as a background job keyed like the cache: pages asking for the same
    run join it; while it runs the page shows its stage, elapsed time, LLM requests and tokens, and a
    Cancel button; the finished result is kept by the job manager (its newest runs)."""
    from core.methods.run import run_method

    config = spec.config(**dict(params)) if params else None
    jkey = "method:" + json.dumps([spec.name, key, backends_key, query, params], default=str)

    def work(job: Job) -> Any:
        with feature_store(reranker_features()):
            return run_method(spec.name, query, workspace, backends, config=config, seed=0)

    manager = jobs()
    # a recorded run replays at once: the sidebar does not list it once done (components.jobs_view)
    extra = {"replay": True} if backends.llm.name == "recorded" else None
    job = manager.submit(jkey, f"{spec.title} with LLM {backends.llm.name}", work, kind="method", restart=False,
                         extra=extra)
    job.wait(jobs_view.inline_wait(3.0) if jobs_view.waits_on(job) else 0.0)
    s = job.status()
    if s.state == "done":
        return job.result()
    if s.state in ("failed", "cancelled"):
        if jobs_view.again_button("Run again", jkey):
            manager.submit(jkey, s.title, work, kind="method", extra=extra)
            st.rerun()
        job.result()  # raises: Cancelled ("… cancelled. …") or the run's error; the page shows it
    jobs_view.wait_for(job, note=f"{s.title} is running on the server: its stages, LLM requests and tokens "
                                 "appear below as they happen. Cancel stops it at once.")
    raise AssertionError("unreachable: wait_for stops the page")


@st.cache_resource(show_spinner="Running the retrieval method…", max_entries=64)
def _method_run(method: str, _workspace: Workspace, _backends: Backends, key: str, backends_key: str, query: str,
                params: tuple[tuple[str, Any], ...]) -> Any:
    from core.methods.registry import get_method
    from core.methods.run import run_method

    spec = get_method(method)
    config = spec.config(**dict(params)) if params else None
    with feature_store(reranker_features()):  # GRanker's H of earlier runs (another α / β): not encoded again
        return run_method(method, query, _workspace, _backends, config=config, seed=0)


@st.cache_resource(show_spinner=False)
def reranker_features() -> FeatureStore | None:
    """The server's one store of reranker features ``H`` (:class:`core.methods.reranking.FeatureStore`, a
    bounded LRU keyed by reranker, question, graph mode and text), shared by every session: moving the GRanker
    page's α or β re-runs FastInsight's loop on the features earlier runs computed, encoding only candidates
    no earlier run reached. ``$EGX_FEATURE_STORE_ROWS`` bounds it (default 50,000 rows, ~75 MB with the
    bundled cross-encoder; 0: no store, every run encodes its candidates — the benchmark's baseline)."""
    import os

    from core.methods.reranking import FeatureStore

    raw = os.environ.get("EGX_FEATURE_STORE_ROWS", "").strip()
    try:
        rows = int(raw) if raw else 50_000
    except ValueError:
        rows = 50_000
    return FeatureStore(max_rows=rows) if rows > 0 else None


def clear_method_runs() -> None:
    """Forget every cached method run (after something they depend on changed on disk)."""
    _method_run.clear()



# ============================================================================ FastInsight (GRanker page)
@st.cache_data(show_spinner=False, max_entries=16)
def workspace_questions(_workspace: Workspace, key: str) -> list[Any]:
    """The workspace's questions with gold chunk ids (``core.index.questions.Question``; [] if none)."""
    from core.index.questions import load_questions

    return load_questions(_workspace)


@st.cache_resource(show_spinner=False, max_entries=8)
def fastinsight_search_graph(_workspace: Workspace, key: str, _run: Any, searched: str, params: str) -> Any:
    """The graph a FastInsight run searched: KG nodes, the corpus graph, or the passage graph derived
    from the KG (``params`` is the run's config, for the cache key)."""
    return _run.search_graph(_workspace)


@st.cache_data(show_spinner=False, max_entries=32)
def smoothing_graph_html(_run: Any, _pg: Any, _graph: KnowledgeGraph, run_key: str, limit: int,
                         gold: tuple[str, ...], height: int = 520) -> str:
    """Drawing of the top ``limit`` GRanker candidates with the propagation weights P on the edges;
    node size grows with the GRanker score, gold passages are green, the rest coloured by rank shift."""
    import numpy as np

    from core.methods.fastinsight.views import rank_comparison, smoothing_graph

    final = _run.engine.final.granker
    small = smoothing_graph(final, _pg, _graph, limit=limit)
    rows = {r.chunk_id: r for r in rank_comparison(final, _pg, _graph, gold)}
    colors, sizes = {}, {}
    scores = np.asarray([rows[c].granker_score for c in small.node_ids], dtype=float)
    lo, hi = (float(scores.min()), float(scores.max())) if scores.size else (0.0, 1.0)
    for v, cid in enumerate(small.node_ids):
        r = rows[cid]
        colors[v] = ("#009e73" if r.gold else "#0072b2" if r.shift > 0 else "#d55e00" if r.shift < 0
                     else graph_view.NODE_COLOR)
        sizes[v] = 12 + 22 * ((r.granker_score - lo) / (hi - lo) if hi > lo else 0.5)
    legend = (graph_view.LegendItem("gold evidence", "#009e73"), graph_view.LegendItem("moved up by GRanker", "#0072b2"),
              graph_view.LegendItem("moved down", "#d55e00"), graph_view.LegendItem("unchanged", graph_view.NODE_COLOR),
              graph_view.LegendItem("edge i→j: weight P_ij of j in i's smoothing", graph_view.EDGE_COLOR, "line"))
    # labels: the gold passages, then the best by GRanker score (the rest on hover)
    by_score = sorted(range(small.n_nodes), key=lambda v: -rows[small.node_ids[v]].granker_score)
    labels = [v for v in by_score if rows[small.node_ids[v]].gold] + by_score[:12]
    return graph_view.network_html(small, range(small.n_nodes), colors=colors, sizes=sizes, legend=legend,
                                   edge_labels=True, height=height, labels=labels)


# ============================================================================ BubbleRAG (four pages)
@st.cache_resource(show_spinner="Recording the bubble expansion frame by frame…", max_entries=16)
def bubblerag_replay(_result: Any, _graph: GraphLike, run_key: str) -> Any:
    """The run's expansion replayed frame by frame (``core.methods.bubblerag.replay.ExpansionReplay``)."""
    from core.methods.bubblerag.replay import expansion_replay

    cfg = _result.config
    return expansion_replay(_graph, _result.local, _result.groups.groups, budget=cfg.B,
                            intra_group=cfg.intra_group, intra_counts=cfg.intra_counts)


@st.cache_data(show_spinner=False, max_entries=256)
def styled_network_html(_graph: GraphLike, key: str, nodes: tuple[int, ...], *,
                        colors: tuple[tuple[int, str], ...] = (), sizes: tuple[tuple[int, float], ...] = (),
                        borders: tuple[tuple[int, str, int], ...] = (), edges: tuple[int, ...] | None = None,
                        edge_colors: tuple[tuple[int, str], ...] = (), edge_widths: tuple[tuple[int, float], ...] = (),
                        notes: tuple[tuple[int, str], ...] = (),
                        positions: tuple[tuple[int, float, float], ...] | None = None,
                        legend: tuple[graph_view.LegendItem, ...] = (), edge_labels: bool = False,
                        height: int = graph_view.DEFAULT_HEIGHT, labels: tuple[int, ...] | None = None,
                        shapes: tuple[tuple[int, str], ...] = ()) -> str:
    """Cached :func:`components.graph_view.network_html` with every styling map (hashable tuples)."""
    pos = None if positions is None else {v: (x, y) for v, x, y in positions}
    return graph_view.network_html(
        _graph, nodes, edges=edges, colors=dict(colors), sizes=dict(sizes) if sizes else None,
        borders={v: (c, w) for v, c, w in borders}, edge_colors=dict(edge_colors), edge_widths=dict(edge_widths),
        notes=dict(notes), positions=pos, legend=legend, edge_labels=edge_labels, height=height, labels=labels,
        shapes=dict(shapes))


# ============================================================================ Evaluate (Benchmark page)
@st.cache_data(show_spinner=False, max_entries=8)
def bench_report(path: str, mtime: float) -> Any:
    """A benchmark folder reloaded (``core.eval.bench_report.load_report``); ``mtime`` of its JSONL keys it."""
    from core.eval.bench_report import load_report

    return load_report(path)


# ============================================================================ ReG (Evidence chains page)
@st.cache_resource(show_spinner="Building the supervision candidates…", max_entries=32)
def reg_supervision(_workspace: Workspace, _item: Any, _llm: Any, key: str, qid: str, llm_key: str,
                    refine: bool) -> tuple[Any, Any]:
    """(Supervision, Trace) of one question: candidate pool → compression → selection (ReG §4.1)."""
    from core.methods.reg.supervision import build_supervision
    from core.trace import Trace

    trace = Trace("reg-supervision", _item.question, _workspace.name)
    sup = build_supervision(_item, _workspace.graph, _llm, refine=refine, trace=trace)
    return sup, trace


@st.cache_data(show_spinner=False, max_entries=8)
def reg_questions(_workspace: Workspace, key: str) -> list[Any]:
    """The workspace's questions with answers (``core.methods.reg.supervision.QAItem``; [] if none)."""
    from core.index.questions import chunk_table
    from core.methods.reg.supervision import load_qa

    path = _workspace.questions_path
    return load_qa(path, chunk_table(_workspace)) if path is not None else []  # a store: its chunk rows only



# ============================================================================ SG-RAG (Subgraph page)
# pages/subgraph.py: one run per (workspace, backends, question, knobs); the dominance model is
# trained outside any cache (it writes to disk) under a progress bar, then reused from disk.
def sgrag_model_ready(workspace: Workspace, embedder: Embedder, key: str, embedder_name: str) -> bool:
    """Whether the SG-RAG dominance model for this workspace is already trained (no progress bar needed)."""
    from core.methods.sgrag.pipeline import is_prepared

    return is_prepared(workspace, embedder)


def sgrag_prepare(workspace: Workspace, embedder: Embedder, key: str, embedder_name: str, *, retrain: bool,
                  progress: Any = None) -> Any:
    """Train (or load) the dominance model and label tables (``core.methods.sgrag.prepare``)."""
    from core.methods.sgrag import prepare

    return prepare(workspace, embedder, retrain=retrain, progress=progress)
