"""Small text helpers shared by loaders, builder and methods."""

from __future__ import annotations

import hashlib
import re
import unicodedata

_WS = re.compile(r"\s+")
_EDGE_PUNCT = re.compile(r"^[\s\"'`.,;:!?()\[\]{}]+|[\s\"'`.,;:!?()\[\]{}]+$")


def normalize_name(name: str) -> str:
    """Key under which entity names are merged.

    Unicode NFKC, lower-cased, whitespace collapsed, surrounding quotes/punctuation stripped.
    The MuSiQue OpenIE graph uses exactly this (lower-case, whitespace-normalized) to arrive at
    16,246 distinct entities.

    >>> normalize_name('  "Laurence   Fishburne" ')
    'laurence fishburne'
    """
    s = unicodedata.normalize("NFKC", str(name)).casefold()
    s = _WS.sub(" ", s)
    return _EDGE_PUNCT.sub("", s)


def clean_text(text: str) -> str:
    """Collapse runs of whitespace and strip; keeps case."""
    return _WS.sub(" ", str(text)).strip()


def content_hash(*parts: str | bytes, n: int = 16) -> str:
    """Stable short sha256 hex digest over the given parts (separated, so ('a','b') != ('ab',))."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode("utf-8") if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()[:n]


def approx_tokens(text: str) -> int:
    """Cheap token estimate (~4 characters per token) used only when a backend reports none."""
    return max(1, (len(text) + 3) // 4) if text else 0
