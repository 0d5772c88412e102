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
* **Outputs a user names** (``--trace FILE``, ``--out FILE``, ``--out DIR``): the one way egx writes to a
  path a person typed. Every write goes through these:

  - a **file**: :func:`write_output_text` / :func:`write_output_bytes` / :func:`write_output_json`
    (:func:`check_output_file` checks a path up front, before hours of work, and writes nothing). The
    target must be a regular file or not exist yet; a folder, a device (``/dev/null``, ``/dev/full``), a
    named pipe, a socket or a symbolic link (``/dev/stdout`` is one) is refused with
    :class:`~core.errors.OutputPathError`, because the file is written whole beside it and renamed into
    place, which would *replace* the device or the link — as root, ``--trace /dev/null`` once left the
    machine without its ``/dev/null``. Streaming into such a target instead is not offered: a stream
    cannot be written atomically, and ``egx ask --json`` already prints to standard output.
  - a **folder**: :func:`output_folder` (and :func:`check_output_folder`, which creates nothing). It
    must be missing (it is created), empty, or one egx made: egx leaves :data:`OUTPUT_MARKER` in every
    output folder it creates or first writes into, and a caller may name the files that make an older
    folder its own (a benchmark's ``run.json``). ``egx bench --out /`` or ``--out ~/thesis`` is refused
    and nothing is written there.

  The ``egx`` command declares its path options with :func:`core.cli_support.output_file_arg` /
  :func:`~core.cli_support.output_folder_arg`, which run these checks while the arguments are parsed.
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
from collections.abc import Callable, Iterator
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
    _refuse_special(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_sibling(path)
    try:
        yield tmp
        if durable:
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
        _refuse_special(path)  # again: it may have appeared while the data was written
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


# ------------------------------------------------------------------------------------ outputs a user names
#: the file egx leaves in every output folder it creates or first writes into: what makes a folder egx's own
OUTPUT_MARKER = ".egx-output"
OUTPUT_FORMAT = "egx-output"


def _kind(mode: int) -> str:
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


def _special(path: Path) -> str:
    """What ``path`` is when it exists and is not a regular file (a symbolic link counts as itself, even one
    to a regular file: renaming onto it replaces the link), else ``""``."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # missing, or a parent is no folder: the write itself says so
        return ""
    if stat.S_ISREG(mode):
        return ""
    kind = _kind(mode)
    if stat.S_ISLNK(mode):
        with contextlib.suppress(OSError):
            kind += f" (to {os.readlink(path)})"
    return kind


def _refuse_special(path: Path) -> None:
    kind = _special(path)
    if kind:
        raise OutputPathError(f"{path} is {kind}; egx writes a file whole beside its target and renames it into "
                              f"place, which would replace {'the link' if kind.startswith('a symbolic') else 'it'}, "
                              "so it writes only to regular files. Nothing was written. Give the path of a regular "
                              "file (or of one to create).")


def _shown(path: str | Path) -> str:
    text = str(path)
    return text if len(text) <= 200 else text[:197] + "..."


def check_output_file(path: str | Path, *, flag: str = "", example: str = "out.json") -> Path:
    """``path`` if egx may write an output file there; creates and writes nothing.

    The file may exist (a regular file is replaced whole) or not (its missing folders are created when it is
    written). Refused: an empty path, a folder, a device, a named pipe, a socket, a symbolic link, or a path
    whose nearest existing folder is a file or cannot be written to.

    Parameters
    ----------
    path
        The path as the user gave it.
    flag
        The option that named it (``"--trace"``), for the message; ``""`` says "The output file".
    example
        A file name for the message's example when ``path`` is a folder.

    Raises
    ------
    OutputPathError
        Naming the path, what it is and what to give instead.

    Example
    -------
    >>> check_output_file(tmp_path / "runs" / "trace.json", flag="--trace")   # doctest: +SKIP
    PosixPath('.../runs/trace.json')
    """
    text = str(path)
    who = f"{flag} {_shown(text)}" if flag else f"The output file {_shown(text)}"
    if not text.strip():
        raise OutputPathError(f"{flag or 'The output file'} is empty; give a file path.")
    p = Path(text)
    kind = _special(p)
    if kind == "a folder":
        hint = f"{flag} {p / example}" if flag else str(p / example)
        raise OutputPathError(f"{who} is a folder; give a file name, e.g. {hint}.")
    if kind:
        raise OutputPathError(f"{who} is {kind}; egx writes its outputs whole beside the target and renames them "
                              "into place, which would replace it, so it writes only to regular files. Nothing was "
                              "written. Give the path of a regular file (or of one to create).")
    _check_parent(p, who)
    return p


def _check_parent(p: Path, who: str) -> None:
    """The nearest existing folder above ``p`` must be a folder egx can write into."""
    parent = p.parent
    while True:
        try:
            st = os.stat(parent)  # a symbolic link to a folder is followed: writing inside it is fine
        except FileNotFoundError:
            if parent.parent == parent:
                return
            parent = parent.parent
            continue
        except OSError as exc:
            raise OutputPathError(f"{who}: its folder {parent} cannot be used ({exc.strerror}); pick another "
                                  "path.") from None
        break
    if not stat.S_ISDIR(st.st_mode):
        raise OutputPathError(f"{who}: {parent} is {_kind(st.st_mode)}, not a folder; pick another path.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputPathError(f"{who}: its folder {parent} cannot be written to (permission denied); pick "
                              "another path.")


def write_output_bytes(path: str | Path, data: bytes, *, flag: str = "") -> Path:
    """Write ``data`` to the user-named file ``path``: checked (:func:`check_output_file`), then written
    atomically (its folder created when missing). Returns the path."""
    p = check_output_file(path, flag=flag)
    atomic_write_bytes(p, data)
    return p


def write_output_text(path: str | Path, text: str, *, flag: str = "") -> Path:
    """:func:`write_output_bytes` of UTF-8 ``text``."""
    return write_output_bytes(path, text.encode("utf-8"), flag=flag)


def write_output_json(path: str | Path, obj: Any, *, flag: str = "", indent: int | None = 2) -> Path:
    """:func:`write_output_bytes` of ``obj`` as UTF-8 JSON."""
    return write_output_text(path, json.dumps(obj, indent=indent, ensure_ascii=False), flag=flag)


def is_output_folder(path: str | Path) -> bool:
    """Whether ``path`` is a folder that carries egx's :data:`OUTPUT_MARKER` (a regular file, not a link)."""
    try:
        return stat.S_ISREG(os.lstat(Path(path) / OUTPUT_MARKER).st_mode)
    except OSError:
        return False


def check_output_folder(path: str | Path, *, flag: str = "", what: str = "output folder",
                        ours: Callable[[Path], bool] | None = None, app: str | None = None) -> Path:
    """``path`` if egx may write its output files into it; creates and writes nothing (see
    :func:`output_folder`, which does both)."""
    return _output_folder(Path(path), flag=flag, what=what, ours=ours, app=app, create=False)


def output_folder(path: str | Path, *, flag: str = "", what: str = "output folder",
                  ours: Callable[[Path], bool] | None = None, app: str | None = None) -> Path:
    """``path`` as an output folder of egx's: created when missing, with :data:`OUTPUT_MARKER` in it.

    An existing folder is taken when it is empty (lock files aside), carries the marker, or ``ours(path)`` says it holds egx's
    files from before the marker existed (then the marker is added); any other folder — ``/``, a home folder,
    a thesis — is refused, and nothing is written into it.

    Parameters
    ----------
    path
        The folder as the user gave it (a symbolic link to a folder is followed).
    flag
        The option that named it (``"--out"``), for the message.
    what
        What the folder is, for the message (``"benchmark folder"``).
    ours
        Whether an unmarked, non-empty folder holds egx's own output of this kind (e.g. a valid ``run.json``).
    app
        The refusal in the app's words (:class:`~core.errors.EgxError`'s ``app``), when it differs.

    Raises
    ------
    OutputPathError
        When ``path`` is a file, a device or other non-folder, a folder neither empty nor egx's, or cannot
        be created.

    Example
    -------
    >>> out = output_folder("runs/musique", flag="--out", what="benchmark folder")   # doctest: +SKIP
    """
    return _output_folder(Path(path), flag=flag, what=what, ours=ours, app=app, create=True)


def _output_folder(p: Path, *, flag: str, what: str, ours: Callable[[Path], bool] | None, app: str | None,
                   create: bool) -> Path:
    who = f"The {what} {_shown(p)}" + (f" ({flag})" if flag else "")
    if not str(p).strip():
        raise OutputPathError(f"The {what}{f' ({flag})' if flag else ''} is empty; give a folder.", app=app)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputPathError(f"{who} cannot be used ({exc.strerror}); pick another folder.", app=app) from None
    if st is not None and not stat.S_ISDIR(st.st_mode):
        raise OutputPathError(f"{who} is {_kind(st.st_mode)}; give a folder (it is created when missing).", app=app)
    if st is None:
        _check_parent(p, who)
        if create:
            try:
                p.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OutputPathError(f"{who} cannot be created ({exc.strerror}); pick another one.",
                                      app=app) from None
            _mark(p, what)
        return p
    if is_output_folder(p):
        return p
    try:  # lock files (".<name>.lock", path_lock's) hold no data: a folder of only those counts as empty
        entries = sorted(e for e in os.listdir(p) if not (e.startswith(".") and e.endswith(".lock")))
    except OSError as exc:
        raise OutputPathError(f"{who} cannot be read ({exc.strerror}); pick another folder.", app=app) from None
    if entries and not (ours is not None and ours(p)):
        shown = ", ".join(repr(e) for e in entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3 else "")
        raise OutputPathError(f"{who} is not empty and egx did not make it (it holds {shown} and no "
                              f"{OUTPUT_MARKER}), so egx will not write into it. Nothing was written. Give a new or "
                              "an empty folder.", app=app)
    if create:
        _mark(p, what)
    return p


def _mark(folder: Path, what: str) -> None:
    atomic_write_json(folder / OUTPUT_MARKER, {"format": OUTPUT_FORMAT, "what": what}, indent=None)


def open_append(path: str | Path) -> IO[str]:
    """``path`` opened for appending UTF-8 text (created when missing), refusing anything but a regular file
    (``O_NOFOLLOW``: a symbolic link planted in an output folder is not followed out of it)."""
    p = Path(path)
    _refuse_special(p)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(p, flags | getattr(os, "O_NONBLOCK", 0), 0o666)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OutputPathError(f"{p} is {_kind(mode)}; egx appends only to regular files. Nothing was written.")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return open(fd, "a", encoding="utf-8")


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
        raise DataFileError(f"The {what} {p} is {_kind(mode)}, not a regular file; it was not read.")
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


def clean_filename(name: object, *, default: str = "upload") -> str:
    """A harmless file name for an uploaded file's ``name`` (the last path part, unsafe characters
    replaced by ``-``, at most 100 characters, the suffixes kept so the format is still detected)."""
    base = re.split(r"[/\\]", str(name or ""))[-1]
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", base).lstrip(".-")
    if len(base) > 100:
        stem, _, suffix = base.partition(".")
        suffix = suffix[-20:]
        base = f"{stem[: 99 - len(suffix)]}.{suffix}" if suffix else base[:100]
    if not base:
        return default
    if base.split(".", 1)[0].lower() in _RESERVED:
        base = f"{default}-{base}"
    return base
