"""Passages read twice: a document that repeats passages already read, word for word, leaves them out.

A person who builds from a corpus and a PDF of a few of its passages, or adds a text file of passages the
workspace holds, expects each passage once: a copy takes retrieval slots from other passages and holds the
gold text under an id no question names. :class:`RepeatIndex` knows the passages read so far and finds them
inside a new document's text, compared by :func:`repeat_key`: case, whitespace (a PDF's line breaks, even
mid-word) and the spelling of quotes and dashes do not count.

Which files are checked (:func:`~core.graph.formats.load.load_inputs`):

* documents (PDF, HTML, Word, Markdown, text) against everything read before them: the JSON corpora of the
  load (read first) and the documents before them. A repeated passage is cut out of the document's text,
  with its title when that stands right before it, and the rest is split into passages as usual.
* JSON corpora only when adding documents to a workspace (``known`` passages given): a record whose text is
  a passage the workspace holds, or one read earlier in the same add, is skipped. In a build a JSON corpus
  keeps every record, so that a dataset's corpus — in which the same paragraph may stand under two titles,
  as in HippoRAG's 2Wiki corpus — is read as published, with the ids its questions' gold evidence names (the
  bundled samples are built from JSON corpora only, and their graphs do not change).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

#: a passage shorter than this (in characters of its key) is never looked for: "Yes." is no copied passage
MIN_KEY_CHARS = 40
_PREFIX = MIN_KEY_CHARS
_QUOTES = {**dict.fromkeys("‘’‚‛`´′", "'"), **dict.fromkeys("“”„‟″\"", "''"),
           **dict.fromkeys("‐‑‒–—―−", "-")}


@functools.lru_cache(maxsize=65536)  # a text's characters repeat: folding each is one look-up
def _fold(ch: str) -> str:
    """One character as :func:`repeat_key` compares it ("" for whitespace)."""
    if ch.isspace():
        return ""
    f = _QUOTES.get(ch)
    if f is None:
        f = unicodedata.normalize("NFKC", ch).casefold()
        f = "".join(_QUOTES.get(c, c) for c in f if not c.isspace())
    return f


def repeat_key(text: str) -> str:
    """What two passages must share to be the same passage: the text without whitespace, case-folded, with
    quotes (‘’ `` '' “”) and dashes spelled one way each.

    >>> repeat_key("Person - centere\\nd “counseling”") == repeat_key("person - centered ``counseling''")
    True
    """
    return "".join(map(_fold, text))


@dataclass
class RepeatIndex:
    """The passages read so far, to find again in later files.

    ``found`` maps a file's name to the titles (or first words) of the passages of it that were left out as
    repeats, in the order found.
    """

    _full: dict[str, str] = field(default_factory=dict)  # key -> what to call the passage
    _by_prefix: dict[str, list[str]] = field(default_factory=dict)  # key[:_PREFIX] -> keys
    found: dict[str, list[str]] = field(default_factory=dict)

    def add(self, title: str, text: str) -> None:
        """Know one passage (and each paragraph of it, so a later document repeating one of them is found)."""
        parts = [text, *(re.split(r"\n\s*\n", text) if "\n" in text else ())]
        for part in parts:
            key = repeat_key(part)
            if len(key) < MIN_KEY_CHARS or key in self._full:
                continue
            self._full[key] = title or " ".join(part.split()[:6])
            self._by_prefix.setdefault(key[:_PREFIX], []).append(key)

    def add_all(self, passages: Iterable[tuple[str, str]]) -> None:
        for title, text in passages:
            self.add(title, text)

    def seen(self, text: str) -> str | None:
        """What the earlier passage with this text is called, or None when no passage read had it."""
        return self._full.get(repeat_key(text))

    def note(self, file: str, what: str) -> None:
        self.found.setdefault(file, []).append(what)

    def cut(self, text: str, file: str) -> str:
        """``text`` without the passages read before (each with its title when the title stands right before
        it); what was cut is noted under ``file``. Blank lines left behind are closed up."""
        if not self._full:
            return text
        chars: list[str] = []
        pos: list[int] = []
        for i, ch in enumerate(text):
            for c in _fold(ch):
                chars.append(c)
                pos.append(i)
        folded = "".join(chars)
        spans: list[tuple[int, int]] = []
        i, n = 0, len(folded)
        while i + MIN_KEY_CHARS <= n:
            hits = [k for k in self._by_prefix.get(folded[i:i + _PREFIX], ()) if folded.startswith(k, i)]
            if not hits:
                i += 1
                continue
            key = max(hits, key=len)
            start, end = i, i + len(key)
            title = self._full[key]
            tkey = repeat_key(title)
            if tkey and folded.endswith(tkey, 0, start) and (not spans or spans[-1][1] <= start - len(tkey)):
                start -= len(tkey)
            spans.append((start, end))
            self.note(file, title)
            i = end
        if not spans:
            return text
        out, last = [], 0
        for s, e in spans:
            a, b = pos[s], pos[e - 1] + 1
            if a >= last:
                out.append(text[last:a])
                last = b
        out.append(text[last:])
        return re.sub(r"\n[ \t]*(\n[ \t]*)+", "\n\n", "".join(out)).strip()
