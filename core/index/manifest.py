"""A workspace's ``manifest.json``: its file names, reading it, and the index folder it names.

The manifest is written last, so a folder holding a readable one of this format provably is a
complete workspace (:func:`is_workspace`); everything else in it is found through the manifest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.errors import WorkspaceError

MANIFEST = "manifest.json"
GRAPH_FILE = "graph.json.gz"
FORMAT_VERSION = 1


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


def index_dirname(manifest: dict[str, Any]) -> str:
    """The folder of the current index the manifest names (``index`` by default; never a path)."""
    name = str((manifest.get("index") or {}).get("dir") or "index")
    return name if name == "index" or (name.startswith("index.") and "/" not in name) else "index"
