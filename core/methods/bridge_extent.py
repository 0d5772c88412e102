"""The words of a question that a description spans: what its bridge replaces when the question is re-read.

For :func:`core.methods.bridges.clause_bridges` (a rule of ours, in no paper: each paper's pipeline has an LLM read the
question). A description found by its pattern ("the glass artist who won the Gold Pane") may own words the pattern
does not reach: a relative clause's adjuncts and object ("… where Tobin Ashgrove worked as a boy?", "… where Mirela
Palemont won the first prize in 1907?") and its dates and places before the question's own last verb ("In which
village was the glass artist who won the Gold Pane in 1899 born?": audit 58 read "… the artist Odile Vantrec in 1899
born?"). Words the question's own verb needs stay the question's ("When did the ferry that X captained sink?").
"""

from __future__ import annotations

import re

#: Participles not ending in -ed that close a question ("Who was the man … born?").
PARTICIPLES = frozenset({"born", "built", "made", "sold", "bought", "known", "called", "named", "given", "taken",
                         "written", "drawn", "paid", "held", "led", "run", "found", "kept", "left", "won", "shown"})
#: A relative clause's own last words before the question mark, which belong to the clause's verb where the
#: question's verb came first: its adjuncts ("as a boy", "in 1890", "for ten years") and its object ("the festival
#: where Mirela Palemont won the first prize in 1907": audit 57 read "… the Lantern Puppet Festival the first prize in
#: 1907?") — no verb among them (no participle, checked by the caller, nor an auxiliary or a new clause's word).
_CLAUSE_TAIL = re.compile(r"(?:\s+(?!(?:was|were|is|are|be|been|being|did|does|do|has|have|had|when|while|who|whom|"
                          r"which|that|where)\b)[\w'’\-]+)+?(?=\s*\?\s*$)")
#: A question whose verb comes after its subject ("When did the ferry that X captained in 1904 sink?", "Which river
#: does the town where X died lie on?").
_DO_FIRST = re.compile(r"\b(?:did|does|do)\b", re.IGNORECASE)
#: A clause's dates and named places right after it ("in 1899", "at Selworth in 1904"), where only the question's
#: own last verb follows them ("… in 1899 born?", "… in 1904 based?", "… in 1904 sink?").
_ADJUNCTS = re.compile(r"(?:\s+(?:in|on|at|during|from|until|by)\s+(?:the\s+)?(?:\d{3,4}s?|[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)*))+"
                       r"(?=\s+[a-z]+\s*\?\s*$)")


def participle(word: str) -> bool:
    """Whether ``word`` reads as a participle ("apprenticed", "born")."""
    return word.endswith("ed") or word in PARTICIPLES


def extent(query: str, m: re.Match[str], *, clause: bool, relative: bool) -> str:
    """The words of the description ``m`` in ``query``: to the question mark in a "Who/What was …?" question where it
    is the object of a preposition and only lowercase words that are no participle follow ("the husband of the artist
    who painted the Brackwell catalogue illustrations?"); for a ``relative`` clause ("the N where X V-ed") also its own
    words to the question mark where the question's verb came first (:data:`_CLAUSE_TAIL`); for any ``clause`` its
    dates and places before the question's last verb (:data:`_ADJUNCTS`); else the match ("the engineer who bought the
    Colbridge Lamp Company" before "born?")."""
    after = query[m.end():]
    rest = re.match(r"(?:\s+[a-z][\w\-]*)+(?=\s*\?\s*$)", after)
    if (rest and re.match(r"(?:Who|What)\s+(?:was|is|were|are)\b", query)  # no verb left to come after it
            and not any(map(participle, rest.group(0).split()))
            and re.search(r"\b(?:of|for|to|from|with|about|by|on|at|in)\s+$", query[:m.start()])):
        return query[m.start():m.end() + rest.end()]
    tail = _CLAUSE_TAIL.match(after)  # "the quarry where Tobin Ashgrove worked as a boy?" (audit 56 read "… Penrose
    if relative and tail and not _DO_FIRST.search(query[:m.start()]) and not any(map(participle, tail.group(0).split())):
        return query[m.start():m.end() + tail.end()]  # as a boy?")
    adjuncts = _ADJUNCTS.match(after)
    return query[m.start():m.end() + adjuncts.end()] if clause and adjuncts else m.group(0)
