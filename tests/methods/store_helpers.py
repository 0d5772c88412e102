"""Shared by the graph-store tests: a workspace and its copy whose graph lives in FalkorDB, and
a guard that fails a test when the whole graph is read from the store."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from core.graph.stores.falkor import FalkorStore
from core.index.samples import ensure_sample_workspace
from core.index.workspace import Workspace


def no_whole_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make reading the whole graph from a FalkorDB store fail the test."""
    def refuse(self: FalkorStore) -> None:
        raise AssertionError(f"the whole graph was read from {self.url}")

    monkeypatch.setattr(FalkorStore, "graph", refuse)
    monkeypatch.setattr(FalkorStore, "_read_all", refuse)


def store_pair(sample: str, root: Path, server: Any, emb: Any, graph: str, *,
               drop_method_vectors: bool = False) -> tuple[Workspace, Workspace]:
    """The sample ``sample`` in memory, and a copy moved into the FalkorDB graph ``graph`` of ``server``
    (``drop_method_vectors``: without the copied methods' own vector caches, so the store builds them)."""
    mem = ensure_sample_workspace(sample, emb, root=root / "mem")
    dst = root / "store" / sample
    shutil.copytree(mem.path, dst)
    if drop_method_vectors:
        shutil.rmtree(Workspace.open(dst).index_dir / "extra", ignore_errors=True)
    Workspace.open(dst).move_to_store(server.url(graph), overwrite=True)
    return mem, Workspace.open(dst)


def user_store_workspace(home: Path, server: Any, graph: str, emb: Any, *, name: str = "stored",
                         title: str = "Stored demo") -> Workspace:
    """The demo sample (its questions included) copied into the app's ``home`` as the user workspace
    ``name`` and moved into the FalkorDB graph ``graph`` of ``server`` (for the app's store tests)."""
    import json

    from core.index.manifest import MANIFEST

    src = ensure_sample_workspace("demo", emb, root=home.parent / "built")
    dst = home / "workspaces" / name
    shutil.copytree(src.path, dst)
    manifest = json.loads((dst / MANIFEST).read_text())  # a user workspace now, not the sample
    manifest.update(name=name, title=title)
    manifest.pop("sample", None)
    (dst / MANIFEST).write_text(json.dumps(manifest))
    Workspace.open(dst).move_to_store(server.url(graph), overwrite=True)
    return Workspace.open(dst)
