"""What adding documents checks against a workspace's record before it reads a file (:mod:`core.index.insert`):
whether the workspace can take more documents at all (:func:`insert_problem`: a graph store, a bundled sample, a
workspace not built from a corpus), and that new passages are split, extracted and embedded as the old ones were
(the recorded passage split, extractor and embedder), else why not and the command that rebuilds it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import WorkspaceError
from core.graph.chunking import PassageSplit, chunking_settings
from core.graph.stores.store import MEMORY_URL
from core.index.manifest import Manifest

if TYPE_CHECKING:
    from core.backends.base import LLM, Embedder, TripleExtractor


def rebuild_command(path: Path, meta: Manifest, what: str = "") -> str:
    sources, split = " ".join(meta.sources) or "<your input files>", PassageSplit.from_record(meta.chunking)
    more = "" if split == PassageSplit() else f" --passages {split.spec}"  # rebuilt as it was split
    return f"`egx index {sources} {what or 'NEW_FILES'} --workspace {path}{more} --overwrite`"


def insert_problem(path: str | Path, meta: Manifest, *, app: bool = False) -> str | None:
    """Why documents cannot be added to the workspace at ``path`` (with what to do instead), or None when
    they can: a graph store, a bundled sample, or a workspace not built from a corpus. With ``app`` the fix
    is the app's (build a new workspace on the Upload tab) instead of an ``egx index`` command line."""
    path = Path(path)
    upload = "Build a new workspace from all the files on the Upload tab instead."
    if meta.store_url != MEMORY_URL:
        why = (f"Workspace {path.name!r} keeps its graph in a graph store; adding documents works on workspaces "
               "whose graph is in their folder, since the store's graph and the folder's index could not be "
               "replaced together atomically.")
        return f"{why} {upload}" if app else (f"{why[:-1]} ({meta.store_url}). Rebuild it with all the files: "
                                              f"{rebuild_command(path, meta)} --store {meta.store_url}.")
    if meta.data.get("sample"):
        why = (f"Workspace {path.name!r} is a bundled sample: it is rebuilt from its recipe whenever that changes, "
               "which would drop what you add.")
        return (f"{why} Build a workspace of your own from the sample's files and yours on the Upload tab." if app else
                f"{why} Build a workspace of your own from the sample's files and yours: {rebuild_command(path, meta)}.")
    kind = str((meta.data.get("graph") or {}).get("kind") or "kg")
    if kind != "kg" or meta.extraction is None:
        built = "a corpus graph (nodes are passages)" if kind != "kg" else "triples or a graph file"
        why = (f"Workspace {path.name!r} was built from {built}, not from a corpus whose triples egx extracted; "
               "documents can only be added to a corpus workspace.")
        return f"{why} {upload}" if app else f"{why} Rebuild it with all the files instead: {rebuild_command(path, meta)}."
    return None


def check_chunking(path: Path, meta: Manifest) -> tuple[tuple[str, ...], PassageSplit]:
    """Refuse when this egx would split documents otherwise than the workspace's build did; a note when the
    workspace (built before the sizes were recorded) cannot say. Then its split of documents (the default if none)."""
    rec, split = meta.chunking, PassageSplit.from_record(meta.chunking)
    if rec is None:
        return (f"Workspace {path.name!r} does not record how its documents were split (an older egx built it); the "
                f"added ones were split with today's sizes {chunking_settings()}.",), split
    if {**rec, "documents": None} != {**chunking_settings(), "documents": None}:
        raise WorkspaceError(f"Workspace {path.name!r} split its documents with {dict(rec)}, this egx splits them with "
                             f"{chunking_settings()}: added passages would not match. Rebuild it with all the files: "
                             f"{rebuild_command(path, meta)}.")
    return (), split


def recorded_extractor(path: Path, meta: Manifest, extractor: TripleExtractor | None,
                        llm: LLM | None) -> TripleExtractor:
    """The extractor the workspace was built with (checked when given)."""
    from core.backends.registry import get_extractor

    recorded = str((meta.extraction or {}).get("extractor") or "")
    if not recorded:
        raise WorkspaceError(f"Workspace {path.name!r} does not record which extractor built its graph (an older "
                             f"egx wrote it), so new passages could not be extracted alike. Rebuild it with all the "
                             f"files: {rebuild_command(path, meta)}.")
    if extractor is None:
        name = recorded.split(":", 1)[0]
        if name == "llm" and (llm is None or not llm.available):
            raise WorkspaceError(f"Workspace {path.name!r} was extracted by an LLM ({recorded}); give that LLM "
                                 "(egx index ... --add --llm NAME, or pick it in the app's sidebar).")
        extractor = get_extractor(name, llm=llm)
    got = f"{extractor.name}:{extractor.model_id}"
    older = recorded.split(":", 1)[0] == extractor.name != "llm"  # its rules changed since: it exists no more
    if got != recorded:
        raise WorkspaceError(f"Workspace {path.name!r} was " + (
            f"extracted by an older version of the {extractor.name} extractor ({recorded!r}; this egx has {got!r}), "
            "whose triples new passages would not match. Rebuild it" if older else
            f"extracted with {recorded!r}, not {got!r}: passages extracted by another model would not merge alike. "
            "Use the recorded extractor (leave --extractor out), or rebuild") + f" with all the files: "
            f"{rebuild_command(path, meta)}.")
    return extractor


def recorded_embedder(path: Path, meta: Manifest, embedder: Embedder | None) -> Embedder | None:
    """The embedder of the workspace's index (checked when given); None when it has no index yet."""
    from core.backends.registry import get_embedder

    if meta.index is None:
        return None  # the index is built on first open, as it would have been
    want = meta.index_model_id
    if embedder is None:
        if not meta.index_embedder:
            raise WorkspaceError(f"Workspace {path.name!r} does not record its embedder's name; give it "
                                 "(egx index ... --add --embedder NAME).")
        embedder = get_embedder(meta.index_embedder)
    if embedder.model_id != want or embedder.dim != (meta.index or {}).get("dim"):
        raise WorkspaceError(f"Workspace {path.name!r} is indexed with {want!r}, not {embedder.model_id!r}: one index "
                             "holds vectors of one model. Add with the recorded embedder (leave --embedder out; in the "
                             "app pick it in the sidebar), or re-index the workspace first (egx index --workspace "
                             f"{path} --embedder NAME).")
    return embedder
