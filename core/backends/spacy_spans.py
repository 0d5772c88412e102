"""Which tokens of one spaCy-parsed piece of text name which entity: the spans the ``spacy`` extractor's mentions are.

Named entities (``doc.ents``) and noun chunks without their determiners are mentions; entities win over the chunks
they overlap unless they cut a proper name short ("Hugo" of "Hugo Weaving"); where the text names its passage's title,
those tokens are the title entity however the parser split them; a name after its description ("the cattle ferry
Brown Ox") is the name alone; "John Wallop, 1st Earl of Portsmouth" is one name, and so is "the first Tour of
Varnholm" without its "first". :class:`core.backends.spacy_mentions._Mentions` reads these spans as names (BubbleRAG
§3.1 step 2: the entities of a passage).
"""

from __future__ import annotations

import re
from typing import Any

from core.backends import spacy_anaphora as ana
from core.backends.spacy_lists import MARKER_ADVERBS

#: Entity labels that are values: typed nodes reached only as the object of a relation.
VALUE_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"})
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "his", "her", "its",
                          "their", "our", "my", "your", "some", "any", "each", "every", "another"})
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)|First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth")

#: lower-case words inside names ("Ludwig van Beethoven", "Charles de Gaulle", "Ibn al-Haytham")
_PARTICLES = frozenset({"van", "von", "de", "del", "della", "der", "den", "di", "da", "du", "des", "la", "le", "el",
                        "al", "bin", "ibn", "ben", "ter", "ten", "dos", "das", "do", "y", "e", "zu", "af", "av"})

#: nouns of a kind whose name goes before them, naming nothing else: "the Quillstone typeface" is Quillstone
_KIND_NOUNS = frozenset({"typeface", "font", "cultivar", "brand", "trademark"})

#: words that pick one thing out of its kind ("the last Central Powers veteran"), kept before a name's phrase
#: (:func:`_name_after_modifiers`); "the last surviving Kestrel biplane" is still the Kestrel biplane ("last" is the
#: participle's)
_RANKS = frozenset({"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                    "last", "final", "only", "sole", "maiden", "penultimate", "next", "previous", "latest", "earliest"})

#: modifiers of a thing that is no longer, or never was, of the kind the rest names ("the former Lutheran church
#: building", "a fictional Boston suburb"), kept before a name's phrase (:func:`_name_after_modifiers`)
_NOT_ONE = frozenset({"former", "fictional", "imaginary", "mythical", "legendary", "alleged", "supposed", "proposed",
                      "planned", "unbuilt", "defunct", "onetime", "erstwhile", "fake", "false", "mock", "replica"})

#: the forms of "be" (the shared pipeline runs without a lemmatizer, :data:`core.backends.spacy_model.DISABLED`: the
#: attribute ruler gives "was" the lemma "be" but leaves "be" after a modal, "will be", without one)
COPULAS = frozenset({"is", "was", "are", "were", "be", "been", "being", "'s"})

#: a mention's tokens: (start, end, entity label; "" for a noun chunk, "TITLE" for the passage's title)
Span = tuple[int, int, str]


def mention_spans(doc: Any, title: str | None) -> dict[int, Span]:
    """Token index -> the span of the mention it is part of, in ``doc`` of a passage titled ``title``."""
    out: dict[int, Span] = {}
    chunk_roots = {nc.root.i: nc for nc in doc.noun_chunks}
    for nc in chunk_roots.values():
        start = nc.start
        while start < nc.end and (doc[start].lower_ in _DETERMINERS or doc[start].dep_ in ("det", "poss")
                                  or doc[start].tag_ in ("POS", "PRP$", "DT") or doc[start].lower_ in MARKER_ADVERBS
                                  or _leading_adverb(doc[start], nc.root)):
            start += 1  # "notably the Dwell Paper Mill" is the mill (spacy_lists), "then the mayor" the mayor
        # a possessor inside the chunk ("Lothair II's mother") is a mention of its own
        for t in doc[start:nc.end]:
            if t.dep_ == "case" and t.head.i < nc.root.i:
                start = t.i + 1
        # a name after its description is the name: "the cattle ferry Brown Ox" is the Brown Ox, one node with
        # "The Brown Ox was a ferry" (the chunk "ferry Brown Ox" made a second)
        # (a lower-case word the parser tagged PROPN describes too: "the typographer Idris Mallow")
        if nc.root.pos_ == "PROPN" and (doc[start].pos_ in ("NOUN", "ADJ") or _described(doc[start])):
            first = next((t.i for t in doc[start:nc.root.i + 1] if t.pos_ == "PROPN" and not _described(t)), start)
            if all(t.pos_ == "PROPN" for t in doc[first:nc.root.i + 1]):
                start = first
        elif nc.root.pos_ == "NOUN":  # "the last surviving Kestrel biplane" is the Kestrel biplane
            start = _name_after_modifiers(doc, start, nc.root)
        end = _before_direction(doc, start, nc)
        if start < end:
            for i in range(start, end):
                out[i] = (start, end, "")
    for t in doc:  # "the group sold the rope works": the parser tagged "works" a verb yet made it the object
        if t.pos_ == "VERB" and t.dep_ in ("dobj", "pobj") and t.i not in out and t.left_edge.dep_ == "det" \
                and all(x.dep_ in ("compound", "amod") for x in doc[t.left_edge.i + 1:t.i]):
            start = t.left_edge.i + 1
            for i in range(start, t.i + 1):
                out[i] = (start, t.i + 1, "")
    covered = 0
    for ent in doc.ents:  # entities win over the chunks they overlap ...
        if ent.start < covered:
            continue  # inside a name extended below
        start, end = ent.start, ent.end
        while start < end and (doc[start].lower_ in ("the", "a", "an") or (
                ent.label_ == "DATE" and doc[start].lower_ == "between" and doc[start].dep_ == "prep")):
            start += 1  # "cast between 1842 and 1921": the years, the relation has "between"
        while start < min(end, len(doc) - 1) and doc[start].pos_ == "NOUN" and doc[start].lower_ in ana.ORG_NOUNS \
                and doc[start + 1].pos_ == "PROPN":  # "(the house) Osterby & Daughters" is the name (spacy_anaphora)
            start += 1
        chunk = out.get(ent.start)
        if chunk is not None and chunk[0] <= start and chunk[1] >= end and ent.label_ not in VALUE_LABELS \
                and all(t.pos_ == "PROPN" for t in doc[chunk[0]:chunk[1]]):
            start, end = chunk[0], chunk[1]  # ... unless they cut a proper name short ("Hugo" Weaving)
        if ent.label_ == "PERSON" and end + 2 < len(doc) and doc[end].text == "," \
                and _ORDINAL.fullmatch(doc[end + 1].text):
            # "John Wallop, 1st Earl of Portsmouth" is one name (Wikipedia's peerage titles)
            j = end + 2
            while j < len(doc) and (doc[j].text[:1].isupper() or doc[j].lower_ in ("of", "the", "and")):
                j += 1
            while j > end + 2 and doc[j - 1].lower_ in ("of", "the", "and"):
                j -= 1
            if j > end + 2:
                end = covered = j
        if end - start > 1 and doc[end - 1].lower_ == "of":  # "the Clock Tower of" (Brannock)
            end = covered = _of_name_end(doc, start, end)
        elif end + 1 < len(doc) and doc[end].lower_ == "of" and doc[end].head.i == end - 1 and ent.label_ \
                not in VALUE_LABELS and any(t.lower_ == "of" for t in doc[start + 1:end - 1]):
            # "the Guild of Bell Ringers" of Lesk: "X of Y of Z", all capitalised, is one name
            j = _of_name_end(doc, start, end + 1)
            end = covered = j if j > end + 1 else end
        while end - start > 1 and ent.label_ not in VALUE_LABELS and doc[end - 1].is_lower and doc[end - 1].is_alpha \
                and doc[end - 1].pos_ in ("ADP", "CCONJ", "DET", "ADJ", "SCONJ"):  # "Kettlemoor of the coastal shoals"
            end -= 1  # (a name cut from its noun); "Republic of the Congo and" the Republic of the Congo
        cut = _double_object(doc, start, end)
        if cut is not None:  # "awarded Varn the Lumen Medal": the recipient, then the thing given
            for i in range(start, cut[0]):
                out[i] = (start, cut[0], "")
            start = cut[1]
        for i in range(start, end):
            out[i] = (start, end, ent.label_)
    _kind_after_name(doc, chunk_roots.values(), out)
    _of_name_after_modifiers(doc, out)
    _body_of_name(doc, out)
    if title:  # where the text names its title ("The Countess of Parma (Italian: ...) is a ..."),
        # those tokens are the title entity, however the parser split them
        base = title.split(" (", 1)[0]
        for form in dict.fromkeys((title, base)):
            for m in re.finditer(re.escape(form), doc.text, flags=re.IGNORECASE):
                span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
                if span is not None and not _inside_name(doc, span):
                    for i in range(span.start, span.end):
                        out[i] = (span.start, span.end, "TITLE")
                    _split_rest(doc, span, out)
    return out


_COMPASS = frozenset({"north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest"})


def _before_direction(doc: Any, start: int, nc: Any) -> int:
    """Where a noun chunk's mention ends: before a lower-case compass point heading it with "of" after ("a moorland
    parish west of Dunmere" is no node "moorland parish west": the place lies west of Dunmere,
    :func:`core.backends.spacy_places.direction`), else at the chunk's end."""
    root = nc.root
    if not (root.is_lower and root.lower_ in _COMPASS and root.i + 1 == nc.end
            and any(c.dep_ == "prep" and c.lower_ == "of" for c in root.children)):
        return int(nc.end)
    end = root.i
    while end > start and (doc[end - 1].text == "-" or (doc[end - 1].is_lower and doc[end - 1].lower_ in _COMPASS)):
        end -= 1
    return end


#: adverbs a noun chunk keeps (:func:`_leading_adverb`)
_KEPT_ADVERBS = frozenset({"just", "even"})


def _leading_adverb(tok: Any, root: Any) -> bool:
    """Whether ``tok`` is an adverb opening the noun chunk of ``root`` before its article: "Harlan Moss, *then* the mayor
    of Calderport" is the mayor as "Harlan Moss, the mayor of Calderport" is (an audit's KG read "Harlan Moss · is ·
    then the mayor", a node of its own); a lower-case adverb of the chunk's head ("later mayor", "now the capital",
    "designed the Kestrel biplane and *later* the Heron flying boat": no node "later the Heron flying boat"). Not
    "just compensation" (an adjective the small model tags an adverb), "even the universities" (a contrast, no
    description of the title), "geologically and geographically part" nor "his then-girlfriend"."""
    return tok.tag_ in ("RB", "RBR") and tok.dep_ == "advmod" and tok.head.i == root.i and tok.is_lower and tok.i < root.i \
        and tok.lower_ not in _KEPT_ADVERBS and not tok.nbor().is_punct and tok.nbor().pos_ != "CCONJ"


def _name_after_modifiers(doc: Any, start: int, root: Any) -> int:
    """Where the name of a common noun's chunk begins after lower-case modifiers: "restored the last surviving Kestrel
    biplane" names the Kestrel biplane, one node with "The Kestrel biplane first flew in 1923" (an audit's KG had a node
    "last surviving Kestrel biplane" beside it). Only lower-case adjectives, participles and adverbs before a
    capitalised proper noun that opens a named entity, with nothing after it but the name's words and lower-case
    nouns up to the head ("the old Lund Harbour lighthouse" is the Lund Harbour lighthouse; "an American Civil War
    nurse" keeps "American", a capitalised word). ``start``: the chunk's first word after its determiners."""
    first = next((t.i for t in doc[start:root.i] if t.pos_ == "PROPN"), None)
    if first is None or first == start or doc[first].ent_iob_ != "B" or not doc[first].text[:1].isupper():
        return start
    if not all(t.is_alpha and t.is_lower and t.pos_ in ("ADJ", "VERB", "ADV") for t in doc[start:first]):
        return start
    if any(t.head.i == root.i and (t.tag_ in ("JJS", "RBS") or t.lower_ in _RANKS) for t in doc[start:first]):
        return start  # "the first Iron Maiden album", "the longest World Series game" pick one out: no node of the kind
    if any(t.lower_ in _NOT_ONE for t in doc[start:first]):
        return start  # "a fictional Boston suburb" is no Boston suburb
    if not all(t.is_alpha and (t.text[:1].isupper() if t.pos_ == "PROPN" else t.is_lower and t.pos_ in
                                ("NOUN", "VERB")) for t in doc[first:root.i + 1]):
        return start
    return first


#: capitalised heads of a body named "<Head> of <Name>" ("the Guild of Sarnebourg Perfumers")
_BODY_HEADS = frozenset({"guild", "society", "company", "academy", "institution", "association", "brotherhood",
                         "fellowship"})


def _body_of_name(doc: Any, out: dict[int, Span]) -> None:
    """"the Guild of Sarnebourg Perfumers" is one name, an ORG: a capitalised body head after "the" (with capitalised
    words before it: "the Royal Society of Arts") and the capitalised words after its "of" (an audit's KG had a node
    "Guild", the small model tagging it a person, and "Sarnebourg Perfumers" apart). Not where "and"/"or" follows."""
    for of in doc:
        x = of.head
        if of.lower_ != "of" or of.dep_ != "prep" or x.i != of.i - 1 or x.lower_ not in _BODY_HEADS \
                or not x.text[:1].isupper() or of.i + 1 >= len(doc):
            continue
        start = x.i
        while start > of.sent.start and _capital_name_word(doc[start - 1], noun=True):
            start -= 1
        if start == of.sent.start or doc[start - 1].lower_ != "the":
            continue
        end = of.i + 1 + (doc[of.i + 1].lower_ == "the")
        while end < of.sent.end and _capital_name_word(doc[end]):
            end += 1
        if end == of.i + 1 + (doc[of.i + 1].lower_ == "the") or (end < len(doc) and doc[end].lower_ in ("and", "or", "&")):
            continue
        spans = {out[i] for i in range(start, end) if i in out}
        if any(s < start or e > end for s, e, _ in spans) or any(lab in VALUE_LABELS for _, _, lab in spans):
            continue
        for i in range(start, end):
            out[i] = (start, end, "ORG")


def _of_name_after_modifiers(doc: Any, out: dict[int, Span]) -> None:
    """A title-case "<Name> of <Name>" after lower-case modifiers is that name: "won the first Tour of Varnholm" won
    the Tour of Varnholm, one node with "She won the Tour of Varnholm" (an audit's KG read "won · tour" and "mentions ·
    Varnholm": the small model tags "first" an ordinal and then no longer sees the name). Only capitalised proper nouns
    before "of" and after it (an article between: "the last King of the Belgians"), with lower-case adjectives,
    participles or adverbs between the article and the name; "the first edition of Varnholm" is no name, nor is one an "and"
    follows ("the dominant Anglicanism of Britain and her colonies": the parse cannot tell what is of what)."""
    for of in doc:
        if of.lower_ != "of" or of.dep_ != "prep" or of.i < 2 or of.head.i != of.i - 1 or of.i + 1 >= len(doc):
            continue
        # "was the last Mayor of Quenby" and "The first Mayor of Quenby would be X" stay a role: "mayor of · Quenby"
        # (spacy_relations); by the verb's own word, the pipeline has no lemmatizer ("be" has no lemma)
        x = of.head
        if x.dep_ in ("attr", "appos") or (x.dep_ == "nsubj" and x.head.lower_ in COPULAS):
            continue
        start = of.i
        while start > of.sent.start and _capital_name_word(doc[start - 1], noun=True):
            start -= 1
        mods = start
        while mods > of.sent.start and doc[mods - 1].is_alpha and doc[mods - 1].is_lower \
                and doc[mods - 1].pos_ in ("ADJ", "VERB", "ADV"):
            mods -= 1
        if start == of.i or mods == start or mods == of.sent.start or doc[mods - 1].lower_ not in _DETERMINERS:
            continue
        end = of.i + 1 + (doc[of.i + 1].lower_ == "the")
        while end < of.sent.end and _capital_name_word(doc[end]):
            end += 1
        if end == of.i + 1 + (doc[of.i + 1].lower_ == "the") or not any(t.head.i == of.i for t in doc[of.i + 1:end]):
            continue
        if end < len(doc) and doc[end].lower_ in ("and", "or", "&"):
            continue  # "the dominant Anglicanism of Britain and her colonies": maybe of several, no name
        spans = {out[i] for i in range(mods, end) if i in out}
        if any(s < mods or e > end for s, e, _ in spans):
            continue  # a mention running past the name's ends: the words are no name of their own
        label = next((lab for s, e, lab in sorted(spans) if s < of.i and lab and lab not in VALUE_LABELS), "")
        for i in range(mods, end):
            out.pop(i, None)
        for i in range(start, end):
            out[i] = (start, end, label)


def _of_name_end(doc: Any, start: int, end: int) -> int:
    """Where an entity the model ended on "of" ends: "the Clock Tower of" runs on over the capitalised name after it
    ("the Great Tenor of Ostrelle", one node with the bell's own page), else it stops before "of" (a name "X of Y"
    never ends in "of"; "the Colonial Conference of 1907", "the Minnesota Wild of the National Hockey League"). The
    name after it is up to three capitalised proper nouns, within one entity where the first is in one ("the
    Communist Party of China First Vice-Chairman …" in a table's text), else outside any, up to the object of "of"; not one a common noun is in apposition to ("the Clock Tower of
    Brannock, a market town": the town's, so the tower is "Clock Tower"), nor one an "and" follows. A lower-case
    entity ("earl of" Pembroke) is left as the model gave it."""
    if not doc[start].text[:1].isupper():
        return end
    j, named = end, doc[end].ent_iob_ != "O" if end < len(doc) else False
    while j < len(doc) and j - end < 3 and _capital_name_word(doc[j]) and doc[j].sent.start == doc[end - 1].sent.start \
            and (j == end or doc[j].ent_iob_ == ("I" if named else "O")):
        j += 1
    obj = next((c.i for c in doc[end - 1].children if c.dep_ == "pobj"), -1)
    if not end <= obj < j or (obj + 1 < len(doc) and doc[obj + 1].lower_ in ("and", "or", "&")) \
            or any(c.dep_ == "appos" and c.pos_ == "NOUN" for t in doc[end:obj + 1] for c in t.children):
        return end - 1
    return obj + 1


def _capital_name_word(tok: Any, noun: bool = False) -> bool:
    """A capitalised proper noun (a noun too where ``noun``: the model tags "King" in "the last King of" a noun)."""
    return tok.pos_ in (("PROPN", "NOUN") if noun else ("PROPN",)) and tok.is_alpha and tok.text[:1].isupper()


def _kind_after_name(doc: Any, chunks: Any, out: dict[int, Span]) -> None:
    """A kind noun after a name is the name: "designed the Quillstone typeface" is Quillstone, one node with
    "Quillstone is a serif typeface" (the chunk made a second node "Quillstone typeface"). Only nouns that name no
    thing of their own (:data:`_KIND_NOUNS`; "the Beatles album" is no Beatles) after capitalised proper nouns."""
    for nc in chunks:
        root = nc.root
        if root.pos_ != "NOUN" or root.lower_ not in _KIND_NOUNS or root.i == 0 or root.i + 1 != nc.end:
            continue
        name = out.get(root.i - 1)
        if name is None or doc[root.i - 1].pos_ != "PROPN" or not all(
                t.pos_ == "PROPN" and t.text[:1].isupper() for t in doc[name[0]:root.i]):
            continue
        if name[1] == root.i:  # an entity ending before the noun
            out[root.i] = name
        elif name[1] == nc.end and out.get(root.i) == name:  # the chunk: its name part alone
            for i in range(name[0], nc.end):
                out[i] = (name[0], root.i, name[2])


def _described(tok: Any) -> bool:
    """A lower-case word the parser tagged a proper noun, no particle of a name ("van", "de"): a description before
    the name ("the typographer Idris Mallow" made the node "typographer Idris Mallow" beside "Idris Mallow")."""
    return tok.pos_ == "PROPN" and tok.text.isalpha() and tok.text.islower() and tok.lower_ not in _PARTICLES


#: the article or possessive a thing given starts with after its recipient ("awarded Varn the/its … Medal")
_GIVEN_DET = frozenset({"the", "a", "an", "its", "his", "her", "their"})


def _double_object(doc: Any, start: int, end: int) -> tuple[int, int] | None:
    """Where an entity runs over a verb's two objects ("awarded [Varn the Lumen Medal]", the model's one
    WORK_OF_ART): (end of the recipient, start of the thing given after its article), else None. The recipient is
    a name the parser made the verb's dative, the thing given what follows its article, inside the entity."""
    for tok in doc[start:end - 1]:
        if tok.dep_ == "dative" and tok.pos_ == "PROPN" and not start <= tok.head.i < end \
                and doc[tok.i + 1].lower_ in _GIVEN_DET:
            rest = tok.i + 1
            while rest < end and doc[rest].lower_ in _GIVEN_DET:
                rest += 1
            return (tok.i + 1, rest) if rest < end else None
    return None


def _overlapping(doc: Any, span: Any) -> list[Any]:
    return [e for e in doc.ents if e.start < span.end and e.end > span.start
            and (e.start < span.start or e.end > span.end)]


def _inside_name(doc: Any, span: Any) -> bool:
    """``span`` is part of a longer name ("Enola Gay" in "Enola Gay Tibbets"), not the title itself."""
    for e in _overlapping(doc, span):
        # an article the model put in front is no word of a longer name ("The Hard Rock Hotel & Casino" before the
        # title "Hard Rock Hotel & Casino Atlantic City")
        extra = [t for t in doc[e.start:e.end] if (t.i < span.start or t.i >= span.end)
                 and not (t.i == e.start and t.lower_ in ("the", "a", "an"))]
        # "of"/"and" inside the rest: "Keldmoor School of Crafts" is no title "Keldmoor" and a "School of Crafts"
        if extra and all(t.text[:1].isupper() or t.like_num or (t.lower_ in ("of", "and") and 0 < k < len(extra) - 1
                                                                 and len(extra) <= 4) for k, t in enumerate(extra)):
            return True
    return False


def _split_rest(doc: Any, span: Any, out: dict[int, Span]) -> None:
    """An entity the parser ran past the title ("The Matrix with Laurence Fishburne"): the rest
    after the title, from its first capitalized word, is a mention of its own."""
    for e in _overlapping(doc, span):
        rest = [t for t in doc[span.end:e.end]]
        caps = [t.i for t in rest if t.text[:1].isupper()]
        if caps:
            for i in range(caps[0], e.end):
                out[i] = (caps[0], e.end, e.label_)
        for t in rest:
            if t.i < (caps[0] if caps else e.end):
                out.pop(t.i, None)


def shares_subject(verb: Any) -> bool:
    """Whether ``verb`` is a verb's complement without a subject of its own, so its doer is that verb's subject:
    "He learned rigging from X" (the parser's "rigging" a verb), "She decided to move to Y"; an audit's KG kept only
    "mentions X". Only a plain or "-ing" verb ("operates scheduled services" is no complement, "wrote Say Hello"
    a title's word), not "asked him to design" (the object's doing), "became the first aircraft to drop" (the
    aircraft's), nor "ceased to be legal tender" (no "is")."""
    return verb.dep_ == "xcomp" and verb.head.pos_ == "VERB" and verb.tag_ in ("VB", "VBG") and \
        verb.text.islower() and verb.lower_ not in COPULAS and not any(c.dep_ in ("nsubj", "nsubjpass", "csubj") for c in verb.children) \
        and not any(c.dep_ in ("dobj", "dative", "attr", "acomp", "oprd") for c in verb.head.children)


def prep_relation(m: Any, verb: Any, prep: Any, role: str, obj: Any, tail: tuple[str, str] | None) -> str | None:
    """The relation of ``verb``'s preposition ``prep`` to its object ``obj`` (``tail``), ``role`` being the verb's
    phrase: "built a warehouse in Stroud Amberley" → "built warehouse in" (an audit's KG read "built in", as if the
    firm itself were built there; the object "a warehouse" is no node), for a named, non-value object, as
    :meth:`_light_object` does where the parser hangs the preposition on the noun. None for a fronted "under" with a generic
    noun phrase ("Under the new owners the works laid …"): no node "new owners", no edge."""
    if prep.lower_ == "under" and prep.i < verb.i and obj.pos_ == "NOUN" and not any(
            t.pos_ == "PROPN" or t.ent_type_ for t in obj.subtree):  # a fronted one: "operated under the binary
        return None  # system" (MuSiQue) says how
    if prep.lower_ in ("by", "of") and tail is not None and tail[1] == "DATE" and re.search(  # "By 1900 it employed":
            r"\d|centur|\bages\b", tail[0], re.IGNORECASE):  # (not "ceded by the Qing dynasty", tagged DATE)
        return None  # a deadline, never the agent ("employed by · 1900"); "the Blue Atlas of 1899" the atlas's ("cut of")
    if tail is None or not tail[1] or tail[1] in VALUE_LABELS or obj.pos_ == "PRON":
        return f"{role} {prep.lower_}"
    for d in verb.children:  # an indefinite bare noun before the preposition: "a warehouse", "a speech"; bare plurals
        if d.dep_ == "dobj" and d.pos_ == "NOUN" and d.i < prep.i and m.mention(d) is None and (any(
                c.dep_ == "det" and c.lower_ in ("a", "an") for c in d.children) or (d.tag_ == "NNS" and not any(
                c.dep_ in ("det", "poss", "nummod", "amod", "compound") for c in d.children))):
            listed = [d] + [c for c in d.subtree if c.dep_ == "conj" and c.pos_ == "NOUN" and c.i < prep.i]
            words = [t.lower_ for t in listed]  # "acquired presses, vans and depots throughout Calderane"
            return f"{role} {', '.join(words[:-1]) + ' and ' if len(words) > 1 else ''}{words[-1]} {prep.lower_}"
    return f"{role} {prep.lower_}"


#: stages of a life: a fronted "As a young woman Vell worked …" says when, never the role "worked as · young woman"
LIFE_STAGES = frozenset({"woman", "man", "girl", "boy", "child", "teenager", "youth", "adult", "baby", "infant",
                         "student", "schoolboy", "schoolgirl", "youngster", "adolescent", "lad", "widow", "widower"})


#: nouns of a quantity or sort: "a number of towns" is no thing "number of towns" (:func:`of_phrase`)
_MEASURES = frozenset({"number", "lot", "series", "group", "variety", "range", "couple", "pair", "kind", "type", "sort",
                       "part", "total", "amount", "member", "piece", "set", "collection", "list", "majority", "bit"})


def of_phrase(m: Any, tok: Any) -> tuple[str, str] | None:
    """The object "a <noun> of <noun>" as one node: "the town built a school of engraving on the quay" → "school of
    engraving" (an audit's KG lost the object, the bare "school" being no node); not a quantity ("a number of towns")."""
    of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    obj = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
    if tok.dep_ != "dobj" or tok.lower_ in _MEASURES or obj is None or obj.pos_ != "NOUN" or any(
            c.dep_ in ("det", "poss", "nummod") for c in obj.children) or not any(
            c.dep_ == "det" and c.lower_ in ("a", "an") for c in tok.children) or any(
            t.pos_ == "PROPN" for t in tok.subtree):  # "a plot of land on Manhattan Island": "purchased plot on"
        return None
    words = [t.lower_ for t in obj.subtree if t.i <= obj.i]  # "a network of major and minor canals"
    return f"{tok.lower_} of {' '.join(words)}", ""


def noun_read_as_verb(verb: Any) -> bool:
    """"bought carts, barges and warehouses across Corvath": the parser's verb "barges", conjoined with the verb
    "bought" and with the noun "warehouses", is a noun of the object list (an audit's KG read "barges across ·
    Corvath"). A verb with no subject of its own, after its head's object, whose own conjunct is a noun."""
    return verb.dep_ == "conj" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children) and any(
        c.dep_ == "conj" and c.pos_ == "NOUN" for c in verb.children) and any(
        c.dep_ == "dobj" and c.i < verb.i for c in verb.head.children)


#: nouns of a place or thing's own measure or make-up: "The population of Tarsk was 400" is Tarsk's (:func:`of_title`)
_OWN_ATTRS = frozenset({"population", "area", "name", "economy", "climate", "history", "geography", "culture", "rest",
                        "part", "majority", "residents", "inhabitants", "citizens", "people", "capital", "surface", "size",
                        "length", "elevation", "total", "office", "headquarters", "territory",
                        "number"})  # "The head office of X stood in Y": the firm's seat


#: near-synonyms a definite description may use for its title's kind: "the firm" of a publisher, "the movie" of a film
#: (:func:`title_kinds`); church words only for a church ("the chapel of the works" is no publisher)
_KIND_GROUPS = tuple(frozenset(g.split()) for g in (
    "town village hamlet city settlement place municipality community locality township commune suburb",
    "company firm business works publisher enterprise corporation manufacturer maker concern brand label retailer",
    "film movie picture", "band group duo trio quartet ensemble", "song single track tune ballad",
    "album record ep lp", "prize award medal trophy honour honor", "church chapel cathedral abbey basilica minster",
    "series show programme program sitcom drama serial", "novel book", "team club side franchise",
    "school college university academy institute", "newspaper paper magazine journal", "ship vessel boat steamer"))


def title_kinds(m: Any) -> tuple[set[str], bool]:
    """The nouns a definite description may use for the passage's title (with their :data:`_KIND_GROUPS`): the title's
    own last word ("the mill" of "Brinmoor Mills"), the kind its disambiguation gives ("(1994 film)"), the kinds the
    text gives ("X is a hamlet", "X, a map publisher"); and whether the text or disambiguation gave one."""
    title = (m.title or "").lower()
    last = title.split(" (", 1)[0].split(",", 1)[0].split()[-1:]
    given = {t.lower_ for t in m.doc if t.dep_ in ("attr", "appos") or (
        t.dep_ == "pobj" and t.head.lower_ == "of" and t.head.head.dep_ in ("attr", "appos"))}
    given |= set(re.findall(r"\((?:[^)]* )?(\w+)\)", title))
    kinds = {w for k in set(last) | given for w in (k, k.rstrip("s"))}
    return kinds | {w for g in _KIND_GROUPS if kinds & g for w in g}, bool(given)


def of_title(m: Any, tok: Any) -> bool:
    """Whether the definite subject ``tok`` names a thing of the title's ("<noun> of <title>"), not the title: its head
    noun is no kind of the title (:func:`title_kinds`), "the chapel of the works was built in 1893" (an audit's KG read
    "Stask Atlas Works · built in · 1893"; a publisher is no chapel), "the fair was started in 1820" in a village's
    passage, while "the film" of a film or "the firm" of a publisher stays the title. Only "the <noun> of <the title>",
    or a bare noun where the text gave the title a kind; never the title's own measure or make-up ("The population of
    Tarsk was 400": :data:`_OWN_ATTRS`), nor a copula's subject ("The first winner of X was Y")."""
    if tok.pos_ != "NOUN" or tok.lower_ in _OWN_ATTRS or tok.head.lower_ in COPULAS:
        return False
    kinds, given = title_kinds(m)
    if tok.lower_ in kinds or tok.lower_.rstrip("s") in kinds:
        return False
    of = any(c.dep_ == "prep" and c.lower_ == "of" and any(
        p.dep_ == "pobj" and (m.mention(p) == (m.title, "TITLE") or p.lower_ in kinds) for p in c.children)  # "of
        for c in tok.children)  # the company" of a cotton firm
    place = bool(kinds & ana.PLACE_NOUNS) or any(t.ent_type_ in ("GPE", "LOC") and m.mention(t) == (m.title, "TITLE")
                                                 for c in tok.children for t in c.children)
    if of and place:  # "the corn exchange of Gaulmere"; not "the version of <song>", "the course of the river"
        return True  # (MuSiQue: a bare or "of" noun of any title made hundreds of wrong own nodes)
    thing = tok.lower_ in _PLACE_THINGS  # in a place's or firm's passage; a fair where the title has any kind (audit 52)
    given, said = given and (bool(kinds & (ana.PLACE_NOUNS | _KIND_GROUPS[1])) or tok.lower_ in _PLACE_THINGS_EVENTS), given
    return ((thing and (of or given)) or ((of or (said and not m._title_person())) and tok.lower_ in _PARTS)) and not any(
        (c.dep_ == "compound" and c.pos_ == "NOUN") or (c.dep_ == "prep" and c.lower_ == "of" and not of)  # "the cellar
        for c in tok.children)  # of the house", "The dome" of a thing given a kind (round 64); not "the church of Saint Edda"


#: parts of a building, their own node "of" it ("The cellar of the house was dug in 1874"), and events (:func:`of_title`)
_PARTS = frozenset("cellar cellars tower roof garden gardens courtyard wing kitchen yard orchard orchards gate spire nave "
                   "bells cloister barn stables warehouse dome".split())
_PLACE_THINGS_EVENTS = frozenset({"fair", "festival", "feast", "carnival", "regatta"})  # "The fair" of a cup
_PLACE_THINGS = _PLACE_THINGS_EVENTS | frozenset({"church", "chapel", "showroom", "school", "library", "museum", "market",
                                                  "mill", "hall", "hospital", "station", "bridge", "fort"})  # of a place/firm
