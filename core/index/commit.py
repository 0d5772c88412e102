"""Replacing a workspace safely: its lock, the atomic commit of a finished build, and the recovery of
what an interrupted one left behind.

A workspace is built in a hidden sibling ``.NAME.building-*`` and swapped into place only when
complete (:func:`commit`), so a failed or killed build never leaves a half-written workspace at
``NAME``. Where the file system cannot swap two folders atomically, the commit is two renames, and
:func:`recover` undoes a kill between them. Only folders that provably are egx's are ever replaced
or deleted (:func:`check_target`, :func:`recover`).
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

from core.errors import WorkspaceError
from core.fsio import exchange, fsync_dir, path_lock, remove_stale_locks, temp_sibling
from core.index.manifest import GRAPH_FILE, MANIFEST, index_dirname, is_workspace, read_manifest
from core.index.paths import method_folders


def workspace_lock(path: Path) -> Any:
    """The lock of the workspace at ``path`` (a hidden sibling ``.NAME.lock``), shared by processes
    and threads, re-entrant within a thread. Builds and index rebuilds hold it; readers never need
    it: a commit is atomic, or, where the file system cannot swap two folders, a reader waits out its
    two renames (:func:`wait_for_commit`) and reads the old workspace or the new one, never a mix
    (:class:`~core.index.workspace.Workspace`)."""
    return path_lock(Path(path))


def check_target(path: Path, overwrite: bool) -> None:
    """Refuse a workspace path egx may not create or replace (nothing is touched)."""
    resolved = path.resolve()
    if path.name in ("", ".", "..") or resolved == resolved.parent or resolved == Path.home().resolve():
        raise WorkspaceError(f"Refusing to build a workspace at {str(path)!r} ({resolved}): that names an "
                             "existing folder above or at your working directory, not a workspace folder. Nothing "
                             "was deleted. Give a new folder, e.g. --workspace ./my-graph.")
    if not path.exists() and not path.is_symlink():
        return
    if not path.is_dir() or path.is_symlink():
        raise WorkspaceError(f"{path} exists and is not a folder. Nothing was changed. Pick another --workspace.")
    if not overwrite:
        raise WorkspaceError(f"{path} already exists. Pick another name, or pass overwrite=True / --overwrite.")
    if is_workspace(path):
        return
    try:
        items = sorted(p.name for p in path.iterdir())
    except OSError:
        items = []
    if not items:
        return  # an empty folder holds nothing to lose
    shown = ", ".join(repr(n) for n in items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")
    raise WorkspaceError(f"{path} is not an egx workspace (it has no {MANIFEST} written by egx; it holds {shown}), "
                         "so --overwrite will not replace it. Nothing was deleted. Pick another --workspace folder.")


#: the longest a reader waits for a commit by two renames to put the new workspace in place (the gap between
#: the renames is microseconds; a kill inside it is undone by the next :func:`recover`)
COMMIT_WAIT_S = 10.0


def wait_for_commit(path: Path, timeout: float = COMMIT_WAIT_S) -> bool:
    """Whether a workspace manifest is at ``path``, waiting while a commit by two renames has the workspace away
    (nothing at ``NAME``, its ``.NAME.old-*`` beside it) for at most ``timeout`` s. Returns at once when no such
    commit is in flight: a reader waits only on evidence that a new workspace is about to appear."""
    path = Path(path)
    deadline = time.monotonic() + timeout
    while not (path / MANIFEST).is_file():
        if time.monotonic() > deadline or not _debris(path, "old"):
            return (path / MANIFEST).is_file()
        time.sleep(0.02)
    return True


def commit(tmp: Path, path: Path) -> None:
    """Move the complete workspace ``tmp`` to ``path``, replacing what is there."""
    if path.exists():
        if exchange(tmp, path):  # atomic: never a moment without a workspace at ``path``
            shutil.rmtree(tmp, ignore_errors=True)  # now holds the old workspace
        else:  # two renames; a kill between them is undone by recover()
            trash = temp_sibling(path, "old")
            os.rename(path, trash)
            os.rename(tmp, path)
            shutil.rmtree(trash, ignore_errors=True)
    else:
        os.rename(tmp, path)
    fsync_dir(path.parent)


_SUFFIX = r"\d+-\d+-[0-9a-f]{10}"  # core.fsio.unique_suffix(); the alternatives are older egx versions
_OUR_FILES = {MANIFEST, GRAPH_FILE, "questions.json", "index"}  # and the methods' own folders (method_folders)


def _debris(path: Path, tag: str) -> list[Path]:
    """Folders an interrupted commit (``old``) or build (``building``) of ``path`` left behind —
    only names egx writes, holding only what egx writes: a user's ``.thesis.old-2023`` is never
    touched."""
    parent = path.parent
    if not parent.is_dir():
        return []
    legacy = r"\d+" if tag == "old" else r"\d+-\d+"
    pattern = re.compile(rf"\.{re.escape(path.name)}\.{tag}-(?:{_SUFFIX}|{legacy})")
    try:
        found = [p for p in parent.iterdir() if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink()]
    except OSError:
        return []
    return [p for p in found if _only_ours(p)]


def _only_ours(folder: Path) -> bool:
    try:
        ours = _OUR_FILES | set(method_folders())
        return all(p.name in ours or p.name.startswith((".", "index.")) for p in folder.iterdir())
    except OSError:
        return False


def recover(path: Path, *, locked: bool = False) -> list[str]:
    """Undo what an interrupted build left next to the workspace at ``path``; return what was done.

    * ``.NAME.old-*`` (a commit killed between its two renames) is renamed back to ``NAME`` when
      nothing is at ``NAME`` — the previous workspace is usable again — and deleted otherwise;
    * ``.NAME.building-*`` (a killed build) is deleted;
    * index folders the manifest does not name (a killed index rebuild) are deleted.

    Takes the workspace lock without waiting; if a build holds it, nothing is touched (that
    build's own folders are not debris).
    """
    path = Path(path)
    old, building = _debris(path, "old"), _debris(path, "building")
    stale_index = _stale_index_dirs(path)
    if not (old or building or stale_index):
        return []
    from filelock import Timeout

    done: list[str] = []
    lock = None if locked else workspace_lock(path)
    try:
        if lock is not None:
            lock.acquire(timeout=0)
    except Timeout:
        return []
    try:
        old, building = _debris(path, "old"), _debris(path, "building")
        if not path.exists():
            usable = sorted((p for p in old if is_workspace(p)), key=lambda p: p.stat().st_mtime, reverse=True)
            if usable:
                os.rename(usable[0], path)
                fsync_dir(path.parent)
                done.append(f"restored {path.name} from {usable[0].name} (a replacement was interrupted)")
                old = [p for p in old if p != usable[0]]
        for p in old + building:
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed {p.name}")
        for p in _stale_index_dirs(path):
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed {path.name}/{p.name}")
    finally:
        if lock is not None:
            lock.release()
    return done


def _stale_index_dirs(path: Path) -> list[Path]:
    if not (path / MANIFEST).is_file():
        return []
    try:
        current = index_dirname(read_manifest(path))
        pattern = re.compile(rf"index(?:\.{_SUFFIX})?")
        return [p for p in path.iterdir() if p.is_dir() and pattern.fullmatch(p.name) and p.name != current]
    except (WorkspaceError, OSError):
        return []


def recover_all(root: Path) -> list[str]:
    """:func:`recover` every workspace under ``root`` that has debris next to it, and remove the lock
    files of workspaces that are gone (:func:`~core.fsio.remove_stale_locks`)."""
    done: list[str] = []
    try:
        names = {p.name[1:].rsplit(".", 1)[0] for p in Path(root).iterdir()
                 if p.name.startswith(".") and (".old-" in p.name or ".building-" in p.name)}
    except OSError:
        return done
    for n in sorted(names):
        if n and n not in (".", ".."):
            done += recover(Path(root) / n)
    done += remove_stale_locks(root)
    return done
