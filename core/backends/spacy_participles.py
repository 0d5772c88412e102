"""A verb the tagger read as a noun, made the verb again: "a spare lens *ground* by X", "… of the dome *hang* in …".

BubbleRAG §3.1 step 2 reads the triples of a passage. In "the drawings of the Dorran workshop, a spare lens ground by
Hester Quill, and …" the small model tags "ground" a noun, the head of "spare lens ground", and hangs the agent "by
Hester Quill" on it: audit 56 read "Calmouth Museum of Science · holds drawings of · spare lens ground" (item 10; the
class "a participle read as a noun in a list", left by rounds 60 and 61, round 62). Only a passive verb has an agent
(spaCy's ``agent`` label): a noun with one, after the noun it compounds, is a past participle on that noun
(:func:`mend_agent_noun`), so the phrase is "spare lens" and its edge "spare lens · ground by · Hester Quill".

The same family the other way round: "Her paintings of the dome hang in the town hall." has no verb at all, "hang"
tagged a noun (round 60 left "hang"; audit 56's sentence gave no edge). A sentence with no verb takes the singular noun
after its compound, before a preposition, for its verb (:func:`mend_verbless`).
"""

from __future__ import annotations

from typing import Any


def mend_agent_noun(tok: Any) -> None:
    """Where the noun ``tok`` has an ``agent`` child ("by Hester Quill") and the noun right before it is its compound
    ("lens ground"), make ``tok`` a participle (VBN, ``acl``) on that noun, which takes ``tok``'s place and its words
    before it (round 62, audit 56 item 10). Heads change in place, inside the phrase the parser gave, so the parse
    stays projective and the noun chunks follow."""
    doc, i = tok.doc, tok.i
    # a noun with an agent, or a verb with a compound ("a spare wheel cast by X": no verb has a compound of its own)
    if tok.pos_ not in ("NOUN", "VERB") or tok.dep_ in ("ROOT", "acl") or i == 0 or not any(
            c.dep_ == "agent" for c in tok.children):
        return
    noun = doc[i - 1]
    if noun.dep_ != "compound" or noun.head.i != i or noun.pos_ != "NOUN" or not tok.is_alpha or not tok.is_lower:
        return  # "the Légion d'honneur by president X": a name's word, no participle (MuSiQue)
    listed = [c for c in tok.children if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN")]  # "…, and the books"
    moved = [c for c in tok.children if c.i < noun.i or (listed and c.dep_ == "cc")] + listed  # are the noun's
    head, dep = tok.head, tok.dep_
    # a clause the verb headed is a noun's place now: the verb's object ("holds …, a spare wheel cast by X")
    noun.head, noun.dep_ = head, "dobj" if dep in ("ccomp", "xcomp") and head.pos_ in ("VERB", "AUX") else dep
    for c in moved:
        c.head = noun
    tok.head, tok.dep_ = noun, "acl"
    tok.tag_, tok.pos_ = "VBN", "VERB"


def mend_verbless(sent: Any) -> None:
    """Where the sentence ``sent`` has no verb at all and ends in a full stop, the singular noun after the noun it
    compounds, right before a preposition, is its verb (round 62; round 60's "hang" of the same family as class 3, a
    verb read as a noun): "Her paintings of the dome hang in the town hall." tagged "hang" a noun, the sentence a noun
    phrase, and gave no edge. The noun before it ends the subject's phrase; the phrase's head is the verb's subject.
    Not where the phrase's head follows a noun it compounds ("The river springs in a forest area": that may be the
    verb)."""
    if any(t.pos_ in ("VERB", "AUX") for t in sent) or sent.root.pos_ != "NOUN" or sent[-1].text != "." or len(sent) < 6:
        return
    root = sent.root
    if root.i > 0 and root.doc[root.i - 1].dep_ == "compound" and root.doc[root.i - 1].head.i == root.i:
        return  # "The river springs in a forest area near X": the root may be the verb itself (MuSiQue)
    for t in sent:
        if t.tag_ != "NN" or t.i < root.i + 3 or t.i + 1 >= sent.end - 1 or t.doc[t.i + 1].pos_ != "ADP":
            continue
        noun = t.doc[t.i - 1]
        if noun.dep_ != "compound" or noun.head.i != t.i or noun.pos_ != "NOUN" or t.head.pos_ != "ADP":
            return
        before = [c for c in t.children if c.i < noun.i]
        noun.head, noun.dep_ = t.head, "pobj"
        for c in before:
            c.head = noun
        t.head, t.dep_, t.tag_, t.pos_ = t, "ROOT", "VBP", "VERB"
        for c in [c for c in root.children if c.dep_ == "punct" and c.i > t.i]:  # the full stop is the verb's
            c.head = t
        root.head, root.dep_ = t, "nsubj"
        return
