"""Embedding a graph's node, edge and chunk texts into a workspace's FAISS files, and the manifest's
record of it.

An index is three FAISS flat files, ``<index dir>/{nodes,edges,chunks}.faiss``, one row per node,
enriched edge "head relation tail" (BubbleRAG §3.1) or chunk passage "title\\ntext", in the graph's
order. The manifest's ``index`` section (:func:`index_manifest`) names the folder, the embedder and
the graph content it was built for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np

from core.errors import WorkspaceError
from core.graph.model import KnowledgeGraph
from core.index.vector_index import ITEM_OVERHEAD_CHARS, VectorIndex, embed_texts

if TYPE_CHECKING:
    from core.backends.base import BatchRunner, Embedder

Progress = Callable[[str, float], None]
ItemKind = Literal["nodes", "edges", "chunks"]
ITEM_KINDS: tuple[ItemKind, ...] = ("nodes", "edges", "chunks")


@dataclass(frozen=True)
class IndexBuild:
    """Timing of one index build, kept in the manifest (items/s is reported by benchmarks)."""

    kind: str
    items: int
    seconds: float

    @property
    def items_per_s(self) -> float:
        return self.items / self.seconds if self.seconds > 0 else float("inf")


@runtime_checkable
class TextPages(Protocol):
    """Texts too many to hold at once (a graph store's node texts): their count, and the texts in
    order, page by page."""

    def __len__(self) -> int: ...

    def pages(self) -> Iterator[list[str]]: ...


def embed_pages(texts: TextPages, embedder: Embedder, progress: Progress | None, label: str,
                out: np.ndarray) -> None:
    """Embed ``texts`` page by page into the rows of ``out`` (a :meth:`VectorIndex.build` fill)."""
    n, start = len(texts), 0
    for page in texts.pages():
        if progress:
            progress(f"Embedding {label}: {start:,}/{n:,}", start / max(n, 1))
        embed_texts(page, embedder, label=label, out=out[start:start + len(page)])
        start += len(page)
    if start != n:
        raise WorkspaceError(f"Embedding {label}: the store gave {start} texts where {n} were expected; the graph "
                             "store changed while it was read. Run again.")
    if progress:
        progress(f"Embedded {n:,} {label}", 1.0)


def embed_into(items: list[str], embedder: Embedder, progress: Progress | None, label: str,
               out: np.ndarray) -> None:
    """Embed ``items`` into the rows of ``out`` (a :meth:`VectorIndex.build` fill)."""
    embed_texts(items, embedder, progress=progress, label=label, out=out)


def build_indexes(path: Path, graph: KnowledgeGraph, embedder: Embedder, *,
                  progress: Progress | None = None, dirname: str = "index",
                  runner: BatchRunner | None = None) -> list[IndexBuild]:
    """Embed nodes, edges and chunks and write ``<dirname>/<kind>.faiss`` under ``path``.

    With a ``runner`` (:class:`~core.backends.base.BatchRunner`) the three kinds are embedded there
    together (e.g. by Ray actors holding the embedder), in the same length-sorted batches; each
    build's seconds are then the share of the whole embedding by the kind's work.
    """
    builds = []
    texts = {"nodes": list(graph.node_texts), "edges": list(graph.edge_texts),
             "chunks": [c.passage for c in graph.chunks]}
    # Each kind's share of the bar is its share of the work: characters (an encoder's cost grows with
    # the text) plus a per-item overhead, so 1,890 long passages weigh what they cost, not 5 %.
    work = {k: float(sum(len(t) for t in v)) + ITEM_OVERHEAD_CHARS * len(v) for k, v in texts.items()}
    total = sum(work.values()) or 1.0
    done = 0.0
    (path / dirname).mkdir(parents=True, exist_ok=True)
    if runner is not None:
        t0 = time.perf_counter()
        vectors = runner.embed(embedder, {k: texts[k] for k in ITEM_KINDS}, progress)
        seconds = time.perf_counter() - t0
        for kind in ITEM_KINDS:
            VectorIndex(vectors.pop(kind), copy=False).save(path / dirname / f"{kind}.faiss")
            builds.append(IndexBuild(kind, len(texts[kind]), seconds * work[kind] / total))
        return builds
    for kind in ITEM_KINDS:
        items = texts[kind]
        base = done

        def sub(msg: str, frac: float, _w: float = work[kind], _base: float = base) -> None:
            if progress:
                progress(msg, (_base + frac * _w) / total)

        t0 = time.perf_counter()
        fill = partial(embed_into, items, embedder, sub, kind)
        VectorIndex.build(len(items), embedder.dim, fill).save(path / dirname / f"{kind}.faiss")
        builds.append(IndexBuild(kind, len(items), time.perf_counter() - t0))
        done += work[kind]
    return builds


def index_manifest(embedder: Embedder, graph: KnowledgeGraph, builds: Sequence[IndexBuild], *,
                   reason: str, dirname: str = "index", runner: BatchRunner | None = None) -> dict[str, Any]:
    """The manifest's ``index`` section for what :func:`build_indexes` built (``reason``: why it was)."""
    out = {
        "dir": dirname,
        "embedder": embedder.name,
        "model_id": embedder.model_id,
        "dim": embedder.dim,
        "content_hash": graph.content_hash,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "reason": reason,
        "builds": [{"kind": b.kind, "items": b.items, "seconds": round(b.seconds, 3)} for b in builds],
    }
    if runner is not None:
        out["runner"] = runner.describe()
    return out
