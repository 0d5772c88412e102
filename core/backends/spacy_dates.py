"""Whose date a verb's "in <date>" is: its subject's, its named object's, or its object's alone (``spacy`` extractor).

BubbleRAG §3.1 step 2 reads the triples of a passage. A date of an active verb is its named object's too: "The city
hosted the International Honey Exhibition in 1931" gives (International Honey Exhibition, hosted in, 1931) besides the
city's, as the LLM prompt's "Oskel Optics · founded in · 1931" (:func:`dated_objects`). Where the verb brings its
object into being ("founded", "built", :data:`OBJECTS_DATE`), the date is the object's alone: "She founded the Olvenna
Tasting Guild in 1912" dates the guild, not her (an audit's KG read "Perpetua Vane · founded in · 1912", the year of a
founding given to the founder); she keeps "founded · Olvenna Tasting Guild" (:func:`date_holders`).
"""

from __future__ import annotations

import re
from typing import Any

from core.backends.spacy_mentions import _NOT_NAMES

#: verbs whose date is the subject's alone: "won the Chess World Cup in 2009" is no date of the cup (won every year),
#: "left the White House in 1961", "joined the Christian Democratic Union in 1981" none of the house or the party; and
#: their -ing forms ("After leaving Orvane Pictures in 1945 she taught …": her leaving, no "Orvane Pictures · leaving in")
SUBJECTS_DATE = frozenset({"left", "leave", "leaves", "joined", "join", "joins", "rejoined", "won", "win", "wins",
                           "visited", "entered", "attended", "reached", "adopted", "leaving", "joining", "rejoining",
                           "winning", "visiting", "entering", "attending", "reaching", "adopting"})
#: verbs of getting a thing given: an "it" they take gets no date ("Petra Fenwick, who received it in 1891": hers)
RECEIVES = frozenset({"received", "receive", "receives", "got", "earned", "gained", "accepted", "collected"})
#: verbs that bring their object into being, by their forms (the pinned pipeline has no lemmatizer): the date is the
#: founding's or the building's, so the object's alone ("founded the X Guild in 1912", "built the mill in 1788")
OBJECTS_DATE = frozenset({"founded", "cofounded", "co-founded", "founds", "established", "establishes", "incorporated",
                          "formed", "created", "creates", "built", "builds", "rebuilt", "constructed", "erected",
                          "opened", "opens", "launched", "launches", "inaugurated", "instituted"})
_SPAN = re.compile(r"\b(?:years|months|weeks|days|decades|centuries)\b", re.IGNORECASE)


def dated_objects(m: Any, verb: Any, prep: Any, tail: tuple[str, str] | None,
                  objects: list[tuple[str, str] | None] | None = None) -> list[tuple[str, str]]:
    """The named objects a date belongs to besides the subject: "The city hosted the International Honey Exhibition in
    1931" → (International Honey Exhibition, hosted in, 1931) too (an audit's KG had only "<city> · hosted in · 1931",
    which says nothing of what was hosted). Only an active verb's named object that is no place ("left Texas in 1999":
    the leaving is hers), a date "in"/"on" that is no span of time ("not won in 107 years"), and no verb whose date is
    only its subject's (:data:`SUBJECTS_DATE`). ``objects``: the object mentions the date is of (default: the verb's
    ``dobj`` and its conjuncts)."""
    if tail is None or tail[1] != "DATE" or prep.lower_ not in ("in", "on") or verb.lower_ in SUBJECTS_DATE or any(
            c.dep_ in ("nsubjpass", "auxpass") for c in verb.children) or _SPAN.search(tail[0]):
        return []
    if objects is None:
        # "who received it in 1891": the receiving is the subject's ("Columbia released it on …" dates the song too)
        objects = [m.mention(o) for c in verb.children if c.dep_ == "dobj" and (
            c.pos_ != "PRON" or verb.lower_ not in RECEIVES) for o in m._conjuncts(c)]
    return [got for got in objects
            if got is not None and got[1] and got[1] not in _NOT_NAMES and got[1] not in ("GPE", "LOC")]


def date_holders(m: Any, verb: Any, prep: Any, tail: tuple[str, str] | None, subjects: list[tuple[str, str]],
                 objects: list[tuple[str, str] | None] | None = None) -> list[tuple[str, str]]:
    """Who gets ``verb``'s "<prep> <tail>" edge: the ``subjects`` and the named objects the date is of
    (:func:`dated_objects`); the objects alone after a verb that brings them into being (:data:`OBJECTS_DATE`: "She
    founded the Olvenna Tasting Guild in 1912" is (guild, founded in, 1912), never (she, founded in, 1912)), unless
    one is a person's name or the verb gives it a role ("as head of …")."""
    dated = dated_objects(m, verb, prep, tail, objects)
    # a person is not brought into being so: "established Puyi as head of Manchukuo in 1932" is Japan's date too
    made = not any(c.dep_ == "prep" and c.lower_ == "as" for c in verb.children)
    if dated and made and verb.lower_ in OBJECTS_DATE and not any(m._person(got, "NNP") for got in dated):
        return dated
    return subjects + dated
