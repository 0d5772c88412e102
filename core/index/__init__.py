"""FAISS vector indexes over nodes / enriched edges / chunks, persisted in workspace folders."""

from __future__ import annotations

from core.index.create import create_workspace
from core.index.listing import list_workspaces
from core.index.samples import ensure_sample_workspace, sample_recipes
from core.index.vector_index import VectorIndex, embed_texts
from core.index.workspace import Workspace

__all__ = ["VectorIndex", "Workspace", "create_workspace", "embed_texts", "ensure_sample_workspace",
           "list_workspaces", "sample_recipes"]
