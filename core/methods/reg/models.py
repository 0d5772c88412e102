"""Which trained retriever ``reg`` uses on a workspace, what identifies it, and which questions it was trained on
— what a benchmark keeps in ``run.json`` and leaves out of its questions (``Method.stamp``, ``Method.trained_on``).

The retriever a run loads is :func:`model_folder`'s, if its manifest fits the workspace's graph and the embedder
(:func:`~core.methods.reg.retriever.read_manifest`); otherwise ``reg`` scores by cosine, trains nothing and
has seen no question. A manifest's ``split`` is the contract of what a trained model saw (App. E: the test
split is held out of training and of checkpoint selection)::

    "split": {"train": [question ids], "val": [question ids], "test": [question ids]}

``train`` and ``val`` are the questions it was trained or validated on (every question of those splits, also
one that gave no training example); ``trained_on_graph`` names the graph whose questions they are (a sample's
copy of a model trained elsewhere keeps the other graph's hash there, and has seen no question of its own).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import WorkspaceError
from core.methods.reg.config import RegConfig
from core.methods.reg.entity_retriever import default_entity_model_dir
from core.methods.reg.retriever import (
    LEGACY_MODEL_FILE,
    MANIFEST_FILE,
    MAX_MANIFEST_BYTES,
    MAX_WEIGHTS_BYTES,
    MODEL_FILE,
    default_model_dir,
    find_model_dir,
    is_model_folder,
    read_manifest,
)

if TYPE_CHECKING:
    from core.index.workspace import Workspace
    from core.methods.base import Backends


def model_folder(workspace: Workspace, config: RegConfig) -> Path:
    """The folder ``reg`` loads with ``config``: ``config.model``, else the workspace's own retriever of the
    configured unit (for ReG@Triple: else a sample's shipped one, :func:`~.retriever.find_model_dir`)."""
    if config.retriever == "entity":
        return Path(config.model) if config.model else default_entity_model_dir(workspace)
    return find_model_dir(workspace, config.model)


def used_model(workspace: Workspace, backends: Backends, config: object) -> tuple[Path, dict[str, Any]] | None:
    """``(weights file, manifest)`` of the retriever a run with ``config`` loads; None when it takes the cosine
    fallback (no model, or one trained on another graph or embedder)."""
    cfg = config if isinstance(config, RegConfig) else RegConfig()
    folder = model_folder(workspace, cfg)
    weights = folder / MODEL_FILE
    if cfg.retriever == "triple" and not weights.exists() and (folder / LEGACY_MODEL_FILE).exists():
        weights = folder / LEGACY_MODEL_FILE
    try:
        manifest = read_manifest(folder, weights, unit=cfg.retriever, name="ReG", fix="", other_unit="",
                                 workspace=workspace, embedder_id=backends.embedder.model_id)
    except WorkspaceError:
        return None
    return weights, manifest


def stamp(workspace: Workspace, backends: Backends, config: object) -> dict[str, str]:
    """``{"ReG@Triple retriever": "sha256:…"}``: a digest of the manifest and weights ``reg`` would load, so a
    retrained model (``egx train-reg``, the Train panel, a new shipped one) never resumes an older run's rows."""
    cfg = config if isinstance(config, RegConfig) else RegConfig()
    name = f"ReG@{cfg.retriever.title()} retriever"
    used = used_model(workspace, backends, cfg)
    if used is None:
        return {name: "none (the untrained cosine fallback)"}
    weights, _ = used
    from core.errors import DataFileError
    from core.fsio import read_data_file

    h = hashlib.sha256()
    try:  # read within bounds: the files are data, and may have changed since read_manifest looked
        for f, cap in ((weights.parent / MANIFEST_FILE, MAX_MANIFEST_BYTES), (weights, MAX_WEIGHTS_BYTES)):
            h.update(read_data_file(f, max_bytes=cap, what=f"{name} file"))
    except (OSError, DataFileError) as exc:
        raise WorkspaceError(f"The {name} in {weights.parent} cannot be read ({exc}); retrain it with "
                             "`egx train-reg`.") from None
    return {name: "sha256:" + h.hexdigest()[:16]}


def trained_on(workspace: Workspace, backends: Backends, config: object) -> frozenset[str]:
    """The question ids the retriever ``reg`` would use was trained or validated on (its manifest's
    ``split.train`` and ``split.val``); empty for the cosine fallback and for a model trained on another graph's
    questions."""
    used = used_model(workspace, backends, config)
    if used is None:
        return frozenset()
    manifest = used[1]
    graph = manifest.get("trained_on_graph") or manifest.get("graph_hash")
    if graph and graph != workspace.content_hash:
        return frozenset()
    split = manifest.get("split")
    if not isinstance(split, dict):
        return frozenset()
    return frozenset(str(q) for part in ("train", "val") for q in (split.get(part) or ()))


#: Marks a folder :func:`pin` made, and names the folder it was taken from.
PIN_FILE = "pinned-from.txt"
#: In a pin: present when, at pin time, a retriever trained for the workspace was kept aside (its notice then says so for
#: every question of the run; read from the disk per question, a training mid-run split one run's notices in two: audit 48)
PIN_ASIDE_FILE = "kept-aside-then.txt"


def pin(workspace: Workspace, backends: Backends, config: object, into: Path) -> RegConfig | None:
    """``config`` reading a copy, in ``into``, of the retriever files ``reg`` would load now: a benchmark run
    scores every question with the model it started with, though training installs another one midway (audit 43:
    one run's ReG row scored 10 questions by cosine and 1 by a model trained meanwhile). A start without a fitting
    model pins that too (an empty copy: the cosine fallback). None when ``config`` names its own folder (the
    user's, pinned by its path). Files are hard-linked where they can be (the install replaces the folder, never a
    file in it), else copied."""
    import os
    import shutil

    cfg = config if isinstance(config, RegConfig) else RegConfig()
    if cfg.model:
        return None
    folder = model_folder(workspace, cfg)
    if into.exists():
        shutil.rmtree(into)  # a pin left by an interrupted run: taken again from what is installed now
    into.mkdir(parents=True)
    for name in (MANIFEST_FILE, MODEL_FILE, LEGACY_MODEL_FILE):
        src = folder / name
        if src.is_file() and not src.is_symlink():
            try:
                os.link(src, into / name)
            except OSError:
                shutil.copyfile(src, into / name)
    (into / PIN_FILE).write_text(str(folder), encoding="utf-8")
    from core.methods.reg.keep import aside_dir

    aside = aside_dir(default_model_dir(workspace))  # where training keeps the workspace's own model aside
    if cfg.retriever == "triple" and is_model_folder(aside):
        (into / PIN_ASIDE_FILE).write_text(str(aside), encoding="utf-8")
    return cfg.with_(model=str(into))


def aside_at_pin(folder: str | Path) -> bool:
    """Whether the pin ``folder`` (:func:`pin`) was taken while a retriever trained for the workspace was kept aside."""
    return (Path(folder) / PIN_ASIDE_FILE).is_file()


def is_pin(folder: str | Path) -> bool:
    """Whether ``folder`` is a benchmark's :func:`pin` of the workspace's own retriever (then its notices are the
    workspace's: e.g. that a model was kept aside)."""
    return bool(folder) and (Path(folder) / PIN_FILE).is_file()
