"""Whose a name in apposition is where the parser hung it on the wrong noun (the ``spacy`` extractor; audit 56).

BubbleRAG §3.1 step 2 reads the triples of a passage. "Rhoda Penrose, the daughter of the quarry owner Silas Penrose"
has no comma between "owner" and its name, and the small model hangs "Silas Penrose" on "daughter": audit 56 read
"Rhoda Penrose · is · Silas Penrose" (the class "an apposition 'the daughter of X' is a relation 'daughter of', never
'is X'"). The name is the "of"-object's: (Rhoda Penrose, daughter of, Silas Penrose).
"""

from __future__ import annotations

from typing import Any


def of_name(noun: Any, name: Any) -> bool:
    """Whether the name ``name`` the parser hung on ``noun`` in apposition follows "<noun> of <role noun>" with no comma
    ("the daughter of the quarry owner Silas Penrose"): the role noun's name, never ``noun``'s (audit 56 read "Rhoda
    Penrose · is · Silas Penrose"; the class "an apposition 'the daughter of X' is a relation, never 'is X'")."""
    return name.pos_ == "PROPN" and any(p.dep_ == "prep" and p.lower_ == "of" and p.right_edge.i + 1 == name.left_edge.i
                                        and any(o.dep_ == "pobj" and o.pos_ == "NOUN" and o.i + 1 == name.left_edge.i for o in p.children)
                                        for p in noun.children)  # a role noun: not "of oil baron Jock and X" (MuSiQue)


def of_object_name(m: Any, tok: Any) -> tuple[str, str] | None:
    """The name after the "of"-object ``tok`` that the parser hung on the noun before "of" (:func:`of_name`): "the
    daughter of the quarry owner Silas Penrose" gives (Rhoda Penrose, daughter of, Silas Penrose)."""
    noun = tok.head.head if tok.dep_ == "pobj" and tok.head.lower_ == "of" else None
    name = next((c for c in noun.children if c.dep_ == "appos" and of_name(noun, c)), None) if noun is not None else None
    return m.mention(name) if name is not None else None
