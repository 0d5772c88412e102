"""Rows of a delimited file (CSV, TSV), streamed, with the line each row starts on.

An unbalanced quote, a stray carriage return and a file separated by something other than the expected
delimiter each get a message naming the line, instead of rows silently merged or split.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from core.errors import InputFormatError
from core.graph.formats.bounds import base_suffix, display_name

# csv's own bound (128 KiB a field) would report an over-long name as a parse error: let a field be as long
# as a line may be (64 MiB), so that the name-length bound of InputLimits reports it by name instead
csv.field_size_limit(1 << 26)

_DELIM_NAMES = {";": "semicolon", "|": "pipe", ":": "colon", " ": "space"}


def sniff_delimiter(path: Path, first: str) -> str:
    """TAB for ``.tsv`` / ``.txt`` or a first line with tabs and no comma, else a comma."""
    suffix = base_suffix(path)
    if suffix == ".tsv" or suffix == ".txt":
        return "\t"
    if "\t" in first and "," not in first:
        return "\t"
    return ","


def delimiter_hint(first: str, delim: str) -> str:
    """A hint when the first line looks separated by something other than ``delim``."""
    counts = {d: first.count(d) for d in (";", "|", "\t", ",") if d != delim}
    best = max(counts, key=lambda d: counts[d])
    if counts[best] >= 2 and first.count(delim) < 2:
        shown = "TAB" if best == "\t" else repr(best)
        label = _DELIM_NAMES.get(best, "tab" if best == "\t" else "comma")
        return (f" (the first line has {counts[best]} {shown} characters: is the file {label}-separated? "
                "Save it with commas (.csv) or tabs (.tsv))")
    return ""


def csv_rows(path: Path, lines: Iterable[tuple[int, str]], delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """CSV rows as ``(line where the row starts, cells)``, streamed from ``lines``.

    Every CSV/TSV we read holds names and ids, never free text, so a field running over several
    lines is an unbalanced quote: it is reported at the line where the quote opened (not at the
    end of the file, where the swallowed rows finally end)."""
    name = display_name(path)
    pos = {"line": 0}

    def feed() -> Iterator[str]:
        for n, line in lines:
            pos["line"] = n
            body = line.rstrip("\r\n")
            if "\r" in body and '"' not in body:
                raise InputFormatError(name, "a carriage return (\\r) in the middle of the line",
                                       "lines ending in \\n or \\r\\n (re-save the file with Unix or Windows line "
                                       "endings, or quote the field)", line=n)
            yield line

    reader = csv.reader(feed(), delimiter=delimiter)
    start = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputFormatError(name, f"CSV parse error ({exc})",
                                   "well-formed CSV/TSV (quote fields that contain the delimiter)",
                                   line=pos["line"]) from None
        end = reader.line_num
        if end > start and any("\n" in c or "\r" in c for c in row):
            raise InputFormatError(name, f"a quote opened on this line is not closed before line {end} (one field "
                                   f"swallowed {end - start + 1} lines)",
                                   'balanced double quotes ("...") around fields that contain the delimiter',
                                   line=start)
        if row and not all(not c.strip() for c in row) and not (row[0].lstrip().startswith("#") and end == 1):
            yield start, row
        start = end + 1


def pick_column(header: Sequence[str], names: Sequence[str]) -> int | None:
    """The index of the first of ``names`` found in ``header`` (case and spaces ignored), or None."""
    low = [h.strip().lower() for h in header]
    for n in names:
        if n in low:
            return low.index(n)
    return None
