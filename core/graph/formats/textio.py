"""Text out of an input file: encoding detected, NUL bytes and bad bytes refused, naming the line.

:func:`iter_lines` streams a line-based file; :func:`read_text` reads a whole document. Both open the
file through :func:`~core.graph.formats.bounds.open_input`, so the size and decompression bounds hold.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits, display_name, open_input, resolve_limits, size_text


def _encoding(head: bytes) -> str:
    """``utf-8``, ``utf-8-sig`` or a UTF-16 codec, from a byte-order mark or the NUL pattern of
    UTF-16 text without one (every other byte NUL)."""
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) and not head.startswith(b"\xff\xfe\x00\x00"):
        return "utf-16"
    sample = head[:512]
    if len(sample) >= 4 and len(sample) % 2 == 0:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) == len(odd) and even.count(0) == 0:
            return "utf-16-le"
        if even.count(0) == len(even) and odd.count(0) == 0:
            return "utf-16-be"
    return "utf-8"


def iter_lines(path: Path, limits: InputLimits | None = None) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for every line of a text file (line endings kept, as ``csv`` wants),
    streamed: memory stays at one line whatever the file size.

    UTF-8 (with or without BOM) and UTF-16 (BOM, or detected from its NUL pattern) are decoded.

    Raises
    ------
    InputFormatError
        On a NUL byte (binary data), bytes that are not valid UTF-8, or a line over
        ``max_line_bytes`` — each naming the line.
    """
    lim = resolve_limits(limits)
    path = Path(path)
    name = display_name(path)
    with open_input(path, lim) as raw:
        enc = _encoding(bytes(raw.peek(4096)[:4096]) if hasattr(raw, "peek") else b"")
        if enc.startswith("utf-16"):
            text = io.TextIOWrapper(raw, encoding=enc, errors="strict", newline="")
            n = 0
            try:
                while line := text.readline(lim.max_line_bytes + 1):
                    n += 1
                    _check_line(line, n, name, lim, limit=lim.max_line_bytes)
                    yield n, line
            except UnicodeDecodeError as exc:
                raise InputFormatError(name, f"the {enc.upper()} text is malformed ({exc.reason})",
                                       "valid UTF-16 or, better, UTF-8 text", line=n + 1) from None
            return
        offset = 0
        n = 0
        while line_b := raw.readline(lim.max_line_bytes + 1):
            n += 1
            if n == 1 and line_b.startswith(b"\xef\xbb\xbf"):
                line_b = line_b[3:]
                offset = 3
            if len(line_b) > lim.max_line_bytes:
                raise InputFormatError(name, f"the line is longer than {size_text(lim.max_line_bytes)}",
                                       "a line-based text file (is a quote unbalanced, or is this not text?)", line=n)
            if b"\x00" in line_b:
                raise InputFormatError(name, nul_problem(n), "a UTF-8 text file", line=n)
            try:
                line = line_b.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputFormatError(name, f"byte {offset + exc.start} is not valid UTF-8",
                                       "UTF-8 encoded text (re-save the file as UTF-8)", line=n) from None
            offset += len(line_b)
            yield n, line


def nul_problem(line: int) -> str:
    """What a NUL byte first met on ``line`` says: a binary file on its first line; further down, text with a NUL in
    it — "binary.txt, line 3: the file looks binary" read as a contradiction to an audit.

    >>> nul_problem(1), nul_problem(402)
    ('the file looks binary (it contains NUL bytes)', 'a NUL byte, which text never holds (is this a binary file?)')
    """
    if line == 1:
        return "the file looks binary (it contains NUL bytes)"
    return "a NUL byte, which text never holds (is this a binary file?)"


def _check_line(line: str, n: int, name: str, lim: InputLimits, *, limit: int) -> None:
    if len(line) > limit:
        raise InputFormatError(name, f"the line is longer than {size_text(limit)}",
                               "a line-based text file (is a quote unbalanced, or is this not text?)", line=n)
    if "\x00" in line:
        raise InputFormatError(name, "the text contains a NUL character", "text without NUL characters", line=n)


def read_text(path: Path, limits: InputLimits | None = None) -> str:
    """File contents as text (gzip transparently, within ``limits``), with a clear error for
    binary data or a bad encoding (naming the line). UTF-16 is decoded."""
    lim = resolve_limits(limits)
    path = Path(path)
    name = display_name(path)
    with open_input(path, lim) as raw:
        data = raw.read(lim.max_bytes + 1)
    if len(data) > lim.max_bytes:
        raise InputFormatError(name, f"the text is over the input size limit of {size_text(lim.max_bytes)}",
                               "a smaller file, or a higher limit: EGX_MAX_INPUT_MB=<megabytes>")
    enc = _encoding(data[:4096])
    if enc.startswith("utf-16"):
        try:
            text = data.decode(enc)
        except UnicodeDecodeError as exc:
            raise InputFormatError(name, f"the {enc.upper()} text is malformed ({exc.reason})",
                                   "valid UTF-16 or, better, UTF-8 text") from None
        del data
        i = text.find("\x00")
        if i >= 0:
            raise InputFormatError(name, "the text contains a NUL character", "text without NUL characters",
                                   line=text.count("\n", 0, i) + 1)
        return text
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    i = data.find(b"\x00", start)
    if i >= 0:
        n = data.count(b"\n", 0, i) + 1
        raise InputFormatError(name, nul_problem(n), "a UTF-8 text file", line=n)
    try:
        return data[start:].decode("utf-8") if start else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        pos = exc.start + start
        raise InputFormatError(name, f"byte {pos} is not valid UTF-8", "UTF-8 encoded text (re-save the file as UTF-8)",
                               line=data.count(b"\n", 0, pos) + 1) from None
