"""Creating a workspace from input files: load them, extract triples from a plain corpus, optionally
add synonym edges, embed the indexes, and commit the folder — all of it, or nothing.

:func:`create_workspace` is the one public function; each stage is a named step below it.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import WorkspaceError
from core.fsio import atomic_write_bytes, atomic_write_json, temp_sibling
from core.graph.builder import build_kg_from_corpus
from core.graph.chunking import PassageSplit, chunking_settings
from core.graph.formats.load import LoadedGraph, load_inputs
from core.graph.model import KnowledgeGraph
from core.graph.stores.store import StoreURL, parse_store_url
from core.index.commit import check_target, commit, recover, workspace_lock
from core.index.graph_files import save_graph
from core.index.indexing import Progress, build_indexes, index_manifest
from core.index.manifest import BUILD_STAGES, FORMAT_VERSION, GRAPH_FILE, MANIFEST
from core.index.paths import cache_dir
from core.index.stages import StageTimes
from core.index.vector_index import embed_texts
from core.index.workspace import Workspace

if TYPE_CHECKING:
    from core.backends.base import BatchRunner, Embedder, TripleExtractor

#: The progress bar's share for reading the inputs (seconds, against minutes of embedding).
LOAD_SHARE = 0.03
#: Estimated seconds per chunk of triple extraction, and per character / item of embedding: only the
#: *split* of the progress bar between the two stages depends on them (the ETA is measured).
#: spaCy's figure is its measured rate on the MuSiQue passages, one process (68 passages/s, benchmarks/README.md
#: "Corpus → KG without an LLM"); counted at the LLM's 3 s a chunk it held 99 % of a 6k-passage build's bar, so
#: the bar read 99 % ("6 s left") when minutes of embedding were still to come.
EXTRACT_SECONDS = {"rules": 0.002, "spacy": 1 / 68}
LLM_EXTRACT_SECONDS = 3.0
#: The embedding figures are bge-small's (the default embedder) on 2 shared cores: the three indexes of 1,000
#: MuSiQue passages (9,123 nodes, 11,631 edges) took 45.3 s (benchmarks/build_stages.py), twice what the
#: earlier 2e-5 s a character and 1 ms an item said, which put the bar at 42 % when 26 % of the time was spent.
EMBED_SECONDS_PER_CHAR = 4e-5
EMBED_SECONDS_PER_ITEM = 2e-3


def create_workspace(inputs: Sequence[str | Path], path: str | Path, *, name: str | None = None,
                     title: str = "", description: str = "", embedder: Embedder | None = None,
                     extractor: TripleExtractor | None = None, questions: str | Path | None = None,
                     overwrite: bool = False, progress: Progress | None = None,
                     extra_manifest: dict[str, Any] | None = None,
                     synonym_threshold: float | None = None, store: str | None = None,
                     runner: BatchRunner | None = None, passages: PassageSplit | None = None) -> Workspace:
    """Load ``inputs``, build the graph (extracting triples from a plain corpus) and the indexes,
    and write a complete workspace at ``path`` — or nothing at all if anything fails.

    Parameters
    ----------
    inputs
        Files/folders in any format :func:`core.graph.formats.load.load_inputs` accepts.
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
        rename, :func:`core.graph.stores.falkor_load.load_graph_into`) instead of ``graph.json.gz``; the vectors
        stay in the workspace's FAISS files. The password comes from ``EGX_FALKORDB_PASSWORD``.
        ``None``: the graph is kept in the workspace folder (the default).
    runner
        Where embedding and triple extraction run (:class:`~core.backends.base.BatchRunner`; ``egx index
        --ray`` passes :class:`core.batch.ray_runner.RayRunner`). ``None``: in this process. The workspace is the
        same either way; the manifest's ``index.runner`` / ``extraction.runner`` record where it ran.
    passages
        How documents (.txt, .md, .pdf, .html, .docx) are split into passages
        (:class:`~core.graph.chunking.PassageSplit`; default: paragraphs packed up to 1,200 characters); recorded
        in the manifest's ``chunking``, so documents added later are split alike. A JSON(L) corpus's passages
        stay whole.
    overwrite
        Replace an existing workspace (the old one is removed only after the new one is complete).
        Only a folder that provably is a workspace (holds the manifest egx writes) is replaced;
        anything else at ``path`` is refused and left untouched.

    Raises
    ------
    InputFormatError, EmptyGraphError
        On bad inputs or a bad questions file (raised before anything is written).
    WorkspaceError
        If ``path`` exists and ``overwrite`` is False (also when another build created it
        meanwhile: a second upload under one name never replaces the first), or ``path`` is not a
        folder egx may replace (``..``, ``/``, a file, a folder that is not a workspace).

    Notes
    -----
    A per-workspace lock (:func:`~core.index.commit.workspace_lock`) is held for the whole build, so
    two builds of one workspace (app sessions are threads of one process) run one after the other.
    The workspace is built in a unique hidden sibling and swapped in atomically
    (:func:`core.fsio.exchange`; where the file system cannot, two renames whose interruption
    :func:`~core.index.commit.recover` undoes).
    """
    path = Path(path)
    store_url = parse_store_url(store) if store else None  # a bad URL fails before any work
    check_target(path, overwrite)
    if questions is not None:  # a corpus given as the questions is refused before the build, not after it
        from core.index.questions import check_questions_file

        check_questions_file(questions)
    step = _Stepper(progress)
    times = StageTimes()
    path.parent.mkdir(parents=True, exist_ok=True)
    with workspace_lock(path):
        recover(path, locked=True)
        check_target(path, overwrite)  # again, under the lock: another build may have finished
        with times.stage("read inputs"):
            loaded = load_inputs(inputs, name=name or path.name, progress=step.sub(0.0, LOAD_SHARE),
                                 passages=passages)
        graph = loaded.graph
        warnings = list(loaded.warnings)
        extraction: dict[str, Any] | None = None
        extract = graph.kind == "kg" and graph.n_edges == 0 and graph.n_chunks > 0
        split = _extraction_share(graph, extractor if extract else None, embedder, extract=extract)
        if extract:
            with times.stage(f"triple extraction ({getattr(extractor, 'name', 'spacy')})", graph.n_chunks):
                graph, extraction, notes = _extract_triples(graph, extractor, progress=step.sub(LOAD_SHARE, split),
                                                            runner=runner)
            warnings += notes
        synonyms: dict[str, Any] | None = None
        if synonym_threshold is not None and graph.n_nodes > 1:
            with times.stage("synonym edges", graph.n_nodes):
                graph, synonyms = _add_synonyms(graph, embedder, synonym_threshold, progress=step.sub(0.5, 0.55),
                                                runner=runner)
        tmp = temp_sibling(path, "building")
        try:
            tmp.mkdir()
            if store_url is None:
                with times.stage("graph file"):
                    save_graph(graph, tmp / GRAPH_FILE)
            if questions is not None:
                _copy_questions(Path(questions), tmp / "questions.json")
            manifest = _manifest(path, loaded, graph, name=name, title=title, description=description,
                                 warnings=warnings, extraction=extraction, synonyms=synonyms,
                                 extra_manifest=extra_manifest, passages=passages)
            if embedder is not None:
                builds = build_indexes(tmp, graph, embedder, progress=step.sub(split, 1.0), runner=runner)
                manifest["index"] = index_manifest(embedder, graph, builds, reason="new workspace", runner=runner)
                for b in builds:
                    times.add(f"index/{b.kind}", b.seconds, b.items)
            if store_url is not None:  # last: a failed build never touches the store's graph
                with times.stage("graph store"):
                    _load_into_store(manifest, graph, store_url, overwrite=overwrite, owner=path)
            manifest[BUILD_STAGES] = times.to_list()
            atomic_write_json(tmp / MANIFEST, manifest)
            commit(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    if progress:
        progress("Workspace ready", 1.0)
    ws = Workspace(path, manifest)
    ws.__dict__["graph"] = graph  # already in memory
    return ws


def _extract_triples(graph: KnowledgeGraph, extractor: TripleExtractor | None, *, progress: Progress | None,
                     runner: BatchRunner | None) -> tuple[KnowledgeGraph, dict[str, Any], list[str]]:
    """Extract triples from a corpus without any (BubbleRAG §3.1): the graph with them, the manifest's
    ``extraction`` section, and the warnings for the manifest."""
    warnings: list[str] = []
    if extractor is None:
        from core.backends.registry import get_extractor

        extractor = get_extractor("spacy")
        warnings.append("No LLM configured: triples were extracted with the spaCy extractor (named "
                        "entities and noun chunks linked by relations from the dependency parse, plus "
                        "title→entity links). An LLM extractor ('local' or 'openai') finds more relations.")
    graph, res = build_kg_from_corpus(graph, extractor, cache_dir=cache_dir() / "extraction",
                                      progress=progress, runner=runner)
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
    return graph, extraction, warnings


def _add_synonyms(graph: KnowledgeGraph, embedder: Embedder | None, threshold: float, *,
                  progress: Progress | None, runner: BatchRunner | None) -> tuple[KnowledgeGraph, dict[str, Any]]:
    """HippoRAG's synonymy edges (§3.1) stored in the graph: the graph with them, and the manifest's
    ``synonyms`` section."""
    from core.graph.synonyms import add_synonym_edges

    if embedder is None:
        raise WorkspaceError("Synonym edges compare node-name embeddings: give an embedder "
                             "(egx index --embedder NAME) or leave --synonyms out.")
    if not -1.0 <= threshold <= 1.0:
        raise WorkspaceError(f"The synonym threshold is a cosine in [-1, 1], got {threshold}; "
                             "HippoRAG uses 0.8.")
    t0 = time.perf_counter()
    if runner is not None:
        vecs = runner.embed(embedder, {"node names": list(graph.node_texts)}, progress)["node names"]
    else:
        vecs = embed_texts(list(graph.node_texts), embedder, progress=progress, label="node names")
    graph, n_syn = add_synonym_edges(graph, vecs, threshold)
    return graph, {"threshold": threshold, "edges": n_syn, "embedder": embedder.name,
                   "seconds": round(time.perf_counter() - t0, 2)}


def _copy_questions(source: Path, target: Path) -> None:
    """Copy a questions file in, once it has been read as JSON (a bad one fails the build); a JSONL file's records
    as one JSON list, the form ``questions.json`` is read in."""
    from core.index.questions import questions_json_bytes

    atomic_write_bytes(target, questions_json_bytes(source))


def _manifest(path: Path, loaded: LoadedGraph, graph: KnowledgeGraph, *, name: str | None, title: str,
              description: str, warnings: list[str], extraction: dict[str, Any] | None,
              synonyms: dict[str, Any] | None, extra_manifest: dict[str, Any] | None,
              passages: PassageSplit | None = None) -> dict[str, Any]:
    """The new workspace's manifest, but for its ``index`` and ``store`` sections."""
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
        "chunking": chunking_settings(passages),
        "files": [f.to_dict() for f in loaded.files],  # what became of each input file (the app's table)
    }
    if extraction:
        manifest["extraction"] = extraction
    if synonyms:
        manifest["synonyms"] = synonyms
    if extra_manifest:
        manifest.update(extra_manifest)
    return manifest


def _load_into_store(manifest: dict[str, Any], graph: KnowledgeGraph, url: StoreURL, *, overwrite: bool,
                     owner: Path) -> None:
    """Write the graph into the FalkorDB graph ``url`` and name it in ``manifest`` in place of
    ``graph.json.gz``."""
    from core.graph.stores.falkor_load import load_graph_into

    manifest["graph"] = {**manifest["graph"], "file": None, "store": str(url)}
    manifest["store"] = {"kind": "falkordb", "url": str(url),
                         "load": load_graph_into(graph, url, overwrite=overwrite, owner=str(Path(owner).resolve()))}


def _extraction_share(graph: KnowledgeGraph, extractor: TripleExtractor | None, embedder: Embedder | None, *,
                      extract: bool) -> float:
    """Where on the progress bar extraction ends and embedding begins, from the estimated cost of
    each (a triples upload goes straight on to embedding: no jump to 50 % for a stage it skips)."""
    if not extract:
        return LOAD_SHARE
    if embedder is None:
        return 1.0
    name = getattr(extractor, "name", "rules") if extractor is not None else "spacy"  # _extract_triples' default
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

