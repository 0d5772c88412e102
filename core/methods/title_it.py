"""Which "It" of a passage is its title, for the extractive answer (:mod:`core.methods.extractive`, rule 5).

None of the papers defines the extractive answer (each assumes an LLM), so this rule is ours. The answer shows a
sentence's leading "He"/"She" with the person it stands for ("He [Oriel Vantreck] …", :func:`extractive.bracketed`);
"It was founded in 1921 by Mirabel Oskin." in the passage "Ambercroft Foods" stayed bare (an audit). Here, a
sentence-initial "It" reads as the passage's title when

1. the title is not a person (a person's passage reads "He"/"She" as the title already). The small model's PERSON tag
   on the title alone does not make it one where the passage refers to no one by "He"/"She"/"His"/"Her" and neither
   a given name nor "born in" says so ("Calder Bay Airfield opened in 1936 …", "Vasquera is a river city …" are
   tagged PERSON; their "It"/"Its" stayed bare: :func:`a_person`). A given name opening a title the passage writes
   after "the" says no such thing ("The Golden String is a prize …"),
2. the sentence is no expletive: "It is said that …", "It was in 1921 that …", "It was not until 1950 that …",
   "It is difficult to …", "It seems that …" (:func:`expletive`), and
3. the sentence is about the title's entity: every sentence before it in the passage is about the title too — a
   definition of it ("Ambercroft Foods is a food conglomerate headquartered in Lystergate.": what the definition
   names describes the title), or a sentence whose subject is the title or an "It" read so — and none of them
   brings in another singular thing "It" could stand for ("Ambercroft Foods bought the Lystergate mill in 1930. It
   burned down …": the mill, so no bracket). A named thing the sentence before opens with ("The Brown Ox was a ferry
   …") is :func:`extractive.antecedents`' reading and wins. A place or agent a sentence whose subject is the title names
   only in an adjunct ("The Ormand Air Race was first held in 1927 between Vasquera and Port Selwyn.", "… was opened in
   1948 at Calder Bay Airfield by Skyreach Airways.") brings in no such thing: a following subject "It" continues the
   subject before it, which ranks above an adjunct (the centering ranking subject > object > others, Grosz, Joshi &
   Weinstein 1995; :func:`without_settings`). An object still does ("bought the Lystergate mill"). A sentence opening
   with "The <kind>" of the title ("The company grew …" in "Quarrel Vale Carrying Company", "The firm …" where the first
   sentence defines it as one: :func:`kinds`) is about the title too.
4. "Its" reads the same way ("Its first instructor was …"), and so does a lower-case "it"/"its" after a short opening
   phrase ("In 1975 it was sold to …"), as :func:`extractive.bracketed` shows them (:data:`IT_LEAD`).

The rule errs towards no bracket: a sentence that does not fit it is shown as written, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.methods.answer_types import typed_mentions
from core.methods.pronoun_subjects import said_born
from core.text import body_word, named_person, normalize_name, person_noun

#: Words after "It is"/"It was" (an adverb may come between) that, followed by "that", make the "It" an expletive:
#: "It is said that …", "It was widely believed that …", "It is likely that …".
_THAT_WORDS = ("said|believed|thought|known|reported|claimed|rumou?red|estimated|assumed|alleged|understood|expected|"
               "hoped|feared|agreed|recorded|noted|suggested|argued|held|clear|likely|unlikely|possible|impossible|"
               "probable|certain|true|evident|obvious|apparent|unclear|doubtful|plain")
#: Adjectives that, followed by "to", make the "It" an expletive: "It is difficult to say …".
_TO_WORDS = "difficult|hard|easy|important|necessary|possible|impossible|rare|common|usual|unusual|customary|forbidden"
_BE = r"(?:is|was|has\s+been|had\s+been|would\s+be|will\s+be|may\s+be|might\s+be|remains|remained|became|becomes)"
_EXPLETIVE = re.compile(
    r"^It\s+(?:"
    rf"{_BE}\s+(?:\w+ly\s+)?(?:{_THAT_WORDS})\s+that\b"  # It is said that …
    rf"|{_BE}\s+(?:\w+ly\s+)?(?:{_TO_WORDS})\s+(?:for\s+\S+(?:\s+\S+)?\s+)?to\b"  # It is difficult (for us) to …
    r"|(?:seems|seemed|appears|appeared|happened|happens|follows|followed|turned\s+out)\s+(?:\w+ly\s+)?that\b"
    r"|(?:is|was)\s+not\s+until\b"  # It was not until 1950 that …
    r"|(?:is|was)\s+(?:only\s+|not\s+|also\s+)?(?:in|on|at|during|after|before|because|through|with|from|under|"
    r"thanks\s+to|then|here|there|there\s+that)\b[^.;:]*?\b(?:that|when|who)\b"  # It was in 1921 that …
    r"|(?:is|was)\s+(?:[A-Z][\w'’\-]*\s+)+(?:who|that)\b"  # It was Mirabel Oskin who …
    r"|(?:takes|took|costs|cost)\s"  # It took ten years to …
    r")")
#: A sentence defining its subject: "… is a / an / the / one of …".
_DEFINES = re.compile(r"^(?:is|was|are|were|has\s+been|had\s+been)\s+(?:a|an|the|one)\b", re.I)
#: A singular thing a later "It" could stand for: "a/an/the/this/its/his/her/their" and a word (not a number; "Its
#: first jar was designed by …" may be the "It" after it), or a capitalised name.
_DETERMINED = re.compile(r"\b(?:[Aa]n?|[Tt]he|[Tt]his|[Ii]ts|[Hh]is|[Hh]er|[Tt]heir)\s+(?![0-9])([A-Za-z][\w'\-]*)")
_NAME = re.compile(r"(?<![\w'’])[A-Z][\w'’\-]*(?:\s+(?:(?:of|the|de|von|van)\s+)?[A-Z][\w'’\-]*)*")
_NOT_THINGS = frozenset(("january february march april may june july august september october november december "
                         "monday tuesday wednesday thursday friday saturday sunday i it its he she his her they their "
                         "in on at by after before during from until later then soon eventually the a an this").split())


def expletive(sentence: str) -> bool:
    """Whether ``sentence``'s leading "It" stands for nothing (rule 2 of the module docstring).

    >>> expletive("It is said that the mill burned.") and expletive("It was in 1921 that Mirabel Oskin founded it.")
    True
    >>> expletive("It was founded in 1921 by Mirabel Oskin.") or expletive("It is known for its annual wax fair.")
    False
    """
    return _EXPLETIVE.match(sentence.strip()) is not None


def _opens_with_title(sentence: str, title: str, kinds: Sequence[str] = ()) -> str | None:
    """What follows the title when ``sentence`` opens with it ("The Wren Prize is …" for "Wren Prize", "The Calderport
    Exhibition of 1907 was …" for "Calderport Exhibition"), or with "The <kind>" for one of ``kinds`` (:func:`kinds`:
    "The company grew …" in "Quarrel Vale Carrying Company"), else None."""
    m = re.match(rf"(?:The\s+)?{re.escape(title)}(?:'s|’s)?\b(?:\s+of\s+\d{{3,4}}\b)?\s*", sentence.strip(), re.I)
    if m is None and kinds:
        m = re.match(rf"The\s+(?:{'|'.join(map(re.escape, kinds))})(?:'s|’s)?\s+(?=[a-z])", sentence.strip())
    return None if m is None else sentence.strip()[m.end():]


#: A definition's kind noun: "… was a haulage firm based in …" → "firm" (the noun before a preposition, comma, "that").
_KIND = re.compile(r"^(?:is|was|are|were)\s+(?:a|an|the)\s+(?:[a-z][\w\-]*\s+){0,3}?([a-z][\w\-]*)"
                   r"(?=\s+(?:based|in|of|on|at|from|near|that|which|who|founded|made|built|with|for)\b|\s*[,.;])")


def kinds(sentences: Sequence[str], title: str) -> tuple[str, ...]:
    """The nouns "The <noun>" stands for the passage's ``title`` by: the title's last word where it is a common noun
    written capitalised ("Company" of "Quarrel Vale Carrying Company", "Prize", "Saltworks") and the kind noun of the
    first sentence's definition of it ("… was a haulage firm based in …": "firm"). An audit's "In 1897 it bought
    Brennick Saltworks …" stayed bare after "The company grew steadily …", read as another thing."""
    words = title.split()
    out = [words[-1].lower()] if len(words) > 1 and words[-1].isalpha() and not named_person(title) else []
    rest = _opens_with_title(sentences[0], title) if sentences else None
    m = _KIND.match(rest or "")
    return tuple(dict.fromkeys([*out, *([m.group(1)] if m else [])]))


#: A subject "It"/"Its" of a sentence, leading or lower-case after a short opening phrase that names no one ("In 1975
#: it was sold to …"; the phrase :func:`extractive._pronoun` allows). Group ``p`` is the pronoun.
IT_LEAD = re.compile(r"^(?:(?P<P>It|Its)\b|(?:In|On|By|After|Before|During|From|Until|At|Later|Then|Soon|Eventually)\b"
                     r"[^,.;A-Z]{0,30}?,?\s+(?P<p>it|its)\b)")
#: Prepositions of an adjunct that sets a place or time: what they name is no thing a later subject "It" stands for.
_SETTING = "in|on|at|near|between|along|beside|outside|within|off|across|around"
_WORD = r"(?!(?:of|and|or|by|to|for|with|from|the|a|an|that|which|who)\b)[a-z][\w\-]*"
_NAMED = r"[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)*"
#: a noun phrase there: "the northern shore", "Calder Bay Airfield", "1927" (no bare common noun, which may be a verb)
_NP = rf"(?:(?:the|a|an)\s+(?:{_WORD}\s+){{0,2}}(?:{_NAMED}|{_WORD})|{_NAMED}|\d[\d,]*)"
_ADJUNCT = re.compile(rf"\b(?:{_SETTING})\s+{_NP}(?:\s+(?:of|and)\s+{_NP})*")
#: A passive's agent: "… was opened in 1948 … by Skyreach Airways".
_PASSIVE = re.compile(r"\b(?:is|was|are|were|been|being)\s+(?:\w+ly\s+)?[a-z]+(?:ed|en|wn|ld|lt|ne|ng|ht|de|nt)\b")
_AGENT = re.compile(rf"\bby\s+{_NP}(?:\s+(?:of|and)\s+{_NP})*")


def is_title(name: str, title: str) -> bool:
    """Whether ``name`` (the named thing a sentence opens with, :data:`extractive._THING`: "Matrix" of "The Matrix is a
    1999 … film") is the passage's ``title`` with or without its leading article ("The Matrix"): then its "It" is the
    title's, and shows the title as written. The article alone differing made "It [Matrix] stars Keanu Reeves …" in the
    passage "The Matrix" (an audit).

    >>> is_title("Matrix", "The Matrix") and is_title("Brown Ox", "Brown Ox") and is_title("The Matrix", "Matrix")
    True
    >>> is_title("Brown Ox", "Pellow Ferries") or is_title("", "The Matrix")
    False
    """
    def key(s: str) -> str:
        return re.sub(r"^(?:the|a|an)\s+", "", normalize_name(s))

    return bool(key(name)) and key(name) == key(title)


def _leading_it(sentence: str) -> re.Match[str] | None:
    return IT_LEAD.match(sentence.strip())


def without_settings(text: str) -> str:
    """``text`` (a sentence whose subject is the passage title, after it) without the adjuncts that set a place or time
    and, in a passive, its agent (rule 3 of the module docstring): what they name is no "It" of the next sentence.

    >>> without_settings(" was first held in 1927 between Vasquera and Port Selwyn.")
    ' was first held.'
    >>> without_settings(" opened in 1936 on the northern shore of Calder Bay.")
    ' opened.'
    >>> without_settings(" was opened in 1948 at Calder Bay Airfield by Skyreach Airways.")
    ' was opened.'
    >>> without_settings(" bought the Lystergate mill in 1930.")  # an object stays
    ' bought the Lystergate mill.'
    >>> without_settings(" bought the mill by the river.")  # no passive: its "by" is no agent
    ' bought the mill by the river.'
    """
    out = _ADJUNCT.sub("", text)
    if _PASSIVE.search(out):
        out = _AGENT.sub("", out)
    return re.sub(r"\s+([.,;])", r"\1", re.sub(r"\s{2,}", " ", out))


def brings_a_thing(text: str, title: str) -> bool:
    """Whether ``text`` names a singular thing other than ``title`` that a later "It" could stand for: a phrase
    "a/an/the/this/its …" that does not introduce a person ("the architect Lucan Reyes"), or a capitalised name that is no
    person, date or the title (rule 3 of the module docstring)."""
    persons = [normalize_name(p) for p in typed_mentions(text, "person", names=True)]
    title_n = normalize_name(title)

    def a_person(name: str) -> bool:
        n = normalize_name(name)
        return named_person(name) or any(n and (n in p or p in n) for p in persons)

    for m in _DETERMINED.finditer(text):
        after = text[m.start():]
        head = re.match(r"\S+\s+((?:[a-z][\w'\-]*\s+){0,3})([A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)*)", after)
        if head is not None and a_person(head.group(2)):
            continue  # "the architect Lucan Reyes", "the Vantreck family"'s person
        phrase = normalize_name(text[m.start(1):].split(",")[0])
        if title_n and phrase.startswith(title_n):
            continue
        return True
    for m in _NAME.finditer(text):
        name = m.group(0)
        words = [w for w in name.split() if w.lower() not in _NOT_THINGS]
        if not words or (m.start() == 0 and len(name.split()) == 1):
            continue  # a sentence's capitalised first word
        n = normalize_name(" ".join(words))
        if n == title_n or (title_n and (n in title_n or title_n in n)) or a_person(" ".join(words)):
            continue
        return True
    return False


#: A pronoun only a person is referred to by.
_PERSONAL = re.compile(r"\b(?:[Hh]e|[Ss]he|[Hh]is|[Hh]er|[Hh]im|[Hh]ers|[Hh]imself|[Hh]erself)\b")


def a_person(sentences: Sequence[str], title: str) -> bool:
    """Whether a passage whose title the small model tags PERSON is about a person for rule 1 of the module docstring:
    it refers to someone by "He"/"She"/"His"/"Her", the title opens with a given name and the passage does not write it
    after "the" (a name is not: "The Golden String is a prize …", though "Golden" is in the given-name lists; an
    audit's "Its first winner was …" stayed bare), or the passage says it was born.

    >>> a_person(["Calder Bay Airfield opened in 1936.", "Its main terminal was designed by Jonas Pell."],
    ...          "Calder Bay Airfield")
    False
    >>> a_person(["Oriel Vantreck was a beekeeper.", "He founded Goldmere."], "Oriel Vantreck")
    True
    >>> a_person(["The Golden String is a prize.", "Its first winner was Marta Kessling."], "Golden String")
    False
    """
    the_title = re.compile(rf"\b[Tt]he\s+{re.escape(title.strip())}\b(?!\s+[A-Z])")  # not "the Joan Collins Show"
    return ((named_person(title) and not any(the_title.search(s) for s in sentences)) or said_born(sentences, title)
            or any(_PERSONAL.search(s) is not None for s in sentences))


def title_its(sentences: Sequence[str], title: str, names: Sequence[str], *, title_is_person: bool) -> list[str]:
    """``names`` (the person or thing each sentence's leading pronoun stands for, :func:`extractive.antecedents`) with
    ``title`` filled in for each sentence-initial "It" that reads as the title (the module docstring's rules)."""
    out = list(names)
    if not title or (title_is_person and a_person(sentences, title)):
        return out
    about = True  # every sentence so far is about the title and brought in no other thing
    its_kinds = kinds(sentences, title)
    for i, s in enumerate(sentences):
        it = _leading_it(s)
        if it is not None:
            start = it.start("P") if it.group("P") else it.start("p")
            said = s.strip()[start:]
            if said.lower().startswith("it ") and expletive("It" + said[2:]):
                about = about and not brings_a_thing(s, title)
                continue
            if about and not out[i]:
                out[i] = title
            # "Its first jar …" brings in the jar; "It was founded …" only what follows it
            after = said if said.lower().startswith("its") else without_settings(said[2:])
            about = about and out[i] == title and not brings_a_thing(after, title)
            continue
        rest = _opens_with_title(s, title, its_kinds)
        if rest is None:
            about = about and not brings_a_thing(s, title)
        elif not _DEFINES.match(rest):  # a definition's words describe the title; other words may name a thing
            about = about and not brings_a_thing(without_settings(rest), title)
    return out


def defined_as_thing(sentences: Sequence[str], title: str) -> bool:
    """Whether the passage's first sentence defines ``title`` as a place, a body or a firm: "<title> is/was a … <noun>"
    with a noun of no person (:func:`core.text.person_noun`), the noun or the title's last word a body's
    (:func:`core.text.body_word`). spaCy's small model tags "Corvin Glassworks" PERSON in "Corvin Glassworks was a glass
    factory in Halvard.", and the passage's "It was founded in 1838 by Benedikt Corvin" stayed bare (audit 58).

    >>> defined_as_thing(["Corvin Glassworks was a glass factory in Halvard, on the lower Skelde."], "Corvin Glassworks")
    True
    >>> defined_as_thing(["John Hall was a painter in Wick."], "John Hall")
    False
    """
    m = re.match(rf"\s*(?:The\s+)?{re.escape(title.strip())}\s+(?:is|was)\s+(?:a|an|the)\s+((?:[\w'’\-]+\s+){{0,3}}?"
                 r"[\w'’\-]+?)(?=\s+(?:in|on|at|of|for|from|with|by|that|which|who|founded|based|near|and)\b|\s*[,.;(]|\s*$)",
                 sentences[0] if sentences else "")
    head = m.group(1).split()[-1] if m else ""
    return bool(head) and not person_noun(head) and (body_word(head) or body_word(title.split()[-1]))
