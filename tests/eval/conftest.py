"""Fixtures of the evaluation tests."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="module")
def demo_and_upload(tmp_path_factory):  # type: ignore[no-untyped-def]
    """``(embedder, demo, mine)``: the demo sample (hashing embedder) and the same data copied under the name
    "mine", which no shipped recording holds (an upload)."""
    from core.backends.embedders import HashingEmbedder
    from core.index.samples import ensure_sample_workspace
    from core.index.workspace import Workspace

    emb = HashingEmbedder(dim=64)
    root = tmp_path_factory.mktemp("ws")
    ws = ensure_sample_workspace("demo", emb, root=root)
    shutil.copytree(ws.path, root / "mine")
    mine = Workspace.open(root / "mine")
    mine.manifest["name"] = "mine"
    return emb, ws, mine
