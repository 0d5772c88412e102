"""Attachments the small parser gets wrong in a list, mended in the parse before any relation is read.

- A verb after a comma in a list of objects, read as an adjective of the next object: "…, which rebuilt the
  auditorium, added electric lighting and a balcony, and began touring …" parsed "added" as "lighting"'s modifier,
  so the ``spacy`` extractor wrote "X · rebuilt · added electric lighting" (an audit). The verb is the first verb's
  conjunct, with the same subject, and the noun is its object (:func:`_listed_verbs`).
- A relative clause after nouns joined by "and"/"or" hung on the first of them: "comic sketches and long serial
  dramas that ran over many evenings" gave "comic sketches · ran over · many evenings" (an audit). The clause is the
  nearest noun's, unless its verb's number says it cannot be (:func:`_nearest_relative`).
- A name in apposition after "<noun> in <place>," hung on the place: "A street in Harvoy, Castemar Row, was named
  after her" gave "Harvoy · is · Castemar Row" and "Harvoy · street named in · 1951" (an audit). The name is the
  noun's (:func:`_named_thing_in_place`).

Heads are changed in place (spaCy's ``Token.head``), each within the span the parser already gave the list, so the
parse stays projective and the noun chunks follow the new heads.
"""

from __future__ import annotations

from typing import Any

#: determiners and possessives that open a noun phrase: a verb before one cannot be that noun's adjective ("added a
#: balcony")
_OPENERS = frozenset({"the", "a", "an", "its", "his", "her", "their", "our", "my", "your", "this", "these", "those"})
#: where a thing lies in a place ("a street in Harvoy, Castemar Row,")
PLACE_PREPS = frozenset({"in", "at", "near", "outside", "on"})
#: what a town cannot be: "<noun> in <town>, a <building>" describes the noun ("The company's headquarters in
#: Dovrecka, a brick warehouse beside the railway station, …"; an audit's KG read "Dovrecka · is · brick warehouse")
BUILDINGS = frozenset({"warehouse", "building", "house", "mansion", "villa", "cottage", "barn", "shed", "factory", "mill",
                       "workshop", "office", "hotel", "inn", "shop", "store", "tower", "palace", "chapel", "hall"})
#: entity labels of a name that is a place's own part or a place itself ("a village in Kent, England"): left as parsed
_PLACE_LABELS = frozenset({"GPE", "LOC"})


def mend_attachments(doc: Any) -> Any:
    """``doc`` with the attachments above mended (the same ``doc``)."""
    for tok in doc:
        _listed_verbs(tok)
        _nearest_relative(tok)
        _named_thing_in_place(tok)
    return doc


def _first_conjunct(noun: Any) -> Any:
    while noun.dep_ == "conj" and noun.head.i < noun.i:
        noun = noun.head
    return noun


def _listed_verbs(verb: Any) -> None:
    """"rebuilt the auditorium, added electric lighting": ``verb`` ("added", an amod of "lighting") becomes the first
    verb's conjunct and the noun its object. Only a past-tense verb ("rebuilt") whose object list holds the noun, the
    word right after a comma, and a sign that it is a verb: a determiner or possessive between it and its noun ("added
    a balcony"), or a later verb joined to the first ("…, and began touring"); "sold bread, smoked fish and cheese"
    stays a list of goods."""
    if verb.dep_ != "amod" or verb.pos_ != "VERB" or verb.tag_ not in ("VBD", "VBN") or verb.i == 0 \
            or verb.doc[verb.i - 1].text != "," or not verb.text.islower():
        return
    noun = verb.head
    if noun.dep_ != "conj" or noun.pos_ != "NOUN" or noun.i <= verb.i:
        return
    first = _first_conjunct(noun)
    head = first.head
    if first.dep_ != "dobj" or head.pos_ != "VERB" or head.tag_ != "VBD" or head.i > first.i:
        return
    if any(c.i < verb.i and c.dep_ in ("det", "poss", "amod", "compound", "nummod") for c in noun.children):
        return  # "the old, painted doors": the verb is one of the noun's modifiers after others
    opener = any(verb.i < c.i < noun.i and c.dep_ in ("det", "poss") and c.lower_ in _OPENERS for c in noun.children)
    up = {head.i, *(a.i for a in head.ancestors)}  # "…, and began touring" may be joined to the verb above
    later_verb = any(t.dep_ == "conj" and t.pos_ == "VERB" and t.head.i in up for t in verb.doc[noun.i + 1:verb.sent.end])
    if not (opener or later_verb):
        return
    verb.head = head
    verb.dep_ = "conj"
    noun.head = verb
    noun.dep_ = "dobj"


def _nearest_relative(clause: Any) -> None:
    """"comic sketches and long serial dramas that ran over many evenings": the relative clause (on "sketches") is
    "dramas"'s, the plural common noun right before it. Not where the verb's number fits only the noun it hangs on ("a garden and two
    ponds that is open …")."""
    if clause.dep_ != "relcl" or clause.head.pos_ != "NOUN":
        return
    noun = clause.head
    later = [c for c in noun.conjuncts if noun.i < c.i < clause.i]
    if not later:
        return
    last = max(later, key=lambda c: c.i)
    if last.tag_ != "NNS":
        return  # "a former FBI agent and psychologist who works …" is one person; names ("Narayan, Anand and Raja
        # Rao who contributed …") are each the clause's (a MuSiQue reading)
    if clause.left_edge.i != last.right_edge.i + 1 or any(c.i > last.i and c.dep_ == "conj" for c in last.children):
        return  # the clause right after the last noun's words only
    rel = [c for c in clause.children if c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in ("that", "which", "who")]
    if rel:
        verb = next((c for c in clause.children if c.dep_ in ("aux", "auxpass")), clause)
        plural = verb.tag_ == "VBP" or verb.lower_ in ("were", "are", "have")
        singular = verb.tag_ == "VBZ" or verb.lower_ in ("was", "is", "has")
        if (plural and last.tag_ in ("NN", "NNP")) or (singular and last.tag_ in ("NNS", "NNPS")):
            return  # the verb's number does not fit the nearest noun
    clause.head = last


def _named_thing_in_place(name: Any) -> None:
    """"A street in Harvoy, Castemar Row, was named …": the name between commas after "<noun> in <place>" (hung on the
    place) is the noun's. Not a place's name ("a village in Kent, England": where Kent lies), nor after a name ("the
    Old Mill in Harvoy, …")."""
    if name.dep_ != "appos" or name.ent_type_ in _PLACE_LABELS:
        return
    place = name.head
    prep = place.head
    noun = prep.head
    if name.pos_ == "NOUN":  # "The company's headquarters in Dovrecka, a brick warehouse beside …": a building
        if name.lower_ not in BUILDINGS or not any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in name.children) \
                or place.pos_ != "PROPN" or place.ent_type_ == "PERSON":
            return
    elif name.pos_ != "PROPN" or place.ent_type_ not in ("GPE", "LOC", "FAC"):
        return
    if place.dep_ != "pobj" or prep.lower_ not in PLACE_PREPS \
            or prep.dep_ != "prep" or noun.pos_ != "NOUN" or noun.i > prep.i or noun.dep_ not in ("nsubj", "nsubjpass"):
        # a subject only: "is a rural gmina in Elblag County, Warmian-Masurian Voivodeship" names where the county
        # lies (a MuSiQue reading)
        return
    doc = name.doc
    if doc[name.left_edge.i - 1].text != "," or name.left_edge.i != place.i + 2:
        return
    end = name.right_edge.i + 1
    if end < len(doc) and doc[end].text != ",":
        return
    name.head = noun
    if end < len(doc) and doc[end].head.i == place.i:
        doc[end].head = noun  # the closing comma too: no crossing arc
