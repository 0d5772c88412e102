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

This module is the opened workspace, :class:`Workspace`. Around it, one module a job:
:mod:`~core.index.create` builds a workspace from inputs (in a temporary sibling folder, renamed into
place only when complete, so a failed upload leaves nothing behind), :mod:`~core.index.commit` locks,
commits and recovers, :mod:`~core.index.indexing` embeds the indexes, :mod:`~core.index.manifest` and
:mod:`~core.index.graph_files` read and write the files, :mod:`~core.index.samples` builds the bundled
samples, :mod:`~core.index.listing` lists what is built.

The index section of the manifest records the embedder (name, model id, dimension) and the graph's
content hash: re-opening with the same embedder reuses the index; a different model or changed
content rebuilds it. Every file write is atomic.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import EgxError, StoreError, UnknownNameError, WorkspaceError
from core.fsio import atomic_write_json, path_lock, unique_suffix
from core.graph.model import KnowledgeGraph
from core.graph.stores import open_store
from core.graph.stores.store import MEMORY_URL, GraphStore, MemoryStore, parse_store_url
from core.index.commit import recover, wait_for_commit, workspace_lock
from core.index.graph_files import load_graph, rebuild_hint
from core.index.indexing import (
    ITEM_KINDS,
    IndexBuild,
    ItemKind,
    Progress,
    TextPages,
    build_indexes,
    embed_pages,
    index_manifest,
)
from core.index.manifest import GRAPH_FILE, MANIFEST, Manifest, index_dirname, read_manifest
from core.index.text_vectors import ReusePlan, no_reuse, reuse_plan, row_hashes, rows_path, to_embed, write_rows
from core.index.vector_index import VectorIndex, embed_texts
from core.text import content_hash

if TYPE_CHECKING:
    from core.backends.base import BatchRunner, Embedder


@dataclass(frozen=True, eq=False)
class CachedVectors:
    """What :meth:`Workspace.text_vectors` returns: the vectors and whether they were embedded now."""

    index: VectorIndex
    built: bool  #: embedded by this call (False: read from the cache)
    seconds: float = 0.0  #: embedding time when built
    note: str = ""  #: non-empty when a damaged cache file was replaced
    reused: int = 0  #: rows kept from a stale cache because their text did not change (the rest were embedded)

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
        try:
            return cls(path, read_manifest(path))
        except WorkspaceError:
            if not wait_for_commit(path):  # no commit in flight: the error stands
                raise
            return cls(path, read_manifest(path))

    @property
    def meta(self) -> Manifest:
        """The manifest, read by attribute."""
        return Manifest(self.manifest)

    @property
    def name(self) -> str:
        return self.meta.name or self.path.name

    @property
    def title(self) -> str:
        return self.meta.title or self.name

    @property
    def description(self) -> str:
        return self.meta.description

    @property
    def warnings(self) -> list[str]:
        return self.meta.warnings

    @property
    def store_url(self) -> str:
        """Where the graph lives: ``memory:`` (``graph.json.gz``, loaded into this process) or the
        ``falkordb://HOST:PORT/GRAPH`` URL of a graph store (never with a password)."""
        return self.meta.store_url

    @cached_property
    def store(self) -> GraphStore:
        """The workspace's :class:`~core.graph.stores.store.GraphStore`: the in-memory graph, or the FalkorDB
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
        want = self.meta.content_hash
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
        return self._read_graph()

    #: reads of a graph another process kept replacing, before the reader gives up
    _GRAPH_ATTEMPTS = 3

    def _read_graph(self) -> KnowledgeGraph:
        """``graph.json.gz`` of the workspace version this object's manifest describes, or of a newer one whose
        manifest it then adopts — never a graph of one build with the manifest (and index) of another.

        Another process may replace the workspace while this one reads (a rebuild's commit): the graph section
        of the manifest is read again after the graph, and when it changed the graph is read again under the
        new manifest; a file missing while a commit by two renames has the folder away is waited for
        (:func:`~core.index.commit.wait_for_commit`). "This workspace is damaged" is said only when the
        workspace did not change meanwhile.
        """
        for attempt in range(self._GRAPH_ATTEMPTS):
            try:
                g = load_graph(self.path / GRAPH_FILE, manifest=self.manifest)
            except WorkspaceError:
                if attempt + 1 == self._GRAPH_ATTEMPTS or not self._adopt_replaced():
                    raise
                continue
            if not self._adopt_replaced():
                return g
        return load_graph(self.path / GRAPH_FILE, manifest=self.manifest)

    def _adopt_replaced(self) -> bool:
        """Whether the workspace at :attr:`path` was replaced since this object read its manifest (waiting out a
        commit in flight); if so, its manifest is adopted and the indexes read under the old one are dropped."""
        wait_for_commit(self.path)
        try:
            fresh = read_manifest(self.path)
        except WorkspaceError:
            return False
        if fresh.get("graph") == self.manifest.get("graph") and index_dirname(fresh) == index_dirname(self.manifest):
            return False
        self.manifest = fresh
        self._indexes.clear()
        return True

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
        if (info.get("content_hash") or "") != self.meta.content_hash:
            return "the graph content changed since the index was built"
        folder = self.index_dir
        for kind in ITEM_KINDS:
            if not (folder / f"{kind}.faiss").exists():
                return f"{folder.name}/{kind}.faiss is missing"
        return None

    @property
    def index_dir(self) -> Path:
        """The folder of the current index (named in the manifest; ``index`` by default)."""
        return self.path / index_dirname(self.manifest)

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
            if Manifest(fresh).content_hash == self.meta.content_hash:
                self.manifest = fresh  # another thread or process may have built it meanwhile
            problem = "rebuild requested" if rebuild else self.index_problem(embedder)
            if problem is None:
                return []
            old = self.index_dir
            dirname = f"index.{unique_suffix()}"
            try:
                builds = build_indexes(self.path, self.graph, embedder, progress=progress, dirname=dirname,
                                       runner=runner)
                manifest = {**self.manifest, "index": index_manifest(embedder, self.graph, builds, reason=problem,
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
            try:
                self._indexes[kind] = self._load_index(kind, info)
            except WorkspaceError:  # removed while it was read: a rebuild replaced it meanwhile
                self._follow_replaced_index(info)
                if self.manifest.get("index") == info:
                    raise
                self._indexes[kind] = self._load_index(kind, self.manifest["index"])
        return self._indexes[kind]

    def _load_index(self, kind: ItemKind, info: dict[str, Any]) -> VectorIndex:
        return VectorIndex.load(self.index_dir / f"{kind}.faiss", dim=info["dim"], size=self._size(kind),
                                rebuild=f"`egx index --workspace {self.path} --rebuild`")

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
        if index_dirname(fresh) == index_dirname(self.manifest):
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
                     progress: Progress | None = None, texts_key: str | None = None, label: str = "") -> CachedVectors:
        """Vectors of a method's own ``texts`` (not one of the three index kinds), embedded once per
        (workspace, embedder, texts) and kept in ``<index dir>/extra/<name>.faiss`` beside the index.

        The file is a FAISS flat index written atomically (no pickle), with ``<name>.json`` naming the
        model, dimension, count and a hash of the texts; it lives in the index folder, so a new
        embedder (a new index folder) drops it. A missing, stale or damaged file is rebuilt; a damaged
        one with a note saying so (``CachedVectors.note``), which callers put in their trace.

        ``texts_key`` names the texts instead of their hash when the caller can (e.g. the graph's
        content hash and the text recipe): then ``texts`` is read only to embed, and may be
        :class:`TextPages` read page by page from a graph store (whose graph may be larger than this
        process can hold), so a cache hit reads no text at all. ``label`` names the texts in progress lines.

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
            hashes, reused = None, 0
            if isinstance(texts, TextPages):
                fill = partial(embed_pages, texts, embedder, progress, label or name)
            else:
                items = list(texts)
                hashes = row_hashes(items)
                # rows whose text did not change keep their vector; a damaged cache is embedded whole
                plan = reuse_plan(path, hashes, embedder.dim) if not note else no_reuse(len(items))
                reused = plan.reused
                fill = partial(_fill_reusing, plan, items, embedder, progress, label or name)
            rows_path(path).unlink(missing_ok=True)  # a rows file present always describes the vectors beside it
            index = VectorIndex.build(len(texts), embedder.dim, fill)
            index.save(path)
            if hashes is not None:
                write_rows(path, hashes)
            atomic_write_json(meta_path, want)  # last: the vectors are complete when the meta names them
            seconds = time.perf_counter() - t0
            if note:
                note = f"The cached vectors '{name}' were damaged ({note}); they were embedded again."
        return CachedVectors(index, built=True, seconds=seconds, note=note, reused=reused)

    def text_vectors_to_embed(self, name: str, texts: Sequence[str] | TextPages, embedder: Embedder, *,
                              texts_key: str | None = None) -> int:
        """How many of ``texts`` :meth:`text_vectors` would embed now: 0 on a cache hit; on a stale cache only
        the texts its stored rows do not hold (:mod:`core.index.text_vectors`); all of them otherwise."""
        from core.fsio import safe_name

        if self.has_text_vectors(name, texts, embedder, texts_key=texts_key):
            return 0
        if isinstance(texts, TextPages) or self.index_problem(embedder) is not None:
            return len(texts)
        return to_embed(self.index_dir / "extra" / f"{safe_name(name, kind='vector cache name')}.faiss", texts)

    def _size(self, kind: ItemKind) -> int:
        """Rows the ``kind`` index must hold; a store workspace answers from its manifest (written with
        the graph), so opening an index never loads the whole graph from the store (a graph kept in a
        store may be larger than this process can hold)."""
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
        return self.meta.content_hash or self.graph.content_hash

    @property
    def provenance_hash(self) -> str:
        """:attr:`KnowledgeGraph.provenance_hash` without loading a store's graph (recorded in the
        manifest when the graph was written; "" for a store workspace written before it was)."""
        if self.store_url == MEMORY_URL:
            return self.graph.provenance_hash
        return self.meta.provenance_hash

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
        from core.graph.stores.falkor_load import load_graph_into

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


def _fill_reusing(plan: ReusePlan, texts: list[str], embedder: Embedder, progress: Progress | None, label: str,
                  out: np.ndarray) -> None:
    """A :meth:`VectorIndex.build` fill: the reused rows from the stored vectors, the others embedded now."""
    plan.fill_stored(out)
    missing = plan.missing
    if len(missing) == len(texts):
        embed_texts(texts, embedder, progress=progress, label=label, out=out)
    elif len(missing):
        out[missing] = embed_texts([texts[int(i)] for i in missing], embedder, progress=progress,
                                   label=f"{label} (changed texts)")
