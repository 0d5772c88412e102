"""Which tokens of one spaCy-parsed piece of text name which entity: the spans the ``spacy`` extractor's mentions are.

Named entities (``doc.ents``) and noun chunks without their determiners are mentions; entities win over the chunks
they overlap unless they cut a proper name short ("Hugo" of "Hugo Weaving"); where the text names its passage's title,
those tokens are the title entity however the parser split them; a name after its description ("the cattle ferry
Brown Ox") is the name alone; "John Wallop, 1st Earl of Portsmouth" is one name. :class:`core.backends.spacy_mentions.
_Mentions` reads these spans as names (BubbleRAG §3.1 step 2: the entities of a passage).
"""

from __future__ import annotations

import re
from typing import Any

from core.backends import spacy_anaphora as ana

#: Entity labels that are values: typed nodes reached only as the object of a relation.
VALUE_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"})
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "his", "her", "its",
                          "their", "our", "my", "your", "some", "any", "each", "every", "another"})
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)|First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth")

#: a mention's tokens: (start, end, entity label; "" for a noun chunk, "TITLE" for the passage's title)
Span = tuple[int, int, str]


def mention_spans(doc: Any, title: str | None) -> dict[int, Span]:
    """Token index -> the span of the mention it is part of, in ``doc`` of a passage titled ``title``."""
    out: dict[int, Span] = {}
    chunk_roots = {nc.root.i: nc for nc in doc.noun_chunks}
    for nc in chunk_roots.values():
        start = nc.start
        while start < nc.end and (doc[start].lower_ in _DETERMINERS or doc[start].dep_ in ("det", "poss")
                                  or doc[start].tag_ in ("POS", "PRP$", "DT")):
            start += 1
        # a possessor inside the chunk ("Lothair II's mother") is a mention of its own
        for t in doc[start:nc.end]:
            if t.dep_ == "case" and t.head.i < nc.root.i:
                start = t.i + 1
        # a name after its description is the name: "the cattle ferry Brown Ox" is the Brown Ox, one node with
        # "The Brown Ox was a ferry" (the chunk "ferry Brown Ox" made a second)
        if nc.root.pos_ == "PROPN" and doc[start].pos_ in ("NOUN", "ADJ"):
            first = next((t.i for t in doc[start:nc.root.i + 1] if t.pos_ == "PROPN"), start)
            if all(t.pos_ == "PROPN" for t in doc[first:nc.root.i + 1]):
                start = first
        if start < nc.end:
            for i in range(start, nc.end):
                out[i] = (start, nc.end, "")
    covered = 0
    for ent in doc.ents:  # entities win over the chunks they overlap ...
        if ent.start < covered:
            continue  # inside a name extended below
        start, end = ent.start, ent.end
        while start < end and doc[start].lower_ in ("the", "a", "an"):
            start += 1
        while start < min(end, len(doc) - 1) and doc[start].pos_ == "NOUN" and doc[start].lower_ in ana.ORG_NOUNS \
                and doc[start + 1].pos_ == "PROPN":  # "(the house) Osterby & Daughters" is the name (spacy_anaphora)
            start += 1
        chunk = out.get(ent.start)
        if chunk is not None and chunk[0] <= start and chunk[1] >= end and ent.label_ not in VALUE_LABELS \
                and all(t.pos_ == "PROPN" for t in doc[chunk[0]:chunk[1]]):
            start, end = chunk[0], chunk[1]  # ... unless they cut a proper name short ("Hugo" Weaving)
        if ent.label_ == "PERSON" and end + 2 < len(doc) and doc[end].text == "," \
                and _ORDINAL.fullmatch(doc[end + 1].text):
            # "John Wallop, 1st Earl of Portsmouth" is one name (Wikipedia's peerage titles)
            j = end + 2
            while j < len(doc) and (doc[j].text[:1].isupper() or doc[j].lower_ in ("of", "the", "and")):
                j += 1
            while j > end + 2 and doc[j - 1].lower_ in ("of", "the", "and"):
                j -= 1
            if j > end + 2:
                end = covered = j
        for i in range(start, end):
            out[i] = (start, end, ent.label_)
    if title:  # where the text names its title ("The Countess of Parma (Italian: ...) is a ..."),
        # those tokens are the title entity, however the parser split them
        base = title.split(" (", 1)[0]
        for form in dict.fromkeys((title, base)):
            for m in re.finditer(re.escape(form), doc.text, flags=re.IGNORECASE):
                span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
                if span is not None and not _inside_name(doc, span):
                    for i in range(span.start, span.end):
                        out[i] = (span.start, span.end, "TITLE")
                    _split_rest(doc, span, out)
    return out


def _overlapping(doc: Any, span: Any) -> list[Any]:
    return [e for e in doc.ents if e.start < span.end and e.end > span.start
            and (e.start < span.start or e.end > span.end)]


def _inside_name(doc: Any, span: Any) -> bool:
    """``span`` is part of a longer name ("Enola Gay" in "Enola Gay Tibbets"), not the title itself."""
    for e in _overlapping(doc, span):
        extra = [t for t in doc[e.start:e.end] if t.i < span.start or t.i >= span.end]
        if all(t.text[:1].isupper() or t.like_num for t in extra):
            return True
    return False


def _split_rest(doc: Any, span: Any, out: dict[int, Span]) -> None:
    """An entity the parser ran past the title ("The Matrix with Laurence Fishburne"): the rest
    after the title, from its first capitalized word, is a mention of its own."""
    for e in _overlapping(doc, span):
        rest = [t for t in doc[span.end:e.end]]
        caps = [t.i for t in rest if t.text[:1].isupper()]
        if caps:
            for i in range(caps[0], e.end):
                out[i] = (caps[0], e.end, e.label_)
        for t in rest:
            if t.i < (caps[0] if caps else e.end):
                out.pop(t.i, None)
