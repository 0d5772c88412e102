"""Workspaces: a folder holding one graph, its vector indexes and a manifest.

Layout::

    <workspace>/
      manifest.json        what was built, from what, with which embedder (written last)
      graph.json.gz        the KnowledgeGraph (KnowledgeGraph.to_dict); absent when the graph lives in a
                           graph store (manifest "store": {"url": "falkordb://HOST:PORT/GRAPH"}, no password)
      index/nodes.faiss    FAISS IndexFlatIP over node texts
      index/edges.faiss    ... over enriched edge texts "head relation tail" (BubbleRAG §3.1)
      index/chunks.faiss   ... over chunk passages "title\\ntext"
      questions.json       optional questions with gold evidence (evaluation)

A workspace is created in a temporary sibling folder and renamed into place only when complete,
so a failed upload leaves nothing behind. The index section of the manifest records the embedder
(name, model id, dimension) and the graph's content hash: re-opening with the same embedder reuses
the index; a different model or changed content rebuilds it. Every file write is atomic.

Sample workspaces are *recipes* in ``sample_data/<name>/workspace.json`` (inputs relative to the
recipe) built on first use into ``$EGX_HOME/workspaces/<name>``.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np

from core.errors import EgxError, StoreError, UnknownNameError, WorkspaceError
from core.fsio import (  # atomic_write_* re-exported: callers import them from here
    atomic_write_bytes,
    atomic_write_json,
    atomic_writer,
    egx_home,
    exchange,
    fsync_dir,
    path_lock,
    remove_stale_locks,
    temp_sibling,
    unique_suffix,
)
from core.graph.builder import build_kg_from_corpus
from core.graph.loaders import InputLimits, load_inputs, open_input
from core.graph.model import KnowledgeGraph
from core.graph.store import MEMORY_URL, GraphStore, MemoryStore, parse_store_url
from core.graph.stores import open_store
from core.index.vector_index import ITEM_OVERHEAD_CHARS, VectorIndex, embed_texts
from core.text import content_hash

if TYPE_CHECKING:
    from core.backends.base import BatchRunner, Embedder, TripleExtractor

Progress = Callable[[str, float], None]
ItemKind = Literal["nodes", "edges", "chunks"]
ITEM_KINDS: tuple[ItemKind, ...] = ("nodes", "edges", "chunks")
MANIFEST = "manifest.json"
GRAPH_FILE = "graph.json.gz"
FORMAT_VERSION = 1


def workspaces_root() -> Path:
    return egx_home() / "workspaces"


def runs_root() -> Path:
    """Where benchmark runs started from the app live: ``$EGX_HOME/runs/<run name>``."""
    return egx_home() / "runs"


def cache_dir() -> Path:
    """Caches (extraction results, assembled model files): ``$EGX_CACHE_DIR`` or ``~/.cache/egx``."""
    return Path(os.environ.get("EGX_CACHE_DIR") or Path.home() / ".cache" / "egx")


def sample_data_dir() -> Path:
    """The bundled ``sample_data/`` (override with ``$EGX_SAMPLE_DATA``)."""
    env = os.environ.get("EGX_SAMPLE_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "sample_data"


__all__ = ["atomic_write_bytes", "atomic_write_json"]  # (plus everything defined below)


def save_graph(graph: KnowledgeGraph, path: Path) -> None:
    """Write the graph as gzip-compressed egx JSON, atomically, streamed piece by piece
    (:meth:`KnowledgeGraph.iter_json`), so saving adds little to the memory the graph takes."""
    with atomic_writer(Path(path), "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", compresslevel=6, mtime=0) as gz:
        for piece in graph.iter_json():
            gz.write(piece.encode("utf-8"))


def rebuild_hint(path: Path, manifest: dict[str, Any] | None = None) -> str:
    """The command that rebuilds the workspace at ``path`` (a sample by name, else from its inputs)."""
    manifest = manifest or {}
    if manifest.get("sample"):
        return f"`egx index --sample {manifest.get('name') or Path(path).name} --rebuild`"
    sources = " ".join(manifest.get("sources") or {}) or "<your input files>"
    store = manifest.get("store", {}).get("url")
    return f"`egx index {sources} --workspace {path}{f' --store {store}' if store else ''} --overwrite`"


def load_graph(path: Path, *, manifest: dict[str, Any] | None = None) -> KnowledgeGraph:
    """Read a workspace's ``graph.json.gz``.

    Raises
    ------
    WorkspaceError
        When the file is missing, truncated, not gzip, not JSON or not an egx graph: "this
        workspace is damaged", with the command that rebuilds it.
    """
    path = Path(path)
    fix = f"Rebuild it with {rebuild_hint(path.parent, manifest)}."
    if not path.exists():
        raise WorkspaceError(f"This workspace is damaged: {path} is missing. {fix}")
    try:
        with open_input(path, InputLimits.from_env()) as fh:
            data = json.loads(fh.read())
        return KnowledgeGraph.from_dict(data, source=path.name)
    except (EgxError, OSError, EOFError, zlib.error, ValueError, RecursionError) as exc:
        why = str(exc) if isinstance(exc, EgxError) else f"{type(exc).__name__}: {exc}"
        raise WorkspaceError(f"This workspace is damaged: {path} cannot be read ({why}). {fix}") from None


@dataclass(frozen=True)
class IndexBuild:
    """Timing of one index build, kept in the manifest (items/s is reported by benchmarks)."""

    kind: str
    items: int
    seconds: float

    @property
    def items_per_s(self) -> float:
        return self.items / self.seconds if self.seconds > 0 else float("inf")


@dataclass(frozen=True, eq=False)
class CachedVectors:
    """What :meth:`Workspace.text_vectors` returns: the vectors and whether they were embedded now."""

    index: VectorIndex
    built: bool  #: embedded by this call (False: read from the cache)
    seconds: float = 0.0  #: embedding time when built
    note: str = ""  #: non-empty when a damaged cache file was replaced

    @property
    def vectors(self) -> np.ndarray:
        return self.index.vectors


class Workspace:
    """An opened workspace. The graph and indexes load lazily and are then kept."""

    def __init__(self, path: Path, manifest: dict[str, Any]) -> None:
        self.path = Path(path)
        self.manifest = manifest
        self._indexes: dict[str, VectorIndex] = {}

    # ---------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: str | Path) -> Workspace:
        """Open a built workspace folder.

        Raises
        ------
        WorkspaceError
            If the folder or its manifest is missing or was written by an unknown format.
        """
        path = Path(path)
        recover(path)
        return cls(path, read_manifest(path))

    @property
    def name(self) -> str:
        return str(self.manifest.get("name") or self.path.name)

    @property
    def title(self) -> str:
        return str(self.manifest.get("title") or self.name)

    @property
    def description(self) -> str:
        return str(self.manifest.get("description", ""))

    @property
    def warnings(self) -> list[str]:
        return list(self.manifest.get("warnings", []))

    @property
    def store_url(self) -> str:
        """Where the graph lives: ``memory:`` (``graph.json.gz``, loaded into this process) or the
        ``falkordb://HOST:PORT/GRAPH`` URL of a graph store (never with a password)."""
        return str(self.manifest.get("store", {}).get("url") or MEMORY_URL)

    @cached_property
    def store(self) -> GraphStore:
        """The workspace's :class:`~core.graph.store.GraphStore`: the in-memory graph, or the FalkorDB
        graph the manifest names (checked: reachable, written by egx, the content this index was
        built from).

        Raises
        ------
        StoreError
            Unreachable store, missing or foreign graph, or a graph that changed since this
            workspace was built (with the command that rebuilds it).
        """
        url = self.store_url
        if url == MEMORY_URL:
            return MemoryStore(self.graph)
        store = open_store(url)
        want = self.manifest.get("graph", {}).get("content_hash")
        got = getattr(store, "content_hash", want)
        if want and got != want:
            raise StoreError(f"The graph at {url} is not the one workspace {self.name!r} was built from (content hash "
                             f"{got!r}, the workspace expects {want!r}). Rebuild it with "
                             f"{rebuild_hint(self.path, self.manifest)}.")
        return store

    @cached_property
    def graph(self) -> KnowledgeGraph:
        """The whole graph in this process: ``graph.json.gz``, or read once from the graph store
        (same node and edge order, so the FAISS rows line up)."""
        if self.store_url != MEMORY_URL:
            return self.store.graph()
        return load_graph(self.path / GRAPH_FILE, manifest=self.manifest)

    @property
    def questions_path(self) -> Path | None:
        p = self.path / "questions.json"
        return p if p.exists() else None

    # ---------------------------------------------------------------- indexes
    def texts(self, kind: ItemKind) -> list[str]:
        g = self.graph
        if kind == "nodes":
            return list(g.node_texts)
        if kind == "edges":
            return list(g.edge_texts)
        if kind == "chunks":
            return [c.passage for c in g.chunks]
        raise UnknownNameError("index kind", kind, list(ITEM_KINDS))

    def index_problem(self, embedder: Embedder) -> str | None:
        """Why the stored index cannot be used with ``embedder`` (None when it can)."""
        info = self.manifest.get("index")
        if not info:
            return "no index has been built yet"
        if info.get("model_id") != embedder.model_id or info.get("dim") != embedder.dim:
            return (f"the index was built with {info.get('model_id')!r} (dim {info.get('dim')}), "
                    f"the active embedder is {embedder.model_id!r} (dim {embedder.dim})")
        if info.get("content_hash") != self.manifest.get("graph", {}).get("content_hash"):
            return "the graph content changed since the index was built"
        folder = self.index_dir
        for kind in ITEM_KINDS:
            if not (folder / f"{kind}.faiss").exists():
                return f"{folder.name}/{kind}.faiss is missing"
        return None

    @property
    def index_dir(self) -> Path:
        """The folder of the current index (named in the manifest; ``index`` by default)."""
        return self.path / _index_dirname(self.manifest)

    def ensure_index(self, embedder: Embedder, *, progress: Progress | None = None,
                     rebuild: bool = False, runner: BatchRunner | None = None) -> list[IndexBuild]:
        """Build the node/edge/chunk indexes unless a compatible one is already stored.

        Crash- and concurrency-safe: the workspace lock is held while building (a second thread or
        process waiting on it then finds the index built and returns at once); the new index is
        written to a fresh folder and becomes current only when the manifest naming it is
        replaced atomically, so a kill at any moment leaves the previous index usable.

        Returns the timings of what was built (empty when the stored index was reused). ``runner``
        embeds elsewhere (:class:`~core.backends.base.BatchRunner`, e.g. ``egx index --ray``).
        """
        if not rebuild and self.index_problem(embedder) is None:
            return []
        with workspace_lock(self.path):
            fresh = read_manifest(self.path)
            if fresh.get("graph", {}).get("content_hash") == self.manifest.get("graph", {}).get("content_hash"):
                self.manifest = fresh  # another thread or process may have built it meanwhile
            problem = "rebuild requested" if rebuild else self.index_problem(embedder)
            if problem is None:
                return []
            old = self.index_dir
            dirname = f"index.{unique_suffix()}"
            try:
                builds = build_indexes(self.path, self.graph, embedder, progress=progress, dirname=dirname,
                                       runner=runner)
                manifest = {**self.manifest, "index": _index_manifest(embedder, self.graph, builds, reason=problem,
                                                                      dirname=dirname, runner=runner)}
                atomic_write_json(self.path / MANIFEST, manifest)
            except BaseException:
                shutil.rmtree(self.path / dirname, ignore_errors=True)
                raise
            self.manifest = manifest
            if old.name != dirname:
                shutil.rmtree(old, ignore_errors=True)
            self._indexes.clear()
        return builds

    def index(self, kind: ItemKind, embedder: Embedder | None = None) -> VectorIndex:
        """The FAISS index for ``kind``; with ``embedder`` given, checked (and rebuilt) first."""
        if kind not in ITEM_KINDS:
            raise UnknownNameError("index kind", kind, list(ITEM_KINDS))
        if embedder is not None:
            self.ensure_index(embedder)
        if kind not in self._indexes:
            info = self.manifest.get("index")
            if not info:
                raise WorkspaceError(f"Workspace {self.name!r} has no index yet; open it with an embedder "
                                     "(the app does this) or run `egx index --workspace ...`.")
            if not (self.index_dir / f"{kind}.faiss").exists():
                self._follow_replaced_index(info)
                info = self.manifest["index"]
            size = self._size(kind)
            self._indexes[kind] = VectorIndex.load(self.index_dir / f"{kind}.faiss", dim=info["dim"], size=size,
                                                   rebuild=f"`egx index --workspace {self.path} --rebuild`")
        return self._indexes[kind]

    def _follow_replaced_index(self, info: dict[str, Any]) -> None:
        """The index folder this object names has gone: another session or process may have rebuilt the
        index (:meth:`ensure_index` removes the old folder once the manifest names the new one). Adopt the
        new index when it is for the same model and graph content; otherwise say what happened, since
        "the workspace is damaged, rebuild it" would be wrong (and would rebuild it back)."""
        try:
            fresh = read_manifest(self.path)
        except EgxError:
            return  # the manifest itself is unreadable: the "damaged" error that follows is right
        new = fresh.get("index") or {}
        if _index_dirname(fresh) == _index_dirname(self.manifest):
            return  # not replaced: the file is really missing
        same = (new.get("model_id") == info.get("model_id") and new.get("dim") == info.get("dim")
                and new.get("content_hash") == info.get("content_hash"))
        if not same:
            raise WorkspaceError(
                f"The index of workspace {self.name!r} was replaced while this run was reading it: another "
                f"session or process rebuilt it for {new.get('model_id')!r} (this run uses "
                f"{info.get('model_id')!r}). A workspace holds one index at a time; run again, or give each "
                "embedder its own copy of the workspace.")
        self.manifest = fresh
        self._indexes.clear()

    def has_text_vectors(self, name: str, texts: Sequence[str] | TextPages, embedder: Embedder, *,
                         texts_key: str | None = None) -> bool:
        """Whether :meth:`text_vectors` would read ``name`` from the cache (not embed it now)."""
        if self.index_problem(embedder) is not None:
            return False
        meta_path = self.index_dir / "extra" / f"{name}.json"
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return bool(meta == _vectors_meta(texts, embedder, texts_key) and (self.index_dir / "extra" / f"{name}.faiss").exists())

    def text_vectors(self, name: str, texts: Sequence[str] | TextPages, embedder: Embedder, *,
                     progress: Progress | None = None, texts_key: str | None = None) -> CachedVectors:
        """Vectors of a method's own ``texts`` (not one of the three index kinds), embedded once per
        (workspace, embedder, texts) and kept in ``<index dir>/extra/<name>.faiss`` beside the index.

        The file is a FAISS flat index written atomically (no pickle), with ``<name>.json`` naming the
        model, dimension, count and a hash of the texts; it lives in the index folder, so a new
        embedder (a new index folder) drops it. A missing, stale or damaged file is rebuilt; a damaged
        one with a note saying so (``CachedVectors.note``), which callers put in their trace.

        ``texts_key`` names the texts instead of their hash when the caller can (e.g. the graph's
        content hash and the text recipe): then ``texts`` is read only to embed, and may be
        :class:`TextPages` read page by page from a graph store (issue 19), so a cache hit reads no
        text at all.

        Raises
        ------
        NameNotAllowedError
            If ``name`` is not a plain file name.
        """
        from core.fsio import safe_name

        safe = safe_name(name, kind="vector cache name")
        self.ensure_index(embedder)
        folder = self.index_dir / "extra"
        path, meta_path = folder / f"{safe}.faiss", folder / f"{safe}.json"
        want = _vectors_meta(texts, embedder, texts_key)
        with path_lock(path):
            note = ""
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else None
            except (OSError, ValueError):
                meta, note = None, f"{meta_path.name} was unreadable"
            if meta == want:
                try:
                    index = VectorIndex.load(path, dim=embedder.dim, size=len(texts))
                    return CachedVectors(index, built=False)
                except WorkspaceError as exc:
                    note = str(exc).split(". Rebuild")[0]
            t0 = time.perf_counter()
            folder.mkdir(parents=True, exist_ok=True)
            fill = (partial(_embed_pages, texts, embedder, progress, name) if isinstance(texts, TextPages)
                    else partial(_embed_into, list(texts), embedder, progress, name))
            index = VectorIndex.build(len(texts), embedder.dim, fill)
            index.save(path)
            atomic_write_json(meta_path, want)  # last: the vectors are complete when the meta names them
            seconds = time.perf_counter() - t0
            if note:
                note = f"The cached vectors '{name}' were damaged ({note}); they were embedded again."
        return CachedVectors(index, built=True, seconds=seconds, note=note)

    def _size(self, kind: ItemKind) -> int:
        """Rows the ``kind`` index must hold; a store workspace answers from its manifest (written with
        the graph), so opening an index never loads the whole graph from the store (issue 19)."""
        if self.store_url == MEMORY_URL:
            return {"nodes": self.graph.n_nodes, "edges": self.graph.n_edges, "chunks": self.graph.n_chunks}[kind]
        recorded = self.manifest.get("graph", {}).get(kind)
        if recorded is not None:
            return int(recorded)
        meta = getattr(self.store, "meta", {})
        return {"nodes": self.store.n_nodes, "edges": self.store.n_edges,
                "chunks": int(meta["n_chunks"]) if "n_chunks" in meta else self.graph.n_chunks}[kind]

    @property
    def content_hash(self) -> str:
        """The graph's content hash without loading it (a store's graph was checked against it on opening)."""
        if self.store_url == MEMORY_URL:
            return self.graph.content_hash
        return str(self.manifest.get("graph", {}).get("content_hash") or self.graph.content_hash)

    @property
    def provenance_hash(self) -> str:
        """:attr:`KnowledgeGraph.provenance_hash` without loading a store's graph (recorded in the
        manifest when the graph was written; "" for a store workspace written before it was)."""
        if self.store_url == MEMORY_URL:
            return self.graph.provenance_hash
        return str(self.manifest.get("graph", {}).get("provenance_hash") or "")

    def move_to_store(self, url: str, *, overwrite: bool = False, progress: Progress | None = None) -> dict[str, Any]:
        """Write this workspace's graph into the FalkorDB graph ``url`` and make the workspace read it
        from there (the FAISS index is kept: same node and edge order). ``graph.json.gz`` is removed
        only after the manifest naming the store is in place, so a kill leaves a usable workspace.

        Returns the load figures (nodes, edges, chunks, seconds).

        Raises
        ------
        StoreError
            A bad URL, an unreachable store, or a graph of that name that is not ours (or is, without
            ``overwrite``).
        """
        from core.graph.falkor import load_graph_into

        target = parse_store_url(url)
        with workspace_lock(self.path):
            graph = self.graph
            figures = load_graph_into(graph, target, overwrite=overwrite, owner=str(self.path.resolve()),
                                      progress=progress)
            manifest = {**read_manifest(self.path)}
            manifest["graph"] = {**manifest.get("graph", {}), "file": None, "store": str(target),
                                 "provenance_hash": graph.provenance_hash}
            manifest["store"] = {"kind": "falkordb", "url": str(target), "load": figures}
            atomic_write_json(self.path / MANIFEST, manifest)
            self.manifest = manifest
            (self.path / GRAPH_FILE).unlink(missing_ok=True)
            self.__dict__.pop("store", None)
        return figures

    def __repr__(self) -> str:
        return f"Workspace({self.name!r}, path={str(self.path)!r})"


def _vectors_meta(texts: Sequence[str] | TextPages, embedder: Embedder, texts_key: str | None = None) -> dict[str, Any]:
    if texts_key is not None:
        return {"model_id": embedder.model_id, "dim": embedder.dim, "items": len(texts), "texts_key": texts_key}
    assert not isinstance(texts, TextPages), "paged texts are named by a texts_key"
    return {"model_id": embedder.model_id, "dim": embedder.dim, "items": len(texts), "texts_hash": content_hash(*texts)}


@runtime_checkable
class TextPages(Protocol):
    """Texts too many to hold at once (a graph store's node texts): their count, and the texts in
    order, page by page."""

    def __len__(self) -> int: ...

    def pages(self) -> Iterator[list[str]]: ...


def _embed_pages(texts: TextPages, embedder: Embedder, progress: Progress | None, label: str,
                 out: np.ndarray) -> None:
    n, start = len(texts), 0
    for page in texts.pages():
        if progress:
            progress(f"Embedding {label}: {start:,}/{n:,}", start / max(n, 1))
        embed_texts(page, embedder, label=label, out=out[start:start + len(page)])
        start += len(page)
    if start != n:
        raise WorkspaceError(f"Embedding {label}: the store gave {start} texts where {n} were expected; the graph "
                             "store changed while it was read. Run again.")
    if progress:
        progress(f"Embedded {n} {label}", 1.0)


def build_indexes(path: Path, graph: KnowledgeGraph, embedder: Embedder, *,
                  progress: Progress | None = None, dirname: str = "index",
                  runner: BatchRunner | None = None) -> list[IndexBuild]:
    """Embed nodes, edges and chunks and write ``<dirname>/<kind>.faiss`` under ``path``.

    With a ``runner`` (:class:`~core.backends.base.BatchRunner`) the three kinds are embedded there
    together (e.g. by Ray actors holding the embedder), in the same length-sorted batches; each
    build's seconds are then the share of the whole embedding by the kind's work.
    """
    builds = []
    texts = {"nodes": list(graph.node_texts), "edges": list(graph.edge_texts),
             "chunks": [c.passage for c in graph.chunks]}
    # Each kind's share of the bar is its share of the work: characters (an encoder's cost grows with
    # the text) plus a per-item overhead, so 1,890 long passages weigh what they cost, not 5 %.
    work = {k: float(sum(len(t) for t in v)) + ITEM_OVERHEAD_CHARS * len(v) for k, v in texts.items()}
    total = sum(work.values()) or 1.0
    done = 0.0
    (path / dirname).mkdir(parents=True, exist_ok=True)
    if runner is not None:
        t0 = time.perf_counter()
        vectors = runner.embed(embedder, {k: texts[k] for k in ITEM_KINDS}, progress)
        seconds = time.perf_counter() - t0
        for kind in ITEM_KINDS:
            VectorIndex(vectors.pop(kind), copy=False).save(path / dirname / f"{kind}.faiss")
            builds.append(IndexBuild(kind, len(texts[kind]), seconds * work[kind] / total))
        return builds
    for kind in ITEM_KINDS:
        items = texts[kind]
        base = done

        def sub(msg: str, frac: float, _w: float = work[kind], _base: float = base) -> None:
            if progress:
                progress(msg, (_base + frac * _w) / total)

        t0 = time.perf_counter()
        fill = partial(_embed_into, items, embedder, sub, kind)
        VectorIndex.build(len(items), embedder.dim, fill).save(path / dirname / f"{kind}.faiss")
        builds.append(IndexBuild(kind, len(items), time.perf_counter() - t0))
        done += work[kind]
    return builds


def _embed_into(items: list[str], embedder: Embedder, progress: Progress | None, label: str,
                out: np.ndarray) -> None:
    embed_texts(items, embedder, progress=progress, label=label, out=out)


def _index_dirname(manifest: dict[str, Any]) -> str:
    name = str((manifest.get("index") or {}).get("dir") or "index")
    return name if name == "index" or (name.startswith("index.") and "/" not in name) else "index"


def _index_manifest(embedder: Embedder, graph: KnowledgeGraph, builds: Sequence[IndexBuild], *,
                    reason: str, dirname: str = "index", runner: BatchRunner | None = None) -> dict[str, Any]:
    out = {
        "dir": dirname,
        "embedder": embedder.name,
        "model_id": embedder.model_id,
        "dim": embedder.dim,
        "content_hash": graph.content_hash,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "reason": reason,
        "builds": [{"kind": b.kind, "items": b.items, "seconds": round(b.seconds, 3)} for b in builds],
    }
    if runner is not None:
        out["runner"] = runner.describe()
    return out


def create_workspace(inputs: Sequence[str | Path], path: str | Path, *, name: str | None = None,
                     title: str = "", description: str = "", embedder: Embedder | None = None,
                     extractor: TripleExtractor | None = None, questions: str | Path | None = None,
                     overwrite: bool = False, progress: Progress | None = None,
                     extra_manifest: dict[str, Any] | None = None,
                     synonym_threshold: float | None = None, store: str | None = None,
                     runner: BatchRunner | None = None) -> Workspace:
    """Load ``inputs``, build the graph (extracting triples from a plain corpus) and the indexes,
    and write a complete workspace at ``path`` — or nothing at all if anything fails.

    Parameters
    ----------
    inputs
        Files/folders in any format :func:`core.graph.loaders.load_inputs` accepts.
    path
        The workspace folder to create.
    embedder
        Builds the indexes now; ``None`` defers them to the first open with an embedder.
    extractor
        Used when the inputs are a corpus without triples (BubbleRAG §3.1). ``None`` picks the
        ``spacy`` extractor (LLM ``none`` mode) and records that in the manifest warnings.
    questions
        Optional questions file with gold evidence, copied in for evaluation.
    synonym_threshold
        Store HippoRAG's synonymy edges (HippoRAG §3.1: cosine of the node-name embeddings at least
        this, 0.8 in the paper) in the graph as ``synonym of`` edges, so every method can walk them
        (:mod:`core.graph.synonyms`). ``None`` (default) stores none. Needs ``embedder``.
    store
        ``falkordb://HOST:PORT/GRAPH``: write the graph into that FalkorDB graph (staging graph +
        rename, :func:`core.graph.falkor.load_graph_into`) instead of ``graph.json.gz``; the vectors
        stay in the workspace's FAISS files. The password comes from ``EGX_FALKORDB_PASSWORD``.
        ``None``: the graph is kept in the workspace folder (the default).
    runner
        Where embedding and triple extraction run (:class:`~core.backends.base.BatchRunner`; ``egx index
        --ray`` passes :class:`core.scale.RayRunner`). ``None``: in this process. The workspace is the
        same either way; the manifest's ``index.runner`` / ``extraction.runner`` record where it ran.
    overwrite
        Replace an existing workspace (the old one is removed only after the new one is complete).
        Only a folder that provably is a workspace (holds the manifest egx writes) is replaced;
        anything else at ``path`` is refused and left untouched.

    Raises
    ------
    InputFormatError, EmptyGraphError
        On bad inputs (raised before anything is written).
    WorkspaceError
        If ``path`` exists and ``overwrite`` is False (also when another build created it
        meanwhile: a second upload under one name never replaces the first), or ``path`` is not a
        folder egx may replace (``..``, ``/``, a file, a folder that is not a workspace).

    Notes
    -----
    A per-workspace lock (:func:`workspace_lock`) is held for the whole build, so two builds of
    one workspace (app sessions are threads of one process) run one after the other. The
    workspace is built in a unique hidden sibling and swapped in atomically (:func:`core.fsio.exchange`;
    where the file system cannot, two renames whose interruption :func:`recover` undoes).
    """
    path = Path(path)
    store_url = parse_store_url(store) if store else None  # a bad URL fails before any work
    _check_target(path, overwrite)
    step = _Stepper(progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    with workspace_lock(path):
        recover(path, locked=True)
        _check_target(path, overwrite)  # again, under the lock: another build may have finished
        loaded = load_inputs(inputs, name=name or path.name, progress=step.sub(0.0, LOAD_SHARE))
        graph = loaded.graph
        warnings = list(loaded.warnings)
        extraction: dict[str, Any] | None = None
        extract = graph.kind == "kg" and graph.n_edges == 0 and graph.n_chunks > 0
        split = _extraction_share(graph, extractor if extract else None, embedder, extract=extract)
        if extract:
            if extractor is None:
                from core.backends.registry import get_extractor

                extractor = get_extractor("spacy")
                warnings.append("No LLM configured: triples were extracted with the spaCy extractor (named "
                                "entities and noun chunks linked by relations from the dependency parse, plus "
                                "title→entity links). An LLM extractor ('local' or 'openai') finds more relations.")
            graph, res = build_kg_from_corpus(graph, extractor, cache_dir=cache_dir() / "extraction",
                                              progress=step.sub(LOAD_SHARE, split), runner=runner)
            extraction = {"extractor": res.extractor, "triples": res.n_triples, "from_cache": res.from_cache,
                          "extracted": res.extracted, "failed_chunks": len(res.failed),
                          "failed_chunk_ids": list(res.failed[:100])}
            if runner is not None:
                extraction["runner"] = runner.describe()
            if res.failed:
                warnings.append(f"Triple extraction failed for {len(res.failed)} of {graph.n_chunks} chunks (the LLM's "
                                "output stayed unusable), so they have no triples. Failures are not cached: build the "
                                "workspace again (egx index ... --overwrite) to retry just those chunks.")
            if graph.n_edges == 0:
                warnings.append("The extractor found no triples; the graph has no edges (dense retrieval still works).")
        synonyms: dict[str, Any] | None = None
        if synonym_threshold is not None and graph.n_nodes > 1:
            from core.graph.synonyms import add_synonym_edges

            if embedder is None:
                raise WorkspaceError("Synonym edges compare node-name embeddings: give an embedder "
                                     "(egx index --embedder NAME) or leave --synonyms out.")
            if not -1.0 <= synonym_threshold <= 1.0:
                raise WorkspaceError(f"The synonym threshold is a cosine in [-1, 1], got {synonym_threshold}; "
                                     "HippoRAG uses 0.8.")
            t0 = time.perf_counter()
            if runner is not None:
                vecs = runner.embed(embedder, {"node names": list(graph.node_texts)},
                                    step.sub(0.5, 0.55))["node names"]
            else:
                vecs = embed_texts(list(graph.node_texts), embedder, progress=step.sub(0.5, 0.55), label="node names")
            graph, n_syn = add_synonym_edges(graph, vecs, synonym_threshold)
            synonyms = {"threshold": synonym_threshold, "edges": n_syn, "embedder": embedder.name,
                        "seconds": round(time.perf_counter() - t0, 2)}
        tmp = temp_sibling(path, "building")
        try:
            tmp.mkdir()
            if store_url is None:
                save_graph(graph, tmp / GRAPH_FILE)
            if questions is not None:
                q = Path(questions)
                from core.graph.loaders import parse_json, read_text

                text = read_text(q)
                parse_json(text, q.name, expected="a JSON questions file")
                atomic_write_bytes(tmp / "questions.json", text.encode("utf-8"))
            manifest: dict[str, Any] = {
                "format": "egx-workspace",
                "version": FORMAT_VERSION,
                "name": name or path.name,
                "title": title or name or path.name,
                "description": description,
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "sources": {Path(p).name: f for p, f in loaded.formats.items()},
                "graph": {"file": GRAPH_FILE, "content_hash": graph.content_hash, "kind": graph.kind,
                          "nodes": graph.n_nodes, "edges": graph.n_edges, "chunks": graph.n_chunks,
                          "provenance_hash": graph.provenance_hash},
                "warnings": warnings,
            }
            if extraction:
                manifest["extraction"] = extraction
            if synonyms:
                manifest["synonyms"] = synonyms
            if extra_manifest:
                manifest.update(extra_manifest)
            if embedder is not None:
                builds = build_indexes(tmp, graph, embedder, progress=step.sub(split, 1.0), runner=runner)
                manifest["index"] = _index_manifest(embedder, graph, builds, reason="new workspace", runner=runner)
            if store_url is not None:  # last: a failed build never touches the store's graph
                from core.graph.falkor import load_graph_into

                manifest["graph"] = {**manifest["graph"], "file": None, "store": str(store_url)}
                manifest["store"] = {"kind": "falkordb", "url": str(store_url),
                                     "load": load_graph_into(graph, store_url, overwrite=overwrite,
                                                             owner=str(Path(path).resolve()))}
            atomic_write_json(tmp / MANIFEST, manifest)
            _commit(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    if progress:
        progress("Workspace ready", 1.0)
    ws = Workspace(path, manifest)
    ws.__dict__["graph"] = graph  # already in memory
    return ws


# -------------------------------------------------------------------- commits, locks, recovery
def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of the workspace at ``path``.

    Raises
    ------
    WorkspaceError
        If it is missing, corrupt, or written by an unknown format.
    """
    path = Path(path)
    mf = path / MANIFEST
    if not mf.is_file():
        raise WorkspaceError(f"{path} is not a workspace (no {MANIFEST}). "
                             f"Create one with `egx index <inputs...> --workspace {path}`.")
    try:
        manifest = json.loads(mf.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WorkspaceError(f"This workspace is damaged: {mf} cannot be read ({exc}). Delete the folder and "
                             "build it again with `egx index <your input files> --workspace "
                             f"{path}`.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "egx-workspace" \
            or manifest.get("version") != FORMAT_VERSION:
        got = manifest if not isinstance(manifest, dict) else manifest.get("format")
        ver = manifest.get("version") if isinstance(manifest, dict) else None
        raise WorkspaceError(f"{mf} has format {got!r} v{ver!r}; "
                             f"this egx reads egx-workspace v{FORMAT_VERSION}. Rebuild the workspace.")
    return manifest


def is_workspace(path: Path) -> bool:
    """Whether ``path`` provably is a workspace: a folder holding the manifest egx writes."""
    try:
        read_manifest(path)
    except WorkspaceError:
        return False
    return Path(path).is_dir()


def _check_target(path: Path, overwrite: bool) -> None:
    """Refuse a workspace path egx may not create or replace (nothing is touched)."""
    resolved = path.resolve()
    if path.name in ("", ".", "..") or resolved == resolved.parent or resolved == Path.home().resolve():
        raise WorkspaceError(f"Refusing to build a workspace at {str(path)!r} ({resolved}): that names an "
                             "existing folder above or at your working directory, not a workspace folder. Nothing "
                             "was deleted. Give a new folder, e.g. --workspace ./my-graph.")
    if not path.exists() and not path.is_symlink():
        return
    if not path.is_dir() or path.is_symlink():
        raise WorkspaceError(f"{path} exists and is not a folder. Nothing was changed. Pick another --workspace.")
    if not overwrite:
        raise WorkspaceError(f"{path} already exists. Pick another name, or pass overwrite=True / --overwrite.")
    if is_workspace(path):
        return
    try:
        items = sorted(p.name for p in path.iterdir())
    except OSError:
        items = []
    if not items:
        return  # an empty folder holds nothing to lose
    shown = ", ".join(repr(n) for n in items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")
    raise WorkspaceError(f"{path} is not an egx workspace (it has no {MANIFEST} written by egx; it holds {shown}), "
                         "so --overwrite will not replace it. Nothing was deleted. Pick another --workspace folder.")


def workspace_lock(path: Path) -> Any:
    """The lock of the workspace at ``path`` (a hidden sibling ``.NAME.lock``), shared by processes
    and threads, re-entrant within a thread. Builds and index rebuilds hold it; readers never need
    it (a commit is atomic)."""
    return path_lock(Path(path))


def _commit(tmp: Path, path: Path) -> None:
    """Move the complete workspace ``tmp`` to ``path``, replacing what is there."""
    if path.exists():
        if exchange(tmp, path):  # atomic: never a moment without a workspace at ``path``
            shutil.rmtree(tmp, ignore_errors=True)  # now holds the old workspace
        else:  # two renames; a kill between them is undone by recover()
            trash = temp_sibling(path, "old")
            os.rename(path, trash)
            os.rename(tmp, path)
            shutil.rmtree(trash, ignore_errors=True)
    else:
        os.rename(tmp, path)
    fsync_dir(path.parent)


_SUFFIX = r"\d+-\d+-[0-9a-f]{10}"  # core.fsio.unique_suffix(); the alternatives are older egx versions
_OUR_FILES = {MANIFEST, GRAPH_FILE, "questions.json", "index", "sgrag", "reg"}


def _debris(path: Path, tag: str) -> list[Path]:
    """Folders an interrupted commit (``old``) or build (``building``) of ``path`` left behind —
    only names egx writes, holding only what egx writes: a user's ``.thesis.old-2023`` is never
    touched."""
    parent = path.parent
    if not parent.is_dir():
        return []
    legacy = r"\d+" if tag == "old" else r"\d+-\d+"
    pattern = re.compile(rf"\.{re.escape(path.name)}\.{tag}-(?:{_SUFFIX}|{legacy})")
    try:
        found = [p for p in parent.iterdir() if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink()]
    except OSError:
        return []
    return [p for p in found if _only_ours(p)]


def _only_ours(folder: Path) -> bool:
    try:
        return all(p.name in _OUR_FILES or p.name.startswith((".", "index.")) for p in folder.iterdir())
    except OSError:
        return False


def recover(path: Path, *, locked: bool = False) -> list[str]:
    """Undo what an interrupted build left next to the workspace at ``path``; return what was done.

    * ``.NAME.old-*`` (a commit killed between its two renames) is renamed back to ``NAME`` when
      nothing is at ``NAME`` — the previous workspace is usable again — and deleted otherwise;
    * ``.NAME.building-*`` (a killed build) is deleted;
    * index folders the manifest does not name (a killed index rebuild) are deleted.

    Takes the workspace lock without waiting; if a build holds it, nothing is touched (that
    build's own folders are not debris).
    """
    path = Path(path)
    old, building = _debris(path, "old"), _debris(path, "building")
    stale_index = _stale_index_dirs(path)
    if not (old or building or stale_index):
        return []
    from filelock import Timeout

    done: list[str] = []
    lock = None if locked else workspace_lock(path)
    try:
        if lock is not None:
            lock.acquire(timeout=0)
    except Timeout:
        return []
    try:
        old, building = _debris(path, "old"), _debris(path, "building")
        if not path.exists():
            usable = sorted((p for p in old if is_workspace(p)), key=lambda p: p.stat().st_mtime, reverse=True)
            if usable:
                os.rename(usable[0], path)
                fsync_dir(path.parent)
                done.append(f"restored {path.name} from {usable[0].name} (a replacement was interrupted)")
                old = [p for p in old if p != usable[0]]
        for p in old + building:
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed {p.name}")
        for p in _stale_index_dirs(path):
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed {path.name}/{p.name}")
    finally:
        if lock is not None:
            lock.release()
    return done


def _stale_index_dirs(path: Path) -> list[Path]:
    if not (path / MANIFEST).is_file():
        return []
    try:
        current = _index_dirname(read_manifest(path))
        pattern = re.compile(rf"index(?:\.{_SUFFIX})?")
        return [p for p in path.iterdir() if p.is_dir() and pattern.fullmatch(p.name) and p.name != current]
    except (WorkspaceError, OSError):
        return []


#: The progress bar's share for reading the inputs (seconds, against minutes of embedding).
LOAD_SHARE = 0.03
#: Estimated seconds per chunk of triple extraction, and per character / item of embedding: only the
#: *split* of the progress bar between the two stages depends on them (the ETA is measured).
EXTRACT_SECONDS = {"rules": 0.002}
LLM_EXTRACT_SECONDS = 3.0
EMBED_SECONDS_PER_CHAR = 2e-5
EMBED_SECONDS_PER_ITEM = 1e-3


def _extraction_share(graph: KnowledgeGraph, extractor: TripleExtractor | None, embedder: Embedder | None, *,
                      extract: bool) -> float:
    """Where on the progress bar extraction ends and embedding begins, from the estimated cost of
    each (a triples upload goes straight on to embedding: no jump to 50 % for a stage it skips)."""
    if not extract:
        return LOAD_SHARE
    if embedder is None:
        return 1.0
    name = getattr(extractor, "name", "rules") if extractor is not None else "rules"
    per_chunk = EXTRACT_SECONDS.get(str(name), LLM_EXTRACT_SECONDS)
    ext = graph.n_chunks * per_chunk
    # the edges are not known before extraction: estimate them as ~5 short triples per chunk
    chars = sum(len(c.passage) for c in graph.chunks) * 1.5
    items = graph.n_chunks * 8
    emb = chars * EMBED_SECONDS_PER_CHAR + items * EMBED_SECONDS_PER_ITEM
    return LOAD_SHARE + (1.0 - LOAD_SHARE) * ext / (ext + emb) if ext + emb > 0 else LOAD_SHARE


class _Stepper:
    """Maps sub-task progress into a slice of the overall progress bar."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress

    def sub(self, lo: float, hi: float) -> Progress | None:
        if self.progress is None:
            return None
        outer = self.progress

        def f(msg: str, frac: float) -> None:
            outer(msg, lo + (hi - lo) * min(max(frac, 0.0), 1.0))

        return f


# -------------------------------------------------------------------- samples and listing
@dataclass(frozen=True)
class Recipe:
    """A sample workspace recipe (``sample_data/<name>/workspace.json``)."""

    name: str
    folder: Path
    title: str
    description: str
    inputs: tuple[Path, ...]
    questions: Path | None
    attribution: str
    hash: str

    @classmethod
    def read(cls, folder: Path) -> Recipe:
        f = folder / "workspace.json"
        d = json.loads(f.read_text(encoding="utf-8"))
        inputs = tuple(folder / p for p in d["inputs"])
        q = folder / d["questions"] if d.get("questions") else None
        files = [*inputs, *( [q] if q else [])]
        h = content_hash(f.read_bytes(), *[p.read_bytes() for p in files if p.is_file()])
        return cls(d.get("name", folder.name), folder, d.get("title", folder.name), d.get("description", ""),
                   inputs, q, d.get("attribution", ""), h)


def sample_recipes() -> list[Recipe]:
    root = sample_data_dir()
    if not root.exists():
        return []
    return [Recipe.read(p) for p in sorted(root.iterdir()) if (p / "workspace.json").exists()]


def ensure_sample_workspace(name: str, embedder: Embedder | None, *, progress: Progress | None = None,
                            root: Path | None = None, force: bool = False,
                            runner: BatchRunner | None = None) -> Workspace:
    """Open the built sample workspace ``name``, building it from its recipe when missing, stale,
    damaged, or when ``force`` is set (``runner``: where to embed and extract, see :func:`create_workspace`)."""
    recipes = {r.name: r for r in sample_recipes()}
    if name not in recipes:
        raise UnknownNameError("sample workspace", name, sorted(recipes))
    r = recipes[name]
    path = (root or workspaces_root()) / name

    def current() -> Workspace | None:
        try:
            ws = Workspace.open(path)
            if ws.manifest.get("recipe_hash") == r.hash:
                ws.graph  # noqa: B018 - a damaged graph file means: rebuild
                return ws
        except EgxError:
            pass  # stale or broken: rebuild
        return None

    ws = None if force else current()
    if ws is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with workspace_lock(path):  # five sessions opening a fresh home build it once
            ws = None if force else current()
            if ws is None:
                return create_workspace(r.inputs, path, name=r.name, title=r.title, description=r.description,
                                        embedder=embedder, questions=r.questions, overwrite=True,
                                        progress=progress, extra_manifest={"recipe_hash": r.hash, "sample": True,
                                                                           "attribution": r.attribution},
                                        runner=runner)
    if embedder is not None:
        ws.ensure_index(embedder, progress=progress, runner=runner)
    return ws


@dataclass(frozen=True)
class WorkspaceInfo:
    name: str
    title: str
    path: Path
    built: bool
    sample: bool
    summary: dict[str, Any] = field(default_factory=dict)


def list_workspaces(root: Path | None = None) -> list[WorkspaceInfo]:
    """Sample recipes (built or not) and every user workspace under ``root``."""
    root = root or workspaces_root()
    out: dict[str, WorkspaceInfo] = {}
    for r in sample_recipes():
        p = root / r.name
        out[r.name] = WorkspaceInfo(r.name, r.title, p, (p / MANIFEST).exists(), True)
    if root.exists():
        recover_all(root)
        for p in sorted(root.iterdir()):
            if p.name.startswith(".") or not (p / MANIFEST).exists():
                continue
            try:
                ws = Workspace.open(p)
            except WorkspaceError:
                continue
            out[p.name] = WorkspaceInfo(p.name, ws.title, p, True, bool(ws.manifest.get("sample")),
                                        dict(ws.manifest.get("graph", {})))
    return list(out.values())


def recover_all(root: Path) -> list[str]:
    """:func:`recover` every workspace under ``root`` that has debris next to it, and remove the lock
    files of workspaces that are gone (:func:`~core.fsio.remove_stale_locks`)."""
    done: list[str] = []
    try:
        names = {p.name[1:].rsplit(".", 1)[0] for p in Path(root).iterdir()
                 if p.name.startswith(".") and (".old-" in p.name or ".building-" in p.name)}
    except OSError:
        return done
    for n in sorted(names):
        if n and n not in (".", ".."):
            done += recover(Path(root) / n)
    done += remove_stale_locks(root)
    return done


def workspace_names(root: Path | None = None) -> list[str]:
    """Names of the built workspaces under ``root`` (never hidden folders or debris)."""
    root = root or workspaces_root()
    if not root.exists():
        return []
    return sorted(p.name for p in root.iterdir() if not p.name.startswith(".") and (p / MANIFEST).is_file())
