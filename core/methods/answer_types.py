"""What a question asks for and which mentions of a sentence are of that kind: the answer type of the extractive
answer (:mod:`core.methods.extractive`, rule 4) and of BubbleRAG's sufficiency check
(:func:`core.methods.bubblerag.checks.sufficiency_problem`).

"when" asks for a date, "who"/"whom" for a person, "where" or "which/what city, country, …" for a place, "how
many"/"how much"/"what percentage" for a number, "which/what NOUN" of another noun for a thing named after it.
Dates and numbers are found by patterns; persons and places by spaCy's ``en_core_web_sm`` NER (the pinned package of
the ``spacy`` extractor, loaded lazily), else by runs of capitalised words; with ``names``, a plain name whose first
word is a common given name, the agent of a passive verb, and a name a kinship apposition calls one ("Ivo Threlkeld,
the son of …"), count as persons where the small model tags them otherwise, and a name said to be someone's birthplace
or "the (harbour) city of X", "X, a weaving town", "X is a river city" or "born in 1872 in X" as a place; "Which company …?"
also takes a name ending in "Trust", "Works", "Ltd" and the like. "Which city/town/village …?" takes no range of hills,
street, river or estate (:func:`settlement_asked_but_not`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from core.text import named_person, normalize_name

#: What each answer type is called in the trace and on the pages.
ANSWER_TYPES = {"date": "a date", "person": "a person", "place": "a place", "number": "a number"}

_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?(?:,?\s+\d{{1,4}})?"  # 20 March 851
    rf"|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{1,4}})?"  # March 20, 851
    rf"|(?:{_MONTHS})\s+\d{{3,4}}"  # March 851
    r"|(?:c\.\s*|circa\s+)?\d{3,4}(?:\s*(?:AD|BC|BCE|CE)\b)?(?:s\b)?"  # 1999, c. 835, 1990s
    r"|\d{1,4}(?:st|nd|rd|th)\s+century)\b", re.I)
_NUMBER = re.compile(r"\b\d[\d,\.]*\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"twenty|thirty|forty|fifty|hundred|thousand|million|billion)\b", re.I)
_CAPS = re.compile(r"\b[A-Z][\w'\-]*(?:\s+(?:of|the|de|von|van|da|di|[A-Z][\w'\-]*|[IVX]+))*")
#: Nouns that make "which/what NOUN" a question for a place (the kinds of place spaCy tags GPE, LOC or FAC).
PLACE_NOUNS = ("city|cities|town|village|country|countries|nation|state|county|counties|province|region|district|"
                "territory|continent|island|river|lake|sea|ocean|body of water|mountain range|capital|place|"
                "municipality|borough|neighborhood|neighbourhood")
PRONOUN = re.compile(r"^(?:He|She|It|They|His|Her|Its|Their)\b")
OPENERS = {"the", "a", "an", "he", "she", "it", "they", "his", "her", "its", "their", "this", "that", "in", "on",
            "at", "after", "before", "during", "when", "who", "what", "where", "which", "how"}


def expected_answer_type(query: str, *, nouns: bool = False) -> str:
    """The answer type the question asks for: "date", "person", "place", "number" or "" (none).

    ``nouns``: also read the type from the noun after "which"/"what" ("In which city ...": a place; "what
    percentage": a number). The extractive answer reads it; BubbleRAG's sufficiency check
    (:func:`core.methods.bubblerag.checks.sufficiency_problem`) keeps the question words only, since what it
    accepts decides LLM-mode expansions that recorded runs replay.

    >>> expected_answer_type("When did Lothair II's mother die?")
    'date'
    >>> expected_answer_type("Who played the main villain?")
    'person'
    >>> expected_answer_type("In which city was he born?"), expected_answer_type("In which city was he born?", nouns=True)
    ('', 'place')
    >>> expected_answer_type("Where was the engineer who bought the mill born?", nouns=True)
    'place'
    """
    q = " " + " ".join(query.lower().split()) + " "
    if re.search(r"\b(?:when|what year|which year|in what year|what date|which date|what century)\b", q):
        return "date"
    if re.search(r"\bhow (?:many|much|long|old|far|tall|big)\b", q) or (
            nouns and re.search(r"\b(?:what|which) (?:percentage|number|amount)\b", q)):
        return "number"
    # "In which city was he born?" names its type in the noun after "which"/"what": checked before "who",
    # which in "which country was the man who ... born in" only opens a relative clause
    if nouns and re.search(rf"\b(?:which|what) (?:{PLACE_NOUNS})\b", q):
        return "place"
    # "Where was the engineer who bought X born?": the question's own word comes first, "who" opens a relative clause
    # (kept to the extractive reading: BubbleRAG's sufficiency check replays recorded runs with the rule below)
    first = re.search(r"\b(?:who|whom|whose|where)\b", q)
    if nouns and first is not None and first.group(0) == "where":
        return "place"
    if re.search(r"\b(?:who|whom|whose)\b", q):
        return "person"
    if re.search(r"\bwhere\b", q):
        return "place"
    if nouns:
        m = re.search(r"\b(?:which|what) ([a-z]+)\b", q)
        if m and m.group(1) not in _NOT_ASKED and len(m.group(1)) > 2:
            return f"named:{m.group(1)}"
    return ""


#: Words after "which"/"what" that are no kind of thing asked for ("What did …", "what kind of …").
_NOT_ASKED = {"is", "was", "are", "were", "did", "does", "do", "has", "have", "had", "can", "could", "will", "would",
              "should", "may", "might", "the", "kind", "type", "sort", "name", "names", "part", "one", "ones", "other",
              "else", "about", "happened", "happens", "made", "makes", "caused", "causes", "led", "language"}


def answer_type_phrase(atype: str) -> str:
    """What answer type ``atype`` is called in the trace and on the pages ("a person", "a named tug")."""
    if atype.startswith("named:"):
        return f"a named {atype[6:]} (“the {atype[6:]} X”)"
    return ANSWER_TYPES.get(atype, atype)


@lru_cache(maxsize=1)
def _spacy() -> Any:
    """spaCy's small English pipeline from the pinned package (NER only; the same loader and
    ``meta.json`` check as the ``spacy`` extractor), or None when it cannot be loaded."""
    from core.backends.spacy_model import load_pipeline
    from core.errors import BackendError

    try:
        return load_pipeline(("parser", "lemmatizer"))
    except (BackendError, OSError, ValueError):  # not installed or a broken install: the pattern fallback
        return None


def ner_available() -> bool:
    """Whether persons and places are found by spaCy NER (else by capitalised runs)."""
    return _spacy() is not None


SPACY_LABELS = {"person": ("PERSON",), "place": ("GPE", "LOC", "FAC")}


#: A capitalised name after "by" (the agent of a passive verb: "designed by the engineer Tobias Wrenfield").
_AGENT = re.compile(r"\bby\s+(?:the\s+)?(?:[a-z]+\s+){0,2}?([A-Z][\w'\-]*(?:\s+(?:[A-Z][\w'\-]*|of|de|van|von))*)")
#: A capitalised name a verb of handing over gives something to: "In 1899 she sold it to the Corven Instrument Company"
#: answers "To whom did Liesl Tessely sell the workshop?" whatever spaCy tags the buyer (a company is a "whom" too).
_RECIPIENT = re.compile(r"\b(?:sold|gave|given|passed|left|bequeathed|handed|transferred|leased|lent|donated|granted)"
                        r"\s+(?:[\w'\-]+\s+){0,4}?to\s+(?:the\s+)?(?:[a-z]+\s+){0,2}?([A-Z][\w'\-]*(?:\s+(?:[A-Z][\w'\-]*|of))*)")
#: A name a verb of place puts somewhere: "born in Odeby", "moved to the town of Colbridge", "died at Angers".
_PLACED = re.compile(r"\b(?:born|died|lived|raised|settled|moved|located|based|situated|buried)\s+"
                     r"(?:(?:in|on)\s+(?:\d{1,2}\s+[A-Z][a-z]+\s+)?\d{3,4},?\s+)?(?:in|at|to|near)\s+"  # "born in 1872 in Verrano"
                     r"(?:the\s+(?:town|city|village|county|port|harbour\s+town)\s+of\s+)?"
                     r"([A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)*)")
#: A name said to be the place of a person's birth or burial: "Dunmere is known as the birthplace of Osric Vallance",
#: which the small model tags no place (an audit's "In which town was the teacher of … born?" got no typed sentence).
_PLACE_OF = re.compile(r"\b([A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)*)\s+(?:is|was)\s+(?:also\s+)?(?:(?:known|remembered)\s+as\s+)?"
                       r"the\s+(?:birthplace|hometown|home\s+town|burial\s+place|place\s+of\s+(?:birth|death))\s+of\b")
#: A name a description calls a kind of place: "an equestrian performer from the harbour city of Brastow", "in the river
#: town of Orlesby", which the small model tags no place (an audit's "Which city was the wife of … from?" typed no
#: sentence of hers, and the husband's birth town won).
_KIND_OF = re.compile(r"\bthe\s+(?:[a-z\-]+\s+){0,2}?(?:city|town|village|port|county|province|parish|borough|hamlet|"
                      r"island|region|district)\s+of\s+([A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)*)")
#: A name a description says is a settlement: "Lynmere, a weaving town on …", "Dunmarrow is a river city known for …"
#: (the small model tagged both ORG, so "Which city …?" found no place in them).
_CALLED_TOWN = re.compile(r"\b([A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)*)(?:,|\s+(?:is|was))\s+an?\s+(?:[a-z\-]+\s+){0,2}?"
                          r"(?:city|town|village|port|hamlet|capital|municipality)\b")
#: A name whose own words say it is a feature of land or water: "the River Auberle", "Lake Orm", "the Yelm River",
#: which the small model tags no place (an invented corpus's "Which river does the town … lie on?" typed no sentence,
#: so "It [Kelsing] lies on the River Auberle" won only by its score, with a note that no sentence names a place).
_FEATURE = re.compile(r"\b((?:River|Lake|Loch|Mount|Cape|Isle)\s+[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)?"
                      r"|[A-Z][\w'\-]*\s+(?:River|Lake|Mountains|Hills|Island|Bay|Sea|Estuary|Forest))\b(?!\s+[A-Z])")  # not "the Brisk River Company"
#: A name a kinship apposition calls a person: "Ivo Threlkeld, the son of Amos Threlkeld, …" (the small model tagged
#: only the father, so the next sentence's "He" read as him).
_KIN = re.compile(r"\b([A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)+),\s+(?:the|a)\s+(?:[a-z]+\s+)?(?:son|daughter|wife|husband|widow|"
                  r"widower|brother|sister|father|mother|nephew|niece|grandson|granddaughter|cousin)\s+of\b")
#: Words that end the name of a thing of the asked kind besides the kind itself: "the Corran Alpine Trust" answers
#: "Which company …?" as "the Harrow Ferry Company" does.
_NAME_FORMS: dict[str, tuple[str, ...]] = {"company": ("Corporation", "Incorporated", "Inc", "Ltd", "Limited", "Trust",
                                                       "Works", "Group", "Holdings", "Brothers", "Sons")}
#: spaCy labels of names that :func:`named_person` may read as a person's.
_NAME_LABELS = ("ORG", "PRODUCT", "LOC", "GPE", "FAC", "WORK_OF_ART", "NORP", "EVENT")


def _features(sentence: str) -> list[str]:
    """The :data:`_FEATURE` names of ``sentence`` that are a whole name, not inside a longer one ("the Brisk River
    Company" names no river)."""
    out = []
    for m in _FEATURE.finditer(sentence):
        before = re.search(r"([A-Z][\w'\-]*)\s+$", sentence[:m.start()])
        if before is None or before.group(1).lower() in OPENERS:
            out.append(m.group(1))
    return out


def typed_mentions(sentence: str, kind: str, *, names: bool = False, recipients: bool = False) -> list[str]:
    """The mentions of answer type ``kind`` in ``sentence`` (see the module docstring, rule 4). ``names``: a name
    spaCy tagged otherwise counts as a person where :func:`named_person` says so (the extractive answer; BubbleRAG's
    sufficiency check keeps spaCy's tags alone, since what it accepts decides LLM-mode expansions that recorded runs
    replay). ``recipients``: also a name a verb of handing over gives something to ("sold it to the Corven Instrument
    Company"), which answers "whom" but is no person a later "he"/"she" may stand for."""
    return list(_typed_mentions(sentence, kind, names, recipients))


@lru_cache(maxsize=8192)
def _typed_mentions(sentence: str, kind: str, names: bool = False, recipients: bool = False) -> tuple[str, ...]:
    """:func:`typed_mentions`, kept per sentence: a GRanker slider step re-answers from mostly the same
    top passages, and spaCy takes ~6 ms a sentence."""
    return tuple(_find_mentions(sentence, kind, names, recipients))


def _opened(names: list[str]) -> list[str]:
    """``names`` without an opening word ("It is known as …", "The Dunmere …"); those left with none dropped."""
    out = []
    for n in names:
        words = n.split()
        while words and words[0].lower() in OPENERS:
            words = words[1:]
        if words:
            out.append(" ".join(words))
    return out


def _find_mentions(sentence: str, kind: str, names: bool = False, recipients: bool = False) -> list[str]:
    if kind == "date":
        return [m.group(0) for m in _DATE.finditer(sentence)]
    if kind == "number":
        return [m.group(0) for m in _NUMBER.finditer(sentence)]
    if kind.startswith("named:"):  # "the tug Merryweather" or "the Harrow Ferry Company" for "Which tug/company …?"
        noun = re.escape(kind[6:])
        after = [m.group(1) for m in re.finditer(rf"\b(?i:{noun})s?,?\s+([A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)*)", sentence)
                 if m.group(1).split()[0].lower() not in OPENERS]
        name = re.escape(kind[6:7].upper()) + re.escape(kind[7:])  # the noun as the last word of a proper name
        name = "|".join((name, *_NAME_FORMS.get(kind[6:], ())))  # or a word that names that kind ("… Alpine Trust")
        name = f"(?:{name})"
        within = [" ".join(w for w in m.group(1).split() if w.lower() not in OPENERS)
                  for m in re.finditer(rf"((?:[A-Z][\w'\-]*\s+)+{name}s?)\b", sentence)]
        # the noun in lower case after a name and "the": "the Pellow Reach crossing" for "Which crossing …?" (not "an
        # American actor", which names no actor)
        before = [m.group(1).strip() for m in re.finditer(rf"\b(?i:the)\s+((?:[A-Z][\w'\-]*\s+)+){noun}s?\b", sentence)]
        return after + [w for w in within if len(w.split()) > 1] + [w for w in before if w and w not in after]
    if kind in SPACY_LABELS:
        nlp = _spacy()
        if nlp is not None:
            ents = nlp(sentence).ents
            if not names:
                return [e.text for e in ents if e.label_ in SPACY_LABELS[kind]]
            if kind == "person":
                found = [e.text for e in ents if e.label_ == "PERSON" or (e.label_ in _NAME_LABELS and named_person(e.text))]
                # the agent of a passive verb answers "who …?" whatever spaCy tags it: "directed by the Wachowskis"
                # (an audit's "Who directed The Matrix?" got the cast sentence, the Wachowskis being no PERSON)
                found += [a for a in _AGENT.findall(sentence) if not any(a in f or f in a for f in found)]
                # a name a kinship apposition calls a person: "Ivo Threlkeld, the son of Amos Threlkeld, managed …"
                found = [a for a in _opened(_KIN.findall(sentence)) if not any(a in f or f in a for f in found)] + found
                if not recipients:
                    return found
                return found + [a for a in _RECIPIENT.findall(sentence) if not any(a in f or f in a for f in found)]
            found = [e.text for e in ents if e.label_ in SPACY_LABELS[kind] and not named_person(e.text)]
            # where a verb of place puts a name: "He was born in Odeby", which the small model tags no place (an audit's
            # "Where was the founder … born?" got the founding sentence, whose town it did tag)
            found += [p for p in _opened(_PLACE_OF.findall(sentence)) if not any(p in f or f in p for f in found)]
            found += [p for p in _KIND_OF.findall(sentence) if not any(p in f or f in p for f in found)]
            found += [p for p in _opened(_CALLED_TOWN.findall(sentence)) if not any(p in f or f in p for f in found)]
            found += [p for p in _features(sentence) if not any(p in f or f in p for f in found)]
            return found + [p for p in _PLACED.findall(sentence) if not any(p in f or f in p for f in found)]
        out = []
        for m in _CAPS.finditer(sentence):
            words = m.group(0).split()
            if words and words[0].lower() in OPENERS:
                words = words[1:]
            if words and any(w[:1].isupper() for w in words):
                out.append(" ".join(words))
        return out
    return []


#: Nouns that ask for a settlement: "Which city …?" is not answered by a range of hills or an estate.
SETTLEMENT_NOUNS = ("city", "cities", "town", "village", "capital", "municipality", "borough", "hamlet")
#: Last words of place names that name no settlement ("the Sallow Hills", "Wharf Street", "the Kesterbrook Estate"),
#: spaCy's small model tags them LOC, FAC or GPE alike. Words that also end town names ("Bay", "Vale", "Falls",
#: "Springs", "Park", "Island") are left out.
_NOT_SETTLEMENTS = frozenset({"hills", "hill", "mountains", "mountain", "range", "river", "valley", "lake", "sea",
                              "ocean", "coast", "street", "road", "lane", "avenue", "square", "estate", "garden",
                              "gardens", "forest", "woods", "desert", "peninsula", "gulf", "strait", "channel",
                              "glacier", "highlands", "lowlands", "plains", "moors", "islands", "quays", "wharf"})


def settlement_asked_but_not(mention: str, query: str, sentence: str = "") -> bool:
    """Whether ``query`` asks for a settlement ("Which city/town/village …?") and the place ``mention`` is a named
    feature of land or water, or a street or an estate, by its last word: an audit's "Which city is the auction house
    that sold the Kesterbrook Estate's teas headquartered in?" got "The Kesterbrook Estate is a tea garden in the
    Sallow Hills." over "It [Greyfold Auction House] is headquartered in Dunmarrow" (both counted as naming a place).

    >>> settlement_asked_but_not("the Sallow Hills", "Which city was she born in?")
    True
    >>> settlement_asked_but_not("the Sallow Hills", "Which region was she born in?")
    False
    >>> settlement_asked_but_not("Ostrel Bay", "Which town was she born in?")
    False
    >>> settlement_asked_but_not("Aske", "Which town was he born in?", "… Lynmere, a weaving town on the river Aske.")
    True
    """
    q = " ".join(query.lower().split())
    words = re.sub(r"(?:'s|’s)$", "", mention.lower()).split()  # "Sallow Hills's estates", a reading of "Their …"
    kind = re.search(rf"\b(?:{'|'.join(_NOT_SETTLEMENTS)}|mount|lake|cape)\s+{re.escape(mention)}", sentence, re.I)
    return bool(words) and (words[-1] in _NOT_SETTLEMENTS or kind is not None) and re.search(
        rf"\b(?:which|what)\s+(?:{'|'.join(SETTLEMENT_NOUNS)})\b", q) is not None


def new_mentions(sentence: str, kind: str, query: str, *, names: bool = False, recipients: bool = False) -> list[str]:
    """Typed mentions of ``sentence`` that the question does not already name (``names``: see
    :func:`typed_mentions`)."""
    q = normalize_name(query)
    return [m for m in typed_mentions(sentence, kind, names=names, recipients=recipients)
            if normalize_name(m) and normalize_name(m) not in q]
