"""Small text helpers shared by loaders, builder and methods."""

from __future__ import annotations

import hashlib
import unicodedata

# Stripped from both ends of a name (after whitespace is collapsed to single spaces). str.strip is
# linear in the name; the regex it replaces backtracked on long runs of punctuation.
_EDGE_CHARS = " \"'`.,;:!?()[]{}"


def normalize_name(name: str) -> str:
    """Key under which entity names are merged.

    Unicode NFKC, lower-cased, whitespace collapsed, surrounding quotes/punctuation stripped.
    The MuSiQue OpenIE graph uses exactly this (lower-case, whitespace-normalized) to arrive at
    16,246 distinct entities.

    >>> normalize_name('  "Laurence   Fishburne" ')
    'laurence fishburne'
    """
    s = unicodedata.normalize("NFKC", str(name)).casefold()
    return " ".join(s.split()).strip(_EDGE_CHARS)


def clean_text(text: str) -> str:
    """Collapse runs of whitespace and strip; keeps case."""
    return " ".join(str(text).split())


def content_hash(*parts: str | bytes, n: int = 16) -> str:
    """Stable short sha256 hex digest over the given parts (separated, so ('a','b') != ('ab',))."""
    h = hashlib.sha256()
    buf: list[bytes] = []
    size = 0
    for p in parts:  # framed as before (8-byte length, bytes); fed in ~1 MB blocks, not per part
        b = p.encode("utf-8") if isinstance(p, str) else p
        buf.append(len(b).to_bytes(8, "little"))
        buf.append(b)
        size += len(b) + 8
        if size >= 1 << 20:
            h.update(b"".join(buf))
            buf.clear()
            size = 0
    h.update(b"".join(buf))
    return h.hexdigest()[:n]


def approx_tokens(text: str) -> int:
    """Cheap token estimate (~4 characters per token) used only when a backend reports none."""
    return max(1, (len(text) + 3) // 4) if text else 0
