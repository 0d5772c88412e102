"""JSON out of an input file, with clean errors for what ``json`` would crash or hang on.

Invalid JSON names its line and column; JSON nested thousands deep and integers of thousands of digits
(both of which Python answers with a traceback, not a message) are refused with an
:class:`~core.errors.InputFormatError`. JSON Lines files are streamed, a line at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits, display_name
from core.graph.formats.textio import iter_lines, read_text

#: digits a JSON integer may have (Python refuses to read more than 4,300; no id or count needs 100)
MAX_INT_DIGITS = 100


class _BadNumber(ValueError):
    """A JSON integer of more than :data:`MAX_INT_DIGITS` digits; the text says how long."""


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _BadNumber(f"a number has {len(text.lstrip('-')):,} digits")
    return int(text)


def strict_loads(text: str) -> Any:
    """``json.loads`` that refuses integers longer than :data:`MAX_INT_DIGITS` digits with
    :class:`_BadNumber` (Python raises a bare ``ValueError`` past 4,300 digits). ``NaN`` and ``Infinity``
    are read (Python's own JSON writes them, e.g. HippoRAG's OpenIE statistics);
    :func:`~core.graph.formats.records.as_name` refuses them as names.

    >>> strict_loads('{"n": 12, "avg": NaN}')
    {'n': 12, 'avg': nan}
    """
    return json.loads(text, parse_int=_int)


_NUMBER_FIX = f"numbers of at most {MAX_INT_DIGITS} digits (a longer id written as a string)"


def parse_json(text: str, source: str, *, expected: str = "valid JSON", line: int | None = None) -> Any:
    """``json.loads`` with a clean error for invalid or absurdly deep JSON (which would otherwise
    surface as a ``RecursionError`` traceback), and for integers :func:`strict_loads` refuses.
    ``line``: the text is that line of ``source``. A whole file of whitespace only is said to be empty (json's
    "Expecting value, column 1" did not say so)."""
    if line is None and not text.strip():
        raise InputFormatError(source, "the file is empty", expected)
    try:
        return strict_loads(text)
    except json.JSONDecodeError as exc:
        at, col = (exc.lineno, exc.colno) if line is None else (line, _column_in_line(text, exc.pos))
        # json's "Unterminated string starting at" reads on with its position: the line and column, no comma
        where = f"{exc.msg} line {at}, column {col}" if exc.msg.endswith(" at") else f"{exc.msg}, column {col}"
        if line is None and exc.pos >= len(text.rstrip()):  # json names only the end: "line 2, column 1" of a cut file
            raise InputFormatError(source, f"the JSON ends before it is complete, as if the file were cut off "
                                           f"({where})", expected, line=at) from None
        raise InputFormatError(source, f"invalid JSON ({where})", expected, line=at) from None
    except _BadNumber as exc:
        raise InputFormatError(source, str(exc), _NUMBER_FIX, line=line) from None
    except RecursionError:
        raise InputFormatError(source, "the JSON is nested too deeply to read (thousands of levels)",
                               f"{expected}, nested at most a few levels deep", line=line) from None


def _column_in_line(text: str, pos: int) -> int:
    """The 1-based column of ``pos`` within one line of a file. The line keeps its ending (a streamed line
    does, for ``csv``), so an error at its end was json's "line 2, column 1" and read as "column 1": the
    ending is not part of the line, and an error past it sits just after the line's last character."""
    body = text.rstrip("\r\n")
    return min(pos, len(body)) + 1


def load_json(path: Path, text: str | None = None, *, limits: InputLimits | None = None) -> Any:
    """A JSON document: ``text`` when given, else the file read within ``limits``."""
    text = read_text(path, limits) if text is None else text
    return parse_json(text, display_name(path))


def iter_jsonl(path: Path, text: str | None = None, *, limits: InputLimits | None = None,
               expected: str = "one JSON object per line") -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-empty line of a JSON Lines file, streamed."""
    name = display_name(path)
    lines: Iterable[tuple[int, str]] = (enumerate(text.splitlines(), start=1) if text is not None
                                        else iter_lines(path, limits))
    for i, line in lines:
        if not line.strip():
            continue
        yield i, _json_line(line, name, i, expected)


def _json_line(line: str, name: str, i: int, expected: str) -> Any:
    return parse_json(line, name, expected=expected, line=i)
