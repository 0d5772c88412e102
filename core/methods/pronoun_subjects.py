"""Whom a passage's leading "He"/"She" continues, for the extractive answer (:mod:`core.methods.extractive`, rule 5).

None of the papers defines the extractive answer (each assumes an LLM), so these rules are ours. A subject pronoun
continues the subject of the sentence before it, never that sentence's object: in "Lucan Marvetti was a tightrope
walker born in Cazzora in 1841. He married Odile Fenwright in 1869. He died in Orlesby in 1910." the second "He" is
Lucan, not Odile, the person named last (an audit read "He [Odile Fenwright] died in Orlesby in 1910." as where the
founder's wife was from). :class:`Referents` reads each "He"/"She"/"His"/"Her" as, in this order,

1. what the sentence before's own leading "He"/"She" was read as, when it is the same pronoun ("He … He …");
2. the person the sentence before opens with (in the active voice: "The lightship was commanded by Captain Elias
   Penhallow. He had trained …" keeps the captain), when an earlier pronoun showed that person's gender is this one's;
3. the person named last whose gender no pronoun read so far contradicts (the earlier rule, which already handles
   "The lightship was commanded by Captain Elias Penhallow. He …").

"" is the passage's title (the reading every sentence has already). :func:`said_born` also makes a title a person
that its passage says was born somewhere ("Amias Frost was born in Varley in 1875. He sold the Gilded Menagerie …":
the small model tags no PERSON there, and the "He" stayed unbracketed), and :func:`he_after_title` one whose passage
opens with it and goes on with "He"/"She".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.text import normalize_name

#: The gender a personal pronoun shows.
GENDER = {"he": "m", "his": "m", "she": "f", "her": "f"}
#: An opening phrase before a sentence's subject that names no one: "In 1899, ", "After the war ".
_OPENING = re.compile(r"^(?:(?:In|On|By|After|Before|During|From|Until|At|Later|Then|Soon|Eventually)\b[^,.;A-Z]{0,30}?,?\s+)?")
#: A passive verb with its agent: "was commanded by", "were founded in 1872 by" (the subject is no agent).
_PASSIVE = re.compile(r"\b(?:was|were|is|are|had\s+been|has\s+been)\s+(?:\w+ly\s+)?\w+(?:ed|en|t)\b[^.;]*?\bby\b")


def said_born(sentences: Sequence[str], title: str) -> bool:
    """Whether a sentence of the passage opens with ``title`` and says it was born somewhere: a person.

    >>> said_born(["Amias Frost was born in Varley in 1875."], "Amias Frost")
    True
    >>> said_born(["Lucan Marvetti was a tightrope walker born in Cazzora in 1841."], "Lucan Marvetti")
    True
    >>> said_born(["The Gilded Menagerie was opened in 1908 by Amias Frost, born in Varley."], "Gilded Menagerie")
    False
    """
    if not title.strip():
        return False
    born = re.compile(rf"^(?:The\s+)?{re.escape(title.strip())}\s*,?\s+(?:was|is)\s+(?:(?:an?|the)\s+(?:[\w\-]+\s+){{1,4}}?)?"
                      r"born\s+(?:in|on|at|near)\b", re.I)
    return any(born.match(s.strip()) for s in sentences)


def he_after_title(sentences: Sequence[str], title: str, first_persons: Sequence[str]) -> bool:
    """Whether the passage's first sentence opens with ``title`` as its subject and names no other person
    (``first_persons``: its PERSON mentions), and the next one opens with "He"/"She": the title is the person the
    "He" continues (the subject before it), whatever the small model tagged it ("Aksel Dahl inherited the Dahl Foundry
    from his father. He married Greta Brask …").

    >>> he_after_title(["Aksel Dahl inherited the Dahl Foundry.", "He married Greta Brask."], "Aksel Dahl", [])
    True
    >>> he_after_title(["Dahl Foundry was sold to Aksel Dahl.", "He married Greta Brask."], "Dahl Foundry",
    ...                ["Aksel Dahl"])
    False
    """
    t = normalize_name(title)
    return (len(sentences) > 1 and bool(t) and re.match(rf"{re.escape(title.strip())}\b(?!['’])", sentences[0].strip()) is not None
            and re.match(r"(?:He|She)\b", sentences[1].strip()) is not None
            and all(normalize_name(p) == t for p in first_persons))


def opening_person(sentence: str, persons: Sequence[str]) -> str:
    """The person of ``persons`` that ``sentence`` opens with as the agent (after an opening phrase), else ""."""
    opening = _OPENING.match(sentence)
    rest = sentence[opening.end():] if opening else sentence
    for p in persons:
        if p and rest.startswith(p) and not _PASSIVE.search(rest[len(p):]):
            return p
    return ""


class Referents:
    """What each leading "He"/"She"/"His"/"Her" of a passage stands for (the module docstring's rules), fed one
    sentence at a time: :meth:`referent` for a sentence's pronoun, then :meth:`see` with the sentence."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.prev_word = ""  # the sentence before's leading pronoun, lower case ("" where none)
        self.prev_ref = ""  # what it was read as (the title where nothing else)
        self.subject = ""  # the person the sentence before opens with
        self.named: list[str] = []  # persons named so far, the last named last
        self.gender: dict[str, str] = {}  # normalised name -> the gender a pronoun read as it showed

    def _fits(self, name: str, g: str) -> bool:
        return self.gender.get(normalize_name(name), g) == g

    def referent(self, word: str) -> str:
        """The person the leading ``word`` ("he", "she", "his", "her") stands for; "" for the title."""
        g = GENDER[word]
        if self.prev_word in ("he", "she") and GENDER[self.prev_word] == g:
            return self.prev_ref  # "He married Odile Fenwright in 1869. He died …": the same man
        if self.subject and self.gender.get(normalize_name(self.subject)) == g:
            return self.subject
        return next((n for n in reversed(self.named) if self._fits(n, g)), "")

    def see(self, sentence: str, word: str, ref: str, persons: Sequence[str]) -> None:
        """Take in ``sentence``, whose leading pronoun ``word`` ("" where none) was read as ``ref`` ("" the title),
        and the ``persons`` it names."""
        read = ref or self.title
        if word in GENDER and read:
            self.gender.setdefault(normalize_name(read), GENDER[word])
        self.prev_word, self.prev_ref = word, (ref if word in GENDER else "")
        self.subject = "" if word else opening_person(sentence, persons)
        for p in persons:
            if p in self.named:
                self.named.remove(p)
            self.named.append(p)


def surname_reading(sentence: str, title: str) -> str:
    """``sentence`` with a leading last word of its passage's ``title`` read as the whole title ("Morrow died in
    Hallstead in 1971." in the passage "Edda Morrow": "Edda Morrow died …"), the reader's coreference as for "She";
    "" where the sentence does not open so. An audit's "In what year did the founder of Corvane Cycles die?" never
    read that sentence: the founder found, a later passage's sentences are taken where they name her in full
    (:func:`core.methods.bridge_hops.hop_on`).

    >>> surname_reading("Morrow died in Hallstead in 1971.", "Edda Morrow")
    'Edda Morrow died in Hallstead in 1971.'
    >>> surname_reading("In 1971 Morrow died in Hallstead.", "Edda Morrow")
    'In 1971 Edda Morrow died in Hallstead.'
    >>> surname_reading("Edda Morrow was born in 1894.", "Edda Morrow") or surname_reading("Morrow Bay is …", "Edda Morrow")
    ''
    """
    words = title.split()
    if len(words) < 2 or not all(w[:1].isupper() for w in words):
        return ""
    # after a short opening phrase too, as a pronoun: "In 1971 Morrow died …"
    m = re.match(rf"{_OPENING.pattern}(?P<n>{re.escape(words[-1])})(?=\s+[a-z])", sentence.strip())
    return sentence.strip()[:m.start("n")] + title + sentence.strip()[m.end("n"):] if m else ""


#: Offices of a body: "the founder of Orvenna Rovers" names a club, which a "He"/"His" never stands for (the small model
#: tags "Orvenna Rovers" PERSON, and an audit read "He [Orvenna Rovers] was born in the village of Pellisca"); the
#: spaCy KG's rule is :func:`core.backends.spacy_pronouns.office_of`.
_OFFICES = ("founder", "co-founder", "cofounder", "chairman", "chairwoman", "chairperson", "president", "owner",
            "member", "player", "captain", "manager", "director", "shareholder", "sponsor", "employee", "coach",
            "treasurer", "executive", "supporter")


def people_only(sentence: str, persons: Sequence[str]) -> list[str]:
    """``persons`` (``sentence``'s PERSON mentions) without those it names as the body of an office ("the founder of
    X", "a player of the X"): a club or firm the small model tagged PERSON.

    >>> people_only("Taddeo Brunmark was the founder of Orvenna Rovers.", ["Taddeo Brunmark", "Orvenna Rovers"])
    ['Taddeo Brunmark']
    """
    offices = "|".join(re.escape(o) for o in _OFFICES)
    return [p for p in persons if not re.search(rf"\b(?:{offices})s?\s+of\s+(?:the\s+)?{re.escape(p)}\b", sentence,
                                                re.I)]


def lived(sentences: Sequence[str], title: str) -> bool:
    """Whether the passage opens with ``title`` and a lifetime after it: a person's passage.

    >>> lived(["Taddeo Brunmark (1884–1949) was a railway clerk."], "Taddeo Brunmark")
    True
    >>> lived(["Orvenna Rovers (1911–1999) was a football club."], "Taddeo Brunmark")
    False
    """
    got = re.match(rf"{re.escape(title.strip())}\s*\((?:c\.\s*)?(\d{{3,4}})\s*[–-]\s*(?:c\.\s*)?(\d{{3,4}})\)",
                   sentences[0].strip()) if sentences and title.strip() else None
    return got is not None and 0 < int(got[2]) - int(got[1]) <= 120
