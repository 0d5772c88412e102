"""Workspace builds in a child process with a memory cap and a time cap.

A build started from the app (an upload, a sample, a re-index) used to run in the server's own process:
one hostile upload (a single 10 MB passage) took the server from 71 MB to 4.1 GB, and every user with it.
:func:`build_isolated` runs the build (:func:`~core.index.create.create_workspace` for an upload,
:func:`~core.index.samples.ensure_sample_workspace` for a sample, ``Workspace.ensure_index`` for a re-index,
:func:`~core.index.insert.add_documents` for documents added to a workspace: :class:`BuildSpec`'s ``kind``)
in a child Python process instead and watches it:

* **memory**: the resident memory of the child and its own children, sampled every 0.1 s, must stay under
  ``EGX_BUILD_MEMORY_MB`` (default 4096); past it the child is killed;
* **time**: the whole build must end within ``EGX_BUILD_TIMEOUT_S`` (default 3600 s);
* **cancel**: a cancelled app job kills the child at once.

A killed child leaves nothing behind: ``create_workspace`` builds into a hidden sibling folder and renames
it into place only when complete, and :func:`~core.index.commit.recover` removes that folder here. The
previous workspace of that name (if any) and the server are untouched. The child reports progress as JSON
lines on its stdout; its models are loaded by registry name (objects cannot cross a process boundary).

Run as ``python -m core.index.isolated`` with the build spec as JSON on stdin (what the parent does).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.errors import Cancelled, EgxError, WorkspaceError

ROOT = Path(__file__).resolve().parents[2]
#: seconds between two memory samples of the child
POLL_S = 0.1


@dataclass(frozen=True)
class BuildLimits:
    """The caps of one isolated build (settings: ``EGX_BUILD_MEMORY_MB``, ``EGX_BUILD_TIMEOUT_S``)."""

    memory_mb: float = 4096.0
    timeout_s: float = 3600.0

    @classmethod
    def from_env(cls) -> BuildLimits:
        """The caps from the environment; a value that is not a positive number is a :class:`WorkspaceError`
        naming the variable."""
        out = {}
        for field, var in (("memory_mb", "EGX_BUILD_MEMORY_MB"), ("timeout_s", "EGX_BUILD_TIMEOUT_S")):
            raw = os.environ.get(var, "").strip()
            if not raw:
                continue
            try:
                value = float(raw)
            except ValueError:
                value = -1.0
            if not value > 0 or value != value:
                raise WorkspaceError(f"{var}={raw!r} is not a positive number; set it to e.g. "
                                     f"{getattr(cls(), field):g}, or unset it.")
            out[field] = value
        return cls(**out)


def isolated_builds() -> bool:
    """Whether the app builds (uploads, samples, re-indexes) in a child process (``EGX_BUILD_ISOLATED``, default
    on; ``0`` builds in the server's process, without the caps: for a debugger, or a test that reaches into the
    build)."""
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


def _rss_mb(proc: Any) -> float:
    """Resident memory of ``proc`` and all its descendants, in MB (0 when it is gone)."""
    import psutil

    total = 0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0.0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


def build_isolated(spec: BuildSpec, *, limits: BuildLimits | None = None,
                   progress: Callable[[str, float], None] | None = None,
                   cancel: threading.Event | None = None) -> dict[str, Any]:
    """Build ``spec.target`` in a child process within ``limits``; returns the build's figures
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
    import psutil

    from core.index.commit import recover

    lim = limits or BuildLimits.from_env()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    child = subprocess.Popen([sys.executable, "-m", "core.index.isolated"], cwd=str(ROOT), env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, encoding="utf-8", start_new_session=True)
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    child.stdin.write(json.dumps(asdict(spec)))
    child.stdin.close()
    outcome: dict[str, Any] = {}
    err_tail: list[str] = []

    def read_stdout() -> None:
        for line in child.stdout:  # type: ignore[union-attr]
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "p" in msg and progress is not None:
                progress(str(msg.get("m", "")), float(msg["p"]))
            elif "error" in msg or "done" in msg:
                outcome.update(msg)

    def read_stderr() -> None:
        for line in child.stderr:  # type: ignore[union-attr]
            err_tail.append(line)
            del err_tail[:-20]

    readers = [threading.Thread(target=f, daemon=True) for f in (read_stdout, read_stderr)]
    for t in readers:
        t.start()
    proc = psutil.Process(child.pid)
    t0, peak, stop = time.monotonic(), 0.0, ""
    while child.poll() is None:
        peak = max(peak, _rss_mb(proc))
        took = time.monotonic() - t0
        if peak > lim.memory_mb:
            stop = (f"used more than {lim.memory_mb:,.0f} MB of memory (EGX_BUILD_MEMORY_MB) and was stopped; "
                    "split the input into smaller files, or raise EGX_BUILD_MEMORY_MB")
        elif took > lim.timeout_s:
            stop = (f"ran past {lim.timeout_s:g} s (EGX_BUILD_TIMEOUT_S) and was stopped; build a smaller "
                    "input, or raise EGX_BUILD_TIMEOUT_S")
        elif cancel is not None and cancel.is_set():
            stop = "cancelled"
        if stop:
            _kill(child)
            break
        time.sleep(POLL_S)
    child.wait()
    for t in readers:
        t.join(5)
    recover(Path(spec.target))  # a killed child's half-built sibling folder goes; a finished one is in place
    name = spec.name or Path(spec.target).name
    if stop == "cancelled":
        raise Cancelled(f"The build of “{name}” was cancelled; nothing was saved.")
    if stop:
        raise WorkspaceError(f"The build of “{name}” {stop}. Nothing was saved; the server and any "
                             "previous workspace are untouched.")
    if "error" in outcome:
        raise EgxError(str(outcome["error"]))
    if child.returncode != 0 or not outcome.get("done"):
        tail = "".join(err_tail).strip().splitlines()[-1:] or ["no message"]
        raise WorkspaceError(f"The build of “{name}” ended without finishing (exit status {child.returncode}: "
                             f"{tail[0][:300]}). Nothing was saved; try again, or build it with `egx index`.")
    figures: dict[str, Any] = {"peak_mb": round(peak, 1), "seconds": round(time.monotonic() - t0, 2)}
    if isinstance(outcome.get("result"), dict):
        figures["result"] = outcome["result"]
    return figures


# ------------------------------------------------------------------------------------ upload folders
def uploads_root() -> Path:
    """Where the app keeps an upload while its build runs: ``$EGX_HOME/uploads`` (the project's own folder,
    so a start-up sweep may delete what a killed server left there, and nothing else)."""
    from core.fsio import egx_home

    return egx_home() / "uploads"


def new_upload_dir() -> tuple[Path, Any]:
    """A fresh upload folder and its held lock (release it, then delete the folder, when the build ends;
    while it is held, :func:`sweep_uploads` leaves the folder alone)."""
    import tempfile

    from core.fsio import path_lock

    root = uploads_root()
    root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="upload-", dir=root))
    lock = path_lock(folder)
    lock.acquire()
    return folder, lock


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


def _kill(child: subprocess.Popen[str]) -> None:
    """End the child and anything it started (its own process group)."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        child.kill()


def _child(spec: BuildSpec) -> None:
    """The child's side: build, reporting progress and the outcome as JSON lines."""
    from core.backends.registry import get_embedder, get_extractor, get_llm
    from core.index.create import create_workspace
    from core.index.insert import add_documents
    from core.index.samples import ensure_sample_workspace
    from core.index.workspace import Workspace

    def emit(msg: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()

    def progress(m: str, f: float) -> None:
        emit({"m": m, "p": f})

    done: dict[str, Any] = {"done": True}
    try:
        if spec.kind not in BUILD_KINDS:
            raise EgxError(f"unknown build kind {spec.kind!r}; one of {', '.join(BUILD_KINDS)}")
        target = Path(spec.target)
        if spec.kind == "insert":  # the workspace's recorded models unless named
            llm = get_llm(spec.llm) if spec.llm and spec.llm != "none" else None
            res = add_documents(target, list(spec.inputs), progress=progress, llm=llm,
                                embedder=get_embedder(spec.embedder) if spec.embedder else None,
                                extractor=get_extractor(spec.extractor, llm=llm) if spec.extractor else None)
            done["result"] = res.to_dict()
        elif spec.kind == "sample":
            ensure_sample_workspace(spec.name, get_embedder(spec.embedder), progress=progress, root=target.parent)
        elif spec.kind == "index":
            Workspace.open(target).ensure_index(get_embedder(spec.embedder), progress=progress)
        else:
            llm = get_llm(spec.llm) if spec.extractor == "llm" else None
            create_workspace(list(spec.inputs), target, name=spec.name, title=spec.title or spec.name,
                             embedder=get_embedder(spec.embedder), extractor=get_extractor(spec.extractor, llm=llm),
                             questions=spec.questions, progress=progress)
    except EgxError as exc:
        emit({"error": str(exc)})
        raise SystemExit(2) from None
    emit(done)


def main(argv: Sequence[str] | None = None) -> None:
    raw = json.loads(sys.stdin.read())
    raw["inputs"] = tuple(raw["inputs"])
    _child(BuildSpec(**raw))


if __name__ == "__main__":
    main()
