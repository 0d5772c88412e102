"""What the ``spacy`` extractor parses: text screened for binary or non-Latin content, cut into pieces.

A passage is cut into pieces of at most :data:`PIECE_CHARS` characters at sentence or word
boundaries (spaCy's ``max_length`` is never reached, a 1 MB passage is parsed piece by piece);
text that looks binary or is not written in a Latin script is not parsed at all.
"""

from __future__ import annotations

import re

#: Longest piece of text handed to the parser at once (spaCy's default max_length is 1,000,000).
PIECE_CHARS = 20_000


def looks_unparseable(text: str) -> str | None:
    """Why ``text`` should not be parsed as English (binary-looking or not in a Latin script), or None.

    >>> looks_unparseable("Keanu Reeves starred in The Matrix.") is None
    True
    >>> looks_unparseable("東京は日本の首都である。東京都の人口は多い。")
    'not written in a Latin script (0% of its letters are Latin)'
    """
    sample = text[:20_000]
    visible = [c for c in sample if not c.isspace()]
    if not visible:
        return None
    control = sum(1 for c in sample if (ord(c) < 32 and c not in "\t\n\r") or c == "\ufffd")
    if control > 0.01 * len(sample):
        return f"binary-looking ({control} control or replacement characters)"
    letters = [c for c in visible if c.isalpha()]
    if len(letters) < 0.3 * len(visible):
        return f"binary-looking (only {100 * len(letters) // len(visible)}% of its characters are letters)"
    latin = sum(1 for c in letters if c < "\u0250")
    if latin < 0.6 * len(letters):
        return f"not written in a Latin script ({100 * latin // len(letters)}% of its letters are Latin)"
    return None


def split_pieces(text: str, limit: int = PIECE_CHARS) -> list[str]:
    """Cut ``text`` into pieces of at most ``limit`` characters, at a sentence end, else a space.

    >>> split_pieces("One. Two. Three.", limit=10)
    ['One. Two.', 'Three.']
    """
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind(". "), window.rfind("! "), window.rfind("? "), window.rfind("\n"))
        if cut < limit // 4:
            cut = window.rfind(" ")
        cut = limit if cut < limit // 4 else cut + 1
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        pieces.append(rest)
    return [p for p in pieces if p]


#: a paragraph of a few capitalised-first words with no sentence mark, a blank line after it: a section heading
_HEADING = re.compile(r"(?:\A|(?<=\n\n))[ \t]*(#{1,6}[ \t]*)?([A-Z][^\n.!?:;,()]{0,60})\n[ \t]*\n")
#: the most words a heading :func:`drop_headings` drops may have
HEADING_WORDS = 5


def drop_headings(text: str) -> str:
    """``text`` without its section headings (a short paragraph of its own, no sentence mark), which no sentence reads:
    audit 57's Markdown "## Career" before "Mirela performed …" became the entity "Career" ("Mirela Palemont ·
    mentions · Career"; the class "a section heading is no entity").

    >>> drop_headings("Ann was born in 1901.\\n\\nCareer\\n\\nShe sang.")
    'Ann was born in 1901.\\n\\nShe sang.'
    >>> drop_headings("## Early Life\\n\\nTom Reed\\n\\nTom Reed was a sailor.")
    'Tom Reed\\n\\nTom Reed was a sailor.'
    """
    return _HEADING.sub(lambda h: "" if _heading(h.group(2), bool(h.group(1))) else h.group(0), text)


def _heading(line: str, marked: bool) -> bool:
    """Whether a short paragraph ``line`` is a heading: a Markdown "#" one of at most :data:`HEADING_WORDS` words, or
    one whose words after the first are lower-case ("Later life"); never a line of names ("Tom Reed as Hal" in a cast
    list, a name line "Tom Reed"), which a passage's nodes need."""
    words = line.split()
    return len(words) <= HEADING_WORDS and (marked or not any(w[:1].isupper() for w in words[1:]))
