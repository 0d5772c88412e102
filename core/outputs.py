"""Paths a user names for egx to write — ``--trace FILE``, ``--out FILE``, ``--out DIR`` — and the one way egx
writes to them. Every command, page and method that writes where a person pointed it goes through here
(:mod:`core.fsio` holds the atomic writes underneath).

* A **file**: :func:`write_output_text` / :func:`write_output_bytes` / :func:`write_output_json`, after
  :func:`check_output_file`, which checks a path up front (before hours of work) and writes nothing. The target
  must be a regular file or not exist yet; a folder, a device (``/dev/null``, ``/dev/full``), a named pipe, a
  socket or a symbolic link (``/dev/stdout`` is one) is refused with :class:`~core.errors.OutputPathError`,
  because the file is written whole beside it and renamed into place, which would *replace* the device or the
  link — as root, ``--trace /dev/null`` once left the machine without its ``/dev/null``. Streaming into such a
  target instead is not offered: a stream cannot be written atomically (a failure would leave half a file in
  the pipe), and ``egx ask --json`` already prints to standard output.
* A **folder**: :func:`output_folder` (and :func:`check_output_folder`, which creates nothing). It must be
  missing (it is created), empty (lock files aside), or one egx made: egx leaves :data:`OUTPUT_MARKER` in every
  output folder it creates or first writes into, and a caller names what makes an older folder its own
  (``ours``: a benchmark's valid ``run.json``, a model's ``manifest.json``). ``egx bench --out /`` or
  ``--out ~/thesis`` is refused and nothing is written there. Inside it, :func:`open_append` appends to a
  JSONL file without following a link planted in its place.

The ``egx`` command declares its path options with :func:`core.cli_support.output_file_arg` /
:func:`~core.cli_support.output_folder_arg`, which run these checks while the arguments are parsed; a test
walks every command's options (``tests/cli/test_output_paths.py``).

Example
-------
::

    check_output_file(args.trace, flag="--trace")            # at once: refuses /dev/null, a FIFO, a link
    ...                                                       # hours of work
    write_output_text(args.trace, trace_json, flag="--trace")  # atomic; checked again
    out = output_folder(args.out, flag="--out", what="benchmark folder", ours=is_bench_folder)
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from core.errors import OutputPathError
from core.fsio import atomic_write_bytes, atomic_write_json, file_kind, refuse_special, special_file

#: the file egx leaves in every output folder it creates or first writes into: what makes a folder egx's own
OUTPUT_MARKER = ".egx-output"
OUTPUT_FORMAT = "egx-output"


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
    kind = special_file(p)
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
        raise OutputPathError(f"{who}: {parent} is {file_kind(st.st_mode)}, not a folder; pick another path.")
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
        raise OutputPathError(f"{who} is {file_kind(st.st_mode)}; give a folder (it is created when missing).", app=app)
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
    refuse_special(p)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(p, flags | getattr(os, "O_NONBLOCK", 0), 0o666)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OutputPathError(f"{p} is {file_kind(mode)}; egx appends only to regular files. Nothing was written.")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return open(fd, "a", encoding="utf-8")
