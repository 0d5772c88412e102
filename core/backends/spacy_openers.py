"""A "he"/"she" opening a passage: the person title the passage before called so (the ``spacy`` extractor; audit 57).

BubbleRAG §3.1 step 2 reads each passage of a document with the end of the passage before it
(:func:`core.backends.base.with_previous`), so that "Its first director was the historian Owen Pike." / "*He* bought
the Larkmere Chalice" reads Owen Pike. In a person's document the passage before may end on someone else while
speaking of the title: "Wrenfield never married. *His* most famous pupil was Mirela Palemont, … and *his* second pupil
was the carver Nils Ottery …" / "*He* died at Kestrow in 1917" read audit 57's "Mirela Palemont · died at · Kestrow"
(the class "a pronoun opening a passage is the passage's own subject where the text gave the title its gender").
"""

from __future__ import annotations

from typing import Any

#: the pronoun a person's "his"/"him"/"her" stands in for
_WORD = {"his": "he", "him": "he", "himself": "he", "her": "she", "herself": "she"}
#: the key of :data:`core.backends.spacy_anaphora.Others` (a carry's last part) that holds the title's pronoun
TITLE_SAID = "title said"
#: the key of the carry's last part that says the passage ended on a clause whose subject is the person title
TITLE_LAST = "title last"


def title_said(m: Any) -> str | None:
    """The pronoun a passage gave its person title: its own "he"/"she" (the genders the text gave), else the one
    every "his"/"him"/"her" that stands for the title agrees on ("*His* most famous pupil was …"), whether or not its
    first word is a listed given name ("Ismene Vartan"); None where the title is a thing the text called "its"/"the
    firm", or the text gave it neither pronoun or both."""
    title = m.title or ""
    if not title or m._title_thing:  # not only a given name's: "Ismene Vartan" whose "her"s are hers (audit 56)
        return None
    if title in m._gender:
        return str(m._gender[title])
    said = {_WORD[t.lower_] for t in m.doc if t.pos_ == "PRON" and t.lower_ in _WORD and m.mention(t) == (title, "TITLE")}
    return said.pop() if len(said) == 1 else None


def opening_title(m: Any, word: str, tok: Any) -> tuple[str, str] | None:
    """The title, for a "he"/"she" subject ``tok`` in a passage's first sentence where the passage before gave the
    person title that pronoun (:func:`title_said`, carried in ``m.before``), or ended on a clause of the title's own
    that no person given this pronoun shares (:func:`title_last`), and this passage never the other one;
    None otherwise (a thing's passage: "Its first director was Owen Pike." / "He bought …" stays Owen Pike)."""
    if tok is None or m.before is None or tok.sent.start != 0:
        return None
    if m.before[3].get(TITLE_SAID) != word and not m.before[3].get(TITLE_LAST):
        return None
    if m._gender.get(m.title or "", word) != word or m._title_thing:
        return None
    return m.title or "", "TITLE"


def title_last(m: Any) -> bool:
    """Whether the piece's last sentence ends on a clause whose subject is the person title, and names no one the text
    gave a gender ("Oskar died in 1899, and *Ruth* never remarried." in "Ruth Ambrel"): a "she"/"he" opening the next
    passage is then the title, not the first clause's subject (audit 58, class C: "She died in Selworth in 1920" read
    ``Oskar · died in · Selworth``). Read with :func:`opening_title`, which takes it only for a pronoun no person of the
    passage before was given."""
    if not m.title or m._title_thing or not len(m.doc):
        return False
    last = list(m.doc.sents)[-1]
    subjects = [t for t in last if t.dep_ in ("nsubj", "nsubjpass")]
    got = m.mention(subjects[-1], as_subject=True) if subjects and subjects[-1].pos_ == "PROPN" else None
    if got is None or not (got == (m.title, "TITLE") or m._names_title(got[0], got[1])):
        return False
    others = {n for n, _ in m._named_people(last)} - {got[0], m.title}
    return not any(n in m._gender for n in others) and not any((m.mention(t) or ("", ""))[0] in m._gender for t in subjects[:-1])
