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
    only its subject's (:data:`SUBJECTS_DATE`, :data:`RECEIVES`: "received the Garrow Medal in 1902" is no date of the
    medal, given every year; an audit's KG read "Garrow Medal · received in · 1902"). ``objects``: the object mentions
    the date is of (default: the verb's ``dobj`` and its conjuncts)."""
    if tail is None or tail[1] != "DATE" or prep.lower_ not in ("in", "on") or verb.lower_ in SUBJECTS_DATE | RECEIVES \
            or any(c.dep_ in ("nsubjpass", "auxpass") for c in verb.children) or _SPAN.search(tail[0]) or given(verb):
        return []
    if objects is None:
        # "who received it in 1891": the receiving is the subject's ("Columbia released it on …" dates the song too)
        objects = [m.mention(o) for c in verb.children if c.dep_ == "dobj" and (
            c.pos_ != "PRON" or verb.lower_ not in RECEIVES) for o in m._conjuncts(c)]
    return [got for got in objects
            if got is not None and got[1] and got[1] not in _NOT_NAMES and got[1] not in ("GPE", "LOC")]


def given(verb: Any) -> bool:
    """Whether ``verb`` hands its object to a recipient the parser read as its dative ("The society gave the Kelvary
    Observatory to the University of Calmouth in 1987", "lent the hall to the council"). The date is the giver's act,
    never the object's: audit 56 read "Kelvary Observatory · gave in · 1987" (the class "the object as subject"). A
    plain "to" ("sold Rank Film Distributors … to Carlton Television", "submitted "Half Bad" to an agent in January
    2013") keeps the object's date (MuSiQue)."""
    return any(c.dep_ == "dobj" for c in verb.children) and any(c.dep_ == "dative" for c in verb.children)


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


#: participles that make their head's object, after a comma: "holds a map fair every spring, started in 1971"; or
#: give it ("sponsored the Hollin Cup, awarded each autumn at the Wexholm fair": the cup is awarded)
_MADE = OBJECTS_DATE | {"started", "begun", "held", "organised", "organized", "restored", "renamed", "named", "awarded",
                        "presented", "given", "granted", "conferred", "contested"}


def timed(tok: Any) -> bool:
    """Whether ``tok`` is a time phrase the parser made an object: "each autumn", "every May" (no thing acted on)."""
    return any(c.dep_ == "det" and c.lower_ in ("each", "every") for c in tok.children)


def noun_participle(verb: Any) -> bool:
    """Whether ``verb`` is a past participle the parser read as a clause of its own though it qualifies the noun
    before it: "has a school and a fair held every May since 1850" ("a fair held" with "fair" an adjective and "a" on
    the participle; an audit's KG read "Skelby · held since · 1850"): a conjunct past participle with an article of
    its own and no subject or auxiliary, which has no subject to give (no edge)."""
    return verb.dep_ == "conj" and verb.tag_ == "VBN" and any(c.dep_ == "det" for c in verb.children) and not any(
        c.dep_ in ("nsubj", "nsubjpass", "aux", "auxpass") for c in verb.children)


def participle_object(verb: Any) -> Any:
    """The object of ``verb``'s head a participle after a comma is on ("given the Grey Lark violin, made … by X": the
    violin was made; "The town holds a map fair every spring, started in 1971": the fair was started, an audit's KG read
    "Grisholt · started in · 1971"): a conjunct with an agent or a verb of making (:data:`_MADE`), only a time phrase
    ("every spring") between the object and the comma. None else."""
    if verb.dep_ != "conj" or verb.i == 0 or verb.doc[verb.i - 1].text != "," or not (
            any(c.dep_ == "agent" for c in verb.children) or verb.lower_ in _MADE):
        return None
    times = {t.i for c in verb.head.children if c.dep_ == "npadvmod" or (c.dep_ == "dobj" and timed(c)) for t in c.subtree}
    return next((d for d in verb.head.children if d.dep_ == "dobj" and d.i < verb.i and all(
        i in times for i in range(d.right_edge.i + 1, verb.i - 1))), None)
