"""Listing workspaces: the sample recipes (built or not) and the user's built workspaces under a root; one found
by folder, name or sample (:func:`find_workspace`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import UnknownNameError, WorkspaceError
from core.index.commit import recover, recover_all
from core.index.manifest import MANIFEST
from core.index.paths import workspaces_root
from core.index.samples import ensure_sample_workspace, sample_recipes
from core.index.workspace import Workspace

if TYPE_CHECKING:
    from core.backends.base import Embedder

#: ``bar(title)``: the progress callback ``(message, fraction)`` of one build, titled (a terminal bar, say)
Bars = Callable[[str], Callable[[str, float], None]]


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


def find_workspace(ref: str, embedder: Embedder, *, bars: Bars | None = None) -> Workspace:
    """The workspace ``ref`` names: a folder path, a name under $EGX_HOME/workspaces, or a sample (built from its
    recipe when missing), opened and indexed for ``embedder``; ``bars(title)`` reports an indexing or a build.

    Raises
    ------
    UnknownNameError
        When ``ref`` is none of these, listing the samples and the built workspaces.
    """
    def bar(title: str) -> Callable[[str, float], None] | None:
        return bars(title) if bars is not None else None

    p = Path(ref)
    if p.name not in ("", ".", ".."):
        recover(p)  # an interrupted commit is undone before we look
    if (p / MANIFEST).exists():
        ws = Workspace.open(p)
        ws.ensure_index(embedder, progress=bar("index"))
        return ws
    if ref in {r.name for r in sample_recipes()}:
        return ensure_sample_workspace(ref, embedder, progress=bar(f"sample {ref}"))
    named = workspaces_root() / ref
    if ref and "/" not in ref and not ref.startswith("."):
        recover(named)
        if (named / MANIFEST).exists():
            ws = Workspace.open(named)
            ws.ensure_index(embedder, progress=bar("index"))
            return ws
    known = [r.name for r in sample_recipes()]
    known += [n for n in workspace_names() if n not in known]  # never hidden folders or debris
    raise UnknownNameError("workspace", ref, known)
