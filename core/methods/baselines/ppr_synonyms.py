"""PPR's synonymy edges (HippoRAG §3.1), found once per workspace and kept in its index folder.

HippoRAG joins two entity phrases whose retrieval-encoder vectors have cosine ≥ 0.8. Finding the pairs is an
all-pairs search over every node vector — 4 s on MuSiQue's 16k nodes on 2 cores, minutes on a 48k-node KG —
and used to run again in every new process, inside its first PPR question. Now it runs once per (graph,
embedder, threshold) as PPR's :class:`~core.methods.base.Preparation` (at build time with
``egx index --prepare``, or as a background job in the app) and is read back from
``<index dir>/extra/ppr_synonyms_<threshold>.npz``: pairs and cosines only, read with ``allow_pickle=False``,
written atomically, with a JSON note beside it naming the graph (content hash), the model and the threshold;
a stale or damaged file is found again. The index folder belongs to one embedder, so a new embedder drops it.

A graph store's workspace never walks the whole graph (PPR runs on the seeds' region), so it needs none.
"""

from __future__ import annotations

import json
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.fsio import atomic_path, atomic_write_json, path_lock
from core.graph.reader import question_graph, whole_graph
from core.graph.synonyms import synonym_pairs
from core.methods.base import Preparation

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.index.indexing import Progress
    from core.index.workspace import Workspace
    from core.methods.baselines.config import PPRConfig

RECIPE = "ppr-synonyms-v1"  #: bump when what the file holds changes


@dataclass(frozen=True)
class Synonyms:
    """Synonymy pairs ``(i, j)``, ``i < j`` (node rows), their cosines, and whether this call found them."""

    pairs: np.ndarray
    sims: np.ndarray
    built: bool
    seconds: float = 0.0
    note: str = ""  #: a damaged file that was found again


def _paths(workspace: Workspace, threshold: float) -> tuple[Path, Path]:
    stem = f"ppr_synonyms_{float(threshold):.4f}"
    folder = workspace.index_dir / "extra"
    return folder / f"{stem}.npz", folder / f"{stem}.json"


def _meta(workspace: Workspace, embedder: Embedder, threshold: float, n_nodes: int) -> dict[str, object]:
    return {"recipe": RECIPE, "graph": workspace.content_hash, "model_id": embedder.model_id,
            "threshold": float(threshold), "nodes": int(n_nodes)}


def _read(path: Path, meta_path: Path, want: dict[str, object]) -> tuple[np.ndarray, np.ndarray] | None:
    """The kept pairs when the note names exactly ``want`` and the file is whole, else None."""
    try:
        if json.loads(meta_path.read_text(encoding="utf-8")) != want:
            return None
        with np.load(path, allow_pickle=False) as f:
            pairs, sims = np.asarray(f["pairs"], dtype=np.int64), np.asarray(f["sims"], dtype=np.float64)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error):
        return None  # a torn or damaged file (not a zip, a bad CRC, a cut member) is found again
    n = int(want["nodes"])  # type: ignore[call-overload]
    ok = (pairs.ndim == 2 and pairs.shape[1:] == (2,) and sims.shape == (pairs.shape[0],)
          and (pairs.size == 0 or (int(pairs.min()) >= 0 and int(pairs.max()) < n and bool((pairs[:, 0] < pairs[:, 1]).all()))))
    return (pairs, sims) if ok else None


def has_synonyms(workspace: Workspace, embedder: Embedder, threshold: float) -> bool:
    """Whether :func:`workspace_synonyms` would read the pairs from the workspace (not search now)."""
    if workspace.index_problem(embedder) is not None:
        return False
    path, meta_path = _paths(workspace, threshold)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(path.exists() and meta == _meta(workspace, embedder, threshold, int(meta.get("nodes", -1))))


def workspace_synonyms(workspace: Workspace, embedder: Embedder, threshold: float, *,
                       progress: Progress | None = None) -> Synonyms:
    """HippoRAG's synonymy pairs over every node of ``workspace`` for ``embedder``'s node vectors: read from
    the workspace, or searched now (exact, :func:`~core.graph.synonyms.synonym_pairs`, reporting
    ``progress(message, fraction)``) and kept there."""
    nodes = workspace.index("nodes", embedder)
    vectors = nodes.vectors
    path, meta_path = _paths(workspace, threshold)
    want = _meta(workspace, embedder, threshold, vectors.shape[0])
    with path_lock(path):
        note = ""
        if path.exists():
            kept = _read(path, meta_path, want)
            if kept is not None:
                return Synonyms(*kept, built=False)
            note = f"{path.name} did not match this graph and model, or was damaged; the pairs were found again"
        t0 = time.perf_counter()
        pairs, sims = synonym_pairs(vectors, threshold, progress=progress)
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as fh:
                np.savez(fh, pairs=pairs.astype(np.int64), sims=sims.astype(np.float64))
        atomic_write_json(meta_path, want)  # last: the pairs are complete when the note names them
    return Synonyms(pairs, sims, built=True, seconds=time.perf_counter() - t0, note=note)


def _walks_whole_graph(workspace: Workspace, cfg: PPRConfig) -> bool:
    graph = question_graph(workspace)
    return (cfg.synonym_threshold is not None and cfg.region_hops is None and graph.kind == "kg"
            and graph.n_nodes > 1 and whole_graph(graph) is not None)


#: PPR's preparation: the synonymy pairs of the whole entity graph (HippoRAG §3.1), found once per graph,
#: embedder and threshold and kept in the workspace's index folder.
def _title(ws: Workspace, backends: Any, cfg: Any) -> str:
    """The preparation's title: on first use, or again where pairs of an earlier graph or embedder are kept (an
    audit read "first use of" after Add documents, PPR having run on the workspace before)."""
    # after "Add documents" the graph is new (its pairs are not carried over): said so, not "first use" (an audit read
    # that there, PPR having run on the workspace before the add)
    why = (f"documents were added to “{ws.title}” since it was built" if ws.meta.inserts else
           f"first use of “{ws.title}”")
    path, meta_path = _paths(ws, cfg.synonym_threshold)
    if path.exists():
        try:
            old = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = {}
        why = (f"again: “{ws.title}” changed since they were found" if isinstance(old, dict) and old.get("model_id")
               == backends.embedder.model_id else f"again, for this embedder, on “{ws.title}”")
    return (f"Finding synonymy edges among {question_graph(ws).n_nodes:,} entities for PPR "
            f"(cosine ≥ {cfg.synonym_threshold}; {why})")


PREPARATION = Preparation(
    title=_title,
    needed=lambda ws, backends, cfg: _walks_whole_graph(ws, cfg) and not has_synonyms(
        ws, backends.embedder, cfg.synonym_threshold),
    run=lambda ws, backends, cfg, progress: workspace_synonyms(ws, backends.embedder, cfg.synonym_threshold,
                                                               progress=progress),
    key=lambda ws, backends, cfg: f"ppr-synonyms:{ws.path}:{backends.embedder.model_id}:{cfg.synonym_threshold}",
    estimate=lambda ws, backends, cfg: _estimate(question_graph(ws).n_nodes, backends.embedder.dim),
)


#: Multiply-adds per second assumed for the exact all-pairs search (FAISS flat inner product on a CPU).
STATED_FLOPS = 1e10


def _estimate(n: int, dim: int) -> tuple[float, str]:
    """Seconds for the exact search over ``n`` entity vectors of ``dim`` dimensions (``n² · dim`` products)."""
    return n * n * dim / STATED_FLOPS, (f"{n:,} × {n:,} entity pairs of {dim} dimensions at an assumed "
                                        f"{STATED_FLOPS:.0e} multiply-adds per second")
