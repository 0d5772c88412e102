"""Cached core objects: every ``st.cache_resource`` / ``st.cache_data`` the app shares, and nothing else.

* backends (embedder, LLM, reranker) by registry name, shared by every session of the process;
* opened workspaces by ``(path, mtime of the manifest)``: a rebuilt or re-indexed workspace gets
  a new key, so nobody sees a stale graph (:mod:`components.workspaces` opens, builds and re-indexes them);
* method runs (:func:`cached_run`, behind :func:`components.runs.method_run`, the one way a page runs a method);
* derived views that cost more than a few milliseconds (graph statistics, graph drawings), keyed by
  the workspace key plus their arguments.

A method's own cached views live in its UI module (``components/bubblerag/``, ``fastinsight_view.py``,
``reg_view.py``). Work that writes to disk (building a workspace, an index, a method's preparation) is never
done inside a cached function: it runs as a background job of the server (:mod:`components.runs`,
:mod:`components.workspaces`), and its result is then opened through these caches.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from components import graph_view
from core.backends import registry
from core.methods.reranking import feature_store

if TYPE_CHECKING:
    from core.backends.base import LLM, Embedder, Reranker
    from core.graph.model import KnowledgeGraph
    from core.graph.reader import GraphLike
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.reranking import FeatureStore


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
    from core.backends.llm_guard import LLMSettings

    settings = LLMSettings.from_env() if limits is None else LLMSettings(*limits)
    out = registry.get_llm(name, settings=settings, cache=cache)
    if name == "recorded":
        _warm(out)
    return out


def _warm(llm: LLM) -> None:
    """Load the recorded LLM's tokenizer (the bundled model's vocabulary) in the background, once per backend: the
    first replay otherwise loads it inside its first LLM stage, and an audit read "this replay 2.6 s" on one stage
    beside others of a millisecond. A failure is left to the replay, which reports it where it happens."""
    import threading

    load = getattr(llm, "load", None)
    if not callable(load):
        return

    def work() -> None:
        try:
            load()
        except Exception:  # the replay's own first call raises it again, where the page shows it
            pass

    threading.Thread(target=work, name="egx-warm-recorded-tokenizer", daemon=True).start()


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
def opened(path: str, mtime: float) -> Workspace:
    """The workspace at ``path`` opened once per manifest mtime (its graph loaded, unless it lives in a store)."""
    from core.graph.reader import whole_graph_read
    from core.index.workspace import Workspace

    ws = Workspace.open(path)
    if not whole_graph_read(ws):
        _ = ws.graph  # load once here, not in the first page that touches it
    # a graph store's graph is never loaded here: pages read it through page_graph / whole_graph
    return ws


def recipe_hashes() -> dict[str, str]:
    """Sample name → the hash of its current recipe (a sample built from an older one is rebuilt)."""
    from core.index.samples import sample_recipes

    return {r.name: r.hash for r in sample_recipes()}


@st.cache_data(show_spinner="Estimating how long building this sample takes…", max_entries=32)
def sample_build_estimate(name: str, recipe_hash: str, _embedder: Embedder, embedder_name: str) -> tuple[float, str]:
    """Cached :func:`core.index.estimate.sample_build_estimate` (it reads the recipe's inputs and embeds a few of
    their texts), keyed by the sample, its recipe's hash and the embedder's name."""
    from core.index.estimate import sample_build_estimate as estimate

    return estimate(name, _embedder)


@st.cache_data(show_spinner="Estimating how long indexing with this embedder takes…", max_entries=32)
def reindex_estimate(_workspace: Workspace, key: str, _embedder: Embedder, embedder_name: str) -> tuple[float, str]:
    """Cached :func:`core.index.estimate.reindex_estimate` (it may embed a few texts to measure the rate), keyed by
    the workspace key and the embedder's name."""
    from core.index.estimate import reindex_estimate as estimate

    return estimate(_workspace, _embedder)


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


@st.cache_data(show_spinner=False, max_entries=16)
def layout_positions(_graph: GraphLike, key: str, nodes: tuple[int, ...],
                     seed: int = 0, focus: tuple[int, ...] = (),
                     sizes: tuple[tuple[int, float], ...] = ()) -> tuple[tuple[int, float, float], ...]:
    """Cached deterministic layout (for pages that animate on fixed positions); ``focus``: the nodes the drawing is
    about (the connected parts without one are drawn small, :func:`graph_view.layout_positions`)."""
    pos = graph_view.layout_positions(_graph, nodes, seed=seed, focus=focus, sizes=dict(sizes))
    return tuple((v, x, y) for v, (x, y) in sorted(pos.items()))


# ------------------------------------------------------------------------------- method runs
@st.cache_resource(show_spinner="Running the retrieval method…", max_entries=64)
def cached_run(method: str, _workspace: Workspace, _backends: Backends, key: str, backends_key: str, query: str,
                params: tuple[tuple[str, Any], ...]) -> Any:
    """``run_method`` of ``method`` on ``query`` with the config ``params`` (seed 0), kept per (workspace key,
    backends key, question, params) as an object: results are frozen dataclasses, and pickling them on every
    access (cache_data) would cost more than a ``none``-mode run itself."""
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



@st.cache_data(show_spinner=False, max_entries=16)
def workspace_questions(_workspace: Workspace, key: str) -> list[Any]:
    """The workspace's questions with gold chunk ids (``core.index.questions.Question``; [] if none)."""
    from core.index.questions import load_questions

    return load_questions(_workspace)



@st.cache_data(show_spinner=False, max_entries=256)
def styled_network_html(_graph: GraphLike, key: str, nodes: tuple[int, ...], *,
                        colors: tuple[tuple[int, str], ...] = (), sizes: tuple[tuple[int, float], ...] = (),
                        borders: tuple[tuple[int, str, int], ...] = (), edges: tuple[int, ...] | None = None,
                        edge_colors: tuple[tuple[int, str], ...] = (), edge_widths: tuple[tuple[int, float], ...] = (),
                        notes: tuple[tuple[int, str], ...] = (),
                        positions: tuple[tuple[int, float, float], ...] | None = None,
                        legend: tuple[graph_view.LegendItem, ...] = (), edge_labels: bool = False,
                        height: int = graph_view.DEFAULT_HEIGHT, labels: tuple[int, ...] | None = None,
                        shapes: tuple[tuple[int, str], ...] = (), legend_below: bool = False,
                        label_px: int = graph_view.LABEL_PX, must_label: tuple[int, ...] = (),
                        label_colors: tuple[tuple[int, str], ...] = (), highlight: tuple[int, ...] = (),
                        keep_label: tuple[int, ...] = (), legend_px: int = graph_view.LEGEND_FONT_PX) -> str:
    """Cached :func:`components.graph_view.network_html` (pyvis takes ~0.3 s for 300 nodes) with every styling map
    (hashable tuples)."""
    pos = None if positions is None else {v: (x, y) for v, x, y in positions}
    return graph_view.network_html(
        _graph, nodes, edges=edges, colors=dict(colors), sizes=dict(sizes) if sizes else None,
        borders={v: (c, w) for v, c, w in borders}, edge_colors=dict(edge_colors), edge_widths=dict(edge_widths),
        notes=dict(notes), positions=pos, legend=legend, edge_labels=edge_labels, height=height, labels=labels,
        shapes=dict(shapes), legend_below=legend_below, label_px=label_px, must_label=must_label,
        label_colors=dict(label_colors), highlight=highlight, keep_label=keep_label, legend_px=legend_px)



@st.cache_data(show_spinner=False, max_entries=8)
def bench_report(path: str, mtime: float) -> Any:
    """A benchmark folder reloaded (``core.eval.bench_report.load_report``); ``mtime`` of its JSONL keys it."""
    from core.eval.bench_report import load_report

    return load_report(path)


def bench_estimate(root: str, workspace: str, llm: str, methods: tuple[str, ...], questions: int, stamp: float,
                   passages: int | None = None) -> Any:
    """How long a benchmark run will take (:func:`core.eval.estimate.estimate_run`, its defaults scaled to the
    workspace's ``passages``), for the machine's load now (:meth:`~core.eval.estimate.Estimate.under_load`; read
    at every call, the earlier runs' figures cached); ``stamp`` (the newest run's results time) reads the earlier
    runs again once another has finished."""
    from core.eval.timing import machine_load

    est = _bench_estimate(root, workspace, llm, methods, questions, stamp, passages)
    load = machine_load()
    return est if load is None else est.under_load(*load)


@st.cache_data(show_spinner=False, max_entries=16)
def _bench_estimate(root: str, workspace: str, llm: str, methods: tuple[str, ...], questions: int, stamp: float,
                    passages: int | None = None) -> Any:
    from pathlib import Path

    from core.eval.estimate import estimate_run

    return estimate_run(Path(root), workspace, llm, methods, questions, passages=passages)


@st.cache_resource(show_spinner=False, max_entries=4)
def recorded_runs(key: tuple[tuple[str, float], ...]) -> frozenset[tuple[str, str, str]]:
    """``(workspace, method, question)`` of every run the shipped LLM recordings hold; ``key`` (each bundle's path
    and mtime) reloads them when one changes."""
    from core.backends.llm_bundles import recorded_runs as load

    return load([Path(p) for p, _ in key])


@st.cache_resource(show_spinner=False, max_entries=4)
def recorded_budgets(key: tuple[tuple[str, float], ...]) -> frozenset[tuple[str, str]]:
    """``(workspace, answer budget)`` of every run the shipped LLM recordings hold (:func:`recorded_runs`' key)."""
    from core.backends.llm_bundles import recorded_budgets as load

    return load([Path(p) for p, _ in key])


def recordings_key() -> tuple[tuple[str, float], ...]:
    """The bundles' paths and mtimes (:func:`recorded_runs`' key)."""
    from core.backends.llm_bundles import recording_paths

    return tuple((str(p), p.stat().st_mtime) for p in recording_paths())
