"""A work's title with a relative clause in it, made one name: "The Boy Who Painted the Moon" (the ``spacy`` extractor).

BubbleRAG §3.1 step 2 reads the triples of a passage. The small model parses "The Boy Who Painted the Moon was
published by Hal Voss in 1960." as "Boy", subject of a relative clause "Who Painted the Moon": round 61's probe read a
node "Boy" (``Boy · published by · Hal Voss``), and round 60's :func:`~core.backends.spacy_kinds.title_verb` does not
reach a title in the subject (the class "a title with a verb in it as a subject", round 62). A run of capitalised words
with a capitalised relative word ("Who", "That", "Which") and a capitalised verb right after it, every content word
capitalised, is one work's title: :func:`relative_titles` gives its tokens to
:func:`~core.backends.spacy_repair.repair_names`, which parses the piece again with the title as one token.
"""

from __future__ import annotations

from typing import Any

#: relative words that open the clause inside such a title ("The Man Who Climbed …", "The Song That Never Ends")
_RELATIVES = frozenset({"who", "that", "which", "where", "when"})
#: lower-case words a title's run may hold between its capitalised words ("the Moon", "of the Sea")
_JOINING = frozenset({"a", "an", "and", "at", "by", "for", "from", "in", "into", "of", "on", "or", "over", "the", "to",
                      "under", "with"})
#: the longest title (in tokens) read so; a longer run is more likely a sentence of capitalised words (a headline)
_MAX_TOKENS = 12


def _cap(tok: Any) -> bool:
    return tok.is_alpha and tok.text[:1].isupper() and tok.text != "I"


def _named_after(doc: Any, j: int) -> bool:
    """Whether a preposition at ``j`` opens a name of a body, person or place ("… Walked for the Kessel Press"): the
    sentence's phrase, not the title's."""
    if doc[j].lower_ in ("the", "a", "an", "and", "or") or doc[j].lower_ not in _JOINING:
        return False
    k = j + 1 + (j + 1 < len(doc) and doc[j + 1].lower_ == "the")
    return k < len(doc) and doc[k].ent_type_ in ("ORG", "PERSON", "GPE", "FAC", "NORP")


def _title_at(doc: Any, rel: Any) -> tuple[int, int] | None:
    """(start, end) of the title around the capitalised relative word ``rel``, or None where there is none: a
    capitalised noun right before it, a capitalised verb right after it, the capitalised run on both sides."""
    i, sent = rel.i, rel.sent
    if not (sent.start < i < sent.end - 1) or not _cap(rel) or rel.lower_ not in _RELATIVES:
        return None
    noun, verb = doc[i - 1], doc[i + 1]
    if not (_cap(noun) and noun.pos_ in ("NOUN", "PROPN")) or not (_cap(verb) and verb.tag_.startswith("VB")):
        return None
    start = i - 1
    while start > sent.start and _cap(doc[start - 1]) and i - start < _MAX_TOKENS // 2:
        start -= 1
    end = i + 2
    while end < sent.end and (_cap(doc[end]) or doc[end].lower_ in _JOINING) and end - start < _MAX_TOKENS \
            and not _named_after(doc, end):
        end += 1
    own = [e.end for e in doc.ents if e.start <= i < i + 2 <= e.end < end]
    end = own[0] if own else end  # the model's own entity ends the title ("The House Which Walked for the X Press")
    while end > i + 2 and not _cap(doc[end - 1]):  # "… the Moon and": the run ends on a capitalised word
        end -= 1
    if doc[start].lower_ in ("the", "a", "an"):  # the article stays the phrase's determiner ("The [Boy Who …]")
        start += 1
    return (start, end) if i - start >= 1 else None


def relative_titles(doc: Any, taken: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """(start, end, "WORK_OF_ART") of each work's title with a capitalised relative clause in it ("The Boy Who Painted
    the Moon"; the class "a title with a verb in it as a subject", round 62), none overlapping ``taken`` nor one an
    entity already holds whole."""
    out: list[tuple[int, int, str]] = []
    for tok in doc:
        span = _title_at(doc, tok)
        if span is None:
            continue
        start, end = span
        if any(e.start == start and e.end == end for e in doc.ents) or any(
                b < end and start < e for b, e, _ in taken + out):
            continue
        out.append((start, end, "WORK_OF_ART"))
    return out
