"""A text corpus: documents (one each, chunked; :mod:`~core.graph.formats.documents`) and JSON / JSONL
``{title, text}`` passages."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from core.errors import InputFormatError
from core.graph.chunking import CHUNK_CHARS, PASSAGE_SPLIT_CHARS, chunk_text
from core.graph.formats.bounds import InputLimits, base_suffix, display_name, file_stem
from core.graph.formats.documents import read_document
from core.graph.formats.jsonio import iter_jsonl, load_json
from core.graph.formats.records import as_name, json_type
from core.graph.formats.repeats import RepeatIndex
from core.graph.graph_builder import GraphBuilder


def read_text_document(path: Path, builder: GraphBuilder, *, max_chars: int = CHUNK_CHARS,
                       limits: InputLimits | None = None) -> list[str]:
    """A document (``.txt``, ``.md``, ``.pdf``, ``.html``, ``.docx``) as passages: see
    :func:`~core.graph.formats.documents.read_document`."""
    return read_document(path, builder, limits=limits, max_chars=max_chars)


def read_corpus_json(path: Path, builder: GraphBuilder, *, text: str | None = None, data: Any = None,
                     limits: InputLimits | None = None, repeats: RepeatIndex | None = None) -> list[str]:
    """A corpus as JSON list / JSONL of ``{title, text}`` (optional ``id``). Records without an id
    get ``<file stem>:<position>`` so an OpenIE file for the same corpus can refer to them.

    A passage longer than :data:`~core.graph.chunking.PASSAGE_SPLIT_CHARS` is split into chunks of
    :data:`~core.graph.chunking.CHUNK_CHARS` (ids ``<id>``, ``<id>#2``, ...; same title), and a warning
    says how many were.

    With ``repeats`` (adding documents to a workspace), a record whose text is a passage read before (the
    workspace's, or an earlier record's) is skipped and noted under the file's name; the others are known to
    it once read."""
    path = Path(path)
    name = display_name(path)
    records: Iterable[tuple[dict[str, int], Any]]
    if base_suffix(path) == ".jsonl":
        records = (({"line": ln}, rec) for ln, rec in iter_jsonl(path, text, limits=limits))
    else:
        if data is None:
            data = load_json(path, text, limits=limits)
        if not isinstance(data, list):
            raise InputFormatError(name, f"the top level is a JSON {json_type(data)}",
                                   'a list of {"title", "text"} objects')
        records = (({"record": i}, rec) for i, rec in enumerate(data, start=1))
    stem = file_stem(path)
    n = 0
    made_up: list[str] = []  # the first and the last id made up for records without one (by position)
    n_made_up = 0
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
        if rid is not None:
            cid = as_name(rid, '"id"', name, line=where.get("line"), record=where.get("record"))
        else:
            cid = f"{stem}:{pos}"
            made_up = [made_up[0] if made_up else cid, cid]
            n_made_up += 1
        if repeats is not None:
            if repeats.seen(body) is not None:
                repeats.note(name, title or " ".join(body.split()[:6]))
                n += 1
                continue
            repeats.add(title, body)
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
    if made_up:  # said only if a triple's source then names no passage (load_inputs)
        builder.source_notes.numbered.append((name, n_made_up, n, made_up[0], made_up[1]))
    if not split:
        return []
    shown = ", ".join(f"{cid!r} ({chars:,} characters → {k} chunks)" for cid, chars, k in split[:3])
    return [f"{name}: {len(split):,} passage{'s' if len(split) != 1 else ''} longer than "
            f"{PASSAGE_SPLIT_CHARS:,} characters {'were' if len(split) != 1 else 'was'} split into chunks of at most "
            f"{CHUNK_CHARS:,} characters, ids <id>#2, <id>#3, ... ({shown}{', ...' if len(split) > 3 else ''}); gold evidence "
            "naming such a passage matches its first chunk."]
