"""Loaders for every input a user can upload (DESIGN.md "Data").

Each ``read_*`` function adds what it reads to a :class:`~core.graph.model.GraphBuilder` and
returns the non-fatal warnings (e.g. LLM noise skipped in an OpenIE file). A malformed input raises
one :class:`~core.errors.InputFormatError` naming the file, the line or record, what is wrong and
what was expected. Nothing is written to disk here, so a failure cannot leave a partial workspace.

:func:`load_inputs` detects the format of each path and returns one merged graph.

Supported inputs
----------------
* triples: CSV / TSV (header optional; columns head, relation, tail and an optional source chunk
  column), JSON (list of objects or of ``[h, r, t]`` lists), JSONL
* GraphML (node attribute ``name``/``label``, edge attribute ``relation``/``label``)
* a text corpus: ``.txt`` / ``.md`` files (one document each, chunked), JSON / JSONL ``{title, text}``
* HippoRAG: a corpus JSON plus its OpenIE results file (``docs[].extracted_triples``)
* a corpus graph (FastInsight §2.1): nodes JSONL ``{id, title?, text}`` + edges CSV ``source,target``
* a named KG folder (UMLS / FB15k-237 style): id-form triples plus ``entity2text`` / ``relation2text``
* an ``egx`` graph export (JSON written by :meth:`KnowledgeGraph.to_dict`)

Any of these may be gzip-compressed (``.gz``).
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import math
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import ConfigError, EmptyGraphError, InputFormatError
from core.graph.chunking import CHUNK_CHARS, PASSAGE_SPLIT_CHARS, chunk_text
from core.graph.model import BadNameError, GraphBuilder, GraphKind, KnowledgeGraph

HEAD_NAMES = ("head", "subject", "subj", "source_entity", "h", "s", "from_entity")
REL_NAMES = ("relation", "predicate", "rel", "relationship", "r", "p", "edge")
TAIL_NAMES = ("tail", "object", "obj", "target_entity", "t", "o", "to_entity")
SRC_NAMES = ("source", "chunk", "chunk_id", "source_chunk", "doc", "doc_id", "passage", "provenance")
EDGE_SRC_NAMES = ("source", "src", "from", "head", "source_id")
EDGE_DST_NAMES = ("target", "dst", "to", "tail", "target_id")
TRIPLE_EXPECTED = "3 columns (head, relation, tail) or 4 (head, relation, tail, source chunk)"

csv.field_size_limit(1 << 26)


@dataclass
class LoadedGraph:
    """A merged graph plus what the loaders noticed but tolerated."""

    graph: KnowledgeGraph
    warnings: list[str] = field(default_factory=list)
    formats: dict[str, str] = field(default_factory=dict)  # path -> detected format


# --------------------------------------------------------------------------- limits
@dataclass(frozen=True)
class InputLimits:
    """Bounds on what one input file may make the loader do (issue 12, item 4).

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
    """

    max_bytes: int = 2048 * 1024 * 1024
    max_ratio: float = 100.0
    ratio_floor: int = 16 * 1024 * 1024
    max_name_chars: int = 1000
    max_line_bytes: int = 64 * 1024 * 1024

    @classmethod
    def from_env(cls) -> InputLimits:
        """The defaults, overridden by ``EGX_MAX_INPUT_MB``, ``EGX_MAX_COMPRESSION_RATIO`` and
        ``EGX_MAX_NAME_CHARS`` when set."""
        d = cls()
        try:
            mb = float(os.environ.get("EGX_MAX_INPUT_MB") or d.max_bytes / 2**20)
            ratio = float(os.environ.get("EGX_MAX_COMPRESSION_RATIO") or d.max_ratio)
            names = int(os.environ.get("EGX_MAX_NAME_CHARS") or d.max_name_chars)
        except ValueError as exc:
            raise ConfigError(f"An EGX_MAX_* environment variable is not a number ({exc}).") from None
        if mb <= 0 or ratio <= 1 or names < 1:
            raise ConfigError(f"EGX_MAX_INPUT_MB={mb}, EGX_MAX_COMPRESSION_RATIO={ratio}, EGX_MAX_NAME_CHARS={names}: "
                              "use positive values (a ratio above 1).")
        return cls(max_bytes=int(mb * 2**20), max_ratio=ratio, max_name_chars=names)


def _limits(limits: InputLimits | None) -> InputLimits:
    return limits if limits is not None else InputLimits.from_env()


def _mb(n: float) -> str:
    return f"{n / 2**20:,.1f} MB" if n >= 2**20 else f"{n / 1024:,.1f} KB"


# --------------------------------------------------------------------------- file helpers
def _display(path: Path) -> str:
    return path.name


def _base_suffix(path: Path) -> str:
    """Suffix ignoring a trailing ``.gz`` (``a.jsonl.gz`` → ``.jsonl``)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _stem(path: Path) -> str:
    name = path.name
    for suf in (".gz",):
        if name.lower().endswith(suf):
            name = name[: -len(suf)]
    return name.rsplit(".", 1)[0] if "." in name else name


_GZ_CHECKED: dict[tuple[str, int, int], int] = {}


def _check_gzip(path: Path, size: int, lim: InputLimits) -> None:
    """Stream-decompress ``path`` once, discarding the output, and refuse it before any parsing
    when it is corrupt, larger than ``max_bytes`` or compressed more than ``max_ratio``."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key in _GZ_CHECKED:
        return
    name = _display(path)
    cap = max(lim.ratio_floor, int(lim.max_ratio * max(size, 1)))
    out = 0
    try:
        with gzip.open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                out += len(chunk)
                if out > lim.max_bytes:
                    raise InputFormatError(
                        name, f"it decompresses to more than {_mb(lim.max_bytes)} (the input size limit)",
                        "a smaller file, or a higher limit: EGX_MAX_INPUT_MB=<megabytes>")
                if out > cap:
                    raise InputFormatError(
                        name, f"it decompresses to more than {_mb(out)} from {_mb(size)} (a compression ratio above "
                              f"{lim.max_ratio:g}:1 — a gzip bomb, or extremely repetitive data)",
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
    lim = _limits(limits)
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
        raise InputFormatError(str(path), "this is a folder", "a file (folders are accepted only for named KGs)") from None
    except PermissionError:
        raise InputFormatError(str(path), "the file cannot be read (permission denied)", "a readable file") from None
    try:
        if fh.peek(2)[:2] == b"\x1f\x8b":
            fh.close()
            _check_gzip(path, size, lim)
            fh = gzip.open(path, "rb")
        elif size > lim.max_bytes:
            raise InputFormatError(_display(path), f"the file is {_mb(size)}, over the input size limit of "
                                   f"{_mb(lim.max_bytes)}", "a smaller file, or a higher limit: EGX_MAX_INPUT_MB=<megabytes>")
        yield fh
    except (OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, InputFormatError):
            raise
        raise InputFormatError(_display(path), f"the file could not be read ({exc})", "a valid, readable file") from None
    finally:
        fh.close()


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
    lim = _limits(limits)
    path = Path(path)
    name = _display(path)
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
                raise InputFormatError(name, f"the line is longer than {_mb(lim.max_line_bytes)}",
                                       "a line-based text file (is a quote unbalanced, or is this not text?)", line=n)
            if b"\x00" in line_b:
                raise InputFormatError(name, "the file looks binary (it contains NUL bytes)", "a UTF-8 text file",
                                       line=n)
            try:
                line = line_b.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputFormatError(name, f"byte {offset + exc.start} is not valid UTF-8",
                                       "UTF-8 encoded text (re-save the file as UTF-8)", line=n) from None
            offset += len(line_b)
            yield n, line


def _check_line(line: str, n: int, name: str, lim: InputLimits, *, limit: int) -> None:
    if len(line) > limit:
        raise InputFormatError(name, f"the line is longer than {_mb(limit)}",
                               "a line-based text file (is a quote unbalanced, or is this not text?)", line=n)
    if "\x00" in line:
        raise InputFormatError(name, "the text contains a NUL character", "text without NUL characters", line=n)


def read_text(path: Path, limits: InputLimits | None = None) -> str:
    """File contents as text (gzip transparently, within ``limits``), with a clear error for
    binary data or a bad encoding (naming the line). UTF-16 is decoded."""
    lim = _limits(limits)
    path = Path(path)
    name = _display(path)
    with open_input(path, lim) as raw:
        data = raw.read(lim.max_bytes + 1)
    if len(data) > lim.max_bytes:
        raise InputFormatError(name, f"the text is over the input size limit of {_mb(lim.max_bytes)}",
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
        raise InputFormatError(name, "the file looks binary (it contains NUL bytes)", "a UTF-8 text file",
                               line=data.count(b"\n", 0, i) + 1)
    try:
        return data[start:].decode("utf-8") if start else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        pos = exc.start + start
        raise InputFormatError(name, f"byte {pos} is not valid UTF-8", "UTF-8 encoded text (re-save the file as UTF-8)",
                               line=data.count(b"\n", 0, pos) + 1) from None


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
    are read (Python's own JSON writes them, e.g. HippoRAG's OpenIE statistics); :func:`_as_name` refuses
    them as names.

    >>> strict_loads('{"n": 12, "avg": NaN}')
    {'n': 12, 'avg': nan}
    """
    return json.loads(text, parse_int=_int)


_NUMBER_FIX = f"numbers of at most {MAX_INT_DIGITS} digits (a longer id written as a string)"


def parse_json(text: str, source: str, *, expected: str = "valid JSON", line: int | None = None) -> Any:
    """``json.loads`` with a clean error for invalid or absurdly deep JSON (which would otherwise
    surface as a ``RecursionError`` traceback), and for integers :func:`strict_loads` refuses.
    ``line``: the text is that line of ``source``."""
    try:
        return strict_loads(text)
    except json.JSONDecodeError as exc:
        raise InputFormatError(source, f"invalid JSON ({exc.msg}, column {exc.colno})", expected,
                               line=line if line is not None else exc.lineno) from None
    except _BadNumber as exc:
        raise InputFormatError(source, str(exc), _NUMBER_FIX, line=line) from None
    except RecursionError:
        raise InputFormatError(source, "the JSON is nested too deeply to read (thousands of levels)",
                               f"{expected}, nested at most a few levels deep", line=line) from None


def _load_json(path: Path, text: str | None = None, *, limits: InputLimits | None = None) -> Any:
    text = read_text(path, limits) if text is None else text
    return parse_json(text, _display(path))


def _iter_jsonl(path: Path, text: str | None = None, *, limits: InputLimits | None = None,
                expected: str = "one JSON object per line") -> Iterator[tuple[int, Any]]:
    name = _display(path)
    lines: Iterable[tuple[int, str]] = (enumerate(text.splitlines(), start=1) if text is not None
                                        else iter_lines(path, limits))
    for i, line in lines:
        if not line.strip():
            continue
        yield i, _json_line(line, name, i, expected)


def _json_line(line: str, name: str, i: int, expected: str) -> Any:
    return parse_json(line, name, expected=expected, line=i)


_DELIM_NAMES = {";": "semicolon", "|": "pipe", ":": "colon", " ": "space"}


def _sniff_delimiter(path: Path, first: str) -> str:
    suffix = _base_suffix(path)
    if suffix == ".tsv" or suffix == ".txt":
        return "\t"
    if "\t" in first and "," not in first:
        return "\t"
    return ","


def _delimiter_hint(first: str, delim: str) -> str:
    """A hint when the first line looks separated by something other than ``delim``."""
    counts = {d: first.count(d) for d in (";", "|", "\t", ",") if d != delim}
    best = max(counts, key=lambda d: counts[d])
    if counts[best] >= 2 and first.count(delim) < 2:
        shown = "TAB" if best == "\t" else repr(best)
        label = _DELIM_NAMES.get(best, "tab" if best == "\t" else "comma")
        return (f" (the first line has {counts[best]} {shown} characters: is the file {label}-separated? "
                "Save it with commas (.csv) or tabs (.tsv))")
    return ""


def _rows(path: Path, lines: Iterable[tuple[int, str]], delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """CSV rows as ``(line where the row starts, cells)``, streamed from ``lines``.

    Every CSV/TSV we read holds names and ids, never free text, so a field running over several
    lines is an unbalanced quote: it is reported at the line where the quote opened (not at the
    end of the file, where the swallowed rows finally end)."""
    name = _display(path)
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
                                   'balanced double quotes ("...") around fields that contain the delimiter', line=start)
        if row and not all(not c.strip() for c in row) and not (row[0].lstrip().startswith("#") and end == 1):
            yield start, row
        start = end + 1


def _pick(header: Sequence[str], names: Sequence[str]) -> int | None:
    low = [h.strip().lower() for h in header]
    for n in names:
        if n in low:
            return low.index(n)
    return None


# --------------------------------------------------------------------------- triples
def read_triples(path: Path, builder: GraphBuilder, *, text: str | None = None, data: Any = None,
                 limits: InputLimits | None = None) -> list[str]:
    """Triples from CSV/TSV/JSON/JSONL.

    CSV/TSV: a header naming the columns (``head,relation,tail[,source]`` or the synonyms
    subject/predicate/object, chunk/chunk_id) is recognised; otherwise the columns are taken
    positionally. The optional source column holds the id of the chunk the triple came from; an id
    that is not a known chunk creates an empty stand-in chunk so provenance is never dropped
    (:func:`load_inputs` warns, naming them).
    CSV/TSV and JSONL are streamed (memory stays at one line plus the graph); ``data`` is an
    already parsed JSON document (:func:`load_inputs` parses each file once).

    Raises
    ------
    InputFormatError
        On a row with the wrong number of columns, an empty, null, non-text, punctuation-only or
        over-long head/relation/tail (see :class:`InputLimits`).
    """
    path = Path(path)
    lim = _limits(limits)
    suffix = _base_suffix(path)
    name = _display(path)
    if suffix == ".json":
        if data is None:
            data = _load_json(path, text, limits=lim)
        if isinstance(data, dict) and isinstance(data.get("triples"), list):
            data = data["triples"]
        if not isinstance(data, list):
            raise InputFormatError(name, f"the top level is a JSON {_json_type(data)}",
                                   'a list of triples ({"head","relation","tail"} objects or [h, r, t] lists)')
        for i, rec in enumerate(data, start=1):
            _add_triple_record(builder, rec, name, lim, record=i)
    elif suffix == ".jsonl":
        for line, rec in _iter_jsonl(path, text, limits=lim):
            _add_triple_record(builder, rec, name, lim, line=line)
    else:
        lines = iter(enumerate(text.splitlines(True), start=1) if text is not None else iter_lines(path, lim))
        peeked: list[tuple[int, str]] = []
        first_line = ""
        for item in lines:  # the delimiter is sniffed from the first non-empty line
            peeked.append(item)
            if item[1].strip():
                first_line = item[1]
                break
        delim = _sniff_delimiter(path, first_line)
        rows = _rows(path, _chain(peeked, lines), delim)
        first = next(rows, None)
        if first is None:
            raise InputFormatError(name, "the file is empty", TRIPLE_EXPECTED)
        cols: tuple[int, int, int, int | None] = (0, 1, 2, 3)
        h, r, t = _pick(first[1], HEAD_NAMES), _pick(first[1], REL_NAMES), _pick(first[1], TAIL_NAMES)
        pending: Iterable[tuple[int, list[str]]]
        width = len(first[1])
        if h is not None and r is not None and t is not None:
            cols = (h, r, t, _pick(first[1], SRC_NAMES))
            pending = rows
        else:
            pending = _chain([first], rows)
            if width not in (3, 4):
                raise InputFormatError(name, f"found {width} column{'s' if width != 1 else ''}"
                                       f"{_delimiter_hint(first_line, delim)}", TRIPLE_EXPECTED, line=first[0])
        hc, rc, tc, sc = cols
        for line, row in pending:
            if len(row) != width:
                raise InputFormatError(name, f"found {len(row)} columns but the first row has {width}",
                                       TRIPLE_EXPECTED, line=line)
            src_id = row[sc].strip() if sc is not None and sc < len(row) else ""
            _add_checked(builder, row[hc], row[rc], row[tc], src_id, name, lim, line=line)
    return []


def _chain(a: Iterable[Any], b: Iterable[Any]) -> Iterator[Any]:
    yield from a
    yield from b


def _json_type(v: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null",
            int: "number", float: "number"}.get(type(v), type(v).__name__)


def _as_name(v: Any, label: str, name: str, *, line: int | None, record: int | None) -> str:
    """A JSON value used as a name: strings as they are, numbers as their text; null, booleans,
    lists and objects are errors (they would become names such as ``None`` or ``['a', 'b']``)."""
    if isinstance(v, str):
        return v
    if isinstance(v, float) and not math.isfinite(v):  # json reads NaN / Infinity; as names they mean nothing
        raise InputFormatError(name, f"the {label} is {json.dumps(v)}, not a name",
                               f"the {label} as a string (or a finite number)", line=line, record=record)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return str(v)
    shown = "" if v is None or isinstance(v, bool) else f" ({_short(v)})"
    raise InputFormatError(name, f"the {label} is a JSON {_json_type(v)}{shown}",
                           f"the {label} as a string (or a number)", line=line, record=record)


def _short(v: Any, n: int = 40) -> str:
    s = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else repr(v)
    return s if len(s) <= n else s[: n - 3] + "..."


def _add_triple_record(builder: GraphBuilder, rec: Any, name: str, lim: InputLimits, *, line: int | None = None,
                       record: int | None = None) -> None:
    if isinstance(rec, list):
        if len(rec) not in (3, 4):
            raise InputFormatError(name, f"a triple list has {len(rec)} items", "[head, relation, tail]",
                                   line=line, record=record)
        vals = list(rec[:3])
        src_v = rec[3] if len(rec) == 4 else None
    elif isinstance(rec, dict):
        low = {str(k).lower(): v for k, v in rec.items()}
        vals = []
        for names in (HEAD_NAMES, REL_NAMES, TAIL_NAMES):
            key = next((n for n in names if n in low), None)
            if key is None:
                raise InputFormatError(name, f"the object has no {names[0]!r} field (keys: {sorted(rec)})",
                                       'objects with "head", "relation", "tail" (and optional "source")',
                                       line=line, record=record)
            vals.append(low[key])
        skey = next((n for n in SRC_NAMES if n in low), None)
        src_v = low[skey] if skey else None
    else:
        raise InputFormatError(name, f"a triple is a JSON {_json_type(rec)}",
                               'an object {"head","relation","tail"} or a list [h, r, t]', line=line, record=record)
    h, r, t = (_as_name(v, lab, name, line=line, record=record) for v, lab in zip(vals, ("head", "relation", "tail")))
    src = "" if src_v is None else _as_name(src_v, "source chunk id", name, line=line, record=record)
    _add_checked(builder, h, r, t, src, name, lim, line=line, record=record)


def _add_checked(builder: GraphBuilder, h: str, r: str, t: str, src: str, name: str, lim: InputLimits, *,
                 line: int | None = None, record: int | None = None) -> None:
    for label, val in (("head", h), ("relation", r), ("tail", t)):
        if len(val) > lim.max_name_chars:
            raise InputFormatError(name, f"the {label} is {len(val):,} characters long",
                                   f"names of at most {lim.max_name_chars:,} characters (is a quote unbalanced? "
                                   "Raise EGX_MAX_NAME_CHARS for longer names)", line=line, record=record)
        if not val.strip():
            raise InputFormatError(name, f"the {label} is empty", "a non-empty head, relation and tail",
                                   line=line, record=record)
    chunk_id = None
    if src:
        chunk_id = src if builder.has_chunk(src) else builder.add_chunk("", "", chunk_id=src)
    try:
        builder.add_triple(h, r, t, chunk_id=chunk_id)
    except BadNameError as exc:
        raise InputFormatError(name, exc.problem, exc.expected, line=line, record=record) from None


# --------------------------------------------------------------------------- GraphML
_GRAPHML_EXPECTED = "a GraphML XML document"


_XML_ENCODING = re.compile(r"""\A(\ufeff?\s*<\?xml\b[^>]*?\bencoding\s*=\s*["'])[^"']*(["'])""")


def read_graphml(path: Path, builder: GraphBuilder, *, limits: InputLimits | None = None) -> list[str]:
    """A GraphML file: nodes keep their ids; ``name``/``label`` is the display name,
    ``description`` the description; edges take ``relation``/``label``/``type`` as relation and
    ``chunks`` (``|``-separated) or ``source_chunk`` as provenance.

    A document type declaration is refused outright: GraphML needs none, and entities are how XML
    reads local files (XXE) or expands a few bytes into gigabytes ("billion laughs"). Every node
    needs an ``id`` and every edge a ``source`` and a ``target`` (networkx would name them
    ``None``)."""
    import xml.etree.ElementTree as ET

    import networkx as nx

    path = Path(path)
    lim = _limits(limits)
    name = _display(path)
    # read_text decoded the file (UTF-8 or UTF-16), so the bytes below are UTF-8 whatever the XML declaration
    # said: it must say so too, or a valid UTF-16 document is parsed as UTF-16 a second time and refused
    text = _XML_ENCODING.sub(r"\1UTF-8\2", read_text(path, lim), count=1)
    raw = text.encode("utf-8")
    del text
    if re.search(rb"<!\s*(DOCTYPE|ENTITY)", raw, re.I):
        raise InputFormatError(name, "the document declares a DOCTYPE or entities, which GraphML never needs "
                               "(refused: entities can read local files or expand without bound)",
                               "a GraphML document without <!DOCTYPE ...> / <!ENTITY ...>")
    try:
        counts = {"node": 0, "edge": 0}
        for _, el in ET.iterparse(io.BytesIO(raw), events=("end",)):
            tag = el.tag.rsplit("}", 1)[-1]
            if tag in counts:
                counts[tag] += 1
            if tag == "node" and not el.get("id"):
                raise InputFormatError(name, f"<node> number {counts['node']} has no id attribute",
                                       '<node id="..."> for every node')
            if tag == "edge" and (not el.get("source") or not el.get("target")):
                missing = "source" if not el.get("source") else "target"
                raise InputFormatError(name, f"<edge> number {counts['edge']} has no {missing} attribute",
                                       '<edge source="node id" target="node id"> for every edge')
        g = nx.read_graphml(io.BytesIO(raw))
    except InputFormatError:
        raise
    except Exception as exc:  # networkx raises bare Exceptions / ElementTree ParseError
        raise InputFormatError(name, f"not readable as GraphML ({exc})", _GRAPHML_EXPECTED) from None
    for i, (nid, attrs) in enumerate(g.nodes(data=True), start=1):
        label = attrs.get("name") or attrs.get("label") or str(nid)
        if len(str(label)) > lim.max_name_chars:
            raise InputFormatError(name, f"node {_short(str(nid))} has a {len(str(label)):,}-character name",
                                   f"names of at most {lim.max_name_chars:,} characters", record=i)
        chunks = _split_chunks(attrs.get("chunks") or attrs.get("source_chunk") or "")
        for c in chunks:
            if not builder.has_chunk(c):
                builder.add_chunk("", "", chunk_id=c)
        builder.add_node(str(label), node_id=str(nid), description=str(attrs.get("description", "")),
                         chunk_ids=chunks)
    for i, (u, v, attrs) in enumerate(g.edges(data=True), start=1):
        rel = attrs.get("relation") or attrs.get("label") or attrs.get("type") or attrs.get("predicate")
        if not rel:
            raise InputFormatError(name, f"edge {u!r} -> {v!r} has no relation label",
                                   'an edge attribute "relation" (or "label")', record=i)
        chunks = _split_chunks(attrs.get("chunks") or attrs.get("source_chunk") or "")
        for c in chunks:
            if not builder.has_chunk(c):
                builder.add_chunk("", "", chunk_id=c)
        try:
            builder.add_edge(str(u), str(rel), str(v), chunk_ids=chunks)
        except BadNameError as exc:
            raise InputFormatError(name, f"edge {u!r} -> {v!r}: {exc.problem}", exc.expected, record=i) from None
    return []


def _split_chunks(value: Any) -> list[str]:
    return [c for c in str(value).split("|") if c.strip()] if value else []


# --------------------------------------------------------------------------- corpora
def read_text_document(path: Path, builder: GraphBuilder, *, max_chars: int = CHUNK_CHARS,
                       limits: InputLimits | None = None) -> list[str]:
    """A ``.txt`` / ``.md`` file as one document, split into chunks (see :func:`chunk_text`).

    The title is the first Markdown heading when there is one, else the file name."""
    path = Path(path)
    text = read_text(path, limits)
    if not text.strip():
        raise InputFormatError(_display(path), "the document is empty", "some text")
    title = _stem(path).replace("_", " ")
    m = re.match(r"\s*#\s+(.+)", text)
    if m:
        title = m.group(1).strip()
        text = text[m.end():]
    pieces = chunk_text(text, max_chars=max_chars)
    for i, piece in enumerate(pieces):
        builder.add_chunk(title, piece, chunk_id=f"{_stem(path)}#{i}" if len(pieces) > 1 else _stem(path))
    return []


def read_corpus_json(path: Path, builder: GraphBuilder, *, text: str | None = None, data: Any = None,
                     limits: InputLimits | None = None) -> list[str]:
    """A corpus as JSON list / JSONL of ``{title, text}`` (optional ``id``). Records without an id
    get ``<file stem>:<position>`` so an OpenIE file for the same corpus can refer to them.

    A passage longer than :data:`~core.graph.chunking.PASSAGE_SPLIT_CHARS` is split into chunks of
    :data:`~core.graph.chunking.CHUNK_CHARS` (ids ``<id>``, ``<id>#2``, ...; same title), and a warning
    says how many were."""
    path = Path(path)
    name = _display(path)
    records: Iterable[tuple[dict[str, int], Any]]
    if _base_suffix(path) == ".jsonl":
        records = (({"line": ln}, rec) for ln, rec in _iter_jsonl(path, text, limits=limits))
    else:
        if data is None:
            data = _load_json(path, text, limits=limits)
        if not isinstance(data, list):
            raise InputFormatError(name, f"the top level is a JSON {_json_type(data)}",
                                   'a list of {"title", "text"} objects')
        records = (({"record": i}, rec) for i, rec in enumerate(data, start=1))
    stem = _stem(path)
    n = 0
    split: list[tuple[str, int, int]] = []
    for pos, (where, rec) in enumerate(records):
        if not isinstance(rec, dict):
            raise InputFormatError(name, f"a passage is a JSON {type(rec).__name__}", '{"title": ..., "text": ...}',
                                   **where)
        body = rec.get("text", rec.get("paragraph_text", rec.get("contents")))
        if not isinstance(body, str):
            raise InputFormatError(name, f'the passage has no "text" string (keys: {sorted(rec)})',
                                   '{"title": ..., "text": ...}', **where)
        title = rec.get("title", "")
        if not isinstance(title, str):
            raise InputFormatError(name, f'"title" is a {type(title).__name__}', 'a string title', **where)
        rid = rec.get("id")
        cid = _as_name(rid, '"id"', name, line=where.get("line"), record=where.get("record")) \
            if rid is not None else f"{stem}:{pos}"
        if len(body) > PASSAGE_SPLIT_CHARS:
            pieces = chunk_text(body, max_chars=CHUNK_CHARS)
            for k, piece in enumerate(pieces, start=1):
                builder.add_chunk(title, piece, chunk_id=cid if k == 1 else f"{cid}#{k}")
            split.append((cid, len(body), len(pieces)))
            del pieces
        else:
            builder.add_chunk(title, body, chunk_id=cid)
        n += 1
    if n == 0:
        raise InputFormatError(name, "the corpus has no passages", 'at least one {"title", "text"} record')
    if not split:
        return []
    shown = ", ".join(f"{cid!r} ({chars:,} characters → {k} chunks)" for cid, chars, k in split[:3])
    return [f"{name}: {len(split):,} passage{'s' if len(split) != 1 else ''} longer than {PASSAGE_SPLIT_CHARS:,} "
            f"characters {'were' if len(split) != 1 else 'was'} split into chunks of at most {CHUNK_CHARS:,} "
            f"characters, ids <id>#2, <id>#3, ... ({shown}{', ...' if len(split) > 3 else ''}); gold evidence "
            "naming such a passage matches its first chunk."]


def read_openie(path: Path, builder: GraphBuilder, *, text: str | None = None, data: Any = None,
                limits: InputLimits | None = None) -> list[str]:
    """HippoRAG OpenIE results: ``{"docs": [{title?, passage, extracted_triples}, ...]}``.

    Each doc is matched to an already-loaded corpus chunk by (title, text) — ``passage`` is
    ``"title\\ntext"`` — or becomes a new chunk. Triples that are not exactly three non-empty
    strings with a letter or digit each (``?``, ``...``; and names over the length limit) are LLM
    noise (185 of 17,419 in the MuSiQue file): they are skipped and counted in the returned
    warnings rather than failing the whole upload.

    Raises
    ------
    InputFormatError
        When there is no ``docs`` list, a doc has no ``extracted_triples`` list, or its ``title``,
        ``passage`` or ``text`` is not a string.
    """
    path = Path(path)
    lim = _limits(limits)
    name = _display(path)
    if data is None:
        data = _load_json(path, text, limits=lim)
    if not isinstance(data, dict) or not isinstance(data.get("docs"), list):
        raise InputFormatError(name, "there is no top-level \"docs\" list",
                               'HippoRAG OpenIE output: {"docs": [{"passage", "extracted_triples"}, ...]}')
    skipped = 0
    stem = _stem(path)
    for i, doc in enumerate(data["docs"], start=1):
        if not isinstance(doc, dict) or "extracted_triples" not in doc:
            raise InputFormatError(name, 'a doc has no "extracted_triples"',
                                   '{"passage": ..., "extracted_triples": [[s, p, o], ...]}', record=i)
        title = doc.get("title", "")
        passage = doc.get("passage", "")
        body = doc.get("text")
        for key, val in (("title", title), ("passage", passage), ("text", body)):
            if val is not None and not isinstance(val, str):
                raise InputFormatError(name, f'the doc\'s "{key}" is a JSON {_json_type(val)} ({_short(val)})',
                                       f'"{key}" as a string', record=i)
        if body is None:
            body = passage.split("\n", 1)[1] if title and passage.startswith(title + "\n") else passage
        cid = builder.find_chunk(title, body) or builder.add_chunk(title, body, chunk_id=f"{stem}:{i - 1}")
        triples = doc["extracted_triples"]
        if not isinstance(triples, list):
            raise InputFormatError(name, '"extracted_triples" is not a list', "a list of [s, p, o] lists", record=i)
        for tr in triples:
            if (not isinstance(tr, list) or len(tr) != 3
                    or not all(isinstance(x, (str, int, float)) and not isinstance(x, bool)
                               and (not isinstance(x, float) or math.isfinite(x)) and str(x).strip() and len(str(x)) <= lim.max_name_chars for x in tr)):
                skipped += 1
                continue
            try:
                builder.add_triple(str(tr[0]), str(tr[1]), str(tr[2]), chunk_id=cid)
            except BadNameError:  # "?" or "..." as an entity: no letter or digit
                skipped += 1
    if skipped:
        return [f"{name}: skipped {skipped} malformed triples (not exactly three non-empty strings)."]
    return []


# --------------------------------------------------------------------------- corpus graph
def read_corpus_graph(nodes_path: Path, edges_path: Path, builder: GraphBuilder, *,
                      limits: InputLimits | None = None) -> list[str]:
    """A corpus graph (FastInsight §2.1): nodes JSONL ``{id, title?, text}``, each one chunk, and
    edges CSV with columns ``source,target[,relation]`` (relation defaults to ``"references"``)."""
    nodes_path, edges_path = Path(nodes_path), Path(edges_path)
    lim = _limits(limits)
    nname, ename = _display(nodes_path), _display(edges_path)
    builder.kind = "corpus_graph"
    n = 0
    for line, rec in _iter_jsonl(nodes_path, limits=lim):
        if not isinstance(rec, dict) or rec.get("id") is None or not isinstance(rec.get("text"), str):
            raise InputFormatError(nname, "a node record lacks an \"id\" or a \"text\" string",
                                   '{"id": ..., "title": ..., "text": ...} per line', line=line)
        nid = _as_name(rec["id"], '"id"', nname, line=line, record=None)
        if builder.has_node(nid):
            raise InputFormatError(nname, f"node id {nid!r} appears twice", "unique node ids", line=line)
        title = rec.get("title") or nid
        title = _as_name(title, '"title"', nname, line=line, record=None)
        cid = builder.add_chunk(title, rec["text"], chunk_id=nid)
        builder.add_node(title, node_id=nid, description=rec["text"], chunk_ids=(cid,))
        n += 1
    if n == 0:
        raise InputFormatError(nname, "there are no nodes", "one JSON object per line")
    lines = iter(iter_lines(edges_path, lim))
    peeked = []
    for item in lines:
        peeked.append(item)
        if item[1].strip():
            break
    rows = _rows(edges_path, _chain(peeked, lines), _sniff_delimiter(edges_path, peeked[-1][1] if peeked else ""))
    first = next(rows, None)
    if first is None:
        return [f"{ename}: no edges; the corpus graph has isolated passages only."]
    s, t, r = _pick(first[1], EDGE_SRC_NAMES), _pick(first[1], EDGE_DST_NAMES), _pick(first[1], REL_NAMES)
    if s is None or t is None:
        raise InputFormatError(ename, f"the header {first[1]} has no source/target columns",
                               "a header row `source,target[,relation]`", line=first[0])
    for line, row in rows:
        if max(s, t) >= len(row):
            raise InputFormatError(ename, f"found {len(row)} columns", "source,target[,relation]", line=line)
        for col in (s, t):
            if not builder.has_node(row[col].strip()):
                raise InputFormatError(ename, f"node id {row[col].strip()!r} is not in {nname}",
                                       "edges between node ids defined in the nodes file", line=line)
        rel = row[r].strip() if r is not None and r < len(row) and row[r].strip() else "references"
        try:
            builder.add_edge(row[s].strip(), rel, row[t].strip())
        except BadNameError as exc:
            raise InputFormatError(ename, exc.problem, exc.expected, line=line) from None
    return []


# --------------------------------------------------------------------------- named KG folders
def read_named_kg(folder: Path, builder: GraphBuilder, *, splits: Sequence[str] = ("train", "dev", "test"),
                  limits: InputLimits | None = None) -> list[str]:
    """A KG folder with id-form triples and readable names (UMLS / FB15k-237 layouts).

    * ``entity2text.txt`` (or ``kgbert_entity2text.txt``): ``id<TAB>name``
    * ``relation2text.txt`` (optional): ``relation<TAB>readable phrase``
    * triples per split: ``<split>.tsv`` / ``kgbert_<split>.tsv`` (``h<TAB>r<TAB>t``) or OpenKE
      ``openke_<split>2id.txt`` (first line a count, then ``h_id t_id r_id``) with
      ``openke_entity2id.txt`` / ``openke_relation2id.txt``.

    The union of the splits found is the KG (a retrieval KG has no held-out edges). Entities keep
    their ids, so two Freebase entities that share a name stay apart.
    """
    folder = Path(folder)
    lim = _limits(limits)
    ent_file = _first_existing(folder, ("entity2text.txt", "kgbert_entity2text.txt"))
    if ent_file is None:
        raise InputFormatError(str(folder), "no entity2text.txt in this folder",
                               "a named-KG folder with entity2text.txt (id<TAB>name) and triples")
    names = _read_two_col(ent_file, lim)
    rel_file = _first_existing(folder, ("relation2text.txt", "kgbert_relation2text.txt"))
    rels = _read_two_col(rel_file, lim) if rel_file else {}
    triples: list[tuple[str, str, str, Path, int]] = []
    found = []
    for split in splits:
        tsv = _first_existing(folder, (f"{split}.tsv", f"kgbert_{split}.tsv"))
        oke = folder / f"openke_{'valid' if split == 'dev' else split}2id.txt"
        if tsv is not None:
            found.append(tsv.name)
            for line, row in _rows(tsv, iter_lines(tsv, lim), "\t"):
                if len(row) != 3:
                    raise InputFormatError(_display(tsv), f"found {len(row)} columns",
                                           "head<TAB>relation<TAB>tail", line=line)
                triples.append((row[0], row[1], row[2], tsv, line))
        elif oke.exists():
            found.append(oke.name)
            ent_ids = {v: k for k, v in _read_two_col(folder / "openke_entity2id.txt", lim, skip_count=True).items()}
            rel_ids = {v: k for k, v in _read_two_col(folder / "openke_relation2id.txt", lim, skip_count=True).items()}
            for i, ln in iter_lines(oke, lim):
                if i == 1:
                    continue
                parts = ln.split()
                if not parts:
                    continue
                if len(parts) != 3 or parts[0] not in ent_ids or parts[1] not in ent_ids or parts[2] not in rel_ids:
                    raise InputFormatError(_display(oke), f"bad OpenKE triple {ln!r}",
                                           "head_id tail_id relation_id (ids from entity2id/relation2id)", line=i)
                triples.append((ent_ids[parts[0]], rel_ids[parts[2]], ent_ids[parts[1]], oke, i))
    if not found:
        raise InputFormatError(str(folder), "no triple files",
                               "train.tsv / dev.tsv / test.tsv, kgbert_<split>.tsv or openke_<split>2id.txt")
    for h, r, t, src, line in triples:
        for e in (h, t):
            if not builder.has_node(e):
                if e not in names:
                    raise InputFormatError(_display(src), f"entity {e!r} has no name in {ent_file.name}",
                                           "every entity listed in entity2text", line=line)
                try:
                    builder.add_node(names[e], node_id=e)
                except BadNameError as exc:
                    raise InputFormatError(ent_file.name, f"entity {e!r}: {exc.problem}", exc.expected) from None
        try:
            builder.add_edge(h, rels.get(r, r.replace("_", " ")), t)
        except BadNameError as exc:
            raise InputFormatError(_display(src), exc.problem, exc.expected, line=line) from None
    return []


def _first_existing(folder: Path, names: Sequence[str]) -> Path | None:
    for n in names:
        if (folder / n).exists():
            return folder / n
    return None


def _read_two_col(path: Path, lim: InputLimits, *, skip_count: bool = False) -> dict[str, str]:
    out: dict[str, str] = {}
    for i, ln in iter_lines(path, lim):
        if skip_count and i == 1:
            continue
        if not ln.strip():
            continue
        parts = ln.rstrip("\r\n").split("\t")
        if len(parts) < 2:
            raise InputFormatError(_display(path), "found 1 column", "id<TAB>text", line=i)
        if len(parts[1]) > lim.max_name_chars:
            raise InputFormatError(_display(path), f"the name is {len(parts[1]):,} characters long",
                                   f"names of at most {lim.max_name_chars:,} characters", line=i)
        out[parts[0].strip()] = parts[1].strip()
    return out


# --------------------------------------------------------------------------- detection
def detect_format(path: Path, *, limits: InputLimits | None = None) -> str:
    """One of ``triples``, ``graphml``, ``corpus``, ``document``, ``openie``, ``corpus_nodes``,
    ``corpus_edges``, ``named_kg``, ``egx_graph``, ``questions``."""
    return _detect(Path(path), _limits(limits))[0]


def _first_line(path: Path, lim: InputLimits) -> str:
    for _, ln in iter_lines(path, lim):
        return ln.rstrip("\r\n")
    return ""


def _detect(path: Path, lim: InputLimits) -> tuple[str, Any]:
    """The format of ``path`` and, for a ``.json`` file, its parsed content (so it is read once)."""
    if path.is_dir():
        return "named_kg", None
    suffix = _base_suffix(path)
    if suffix in (".graphml", ".xml"):
        return "graphml", None
    if suffix in (".md", ".markdown"):
        return "document", None
    if suffix in (".csv", ".tsv"):
        head = _first_line(path, lim).lower()
        cells = {c.strip().strip('"') for c in re.split(r"[,\t]", head)}
        if cells & {"source", "src", "from"} and cells & {"target", "dst", "to"}:
            return "corpus_edges", None
        return "triples", None
    if suffix == ".txt":
        first = _first_line(path, lim)
        return ("triples" if first.count("\t") in (2, 3) else "document"), None
    if suffix == ".json":
        data = _load_json(path, limits=lim)
        if isinstance(data, dict):
            if data.get("format") == "egx-graph":
                return "egx_graph", data
            if isinstance(data.get("docs"), list):
                return "openie", data
            if isinstance(data.get("triples"), list):
                return "triples", data
        if isinstance(data, list) and data:
            rec = data[0]
            if isinstance(rec, list):
                return "triples", data
            if isinstance(rec, dict):
                keys = {str(k).lower() for k in rec}
                if "question" in keys:
                    return "questions", data
                if "text" in keys or "paragraph_text" in keys or "contents" in keys:
                    return "corpus", data
                return "triples", data
        raise InputFormatError(_display(path), "cannot tell what this JSON holds",
                               "a list of {title,text} passages, a list of triples, or a HippoRAG OpenIE file")
    if suffix == ".jsonl":
        first_rec = next(_iter_jsonl(path, limits=lim), None)
        if first_rec is None:
            raise InputFormatError(_display(path), "the file is empty", "one JSON object per line")
        rec = first_rec[1]
        if isinstance(rec, dict):
            keys = {str(k).lower() for k in rec}
            if "text" in keys and "id" in keys and "relation" not in keys:
                return "corpus_nodes", None
            if "text" in keys or "paragraph_text" in keys:
                return "corpus", None
        return "triples", None
    raise InputFormatError(_display(path), f"unsupported file type {suffix or '(none)'!r}",
                           ".csv/.tsv/.json/.jsonl triples, .graphml, .txt/.md documents, "
                           "JSON(L) corpora, a HippoRAG OpenIE file, or a named-KG folder")


def load_inputs(paths: Sequence[str | Path], *, name: str = "",
                progress: Callable[[str, float], None] | None = None,
                limits: InputLimits | None = None) -> LoadedGraph:
    """Detect and load any mix of supported inputs into one merged graph.

    Corpora load before triples so provenance ids resolve; a corpus-graph edges file needs a nodes
    file (``*.jsonl`` with ``id`` and ``text``) among the inputs. Every file is read within
    ``limits`` (default :meth:`InputLimits.from_env`): bounded decompression, no NUL bytes, names
    of bounded length; line-based files are streamed.

    Raises
    ------
    InputFormatError
        For the first malformed input (nothing is returned, nothing written).
    EmptyGraphError
        When the inputs hold no content at all.
    """
    lim = _limits(limits)
    paths_: list[Path] = [Path(p) for p in paths]
    paths = paths_
    if not paths:
        raise EmptyGraphError("No input files were given. Pass triples, a corpus, a GraphML file or a KG folder.")
    detected = {p: _detect(p, lim) for p in paths}
    fmts = {p: f for p, (f, _) in detected.items()}
    parsed = {p: d for p, (_, d) in detected.items() if d is not None}
    if "questions" in fmts.values():
        q = next(p for p, f in fmts.items() if f == "questions")
        raise InputFormatError(_display(q), "this is a questions file, not a graph or corpus",
                               "questions to be given separately (they are used for evaluation)")
    nodes = [p for p, f in fmts.items() if f == "corpus_nodes"]
    edges = [p for p, f in fmts.items() if f == "corpus_edges"]
    if edges and len(nodes) != 1:
        raise InputFormatError(_display(edges[0]), "a corpus-graph edges file needs exactly one nodes file",
                               "a nodes JSONL ({id, title, text} per line) uploaded together with it")
    kind: GraphKind = "corpus_graph" if nodes and edges else "kg"
    if any(f == "egx_graph" for f in fmts.values()):
        if len(paths) != 1:
            raise InputFormatError(_display(paths[0]), "an egx graph export must be loaded on its own",
                                   "one egx-graph JSON file")
        g = KnowledgeGraph.from_dict(parsed[paths[0]], source=_display(paths[0]))
        return LoadedGraph(g, [], {str(paths[0]): "egx_graph"})
    builder = GraphBuilder(kind=kind, name=name)
    warnings: list[str] = []
    order = {"corpus": 0, "document": 0, "corpus_nodes": 0, "openie": 1, "corpus_edges": 2,
             "triples": 3, "graphml": 3, "named_kg": 3}
    ordered = sorted(paths, key=lambda p: order.get(fmts[p], 9))
    for i, p in enumerate(ordered):
        fmt = fmts[p]
        data = parsed.pop(p, None)  # dropped as soon as it is read: peak memory holds one document
        if progress:
            progress(f"Reading {p.name} ({fmt})", i / len(ordered))
        if fmt == "corpus":
            warnings += read_corpus_json(p, builder, data=data, limits=lim)
        elif fmt == "document":
            warnings += read_text_document(p, builder, limits=lim)
        elif fmt == "openie":
            warnings += read_openie(p, builder, data=data, limits=lim)
        elif fmt == "triples":
            warnings += read_triples(p, builder, data=data, limits=lim)
        elif fmt == "graphml":
            warnings += read_graphml(p, builder, limits=lim)
        elif fmt == "named_kg":
            warnings += read_named_kg(p, builder, limits=lim)
        elif fmt == "corpus_nodes":
            if not edges:
                warnings += read_corpus_json(p, builder, limits=lim)
        elif fmt == "corpus_edges":
            warnings += read_corpus_graph(nodes[0], p, builder, limits=lim)
        del data
    if progress:
        progress("Merging", 1.0)
    graph = builder.build()
    stand_ins = [c.id for c in graph.chunks if not c.text.strip() and not c.title]
    if stand_ins:
        corpus = len(stand_ins) < len(graph.chunks)
        warnings.append(
            f"{len(stand_ins):,} source chunk id{'s' if len(stand_ins) != 1 else ''} "
            f"({', '.join(map(repr, stand_ins[:5]))}{', ...' if len(stand_ins) > 5 else ''}) "
            + ("name no passage of the corpus" if corpus else "name passages, but no corpus was loaded")
            + ": they are kept as empty stand-in passages (the provenance stays, the text is missing). "
            + ("Check the ids against the corpus's passage ids." if corpus
               else "Load the corpus with the triples to give them text."))
    return LoadedGraph(graph, warnings, {str(p): fmts[p] for p in paths})
