"""Telling formats apart by content, for the extensions several formats share.

A ``.csv`` / ``.tsv`` file holds triples or a corpus graph's edges, a ``.txt`` file triples or a document, a
``.json`` file one of five things, a ``.jsonl`` file triples, a corpus or a corpus graph's nodes. Each sniffer
reads as little as it needs (the first line, the first record), except for a ``.json`` document: that is
parsed whole and returned with its format, so the reader does not parse it a second time.
:func:`looks_like_questions` reads only the start of a ``.json`` / ``.jsonl`` file, to tell a questions file
before a build starts.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits, base_suffix, display_name
from core.graph.formats.jsonio import iter_jsonl, load_json
from core.graph.formats.textio import iter_lines

#: reads a file just enough to return ``(format name, parsed JSON document or None)``
Sniffer = Callable[[Path, InputLimits], tuple[str, Any]]


def _is_question(rec: Any) -> bool:
    """A record of a questions file (HippoRAG, MuSiQue, 2Wiki, ERQA: an object with a ``question``)."""
    return isinstance(rec, dict) and "question" in {str(k).lower() for k in rec}


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
            if _is_question(rec):
                return "questions", data
            keys = {str(k).lower() for k in rec}
            if "text" in keys or "paragraph_text" in keys or "contents" in keys:
                return "corpus", data
            return "triples", data
    raise InputFormatError(display_name(path), "cannot tell what this JSON holds",
                           "a list of {title,text} passages, a list of triples, or a HippoRAG OpenIE file")


def sniff_jsonl(path: Path, lim: InputLimits) -> tuple[str, Any]:
    """A corpus graph's nodes, a corpus, questions or triples, from the first record."""
    first_rec = next(iter_jsonl(path, limits=lim), None)
    if first_rec is None:
        raise InputFormatError(display_name(path), "the file is empty", "one JSON object per line")
    rec = first_rec[1]
    if _is_question(rec):
        return "questions", None
    if isinstance(rec, dict):
        keys = {str(k).lower() for k in rec}
        if "text" in keys and "id" in keys and "relation" not in keys:
            return "corpus_nodes", None
        if "text" in keys or "paragraph_text" in keys:
            return "corpus", None
    return "triples", None


#: characters of a file's start :func:`looks_like_questions` reads: the first record of any real questions file
#: (a MuSiQue question with its twenty paragraphs is about 15 KB) in a bounded read, whatever the file's size
HEAD_BYTES = 1 << 17


def looks_like_questions(path: Path) -> bool:
    """Whether ``path``, a ``.json`` list or a ``.jsonl`` file (gzipped or not), starts with a question record,
    read from its first :data:`HEAD_BYTES` only: cheap enough to run on an upload before its build starts (the
    loader's detection parses a ``.json`` whole). False for any other file, and for one whose start cannot be
    read as such (a record longer than the head, bad gzip, another encoding): the loader tells those apart."""
    suffix = base_suffix(path)
    if suffix not in (".json", ".jsonl") or not path.is_file():
        return False
    try:
        with open(path, "rb") as raw:
            gz = raw.read(2) == b"\x1f\x8b"
        with (gzip.open(path, "rb") if gz else open(path, "rb")) as fh:
            head = fh.read(HEAD_BYTES).decode("utf-8", errors="ignore").lstrip("\ufeff \t\r\n")
        if suffix == ".jsonl":
            rec = json.loads(head.split("\n", 1)[0])
        elif head.startswith("["):
            rest = head[1:]
            rec = json.JSONDecoder().raw_decode(rest, len(rest) - len(rest.lstrip()))[0]
        else:
            return False
    except (OSError, EOFError, zlib.error, ValueError, RecursionError):
        return False
    return _is_question(rec)
