"""The "the N of the x y" descriptions of a question whose thing is named by lower-case words ("the inventor of the
bellows regulator"), for :func:`core.methods.bridges.clause_bridges`: the pattern, and the descriptions a retrieved
sentence names the thing of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.text import normalize_name

#: "the inventor of the bellows regulator", "the architect of the old customs house": "the N of" a thing named by
#: lower-case words, the words up to the first function word (:func:`thing_of`: as many of them as a sentence names).
THING_OF = re.compile(r"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+of\s+the\s+"
                      r"(?P<x>[a-z\-]{3,}(?:\s+(?!(?:after|before|during|until|since|in|on|at|of|for|from|with|by|to|and|or|"
                      r"but|that|which|who|when|where|while|as|is|was|were|are|did|does|do|born|die|died)\b)[a-z\-]{2,}){1,3})")


def thing_of(query: str, sentences: Sequence[str]) -> list[re.Match[str]]:
    """The "the N of the x y" descriptions of ``query`` whose lower-case thing "x y" (two to four words, :data:`THING_OF`)
    a sentence names as "the x y", cut to the longest such words: "the inventor of the bellows regulator" in "In
    what year was the inventor of the bellows regulator born?" (a thing in lower case found no bridge: every method of
    an invented corpus quoted "it fitted the bellows regulator to every instrument", not the inventor's birth)."""
    out = []
    hay = " ".join(normalize_name(s) for s in sentences)
    for m in THING_OF.finditer(query):
        words = m.group("x").split()
        for k in range(len(words), 1, -1):
            x = " ".join(words[:k])
            if re.search(rf"\bthe\s+{re.escape(x)}\b", hay):
                cut = re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+of\s+the\s+(?P<x>{re.escape(x)})\b")
                if (c := cut.match(query, m.start())) is not None:
                    out.append(c)
                break
    return out
