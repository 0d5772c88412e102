"""SG-RAG's heavy work in a worker process (:mod:`core.background.workers`): training the dominance model (Alg. 2).

The server's half (:func:`train_dominance_spec`, :func:`train_dominance_job`) names the workspace and the embedder;
the worker's half (:func:`train_dominance_task`, declared as :data:`TRAIN_DOMINANCE` on ``sgrag``'s
:attr:`~core.methods.base.Method.tasks`) runs :func:`core.methods.sgrag.prepare` with ``retrain``. A kill leaves
nothing: the model file is written to a temporary name and renamed (:func:`core.methods.sgrag.dominance.
load_or_train`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.background.workers import Progress, Words, WorkerTask, run_worker

if TYPE_CHECKING:
    from core.index.workspace import Workspace

#: The dominance model's training in a worker, under the training caps (``EGX_TRAIN_MEMORY_MB``, ``…_TIMEOUT_S``).
TRAIN_DOMINANCE = WorkerTask("train-dominance", "core.methods.sgrag.training_jobs:train_dominance_task", "EGX_TRAIN")


def train_dominance_spec(workspace: Workspace, *, embedder: str, seed: int = 0) -> dict[str, Any]:
    return {"workspace": str(workspace.path), "embedder": embedder, "seed": int(seed)}


def train_dominance_task(spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Worker side of SG-RAG's dominance model: :func:`core.methods.sgrag.prepare` with ``retrain`` (Alg. 2),
    the model written to the workspace's ``sgrag/`` folder under a temporary name and renamed."""
    from core.backends.registry import get_embedder
    from core.index.workspace import Workspace
    from core.methods.sgrag.config import SGRAGConfig
    from core.methods.sgrag.pipeline import prepare

    ws = Workspace.open(Path(spec["workspace"]))
    prep = prepare(ws, get_embedder(spec["embedder"]), config=SGRAGConfig(seed=int(spec.get("seed", 0))),
                   retrain=True, progress=progress)
    m = prep.model
    return {"epochs": m.epochs, "converged": m.converged, "final_loss": m.losses[-1] if m.losses else 0.0,
            "losses": list(m.losses), "seconds": round(m.seconds, 2), "device": m.device}


def train_dominance_job(spec: dict[str, Any], *, progress: Progress | None = None,
                        cancel: threading.Event | None = None,
                        after: Callable[[], Any] | None = None) -> dict[str, Any]:
    """Run :func:`train_dominance_task` in a worker; ``after()`` then loads the new model into this process."""
    figures = run_worker(TRAIN_DOMINANCE, spec, words=Words("Training SG-RAG's dominance model",
                                                              "The previous model is kept and still used."),
                         progress=progress, cancel=cancel)
    if after is not None:
        after()
    return dict(figures.get("result") or {})
