"""The first hop of a two-hop question, by string rules: the entity a description in the question stands for.

The extractive answer (:mod:`core.methods.extractive`, rule 3) also reads the question with that bridge entity.

A two-hop question names its answer's subject by a description: "When did *Lothair II's mother* die?", "Who built
*the ferry that Mattias Venn captained*?", "In what year was *the ferry commanded by Edda Thorne* launched?". The
sentence that answers it ("The Lantern Moth was built by the shipwright Barnaby Fell") names the bridge entity, not the
description, so the cross-encoder scores it low against the question as asked, and a sentence that shares the
description's words ("She commanded the ferry Grey Heron …") wins. Where a retrieved passage resolves the description,
the question is also read with the bridge entity in its place ("Who built the ferry Lantern Moth?") and a sentence
scores the better of the two readings — what a reader does after reading the first passage. The sentence that
resolved a description (the first hop: "She took command of the ferry Silver Eel in 1921") is scored by the re-read
question alone: it restates the question's own description, so the question as asked scored it above the sentence
that answers ("It was launched in 1920").

- :func:`possessive_bridges` — "X's R" / "the R of X" of a relational noun, resolved by a passage that states "R of X"
  or "X's R" (its title is the bridge: "Ermengarde of Tours … the mother of Lothair II").
- :func:`clause_bridges` — "the N that X V-ed", "the N with which X was V-ed", "the N V-ed by X", "the N of X", "X's
  N", resolved by a sentence that names X and either "the N Name" ("the ferry Lantern Moth"), a name ending with N
  ("the Halden Telescope") or, with a verb, a name after a word of the verb's stem ("captained" meets "became captain
  of the ferry Lantern Moth", "commanded" meets "took command of the ferry Silver Eel"); an agent noun ("the founder
  of X") stands for its verb, with the name as the agent ("founded … by the astronomer Ilse Brandvik"). An adjective
  of the description must be in the sentence ("the first telescope of X" is not X's largest one). Sentences are read
  with their pronouns resolved (the caller's readings), so "She commanded the ferry Grey Heron" names Orla Brisk.

Neither is in any paper: each paper's pipeline assumes an LLM for this step. Each bridge found is recorded in the
answer step's trace with the question as it was re-read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.text import normalize_name

#: A proper name: capitalised words, with "of"/"de"/"van"/"von" between two of them ("Ermengarde of Tours").
_NAME = r"[A-Z][\w'\-]*(?:\s+(?:(?:of|de|van|von|da|di)\s+)?(?:[A-Z][\w'\-]*|[IVX]+\b))*"
_CLAUSE_PATTERNS = (
    # "the ferry that Mattias Venn captained"
    re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+(?:that|which|whom)\s+(?:the\s+)?(?P<x>{_NAME})\s+(?P<verb>[a-z]+)\b"),
    # "the telescope with which Comet Sarna was discovered"
    re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+(?:with|in|at|on|from|by)\s+which\s+(?:the\s+)?(?P<x>{_NAME})\s+"
               r"(?:was|were|is|are|had\s+been)\s+(?P<verb>[a-z]+)\b"),
    # "the ferry commanded by Edda Thorne"
    re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+(?P<verb>[a-z]+)\s+by\s+(?:the\s+)?(?P<x>{_NAME})"),
    # "the ferry of Josiah Crell", "the current director of Kestrel Peak Observatory"
    re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+of\s+(?:the\s+)?(?P<x>{_NAME})"),
    # "Josiah Crell's ferry"
    re.compile(rf"(?P<x>{_NAME})(?:'s|’s)\s+(?P<noun>[a-z]+)\b"),
)
#: Words that open a sentence or a description, never the start of a bridge name.
_NOT_NAMES = frozenset({"the", "a", "an", "he", "she", "it", "they", "his", "her", "its", "their", "this", "that",
                        "in", "on", "at", "after", "before", "during", "when", "who", "what", "where", "which", "how",
                        "january", "february", "march", "april", "may", "june", "july", "august", "september",
                        "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
                        "saturday", "sunday"})
#: Nouns of a description that ask for a person or a time rather than name a thing ("the man who …").
_NOT_THINGS = frozenset({"one", "same", "first", "last", "year", "time", "date", "day", "name", "number", "way",
                         "rest", "end", "start", "beginning", "part", "side", "top", "bottom", "history"})
#: Endings of an agent noun ("founder", "discoverer", "director"), the verb's stem without them.
_AGENT = re.compile(r"(?:er|or)$")


def possessive_bridges(query: str, passages: Sequence[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """(rewritten question, bridge title) for each "X's R" / "the R of X" of ``query`` that a passage
    resolves by stating "R of X" or "X's R"; at most one rewrite per phrase, best passage first."""
    phrases: list[tuple[str, str, str]] = []  # (phrase in the query, X, R)
    for m in re.finditer(r"((?:[A-Z][\w\-]*\s)*[A-Z][\w\-]*)(?:'s|’s)\s+([a-z]+)\b", query):
        phrases.append((m.group(0), m.group(1), m.group(2)))
    for m in re.finditer(r"\bthe\s+([a-z]+)\s+of\s+((?:[A-Z][\w\-]*\s)*[A-Z][\w\-]*)", query):
        phrases.append((m.group(0), m.group(2), m.group(1)))
    out: list[tuple[str, str]] = []
    for phrase, x, r in phrases:
        xn = re.escape(normalize_name(x))
        pat = re.compile(rf"\b{re.escape(r.lower())}s?\s+of\s+(?:the\s+)?(?:[a-z]+\s+)?{xn}\b|\b{xn}(?:'s|’s)\s+{re.escape(r.lower())}\b")
        for _cid, title, text in passages:
            if title and normalize_name(title) != normalize_name(x) and pat.search(normalize_name(text)):
                out.append((query.replace(phrase, title), title))
                break
    return out


def _names(text: str) -> list[tuple[int, str]]:
    """(start offset, name) of each proper name in ``text``, an opening word ("The", "She", "February") dropped."""
    out = []
    for m in re.finditer(_NAME, text):
        words = m.group(0).split()
        start = m.start()
        while words and words[0].lower() in _NOT_NAMES:
            start += len(words[0]) + 1
            words = words[1:]
        if words:
            out.append((start, " ".join(words)))
    return out


def _has(text_n: str, name: str) -> bool:
    n = normalize_name(name)
    return bool(n) and re.search(rf"\b{re.escape(n)}\b", text_n) is not None


def _stem(word: str) -> str:
    """The first five letters of a verb ("captained" → "capta", meets "captain"), or of an agent noun without its
    ending ("founder" → "found", "director" → "direc"); "" for a word too short to compare."""
    if _AGENT.search(word) and len(word) > 5:
        word = _AGENT.sub("", word)
    return word[:5] if len(word) >= 5 else ""


def _resolve(noun: str, x: str, verb: str, sentences: Sequence[str], query: str, adj: str = "") -> tuple[str, str]:
    """(the name that "the ``noun`` [that] ``x`` ``verb``" describes, the sentence that says so) from the first of
    ``sentences`` resolving it, or ("", "").

    In a sentence naming ``x``: a name right after the noun ("the ferry Lantern Moth") or ending with it ("the Halden
    Telescope"); else a name within six words after a word of the verb's stem ("took command of the ferry Silver
    Eel") — for a description without a verb, an agent noun's ("the founder of X": "founded in 1931 by the astronomer
    Ilse Brandvik"; "the current director of X": "The current director is Marek Lindqvist") only as the agent after
    "by" or after the noun and "is" ("discovered … with the Halden Telescope" names no discoverer). A description's
    adjective must be in the sentence too: "the first telescope of X" is not "X's largest instrument is the Halden
    Telescope"."""
    agent = not verb and bool(_AGENT.search(noun))
    stem = _stem(verb) if verb else _stem(noun) if agent else ""
    before_name = re.compile(rf"\b{re.escape(noun)}s?,?\s+$", re.IGNORECASE)  # "… the ferry " just before a name
    as_agent = re.compile(rf"(?:\bby\s+(?:the\s+)?(?:[a-z\-]+\s+)?|\b{re.escape(noun)}\s+(?:is|was)\s+)$", re.IGNORECASE)
    for s in sentences:
        if not _has(normalize_name(s), x) or (adj and not re.search(rf"\b{re.escape(adj)}\b", s, re.IGNORECASE)):
            continue
        names = [(start, n) for start, n in _names(s) if not _has(normalize_name(x), n) and not _has(normalize_name(n), x)]
        found = [n for start, n in names if before_name.search(s[:start])
                 or n.lower().endswith(" " + noun) or n.lower().endswith(" " + noun + "s")]
        if not found and stem:
            at = [m.end() for m in re.finditer(rf"\b(?i:{re.escape(stem)})[a-z]*\b", s)]
            found = [n for start, n in names for a in at[:1] if 0 < start - a and len(s[a:start].split()) <= 6
                     and (not agent or as_agent.search(s[:start]))]
        for n in found:
            if not _has(normalize_name(query), n):
                return n, s
    return "", ""


def clause_bridges(query: str, sentences: Sequence[str]) -> list[tuple[str, str, str]]:
    """(rewritten question, bridge name, the sentence that resolved it) for each description of ``query`` ("the
    ferry that Mattias Venn captained") that one of ``sentences`` (the retrieved passages' sentences as read with
    their pronouns resolved, best passage first) resolves; at most one per description.

    >>> clause_bridges("Who built the ferry that Mattias Venn captained?",
    ...                ["Mattias Venn became captain of the ferry Lantern Moth in 1904."])[0][:2]
    ('Who built the ferry Lantern Moth?', 'Lantern Moth')
    >>> clause_bridges("In what year was the ferry commanded by Edda Thorne launched?",
    ...                ["Edda Thorne took command of the ferry Silver Eel in 1921."])[0][:2]
    ('In what year was the ferry Silver Eel launched?', 'Silver Eel')
    """
    out: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for pat in _CLAUSE_PATTERNS:
        for m in pat.finditer(query):
            noun, x = m.group("noun"), m.group("x")
            verb = m.groupdict().get("verb") or ""
            adj = m.groupdict().get("adj") or ""
            if noun in _NOT_THINGS or m.group(0) in seen or x.split()[0].lower() in _NOT_NAMES:
                continue
            name, said = _resolve(noun, x, verb, sentences, query, adj)
            if name:
                seen.add(m.group(0))
                # "the Halden Telescope" where the name ends with the noun, else "the ferry Lantern Moth"
                named = f"the {name}" if name.lower().split()[-1].rstrip("s") == noun.rstrip("s") else f"the {noun} {name}"
                out.append((query.replace(m.group(0), named), name, said))
    return out
