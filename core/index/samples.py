"""Sample workspaces: *recipes* in ``sample_data/<name>/workspace.json`` (inputs relative to the
recipe), built on first use into ``$EGX_HOME/workspaces/<name>`` and rebuilt when the recipe changes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import EgxError, UnknownNameError
from core.index.commit import workspace_lock
from core.index.create import create_workspace
from core.index.indexing import Progress
from core.index.paths import sample_data_dir, workspaces_root
from core.index.workspace import Workspace
from core.text import content_hash

if TYPE_CHECKING:
    from core.backends.base import BatchRunner, Embedder


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
                            root: Path | None = None, force: bool = False,
                            runner: BatchRunner | None = None) -> Workspace:
    """Open the built sample workspace ``name``, building it from its recipe when missing, stale,
    damaged, or when ``force`` is set (``runner``: where to embed and extract, see :func:`create_workspace`)."""
    recipes = {r.name: r for r in sample_recipes()}
    if name not in recipes:
        raise UnknownNameError("sample workspace", name, sorted(recipes))
    r = recipes[name]
    path = (root or workspaces_root()) / name

    def current() -> Workspace | None:
        try:
            ws = Workspace.open(path)
            if ws.manifest.get("recipe_hash") == r.hash:
                ws.graph  # noqa: B018 - a damaged graph file means: rebuild
                return ws
        except EgxError:
            pass  # stale or broken: rebuild
        return None

    ws = None if force else current()
    if ws is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with workspace_lock(path):  # five sessions opening a fresh home build it once
            ws = None if force else current()
            if ws is None:
                return create_workspace(r.inputs, path, name=r.name, title=r.title, description=r.description,
                                        embedder=embedder, questions=r.questions, overwrite=True,
                                        progress=progress, extra_manifest={"recipe_hash": r.hash, "sample": True,
                                                                           "attribution": r.attribution},
                                        runner=runner)
    if embedder is not None:
        ws.ensure_index(embedder, progress=progress, runner=runner)
    return ws
