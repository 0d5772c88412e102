"""Safe file-system primitives shared by the whole engine.

* **Atomic writes** — :func:`atomic_write_bytes` / :func:`atomic_write_text` / :func:`atomic_write_json`
  and, for libraries that write by file name (FAISS, torch), :func:`atomic_path`. The data goes to a
  temporary sibling whose name is unique per process, thread *and* call (app sessions are threads
  of one process, so a PID alone collides), is flushed and ``fsync``-ed, then renamed over the
  target, and the folder is ``fsync``-ed so the rename survives a power cut. A reader sees the old
  file or the new one, never a torn one; a failed write leaves no temporary file behind.
* **Locks** — :func:`path_lock` is an inter-process *and* inter-thread lock (``filelock``; Linux
  ``flock`` locks belong to one open file, so two threads with two lock objects exclude each
  other) kept in a hidden sibling ``.<name>.lock`` that is never listed as data.
* **Directory swap** — :func:`exchange` atomically swaps two folders (Linux ``renameat2`` with
  ``RENAME_EXCHANGE``), so replacing a workspace never has a moment with nothing at its path;
  callers fall back to two renames plus recovery where the file system cannot.
* **Names a user may choose** — :func:`safe_name` accepts a run or workspace *name* (never a path)
  and :func:`child_path` joins it under a root folder; :func:`clean_filename` turns an uploaded
  file's name into a harmless one. One rule for every page and for the CLI where names are meant.
* **Outputs a user names** (``--trace FILE``, ``--out FILE``, ``--out DIR``): the one writer for those is
  :mod:`core.outputs` (``write_output_text``, ``output_folder`` ...), built on the atomic writes here: a
  device, named pipe or symbolic link is never renamed over, and an output folder must be new, empty or
  egx-made (its ``.egx-output`` marker).
* **Every atomic write** refuses to rename over anything but a regular file (:func:`atomic_path`), so
  even a path egx chose itself never replaces a device, a named pipe or a symbolic link.
* **Files read as data** — :func:`read_data_file`: a trained model, its manifest, a cached model are
  read only when they are regular files (a symbolic link to one is followed) no larger than a bound the
  caller gives, checked before the first byte is read (a weights file linked to ``/dev/zero`` is
  refused, not read until memory runs out).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import stat
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from core.errors import DataFileError, NameNotAllowedError, OutputPathError

MAX_NAME_CHARS = 64
_NAME_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
NAME_RULE = (f"1-{MAX_NAME_CHARS} letters, digits, '-', '_' or '.', starting with a letter or digit "
             "(a name, not a path)")


# ------------------------------------------------------------------------------------ temp names
def unique_suffix() -> str:
    """``<pid>-<thread id>-<random>``: unique across processes, threads and calls."""
    return f"{os.getpid()}-{threading.get_ident() % 10**8}-{uuid.uuid4().hex[:10]}"


def temp_sibling(path: Path, tag: str = "tmp") -> Path:
    """A hidden, unique sibling name for ``path`` (``.<name>.<tag>-<pid>-<tid>-<rand>``)."""
    path = Path(path)
    return path.with_name(f".{path.name}.{tag}-{unique_suffix()}")


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (renames, creations) to disk; a no-op where folders cannot be opened."""
    try:
        fd = os.open(str(folder), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------------ atomic writes
@contextlib.contextmanager
def atomic_path(path: str | Path, *, durable: bool = True) -> Iterator[Path]:
    """Yield a unique temporary path; on success it is fsync-ed and renamed onto ``path``
    (``durable=False``: renamed without the fsyncs, see :func:`atomic_writer`).

    For writers that take a file name (``faiss.write_index``, ``torch.save``). On an exception the
    temporary file is removed and ``path`` is untouched. A ``path`` that exists and is not a regular file
    (a folder, a device, a named pipe, a socket, a symbolic link) is refused with
    :class:`~core.errors.OutputPathError` before anything is written: renaming onto it would replace it.

    Example
    -------
    >>> with atomic_path(p) as tmp:          # doctest: +SKIP
    ...     faiss.write_index(index, str(tmp))
    """
    path = Path(path)
    refuse_special(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_sibling(path)
    try:
        yield tmp
        if durable:
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
        refuse_special(path)  # again: it may have appeared while the data was written
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if durable:
        fsync_dir(path.parent)


@contextlib.contextmanager
def atomic_writer(path: str | Path, mode: str = "wb", *, encoding: str | None = None,
                  durable: bool = True) -> Iterator[IO[Any]]:
    """Yield an open temporary file; on success it is flushed, fsync-ed and renamed onto ``path``.

    ``durable=False`` skips the fsync (the rename stays atomic, so a reader still sees the old or
    the new file whole while the machine runs): for caches whose reader rejects a damaged entry and
    recomputes it, where an fsync per small file would cost more than the work it saves.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_writer mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path, durable=durable) as tmp:
        enc = (encoding or "utf-8") if mode == "w" else None
        with open(tmp, mode, encoding=enc) as fh:
            yield fh
            fh.flush()


def atomic_write_bytes(path: str | Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (see the module docstring and :func:`atomic_writer`)."""
    with atomic_writer(path, "wb", durable=durable) as fh:
        fh.write(data)


def atomic_write_text(path: str | Path, text: str, *, durable: bool = True) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def atomic_write_json(path: str | Path, obj: Any, *, indent: int | None = 2) -> None:
    """Write ``obj`` as UTF-8 JSON to ``path`` atomically."""
    atomic_write_text(path, json.dumps(obj, indent=indent, ensure_ascii=False))


def egx_home() -> Path:
    """Where egx keeps its data (workspaces, uploads, model folders): ``$EGX_HOME`` or ``~/.local/share/egx``."""
    return Path(os.environ.get("EGX_HOME") or Path.home() / ".local" / "share" / "egx")


# ------------------------------------------------------------------------------------ what a path is
def file_kind(mode: int) -> str:
    """What a file of ``mode`` is, in words (for the messages)."""
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def special_file(path: Path) -> str:
    """What ``path`` is when it exists and is not a regular file (a symbolic link counts as itself, even one
    to a regular file: renaming onto it replaces the link), else ``""``."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # missing, or a parent is no folder: the write itself says so
        return ""
    if stat.S_ISREG(mode):
        return ""
    kind = file_kind(mode)
    if stat.S_ISLNK(mode):
        with contextlib.suppress(OSError):
            kind += f" (to {os.readlink(path)})"
    return kind


def refuse_special(path: Path) -> None:
    """Raise :class:`~core.errors.OutputPathError` when ``path`` exists and is not a regular file (renaming onto it
    would replace it)."""
    kind = special_file(path)
    if kind:
        raise OutputPathError(f"{path} is {kind}; egx writes a file whole beside its target and renames it into "
                              f"place, which would replace {'the link' if kind.startswith('a symbolic') else 'it'}, "
                              "so it writes only to regular files. Nothing was written. Give the path of a regular "
                              "file (or of one to create).")


# ------------------------------------------------------------------------------------ files read as data
def read_data_file(path: str | Path, *, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of a file egx reads as data, checked before the first byte is read: a regular file (a
    symbolic link to one is followed) of at most ``max_bytes``.

    Opened without blocking (a named pipe put in its place cannot hang the reader) and checked again on the
    open file, so a swap between the check and the read is caught too.

    Raises
    ------
    FileNotFoundError
        When it does not exist.
    DataFileError
        When it is a device, a named pipe, a socket or a folder, or larger than ``max_bytes`` — naming
        ``what``, the path and the bound.
    """
    p = Path(path)
    st = os.stat(p)
    _data_check(p, st.st_mode, st.st_size, max_bytes, what)
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        _data_check(p, st.st_mode, st.st_size, max_bytes, what)
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        _data_check(p, stat.S_IFREG, len(data), max_bytes, what)
    return data


def check_data_file(path: str | Path, *, max_bytes: int, what: str = "file") -> None:
    """Raise :class:`~core.errors.DataFileError` unless ``path`` is a regular file (a symbolic link to one is
    followed) of at most ``max_bytes``; reads nothing (:func:`read_data_file` checks again when it reads).
    ``FileNotFoundError`` when it does not exist."""
    st = os.stat(path)
    _data_check(Path(path), st.st_mode, st.st_size, max_bytes, what)


def _data_check(p: Path, mode: int, size: int, max_bytes: int, what: str) -> None:
    if not stat.S_ISREG(mode):
        raise DataFileError(f"The {what} {p} is {file_kind(mode)}, not a regular file; it was not read.")
    if size > max_bytes:
        raise DataFileError(f"The {what} {p} is {size:,} bytes, more than any {what} can be ({max_bytes:,}); it was "
                            "not read.")


# ------------------------------------------------------------------------------------ locks
def lock_file(path: str | Path) -> Path:
    """Where the lock of ``path`` lives: a hidden sibling ``.<name>.lock``."""
    path = Path(path)
    return path.with_name(f".{path.name}.lock")


def path_lock(path: str | Path) -> Any:
    """An exclusive lock on ``path`` shared by processes and threads (``filelock.FileLock``).

    ``with path_lock(p):`` waits; ``path_lock(p).acquire(timeout=0)`` raises ``filelock.Timeout``
    at once when someone else holds it. The lock is re-entrant within a thread (one lock object
    per path, with per-thread state) and exclusive between threads: each thread holds its own
    ``flock`` file descriptor, and Linux ``flock`` locks conflict between open files even within
    one process.
    """
    from filelock import FileLock

    lf = lock_file(path)
    lf.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(lf), thread_local=True, is_singleton=True)


@contextlib.contextmanager
def held_if_free(path: str | Path) -> Iterator[bool]:
    """Hold ``path``'s lock for the block if nobody holds it (not another process or thread, nor this
    thread: the lock is re-entrant); yields whether it is held, never waits."""
    from filelock import Timeout

    lock = path_lock(path)
    if lock.is_locked:
        yield False
        return
    try:
        lock.acquire(timeout=0)
    except (Timeout, OSError):
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


def remove_stale_locks(folder: str | Path) -> list[str]:
    """Delete the lock files in ``folder`` whose path is gone (a deleted workspace's ``.NAME.lock``), each
    only while holding it, so a lock someone holds or waits on is never removed. Returns the names
    removed. ``filelock`` leaves a lock file behind on release (removing it then would race), so
    without this they accumulate for every workspace, run or upload ever made."""
    removed: list[str] = []
    try:
        entries = [p for p in Path(folder).iterdir() if p.name.startswith(".") and p.name.endswith(".lock")]
    except OSError:
        return removed
    for lf in entries:
        target = lf.with_name(lf.name[1:-len(".lock")])
        if not target.name or target.exists():
            continue
        with held_if_free(target) as held:
            if held and not target.exists():
                lf.unlink(missing_ok=True)
                removed.append(lf.name)
    return removed


# ------------------------------------------------------------------------------------ folders
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange(a: str | Path, b: str | Path) -> bool:
    """Atomically swap the entries ``a`` and ``b`` (both must exist). False where unsupported.

    Uses Linux ``renameat2(..., RENAME_EXCHANGE)``: there is no moment at which either path is
    missing, so a kill at any point leaves a complete folder at both.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rc = fn(_AT_FDCWD, os.fsencode(str(a)), _AT_FDCWD, os.fsencode(str(b)), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: this file system / kernel cannot
        return False
    raise OSError(err, os.strerror(err), str(a), None, str(b))


# ------------------------------------------------------------------------------------ names
def safe_name(name: object, *, kind: str = "name") -> str:
    """``name`` if a user may use it as a folder name under one of the project's roots.

    Rejects anything that could leave the root or hide there: path separators, ``.``/``..``,
    hidden names (leading dot), a leading ``-`` (reads as an option), control characters,
    Windows device names (``con``, ``nul``, ``com1`` ...), and names over
    :data:`MAX_NAME_CHARS` characters.

    Raises
    ------
    NameNotAllowedError
        Naming the value, what is wrong with it and the rule.

    Example
    -------
    >>> safe_name("musique-run1", kind="run name")
    'musique-run1'
    """
    text = "" if name is None else str(name)
    shown = text if len(text) <= 80 else text[:77] + "..."
    problem = _name_problem(text)
    if problem:
        raise NameNotAllowedError(f"The {kind} {shown!r} is not allowed: {problem}. Use {NAME_RULE}.")
    return text


def _name_problem(text: str) -> str:
    if not text.strip():
        return "it is empty"
    if any(sep in text for sep in ("/", "\\")):
        return "it contains a path separator"
    if text in (".", ".."):
        return "it names a folder above or the folder itself"
    if text.startswith("."):
        return "it starts with '.' (hidden names are reserved for the project's own files)"
    if text.startswith("-"):
        return "it starts with '-'"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        return "it contains a control character"
    if len(text) > MAX_NAME_CHARS:
        return f"it is {len(text)} characters long (at most {MAX_NAME_CHARS})"
    if text.split(".", 1)[0].lower() in _RESERVED:
        return "it is a reserved device name"
    if not _NAME_OK.match(text):
        bad = sorted({ch for ch in text if not (ch.isascii() and (ch.isalnum() or ch in "-_."))})
        return f"it contains {', '.join(repr(c) for c in bad[:5])}"
    return ""


def child_path(root: str | Path, name: object, *, kind: str = "name") -> Path:
    """``root / name`` for a user-chosen ``name`` checked by :func:`safe_name` (never escapes ``root``)."""
    root = Path(root)
    p = root / safe_name(name, kind=kind)
    if p.resolve().parent != root.resolve():  # belt and braces: symlinks in the root
        raise NameNotAllowedError(f"The {kind} {name!r} does not stay inside {root}.")
    return p


def clean_filename(name: object, *, default: str = "upload", spaces: bool = False) -> str:
    """A harmless file name for an uploaded file's ``name`` (the last path part, unsafe characters
    replaced by ``-``, at most 100 characters, the suffixes kept so the format is still detected). ``spaces``: keep
    single spaces and letters beyond ASCII (an upload's name, whose stem titles a document without a heading: audit
    46's "Brennick Clockworks.txt" was titled "Brennick-Clockworks", so gold titles written from it matched nothing);
    without it the name is ASCII letters, digits, ``_``, ``.`` and ``-`` (run and workspace names)."""
    base = re.split(r"[/\\]", str(name or ""))[-1]
    if spaces:
        base = re.sub(r" +(?=\.)", "", re.sub(r"[^\w. -]+", "-", " ".join(base.split()))).lstrip(".- ")
    else:
        base = re.sub(r"[^A-Za-z0-9_.-]+", "-", base).lstrip(".-")
    if len(base) > 100:
        stem, _, suffix = base.partition(".")
        suffix = suffix[-20:]
        base = f"{stem[: 99 - len(suffix)]}.{suffix}" if suffix else base[:100]
    if not base:
        return default
    if base.split(".", 1)[0].strip().lower() in _RESERVED:
        base = f"{default}-{base}"
    return base
