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
    person title that pronoun (:func:`title_said`, carried in ``m.before``) and this passage never the other one;
    None otherwise (a thing's passage: "Its first director was Owen Pike." / "He bought …" stays Owen Pike)."""
    if tok is None or m.before is None or tok.sent.start != 0 or m.before[3].get(TITLE_SAID) != word:
        return None
    if m._gender.get(m.title or "", word) != word or m._title_thing:
        return None
    return m.title or "", "TITLE"
