"""HippoRAG's OpenIE results (``docs[].extracted_triples``), matched to the passages of a loaded corpus."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from core.errors import InputFormatError
from core.graph.formats.bounds import InputLimits, display_name, file_stem, resolve_limits
from core.graph.formats.jsonio import load_json
from core.graph.formats.records import json_type, short_repr
from core.graph.graph_builder import BadNameError, GraphBuilder


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
    lim = resolve_limits(limits)
    name = display_name(path)
    if data is None:
        data = load_json(path, text, limits=lim)
    if not isinstance(data, dict) or not isinstance(data.get("docs"), list):
        raise InputFormatError(name, "there is no top-level \"docs\" list",
                               'HippoRAG OpenIE output: {"docs": [{"passage", "extracted_triples"}, ...]}')
    skipped = 0
    stem = file_stem(path)
    for i, doc in enumerate(data["docs"], start=1):
        if not isinstance(doc, dict) or "extracted_triples" not in doc:
            raise InputFormatError(name, 'a doc has no "extracted_triples"',
                                   '{"passage": ..., "extracted_triples": [[s, p, o], ...]}', record=i)
        title = doc.get("title", "")
        passage = doc.get("passage", "")
        body = doc.get("text")
        for key, val in (("title", title), ("passage", passage), ("text", body)):
            if val is not None and not isinstance(val, str):
                raise InputFormatError(name, f'the doc\'s "{key}" is a JSON {json_type(val)} '
                                             f'({short_repr(val)})', f'"{key}" as a string', record=i)
        if body is None:
            body = passage.split("\n", 1)[1] if title and passage.startswith(title + "\n") else passage
        cid = builder.find_chunk(title, body) or builder.add_chunk(title, body, chunk_id=f"{stem}:{i - 1}")
        triples = doc["extracted_triples"]
        if not isinstance(triples, list):
            raise InputFormatError(name, '"extracted_triples" is not a list', "a list of [s, p, o] lists", record=i)
        for tr in triples:
            if (not isinstance(tr, list) or len(tr) != 3
                    or not all(isinstance(x, (str, int, float)) and not isinstance(x, bool)
                               and (not isinstance(x, float) or math.isfinite(x)) and str(x).strip()
                               and len(str(x)) <= lim.max_name_chars for x in tr)):
                skipped += 1
                continue
            try:
                builder.add_triple(str(tr[0]), str(tr[1]), str(tr[2]), chunk_id=cid)
            except BadNameError:  # "?" or "..." as an entity: no letter or digit
                skipped += 1
    if skipped:
        return [f"{name}: skipped {skipped} malformed triples (not exactly three non-empty strings)."]
    return []
