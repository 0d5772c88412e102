"""Listing workspaces: the sample recipes (built or not) and the user's built workspaces under a root."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import WorkspaceError
from core.index.commit import recover_all
from core.index.manifest import MANIFEST
from core.index.paths import workspaces_root
from core.index.samples import sample_recipes
from core.index.workspace import Workspace


@dataclass(frozen=True)
class WorkspaceInfo:
    """One entry of :func:`list_workspaces` (``summary``: the manifest's ``graph`` section, when built)."""

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


def workspace_names(root: Path | None = None) -> list[str]:
    """Names of the built workspaces under ``root`` (never hidden folders or debris)."""
    root = root or workspaces_root()
    if not root.exists():
        return []
    return sorted(p.name for p in root.iterdir() if not p.name.startswith(".") and (p / MANIFEST).is_file())
