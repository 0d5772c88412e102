"""Deterministic text heuristics behind BubbleRAG's `none` (LLM-free) mode.

Nothing here is a model: entity mentions are maximal runs of capitalised words (with inner
connectors such as "of", "the", "II"), years and numbers; the remaining non-stopword words are
concept keywords. These rules are the documented fallback of the LLM stages, not their equal.
"""

from __future__ import annotations

import itertools
import re

from core.text import STOPWORDS

#: words that make a keyword "generic": a standalone relation/attribute noun (Example 4)
_CONNECTORS = {"of", "the", "de", "von", "van", "der", "la", "le", "du", "da", "di"}
#: a connector that makes one name of the capitalised words on both sides ("Brask & Sons", "AT&T"), as written
_AMPERSAND = "&"
_ROMAN = re.compile(r"^(?:[IVXLC]+|\d+(?:st|nd|rd|th)?)$")
_TOKEN = re.compile(r"[A-Za-z0-9][\w\-\.']*|[^\sA-Za-z0-9]")
_WH = {"who", "what", "when", "where", "which", "why", "how", "whose", "whom", "find", "name", "list", "is",
       "was", "were", "did", "does", "do", "are", "in"}


def _clean(tok: str) -> str:
    tok = re.sub(r"'s$|’s$", "", tok)
    return tok.strip(".,;:!?\"'()[]")


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text)]


def entity_mentions(query: str) -> list[str]:
    """Capitalised runs ("Lothair II", "Laurence Fishburne", "Brask & Sons"), quoted strings and numbers/years.

    The query's first word is only part of a mention when the next word is capitalised too
    (so "Who" or "When" are never entities). An "&" between capitalised words joins them into one name,
    spaced as the query writes it ("Marks & Spencer", "AT&T"): split, "Sons" alone was a keyword whose
    nearest nodes were years.
    """
    out: list[str] = []
    for q in re.findall(r"\"([^\"]+)\"|“([^”]+)”", query):
        s = (q[0] or q[1]).strip()
        if s:
            out.append(s)
    spans = [m.span() for m in _TOKEN.finditer(query)]
    toks = [query[a:b] for a, b in spans]
    i = 0
    while i < len(toks):
        t = _clean(toks[i])
        is_cap = bool(t) and (t[0].isupper() or (_ROMAN.match(t) is not None and i > 0 and toks[i - 1][:1].isupper()))
        if is_cap and i == 0 and (t.lower() in _WH or not _continues_run(toks, 1)):
            i += 1  # sentence case: a lone capitalised first word ("Besides the ...") is no entity
            continue
        if is_cap:
            mention = t
            j = i + 1
            while j < len(toks):
                n = _clean(toks[j])
                gap = " " if spans[j][0] > spans[j - 1][1] else ""
                if n and (n[0].isupper() or _ROMAN.match(n)):
                    mention += (gap if mention.endswith(_AMPERSAND) else " ") + n
                    j += 1
                elif (n.lower() in _CONNECTORS or n == _AMPERSAND) and _continues_run(toks, j):
                    mention += (gap if n == _AMPERSAND else " ") + n
                    j += 1
                else:
                    break
            mention = mention.strip()
            if mention and mention.lower() not in STOPWORDS:
                out.append(mention)
            i = j
            continue
        if t.isdigit():
            out.append(t)
        i += 1
    seen: set[str] = set()
    uniq = []
    for m in out:
        if m.lower() not in seen:
            seen.add(m.lower())
            uniq.append(m)
    return uniq


def conjoined_names(query: str, mentions: list[str]) -> list[tuple[int, list[str]]]:
    """Two mentions the query writes as one "A and B" ("Procter and Gamble"): ``(index of A, the names
    "A and B" could be a node under: "A and B", "A & B")`` for each such adjacent pair. Whether it is one
    name ("Procter and Gamble") or two ("Tom and Jerry" met) only the graph can say, so the caller joins a
    pair when a node has one of those names."""
    out: list[tuple[int, list[str]]] = []
    for i, (a, b) in enumerate(itertools.pairwise(mentions)):
        if re.search(re.escape(a) + r"\s+and\s+" + re.escape(b) + r"(?![\w&])", query):
            out.append((i, [f"{a} and {b}", f"{a} & {b}"]))
    return out


#: generational suffixes a name is compared without ("Johann Strauss II" is "Johann Strauss"), as the spaCy KG's
#: short names are (:mod:`core.backends.spacy_names`)
_SUFFIXES = frozenset({"ii", "iii", "iv", "jr", "jr.", "sr", "sr.", "junior", "senior"})


def _name_words(name: str) -> tuple[str, ...]:
    words = [re.sub(r"(?:'s|’s)$", "", w) for w in name.split()]
    if not words or not all(w[:1].isupper() for w in words):
        return ()  # no proper name: a concept ("brother"), a description ("Jonas Pell's brother"), a year
    out = tuple(w.lower() for w in words)
    while len(out) > 1 and out[-1].strip(".,") in _SUFFIXES:
        out = out[:-1]
    return out


def distinct_names(a: str, b: str) -> bool:
    """Whether keywords ``a`` and ``b`` are two full names that share only a surname ("Jonas Pell", "Anton Pell"): two
    people, whatever their embeddings' cosine (an audit's brothers became one anchor group). A name that is a part of
    the other, in order and ending with its last word ("Pell", "Hank Snow" in 'Clarence Eugene "Hank" Snow'), may be
    the same person: the rule the spaCy KG uses for short names (:mod:`core.backends.spacy_names`).

    >>> distinct_names("Jonas Pell", "Anton Pell"), distinct_names("Pell", "Anton Pell")
    (True, False)
    """
    wa, wb = _name_words(a), _name_words(b)
    if len(wa) < 2 or len(wb) < 2 or wa == wb or wa[-1] != wb[-1]:
        return False
    short, long = sorted((wa, wb), key=len)
    rest = iter(long)
    return not all(any(x == y for y in rest) for x in short)


def _continues_run(toks: list[str], j: int) -> bool:
    """Whether token ``j`` would extend a capitalised run (capitalised, a Roman numeral or a number)."""
    if j >= len(toks):
        return False
    n = _clean(toks[j])
    if n.lower() in _CONNECTORS or n == _AMPERSAND:  # "Lord of Misrule": a capital must follow the connector
        return j + 1 < len(toks) and _clean(toks[j + 1])[:1].isupper()
    return bool(n) and (n[0].isupper() or _ROMAN.match(n) is not None)


def concept_words(query: str, mentions: list[str]) -> list[str]:
    """Content words outside the entity mentions, in order, stopwords and WH-words removed.

    Each word is its own keyword, except that a qualifying modifier ("main", "first", "second",
    ...) stays attached to the word after it ("main villain", "first president").
    """
    masked = query
    for m in sorted(mentions, key=len, reverse=True):
        masked = re.sub(re.escape(m) + r"(?:'s|’s)?", " | ", masked)
    out: list[str] = []
    pending = ""
    for tok in tokens(masked):
        t = _clean(tok).lower()
        if not t or not re.match(r"[a-z0-9]", t) or t in STOPWORDS or t in _WH:
            pending = ""
            continue
        if t in _MODIFIERS or (t.split("-")[0] in _MODIFIERS and "-" not in t):
            pending = f"{pending} {t}".strip()
            continue
        out.append(f"{pending} {t}".strip())
        pending = ""
    return [w for w in dict.fromkeys(out) if len(w) > 1]


_VERBISH = re.compile(r"(?:ed|ing)$")
_VERBS = {"die", "born", "play", "star", "write", "wrote", "make", "made", "win", "won", "start", "lead", "led",
          "marry", "direct", "produce", "sing", "build", "invent", "discover"}


def is_underspecified(keyword: str) -> bool:
    """A generic noun keyword (no capital, no digit, at most two words, not verb-like) such as
    "mother" or "main villain"; verbs ("died", "starred") are relation cues and stay as they are."""
    if any(c.isupper() or c.isdigit() for c in keyword) or len(keyword.split()) > 2:
        return False
    head = keyword.split()[-1]
    return not (_VERBISH.search(head) or head in _VERBS)


def is_relation_cue(keyword: str) -> bool:
    """A verb keyword ("die", "starred", "played"): in `none` mode it names a relation, so it is searched
    among the enriched edges only — as a node query, "die" matches whatever node embeds nearest
    (a film title, a character), which is no anchor of the question."""
    if any(c.isupper() or c.isdigit() for c in keyword) or len(keyword.split()) != 1:
        return False
    return bool(_VERBISH.search(keyword)) or keyword.lower() in _VERBS


def stem(word: str) -> str:
    """A crude suffix-stripping stem for matching a verb keyword to relation labels
    ("died" / "die" → "di", "starred" / "starring" → "star", "played" → "play")."""
    w = word.lower()
    for suf in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suf) and len(w) - len(suf) >= 2:
            w = w[: -len(suf)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiou":
        w = w[:-1]
    return w


def relation_matches(keyword: str, relation: str) -> bool:
    """Whether a relation label ("died on") contains the verb keyword ("die") up to its stem."""
    k = stem(keyword)
    return any(stem(w) == k for w in re.findall(r"[a-z]+", relation.lower()))


def bind_to_entity(keyword: str, query: str, mentions: list[str]) -> str | None:
    """`none`-mode specialization (Example 4): "mother" in "Lothair II's mother" → "Lothair II's mother";
    otherwise the keyword joined to the nearest entity mention in the query ("main villain Keanu Reeves");
    None when the query names no entity."""
    head = keyword.split()[-1]
    for m in mentions:
        if re.search(re.escape(m) + r"(?:'s|’s)\s+(?:\w+\s+)?" + re.escape(head), query, flags=re.I):
            return f"{m}'s {keyword}"
    ents = [m for m in mentions if not m.isdigit()]
    if not ents:
        return None
    pos = query.lower().find(head.lower())
    nearest = min(ents, key=lambda m: abs(query.find(m) - pos) if query.find(m) >= 0 else 1 << 30)
    return f"{keyword} {nearest}"


_MODIFIERS = {"first", "second", "third", "last", "former", "main", "late", "early", "eldest", "youngest",
              "elder", "younger", "biological", "current", "previous", "original", "primary", "principal"}


def relax_keyword(keyword: str) -> str | None:
    """`none`-mode schema relaxation: drop ordinal/qualifying modifiers and keep the head
    ("second marriage" → "marriage", "second-married woman" → "married woman"); None if nothing to drop."""
    words = re.split(r"[\s\-]+", keyword)
    kept = [w for w in words if w.lower() not in _MODIFIERS]
    if kept and len(kept) < len(words):
        return " ".join(kept)
    return None
