"""The shared sidebar: workspace picker and backend choices, rendered by ``app.py`` on every page.

It resolves the choices into an :class:`Active` record (opened workspace, backend objects), stores it
under :data:`components.state.ACTIVE` and returns it; pages read it with :func:`active`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import streamlit as st

from components import jobs_view, resources, workspaces
from components import state as S
from components.ui import error_text, md_escape
from core.backends import registry
from core.backends.hub import check_app_model
from core.errors import BackendError, EgxError
from core.graph.reader import question_graph

if TYPE_CHECKING:
    from core.backends.base import LLM, Embedder, Reranker
    from core.graph.reader import GraphLike
    from core.index.listing import WorkspaceInfo
    from core.index.workspace import Workspace
    from core.methods.base import Backends

_CUSTOM = {"embedder": "st", "reranker": "cross-encoder"}
_CUSTOM_LABEL = {"embedder": "sentence-transformers model (path or hub id)…",
                 "reranker": "cross-encoder (path or hub id)…"}


@dataclass
class Active:
    """What the sidebar resolved for this run."""

    info: WorkspaceInfo
    workspace: Workspace
    key: str  #: changes whenever the workspace on disk changes (cache key for derived views)
    embedder_name: str
    embedder: Embedder
    reranker_name: str
    reranker: Reranker | None
    llm_name: str
    llm: LLM
    notes: list[str] = field(default_factory=list)

    @property
    def backends(self) -> Backends:
        """The sidebar's embedder, LLM and reranker, as every method run takes them."""
        from core.methods.base import Backends

        return Backends(self.embedder, self.llm, self.reranker)

    @cached_property
    def graph(self) -> GraphLike:
        """The graph this run's page draws from (:func:`components.workspaces.page_graph`): the graph in
        memory, or a read-through view of the workspace's graph store that reads only what is shown."""
        return workspaces.page_graph(self.workspace)


def active() -> Active:
    """The record the sidebar stored for this run. Every page calls this first.

    app.py stores it before running the page and drops it afterwards, so a page that finds none
    was run without app.py. Streamlit does that while a ``pages/`` folder sits next to the entry
    script and no session has called ``st.navigation`` yet: the legacy multipage mode stays on until
    then ("As soon as any session of your app executes the st.navigation command, your app will
    ignore the pages/ directory (across all sessions)",
    https://docs.streamlit.io/develop/api-reference/navigation/st.navigation), which happens on the
    first run of a fresh server opened on a page URL. The page then declares the app's pages, which
    ends that mode for good, and reruns: the rerun runs app.py, whose ``st.navigation`` maps the same
    URL back to this page (tests/app/test_browser.py opens the Data page URL on a fresh server).
    """
    rec = st.session_state.get(S.ACTIVE)
    if rec is None:
        from components.navigation import app_pages, page_config

        page_config()  # the local favicon, before the navigation names the pages' icons
        st.navigation(app_pages(), position="hidden")
        st.rerun()
    return rec


def _choices(kind: str) -> list[str]:
    """Registry names for ``kind``; a parameterized name becomes its prefix (``st``, ...)."""
    out = []
    for name in registry.list_backends()[kind]:
        out.append(name.split(":", 1)[0] if "<" in name else name)
    return out


def _seed_choice(kind: str, key: str, model_key: str | None, default: str) -> None:
    """Put ``default`` (possibly ``prefix:arg``) into the widget state before the widget exists."""
    if key in st.session_state:
        return
    prefix = _CUSTOM.get(kind)
    if prefix and model_key and default.startswith(prefix + ":"):
        st.session_state[key] = prefix
        st.session_state[model_key] = default.split(":", 1)[1]
    else:
        st.session_state[key] = default


#: Options shown under another label than their registry name.
_OPTION_LABEL = {("llm", "recorded"): "recorded LLM run (replay)", ("llm", "local"): "local (live)",
                 ("llm", "local-small"): "local-small (live)", ("llm", "openai"): "openai (live)"}


def _tour_locks() -> bool:
    """Whether the guided demo runs: it sets the workspace and the backends itself, step by step, and the sidebar's
    pickers show them locked. Left open, a picker could undo the tour's choice with no one touching it: a browser
    sends its widgets' values with every request, and a request it sent before the tour's new value reached it (a
    job panel polls every 2 s) put the LLM back to "none" on the tour's first step, with a warning that the sidebar
    had been changed (an audit, once in two runs on a loaded server)."""
    return st.session_state.get(S.TOUR) is not None


def _lock(key: str, wkey: str) -> bool:
    """Hold the widget ``wkey`` at the value ``key`` while the tour runs (before the widget is drawn; see
    :func:`_tour_locks`); returns whether it is locked."""
    if not _tour_locks():
        return False
    st.session_state[wkey] = st.session_state[key]
    return True


#: What a picker locked by the tour says.
TOUR_LOCK_HELP = "The guided demo sets this for each step; Leave the tour (in its bar) to choose your own."


def _backend_picker(kind: str, label: str, key: str, model_key: str | None, default: str,
                    help_text: str) -> str:
    """A selectbox over the registry names (plus a model field for parameterized ones); returns
    the resolved registry name."""
    options = _choices(kind)
    _seed_choice(kind, key, model_key, default)
    wkey = S.bind(key, st.session_state[key])
    locked = _lock(key, wkey)
    if st.session_state[wkey] not in options:
        options.append(st.session_state[wkey])  # e.g. an unknown name from the environment
    prefix = _CUSTOM.get(kind)
    choice = S.keep(key, st.sidebar.selectbox(label, options, key=wkey, disabled=locked,
                                              help=TOUR_LOCK_HELP if locked else help_text,
                                              format_func=lambda n: _CUSTOM_LABEL[kind] if n == prefix else
                                                                  _OPTION_LABEL.get((kind, n), n)))
    if prefix and choice == prefix and model_key:
        model = S.keep(model_key, st.sidebar.text_input(
            f"{label} model", key=S.bind(model_key, ""), placeholder="/path/to/model or org/name",
            help="A folder under $EGX_HOME/models (or EGX_MODEL_DIRS), or a hub id: taken from the local Hugging "
                 "Face cache, else downloaded once when the network allows."))
        operator = default.split(":", 1)[1] if default.startswith(prefix + ":") else None
        if not model.strip() or model.strip() == operator:  # the server's own setting (EGX_EMBEDDER ...): trusted
            return f"{prefix}:{model.strip()}"
        try:  # typed in a browser: a hub id or a folder under the model folders only
            return f"{prefix}:{check_app_model(model)}"
        except BackendError as exc:
            st.sidebar.error(md_escape(error_text(exc)))
            fallback = {"embedder": registry.DEFAULT_EMBEDDER, "reranker": registry.DEFAULT_RERANKER}.get(kind)
            return fallback or default
    return str(choice)


def _store_label(url: str) -> str:
    """Where the workspace's graph lives: in memory, or the FalkorDB URL (no password)."""
    return "in memory" if url == "memory:" else f"FalkorDB {url}"


def _public_url(url: str) -> str:
    """An endpoint URL without credentials or query string (safe to show)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return f"{parts.scheme}://{host}{parts.path}" if parts.scheme else url.split("?", 1)[0]


def _openai_settings() -> str:
    base = os.environ.get("EGX_OPENAI_BASE_URL") or os.environ.get("OPENAI_BASE_URL") or ""
    model = os.environ.get("EGX_OPENAI_MODEL") or os.environ.get("OPENAI_MODEL") or ""
    has_key = bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("EGX_OPENAI_API_KEY"))
    return (f"Endpoint: {_public_url(base) if base else 'OpenAI API (default)'} · "
            f"model: {model or 'not set (EGX_OPENAI_MODEL)'} · "
            f"API key: {'set in the environment' if has_key else 'not set (OPENAI_API_KEY)'}. "
            "Settings come from the environment only; the key is never shown or stored.")


def _workspace_label(infos: dict[str, WorkspaceInfo]):  # -> Callable[[str], str]
    building = {j.key.removeprefix("workspace:").rsplit(":", 1)[0] for j in jobs_view.jobs().running()
                if j.key.startswith("workspace:")}

    def fmt(name: str) -> str:
        info = infos[name]
        # the box shows ~30 characters: "MuSiQue (100 questions, 1,890 p…" read cut; the caption under it gives the
        # sizes, so a long title's parenthesis is left out here
        title = info.title.split(" (")[0] if len(info.title) > 30 and " (" in info.title[1:] else info.title
        title = title if len(title) <= 48 else title[:47] + "…"
        # a build the server runs (its own at start, or one this session waits on) is named, never its owner
        suffix = ("  (being built on the server…)" if str(info.path) in building else
                  "" if info.built else "  (sample, built on first use)")
        return f"{title}{suffix}"

    return fmt


def _missing_workspace(name: str, shown: str, *, deleted: bool) -> str:
    """Why the page shows another workspace than the one asked for, and what to do. ``deleted``: the name is
    known to have existed (a benchmark run or a trace recorded it, or this session listed it); a name from a
    link may never have existed (a typo, a link from another server)."""
    what = (f"Workspace “{md_escape(name)}” no longer exists" if deleted
            else f"There is no workspace “{md_escape(name)}” (the link names it)")
    return (f"{what}, so this page shows “{md_escape(shown)}”. Pick another workspace in the sidebar, or upload "
            "one on the Data page.")


def render_sidebar() -> Active:
    """Draw the sidebar, open the active workspace (building it if needed) and return the choices."""
    from core.index.listing import list_workspaces

    ss = st.session_state
    pending = ss.pop(S.PENDING_WORKSPACE, None)
    infos = {i.name: i for i in list_workspaces()}
    if not infos:
        st.error("No workspaces and no bundled samples were found. Check that sample_data/ is present "
                 "(or set EGX_SAMPLE_DATA), or upload data on the Data page.")
        st.stop()
    from_link = bool(ss.pop(S.PENDING_FROM_LINK, False))
    seen: set[str] = ss.setdefault(S.WORKSPACES_SEEN, set())
    if pending in infos:
        S.set_value(S.WORKSPACE, pending)
    if ss.get(S.WORKSPACE) not in infos:
        S.set_value(S.WORKSPACE, S.DEFAULT_WORKSPACE if S.DEFAULT_WORKSPACE in infos else next(iter(infos)))
    if pending and pending not in infos:
        st.warning(_missing_workspace(str(pending), str(ss[S.WORKSPACE]), deleted=not from_link or pending in seen))
    seen.update(infos)

    sb = st.sidebar
    sb.header("Workspace")
    ws_key = S.bind(S.WORKSPACE, "")
    ws_locked = _lock(S.WORKSPACE, ws_key)
    ws_name = S.keep(S.WORKSPACE, sb.selectbox(
        "Workspace", list(infos), key=ws_key, format_func=_workspace_label(infos), disabled=ws_locked,
        help=TOUR_LOCK_HELP if ws_locked else "A graph with its vector indexes. Samples are built the first time you "
                                              "pick them; upload your own on the Data page."))
    sb.header("Backends")
    emb_name = _backend_picker("embedder", "Embedder", S.EMBEDDER, S.EMBEDDER_MODEL, S.default_embedder(),
                               "Embeds nodes, edges and chunks for the vector indexes. Default: $EGX_EMBEDDER or "
                               "bge-small. Changing it re-indexes the workspace.")
    rr_name = _backend_picker("reranker", "Reranker", S.RERANKER, S.RERANKER_MODEL, S.default_reranker(),
                              "Scores query–passage pairs; GRanker (FastInsight) smooths its features over the graph. "
                              "Default: $EGX_RERANKER or ms-marco-minilm (the bundled cross-encoder).")
    llm_name = _backend_picker("llm", "LLM", S.LLM, None, S.default_llm(),
                               "Used for keyword extraction, grouping, expansion and answers. Default: $EGX_LLM "
                               "or none (deterministic, LLM-free).")
    if _tour_locks():
        sb.caption("The guided demo sets the workspace and these backends for each step: Leave the tour (in its "
                   "bar) to choose your own.")
    if llm_name == "openai":
        sb.caption(md_escape(_openai_settings()))
    live = llm_name not in ("none", "recorded")
    limits = _llm_limits() if live else None
    use_cache = _llm_cache_switch() if live else None

    notes: list[str] = []
    llm = _resolve_llm(llm_name, notes, limits, use_cache)
    if llm.name == "recorded":
        from components.answer_view import unrecorded_workspace

        if unrecorded_workspace(llm.name, ws_name):  # the box keeps "recorded"; say what runs here
            sb.caption(f"Recorded LLM run — none is recorded on “{md_escape(ws_name)}”, so every method here runs "
                       "without an LLM (as `none`).")
        else:
            sb.caption("Recorded LLM run — replayed, not generated now: " + md_escape(getattr(llm, "describe", str)()))
    try:
        emb = resources.embedder(emb_name)
    except EgxError as exc:
        sb.error(f"Embedder “{md_escape(emb_name)}” could not be loaded: {md_escape(error_text(exc))}")
        st.error(f"The embedder “{md_escape(emb_name)}” could not be loaded, so the workspace cannot be indexed. "
                 "Pick another embedder in the sidebar (hashing always works, for testing).")
        st.stop()
    rr = _resolve_reranker(rr_name, emb_name, llm_name, llm, notes)
    _info_box(rr_name, rr, llm.name, notes, emb)

    jobs_view.sidebar_panel()  # builds, uploads, benchmarks, LLM runs of this server (before anything may stop)
    info = infos[ws_name]
    try:
        ws = workspaces.open_workspace(info, emb_name)
    except EgxError as exc:
        st.error(f"Workspace “{md_escape(ws_name)}” could not be opened: {md_escape(error_text(exc))}")
        st.stop()
    rec = Active(info=info, workspace=ws, key=workspaces.workspace_key(ws), embedder_name=emb_name,
                 embedder=emb, reranker_name=rr_name if rr is not None else "", reranker=rr,
                 llm_name=llm.name, llm=llm, notes=notes)
    g = question_graph(ws)  # counts only: a store's graph is never loaded here
    sb.caption(f"{g.n_nodes:,} nodes · {g.n_edges:,} edges · {g.n_chunks:,} chunks · "
               f"index: {md_escape(ws.meta.index_embedder or '?')} · "
               f"graph store: {md_escape(_store_label(ws.store_url))}")
    ss[S.ACTIVE] = rec
    return rec


def _llm_limits() -> tuple[float | None, int, float]:
    """The LLM limits widgets (seeded from EGX_LLM_TIMEOUT / _RETRIES / _BUDGET): timeout, retries, budget."""
    from core.backends.llm_guard import LLMSettings

    ss = st.session_state
    if S.LLM_TIMEOUT not in ss:
        try:
            env = LLMSettings.from_env()
        except EgxError as exc:
            st.sidebar.error(f"LLM limits from the environment ignored: {md_escape(error_text(exc))}")
            env = LLMSettings()
        ss[S.LLM_TIMEOUT], ss[S.LLM_RETRIES], ss[S.LLM_BUDGET] = float(env.timeout or 0), env.retries, float(env.budget)
    with st.sidebar.expander("LLM limits"):
        timeout = S.keep(S.LLM_TIMEOUT, st.number_input(
            "Timeout per attempt (s)", min_value=0.0, max_value=3600.0, step=10.0,
            key=S.bind(S.LLM_TIMEOUT, ss[S.LLM_TIMEOUT]), help="Wall-clock seconds one LLM attempt may take; 0 = the "
            "backend's default (60 s for openai, 120 s for the local models)."))
        retries = S.keep(S.LLM_RETRIES, st.number_input(
            "Retries", min_value=0, max_value=10, step=1, key=S.bind(S.LLM_RETRIES, ss[S.LLM_RETRIES]),
            help="Extra attempts after a timeout, a connection error, HTTP 429/5xx or a reply that is no chat "
                 "completion."))
        budget = S.keep(S.LLM_BUDGET, st.number_input(
            "Budget per question (s)", min_value=0.0, max_value=36000.0, step=30.0,
            key=S.bind(S.LLM_BUDGET, ss[S.LLM_BUDGET]), help="LLM seconds one question may use; then its remaining LLM "
                                 "steps take their fallback at once. 0 = no limit. After repeated failures a circuit "
                                 "breaker skips the LLM for the rest of the question, too."))
    return (float(timeout) or None), int(retries), float(budget)


def _llm_cache_switch() -> bool:
    """The sidebar's LLM cache switch (seeded from $EGX_LLM_CACHE): off asks the LLM again, like --no-cache."""
    from core.backends.llm_cache import cache_enabled_from_env

    if S.LLM_CACHE not in st.session_state:
        try:
            st.session_state[S.LLM_CACHE] = cache_enabled_from_env()
        except EgxError as exc:
            st.sidebar.error(f"EGX_LLM_CACHE ignored: {md_escape(error_text(exc))}")
            st.session_state[S.LLM_CACHE] = True
    return bool(S.keep(S.LLM_CACHE, st.sidebar.checkbox(
        "Reuse cached LLM replies", key=S.bind(S.LLM_CACHE, st.session_state[S.LLM_CACHE]),
        help="A request the LLM answered before (same model, prompt, schema and settings) is answered from the "
             "cache at once, and the trace marks it “cached”. Off: ask the LLM again.")))


def _resolve_llm(name: str, notes: list[str], limits: tuple[float | None, int, float] | None = None,
                 cache: bool | None = None) -> LLM:
    try:
        return resources.llm(name, limits, cache)
    except EgxError as exc:
        st.sidebar.error(f"LLM {name!r} is not usable: {md_escape(error_text(exc))}")
        notes.append(f"LLM {name!r} is not usable, so the deterministic LLM-free mode ('none') is active.")
        return resources.llm("none")


def _resolve_reranker(name: str, emb_name: str, llm_name: str, llm: LLM, notes: list[str]) -> Reranker | None:
    if name == "llm" and not llm.available:
        name = S.default_reranker() if S.default_reranker() != "llm" else S.FALLBACK_RERANKER
        notes.append(f"The LLM reranker needs an LLM; with LLM 'none' the reranker {name!r} is used instead.")
    try:
        return resources.reranker(name, emb_name, llm.name)
    except EgxError as exc:
        st.sidebar.error(f"Reranker {name!r} could not be loaded: {md_escape(error_text(exc))}")
        if name == S.FALLBACK_RERANKER:
            return None
        notes.append(f"Reranker {name!r} could not be loaded; the bi-encoder stand-in is used instead.")
        return resources.reranker(S.FALLBACK_RERANKER, emb_name, llm.name)


def _info_box(rr_name: str, rr: Reranker | None, llm_name: str, notes: list[str], emb: Embedder) -> None:
    """Say which embedder, reranker and LLM are active and what that implies."""
    if rr is not None:
        rr_text = rr.description
        shown = rr.name
    else:
        rr_text, shown = "No reranker could be loaded.", rr_name
    try:
        llm_text = registry.describe("llm", llm_name)
    except EgxError:
        llm_text = ""
    try:
        emb_text = registry.describe("embedder", emb.name)
    except EgxError:
        emb_text = emb.model_id
    body = (f"**Embedder: {md_escape(emb.name)}** — {md_escape(emb_text)}\n\n"
            f"**Reranker: {md_escape(shown)}** — {md_escape(rr_text)}\n\n"
            f"**LLM: {md_escape(llm_name)}** — {md_escape(llm_text)}")
    if llm_name == "none":
        body += (" Deterministic LLM-free mode: keywords come from the query text and answers are "
                 "extractive (sentences from the retrieved passages).")
    for n in notes:
        body += f"\n\n⚠️ {md_escape(n)}"
    st.sidebar.info(body)
