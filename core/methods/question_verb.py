"""The question's own verb against its description's verb, for the extractive answer (rule 4 of extractive.py).

None of the papers defines the extractive answer (each assumes an LLM), so this rule is ours. "In what year was the
circus founded by Lucan Marvetti sold?" asks when it was *sold*; "founded" only describes which circus. Both "Circus
Marvetti was founded in 1872 …" and "In 1927 Circus Marvetti was sold …" name a year, and the cross-encoder scored the
founding sentence higher (an audit). Where the question ends on its verb after a subject with a verb of its own
("… was the ferry commanded by Edda Thorne launched?"), a sentence of the asked type that holds a description verb
but not the question's verb ranks after the typed sentences that hold the question's verb (:func:`other_verb_only`).
A question whose last word is no verb, or that has no other verb, changes nothing.

Once a bridge resolved the question's description (:mod:`core.methods.bridge_hops`), a sentence of the asked type that
holds the question's verb and names the resolved entity beats one that merely names a thing of that type
(:func:`verb_about_bridge`): for "Which city was the founder of the company that bought Hollowmere Creamery born in?",
"Wilhelmina Stroud was an industrialist born in 1871 in Ravensholt" over "Duskfield Foods is a food company
headquartered in Marrowby" (an audit's BubbleRAG answer, a head-office city for a birthplace).

Verbs are compared by their first five letters, an irregular form or an event noun read as its verb first ("sold"
meets "sell", "her death in 1951" meets "die": :mod:`core.methods.verb_forms`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.methods.answer_types import _spacy
from core.methods.verb_forms import base_verb
from core.text import normalize_name

_WORD = re.compile(r"[^\W_]+")
#: A question ending on its verb after "was/were/did/does/is/are … ": "In what year was … sold?", "When did … close?".
_ENDS_ON_VERB = re.compile(r"^(?:When|In\s+what\s+year|In\s+which\s+year|What\s+year|Where|Who|Whom|In\s+what|In\s+which)\b"
                           r".*\b(?:was|were|did|does|do|is|are|has|had)\b.*?(\w+)(?:\s+(?:to|in|by|from|at|on|for|with))?\s*\?\s*$",
                           re.I)


#: The same after any question word, "Which city … born in?" too (:func:`asked_verb`).
_ASKS_BY_VERB = re.compile(r"^(?:Which|What|When|Where|Who|Whom|In\s+what|In\s+which)\b"
                           r".*\b(?:was|were|did|does|do|is|are|has|had)\b.*?(\w+)(?:\s+(?:to|in|by|from|at|on|for|with))?\s*\?\s*$",
                           re.I)


def _stem(word: str) -> str:
    """The first 5 letters of ``word`` read as its verb where it is an irregular form or an event noun ("sold" →
    "sell", "death" → "die": :func:`core.methods.verb_forms.base_verb`), a final "y" after a consonant read as the "i"
    of its inflections ("marry" meets "married" and "marries", as "die" meets "died").

    >>> _stem("marry") == _stem("married") and _stem("founded") == _stem("found") and _stem("obey") == "obey"
    True
    >>> _stem("sold") == _stem("sell") and _stem("built") == _stem("build") and _stem("death") == "die"
    True
    """
    w = base_verb(word)
    return (w[:-1] + "i" if len(w) > 3 and w.endswith("y") and w[-2] not in "aeiou" else w)[:5]


def _do_verb(doc: object, word: str) -> bool:
    """Whether the question ``doc`` ends on ``word`` after "did/does/do": the bare verb of do-support whatever spaCy's
    tag ("When did the founder of the Northern Grain Cooperative die?" tags "die" a noun, as in "a die"; "… close?" an
    adjective), before a closing preposition too ("Which river does the town … lie on?"). A past form between them is
    a description's verb, not the asked one: "In what year did the workshop that Aurelio Brandt founded move?" tags
    "move" a noun after "founded" (an invented corpus: the founding year was quoted for the move)."""
    toks = [t for t in doc if not t.is_punct]  # type: ignore[attr-defined]
    if toks and toks[-1].pos_ == "ADP" and toks[-1].lower_ in _CLOSING:
        toks = toks[:-1]
    if len(toks) < 3 or toks[-1].text != word or not word.isalpha() or not word.islower() or toks[-1].pos_ not in ("NOUN", "ADJ"):
        return False  # "… did he later become chief pilot of?" ends on a preposition; a verb tagged so is read as usual
    do = [i for i, t in enumerate(toks[:-2]) if t.lower_ in ("did", "does", "do") and t.pos_ == "AUX"]
    return bool(do) and not any(t.pos_ in ("VERB", "AUX") and t.tag_ not in ("VBD", "VBN") for t in toks[do[-1] + 1:-1])


#: Prepositions a question may close on after its verb ("… lie on?"), as :data:`_ENDS_ON_VERB` allows.
_CLOSING = frozenset({"to", "in", "by", "from", "at", "on", "for", "with"})


def question_verbs(query: str) -> tuple[str, tuple[str, ...]]:
    """The verb ``query`` ends on and the other verbs it uses (those of its descriptions), stems of 5 letters; ("", ())
    when it does not end on a verb or spaCy is not there.

    >>> question_verbs("Who bought the Gilded Menagerie?")
    ('', ())
    """
    m = _ENDS_ON_VERB.match(query.strip())
    nlp = _spacy()
    if m is None or nlp is None:
        return "", ()
    doc = nlp(query.strip())
    verbs = [t for t in doc if t.pos_ == "VERB"]
    do_verb = _do_verb(doc, m.group(1)) and (not verbs or verbs[-1].text != m.group(1))
    if not do_verb and (not verbs or verbs[-1].text != m.group(1)):
        return "", ()
    last = _stem(m.group(1))
    # a description's verb is a past form ("founded by", "that bought"); "rigging" in "the rigging teacher of X" is none
    return last, tuple(dict.fromkeys(_stem(t.text) for t in (verbs if do_verb else verbs[:-1])
                                     if t.tag_ in ("VBN", "VBD") and _stem(t.text) != last))


def other_verb_only(query: str, sentences: Sequence[str], typed: Sequence[bool]) -> list[bool]:
    """For each of ``sentences``: whether it holds a description verb of ``query`` but not the verb the question asks
    about, where a ``typed`` sentence holds the latter (the module docstring); all False otherwise."""
    verb, others = question_verbs(query)
    if not verb or not others:
        return [False] * len(sentences)
    stems = [{_stem(w) for w in _WORD.findall(s)} for s in sentences]
    # a verb shorter than a stem by its inflections too: "move" meets "moved", "lie" meets "lies"
    holds = [any(w.startswith(verb) for w in st) for st in stems]
    if not any(t and h for t, h in zip(typed, holds)):
        return [False] * len(sentences)
    return [not h and any(o in st for o in others) for h, st in zip(holds, stems)]


def asked_verb(query: str) -> str:
    """The stem of the verb ``query`` ends on after any question word ("Which city was … born in?" → "born"); "" when
    it ends on no verb or spaCy is not there.

    >>> asked_verb("Who bought the Gilded Menagerie?")
    ''
    """
    m = _ASKS_BY_VERB.match(query.strip())
    nlp = _spacy()
    if m is None or nlp is None:
        return ""
    doc = nlp(query.strip())
    if _do_verb(doc, m.group(1)):
        return _stem(m.group(1))
    verbs = [t for t in doc if t.pos_ in ("VERB", "AUX")]
    return _stem(verbs[-1].text) if verbs and verbs[-1].text == m.group(1) and verbs[-1].pos_ == "VERB" else ""


def verb_about_bridge(query: str, readings: Sequence[str], typed: Sequence[bool], bridges: Sequence[str]) -> list[bool]:
    """For each sentence (as ``readings``, its pronoun read): whether it is ``typed``, holds the verb the question ends
    on and names one of the ``bridges`` (the entities the question's descriptions were resolved to); all False where
    no bridge was found or the question ends on no verb (the module docstring)."""
    verb = asked_verb(query) if bridges else ""
    if not verb:
        return [False] * len(readings)
    # the bridge by its last word too ("Morrow died in Hallstead in 1971." in the passage "Edda Morrow")
    names = {normalize_name(n) for b in bridges for n in (b, b.split()[-1] if len(b.split()) > 1 else b)} - {""}
    # "die" meets "died", and by its event noun "her death in 1951"; "sell" meets "sold"
    return [t and any(w.casefold().startswith(verb) or _stem(w).startswith(verb) for w in _WORD.findall(r))
            and any(re.search(rf"\b{re.escape(n)}\b", normalize_name(r)) for n in names)
            for r, t in zip(readings, typed)]
