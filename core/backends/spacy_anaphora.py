"""What a sentence leaves for the next one's pronouns and descriptions besides its subject (the ``spacy`` extractor).

:meth:`core.backends.spacy_mentions._Mentions._sentence_subjects` reads each sentence's subject for the next
sentence's "he"/"she"/"it"; these rules read the rest of it (an audit's seed-nursery corpus bound every one of these
to the wrong entity):

* **The person an object pronoun continues** (centering's *continue* over *shift*): "The gardener Edwin Marlow
  trained under *her* there. *She* bred …" — the "she" is the woman the "her" stood for, not the man named as the
  subject, whose gender the text never gave (:func:`object_referents`).
* **The thing a person acted on**: "She bred the Ashcombe Pearl pea in 1840. *It* was later sold …" — a person is
  no "it", so the "it" is the sentence's thing object (:func:`thing_object`).
* **The parties of a sale**: "The nursery was sold to the Brackwell Seed Company. *The buyer* kept …" — the buyer
  is whom it was sold to, the seller who sold it (:func:`sale_parties`, :data:`PARTIES`).
* **A place noun and the name after "of"**: "founded … in *the river town of Dellmouth*" — Dellmouth, as "the harbour
  town Kestrel Bay" is Kestrel Bay (:func:`named_place`).
* **A definite description of a thing named before**: "The company opened *a second greenhouse*. *The greenhouse*
  was designed by …" — the greenhouse, not the passage's title (:func:`earlier_indefinite`).
* **The owner of "Its <noun>"**: "Its first scent, Vell Water, was sold … In 1949 *it* bought …" — the house "Its"
  stood for (:func:`its_owner`).
* **An organisation noun before its name**: "founded *the house Osterby & Daughters*" — the name (:func:`name_after`).
* **A relative's name after a comma**: "She married *Oriel Vantreck's son, Casimir Vantreck*," — Casimir Vantreck
  (:func:`kin_name`).
* **A role noun before a name the parser left loose**: "She … married *the architect Jonas Pell*" — Jonas Pell
  (:func:`loose_name`).
* **A noun and the name it is called**: "was *a tall heron called Master Quill*" — Master Quill (:func:`called_name`).
"""

from __future__ import annotations

from typing import Any

from core.text import normalize_name

#: the value a ``_Mentions`` mention has: (name, entity label)
Mention = tuple[str, str]
#: what a sentence leaves for the next: "he"/"she" -> the person its object pronoun stood for, "it" -> (its thing
#: object, the tag it is read by), "buyer"/"seller" -> the parties of its sale
Others = dict[str, Any]

_SUBJ_DEPS = ("nsubj", "nsubjpass")
#: the verbs of a sale by their forms (the pinned pipeline has no lemmatizer)
_BUY = frozenset({"buy", "buys", "bought", "buying", "purchase", "purchases", "purchased", "acquire", "acquires",
                  "acquired"})
_SELL = frozenset({"sell", "sells", "sold", "selling"})
#: a description of a sale's party -> which party ("the buyer", "the new owner", "the seller")
PARTIES = {"buyer": "buyer", "purchaser": "buyer", "seller": "seller", "vendor": "seller"}
_NEW = frozenset({"new"})
_OLD = frozenset({"former", "previous", "old"})


def party_of(tok: Any) -> str | None:
    """Which party of a sale the noun ``tok`` describes ("buyer", "new owner" → buyer; "former owner" → seller)."""
    word = tok.lower_
    if word in PARTIES:
        return PARTIES[word]
    if word == "owner":
        mods = {c.lower_ for c in tok.children if c.dep_ == "amod"}
        return "buyer" if mods & _NEW else ("seller" if mods & _OLD else None)
    return None


def object_referents(m: Any, sent: Any, prev: Any, persons: list[Mention], subject: Mention | None) -> Others:
    """"he"/"she" -> the person an object "him"/"her" of ``sent`` stands for (read as a "he"/"she" opening ``sent``
    would be), when that is not the sentence's ``subject``."""
    out: Others = {}
    for t in sent:
        if t.tag_ != "PRP" or t.lower_ not in ("her", "him") or t.dep_ in _SUBJ_DEPS:
            continue
        word = "she" if t.lower_ == "her" else "he"
        got = m._he_she(word, prev, persons, t)
        if got[0] and got != subject:
            out.setdefault(word, got)
    return out


def thing_object(m: Any, sent: Any, fits: Any, values: frozenset[str]) -> tuple[Mention, str] | None:
    """(mention, tag) of the main verb's first direct object in ``sent`` where an "it" may stand for it (``fits``)."""
    c: Any = next((c for c in sent.root.children if c.dep_ == "dobj"), None)
    if c is not None and own_thing(m, c, values) == ("", ""):
        return ("", ""), "NN"  # "He started his own band. It toured …": the band, no node (not the title)
    got = m.mention(c) if c is not None else None
    if c is None or got is None or got[1] in values or got[1] == "TITLE":
        return None  # "Sheeran recorded the song …": an object that is no node leaves "it" to the title
    the = c.pos_ == "PROPN" and any(d.dep_ == "det" and d.lower_ == "the" for d in c.children)
    tag = str(c.tag_) + ("+the" if the else "")
    return (got, tag) if fits("it", got, tag) else None


def sale_parties(m: Any, sent: Any) -> Others:
    """{"buyer": …, "seller": …} of the first sale ``sent`` tells: "X sold Y to Z", "Y was sold to Z (by X)",
    "X bought Y from Z", "Y was bought by X"; a party only where the text names it."""
    for verb in sent:
        lemma = verb.lower_
        if verb.pos_ != "VERB" or (lemma not in _BUY and lemma not in _SELL):
            continue
        passive = any(c.dep_ == "nsubjpass" for c in verb.children)
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        by = {p.lower_: g for p in verb.children if p.dep_ in ("prep", "agent", "dative")
              for g in p.children if g.dep_ == "pobj"}
        agent = next((g for p in verb.children if p.dep_ == "agent" for g in p.children if g.dep_ == "pobj"), None)
        doer = agent if passive else subj
        other = by.get("to") if lemma in _SELL else by.get("from")
        roles = {"seller": doer, "buyer": other} if lemma in _SELL else {"buyer": doer, "seller": other}
        out: Others = {}
        for role, tok in roles.items():
            got = m.mention(tok) if tok is not None and tok.pos_ != "PRON" else None
            if got is not None and got[1] not in ("DATE", "CARDINAL", "MONEY"):
                out[role] = got
        if out:
            return out
    return {}


#: things that stand in or by a place and are named after it ("Varn station", "Kestle bridge"): "the station" of a
#: town's passage is the town's station, no description of the town (:func:`named_before`, :func:`titles_kind`)
FACILITIES = frozenset({"station", "airport", "terminal", "stop", "halt", "stadium", "bridge", "tunnel", "lighthouse",
                        "harbour", "harbor", "viaduct", "line"})
_EVENTS = frozenset({"fair", "festival", "regatta", "carnival"})  # "the fair" after "the Wexholm fair" (named_before)


#: nouns of a settlement: "the town" is the one the text described as a town (:func:`described_town`)
SETTLEMENTS = frozenset({"town", "city", "village", "hamlet", "borough", "township"})


def described_town(m: Any, tok: Any) -> Mention | None:
    """The name the text described with ``tok``'s settlement noun in apposition before it: "the town holds a
    festival" after "the Clock Tower of Brannock, a market town" is Brannock in the passage "Brannock Carillon" (an
    audit's KG gave the carillon the festival); None where the text named none, or more than one, or only the title
    (not "Sullivan's Island is a town": an attribute's subject is the passage's own)."""
    if tok.lower_ not in SETTLEMENTS:
        return None
    got, base = set(), (m.title or "").split(",", 1)[0].split(" (", 1)[0]
    for t in m.doc[:tok.i]:
        d = _described_as(t) if t.lower_ == tok.lower_ else None
        if d is not None and d.dep_ == "appos":
            men = m.mention(d.head)
            if men is not None and men[1] and men[1] != "TITLE" and men[0] != base:
                got.add(men)
    return got.pop() if len(got) == 1 else None


def named_before(m: Any, tok: Any) -> Mention | None:
    """The name before ``tok`` in its piece whose last word is ``tok``'s noun ("the Stane Workshop" for "the
    workshop"; "Varn railway station" for "the station", a name with a lower-case facility noun,
    :data:`FACILITIES`), the nearest first; None when there is none."""
    noun = tok.lower_
    for i in range(tok.i - 1, -1, -1):
        span = m.mention_of.get(i)
        if span is None or span[1] != i + 1 or m.doc[i].lower_ != noun:
            continue
        if m.doc[i].pos_ != "PROPN" and not (  # not a description: "X is an American radio station"
                noun in FACILITIES | _EVENTS and m.doc[i].pos_ == "NOUN" and _described_as(m.doc[i]) is None
                and m.doc[span[0]].text[:1].isupper()
                and all(t.is_alpha and (t.pos_ in ("PROPN", "NOUN") or t.text[:1].isupper())
                        for t in m.doc[span[0]:span[1]])):  # "Varn station" (the small model: "Varn" an adjective)
            continue
        if span[1] - span[0] >= 2:
            return m.text_of(span), span[2]  # type: ignore[no-any-return]
    return None


def _described_as(tok: Any) -> Any:
    """The copula's attribute or the appositive ``tok`` is the head word of, or ends as a compound ("X is a Canadian
    radio station broadcasting at …": the parser made "station" a compound of "broadcasting"); else None."""
    while tok.dep_ == "compound" and tok.head.i != tok.i:
        tok = tok.head
    return tok if tok.dep_ in ("attr", "appos") else None


def titles_kind(m: Any, tok: Any) -> bool:
    """Whether the definite description ``tok`` ("the station") may be the passage's title: always, except a facility
    (:data:`FACILITIES`) the text never said the title is ("Varn is a metro station"): in a town's passage "The
    station is on the Amber line" is the town's station, not the town (an audit's KG read "New Delhi · located on ·
    Yellow Line"); never the object of a verb whose subject is the title ("he opened the workshop that became X")."""
    if tok.dep_ == "dobj" and any(c.dep_ == "nsubj" and m.mention(c) == (m.title, "TITLE") for c in tok.head.children):
        return False  # an audit's KG read that as "<he> · became · X"
    if tok.lower_ not in FACILITIES:
        return True
    for t in m.doc:
        d = _described_as(t) if t.lower_ == tok.lower_ and t.i != tok.i else None
        if d is not None:
            verb = d.head
            subs = [c for c in verb.children if c.dep_ == "nsubj"] if d.dep_ == "attr" else [verb]
            if any((m.mention_of.get(c.i) or (0, 0, ""))[2] == "TITLE" for c in subs):
                return True
    return False


def earlier_indefinite(m: Any, tok: Any) -> Mention | None:
    """The mention before ``tok`` in its piece that ``tok``'s definite description takes up ("a second greenhouse" …
    "the greenhouse"): same head noun, in this sentence or the one before, introduced with "a"/"an", as an argument of
    its sentence's main verb (not "X is a film", "X, a film" or "classified as a swing state", which name X so), the
    nearest first; ("", "") where that one is no node ("a greenhouse")."""
    start = m.doc[tok.sent.start - 1].sent.start if tok.sent.start > 0 else 0
    for i in range(tok.i - 1, start - 1, -1):
        t = m.doc[i].head if m.doc[i].dep_ in ("compound", "amod") and (m.title or "").istitle() else m.doc[i]  # "a new archive building … The archive" (a named place's; not "the steam" of "Steam engine")
        if t.pos_ != "NOUN" or m.doc[i].lower_ != tok.lower_ or t.dep_ not in ("dobj", "pobj", "nsubj", "nsubjpass"):
            continue
        if not any(c.dep_ == "det" and c.lower_ in ("a", "an", "another") for c in t.children):
            continue  # not "the 1979 election", "each episode"
        verb = t.head.head if t.dep_ == "pobj" else t.head
        if verb.dep_ != "ROOT" or (t.dep_ == "pobj" and t.head.lower_ == "as"):
            continue  # a main verb's ("became the first aircraft to drop an atomic bomb. The bomb …" is the title's)
        got = m.mention(t)
        return got if got is not None and got[1] != "TITLE" else ("", "")  # ("", ""): taken up, but no node
    return None


#: nouns of a place a name after "of" stands for ("the river town of Dellmouth", "the city of Varna")
PLACE_NOUNS = frozenset({"town", "city", "village", "hamlet", "port", "county", "district", "province", "parish",
                         "borough", "municipality", "island", "region", "state", "kingdom", "capital", "settlement"})


#: labels the small model gives an unknown town's name after "the <place noun> of" by mistake
_MISREAD = frozenset({"NORP", "PERSON", "ORG"})


def named_place(m: Any, tok: Any, not_names: frozenset[str]) -> Mention | None:
    """The name a place noun stands for by "of": "the river town of Dellmouth" is Dellmouth (the triple read "founded
    in river town" and lost the place, an audit's KG check). Only a place noun, with "of" right after it: "the mother
    of Lothair II" is not Lothair II. The name is one spaCy labels (not a value: ``not_names``) or all proper nouns,
    or one the small model misread as a people, a person or a firm (:data:`_MISREAD`): the text calls it a town ("the river
    town of Orlesby" tagged a nationality left "founded in river town", an audit's KG check), so it is a place (GPE);
    not "the kingdom of the Franks" (a people, with its article). Never "a town of Cumbria" (one of its towns, not
    Cumbria), nor a copula's or an apposition's "the capital of France", "the largest city of Europe": Paris is no
    France ("Its centre is the town of Belebey" is Belebey)."""
    if tok.lower_ not in PLACE_NOUNS or any(c.dep_ == "det" and c.lower_ in ("a", "an", "another") for c in tok.children):
        return None
    if tok.dep_ in ("attr", "appos") and (tok.lower_ == "capital" or any(
            c.lower_ == "capital" or c.tag_ == "JJS" or c.ent_type_ == "ORDINAL" for c in tok.children)):
        return None
    for p in tok.children:
        if p.dep_ != "prep" or p.lower_ != "of" or p.i != tok.i + 1:
            continue
        for c in p.children:
            if c.dep_ == "pobj" and c.pos_ == "PROPN":
                got = m.mention(c)
                span = m.mention_of.get(c.i)
                plain = got is not None and not got[1] and span is not None and all(
                    t.pos_ == "PROPN" for t in m.doc[span[0]:span[1]])
                if got is not None and got[1] in _MISREAD and got[0] and c.tag_ == "NNP" and not any(
                        d.dep_ == "det" for d in c.children):
                    return got[0], "GPE"
                if got is not None and ((got[1] and got[1] not in not_names) or plain):
                    return got  # type: ignore[no-any-return]
    return None


def named_attr(m: Any, verb: Any, values: frozenset[str]) -> tuple[Mention, str] | None:
    """The name a copula gives its common-noun subject ("Her best-known work is the Larkmere Chalice", "Its first
    director was the historian Owen Pike"): what the next sentence's pronoun stands for, with its head's tag."""
    if verb.lower_ not in ("is", "was", "are", "were"):
        return None
    for c in verb.children:
        if c.dep_ == "attr":
            got = m.mention(c)
            if got is not None and got[1] not in values and got[1] != "TITLE" and (got[1] or c.pos_ == "PROPN"):
                named = m.role_name(c) is not None or c.pos_ == "PROPN"
                the = any(d.dep_ == "det" and d.lower_ == "the" for d in c.children) and c.pos_ == "PROPN"
                return (got, "NNP" + ("+the" if the else "")) if named else None
    return None


def its_owner(m: Any, sub: Any, prev: tuple[Mention, str] | None, fits: Any) -> tuple[Mention, str] | None:
    """The owner an "it" after a sentence whose subject is "Its <noun>" stands for: "Its first scent, Vell Water, was
    sold on Quay Street. In 1949 *it* bought Osterby & Daughters" — the house that "Its" stood for, not the scent (an
    audit's KG read "first scent · bought · Osterby & Daughters"). The owner is the sentence before's subject where an
    "it" fits it, else what "Its" stands for (the title); None for any other subject."""
    if sub is None or sub.pos_ != "NOUN" or sub.tag_ != "NN":
        return None
    poss = next((c for c in sub.children if c.dep_ == "poss" and c.lower_ == "its"), None)
    if poss is None:
        return None
    if prev is not None and fits("it", *prev):
        return prev
    got = m.mention(poss)
    return (got, "TITLE" if got[1] == "TITLE" else "NN") if got is not None else None


#: nouns of an organisation a name right after stands for ("the house Osterby & Daughters", "the firm Brask & Co")
ORG_NOUNS = frozenset({"house", "company", "firm", "label", "publisher", "brand", "studio", "workshop", "business",
                       "maker", "manufacturer", "distillery", "brewery", "conglomerate", "bank", "shop", "store"})


def name_after(m: Any, tok: Any, not_names: frozenset[str]) -> Mention | None:
    """The name right after an organisation noun: "She founded the house Osterby & Daughters" is Osterby & Daughters,
    where the small model labels "the house" a name of its own and the parser leaves the name loose (an audit's KG read
    "Greta Osterby · founded · house"). Only an organisation noun after "the", the name starting at the next word."""
    if tok.pos_ != "NOUN" or tok.lower_ not in ORG_NOUNS or tok.i + 1 >= len(m.doc) or not any(
            c.dep_ == "det" and c.lower_ == "the" for c in tok.children):
        return None
    span = m.mention_of.get(tok.i + 1)
    if span is None or span[0] != tok.i + 1 or m.doc[tok.i + 1].pos_ != "PROPN" or span[2] in not_names:
        return None
    return m.text_of(span), span[2]  # type: ignore[no-any-return]


def _appos_name(m: Any, noun: Any, not_names: frozenset[str]) -> Mention | None:
    """The name in apposition after ``noun`` ("her own company, Crane Looms"; "The company, Crane Looms,"): labelled a
    name, or all proper nouns; None otherwise."""
    for c in noun.children:
        if c.dep_ != "appos" or c.pos_ != "PROPN" or c.i < noun.i:
            continue
        got = m.mention(c)
        span = m.mention_of.get(c.i)
        if got is None or not got[0] or got[1] in not_names or got[1] == "TITLE" or span is None:
            continue
        if got[1] or all(t.pos_ == "PROPN" for t in m.doc[span[0]:span[1]] if not t.is_punct):
            return got  # type: ignore[no-any-return]
    # the parser may leave the name loose ("founded her own company, Crane Looms.": "Looms" its root): a name right
    # after the comma, up to a punctuation mark or the sentence's end
    span = m.mention_of.get(noun.i + 2) if noun.i + 2 < noun.sent.end and m.doc[noun.i + 1].text == "," else None
    if span is None or span[0] != noun.i + 2 or span[2] in not_names or span[2] == "TITLE" or not (
            span[1] >= noun.sent.end or m.doc[span[1]].is_punct):
        return None
    if not all(t.pos_ == "PROPN" for t in m.doc[span[0]:span[1]] if not t.is_punct) or any(
            t.head.i < span[0] and t.head.i != noun.i and t.dep_ not in ("ROOT", "appos") for t in m.doc[span[0]:span[1]]):
        return None
    return m.text_of(span), span[2]  # type: ignore[no-any-return]


def _owned_own(tok: Any) -> bool:
    """Whether ``tok`` is a common noun after a possessive and "own": "her own company", "his own studio"."""
    return tok.pos_ == "NOUN" and any(c.lower_ == "own" and c.dep_ == "amod" for c in tok.children) and any(
        c.dep_ == "poss" for c in tok.children)


def own_thing(m: Any, tok: Any, not_names: frozenset[str]) -> Mention | None:
    """What "her own company" names: a possessive, "own" and a common noun is no name (an audit's KG had a node "own
    company" joining every founder's "own company"). The name in apposition ("founded her own company, Crane Looms"),
    else the name a later "The company, X," of the piece gives it, else ("", ""): no node. And "the company" after
    "her own company", with a name in apposition ("The company, Crane Looms, made shawls"), is that name (not the
    passage's title, as a definite description would be). None for any other noun."""
    if _owned_own(tok):
        got = _appos_name(m, tok, not_names)
        if got is not None:
            return got
        for t in m.doc[tok.i + 1:]:
            if t.lower_ == tok.lower_ and t.pos_ == "NOUN" and any(c.dep_ == "det" and c.lower_ == "the"
                                                                  for c in t.children):
                got = _appos_name(m, t, not_names)
                if got is not None:
                    return got
        return "", ""
    if tok.pos_ == "NOUN" and any(c.dep_ == "det" and c.lower_ == "the" for c in tok.children) and any(
            t.lower_ == tok.lower_ and _owned_own(t) for t in m.doc[:tok.i]):
        return _appos_name(m, tok, not_names)
    return None


#: the possessive pronouns :func:`owned_name` reads ("her best-known book, X," is X)
_OWNER_PRONOUNS = frozenset({"her", "his", "its", "their"})


def owned_name(m: Any, tok: Any, not_names: frozenset[str]) -> Mention | None:
    """The name in apposition, after a comma, to a singular common noun owned by a possessive pronoun, with any
    modifiers: "Her best-known book, The Cacao Atlas, … described forty varieties" is The Cacao Atlas (an audit's KG
    had a node "best-known book", shared by every passage using the phrase, and "best-known book · is · Cacao Atlas");
    "her own company, X" is :func:`own_thing`'s, a relative ("his son, X") :func:`kin_name`'s."""
    if tok.pos_ != "NOUN" or tok.tag_ != "NN" or tok.lower_ in FAMILY or tok.i + 1 >= len(m.doc) or \
            m.doc[tok.i + 1].text != "," or not any(c.dep_ == "poss" and c.tag_ == "PRP$" and
                                                    c.lower_ in _OWNER_PRONOUNS for c in tok.children):
        return None
    return _appos_name(m, tok, not_names)


#: nouns of a relative: "X's son, NAME," is NAME
FAMILY = frozenset({"mother", "wife", "daughter", "sister", "widow", "aunt", "niece", "grandmother", "father", "husband",
                    "son", "brother", "widower", "uncle", "nephew", "grandfather", "cousin", "child", "grandson",
                    "granddaughter", "stepson", "stepdaughter", "stepmother", "stepfather", "fiancé", "fiancée"})


def kin_name(m: Any, tok: Any, not_names: frozenset[str]) -> Mention | None:
    """The name in apposition, after a comma, to an owned relative: "She married Oriel Vantreck's son, Casimir
    Vantreck, in 1920" married Casimir Vantreck (an audit's KG kept only "mentions": the bare "son" is no node). Only a
    singular relative with an owner ("X's", "his"), and a person's name: "the Christian saint, Monica" stays the
    appositive rule's."""
    if tok.pos_ != "NOUN" or tok.tag_ != "NN" or tok.lower_ not in FAMILY or not any(
            c.dep_ == "poss" for c in tok.children):
        return None
    for c in tok.children:
        if c.dep_ != "appos" or c.pos_ != "PROPN" or c.i < tok.i or m.doc[tok.i + 1].text != ",":
            continue
        got = m.mention(c)
        span = m.mention_of.get(c.i)
        if got is None or got[1] in not_names or got[1] == "TITLE" or span is None:
            return None
        if got[1] == "PERSON" or all(t.pos_ == "PROPN" for t in m.doc[span[0]:span[1]]):
            return got  # type: ignore[no-any-return]
    return None


#: how the parser may attach a name it left loose after "the <role noun>" (never a clause's subject: "the year Napoleon
#: died", nor a noun's modifier: "In the game Benigno added …", nor an owner: "the museum Smith's papers")
_LOOSE_DEPS = frozenset({"npadvmod", "advmod", "dobj", "appos", "attr", "oprd"})


def loose_name(m: Any, tok: Any, not_names: frozenset[str]) -> Mention | None:
    """The name right after "the <role noun>" that the parser left loose: "She … married *the architect Jonas Pell*"
    married Jonas Pell, as "married Jonas Pell" does (BubbleRAG §3.1 step 2 reads the triples). The small model made
    "Pell" the verb's adverbial and "the architect" its object, so an audit's KG kept only "mentions Jonas Pell". Only a
    singular noun after "the", the name starting at the next word and all proper nouns, not a value's, nationality's or
    language's label, not "'s" after it, and not a clause's subject."""
    nxt = tok.i + 1
    if tok.pos_ != "NOUN" or tok.tag_ != "NN" or nxt >= len(m.doc) or m.doc[nxt].pos_ != "PROPN" or not any(
            c.dep_ == "det" and c.lower_ == "the" and c.i == tok.i - 1 for c in tok.children):
        return None
    span = m.mention_of.get(nxt)
    if span is None or span[0] != nxt or span[2] in not_names or span[2] == "TITLE":
        return None
    words = [t for t in m.doc[span[0]:span[1]] if not t.is_punct]
    roots = [t for t in m.doc[span[0]:span[1]] if not span[0] <= t.head.i < span[1] or t.head.i == t.i]
    if not words or any(t.pos_ != "PROPN" for t in words) or len(roots) != 1 or roots[0].dep_ not in _LOOSE_DEPS:
        return None
    if span[1] < len(m.doc) and m.doc[span[1]].tag_ == "POS":
        return None
    return m.text_of(span), span[2]  # type: ignore[no-any-return]


#: participles that give a thing its name ("a tall heron called Master Quill", "a dog named Rex")
_CALLED = frozenset({"called", "named", "nicknamed"})


def called_name(m: Any, tok: Any, not_names: frozenset[str]) -> Mention | None:
    """The name a common noun is called right after it: "The theatre's most famous figure was a tall heron called
    Master Quill" is Master Quill (an audit's KG read "most famous figure · was · tall heron", the name lost). Only a
    singular noun, "called"/"named" right after it, then a name the small model labels (not a value: ``not_names``) or
    all proper nouns, starting at the next word."""
    if tok.pos_ != "NOUN" or tok.tag_ != "NN":  # not "four terminal buildings named Terminal 1, 2 and 3"
        return None
    of = [c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of" and c.i == tok.i + 1]
    for verb in tok.children:  # "The glasshouse of the gardens, called the Crystal Orangery,": the Crystal Orangery
        if verb.dep_ != "acl" or verb.lower_ not in _CALLED or verb.i != (of[0].right_edge.i + 2 if of and m.doc[
                of[0].right_edge.i + 1].text == "," else tok.i + 1):
            continue
        for c in verb.children:
            if c.dep_ not in ("oprd", "attr", "dobj") or c.pos_ != "PROPN" or c.left_edge.i != verb.i + 1:
                continue
            span = m.mention_of.get(c.i)  # "called the Crystal Orangery": the name after "the"
            if span is None or span[0] - (m.doc[verb.i + 1].text == "the") != verb.i + 1 or span[2] in not_names or (
                    span[2] == "TITLE"):
                return None
            if span[2] or all(t.pos_ == "PROPN" for t in m.doc[span[0]:span[1]] if not t.is_punct):
                return m.text_of(span), span[2]  # type: ignore[no-any-return]
    return None


def titled_owner(m: Any, tok: Any) -> Mention | None:
    """The passage's title for an owner "the <noun>" whose noun ends the title: "The theatre's most famous figure" in
    the Tavrin Marionette Theatre's passage (as "ran the nursery" in Hollin Vale Nursery's: ``_Mentions.mention``)."""
    head = normalize_name(m.title or "").split()
    if tok.dep_ == "poss" and tok.pos_ == "NOUN" and head and head[-1] == tok.lower_ and any(
            c.dep_ == "det" and c.lower_ == "the" for c in tok.children):
        return m.title or "", "TITLE"
    return None


def named_subjects(subs: list[Any]) -> list[Any]:
    """A verb's subjects without a role noun right before a person's name: "The puppeteer Odile Castemar was born in
    Harvoy in 1851", where the parser made "puppeteer" a second subject, which read as the passage's title (an audit:
    "Harvoy · born in · 1851"). Only before a person's name: "The term "Enlightenment" emerged …" is the title's."""
    return [s for s in subs if not (s.pos_ == "NOUN" and any(
        o.pos_ == "PROPN" and o.ent_type_ == "PERSON" and o.left_edge.i == s.i + 1 for o in subs))]


#: a parent's noun -> the pronoun it fits and its place among the parents "the daughter of A and B" names (father first)
_PARENTS = {"father": ("he", 0), "mother": ("she", 1)}
_CHILDREN = frozenset({"daughter", "son", "child"})


def parent_before(m: Any, word: str, tok: Any) -> Mention | None:
    """Whom a "he"/"she" ``tok`` stands for where an owned parent noun of its gender comes before it in its sentence
    and no name there fits: "She learned casting from her father and took charge of the foundry when *he* died in
    1879" is her father, whom "She was the daughter of Matthias Korvane and Idonea Frask" named earlier in the text (A
    the father, B the mother); ("", ""), no one, where the text named no such parent (never the subject: an audit's
    "Elsbet Korvane · died in · 1879"); None without such a noun."""
    kin = next((t for t in m.doc[tok.sent.start:tok.i] if t.lower_ in _PARENTS and _PARENTS[t.lower_][0] == word
                and any(c.dep_ == "poss" for c in t.children)), None)
    if kin is None:
        return None
    at = _PARENTS[kin.lower_][1]
    for child in reversed(m.doc[:tok.sent.start]):
        if child.lower_ not in _CHILDREN:
            continue
        obj = next((o for p in child.children if p.dep_ == "prep" and p.lower_ == "of"
                    for o in p.children if o.dep_ == "pobj"), None)
        names = [] if obj is None else [obj, *obj.conjuncts]
        got = m.mention(names[at]) if len(names) > at else None
        if got is not None and got[1] not in ("TITLE", "DATE", "CARDINAL") and m._gender.get(got[0], word) == word:
            return got  # type: ignore[no-any-return]
    return "", ""


def main_clause(tok: Any) -> bool:
    """Whether ``tok`` is the subject of its sentence's main verb (or of a verb joined to it by "and")."""
    v = tok.head
    while v.dep_ == "conj" and v.head.i != v.i:
        v = v.head
    return str(v.dep_) == "ROOT"
