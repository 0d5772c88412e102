"""A workspace's ``graph.json.gz``: writing it, reading it, and the command that rebuilds a damaged one."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

from core.errors import EgxError, WorkspaceError
from core.fsio import atomic_writer
from core.graph.formats.bounds import InputLimits, open_input
from core.graph.graph_builder import graph_from_dict
from core.graph.model import KnowledgeGraph
from core.graph.stores.store import MEMORY_URL
from core.index.manifest import Manifest


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
    store = Manifest(manifest).store_url
    return (f"`egx index {sources} --workspace {path}{f' --store {store}' if store != MEMORY_URL else ''} "
            "--overwrite`")


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
        return graph_from_dict(data, source=path.name)
    except (EgxError, OSError, EOFError, zlib.error, ValueError, RecursionError) as exc:
        why = str(exc) if isinstance(exc, EgxError) else f"{type(exc).__name__}: {exc}"
        raise WorkspaceError(f"This workspace is damaged: {path} cannot be read ({why}). {fix}") from None
