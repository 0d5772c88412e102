"""Workspaces: a folder holding one graph, its vector indexes and a manifest.

Layout::

    <workspace>/
      manifest.json        what was built, from what, with which embedder (written last)
      graph.json.gz        the KnowledgeGraph (KnowledgeGraph.to_dict)
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
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core.errors import EgxError, InputFormatError, UnknownNameError, WorkspaceError
from core.graph.builder import build_kg_from_corpus
from core.graph.loaders import load_inputs
from core.graph.model import KnowledgeGraph
from core.index.vector_index import VectorIndex, embed_texts
from core.text import content_hash

if TYPE_CHECKING:
    from core.backends.base import Embedder, TripleExtractor

Progress = Callable[[str, float], None]
ItemKind = Literal["nodes", "edges", "chunks"]
ITEM_KINDS: tuple[ItemKind, ...] = ("nodes", "edges", "chunks")
MANIFEST = "manifest.json"
GRAPH_FILE = "graph.json.gz"
FORMAT_VERSION = 1


def egx_home() -> Path:
    """Where built workspaces live: ``$EGX_HOME`` or ``~/.local/share/egx``."""
    return Path(os.environ.get("EGX_HOME") or Path.home() / ".local" / "share" / "egx")


def workspaces_root() -> Path:
    return egx_home() / "workspaces"


def cache_dir() -> Path:
    """Caches (extraction results, assembled model files): ``$EGX_CACHE_DIR`` or ``~/.cache/egx``."""
    return Path(os.environ.get("EGX_CACHE_DIR") or Path.home() / ".cache" / "egx")


def sample_data_dir() -> Path:
    """The bundled ``sample_data/`` (override with ``$EGX_SAMPLE_DATA``)."""
    env = os.environ.get("EGX_SAMPLE_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "sample_data"


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_bytes(path, json.dumps(obj, indent=2, ensure_ascii=False).encode("utf-8"))


def save_graph(graph: KnowledgeGraph, path: Path) -> None:
    """Write the graph as gzip-compressed egx JSON, atomically."""
    raw = json.dumps(graph.to_dict(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    atomic_write_bytes(Path(path), gzip.compress(raw, compresslevel=6, mtime=0))


def load_graph(path: Path) -> KnowledgeGraph:
    path = Path(path)
    if not path.exists():
        raise WorkspaceError(f"{path} is missing: the workspace is incomplete. Delete it and build it again.")
    data = json.loads(gzip.decompress(path.read_bytes()))
    return KnowledgeGraph.from_dict(data, source=str(path))


@dataclass(frozen=True)
class IndexBuild:
    """Timing of one index build, kept in the manifest (items/s is reported by benchmarks)."""

    kind: str
    items: int
    seconds: float

    @property
    def items_per_s(self) -> float:
        return self.items / self.seconds if self.seconds > 0 else float("inf")


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
        mf = path / MANIFEST
        if not mf.exists():
            raise WorkspaceError(f"{path} is not a workspace (no {MANIFEST}). "
                                 f"Create one with `egx index <inputs...> --workspace {path}`.")
        try:
            manifest = json.loads(mf.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise WorkspaceError(f"{mf} is corrupt ({exc.msg}); delete the workspace and build it again.") from None
        if manifest.get("format") != "egx-workspace" or manifest.get("version") != FORMAT_VERSION:
            raise WorkspaceError(f"{mf} has format {manifest.get('format')!r} v{manifest.get('version')!r}; "
                                 f"this egx reads egx-workspace v{FORMAT_VERSION}. Rebuild the workspace.")
        return cls(path, manifest)

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

    @cached_property
    def graph(self) -> KnowledgeGraph:
        return load_graph(self.path / GRAPH_FILE)

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
        for kind in ITEM_KINDS:
            if not (self.path / "index" / f"{kind}.faiss").exists():
                return f"index/{kind}.faiss is missing"
        return None

    def ensure_index(self, embedder: Embedder, *, progress: Progress | None = None,
                     rebuild: bool = False) -> list[IndexBuild]:
        """Build the node/edge/chunk indexes unless a compatible one is already stored.

        Returns the timings of what was built (empty when the stored index was reused).
        """
        problem = "rebuild requested" if rebuild else self.index_problem(embedder)
        if problem is None:
            return []
        builds = build_indexes(self.path, self.graph, embedder, progress=progress)
        self.manifest["index"] = _index_manifest(embedder, self.graph, builds, reason=problem)
        atomic_write_json(self.path / MANIFEST, self.manifest)
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
            size = {"nodes": self.graph.n_nodes, "edges": self.graph.n_edges, "chunks": self.graph.n_chunks}[kind]
            self._indexes[kind] = VectorIndex.load(self.path / "index" / f"{kind}.faiss", dim=info["dim"], size=size)
        return self._indexes[kind]

    def __repr__(self) -> str:
        return f"Workspace({self.name!r}, path={str(self.path)!r})"


def build_indexes(path: Path, graph: KnowledgeGraph, embedder: Embedder, *,
                  progress: Progress | None = None) -> list[IndexBuild]:
    """Embed nodes, edges and chunks and write ``index/<kind>.faiss`` under ``path``."""
    builds = []
    texts = {"nodes": list(graph.node_texts), "edges": list(graph.edge_texts),
             "chunks": [c.passage for c in graph.chunks]}
    total = sum(len(t) for t in texts.values()) or 1
    done = 0
    (path / "index").mkdir(parents=True, exist_ok=True)
    for kind in ITEM_KINDS:
        items = texts[kind]
        base = done

        def sub(msg: str, frac: float, _n: int = len(items), _base: int = base) -> None:
            if progress:
                progress(msg, (_base + frac * _n) / total)

        t0 = time.perf_counter()
        vecs = embed_texts(items, embedder, progress=sub, label=kind)
        VectorIndex(vecs).save(path / "index" / f"{kind}.faiss")
        builds.append(IndexBuild(kind, len(items), time.perf_counter() - t0))
        done += len(items)
    return builds


def _index_manifest(embedder: Embedder, graph: KnowledgeGraph, builds: Sequence[IndexBuild], *,
                    reason: str) -> dict[str, Any]:
    return {
        "embedder": embedder.name,
        "model_id": embedder.model_id,
        "dim": embedder.dim,
        "content_hash": graph.content_hash,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "reason": reason,
        "builds": [{"kind": b.kind, "items": b.items, "seconds": round(b.seconds, 3)} for b in builds],
    }


def create_workspace(inputs: Sequence[str | Path], path: str | Path, *, name: str | None = None,
                     title: str = "", description: str = "", embedder: Embedder | None = None,
                     extractor: TripleExtractor | None = None, questions: str | Path | None = None,
                     overwrite: bool = False, progress: Progress | None = None,
                     extra_manifest: dict[str, Any] | None = None) -> Workspace:
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
        rule-based extractor (LLM ``none`` mode) and records that in the manifest warnings.
    questions
        Optional questions file with gold evidence, copied in for evaluation.
    overwrite
        Replace an existing workspace (the old one is removed only after the new one is complete).

    Raises
    ------
    InputFormatError, EmptyGraphError
        On bad inputs (raised before anything is written).
    WorkspaceError
        If ``path`` exists and ``overwrite`` is False.
    """
    path = Path(path)
    if path.exists() and not overwrite:
        raise WorkspaceError(f"{path} already exists. Pick another name, or pass overwrite=True / --overwrite.")
    step = _Stepper(progress)
    loaded = load_inputs(inputs, name=name or path.name, progress=step.sub(0.0, 0.05))
    graph = loaded.graph
    warnings = list(loaded.warnings)
    extraction: dict[str, Any] | None = None
    if graph.kind == "kg" and graph.n_edges == 0 and graph.n_chunks > 0:
        if extractor is None:
            from core.backends.registry import get_extractor

            extractor = get_extractor("rules")
            warnings.append("No LLM configured: triples were extracted with the rule-based extractor "
                            "(capitalized mentions linked by the words between them). Configure an LLM "
                            "for better graphs.")
        graph, res = build_kg_from_corpus(graph, extractor, cache_dir=cache_dir() / "extraction",
                                          progress=step.sub(0.05, 0.5))
        extraction = {"extractor": res.extractor, "triples": res.n_triples, "from_cache": res.from_cache,
                      "extracted": res.extracted, "failed_chunks": len(res.failed),
                      "failed_chunk_ids": list(res.failed[:100])}
        if res.failed:
            warnings.append(f"Triple extraction failed for {len(res.failed)} of {graph.n_chunks} chunks (the LLM's "
                            "output stayed unusable), so they have no triples. Failures are not cached: build the "
                            "workspace again (egx index ... --overwrite) to retry just those chunks.")
        if graph.n_edges == 0:
            warnings.append("The extractor found no triples; the graph has no edges (dense retrieval still works).")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.building-{os.getpid()}-{int(time.time() * 1000)}"
    try:
        tmp.mkdir()
        save_graph(graph, tmp / GRAPH_FILE)
        if questions is not None:
            q = Path(questions)
            from core.graph.loaders import read_text

            text = read_text(q)
            try:
                json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputFormatError(q.name, f"invalid JSON ({exc.msg})", "a JSON questions file",
                                       line=exc.lineno) from None
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
                      "nodes": graph.n_nodes, "edges": graph.n_edges, "chunks": graph.n_chunks},
            "warnings": warnings,
        }
        if extraction:
            manifest["extraction"] = extraction
        if extra_manifest:
            manifest.update(extra_manifest)
        if embedder is not None:
            builds = build_indexes(tmp, graph, embedder, progress=step.sub(0.5, 1.0))
            manifest["index"] = _index_manifest(embedder, graph, builds, reason="new workspace")
        atomic_write_json(tmp / MANIFEST, manifest)
        if path.exists():
            trash = path.parent / f".{path.name}.old-{os.getpid()}"
            os.replace(path, trash)
            os.replace(tmp, path)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if progress:
        progress("Workspace ready", 1.0)
    ws = Workspace(path, manifest)
    ws.__dict__["graph"] = graph  # already in memory
    return ws


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
                            root: Path | None = None) -> Workspace:
    """Open the built sample workspace ``name``, building it from its recipe when missing or stale."""
    recipes = {r.name: r for r in sample_recipes()}
    if name not in recipes:
        raise UnknownNameError("sample workspace", name, sorted(recipes))
    r = recipes[name]
    path = (root or workspaces_root()) / name
    if (path / MANIFEST).exists():
        try:
            ws = Workspace.open(path)
            if ws.manifest.get("recipe_hash") == r.hash:
                if embedder is not None:
                    ws.ensure_index(embedder, progress=progress)
                return ws
        except EgxError:
            pass  # stale or broken: rebuild below
    return create_workspace(r.inputs, path, name=r.name, title=r.title, description=r.description,
                            embedder=embedder, questions=r.questions, overwrite=True, progress=progress,
                            extra_manifest={"recipe_hash": r.hash, "sample": True, "attribution": r.attribution})


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
