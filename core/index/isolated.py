"""Workspace builds in a worker process with a memory cap and a time cap (:mod:`core.background.workers`).

A build started from the app (an upload, a sample, a re-index) used to run in the server's own process:
one hostile upload (a single 10 MB passage) took the server from 71 MB to 4.1 GB, and every user with it.
:func:`build_isolated` runs the build (:func:`~core.index.create.create_workspace` for an upload,
:func:`~core.index.samples.ensure_sample_workspace` for a sample, ``Workspace.ensure_index`` for a re-index,
:func:`~core.index.insert.add_documents` for documents added to a workspace: :class:`BuildSpec`'s ``kind``)
as the ``build`` task of a worker process (:func:`core.background.workers.run_worker`: lower CPU priority, fewer
kernel threads) and watches it:

* **memory**: the resident memory of the child and its own children must stay under
  ``EGX_BUILD_MEMORY_MB`` (default 4096); past it the child is killed;
* **time**: the whole build must end within ``EGX_BUILD_TIMEOUT_S`` (default 3600 s);
* **cancel**: a cancelled app job kills the child at once.

A killed child leaves nothing behind: ``create_workspace`` builds into a hidden sibling folder and renames
it into place only when complete, and :func:`~core.index.commit.recover` removes that folder here. The
previous workspace of that name (if any) and the server are untouched. Models travel by registry name
(objects cannot cross a process boundary).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.background.workers import Words, WorkerLimits, run_worker
from core.errors import EgxError

#: the caps of one isolated build (settings ``EGX_BUILD_MEMORY_MB``, ``EGX_BUILD_TIMEOUT_S``): a worker's caps
BuildLimits = WorkerLimits


def isolated_builds() -> bool:
    """Whether the app runs its heavy jobs — builds (uploads, samples, re-indexes), benchmarks, training — in a
    worker process (``EGX_BUILD_ISOLATED``, default on; ``0`` runs them in the server's process, without the caps
    or the lower priority: for a debugger, or a test that reaches into the work)."""
    return os.environ.get("EGX_BUILD_ISOLATED", "1").strip().lower() not in ("0", "false", "no", "off")


#: what a child can build: a workspace from uploaded files, a bundled sample from its recipe, the index of
#: an existing workspace for another embedder, or an existing corpus workspace with more documents
BUILD_KINDS = ("create", "sample", "index", "insert")


@dataclass(frozen=True)
class BuildSpec:
    """What the child builds, models by registry name. ``kind="create"``: ``create_workspace`` on ``inputs``
    into ``target``; ``"sample"``: the bundled sample ``name`` into ``target`` (``ensure_sample_workspace``,
    built only when missing or stale); ``"index"``: the workspace at ``target`` indexed for ``embedder``
    (``Workspace.ensure_index``); ``"insert"``: ``inputs`` added to the corpus workspace at ``target``
    (:func:`~core.index.insert.add_documents`; an empty ``embedder`` / ``extractor`` means the recorded one)."""

    inputs: tuple[str, ...]
    target: str
    name: str
    embedder: str
    extractor: str = "spacy"
    llm: str = "none"  #: the LLM an ``llm`` extractor uses
    questions: str | None = None
    title: str = ""
    kind: str = "create"
    #: how a ``create`` splits documents into passages (:meth:`~core.graph.chunking.PassageSplit.parse`; "": the
    #: default); an insert splits them as the workspace recorded
    passages: str = ""

    @classmethod
    def sample(cls, name: str, target: str | Path, embedder: str) -> BuildSpec:
        return cls(inputs=(), target=str(target), name=name, embedder=embedder, kind="sample")

    @classmethod
    def index(cls, target: str | Path, embedder: str) -> BuildSpec:
        return cls(inputs=(), target=str(target), name=Path(target).name, embedder=embedder, kind="index")

    @classmethod
    def insert(cls, target: str | Path, inputs: Sequence[str | Path], *, embedder: str = "", extractor: str = "",
               llm: str = "none") -> BuildSpec:
        return cls(inputs=tuple(str(p) for p in inputs), target=str(target), name=Path(target).name,
                   embedder=embedder, extractor=extractor, llm=llm, kind="insert")


def build_isolated(spec: BuildSpec, *, limits: WorkerLimits | None = None,
                   progress: Callable[[str, float], None] | None = None,
                   cancel: threading.Event | None = None) -> dict[str, Any]:
    """Build ``spec.target`` in a worker process within ``limits``; returns the build's figures
    (``{"peak_mb": …, "seconds": …}``; an ``insert`` adds ``"result"``, :meth:`InsertResult.to_dict
    <core.index.insert.InsertResult.to_dict>`).

    Raises
    ------
    WorkspaceError
        The child passed the memory or time cap (naming it and its setting), or died; nothing was written.
    EgxError
        The build's own error (bad input, a model that cannot load), as the child reported it.
    Cancelled
        ``cancel`` was set.
    """
    from core.index.commit import recover
    from core.index.paths import method_folders

    name = spec.name or Path(spec.target).name
    words = Words(f"The build of “{name}”", "Nothing was saved; the server and any previous workspace are untouched.")
    # a killed child's half-built sibling folder goes; a finished one is in place
    # the methods' own workspace folders travel with the spec: the child does not import the methods
    payload = {**asdict(spec), "method_folders": dict(method_folders())}
    figures = run_worker("build", payload, words=words, limits=limits or BuildLimits.from_env("EGX_BUILD"),
                         progress=progress, cancel=cancel, cleanup=lambda: recover(Path(spec.target)))
    if not figures.get("result"):
        figures.pop("result", None)
    return figures


# ------------------------------------------------------------------------------------ upload folders
def uploads_root() -> Path:
    """Where the app keeps an upload while its build runs: ``$EGX_HOME/uploads`` (the project's own folder,
    so a start-up sweep may delete what a killed server left there, and nothing else)."""
    from core.fsio import egx_home

    return egx_home() / "uploads"


def new_upload_dir() -> tuple[Path, Any]:
    """A fresh upload folder and its held lock (:func:`drop_upload_dir` deletes the folder and releases the lock
    when the build ends; while it is held, :func:`sweep_uploads` leaves the folder alone).

    The lock is its own, not :func:`~core.fsio.path_lock`'s thread-local one: the page's script thread takes it and
    the build job's thread releases it, and a thread-local lock released from another thread did nothing — the
    upload stayed locked and its ``.upload-*.lock`` file in ``$EGX_HOME/uploads`` until the server restarted."""
    import tempfile

    from filelock import FileLock

    from core.fsio import lock_file

    root = uploads_root()
    root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="upload-", dir=root))
    lock = FileLock(str(lock_file(folder)), thread_local=False, is_singleton=False)
    lock.acquire()
    return folder, lock


def drop_upload_dir(folder: Path, lock: Any) -> None:
    """Delete an upload folder :func:`new_upload_dir` made and release its lock, then remove the lock file too:
    ``filelock`` leaves it on release, and one ``.upload-*.lock`` stayed in ``$EGX_HOME/uploads`` per upload until
    the server restarted. Removed only while held, with the folder gone (the sweep's rule,
    :func:`~core.fsio.remove_stale_locks`): nothing waits on the lock of an upload that no longer exists."""
    import shutil

    from core.fsio import held_if_free, lock_file

    shutil.rmtree(folder, ignore_errors=True)
    lock.release()
    with held_if_free(folder) as held:
        if held and not folder.exists():
            lock_file(folder).unlink(missing_ok=True)


def sweep_uploads() -> list[str]:
    """Delete the upload folders no running build holds (a killed server's), and their lock files.
    Called once when the app's server starts; returns the names removed."""
    import shutil

    from core.fsio import held_if_free, remove_stale_locks

    root = uploads_root()
    removed: list[str] = []
    if not root.is_dir():
        return removed
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("upload-")):
        with held_if_free(folder) as held:
            if held:
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder.name)
    remove_stale_locks(root)
    return removed


def build_task(raw: dict[str, Any], progress: Callable[[str, float], None]) -> dict[str, Any]:
    """The worker's side (:data:`core.background.workers.KINDS` ``"build"``): build what ``raw`` (a :class:`BuildSpec` as
    JSON) says; returns an insert's :meth:`~core.index.insert.InsertResult.to_dict`, else ``{}``."""
    from core.backends.registry import get_embedder, get_extractor, get_llm
    from core.graph.chunking import PassageSplit
    from core.index.create import create_workspace
    from core.index.insert import add_documents
    from core.index.paths import declare_method_folder
    from core.index.samples import ensure_sample_workspace
    from core.index.workspace import Workspace

    raw = dict(raw)
    for folder, on_insert in (raw.pop("method_folders", None) or {}).items():
        declare_method_folder(str(folder), str(on_insert))
    spec = BuildSpec(**{**raw, "inputs": tuple(raw.get("inputs", ()))})
    if spec.kind not in BUILD_KINDS:
        raise EgxError(f"unknown build kind {spec.kind!r}; one of {', '.join(BUILD_KINDS)}")
    target = Path(spec.target)
    if spec.kind == "insert":  # the workspace's recorded models unless named
        llm = get_llm(spec.llm) if spec.llm and spec.llm != "none" else None
        res = add_documents(target, list(spec.inputs), progress=progress, llm=llm,
                            embedder=get_embedder(spec.embedder) if spec.embedder else None,
                            extractor=get_extractor(spec.extractor, llm=llm) if spec.extractor else None)
        return res.to_dict()
    if spec.kind == "sample":
        ensure_sample_workspace(spec.name, get_embedder(spec.embedder), progress=progress, root=target.parent)
    elif spec.kind == "index":
        Workspace.open(target).ensure_index(get_embedder(spec.embedder), progress=progress)
    else:
        llm = get_llm(spec.llm) if spec.extractor == "llm" else None
        create_workspace(list(spec.inputs), target, name=spec.name, title=spec.title or spec.name,
                         embedder=get_embedder(spec.embedder), extractor=get_extractor(spec.extractor, llm=llm),
                         questions=spec.questions, progress=progress,
                         passages=PassageSplit.parse(spec.passages) if spec.passages else None)
    return {}
