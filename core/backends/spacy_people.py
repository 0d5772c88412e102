"""A name the small model tagged no person that the text shows to be one (the ``spacy`` extractor; round 64).

BubbleRAG §3.1 step 2 reads the triples of a passage. The small model tags many invented names ORG or NORP ("Idris
Palemont", "Orrin Tallis"), or none at all, and a "his"/"her" may only stand for a person: "After the death of Idris
Palemont in 1909, the direction of the company passed to *his* daughter Mirela Palemont" gave no "daughter of" edge
(audit 57; the class "a person the small model tags ORG"). The text itself says the name is a person's where it shares
its surname with a name the model tagged PERSON ("Mirela Palemont"), where "himself"/"herself" stands beside it ("Tallis
himself wrote …", which gives its gender too), or where it is the "of"-object of a kin noun ("the widow of X").
Read in spaCy terms only: entity labels, the compound/flat shape of a name, the ``pobj`` of a kin noun's "of".
"""

from __future__ import annotations

from typing import Any

from core.backends.spacy_anaphora import FAMILY

#: labels of a place: a name that shares a surname with a person there is still a place ("Lake Washington")
_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
#: what "himself"/"herself" beside a name makes it
_REFLEXIVE = {"himself": "he", "herself": "she"}


def _name_words(doc: Any, span: tuple[int, int, str]) -> list[Any]:
    """The words of the mention ``span`` when it is a person's name in form: two or three capitalised proper nouns, no
    joining word ("Brask & Tull", "Mauncey and Daughters" are firms); else []."""
    s, e, label = span
    words = list(doc[s:e])
    if not 2 <= len(words) <= 3 or label in _PLACE_LABELS:
        return []
    return words if all(w.pos_ == "PROPN" and w.is_alpha and w.text[:1].isupper() for w in words) else []


def _shares_surname(m: Any, tok: Any, span: tuple[int, int, str]) -> bool:
    """Whether the name ``span`` (its head ``tok``) ends in the surname of another name of the piece that the model
    tagged PERSON, with another given name ("Idris Palemont" beside "Mirela Palemont")."""
    words = _name_words(m.doc, span)
    if not words:
        return False
    for ent in m.doc.ents:
        if ent.label_ != "PERSON" or ent.start == span[0] or len(ent) < 2 or ent[-1].text != tok.text:
            continue
        if ent[0].text != words[0].text and all(w.pos_ == "PROPN" for w in ent):
            return True
    return False


def person_cue(m: Any, tok: Any, span: tuple[int, int, str]) -> bool:
    """Whether the text shows the name ``span`` (head ``tok``, tagged no person) to be a person's (round 64, the class
    "a person the small model tags ORG"): a shared surname with a PERSON name (:func:`_shares_surname`), a
    "himself"/"herself" right after it (its gender too, in ``m._gender``), or the ``pobj`` of a kin noun's "of" ("the
    widow of Orrin Tallis")."""
    after = m.doc[span[1]] if span[1] < len(m.doc) else None
    if after is not None and after.lower_ in _REFLEXIVE and after.head.i in (tok.i, tok.head.i):
        m._gender.setdefault(m.text_of(span), _REFLEXIVE[after.lower_])
        return True
    kin = tok.dep_ == "pobj" and tok.head.lower_ == "of" and tok.head.head.lower_ in FAMILY and (
        tok.head.head.pos_ == "NOUN")
    return kin or _shares_surname(m, tok, span)
