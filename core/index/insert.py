"""Adding documents to a built corpus workspace without rebuilding it.

The new files are read by the same loaders, with the settings the workspace's manifest recorded (its
extractor, its embedder, its synonym threshold); only the new passages are extracted, and only texts the
index does not hold yet (new nodes, new edges, new passages) are embedded. Entities merge into the graph
by the name normalisation the builder uses (:func:`core.graph.builder.add_extracted`), so an entity
already present gets the new edges and provenance, never a twin. The new state is built in a hidden
sibling folder and swapped into place (:func:`core.index.commit.commit`), so a failure or a kill at any
moment leaves the previous workspace as it was.

The result is the workspace a build of the old inputs followed by the new ones would give: the builder
merges in corpus order and the new passages come last in both, so nodes, edges, provenance and the index
rows come out in the same order and the graph's content hash is the same. Except for repeats: a passage of the new files
whose text the workspace already holds (or an earlier new file), compared without case, whitespace or quote
spelling, is left out and counted per file (:mod:`core.graph.formats.repeats`), where a build keeps a JSON
corpus's repeated records as its dataset has them. Derived caches keyed on the old
graph (SG-RAG's dominance models, a trained ReG retriever) are not carried over: they are retrained for the
new graph. The methods' cached text vectors (FastInsight's node vectors in ``index/extra``) are carried over
stale, and their first use re-embeds only the texts the new passages changed (:mod:`core.index.text_vectors`).

:func:`add_documents` is the one public function; :func:`core.index.insert_checks.insert_problem` says beforehand
why a workspace cannot take more documents (the app shows it in place of the upload).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import InputFormatError, WorkspaceError
from core.fsio import atomic_write_json, temp_sibling
from core.graph.builder import ExtractionResult, add_extracted, extract_triples
from core.graph.chunking import chunking_settings
from core.graph.formats.documents import DOCUMENT_FORMATS
from core.graph.formats.load import LoadedGraph, duplicates_text, load_inputs
from core.graph.graph_builder import GraphBuilder
from core.graph.model import Chunk, KnowledgeGraph
from core.graph.synonyms import SYNONYM_RELATION, add_synonym_edges
from core.index.commit import commit, recover, workspace_lock
from core.index.create import EMBED_SECONDS_PER_CHAR, EMBED_SECONDS_PER_ITEM, EXTRACT_SECONDS, LLM_EXTRACT_SECONDS
from core.index.graph_files import save_graph
from core.index.indexing import ITEM_KINDS, IndexBuild, ItemKind, Progress, index_manifest
from core.index.insert_checks import (
    check_chunking,
    insert_problem,
    rebuild_command,
    recorded_embedder,
    recorded_extractor,
)
from core.index.manifest import GRAPH_FILE, MANIFEST, Manifest, read_manifest
from core.index.paths import cache_dir, method_folders
from core.index.text_vectors import carry_stale
from core.index.vector_index import VectorIndex, embed_texts
from core.index.workspace import Workspace
from core.text import plural

if TYPE_CHECKING:
    from core.backends.base import LLM, BatchRunner, Embedder, TripleExtractor

#: the formats that hold passages only: what a corpus workspace can take more of
CORPUS_FORMATS = ("corpus", "corpus_nodes", *DOCUMENT_FORMATS)
#: what the loaders call those files, for the messages
CORPUS_FILES = ("documents (.txt / .md / .pdf / .html / .docx) or JSON(L) {title, text} passages "
                "(gzip-compressed too)")
LOAD_SHARE, KEEP_INSERTS = 0.03, 50  #: the progress share of loading; the most insert records a manifest keeps


@dataclass(frozen=True)
class InsertResult:
    """What :func:`add_documents` did.

    ``added`` are the new passages' chunk ids, ``duplicates`` the ids of passages skipped because the
    workspace (or an earlier file of the same insert) already holds the same passage under the same id (the
    passages a file repeats under other ids, or inside a document, are counted by ``files``, each file's
    ``duplicates``: see :mod:`core.graph.formats.repeats`); ``embedded`` counts
    the texts embedded now per index kind (the rest were reused from the old index).
    """

    workspace: Workspace | None
    added: tuple[str, ...]
    duplicates: tuple[str, ...]
    new_nodes: int = 0
    new_edges: int = 0
    triples: int = 0
    failed: tuple[str, ...] = ()  #: new chunks whose extraction failed (no triples; retried by a rebuild)
    embedded: Mapping[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    notes: tuple[str, ...] = ()
    files: tuple[dict[str, Any], ...] = ()  #: per input file: its format, its passages, or why it was left out

    @property
    def changed(self) -> bool:
        """Whether the workspace was replaced (False: every passage was a duplicate)."""
        return bool(self.added)

    @property
    def n_duplicates(self) -> int:
        """The passages left out because the workspace or an earlier file of this insert holds them: by id
        (``duplicates``) or as repeats the files' reading found (each file's ``duplicates``)."""
        return len(self.duplicates) + sum(int(f.get("duplicates") or 0) for f in self.files)

    def summary(self) -> str:
        """One paragraph for a person: what was added, skipped and embedded."""
        said = [duplicates_text(str(f.get("file")), int(f.get("duplicates") or 0), f.get("duplicate_of") or ())
                for f in self.files if f.get("duplicates")]
        if self.duplicates:
            shown = ", ".join(self.duplicates[:5]) + (", ..." if len(self.duplicates) > 5 else "")
            said.append(f"{plural(len(self.duplicates), 'passage')} the workspace already holds under the same id were "
                        f"skipped ({shown})")
        dup = "; " + "; ".join(said) if said else ""
        if not self.added:
            return f"Nothing was added: every passage is already in the workspace{dup}. The workspace is unchanged."
        emb = ", ".join(plural(n, k[:-1] if k.endswith("s") else k) for k, n in self.embedded.items())  # "1 chunk"
        return (f"Added {plural(len(self.added), 'passage')}{dup}: {plural(self.triples, 'triple')}, "
                f"{plural(self.new_nodes, 'new node')}, {plural(self.new_edges, 'new edge')}"
                + (f"; embedded {emb}" if emb else "") + f" in {self.seconds:.1f} s."
                + (f" Extraction failed for {plural(len(self.failed), 'passage')}." if self.failed else ""))

    def to_dict(self) -> dict[str, Any]:
        """The JSON-able figures (what an isolated build reports back)."""
        return {"added": list(self.added), "duplicates": list(self.duplicates), "new_nodes": self.new_nodes,
                "new_edges": self.new_edges, "triples": self.triples, "failed": list(self.failed),
                "embedded": dict(self.embedded), "seconds": round(self.seconds, 3), "notes": list(self.notes),
                "files": list(self.files), "summary": self.summary()}


def add_documents(workspace: str | Path, inputs: Sequence[str | Path], *, embedder: Embedder | None = None,
                  extractor: TripleExtractor | None = None, llm: LLM | None = None,
                  progress: Progress | None = None, runner: BatchRunner | None = None) -> InsertResult:
    """Add the passages of ``inputs`` to the corpus workspace at ``workspace``, in place and atomically.

    Parameters
    ----------
    workspace
        A workspace built from a corpus (``egx index CORPUS --workspace W``) whose graph is in its folder.
    inputs
        Corpus files, in any format the corpus loaders read (:data:`CORPUS_FILES`).
    embedder, extractor
        ``None``: the ones the manifest records, loaded by registry name. Given: they must be the recorded
        ones (same model id), since mixing models would make the index or the graph inconsistent.
    llm
        The LLM of a workspace whose triples an LLM extracted (a recorded ``llm`` extractor needs one).
    progress
        ``progress(message, fraction)``.
    runner
        Where extraction and embedding run (:class:`~core.backends.base.BatchRunner`); ``None``: here.

    Returns
    -------
    InsertResult
        With ``changed`` False (and the workspace untouched) when every passage was already there.

    Raises
    ------
    WorkspaceError
        No workspace at that path; a workspace this cannot extend (a graph store, a bundled sample, one
        built from triples or a graph); a setting that was not recorded or does not match.
    InputFormatError, EmptyGraphError
        Bad inputs: unreadable, empty, not a corpus, or a passage id the workspace holds with another text.
        Raised before anything is written.
    """
    t0 = time.perf_counter()
    path = Path(workspace)
    read_manifest(path)  # "not a workspace" before any lock file is made next to a wrong path
    with workspace_lock(path):
        recover(path, locked=True)
        manifest = read_manifest(path)
        meta = Manifest(manifest)
        problem = insert_problem(path, meta)
        if problem is not None:
            raise WorkspaceError(problem, app=insert_problem(path, meta, app=True))
        chunk_note, passages = check_chunking(path, meta)
        ext = recorded_extractor(path, meta, extractor, llm)
        emb = recorded_embedder(path, meta, embedder)
        old = Workspace(path, manifest)
        loaded = load_inputs(inputs, name=meta.name or path.name, progress=_slice(progress, 0.0, LOAD_SHARE),
                             known=old.graph.chunks, passages=passages)  # a passage it holds is left out
        _check_inputs(path, loaded)
        fresh, dups = _new_passages(old.graph, loaded.graph)
        files = tuple(f.to_dict() for f in loaded.files)
        if not fresh:
            return InsertResult(old, (), tuple(dups), seconds=time.perf_counter() - t0, notes=loaded.other_notes(),
                                files=files)
        split = _extraction_share(fresh, ext, emb)
        res = extract_triples(fresh, ext, cache_dir=cache_dir() / "extraction",
                              progress=_slice(progress, LOAD_SHARE, split), runner=runner)
        syn = meta.synonyms
        graph = _merged(old.graph, fresh, res, drop_synonyms=syn is not None)
        tmp = temp_sibling(path, "building")
        try:
            tmp.mkdir()
            index, embedded, graph, n_syn = _index(tmp, old, graph, emb, syn, progress=_slice(progress, split, 0.97),
                                                   runner=runner)
            save_graph(graph, tmp / GRAPH_FILE)
            if old.questions_path is not None:
                shutil.copy2(old.questions_path, tmp / "questions.json")
            notes = _notes(path, old, res, kept_vectors=(tmp / "index" / "extra").is_dir())
            result = InsertResult(None, tuple(c.id for c in fresh), tuple(dups),
                                  graph.n_nodes - old.graph.n_nodes,
                                  graph.n_edges - old.graph.n_edges, res.n_triples, res.failed, embedded,
                                  notes=loaded.other_notes() + notes + chunk_note, files=files)
            new = _manifest(manifest, loaded, graph, res, index, n_syn, result, seconds=time.perf_counter() - t0)
            atomic_write_json(tmp / MANIFEST, new)
            if progress:
                progress("Swapping the new workspace in", 0.99)
            commit(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    if progress:
        progress("Documents added", 1.0)
    ws = Workspace(path, new)
    ws.__dict__["graph"] = graph
    return InsertResult(ws, result.added, result.duplicates, result.new_nodes, result.new_edges, result.triples,
                        result.failed, embedded, time.perf_counter() - t0, result.notes, files)


# ------------------------------------------------------------------------------------------- checks
def _check_inputs(path: Path, loaded: LoadedGraph) -> None:
    other = {p: f for p, f in loaded.formats.items() if f not in CORPUS_FORMATS}
    if other or loaded.graph.n_edges or loaded.graph.n_nodes:
        p, f = next(iter(other.items())) if other else next(iter(loaded.formats.items()))
        raise InputFormatError(Path(p).name, f"this is a {f.replace('_', ' ')} file, and workspace {path.name!r} "
                               "was built from a corpus (its triples are extracted from passages)",
                               f"{CORPUS_FILES}; to add triples or a graph, rebuild the workspace with all the files")


def _new_passages(old: KnowledgeGraph, new: KnowledgeGraph) -> tuple[list[Chunk], list[str]]:
    """The passages of ``new`` to add, and the ids of those skipped as duplicates: the same id with the same
    text, or the same title and text under another id (a build would keep that second copy; an upload of a
    file already added under another name is what it usually is, and a copy only doubles the dense hits)."""
    have = {(c.title, c.text) for c in old.chunks}
    fresh: list[Chunk] = []
    dups: list[str] = []
    for c in new.chunks:
        if c.id in old.chunk_index and (old.chunk(c.id).title, old.chunk(c.id).text) != (c.title, c.text):
            raise InputFormatError(
                f"passage {c.id!r}", "the workspace already holds another passage under this id",
                "new passages with ids of their own (ids default to <file stem>:<position>: rename the file, or give "
                'each record an "id")')
        if c.id in old.chunk_index or (c.title, c.text) in have:
            dups.append(c.id)
            continue
        have.add((c.title, c.text))
        fresh.append(c)
    return fresh, dups


# ------------------------------------------------------------------------------------------- building
def _merged(old: KnowledgeGraph, fresh: Sequence[Chunk], res: ExtractionResult, *,
            drop_synonyms: bool) -> KnowledgeGraph:
    """The old graph with the new passages and their triples (synonym edges dropped when they are computed
    again, so they come after every extracted edge, as in a build)."""
    edges = None
    if drop_synonyms:
        edges = [e for e in range(old.n_edges) if old.edge_relation[e] != SYNONYM_RELATION or old.edge_chunks[e]]
    b = GraphBuilder.of(old, edges=edges)
    for c in fresh:
        b.add_chunk(c.title, c.text, chunk_id=c.id)
    add_extracted(b, res)
    return b.build()


def _index(tmp: Path, old: Workspace, graph: KnowledgeGraph, emb: Embedder | None, syn: Mapping[str, Any] | None, *,
           progress: Progress | None, runner: BatchRunner | None
           ) -> tuple[dict[str, Any] | None, dict[str, int], KnowledgeGraph, int | None]:
    """The new index in ``tmp/index`` (old rows reused by text, the rest embedded) and the synonym edges
    over the merged nodes: the manifest's index section, the counts embedded, the final graph, the number
    of synonym edges (None when the workspace stores none)."""
    if emb is None:
        return None, {}, graph, None
    reuse = old.index_problem(emb) is None
    texts: dict[ItemKind, Callable[[KnowledgeGraph], Sequence[str]]] = {
        "nodes": lambda g: g.node_texts, "edges": lambda g: g.edge_texts,
        "chunks": lambda g: [c.passage for c in g.chunks]}
    if syn is not None and str(syn.get("embedder") or emb.name) != emb.name:
        raise WorkspaceError(f"Workspace {old.name!r} stores synonym edges computed with {syn.get('embedder')!r} but "
                             f"is indexed with {emb.name!r}; rebuild it: {rebuild_command(old.path, old.meta)}.")
    (tmp / "index").mkdir()
    if reuse:
        carry_stale(old.index_dir / "extra", tmp / "index" / "extra")
    builds: list[IndexBuild] = []
    kept = {str(b.get("kind")): b for b in old.meta.index_builds} if reuse else {}
    embedded: dict[str, int] = {}
    n_syn: int | None = None
    for i, kind in enumerate(ITEM_KINDS):  # nodes first: the synonym edges are computed from their vectors
        t0 = time.perf_counter()
        index, n = _reused_rows(old, kind, texts[kind], graph, emb, reuse=reuse, runner=runner,
                                progress=_slice(progress, i / 3, (i + 1) / 3))
        index.save(tmp / "index" / f"{kind}.faiss")
        builds.append(_timing(kind, n, time.perf_counter() - t0, kept.get(kind)))
        embedded[kind] = n
        if kind == "nodes" and syn is not None:
            graph, n_syn = add_synonym_edges(graph, index.vectors, float(syn["threshold"]))
    section = index_manifest(emb, graph, builds, reason="documents added" if reuse else
                             "documents added (the stored index did not match: everything was embedded)")
    return section, embedded, graph, n_syn


MIN_TIMED_TEXTS = 10  #: texts an add must embed for its timing to stand as the embedding rate (else the old one)


def _timing(kind: str, embedded: int, seconds: float, old: Mapping[str, Any] | None) -> IndexBuild:
    """The manifest's timing of ``kind`` after an add: what it embedded now and how long that took (not the whole
    index: the reused rows cost nothing, and ``items / seconds`` is the rate that estimates the next embedding —
    FastInsight's node vectors, a re-index). An add of a few texts times too little to stand as a rate: the
    previous build's timing is kept (an add of 1 passage read as 0.1 ms per text and let a 1,161-text embedding
    start unasked as "quick")."""
    if embedded < MIN_TIMED_TEXTS and old is not None and int(old.get("items") or 0) > 0:
        return IndexBuild(kind, int(old["items"]), float(old.get("seconds") or 0.0))
    return IndexBuild(kind, embedded, seconds)


def _reused_rows(old: Workspace, kind: ItemKind, texts_of: Callable[[KnowledgeGraph], Sequence[str]],
                 graph: KnowledgeGraph, emb: Embedder, *, reuse: bool, runner: BatchRunner | None,
                 progress: Progress | None) -> tuple[VectorIndex, int]:
    """The index of ``kind`` for ``graph``: a text the old index holds gets its old row, the others are
    embedded now (the number embedded is returned)."""
    texts = texts_of(graph)
    src = np.full(len(texts), -1, dtype=np.int64)
    if reuse:
        row: dict[str, int] = {}
        for j, t in enumerate(texts_of(old.graph)):
            row.setdefault(t, j)
        src = np.fromiter((row.get(t, -1) for t in texts), dtype=np.int64, count=len(texts))
    missing = np.flatnonzero(src < 0)
    todo = [texts[int(i)] for i in missing]
    if runner is not None and todo:
        vecs = runner.embed(emb, {kind: todo}, progress)[kind]
    else:
        vecs = embed_texts(todo, emb, progress=progress, label=f"new {kind}")
    old_vectors = old.index(kind).vectors if reuse else None

    def fill(out: np.ndarray) -> None:
        keep = np.flatnonzero(src >= 0)
        if len(keep) and old_vectors is not None:
            out[keep] = old_vectors[src[keep]]
        if len(missing):
            out[missing] = vecs

    return VectorIndex.build(len(texts), emb.dim, fill), len(todo)


def _manifest(manifest: Mapping[str, Any], loaded: LoadedGraph, graph: KnowledgeGraph, res: ExtractionResult,
              index: dict[str, Any] | None, n_syn: int | None, result: InsertResult, *,
              seconds: float) -> dict[str, Any]:
    """The old manifest brought up to date: sources, graph hashes and sizes, extraction counts, synonym edges,
    the new index, and a record of this insert."""
    m: dict[str, Any] = json.loads(json.dumps(manifest))
    added = {Path(p).name: f for p, f in loaded.formats.items()}
    m["sources"] = {**(m.get("sources") or {}), **added}
    m["graph"] = {**(m.get("graph") or {}), "file": GRAPH_FILE, "content_hash": graph.content_hash,
                  "nodes": graph.n_nodes, "edges": graph.n_edges, "chunks": graph.n_chunks,
                  "provenance_hash": graph.provenance_hash}
    ex = m["extraction"]
    for key, more in (("triples", res.n_triples), ("from_cache", res.from_cache), ("extracted", res.extracted),
                      ("failed_chunks", len(res.failed))):
        ex[key] = int(ex.get(key) or 0) + more
    ex["failed_chunk_ids"] = [*(ex.get("failed_chunk_ids") or []), *res.failed][:100]
    if n_syn is not None:
        m["synonyms"] = {**m["synonyms"], "edges": n_syn}
    if index is not None:
        m["index"] = index
    else:
        m.pop("index", None)
    if res.failed:
        m["warnings"] = [*(m.get("warnings") or []),
                         *(n for n in result.notes if n.startswith("Triple extraction failed"))]
    # a file all of whose passages were left out added nothing: reports of older runs name sources as "added"
    gave = {str(f.get("file")) for f in result.files if not f.get("error") and f.get("passages") != 0}
    record = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "sources": {n: f for n, f in added.items()
                                                                                 if n in gave},
              "added": len(result.added), "duplicates": result.n_duplicates, "new_nodes": result.new_nodes,
              "new_edges": result.new_edges, "embedded": dict(result.embedded), "seconds": round(seconds, 3)}
    m["inserts"] = [*(m.get("inserts") or []), record][-KEEP_INSERTS:]
    m["files"] = [*(m.get("files") or []), *result.files]  # what became of each file, as a build of all of them says
    m.setdefault("chunking", chunking_settings())  # how the added passages were split
    return m


def dropped_on_insert(path: Path) -> list[str]:
    """What an insert into the workspace at ``path`` does not keep, in words: the methods' own folders (trained models,
    :attr:`Method.artifacts`) belong to the old graph; ``index/extra`` vectors are carried over stale instead. Said
    before the click too (audit 43 lost a ReG model trained a minute before, said only in the insert's outcome)."""
    return [why for name, why in method_folders().items() if (path / name).exists()]


def _notes(path: Path, old: Workspace, res: ExtractionResult, *, kept_vectors: bool) -> tuple[str, ...]:
    notes = []
    if res.failed:
        notes.append(f"Triple extraction failed for {plural(len(res.failed), 'added passage')} (the extractor's output stayed "
                     "unusable), so they have no triples. Failures are not cached: rebuild the workspace with all its "
                     "files (egx index ... --overwrite) to retry just those.")
    dropped = dropped_on_insert(old.path)
    if dropped:
        notes.append("Derived from the previous graph, so not kept: " + "; ".join(dropped) + ".")
    if kept_vectors:
        notes.append("The methods' cached vectors (FastInsight's node vectors) are kept: their first use embeds "
                     "again only the texts the new passages changed.")
    return tuple(notes)


def _extraction_share(fresh: Sequence[Chunk], extractor: TripleExtractor, emb: Embedder | None) -> float:
    """Where on the progress bar extraction ends and embedding begins (from estimated costs, as a build)."""
    if emb is None:
        return 0.97
    ext = len(fresh) * EXTRACT_SECONDS.get(str(extractor.name), LLM_EXTRACT_SECONDS)
    chars = sum(len(c.passage) for c in fresh) * 1.5
    cost = chars * EMBED_SECONDS_PER_CHAR + len(fresh) * 8 * EMBED_SECONDS_PER_ITEM
    return LOAD_SHARE + (0.97 - LOAD_SHARE) * ext / (ext + cost) if ext + cost > 0 else LOAD_SHARE


def _slice(progress: Progress | None, lo: float, hi: float) -> Progress | None:
    """``progress`` mapped into ``[lo, hi]`` of the whole bar."""
    outer = progress
    return None if outer is None else (lambda msg, frac: outer(msg, lo + (hi - lo) * min(max(frac, 0.0), 1.0)))
