"""Bounds on one input file: its size, its decompression, what kind of file it is.

Every reader opens its file through :func:`open_input`, so a gzip bomb, an oversized file, a pipe or a
folder is refused in one place, before any parsing, within :class:`InputLimits`.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import ConfigError, InputFormatError


@dataclass(frozen=True)
class InputLimits:
    """Bounds on what one input file may make the loader do, so that a hostile or careless upload (a gzip
    bomb, a name of megabytes, a file of gigabytes) is refused with a message instead of exhausting memory.

    The defaults are far beyond any real corpus (the MuSiQue sample: 3 MB uncompressed, 4x gzip
    ratio, longest entity name 227 characters) and far below what exhausts a machine. Override
    them with the environment variables named below.

    Attributes
    ----------
    max_bytes
        Uncompressed bytes per file (``EGX_MAX_INPUT_MB``, default 2048 = 2 GiB).
    max_ratio
        Uncompressed / compressed size of a ``.gz`` file (``EGX_MAX_COMPRESSION_RATIO``, default
        100; text compresses 3-10x, a gzip bomb ~1000x), checked once ``ratio_floor`` bytes came out.
    ratio_floor
        Output below this many bytes is never a bomb (16 MiB).
    max_name_chars
        Characters per entity name or relation (``EGX_MAX_NAME_CHARS``, default 1000).
    max_line_bytes
        Bytes per line of a line-based file (64 MiB; a JSON document is not line-based).
    max_pages
        Pages per PDF (``EGX_MAX_PDF_PAGES``, default 5000: a book is a few hundred; every page's text
        extraction costs time, so a file of a million empty pages is refused before it starts).
    max_members
        Files inside one zip-based document (a ``.docx``: 10,000; a real one has a few dozen).
    """

    max_bytes: int = 2048 * 1024 * 1024
    max_ratio: float = 100.0
    ratio_floor: int = 16 * 1024 * 1024
    max_name_chars: int = 1000
    max_line_bytes: int = 64 * 1024 * 1024
    max_pages: int = 5000
    max_members: int = 10_000

    @classmethod
    def from_env(cls) -> InputLimits:
        """The defaults, overridden by ``EGX_MAX_INPUT_MB``, ``EGX_MAX_COMPRESSION_RATIO``,
        ``EGX_MAX_NAME_CHARS`` and ``EGX_MAX_PDF_PAGES`` when set."""
        d = cls()
        try:
            mb = float(os.environ.get("EGX_MAX_INPUT_MB") or d.max_bytes / 2**20)
            ratio = float(os.environ.get("EGX_MAX_COMPRESSION_RATIO") or d.max_ratio)
            names = int(os.environ.get("EGX_MAX_NAME_CHARS") or d.max_name_chars)
            pages = int(os.environ.get("EGX_MAX_PDF_PAGES") or d.max_pages)
        except ValueError as exc:
            raise ConfigError(f"An EGX_MAX_* environment variable is not a number ({exc}).") from None
        if mb <= 0 or ratio <= 1 or names < 1 or pages < 1:
            raise ConfigError(f"EGX_MAX_INPUT_MB={mb}, EGX_MAX_COMPRESSION_RATIO={ratio}, EGX_MAX_NAME_CHARS={names}, "
                              f"EGX_MAX_PDF_PAGES={pages}: use positive values (a ratio above 1).")
        return cls(max_bytes=int(mb * 2**20), max_ratio=ratio, max_name_chars=names, max_pages=pages)


def resolve_limits(limits: InputLimits | None) -> InputLimits:
    """``limits``, or :meth:`InputLimits.from_env` when None."""
    return limits if limits is not None else InputLimits.from_env()


def size_text(n: float) -> str:
    """A byte count as errors show it (``1.5 MB``, ``12.0 KB``)."""
    return f"{n / 2**20:,.1f} MB" if n >= 2**20 else f"{n / 1024:,.1f} KB"


# --------------------------------------------------------------------------- how errors name a file
def display_name(path: Path) -> str:
    """How an error names a file it read: by its file name."""
    return path.name


def base_suffix(path: Path) -> str:
    """Suffix ignoring a trailing ``.gz`` (``a.jsonl.gz`` → ``.jsonl``)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def file_stem(path: Path) -> str:
    """The file name without ``.gz`` and its last suffix (``a.jsonl.gz`` → ``a``): default passage ids and titles."""
    name = path.name
    for suf in (".gz",):
        if name.lower().endswith(suf):
            name = name[: -len(suf)]
    return name.rsplit(".", 1)[0] if "." in name else name


#: (resolved path, size, mtime) -> uncompressed bytes of each ``.gz`` file already checked: detection and then
#: the reader open the same file, and it is decompressed for the check only once
_GZ_CHECKED: dict[tuple[str, int, int], int] = {}


def _check_gzip(path: Path, size: int, lim: InputLimits) -> None:
    """Stream-decompress ``path`` once, discarding the output, and refuse it before any parsing
    when it is corrupt, larger than ``max_bytes`` or compressed more than ``max_ratio``."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key in _GZ_CHECKED:
        return
    name = display_name(path)
    cap = max(lim.ratio_floor, int(lim.max_ratio * max(size, 1)))
    out = 0
    try:
        with gzip.open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                out += len(chunk)
                if out > lim.max_bytes:
                    raise InputFormatError(
                        name, f"it decompresses to more than {size_text(lim.max_bytes)} (the input size limit)",
                        "a smaller file, or a higher limit: EGX_MAX_INPUT_MB=<megabytes>")
                if out > cap:
                    raise InputFormatError(
                        name, f"it decompresses to more than {size_text(out)} from {size_text(size)} (a compression "
                              f"ratio above {lim.max_ratio:g}:1 — a gzip bomb, or extremely repetitive data)",
                        "real text, which compresses 3-10x (raise the limit with EGX_MAX_COMPRESSION_RATIO if this "
                        "file is genuine)")
    except (OSError, EOFError, zlib.error) as exc:
        raise InputFormatError(name, f"the gzip data is corrupt ({exc})", "a valid .gz file") from None
    if len(_GZ_CHECKED) > 256:
        _GZ_CHECKED.clear()
    _GZ_CHECKED[key] = out


@contextlib.contextmanager
def open_input(path: Path, limits: InputLimits | None = None) -> Iterator[Any]:
    """``path`` as a binary stream, gunzipped transparently, within ``limits``.

    A ``.gz`` file (by its magic bytes) is first decompressed once without keeping the output, so
    a bomb is refused in constant memory before any parsing; a plain file is refused by its size.

    Raises
    ------
    InputFormatError
        Missing file, a folder, a pipe or device, corrupt gzip, over the size or compression-ratio limit.
    """
    lim = resolve_limits(limits)
    path = Path(path)
    try:
        st = path.stat()
        size = st.st_size
        if path.is_dir():
            raise IsADirectoryError(str(path))
        if not stat.S_ISREG(st.st_mode):  # open() on a FIFO with no writer would wait forever
            raise InputFormatError(str(path), "this is not a regular file (a pipe, socket or device)",
                                   "a path to a file saved on disk")
        fh: Any = open(path, "rb")
    except FileNotFoundError:
        raise InputFormatError(str(path), "the file does not exist", "a path to an existing file") from None
    except IsADirectoryError:
        raise InputFormatError(str(path), "this is a folder",
                               "a file (folders are accepted only for named KGs)") from None
    except PermissionError:
        raise InputFormatError(str(path), "the file cannot be read (permission denied)", "a readable file") from None
    try:
        if fh.peek(2)[:2] == b"\x1f\x8b":
            fh.close()
            _check_gzip(path, size, lim)
            fh = gzip.open(path, "rb")
        elif size > lim.max_bytes:
            raise InputFormatError(display_name(path), f"the file is {size_text(size)}, over the input size limit "
                                   f"of {size_text(lim.max_bytes)}",
                                   "a smaller file, or a higher limit: EGX_MAX_INPUT_MB=<megabytes>")
        yield fh
    except (OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, InputFormatError):
            raise
        raise InputFormatError(display_name(path), f"the file could not be read ({exc})",
                               "a valid, readable file") from None
    finally:
        fh.close()


def read_bytes(path: Path, limits: InputLimits | None = None) -> bytes:
    """The whole of ``path`` (gunzipped, within ``limits``): what a reader gets that needs random access to its
    file (a PDF, a zip-based document).

    Raises
    ------
    InputFormatError
        As :func:`open_input`, and when the (uncompressed) content is over ``max_bytes``.
    """
    lim = resolve_limits(limits)
    with open_input(path, lim) as raw:
        data: bytes = raw.read(lim.max_bytes + 1)
    if len(data) > lim.max_bytes:
        raise InputFormatError(display_name(Path(path)), f"the file is over the input size limit of "
                               f"{size_text(lim.max_bytes)}", "a smaller file, or a higher limit: EGX_MAX_INPUT_MB=<megabytes>")
    return data
