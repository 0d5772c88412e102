"""A role noun with a person's name set off by commas as a subject: the role's edge (the ``spacy`` extractor; round 64).

BubbleRAG §3.1 step 2 reads the triples of a passage. Audit 57's "The foreman of the works, Silas Brand, taught him"
reads Silas Brand as the subject (:func:`core.backends.spacy_appositions.subject_name`) but made no edge of the role;
"Marren's assistant, Piet Olley, catalogued them" none either, and "Her son, Paul Marr, became a baker" none (a kin
noun's pronoun owner before a comma is refused, for "his sister, the formidable Aunt Alexandra"). The class: a
subject role noun (``nsubj``/``nsubjpass``; a person noun by its ending, a kin noun) whose ``appos`` is a PERSON name
right after a comma and right before the verb gives (NAME, "<role> of", owner): its possessor, or its "of"-object where
that is a name, the title, or a noun the passage named ("the works" after "the Hallam Toy Works"); else no edge.
"""

from __future__ import annotations

from typing import Any

from core.backends.spacy_anaphora import FAMILY
from core.backends.spacy_kinds import _PERSON_NOUN, AGENT, kin_word
from core.backends.spacy_spans import VALUE_LABELS

_SUBJECTS = ("nsubj", "nsubjpass")


def set_off_name(noun: Any) -> Any:
    """The PERSON name in apposition to the subject ``noun``, set off by commas and right before its verb ("Her son,
    Paul Marr, became …"), that begins with a proper noun (not "the Duchess of Teck"); else None."""
    if noun.pos_ != "NOUN" or noun.tag_ != "NN" or noun.dep_ not in _SUBJECTS:
        return None
    doc = noun.doc
    for name in noun.children:
        if name.dep_ != "appos" or name.pos_ != "PROPN" or name.ent_type_ != "PERSON":
            continue
        start, after = name.left_edge.i, name.right_edge.i + 1
        if not (doc[start].pos_ == "PROPN" and doc[start - 1].text == "," and after + 1 < len(doc)):
            continue
        if doc[after].text == "," and noun.head.i in (after + 1, doc[after + 1].head.i) and after >= noun.right_edge.i:
            return name
    return None


def role_edge(m: Any, noun: Any) -> None:
    """(NAME, "<role> of", owner) for a subject role noun ``noun`` with a :func:`set_off_name` (round 64, the class
    "a role noun with its name is an edge"): the owner is ``noun``'s possessor ("Marren's assistant, Piet Olley," →
    assistant of Ysolde Marren; "Her son, Paul Marr," → son of the woman the "her" stands for), else its "of"-object
    where that is a name or the title ("The foreman of the works, Silas Brand," in a passage that named the Hallam Toy
    Works → foreman of Hallam Toy Works); a bare common noun ("of the works" with no works named) gives no edge."""
    word = noun.lower_
    if not (word in FAMILY or AGENT.fullmatch(word) or _PERSON_NOUN.search(word)) or word in ("founder", "co-founder", "cofounder"):
        return
    name = set_off_name(noun)
    person = m.mention(name) if name is not None else None
    if person is None or (person[1] != "PERSON" and person[0] not in m._people):
        return
    poss = next((c for c in noun.children if c.dep_ == "poss" and c.lower_ not in ("its", "their")), None)
    if poss is not None:
        owner = m._possessor(poss)
    else:
        of = next((c for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        obj = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        owner = m.mention(obj) if obj is not None else None
        if owner is not None and not owner[1]:
            return  # "the works" of no named works: no edge, never a wrong one
    if owner is not None and owner[0] and owner[1] not in VALUE_LABELS and owner != person:
        m.add(person, f"{kin_word(noun)} of", owner)


def indirect_pronoun(tok: Any) -> bool:
    """A pronoun the parser made a verb's ``dative`` beside the verb's own indefinite ``dobj`` ("a <noun>"): the one a
    new thing is made for, never what the verb acts on ("Piet built *her* a loom" is no "Piet · built · <her>", audit
    58's class A: in Ilse Brenner's passage it read ``Piet Varro · built · Ilse Brenner``). A definite or owned object
    keeps the recipient: "Silas Lorimer, who lent *him* the money", "Kessel gave *him* her house" (audits 55 and 58)."""
    return tok.dep_ == "dative" and tok.tag_ == "PRP" and any(c.dep_ == "dobj" and any(
        d.dep_ == "det" and d.lower_ in ("a", "an") for d in c.children) for c in tok.head.children)
