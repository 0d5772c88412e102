"""Telling formats apart by content, for the extensions several formats share.

A ``.csv`` / ``.tsv`` file holds triples or a corpus graph's edges, a ``.txt`` file triples or a document, a
``.json`` file one of five things, a ``.jsonl`` file triples, a corpus or a corpus graph's nodes. Each sniffer
reads as little as it needs (the first line, the first record), except for a ``.json`` document: that is
parsed whole and returned with its format, so the reader does not parse it a second time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits, display_name
from core.graph.formats.jsonio import iter_jsonl, load_json
from core.graph.formats.textio import iter_lines

#: reads a file just enough to return ``(format name, parsed JSON document or None)``
Sniffer = Callable[[Path, InputLimits], tuple[str, Any]]


def _first_line(path: Path, lim: InputLimits) -> str:
    for _, ln in iter_lines(path, lim):
        return ln.rstrip("\r\n")
    return ""


def sniff_delimited(path: Path, lim: InputLimits) -> tuple[str, Any]:
    """A corpus graph's edges when the header names a source and a target column, else triples."""
    head = _first_line(path, lim).lower()
    cells = {c.strip().strip('"') for c in re.split(r"[,\t]", head)}
    if cells & {"source", "src", "from"} and cells & {"target", "dst", "to"}:
        return "corpus_edges", None
    return "triples", None


def sniff_txt(path: Path, lim: InputLimits) -> tuple[str, Any]:
    """Triples when the first line has three or four TAB-separated fields, else a document — also when the first
    line cannot be read (a NUL byte, bytes that are not UTF-8): such a file is no triples file either, and as a
    document the loader leaves it out with a warning, as it does a damaged PDF, instead of stopping the load."""
    try:
        first = _first_line(path, lim)
    except InputFormatError:
        return "document", None
    return ("triples" if first.count("\t") in (2, 3) else "document"), None


def sniff_json(path: Path, lim: InputLimits) -> tuple[str, Any]:
    """An egx graph export, a HippoRAG OpenIE file, triples, questions or a corpus, and the parsed document."""
    data = load_json(path, limits=lim)
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
    raise InputFormatError(display_name(path), "cannot tell what this JSON holds",
                           "a list of {title,text} passages, a list of triples, or a HippoRAG OpenIE file")


def sniff_jsonl(path: Path, lim: InputLimits) -> tuple[str, Any]:
    """A corpus graph's nodes, a corpus or triples, from the first record."""
    first_rec = next(iter_jsonl(path, limits=lim), None)
    if first_rec is None:
        raise InputFormatError(display_name(path), "the file is empty", "one JSON object per line")
    rec = first_rec[1]
    if isinstance(rec, dict):
        keys = {str(k).lower() for k in rec}
        if "text" in keys and "id" in keys and "relation" not in keys:
            return "corpus_nodes", None
        if "text" in keys or "paragraph_text" in keys:
            return "corpus", None
    return "triples", None
