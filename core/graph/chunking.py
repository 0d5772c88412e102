"""Splitting documents into passages (BubbleRAG §3.1 step 1: "chunking the corpus into passages")."""

from __future__ import annotations

import re

from core.text import split_sentences

_PARA = re.compile(r"\n\s*\n")


#: the chunker's size: characters per chunk of a text document, and of a corpus passage too long to keep whole
CHUNK_CHARS = 1200
#: a corpus passage longer than this is split into chunks of :data:`CHUNK_CHARS` before any extractor or
#: embedder sees it. Benchmark corpora's passages are their retrieval (and gold) unit and stay whole: the
#: longest MuSiQue passage has 1,909 characters, HotpotQA's and 2Wiki's are shorter; a 10 MB "passage" is not
#: one, and read whole it took the server past 4 GB in spaCy
PASSAGE_SPLIT_CHARS = 4 * CHUNK_CHARS


def chunk_text(text: str, *, max_chars: int = CHUNK_CHARS) -> list[str]:
    """Greedy, paragraph-aware chunking.

    Paragraphs (blank-line separated) are packed into chunks of at most ``max_chars`` characters;
    a paragraph longer than that is split at sentence boundaries (:func:`core.text.split_sentences`),
    and a sentence longer than that at word boundaries. No text is dropped or duplicated: joining the chunks with spaces gives back the
    words of the input in order.

    >>> chunk_text("A b.\\n\\nC d.", max_chars=100)
    ['A b.\\n\\nC d.']
    """
    if max_chars < 20:
        raise ValueError(f"max_chars={max_chars} is too small; use at least 20 characters per chunk")
    units: list[tuple[str, str]] = []  # (piece, separator before it)
    for p in _PARA.split(text.strip()):
        p = " ".join(p.split()) if "\n" not in p.strip() else "\n".join(ln.strip() for ln in p.strip().splitlines())
        if not p:
            continue
        if len(p) <= max_chars:
            units.append((p, "\n\n"))
            continue
        for j, s in enumerate(split_sentences(p)):
            sep = "\n\n" if j == 0 else " "
            while len(s) > max_chars:
                cut = s.rfind(" ", 0, max_chars)
                cut = cut if cut > 0 else max_chars
                units.append((s[:cut].strip(), sep))
                s, sep = s[cut:].strip(), " "
            if s:
                units.append((s, sep))
    chunks: list[str] = []
    cur = ""
    for piece, sep in units:
        if cur and len(cur) + len(sep) + len(piece) <= max_chars:
            cur += sep + piece
        else:
            if cur:
                chunks.append(cur)
            cur = piece
    if cur:
        chunks.append(cur)
    return chunks


def chunking_settings() -> dict[str, int]:
    """What a workspace's manifest records of the chunker (``chunking``), so documents added later are
    split alike or refused when this egx would split them otherwise."""
    return {"chunk_chars": CHUNK_CHARS, "passage_split_chars": PASSAGE_SPLIT_CHARS}
