"""A workspace's ``manifest.json``: its file names, reading it, and the index folder it names.

The manifest is written last, so a folder holding a readable one of this format provably is a
complete workspace (:func:`is_workspace`); everything else in it is found through the manifest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import WorkspaceError
from core.graph.chunking import PassageSplit, few_passages_warning
from core.graph.stores.store import MEMORY_URL

MANIFEST = "manifest.json"
GRAPH_FILE = "graph.json.gz"
FORMAT_VERSION = 1
#: the manifest key of a build's stage times: ``[{"stage", "seconds"[, "items"]}]`` (:mod:`core.index.stages`)
BUILD_STAGES = "build_stages"


@dataclass(frozen=True)
class Manifest:
    """A workspace's manifest read by attribute: each section's fields, typed, with the value an older
    manifest that lacks them gets. The file stays the JSON object egx writes (``data``); code reads it
    through this type, so renaming a key breaks a type check, not a page at run time."""

    data: Mapping[str, Any]

    def _section(self, key: str) -> Mapping[str, Any]:
        v = self.data.get(key)
        return v if isinstance(v, dict) else {}

    # ------------------------------------------------------------------ what the workspace is
    @property
    def name(self) -> str:
        return str(self.data.get("name") or "")

    @property
    def title(self) -> str:
        return str(self.data.get("title") or "")

    @property
    def description(self) -> str:
        return str(self.data.get("description") or "")

    @property
    def warnings(self) -> list[str]:
        return [str(w) for w in self.data.get("warnings") or []]

    @property
    def attribution(self) -> str:
        return str(self.data.get("attribution") or "")

    @property
    def sources(self) -> Mapping[str, Any]:
        """Input file name → what it held (a built workspace's inputs)."""
        return self._section("sources")

    @property
    def sample(self) -> bool:
        """Built from a bundled sample's recipe (``sample_data/<name>``)."""
        return bool(self.data.get("sample"))

    @property
    def files(self) -> list[dict[str, Any]]:
        """What became of each input file (``{file, format, passages, error}``; a build's, then each insert's)."""
        files = self.data.get("files")
        return [dict(f) for f in files if isinstance(f, Mapping)] if isinstance(files, list) else []

    @property
    def questions_file(self) -> Mapping[str, Any]:
        """The questions file put in place of the build's (``{file, questions, replaced_at}``;
        :func:`core.index.questions_file.replace_questions`), empty when the build's is kept."""
        return self._section("questions_file")

    @property
    def inserts(self) -> list[dict[str, Any]]:
        """One record per "Add documents" (``{at, sources: {file: format}, added, duplicates, ...}``, oldest first;
        the last 50 are kept)."""
        v = self.data.get("inserts")
        return [dict(r) for r in v if isinstance(r, Mapping)] if isinstance(v, list) else []

    @property
    def recipe_hash(self) -> str | None:
        """A bundled sample's recipe hash (None for a workspace built from uploads)."""
        v = self.data.get("recipe_hash")
        return None if v is None else str(v)

    # ------------------------------------------------------------------ the graph
    @property
    def store_url(self) -> str:
        """``memory:`` or the graph store's URL (never with a password)."""
        return str(self._section("store").get("url") or MEMORY_URL)

    @property
    def content_hash(self) -> str:
        return str(self._section("graph").get("content_hash") or "")

    @property
    def provenance_hash(self) -> str:
        return str(self._section("graph").get("provenance_hash") or "")

    @property
    def n_chunks(self) -> int:
        """How many passages the workspace's graph holds (0 when the manifest does not say)."""
        return int(self._section("graph").get("chunks") or 0)

    @property
    def extraction(self) -> Mapping[str, Any] | None:
        """How the triples were extracted from a corpus (None: the input was a graph)."""
        v = self.data.get("extraction")
        return v if isinstance(v, dict) else None

    @property
    def chunking(self) -> Mapping[str, Any] | None:
        """The chunker's sizes the passages were split with (None: an older egx did not record them)."""
        v = self.data.get("chunking")
        return v if isinstance(v, dict) else None

    @property
    def passages(self) -> PassageSplit:
        """How the workspace's documents were split into passages (the default for an older workspace)."""
        return PassageSplit.from_record(self.chunking)

    def few_passages_warning(self) -> str:
        """:func:`~core.graph.chunking.few_passages_warning` for a workspace built from passages (a corpus or
        documents) that has too few of them to tell methods apart by recall; "" otherwise."""
        from core.graph.formats.documents import DOCUMENT_FORMATS

        read = [f for f in self.files if f.get("passages") is not None and not f.get("error")]
        if not read:
            return ""
        docs = any(f.get("format") in DOCUMENT_FORMATS for f in read)
        return few_passages_warning(int(self._section("graph").get("chunks") or 0),
                                    split=self.passages if docs else None)

    @property
    def synonyms(self) -> Mapping[str, Any] | None:
        v = self.data.get("synonyms")
        return v if isinstance(v, dict) else None

    @property
    def synonym_edges(self) -> bool:
        """Whether the graph stores HippoRAG synonymy edges."""
        return bool((self.synonyms or {}).get("edges"))

    @property
    def build_stages(self) -> list[Mapping[str, Any]]:
        """Wall seconds of each stage of the build that made the workspace, in order (empty: an older egx
        did not record them)."""
        return [r for r in self.data.get(BUILD_STAGES) or [] if isinstance(r, dict)]

    # ------------------------------------------------------------------ the index
    @property
    def index(self) -> Mapping[str, Any] | None:
        v = self.data.get("index")
        return v if isinstance(v, dict) else None

    @property
    def index_model_id(self) -> str:
        return str((self.index or {}).get("model_id") or "")

    @property
    def index_embedder(self) -> str:
        return str((self.index or {}).get("embedder") or "")

    @property
    def index_builds(self) -> list[Mapping[str, Any]]:
        return [b for b in (self.index or {}).get("builds") or [] if isinstance(b, dict)]


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
                             f"Create one with `egx index <inputs...> --workspace {path}`.",
                             app=f"Workspace {path.name!r} is not a workspace (its manifest is missing). Build it "
                                 "again on the Data page (Upload tab).")
    try:
        manifest = json.loads(mf.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WorkspaceError(f"This workspace is damaged: {mf} cannot be read ({exc}). Delete the folder and "
                             "build it again with `egx index <your input files> --workspace "
                             f"{path}`.",
                             app=f"Workspace {path.name!r} is damaged: its manifest cannot be read. Build it again "
                                 "on the Data page (Upload tab) under the same name.") from None
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


def index_dirname(manifest: dict[str, Any]) -> str:
    """The folder of the current index the manifest names (``index`` by default; never a path)."""
    name = str((manifest.get("index") or {}).get("dir") or "index")
    return name if name == "index" or (name.startswith("index.") and "/" not in name) else "index"
