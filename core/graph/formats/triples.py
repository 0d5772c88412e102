"""Triples: CSV / TSV (header optional), JSON (a list of objects or of ``[h, r, t]`` lists), JSONL."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from pathlib import Path
from typing import Any

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits, base_suffix, display_name, resolve_limits
from core.graph.formats.delimited import csv_rows, delimiter_hint, pick_column, sniff_delimiter
from core.graph.formats.jsonio import iter_jsonl, load_json
from core.graph.formats.records import (
    HEAD_NAMES,
    REL_NAMES,
    SRC_NAMES,
    TAIL_NAMES,
    add_checked_triple,
    as_name,
    json_type,
)
from core.graph.formats.textio import iter_lines
from core.graph.graph_builder import GraphBuilder

TRIPLE_EXPECTED = "3 columns (head, relation, tail) or 4 (head, relation, tail, source chunk)"


def read_triples(path: Path, builder: GraphBuilder, *, text: str | None = None, data: Any = None,
                 limits: InputLimits | None = None) -> list[str]:
    """Triples from CSV/TSV/JSON/JSONL.

    CSV/TSV: a header naming the columns (``head,relation,tail[,source]`` or the synonyms
    subject/predicate/object, chunk/chunk_id) is recognised; otherwise the columns are taken
    positionally. The optional source column holds the id of the chunk the triple came from, or the
    title of exactly one passage when no passage has that id (linked by title); any other value creates
    an empty stand-in chunk so provenance is never dropped (:func:`~core.graph.formats.load.load_inputs`
    warns, naming them).
    CSV/TSV and JSONL are streamed (memory stays at one line plus the graph); ``data`` is an
    already parsed JSON document (:func:`~core.graph.formats.load.load_inputs` parses each file
    once).

    Raises
    ------
    InputFormatError
        On a row with the wrong number of columns, an empty, null, non-text, punctuation-only or
        over-long head/relation/tail (see :class:`~core.graph.formats.bounds.InputLimits`).
    """
    path = Path(path)
    lim = resolve_limits(limits)
    suffix = base_suffix(path)
    name = display_name(path)
    if suffix == ".json":
        if data is None:
            data = load_json(path, text, limits=lim)
        if isinstance(data, dict) and isinstance(data.get("triples"), list):
            data = data["triples"]
        if not isinstance(data, list):
            raise InputFormatError(name, f"the top level is a JSON {json_type(data)}",
                                   'a list of triples ({"head","relation","tail"} objects or [h, r, t] lists)')
        for i, rec in enumerate(data, start=1):
            _add_triple_record(builder, rec, name, lim, record=i)
    elif suffix == ".jsonl":
        for line, rec in iter_jsonl(path, text, limits=lim):
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
        delim = sniff_delimiter(path, first_line)
        rows = csv_rows(path, chain(peeked, lines), delim)
        first = next(rows, None)
        if first is None:
            raise InputFormatError(name, "the file is empty", TRIPLE_EXPECTED)
        cols: tuple[int, int, int, int | None] = (0, 1, 2, 3)
        h, r, t = (pick_column(first[1], names) for names in (HEAD_NAMES, REL_NAMES, TAIL_NAMES))
        pending: Iterable[tuple[int, list[str]]]
        width = len(first[1])
        if h is not None and r is not None and t is not None:
            cols = (h, r, t, pick_column(first[1], SRC_NAMES))
            pending = rows
        else:
            pending = chain([first], rows)
            if width not in (3, 4):
                raise InputFormatError(name, f"found {width} column{'s' if width != 1 else ''}"
                                       f"{delimiter_hint(first_line, delim)}", TRIPLE_EXPECTED, line=first[0])
        hc, rc, tc, sc = cols
        for line, row in pending:
            if len(row) != width:
                raise InputFormatError(name, f"found {len(row)} columns but the first row has {width}",
                                       TRIPLE_EXPECTED, line=line)
            src_id = row[sc].strip() if sc is not None and sc < len(row) else ""
            add_checked_triple(builder, row[hc], row[rc], row[tc], src_id, name, lim, line=line)
    return []


def _add_triple_record(builder: GraphBuilder, rec: Any, name: str, lim: InputLimits, *, line: int | None = None,
                       record: int | None = None) -> None:
    """One JSON triple, an object with head/relation/tail fields (or their synonyms) or a list."""
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
        raise InputFormatError(name, f"a triple is a JSON {json_type(rec)}",
                               'an object {"head","relation","tail"} or a list [h, r, t]', line=line, record=record)
    h, r, t = (as_name(v, lab, name, line=line, record=record) for v, lab in zip(vals, ("head", "relation", "tail")))
    src = "" if src_v is None else as_name(src_v, "source chunk id", name, line=line, record=record)
    add_checked_triple(builder, h, r, t, src, name, lim, line=line, record=record)
