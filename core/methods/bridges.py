"""The first hop of a two-hop question, by string rules: the entity a description in the question stands for.

The extractive answer (:mod:`core.methods.extractive`, rule 3) also reads the question with that bridge entity.

A two-hop question names its answer's subject by a description: "When did *Lothair II's mother* die?", "Who built
*the ferry that Mattias Venn captained*?", "In what year was *the ferry commanded by Edda Thorne* launched?". The
sentence that answers it ("The Lantern Moth was built by the shipwright Barnaby Fell") names the bridge entity, not the
description, so the cross-encoder scores it low against the question as asked, and a sentence that shares the
description's words ("She commanded the ferry Grey Heron …") wins. Where a retrieved passage resolves the description,
the question is also read with the bridge entity in its place ("Who built the ferry Lantern Moth?") and a sentence
scores the better of the two readings — what a reader does after reading the first passage. The sentence that
resolved a description (the first hop: "She took command of the ferry Silver Eel in 1921") is scored by the re-read
question alone: it restates the question's own description, so the question as asked scored it above the sentence
that answers ("It was launched in 1920").

- :func:`possessive_bridges` — "X's R" / "the R of X" of a relational noun, resolved by a passage that states "R of X"
  or "X's R" (its title is the bridge: "Ermengarde of Tours … the mother of Lothair II").
- :func:`clause_bridges` — "the N that X V-ed", "the N with which X was V-ed", "the N V-ed by X", "the N V-ed in X", "the N of X", "X's
  N", resolved by a sentence that names X and either "the N Name" ("the ferry Lantern Moth"), a name ending with N
  ("the Halden Telescope") or, with a verb, a name after a word of the verb's stem ("captained" meets "became captain
  of the ferry Lantern Moth", "commanded" meets "took command of the ferry Silver Eel"); an agent noun ("the founder
  of X") stands for its verb or one saying the same ("established", "started"), with the name as the agent ("founded
  … by the astronomer Ilse Brandvik") and X what the verb is said of: named before it, no other name between ("It
  [Hesketh Electric] was founded by Corwin Hesketh and was sold to the Corran Alpine Trust" names no founder of the
  Trust). "The N V-ed in X" ("the photographer born in Brisk Hollow") is also the one a sentence naming X and the verb
  calls an N ("Nell Carrow was a photographer born in Brisk Hollow"). An adjective
  of the description must be in the sentence ("the first telescope of X" is not X's largest one). Sentences are read
  with their pronouns resolved (the caller's readings), so "She commanded the ferry Grey Heron" names Orla Brisk.
  Relations are also read from the other side: "the father of Aldo Fenn" is the one "Aldo Fenn was the son of" (a
  parent of the fitting sex by title or given name), and "the engineer who bought X" the one X "was sold to" ("the
  firm that supplied the winding gear" too, a thing of two or three lower-case words: "… gear supplied by Hesketh
  Electric"); a role is also stated by "as" ("the former apprentice of X": "trained as an apprentice at X", an
  adjective of time such as "former" not required in the sentence); a
  description inside a description is resolved inside out ("the lamp company founded by Tobias Fenn's son"). X may be
  named by surname alone where no two people of the sentences share it ("As a boy Wrenfield was apprenticed at …");
  a thing's description is never the person who did its verb ("the school that taught X" is not X's teacher); how
  much of the question a description spans is :mod:`core.methods.bridge_extent`'s.
- :func:`head_reading` — "the company" read as the passage's title "Colbridge Lamp Company" (or "the workshop" where
  the passage says "Tessely Clockworks was a clockmaking workshop"), for the sentences that resolve descriptions.

Neither is in any paper: each paper's pipeline assumes an LLM for this step. Each bridge found is recorded in the
answer step's trace with the question as it was re-read.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence

from core.methods.bridge_extent import PARTICIPLES, extent
from core.methods.thing_of import THING_OF, thing_of
from core.text import STOPWORDS, name_mentions, named_person, normalize_name, person_noun

#: A proper name: capitalised words, with "of"/"de"/"van"/"von"/"&" between two of them ("Ermengarde of Tours",
#: "Brask & Sons": ending at "&", "the company that bought Brask & Sons" was re-read "the Halvard Music Company & Sons").
_NAME = r"[A-Z][\w'\-]*(?:\s+(?:(?:of|de|van|von|da|di|&)\s+)?(?:[A-Z][\w'\-]*|[IVX]+\b))*"
#: Participles not ending in -ed that describe a thing by where it was made or placed ("the photographer born in …").
_PARTICIPLE_WORDS = ("born", "built", "made", "raised", "held", "kept", "found", "drawn", "written", "buried")
_CLAUSE_PATTERNS = (
    # "the ferry that Mattias Venn captained", "the school where the composer Pieter Valk trained"
    re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>(?!(?:with|in|at|on|from|by|for|of|to)\b)[a-z]+)\s+(?:that|which|whom|where)\s+"
               rf"(?:the\s+(?:[a-z\-]+\s+)?)?(?P<x>{_NAME})\s+(?:(?:was|were|had\s+been)\s+(?=(?:[a-z]+ed|{'|'.join(PARTICIPLES)})\b))?(?P<verb>[a-z]+)\b"),
    # "the telescope with which Comet Sarna was discovered"
    re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+(?:with|in|at|on|from|by)\s+which\s+(?:the\s+)?(?P<x>{_NAME})\s+"
               r"(?:was|were|is|are|had\s+been)\s+(?P<verb>[a-z]+)\b"),
    # "the ferry commanded by Edda Thorne", "the studio founded by the winner Runa Halse" (a description re-read)
    re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+(?P<verb>[a-z]+)\s+by\s+(?:the\s+(?:[a-z\-]+\s+)?)?(?P<x>{_NAME})"),
    # "the photographer born in Brisk Hollow", "the company based in Varnholt": a participle and a place
    re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+(?P<verb>[a-z]+ed|{'|'.join(_PARTICIPLE_WORDS)})\s+"
               rf"(?:in|at|from|near|on)\s+(?:the\s+)?(?P<x>{_NAME})"),
    # "the ferry of Josiah Crell", "the current director of Kestrel Peak Observatory", "the husband of the artist Mina Roe"
    re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+of\s+(?:the\s+(?:[a-z\-]+\s+)?)?(?P<x>{_NAME})"),
    # "Josiah Crell's ferry"
    re.compile(rf"(?P<x>{_NAME})(?:'s|’s)\s+(?P<noun>[a-z]+)\b"),
)
#: A description by what its subject did: "the engineer who bought the Colbridge Lamp Company" (``x`` is the object).
_SUBJECT_CLAUSE = re.compile(rf"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+(?:who|that|which)\s+"
                             rf"(?P<verb>[a-z]{{3,}})\s+(?:the\s+)?(?P<x>{_NAME})")
#: The same with a thing named by lower-case words: "the firm that supplied the winding gear", resolved by "… winding
#: gear supplied by Hesketh Electric" (two or three words before a preposition: one word, "the film", names no one thing).
_THING_CLAUSE = re.compile(r"\bthe\s+(?:(?P<adj>[a-z\-]+)\s+)?(?P<noun>[a-z]+)\s+(?:who|that|which)\s+(?P<verb>[a-z]{3,})\s+"
                           r"the\s+(?P<x>[a-z]{3,}(?:\s+(?!(?:after|before|during|until|since|in|on|at|of|for|from|with|by|"
                           r"to|and|or|but|that|which|who|when|where|while|as)\b)[a-z]{3,}){1,2})\b")
#: The patterns of a relative clause, whose own words may run past the match (:func:`core.methods.bridge_extent.extent`).
_CLAUSES = (_CLAUSE_PATTERNS[0], _SUBJECT_CLAUSE, _THING_CLAUSE)
#: Relational nouns and the nouns that state the same relation from the other side: "the father of Aldo Fenn" is
#: the one Aldo Fenn "was the son of".
_PARENT, _CHILD = ("father", "mother", "parent"), ("son", "daughter", "child")
_CONVERSE_NOUNS: dict[str, tuple[str, ...]] = {
    **{w: _CHILD for w in _PARENT}, **{w: _PARENT for w in _CHILD},
    "husband": ("wife",), "wife": ("husband",), "spouse": ("husband", "wife", "spouse"),
    "brother": ("brother", "sister"), "sister": ("brother", "sister"),
    "grandfather": ("grandson", "granddaughter"), "grandmother": ("grandson", "granddaughter"),
    "grandson": ("grandfather", "grandmother"), "granddaughter": ("grandfather", "grandmother"),
    "uncle": ("nephew", "niece"), "aunt": ("nephew", "niece"), "nephew": ("uncle", "aunt"), "niece": ("uncle", "aunt"),
    "teacher": ("student", "pupil", "apprentice"), "master": ("apprentice", "pupil"),
    "student": ("teacher",), "pupil": ("teacher", "master"), "apprentice": ("master", "teacher"),
    "employer": ("employee",), "employee": ("employer",),
}
#: Verbs and the words that state the same event from the other side, with the preposition before the agent there:
#: "who bought X" is the one X "was sold to"; "who taught X" the one X was "an apprentice to" or "studied under".
_CONVERSE_VERBS: dict[str, tuple[tuple[str, str], ...]] = {
    "bought": (("sold", "to"),), "purchased": (("sold", "to"),), "acquired": (("sold", "to"),),
    "sold": (("bought", "from"), ("purchased", "from"), ("acquired", "from")),
    "taught": (("apprentice", "to"), ("studied", "under"), ("trained", "under"), ("pupil", "of"), ("student", "of")),
    "trained": (("apprentice", "to"), ("trained", "under"), ("pupil", "of"), ("student", "of")),
    "employed": (("worked", "for"),), "hired": (("worked", "for"),),
}
_BE = r"(?:was|is|became|had\s+been)"
#: Role nouns stated by what the other side did: "the teacher of Anselm Tessely" is whom "Anselm Tessely trained under".
_ROLE_PHRASES: dict[str, tuple[str, ...]] = {
    **{w: ("trained under", "studied under", "apprenticed to", "apprenticed with", "an apprentice to", "an apprentice of",
           "a pupil of", "a student of") for w in ("teacher", "master", "mentor", "tutor")},
    **{w: ("worked for", "was employed by", "served") for w in ("employer",)},
    **{w: ("married", "was married to", "wed") for w in ("husband", "wife", "spouse")},
}
_SPOUSES = frozenset({"husband", "wife", "spouse"})
#: Words that open a sentence or a description, never the start of a bridge name.
_NOT_NAMES = frozenset({"the", "a", "an", "he", "she", "it", "they", "his", "her", "its", "their", "this", "that",
                        "in", "on", "at", "after", "before", "during", "when", "who", "what", "where", "which", "how",
                        "january", "february", "march", "april", "may", "june", "july", "august", "september",
                        "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
                        "saturday", "sunday"})
#: Nouns of a description that ask for a person or a time rather than name a thing ("the man who …").
_NOT_THINGS = frozenset({"one", "same", "first", "last", "year", "time", "date", "day", "name", "number", "way",
                         "rest", "end", "start", "beginning", "part", "side", "top", "bottom", "history"})
#: Verbs that open a relative clause without saying what its subject did ("the ferry that was launched").
_AUXILIARY = frozenset({"was", "were", "is", "are", "had", "has", "have", "did", "does", "would", "could", "will",
                        "can", "may", "might", "should", "must", "became", "remained"})
#: Endings of an agent noun ("founder", "discoverer", "director"), the verb's stem without them.
_AGENT = re.compile(r"(?:er|or)$")


def possessive_bridges(query: str, passages: Sequence[tuple[str, str, str]], *,
                       skip: Collection[str] = ()) -> list[tuple[str, str]]:
    """(rewritten question, bridge title) for each "X's R" / "the R of X" of ``query`` that a passage
    resolves by stating "R of X" or "X's R"; at most one rewrite per phrase, best passage first. Phrases in ``skip``
    (those :func:`clause_bridges` resolved from a sentence's own subject) are left: "He [Aldo Fenn] was the son of
    Tobias Fenn" in the passage titled Colbridge Lamp Company makes Aldo Fenn, not the company, Tobias Fenn's son."""
    phrases: list[tuple[str, str, str]] = []  # (phrase in the query, X, R)
    for m in re.finditer(r"((?:[A-Z][\w\-]*\s)*[A-Z][\w\-]*)(?:'s|’s)\s+([a-z]+)\b", query):
        phrases.append((m.group(0), m.group(1), m.group(2)))
    for m in re.finditer(r"\bthe\s+([a-z]+)\s+of\s+((?:[A-Z][\w\-]*\s)*[A-Z][\w\-]*)", query):
        phrases.append((m.group(0), m.group(2), m.group(1)))
    out: list[tuple[str, str]] = []
    for phrase, x, r in phrases:
        if phrase in skip:
            continue
        xn = re.escape(normalize_name(x))
        pat = re.compile(rf"\b{re.escape(r.lower())}s?\s+of\s+(?:the\s+)?(?:[a-z]+\s+)?{xn}\b|\b{xn}(?:'s|’s)\s+{re.escape(r.lower())}\b")
        for _cid, title, text in passages:
            if title and normalize_name(title) != normalize_name(x) and pat.search(normalize_name(text)):
                out.append((query.replace(phrase, title), title))
                break
    return out


def title_kinds(sentences: Sequence[str], title: str) -> tuple[str, ...]:
    """The nouns a passage calls its title by: "Tessely Clockworks was a clockmaking workshop in …" → ("workshop",)."""
    if not title.strip():
        return ()
    pat = re.compile(rf"^(?:The\s+)?{re.escape(title)}\s+(?:was|is)\s+(?:a|an|the)\s+((?:[a-z\-]+\s+){{0,3}}?[a-z\-]+?)"
                     r"(?=\s+(?:in|of|on|at|for|from|with|by|that|which|who|founded|based|and)\b|[,.;]|$)")
    return tuple(dict.fromkeys(m.group(1).split()[-1] for s in sentences if (m := pat.match(s))))


def head_reading(sentence: str, title: str, kinds: Sequence[str] = ()) -> tuple[str, ...]:
    """``sentence`` with "the company" read as its passage's title "Colbridge Lamp Company" — the title's last word,
    or a noun the passage calls the title by (:func:`title_kinds`: "the workshop" in Tessely Clockworks' passage),
    after "the" — where the sentence does not name the title itself; () where it has no such phrase. What a reader of
    "In 1925 the company was sold to the engineer Petra Lund" in that passage takes "the company" for."""
    heads = [h for h in (title.split()[-1].lower() if title.split() else "", *kinds) if len(h) >= 4 and h.isalpha()]
    if not heads or normalize_name(title) in normalize_name(sentence):
        return ()
    m = re.search(rf"\b[Tt]he\s+(?:{'|'.join(map(re.escape, heads))})\b(?!\s+[A-Z])", sentence)
    return (sentence[:m.start()] + title + sentence[m.end():],) if m else ()


def _names(text: str) -> list[tuple[int, str]]:
    """(start offset, name) of each proper name in ``text``, an opening word ("The", "She", "February") and a closing
    possessive ("Tobias Fenn's") dropped."""
    out = []
    for m in re.finditer(_NAME, text):
        words = m.group(0).split()
        start = m.start()
        while words and words[0].lower() in _NOT_NAMES:
            start += len(words[0]) + 1
            words = words[1:]
        for k, w in enumerate(words):  # "Tobias Fenn's son": the name ends at its possessive
            if w.endswith(("'s", "’s")):
                words = [*words[:k], w[:-2]]
                break
        if words:
            out.append((start, " ".join(words)))
    return out


def _has(text_n: str, name: str) -> bool:
    n = normalize_name(name)
    return bool(n) and re.search(rf"\b{re.escape(n)}\b", text_n) is not None


def _stem(word: str) -> str:
    """The first five letters of a verb ("captained" → "capta", meets "captain"), or of an agent noun without its
    ending ("founder" → "found", "director" → "direc"); "" for a word too short to compare."""
    if _AGENT.search(word) and len(word) > 5:
        word = _AGENT.sub("", word)
    return word[:5] if len(word) >= 5 else ""


def _resolve(noun: str, x: str, verb: str, sentences: Sequence[str], query: str, adj: str = "") -> tuple[str, str]:
    """(the name that "the ``noun`` [that] ``x`` ``verb``" describes, the sentence that says so) from the first of
    ``sentences`` resolving it, or ("", "").

    In a sentence naming ``x``: a name right after the noun ("the ferry Lantern Moth") or ending with it ("the Halden
    Telescope"); else a name within six words after a word of the verb's stem ("took command of the ferry Silver
    Eel") — for a description without a verb, an agent noun's ("the founder of X": "founded in 1931 by the astronomer
    Ilse Brandvik"; "the current director of X": "The current director is Marek Lindqvist") only as the agent after
    "by" or after the noun and "is" ("discovered … with the Halden Telescope" names no discoverer). A description's
    adjective must be in the sentence too: "the first telescope of X" is not "X's largest instrument is the Halden
    Telescope"."""
    agent = not verb and bool(_AGENT.search(noun))
    stem = _stem(verb) if verb else _stem(noun) if agent else ""
    verb_word = re.compile(_verb_word(verb)) if verb else None
    # the words of the verb's stem and of the verbs that say the same ("founder": "founded", "established"); a verb
    # too short for a stem ("died", "won", "led") is its own word: "the town where Aurelio Brandt died" is the place
    # "… died in Kelsing in 1902" names after it
    # ("the movie where Keanu Reeves and Laurence Fishburne starred" has no verb after its first name: "and" is none)
    said = (re.compile(_same_event_words(stem)) if stem else
            verb_word if verb and len(verb) > 2 and verb not in STOPWORDS else None)
    before_name = re.compile(rf"\b{re.escape(noun)}s?,?\s+$", re.IGNORECASE)  # "… the ferry " just before a name
    # the agent's role noun may be two words ("by the cabinet maker Aurelio Brandt", "by the piano dealer Oda Vesk")
    as_agent = re.compile(rf"(?:\bby\s+(?:the\s+)?(?:[a-z\-]+\s+){{0,2}}|\b{re.escape(noun)}\s+(?:is|was)\s+)$", re.IGNORECASE)
    for s, xs in name_mentions(x, sentences):  # in full first, then a person by surname alone
        if adj and adj not in _WHEN_ADJ and not re.search(rf"\b{re.escape(adj)}\b", s, re.I):
            continue
        names = [(start, n) for start, n in _names(s) if not _has(normalize_name(x), n) and not _has(normalize_name(n), x)]
        found = [n for start, n in names if before_name.search(s[:start])
                 or n.lower().endswith(" " + noun) or n.lower().endswith(" " + noun + "s")]
        if not found and not verb:
            found = _related(noun, xs, s, names, adj)
        if not found and verb_word is not None and verb_word.search(s):  # "Nell Carrow was a photographer born in …"
            found = [n for start, n in names if re.match(
                rf"\s+{_BE}\s+(?:a|an|the)\s+(?:[a-z\-]+\s+){{0,2}}?{re.escape(noun)}s?\b", s[start + len(n):], re.I)]
        if not found and said is not None:
            at = [(m.start(), m.end()) for m in said.finditer(s)]
            # six words at most from the verb to the name, or for an agent to its "by" ("founded in Lautmar in 1912
            # by the farmer Edda Rune": the role noun belongs to the agent)
            # X's own verb: X named before it with no name between, where named before it (audit 57: "[Tobias
            # Wrenfield]'s pupil was Nils Ottery, who later worked for a toy shop in Brellin" is not where X worked)
            found = [n for start, n in names for v, a in at[:1] if 0 < start - a
                     and len(s[a:_agent_at(as_agent, s, start) if agent else start].split()) <= 6
                     and (bool(as_agent.search(s[:start])) and _subject_of(xs, v, s, names) if agent
                          else not _named_before(xs, v, s) or _subject_of(xs, v, s, names))
                     and (agent or _may_stand_for(noun, n))]
        for n in found:
            if not _has(normalize_name(query), n):
                return n, s
    return "", ""


def _may_stand_for(noun: str, name: str) -> bool:
    """Whether a name found as the doer of a description's verb may be what "the ``noun``" stands for: a person's name
    only for a noun of a person (audit 58: "the school that taught Marta Kessel" was re-read "the school Greta Lisk",
    "the window that won the Gold Pane" "the window Odile Vantrec"); a name right after the noun is always it."""
    return person_noun(noun) or not named_person(name) or name.lower().endswith(noun)


def _agent_at(as_agent: re.Pattern[str], s: str, start: int) -> int:
    """Where the agent phrase ("by the farmer ") before the name at ``start`` of ``s`` opens; ``start`` if none."""
    m = as_agent.search(s[:start])
    return m.start() if m else start


#: Adjectives that place a role in time, not pick one of X's: "the former apprentice of X" is the one who "had trained
#: as an apprentice at X", a sentence that need not say "former".
_WHEN_ADJ = frozenset({"former", "onetime", "erstwhile", "late", "then"})
#: Verbs that state the same event as an agent noun's verb (by its stem, :func:`_stem`): "the founder of X" is the
#: one by whom X "was established".
#: one by whom X "was established" or "was started" ("The Tessburg Clay Fair was started in 1911 by Konrad Varn": an
#: audit's "In what year was the founder of the Tessburg Clay Fair born?" resolved no founder and quoted that sentence).
_SAME_EVENT: dict[str, tuple[str, ...]] = {"found": ("estab", "set up", "creat", "start", "launc"),
                                           "start": ("found", "estab", "set up", "launc"), "build": ("built", "const")}


def _same_event_words(stem: str) -> str:
    """A pattern for the words of ``stem`` and of the verbs saying the same event (:data:`_SAME_EVENT`)."""
    return "|".join(rf"\b(?i:{re.escape(w).replace(chr(92) + ' ', chr(92) + 's+')})[a-z]*\b"
                    for w in (stem, *_SAME_EVENT.get(stem, ())) if w)


def _subject_of(x: str, verb_at: int, s: str, names: Sequence[tuple[int, str]]) -> bool:
    """Whether ``x`` is what the verb at ``verb_at`` of ``s`` is said of: named before it with no other name between
    ("The Corran Alpine Trust … was established in 1902 by Idris Corran"), not after it ("It [Hesketh Electric] was
    founded in 1888 by Corwin Hesketh and was sold to the Corran Alpine Trust": Corwin Hesketh founded the firm, not
    the Trust; an audit's "the founder of the Corran Alpine Trust" read him, and every method quoted his birth)."""
    m = ([None, *re.finditer(rf"\b{re.escape(x)}\b", s[:verb_at], re.I)])[-1]  # its last mention before the verb
    return m is not None and not any(m.end() <= start < verb_at for start, _ in names)


def _named_before(x: str, verb_at: int, s: str) -> bool:
    """Whether ``s`` names ``x`` before the verb at ``verb_at``."""
    return re.search(rf"\b{re.escape(x)}\b", s[:verb_at], re.I) is not None


_MALE = frozenset({"father", "son", "husband", "brother", "grandfather", "grandson", "uncle", "nephew", "king",
                   "emperor", "prince", "duke", "count", "earl", "baron", "lord", "sir", "mr", "pope", "tsar"})
_FEMALE = frozenset({"mother", "daughter", "wife", "sister", "grandmother", "granddaughter", "aunt", "niece",
                     "queen", "empress", "princess", "duchess", "countess", "baroness", "lady", "dame", "mrs",
                     "miss", "ms", "tsarina"})


def _gender(word_or_name: str) -> str:
    """"m", "f" or "" for a relational noun ("mother"), or for a name by its title ("Emperor Lothair I") or its
    first word in Faker's English given-name lists (a name in both lists, or in neither, has none)."""
    first = word_or_name.split()[0] if word_or_name.split() else ""
    if first.lower() in _MALE or first.lower() in _FEMALE:
        return "m" if first.lower() in _MALE else "f"
    males, females = _given_names()
    male, female = first in males, first in females
    return "m" if male and not female else "f" if female and not male else ""


@functools.cache
def _given_names() -> tuple[frozenset[str], frozenset[str]]:
    """Faker's English male and female given names (the US Social Security lists, MIT); empty without Faker."""
    try:
        from faker.providers.person.en import Provider
    except ImportError:
        return frozenset(), frozenset()
    return frozenset(Provider.first_names_male), frozenset(Provider.first_names_female)


def _untitled(name: str) -> str:
    """``name`` without a leading title: "Emperor Lothair I" → "Lothair I"."""
    words = name.split()
    while len(words) > 1 and (words[0].lower() in _MALE or words[0].lower() in _FEMALE):
        words = words[1:]
    return " ".join(words)


def _related(noun: str, x: str, s: str, names: Sequence[tuple[int, str]], adj: str = "") -> list[str]:
    """The names of ``s`` that stand in the relation "the ``noun`` of ``x``": "NAME was the wife of … and the mother of
    X", "X's NOUN (from 1919 to 1940) was NAME" or "the NOUN of X was NAME", and from the other side by a converse
    noun (:data:`_CONVERSE_NOUNS`): "NAME's son X", "NAME's apprentices included … X", "X was the son of NAME", or a role phrase (:data:`_ROLE_PHRASES`: "X trained under the watchmaker NAME"),
    where of "X was the second son of the Emperor Lothair I and Ermengarde of Tours" the mother is the one whose title
    or given name is not a man's (:func:`_gender`; two of unknown gender name no one)."""
    xp = re.escape(x)
    conv = "|".join(map(re.escape, _CONVERSE_NOUNS.get(noun, ())))
    out = []
    for start, n in names:
        after = s[start + len(n):]
        if re.match(rf"\s+{_BE}\s+(?:[^.;]{{0,80}}?\band\s+)?(?:the|a|an)\s+(?:[a-z\-]+\s+)?{re.escape(noun)}\s+of\s+"
                    rf"(?:the\s+)?{xp}\b", after, re.I) or (conv and re.match(
                        rf"(?:'s|’s)\s+(?:{conv})s?(?:,?\s+(?:the\s+)?|\s+(?:included|were|was)\s+(?:[^.;]{{0,60}}?\b)?){xp}\b",
                        after, re.I)):
            out.append(_untitled(n))
    for start, n in names if not out else ():  # "Amos Threlkeld had trained as an apprentice at X": the role by "as"
        if re.match(rf"\s+(?:[a-z]+\s+){{0,3}}?as\s+(?:an?\s+|the\s+)?(?:[a-z\-]+\s+)?{re.escape(noun)}\s+(?:at|of|with|to|for|in)\s+"
                    rf"(?:the\s+)?{xp}\b", s[start + len(n):], re.I):
            out.append(_untitled(n))
    for start, n in names if not out else ():  # "Its [Bellcastle Holdings'] chairman from 1919 to 1940 was Perpetua Vane"
        nn = rf"(?:{re.escape(adj)}\s+)?{re.escape(noun)}" if adj else re.escape(noun)  # "X's first winner was NAME"
        if re.search(rf"(?:\b{xp}(?:'s|’s)\s+{nn}|\bthe\s+{nn}\s+of\s+(?:the\s+)?{xp})\b[^.;]{{0,40}}?"
                     rf"\s(?:was|is|became)\s+(?:the\s+(?:[a-z\-]+\s+){{1,2}})?$", s[:start], re.I):
            out.append(_untitled(n))
    phrases = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in _ROLE_PHRASES.get(noun, ()))
    if phrases and not out:  # "Anselm Tessely trained under the watchmaker Odile Brask"
        for start, n in names:
            if re.search(rf"\b{xp}\s+(?:[a-z]+\s+){{0,2}}?(?:{phrases})\s+(?:the\s+)?(?:[a-z\-]+\s+)?$", s[:start], re.I) or (
                    noun in _SPOUSES and re.match(rf"\s+(?:{phrases})\s+(?:the\s+[a-z\-]+\s+)?{xp}\b", s[start + len(n):], re.I)):
                out.append(_untitled(n))  # a marriage read from either side: "Jonas Weald married Mina Roe"
    m = re.search(rf"\b{xp}\s+{_BE}\s+(?:the|a|an)\s+(?:[a-z\-]+\s+)?(?:{conv})\s+of\s+(?:the\s+)?", s, re.I) if conv else None
    if m and not out:
        parents: list[str] = []  # "of A and B": A, then each name right after "and"
        at = m.end()
        for start, n in names:
            if start == at:
                parents.append(n)
                nxt = re.match(r"\s*(?:,\s*)?and\s+(?:the\s+)?", s[start + len(n):])
                at = start + len(n) + nxt.end() if nxt else -1
        want = _gender(noun)
        fit = [n for n in parents if not want or _gender(n) in (want, "")]
        if len(fit) == 1 or (fit and not want):
            out.append(_untitled(fit[0]))
        elif want and [n for n in fit if _gender(n) == want]:
            out.append(_untitled(next(n for n in fit if _gender(n) == want)))
    return out


def _verb_word(verb: str) -> str:
    """A pattern for the words of ``verb``'s stem ("bought" only itself; "founded" → "found…")."""
    stem = _stem(verb)
    return rf"\b(?i:{re.escape(stem)})[a-z]*\b" if stem else rf"\b(?i:{re.escape(verb)})\b"


def _resolve_agent(noun: str, y: str, verb: str, sentences: Sequence[str], query: str) -> tuple[str, str]:
    """(the name that "the ``noun`` who ``verb`` ``y``" describes, the sentence that says so), or ("", ""): in a
    sentence naming ``y``, the name just before the verb ("Clara Dunmore bought the Harrow Glassworks"), after "by"
    following it ("… was founded in 1901 by the engineer Aldo Fenn"), or after the preposition of a converse
    ("bought": "… was sold to the engineer Petra Lund"; "taught": "… as an apprentice to Tobias Fenn";
    :data:`_CONVERSE_VERBS`). A name right after the noun ("the engineer Petra Lund") is preferred."""
    sides = [(_verb_word(verb), "by")] + [(_verb_word(v), prep) for v, prep in _CONVERSE_VERBS.get(verb, ())]
    if _SAME_EVENT.get(_stem(verb)):  # "the person who started X": "X was founded in 1911 by …" says the same
        sides.append((_same_event_words(_stem(verb)), "by"))
    for s in sentences:
        if not _has(normalize_name(s), y):
            continue
        names = [(start, n) for start, n in _names(s) if not _has(normalize_name(y), n) and not _has(normalize_name(n), y)]
        found = []
        for word, prep in sides:
            for m in re.finditer(word, s):
                for start, n in names:
                    gap = s[m.end():start]
                    if 0 < start - m.end() and len(gap.split()) <= 6 and re.search(rf"\b{prep}\s+(?:the\s+)?(?:[a-z\-]+\s+){{0,2}}$", gap, re.I):
                        found.append(n)
                    elif (prep == "by" and start + len(n) <= m.start() and not s[start + len(n):m.start()].strip(" ,")
                          and _may_stand_for(noun, n)):
                        found.append(n)  # "Clara Dunmore bought …": the subject right before the verb (or one saying the same)
        found.sort(key=lambda n: not re.search(rf"\b{re.escape(noun)}\s+{re.escape(n)}", s, re.I))
        for n in found:
            if not _has(normalize_name(query), n):
                return n, s
    return "", ""


def own_possessives(query: str) -> str:
    """``query`` with "its/his/her/their N" read as "the N of NAME", NAME the last name before it: "Who ran the Hollin
    Vale Nursery after its founder died?" → "… after the founder of the Hollin Vale Nursery died?"."""
    def of(m: re.Match[str]) -> str:
        before = _names(query[:m.start()])
        return f"{m.group(1)}the {m.group(2)} of {before[-1][1]}" if before else m.group(0)

    return re.sub(r"(\s)(?:its|his|her|their)\s+([a-z]+)\b(?!\s+(?:of|by)\b)", of, query)


def clause_bridges(query: str, sentences: Sequence[str], *, depth: int = 2) -> list[tuple[str, str, str, str]]:
    """(rewritten question, bridge name, the sentence that resolved it) for each description of ``query`` ("the
    ferry that Mattias Venn captained") that one of ``sentences`` (the retrieved passages' sentences as read with
    their pronouns resolved, best passage first) resolves; at most one per description.

    >>> clause_bridges("Who built the ferry that Mattias Venn captained?",
    ...                ["Mattias Venn became captain of the ferry Lantern Moth in 1904."])[0][:2]
    ('Who built the ferry Lantern Moth?', 'Lantern Moth')
    >>> clause_bridges("In what year was the ferry commanded by Edda Thorne launched?",
    ...                ["Edda Thorne took command of the ferry Silver Eel in 1921."])[0][:2]
    ('In what year was the ferry Silver Eel launched?', 'Silver Eel')
    >>> clause_bridges("Which company bought in 1921 the quarry where Tobin Ashgrove worked as a boy?",
    ...                ["As a boy Tobin Ashgrove worked at the quarry Penrose Pit."])[0][:2]
    ('Which company bought in 1921 the quarry Penrose Pit?', 'Penrose Pit')
    """
    out: list[tuple[str, str, str, str]] = []
    seen: set[str] = set()
    found: list[tuple[re.Match[str], str, str, str]] = []  # (description, its words in the question, name, sentence)
    query = own_possessives(query)
    for pat in (*_CLAUSE_PATTERNS, _SUBJECT_CLAUSE, _THING_CLAUSE, THING_OF):
        for m in (thing_of(query, sentences) if pat is THING_OF else pat.finditer(query)):
            noun, x = m.group("noun"), re.sub(r"^The\s+(?=[A-Z])", "", m.group("x"))  # "… restored The Drowned Orchard"
            verb = m.groupdict().get("verb") or ""
            adj = m.groupdict().get("adj") or ""
            if (noun in _NOT_THINGS or m.group(0) in seen or x.split()[0].lower() in _NOT_NAMES
                    or re.match(r"(?:'s|’s)", query[m.end():]) or x.endswith(("'s", "’s"))):
                continue  # "founded by Tobias Fenn's son" describes by the son, resolved on its own first
            if pat is _SUBJECT_CLAUSE or pat is _THING_CLAUSE:
                name, said = ("", "") if verb in _AUXILIARY else _resolve_agent(noun, x, verb, sentences, query)
            else:
                name, said = _resolve(noun, x, verb, sentences, query, adj)
            if name:
                seen.add(m.group(0))
                found.append((m, extent(query, m, clause=pat in _CLAUSES, relative=pat is _CLAUSES[0]), name, said))
    for m, phrase, name, said in found:
        noun = m.group("noun")
        # "the Halden Telescope" where the name ends with the noun, a relative by the name alone ("Where was Tobias
        # Fenn born?"), else "the ferry Lantern Moth"
        named = (f"the {name}" if name.lower().split()[-1].rstrip("s") == noun.rstrip("s") else
                 name if noun in _CONVERSE_NOUNS else f"the {noun} {name}")
        reread = query.replace(phrase, named)
        out.append((reread, name, said, phrase))
        if depth > 1:  # "the lamp company founded by Tobias Fenn's son" → "… founded by Aldo Fenn" → "the Colbridge Lamp Company"
            out += [b for b in clause_bridges(reread, sentences, depth=depth - 1) if b[0] not in {o[0] for o in out}]
    return out
