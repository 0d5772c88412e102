"""A participle the tagger read as a noun, made the participle again: "a spare lens *ground* by Hester Quill".

BubbleRAG §3.1 step 2 reads the triples of a passage. In "the drawings of the Dorran workshop, a spare lens ground by
Hester Quill, and …" the small model tags "ground" a noun, the head of "spare lens ground", and hangs the agent "by
Hester Quill" on it: audit 56 read "Calmouth Museum of Science · holds drawings of · spare lens ground" (item 10; the
class "a participle read as a noun in a list", left by rounds 60 and 61, round 62). Only a passive verb has an agent
(spaCy's ``agent`` label): a noun with one, after the noun it compounds, is a past participle on that noun
(:func:`mend_agent_noun`), so the phrase is "spare lens" and its edge "spare lens · ground by · Hester Quill".
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


def mend_conj_participle(tok: Any) -> None:
    """Where the past participle ``tok`` is the parser's ``conj`` verb with no subject nor auxiliary of its own, right
    after the indefinite noun that a preposition of ``tok``'s own or of its conjunct head opens ("Dunmere is the home of the X company, … and
    of *a puppet school opened* in 1921"), make ``tok`` a participle (``acl``) on that noun, and the preposition its
    conjunct head's. Audit 57 read "Dunmere · opened in · 1921": the conjunct verb took the sentence's subject (the
    class "an unnamed 'a <noun>' that a participle describes is no title"); now "puppet school · opened in · 1921"."""
    if tok.dep_ == "acl":
        _mend_far_acl(tok)
        return
    if tok.tag_ != "VBN" or tok.dep_ != "conj" or tok.i == 0 or any(
            c.dep_ in ("nsubj", "nsubjpass", "aux", "auxpass", "dobj") for c in tok.children):
        return
    noun = tok.doc[tok.i - 1]
    prep = noun.head
    if noun.pos_ != "NOUN" or noun.dep_ != "pobj" or prep.head.i not in (tok.i, tok.head.i) or prep.dep_ != "prep" or prep.i > noun.i or not any(
            c.dep_ == "det" and c.lower_ in ("a", "an") for c in noun.children):
        return
    prep.head = tok.head
    tok.head, tok.dep_ = noun, "acl"


def _mend_far_acl(tok: Any) -> None:
    """Where the past participle ``tok`` is an ``acl`` the parser hung on a noun before the indefinite noun right before
    it, which a preposition opens after "and" ("Ostby is the home of the Ostby Choir, which moved here from Wick, and of
    *a small museum opened* in 1932"), make ``tok`` that noun's participle. Round 64 read "Ostby Choir · opened in · 1932"
    (the class "a subject that is not the title"); now "small museum · opened in · 1932"."""
    doc = tok.doc
    if tok.tag_ != "VBN" or tok.i < 3 or any(c.dep_ in ("nsubj", "nsubjpass", "aux", "auxpass", "dobj") for c in tok.children):
        return
    noun = doc[tok.i - 1]
    prep = noun.head
    if noun.pos_ != "NOUN" or noun.dep_ != "pobj" or tok.head.i >= noun.i or prep.i > noun.i or prep.dep_ != "prep" or (
            doc[prep.i - 1].lower_ != "and") or not any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in noun.children):
        return
    tok.head = noun


def mend_listed_of(tok: Any) -> None:
    """Where "and of" ``tok`` hangs inside the relative clause of the first "of"-object ("Ostby is the home of the Ostby
    Choir, which moved here from Wick, and *of* a small museum"), make it the first "of"'s sibling: round 64 read "Ostby
    Choir · moved of · small museum", now "Ostby · home of · small museum" (the class "a subject that is not the
    title": the choir is no subject of the museum)."""
    if tok.lower_ != "of" or tok.dep_ not in ("prep", "conj") or tok.i == 0 or tok.doc[tok.i - 1].lower_ != "and":
        return
    clause = next((a for a in tok.ancestors if a.dep_ == "relcl"), None)
    first = clause.head if clause is not None else None
    if first is not None and first.dep_ == "pobj" and first.head.lower_ == "of" and first.head.i < first.i < tok.i:
        tok.head, tok.dep_ = first.head.head, "prep"  # "home of X, which …, and of Y": the home's second "of"
