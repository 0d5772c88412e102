"""Checks every reader applies to a record before it enters the graph.

A JSON value used as a name must be a string or a finite number (``null``, booleans, lists and objects would
become names such as ``None`` or ``['a', 'b']``); a triple's names must be non-empty and within
:class:`~core.graph.formats.bounds.InputLimits`. The column and key names a triple record may use live here
too, shared by the CSV, JSON and corpus-graph readers.
"""

from __future__ import annotations

import json
import math
from typing import Any

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits
from core.graph.graph_builder import BadNameError, GraphBuilder

#: the CSV/TSV column headers and JSON keys each part of a triple may go by (matched in this order)
HEAD_NAMES = ("head", "subject", "subj", "source_entity", "h", "s", "from_entity")
REL_NAMES = ("relation", "predicate", "rel", "relationship", "r", "p", "edge")
TAIL_NAMES = ("tail", "object", "obj", "target_entity", "t", "o", "to_entity")
SRC_NAMES = ("source", "chunk", "chunk_id", "source_chunk", "doc", "doc_id", "passage", "provenance")


def json_type(v: Any) -> str:
    """What an error calls the JSON type of ``v`` (``object``, ``list``, ``null``, ...)."""
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null",
            int: "number", float: "number"}.get(type(v), type(v).__name__)


def as_name(v: Any, label: str, name: str, *, line: int | None, record: int | None) -> str:
    """A JSON value used as a name: strings as they are, numbers as their text; null, booleans,
    lists and objects are errors (they would become names such as ``None`` or ``['a', 'b']``)."""
    if isinstance(v, str):
        return v
    if isinstance(v, float) and not math.isfinite(v):  # json reads NaN / Infinity; as names they mean nothing
        raise InputFormatError(name, f"the {label} is {json.dumps(v)}, not a name",
                               f"the {label} as a string (or a finite number)", line=line, record=record)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return str(v)
    shown = "" if v is None or isinstance(v, bool) else f" ({short_repr(v)})"
    raise InputFormatError(name, f"the {label} is a JSON {json_type(v)}{shown}",
                           f"the {label} as a string (or a number)", line=line, record=record)


def short_repr(v: Any, n: int = 40) -> str:
    """``v`` as an error quotes it: JSON (a string as its repr), cut to ``n`` characters."""
    s = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else repr(v)
    return s if len(s) <= n else s[: n - 3] + "..."


def add_checked_triple(builder: GraphBuilder, h: str, r: str, t: str, src: str, name: str, lim: InputLimits, *,
                       line: int | None = None, record: int | None = None) -> None:
    """Add one triple once its names are non-empty and within ``lim``. A source that is no passage id but the
    title of exactly one passage is linked to that passage (ids first: a title may repeat, an id may not);
    one that names no passage, or a title several share, becomes an empty stand-in chunk, so the provenance
    is kept (``builder.source_notes`` records both). ``name``, ``line`` and ``record`` are where an error
    says the triple was."""
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
        chunk_id = src if builder.has_chunk(src) else _by_title(builder, src)
    try:
        builder.add_triple(h, r, t, chunk_id=chunk_id)
    except BadNameError as exc:
        raise InputFormatError(name, exc.problem, exc.expected, line=line, record=record) from None


def _by_title(builder: GraphBuilder, src: str) -> str:
    """The passage a source naming no passage id names by its title, else a stand-in chunk ``src``."""
    notes = builder.source_notes
    cid = notes.linked.get(src)
    if cid is None:
        ids = builder.passages_titled(src)
        if len(ids) != 1:
            if ids:
                notes.ambiguous[src] = ids
            return builder.add_chunk("", "", chunk_id=src)
        cid = notes.linked[src] = ids[0]
    notes.n_linked += 1
    return cid
