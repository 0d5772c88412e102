"""ReG's heavy work in a worker process (:mod:`core.background.workers`): retriever training, and installing a
retriever that training kept aside.

Each comes in two halves, like the engine's own worker tasks (:mod:`core.batch.tasks`): the server's half
(``*_spec``, ``*_job``) turns the page's objects into a JSON spec — backends by registry name, the workspace by
folder — and the worker's half (:func:`train_reg_task`, declared as :data:`TRAIN_REG` on ``reg``'s
:attr:`~core.methods.base.Method.tasks`) opens them again in the child and runs :func:`core.methods.reg.train.
train_reg` (or ReG@Entity's), as ``egx train-reg`` does. A kill leaves nothing: the model is trained into a
hidden sibling of its folder and swapped into place when complete (:func:`core.index.commit.commit`); the previous
model stays usable until then. The LLM's S(I) selections made so far stay cached (``reg/selections-*.json``), so a
rerun does not ask again.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.background.workers import WORKER_START_S, Progress, Words, WorkerTask, run_worker

if TYPE_CHECKING:
    from core.index.workspace import Workspace

#: ReG@Triple / ReG@Entity training in a worker, under the training caps (``EGX_TRAIN_MEMORY_MB``, ``…_TIMEOUT_S``).
TRAIN_REG = WorkerTask("train-reg", "core.methods.reg.training_jobs:train_reg_task", "EGX_TRAIN")


def reg_model_dir(workspace: Workspace, unit: str) -> Path:
    """The folder ``reg`` loads for ``unit`` by default (the workspace's own)."""
    from core.methods.reg.entity_retriever import default_entity_model_dir
    from core.methods.reg.retriever import default_model_dir

    return default_entity_model_dir(workspace) if unit == "entity" else default_model_dir(workspace)


def train_reg_spec(workspace: Workspace, *, embedder: str, llm: Any, supervision: str, selection: str = "auto",
                   unit: str = "triple", epochs: int = 80, seed: int = 0, limit: int | None = None,
                   cosine_residual: bool = False, use_anyway: bool = False) -> dict[str, Any]:
    """What :func:`train_reg_task` needs (the options of ``egx train-reg``); the model goes to a hidden sibling
    of the workspace's model folder first (``tmp``), which the server removes if the worker dies. ``use_anyway``:
    install it even when it loses on the held-out split (``egx train-reg --use-anyway``)."""
    from core.backends.registry import llm_spec
    from core.fsio import temp_sibling

    folder = reg_model_dir(workspace, unit)
    return {"workspace": str(workspace.path), "embedder": embedder, "llm": llm_spec(llm), "supervision": supervision,
            "selection": selection, "unit": unit, "epochs": int(epochs), "seed": int(seed),
            "limit": None if limit is None else int(limit), "cosine_residual": bool(cosine_residual),
            "use_anyway": bool(use_anyway), "folder": str(folder), "tmp": str(temp_sibling(folder, "building"))}


def train_reg_task(spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Worker side of ReG training: :func:`core.methods.reg.train.train_reg` (or ReG@Entity's) into ``tmp``,
    then swapped into the model folder in one step — or, when it loses on the held-out split to the untrained
    cosine or the retriever active now (:func:`core.methods.reg.train.judge`), into the kept-aside folder
    (:func:`core.methods.reg.train.aside_dir`), the active scorer unchanged, unless the spec says ``use_anyway``."""
    from core.backends.registry import get_embedder, llm_from_spec
    from core.errors import ConfigError
    from core.fsio import atomic_write_json
    from core.index.commit import commit
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.reg.config import TrainConfig
    from core.methods.reg.keep import aside_dir, judge
    from core.methods.reg.train import train_reg
    from core.methods.reg.train_entity import train_reg_entity

    ws = Workspace.open(Path(spec["workspace"]))
    if ws.questions_path is None:
        raise ConfigError(f"The workspace “{ws.name}” has no questions with answers to train on; add a questions "
                          "file on the Data page.")
    llm = llm_from_spec(spec.get("llm"))
    cfg = TrainConfig(supervision=spec["supervision"], selection=spec.get("selection", "auto"),
                      seed=int(spec.get("seed", 0)), epochs=int(spec.get("epochs", 80)),
                      cosine_residual=bool(spec.get("cosine_residual", False)))
    train = train_reg_entity if spec.get("unit") == "entity" else train_reg
    folder, tmp = Path(spec["folder"]), Path(spec["tmp"])
    res = train(ws, ws.questions_path, backends=Backends(get_embedder(spec["embedder"]), llm), cfg=cfg, out=tmp,
                limit=spec.get("limit"), progress=progress)
    verdict = judge(res)  # train_reg wrote to tmp (a named folder): the choice of folder is made here
    res.verdict = verdict.text
    # a benchmark running now keeps the retriever it started with (core.eval.runner pins a copy): installing
    # here changes none of its rows (audit 43 saw one ReG row scored by two scorers before runs pinned theirs)
    if not verdict.install and not spec.get("use_anyway"):
        folder = aside_dir(folder)
        res.kept_aside = True
    res.model_dir = str(folder)
    atomic_write_json(tmp / "result.json", res.to_dict())
    folder.parent.mkdir(parents=True, exist_ok=True)
    commit(tmp, folder)  # one rename (or an atomic exchange): the previous model until here, the new one after
    return {"supervision": res.supervision, "best_epoch": res.best_epoch, "test": res.test,
            "baseline_test": res.baseline_test, "current_test": res.current_test, "counts": res.counts,
            "seconds": res.seconds, "device": res.device, "run": folder.name, "kept_aside": res.kept_aside,
            "verdict": res.verdict, "model_dir": str(folder)}


def use_kept_aside(workspace: Workspace, unit: str = "triple") -> Path:
    """Install the retriever training kept aside (the page's "Use it anyway"): it replaces the workspace's active
    one in one step (:func:`core.index.commit.commit`), and its ``result.json`` says so.

    Raises
    ------
    WorkspaceError
        When no retriever is kept aside for ``unit``.
    """
    import json
    import shutil

    from core.errors import WorkspaceError
    from core.fsio import atomic_write_json, temp_sibling
    from core.index.commit import commit
    from core.methods.reg.keep import aside_dir
    from core.methods.reg.retriever import is_model_folder

    folder = reg_model_dir(workspace, unit)
    aside = aside_dir(folder)
    if not is_model_folder(aside):
        raise WorkspaceError(f"No retriever is kept aside in {aside}: there is nothing to use. Train one first "
                             "(`egx train-reg`, or the Train panel).",
                             app="No retriever is kept aside: there is nothing to use. Train one first.")
    tmp = temp_sibling(folder, "building")
    shutil.copytree(aside, tmp)  # a copy: the kept-aside model stays whole until the new one is in place
    result = tmp / "result.json"
    if result.exists():
        data = json.loads(result.read_text(encoding="utf-8"))
        # said as what happened, the held-out check quoted (audit 57 read "installed: … it is kept aside …; installed
        # anyway by the user" as a contradiction)
        data.update({"kept_aside": False, "model_dir": str(folder),
                     "verdict": f"installed by “Use it anyway”, over the held-out check, which had said: "
                                f"{data.get('verdict', '')}"})
        atomic_write_json(result, data)
    folder.parent.mkdir(parents=True, exist_ok=True)
    commit(tmp, folder)
    shutil.rmtree(aside, ignore_errors=True)
    return folder


def train_reg_job(spec: dict[str, Any], *, progress: Progress | None = None,
                  cancel: threading.Event | None = None) -> dict[str, Any]:
    """Run :func:`train_reg_task` in a worker; its summary (supervision, best epoch, held-out recall)."""
    import shutil

    unit = "ReG@Entity" if spec.get("unit") == "entity" else "ReG@Triple"
    figures = run_worker(TRAIN_REG, spec, words=Words(f"Training {unit}", "The previous model is kept and "
                                                        "still used."),
                         progress=progress, cancel=cancel,
                         cleanup=lambda: shutil.rmtree(spec["tmp"], ignore_errors=True))
    return dict(figures.get("result") or {})


#: Rough costs on a 2-core machine without a GPU, used only when no earlier run in the workspace says better:
#: weak supervision per question, one epoch per training question, and one LLM selection per question (a small
#: local model; an API is faster); starting the worker is :data:`core.background.workers.WORKER_START_S`.
WEAK_S_PER_QUESTION = 0.05
EPOCH_S_PER_QUESTION = 0.01
LLM_S_PER_QUESTION = 12.0


def estimate_reg_seconds(n_questions: int, epochs: int, *, refined: bool, uncached: int = 0,
                         previous: dict[str, Any] | None = None) -> tuple[float, str]:
    """Seconds a ReG training will take, and what the figure rests on: an earlier run in this workspace
    (its seconds scaled to ``epochs``) when there is one, else the rough rates above. ``uncached`` questions
    need an LLM selection (refined supervision; the others are in the selections cache)."""
    llm = LLM_S_PER_QUESTION * uncached if refined else 0.0
    prev_epochs = int(((previous or {}).get("config") or {}).get("epochs") or 0)
    if previous and prev_epochs and float(previous.get("seconds") or 0) > 0:
        fit = float(previous["seconds"]) * epochs / prev_epochs
        return WORKER_START_S + WEAK_S_PER_QUESTION * n_questions + fit + llm, "scaled from the last run here"
    fit = EPOCH_S_PER_QUESTION * n_questions * epochs
    return WORKER_START_S + WEAK_S_PER_QUESTION * n_questions + fit + llm, "rough rates: no earlier run here"


def cached_selections(workspace: Any, llm: Any, selection: str) -> set[str]:
    """Question ids whose S(I) selection by ``llm`` (in form ``selection``) is cached in the workspace or
    shipped with its sample: refined training asks the LLM only for the others."""
    import json

    from core.methods.reg.train import selection_how, selections_file, shipped_selections

    how = selection_how(selection, llm)
    path = Path(workspace.path) / "reg" / selections_file(llm.model_id, how)
    try:
        return set(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else \
            set(shipped_selections(workspace, llm.model_id, how))
    except (OSError, ValueError):
        return set()
