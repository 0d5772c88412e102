"""What kind of thing a description names, and a proper name its preposition makes a place (the ``spacy`` extractor).

BubbleRAG §3.1 step 2 reads the triples of a passage; :func:`core.backends.spacy_places.located` reads "X is a town in
<place>" as (X, located in, place). Two of an audit's passages gave only ``mentions``, and no "Which city …" question
about the firm could be answered:

* "Lesk Valley Creamery is a dairy in *Caddon Vale*": the small model tagged the unknown place a person's name. After
  "is a <kind> in/at/near", a proper name is where the kind stands, whatever its label, unless the text made it a
  person's (:func:`read_as_place`); a given name + surname look says nothing either way.
* "*Mauncey* and Daughters is a creamery in Ostrel Bay": the small model tagged the title's first word a person's, so
  the title read as a person, who lies nowhere. A creamery is a thing (:func:`is_kind`): what the copula makes it
  stands in the place, whatever the holder's label.
"""

from __future__ import annotations

import re
from typing import Any

from core.backends.spacy_spans import VALUE_LABELS
from core.text import named_person

#: the relation each preposition after a kind noun gives ("a dairy in X", "an inn at X", "a mill near X", "a river port
#: city on the Sela": an audit's KG had no edge from the city to its river)
LOCATED = {"in": "located in", "at": "located at", "near": "located near", "on": "located on"}
#: things that stand in a place, besides :data:`core.backends.spacy_places._THINGS` (settlements, firms, rivers, …)
KINDS = frozenset({
    "dairy", "mill", "farm", "ranch", "vineyard", "orchard", "plantation", "estate", "inn", "pub", "tavern", "hotel",
    "motel", "hostel", "restaurant", "cafe", "café", "market", "factory", "works", "forge", "foundry",
    "quarry", "mine", "shipyard", "dockyard", "dock", "wharf", "pier", "warehouse", "mall", "supermarket", "bookshop",
    "bookstore", "pharmacy", "clinic", "hospital", "hospice", "school", "college", "university", "academy", "institute",
    "library", "museum", "zoo", "aquarium", "park", "garden", "gardens", "cemetery", "churchyard", "chapel", "cathedral",
    "abbey", "monastery", "priory", "convent", "temple", "mosque", "synagogue", "shrine", "monument", "memorial",
    "lighthouse", "fort", "fortress", "palace", "mansion", "hall", "cottage", "villa", "prison", "jail", "gaol",
    "barracks", "observatory", "laboratory", "arena", "venue", "cinema", "racecourse", "canal", "reservoir", "dam",
    "road", "street", "avenue", "square", "plaza", "tunnel", "viaduct", "marina", "beach", "forest", "wood", "woods",
    "valley", "glacier", "waterfall", "cave", "creek", "stream", "bay", "cove", "loch", "township", "hamlet",
    "quarter", "ward", "place", "landmark", "site", "rectory", "armoury", "armory", "dormitory", "conservatory",
    "territory", "depot", "terminal", "stop", "halt", "lock", "spring", "well", "pond", "pool", "island", "islet",
    "highway", "motorway", "route", "trail", "space", "reserve", "sanctuary", "campus", "complex", "formation",
    "peninsula", "cape", "headland", "estuary", "lagoon", "reef", "atoll", "archipelago", "volcano", "crater",
    "basin", "plateau", "desert", "wetland", "marsh", "swamp", "moor", "heath", "glen", "gorge", "canyon", "pass",
    "airfield", "airbase", "base", "camp", "stadium", "ground", "court",
})
#: word ends of things that stand in a place: "ironworks", "sawmill", "farmhouse", "brickyard", "bakery"
_KIND_ENDS = ("works", "mill", "house", "yard", "ery")
#: words ending like a kind that name none ("a mystery in X", "the discovery in X")
_NOT_KINDS = frozenset({"mystery", "discovery", "delivery", "recovery", "surgery", "lottery", "misery", "flattery",
                        "imagery", "machinery", "jewellery", "jewelry", "every", "query", "bravery", "slavery",
                        "archery", "artillery", "cookery", "embroidery", "sorcery", "battery", "celery", "mockery",
                        "trickery", "treachery", "snobbery", "robbery", "bribery", "thievery", "debauchery",
                        "stationery", "scenery", "livery", "artery", "mastery", "forgery",
                        "greenery", "finery", "chicanery", "quackery", "powerhouse"})
#: things whose nouns end like a person's role noun ("-er", "-or", "-ess"): "the river Aske" names no person, so a "he"
#: after it is never Aske (an audit's KG gave "Aske · married · Adela Quarrington" for "In 1866 he married …")
THING_AGENTS = frozenset({
    "river", "water", "tower", "border", "corner", "center", "quarter", "harbor", "manor", "moor", "floor", "door",
    "corridor", "chamber", "shelter", "theater", "crater", "glacier", "pier", "sector", "interior", "exterior",
    "summer", "winter", "number", "chapter", "letter", "paper", "silver", "copper", "timber", "order", "error",
    "mirror", "motor", "reactor", "tractor", "computer", "container", "steamer", "schooner", "freighter", "tanker",
    "trawler", "liner", "destroyer", "cruiser", "carrier", "bomber", "fighter", "airliner", "monitor", "cluster", "register", "charter", "banner",
    "matter", "manner", "dinner", "weather", "thunder", "powder", "ladder", "flower", "power", "shower", "meter",
    "business", "fortress", "congress", "press", "wilderness", "address", "process", "access", "success", "mattress",
    "cypress", "meridian",
})
#: role nouns of people by their ending ("the engraver Pim Rattery"), never a thing named so (:data:`THING_AGENTS`)
AGENT = re.compile(rf"(?!(?:{'|'.join(sorted(THING_AGENTS))})$)" r".{2,}(?:er|or|ist|ian|maker|smith|wright|man|woman|ess)")
#: labels no place has even when misread: values, languages, works ("a village in The Hobbit"), events ("a venue at
#: the 1996 Summer Olympics"), laws; a good's is often an unknown town's ("a wind farm near Ravenshoe")
_NEVER_PLACE = VALUE_LABELS | {"LANGUAGE", "WORK_OF_ART", "EVENT", "LAW"}
#: titles that make a name a person's ("a shop in Mr Brennick's …" is no place)
_HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "dr", "sir", "mr.", "mrs.", "ms.", "dr."})


def is_kind(word: str) -> bool:
    """Whether the lower-case noun ``word`` names a thing that stands in a place ("creamery", "ironworks", "inn"),
    never a person: :data:`KINDS` or one of :data:`_KIND_ENDS` (not :data:`_NOT_KINDS`)."""
    if word in _NOT_KINDS:
        return False
    return word in KINDS or (len(word) > 5 and word.endswith(_KIND_ENDS))


def read_as_place(m: Any, tok: Any) -> tuple[str, str] | None:
    """The name the object ``tok`` of "in"/"at"/"near" after a kind noun heads, read as a place whatever its label:
    "a dairy in Caddon Vale" (tagged PERSON) lies in Caddon Vale. Only a name all proper nouns, never a value, language,
    work, event or law (:data:`_NEVER_PLACE`), nor a name the text made a person's (:meth:`_people_of`, a "he"/
    "she" it stood for, a "Mr"/"Dr" before it); else None."""
    if tok.pos_ != "PROPN":
        return None
    span = m.mention_of.get(tok.i)
    got = m.mention(tok)
    if span is None or got is None or not got[0] or got[1] in _NEVER_PLACE:
        return None
    words = [t for t in m.doc[span[0]:span[1]] if not t.is_punct and t.pos_ != "DET"]
    if not words or any(t.pos_ != "PROPN" for t in words):
        return None
    before = m.doc[span[0] - 1].lower_ if span[0] > 0 else ""
    m._subjects_ready()  # reads each sentence: the names it made people's ("X was born …", "the engraver X")
    if got[0] in m._people or got[0] in m._gender or words[0].lower_ in _HONORIFICS or before in _HONORIFICS:
        return None
    return got


#: offices a person holds, named with a capital ("the first President of Varnholm"), besides role nouns by their ending
#: ("Mayor", "Governor", "Chancellor") and those that give a gender ("King", "Duchess")
_OFFICES = frozenset({"president", "vice-president", "premier", "bishop", "archbishop", "pope", "abbot", "abbess",
                      "prior", "prioress", "sultan", "emir", "tsar", "czar", "khan", "shah", "doge", "consul", "chief",
                      "secretary", "treasurer", "magistrate", "marshal", "admiral", "general", "dean", "provost",
                      "rector", "regent", "viceroy", "earl", "baron", "baroness", "marquess", "margrave", "elector",
                      "chairman", "chairwoman", "chair", "head", "minister", "dauphin", "archduke", "archduchess"})


def office(tok: Any, agent: Any, genders: Any) -> bool:
    """Whether ``tok`` is an office written with a capital and owned by "of": "*President* of Varnholm" in "The first
    President of Varnholm was Bo Lind", "*Mayor*" in "Bo Lind was the first Mayor of Quenby" — one capitalised word
    after "the" (lower-case modifiers between), no word of a longer name (the small model tags it a proper noun, and
    an audit's KG made it a node "President" shared by every country's president). Only an office (:data:`_OFFICES`, a
    role noun by its ending: ``agent``, one that gives a gender: ``genders``); not "the Bank of England"."""
    if tok.pos_ != "PROPN" or not tok.is_alpha or not tok.is_title or tok.ent_type_ or any(
            c.dep_ in ("compound", "poss", "nmod") for c in tok.children):
        return False
    the = next((c for c in tok.children if c.dep_ == "det" and c.lower_ == "the"), None)
    if the is None or not any(c.dep_ == "prep" and c.lower_ == "of" and c.i == tok.i + 1 for c in tok.children):
        return False
    if not all(t.is_alpha and t.is_lower for t in tok.doc[the.i + 1:tok.i]):
        return False  # "the Grand Master of …" is a name's
    word = tok.lower_
    return word in _OFFICES or word in genders or bool(agent.fullmatch(word))


#: labels of a body or place an "its" may stand for when the title is a person ("helped to found the X Federation and
#: became its first president": the federation)
_BODY_LABELS = frozenset({"ORG", "FAC", "GPE", "LOC", "WORK_OF_ART", "EVENT", "PRODUCT"})


def poss_owner(m: Any, poss: Any, holder: tuple[str, str] | None = None) -> tuple[str, str] | None:
    """The owner a possessive ``poss`` stands for (:meth:`mention`); an "its" that reads as no one or as the role's
    ``holder`` (the title a person) is the last body named before it in its sentence: "In 1920 he helped to found the
    Northern Mountaineering Federation and became its first president" (an audit's KG read a node "first president")."""
    got = m.mention(poss)
    if poss.lower_ != "its" or (got is not None and got != holder):
        return got
    for t in reversed(m.doc[poss.sent.start:poss.i]):
        span = m.mention_of.get(t.i)
        if span is not None and span[2] in _BODY_LABELS and t.i == span[1] - 1:
            return m.mention(t)
    return None


def role_owner(m: Any, noun: Any, agent: Any, genders: Any) -> tuple[tuple[str, str], str] | None:
    """(owner, ordinal words) of a role noun a copula or "become" gives its subject: "became its first president" (its
    the federation) → "first president of", "became the first winner of the Silver Piton Award" → "first winner of".
    Only a role (an office, a role noun by its ending: ``agent``, one that gives a gender: ``genders``, or any noun
    after an ordinal) owned by a name other than its holder; the subject takes the role itself, never a node "first
    president" (an audit). None else."""
    if noun.pos_ != "NOUN" or (noun.dep_ != "attr" and not passive_oprd(noun)) or m.role_name(noun) is not None:
        return None
    ordinal = role_words(noun, agent, genders)
    if ordinal is None:
        return None
    holder = m.subject(noun)
    owners = [poss_owner(m, c, holder) for c in noun.children if c.dep_ == "poss"]
    owners += [m.mention(p) for c in noun.children if c.dep_ == "prep" and c.lower_ == "of" for p in c.children
               if p.dep_ == "pobj"]
    owner = next((o for o in owners if o is not None and o[1] and o[1] not in VALUE_LABELS and o != holder), None)
    return None if owner is None else (owner, ordinal)


def role_words(noun: Any, agent: Any, genders: Any, ordinal_role: bool = True) -> str | None:
    """The ordinal words of a role noun ("" for none), or None where ``noun`` is no role: an office, a role noun by
    its ending (``agent``), one that gives a gender (``genders``), or any noun after an ordinal (if ``ordinal_role``:
    not "Usher's fourth studio album, Confessions"). The ordinal counts
    only with no other adjective between: "the first winner", not "the first female head" ("first head")."""
    ordinal = [c.lower_ for c in noun.children if c.dep_ == "amod" and c.ent_type_ == "ORDINAL" and c.i < noun.i
               and not any(t.dep_ in ("amod", "cc", "conj") for t in noun.doc[c.i + 1:noun.i])]
    word = noun.lower_
    if (not ordinal or not ordinal_role) and word not in _OFFICES and word not in genders and not agent.fullmatch(word):
        return None
    return " ".join(ordinal)


#: the head words of a body "the <word>'s" may stand for when the title is such a body
_BODY_HEADS = frozenset({"guild", "society", "academy", "institute", "institution", "company", "association", "league",
                         "union", "club", "board", "trust", "foundation", "federation", "council", "line"})


def body_owner(m: Any, poss: Any) -> tuple[str, str] | None:
    """The title a bare "the guild's" stands for where the title is that body: "the Guild of Skerran Pilots … The
    guild's first president, Matthew Colquhoun," (its last word, or the word before "of"). None else."""
    title = (m.title or "").lower().split()
    word = poss.lower_
    if poss.pos_ != "NOUN" or word not in _BODY_HEADS or not title or not any(c.lower_ == "the" for c in poss.children):
        return None
    if _headed(title, word):
        return m.title, "TITLE"
    # else the one body of that head the passage names ("given by the Guild of Sarnebourg Perfumers … the guild's")
    ends = {e for s, e, lab in m.mention_of.values() if lab and lab not in VALUE_LABELS and lab != "TITLE"
            and _headed([t.lower_ for t in m.doc[s:e]], word)}
    return m.mention(m.doc[ends.pop() - 1]) if len(ends) == 1 else None


def _headed(name: list[str], word: str) -> bool:
    """Whether ``word`` heads the body ``name`` (lower-case words): its last word, or the word before "of"."""
    return bool(name) and (name[-1] == word or any(name[i] == word and name[i + 1] == "of" for i in range(len(name) - 1)))


#: verbs whose passive takes a role as its object complement ("he was elected the first president of X")
_MADE = frozenset({"elected", "appointed", "named", "made", "chosen", "crowned", "installed", "ordained"})


def passive_oprd(tok: Any) -> bool:
    """Whether ``tok`` is the role a passive verb gives its subject: "In 1868 he was elected the first president of
    the Institution of Western Engineers" (an audit's KG read "elected · first president", a node of its own)."""
    # a capitalised office too ("appointed an Officer of the Order of Canada"), no name's word ("named Republiek …")
    return tok.dep_ == "oprd" and (tok.pos_ == "NOUN" or (tok.pos_ == "PROPN" and tok.is_title and not tok.ent_type_ and not any(
        c.dep_ == "compound" for c in tok.children))) and tok.head.lower_ in _MADE and any(c.dep_ == "nsubjpass" for c in tok.head.children)


def agent_attr(tok: Any, agent: Any) -> bool:
    """Whether the name ``tok`` is the subject of "was a <person's role noun>" ("Ilka Fenner was a porcelain
    painter", the name tagged ORG; "a glass engraver" parsed as "glass" with "engraver" in apposition) or of "was a
    <noun> born in …": a person (``agent``, :data:`core.backends.spacy_mentions._AGENT`:
    "The Aske is a river" names none)."""
    if tok.dep_ != "nsubj" or tok.head.lower_ not in ("is", "was"):
        return False
    for attr in (c for c in tok.head.children if c.dep_ == "attr" and c.tag_ == "NN"):
        nouns = [attr, *(a for a in attr.children if a.dep_ == "appos" and a.tag_ == "NN")]
        if any(agent.fullmatch(n.lower_) for n in nouns) or any(
                a.dep_ == "acl" and a.lower_ == "born" for a in attr.children):
            return True
    return False


def shared_surname(tok: Any) -> str | None:
    """The full name of a lone given name ``tok`` joined to a full name that shares its surname: "the brothers Lemuel
    and Gad Stask" are Lemuel Stask and Gad Stask (an audit's KG read "founded by · Lemuel"). Only a one-word proper noun
    before "and" whose conjunct is a given name and surname, the pair after a plural kin noun or both given names."""
    conj = next((c for c in tok.children if c.dep_ == "conj" and c.pos_ == "PROPN"), None)
    if conj is None or tok.ent_type_ in VALUE_LABELS or any(c.dep_ == "compound" for c in tok.children):
        return None
    words = [c for c in conj.children if c.dep_ == "compound" and c.pos_ == "PROPN"] + [conj]
    if len(words) != 2 or words[0].i != tok.i + 2 or tok.doc[tok.i + 1].lower_ != "and":
        return None
    kin = tok.head.lower_ in ("brothers", "sisters", "twins", "cousins", "partners") and tok.dep_ == "appos"
    return f"{tok.text} {conj.text}" if kin or (named_person(f"{tok.text} {conj.text}") and named_person(
        f"{words[0].text} {conj.text}")) else None


#: Words the parser tags as a copula's adjective or noun that read as prepositions or fragments ("was near X in Y",
#: "are about", "is co-…"): no predicate for the copula's relation (MuSiQue, v48).
_NO_PREDICATE = frozenset({"near", "about", "close", "next", "subject", "co", "due", "prior", "opposite", "adjacent"})


def copula_relation(verb: Any, prep: Any, mention: Any) -> str:
    """The relation a copula's own preposition gives: the copula, the predicate the preposition's date or place
    belongs to, the preposition — "was a member of the council for twelve years" → "was member for", "has been open
    to makers since 1975" → "been open since", "has been a museum since 1920" → "been museum since"; with no such
    predicate "was in" ("was in Paris"). Audit 52 read "was for · twelve years" and "been since · 1975": the state
    the time belongs to was lost. Before a date or time a predicate that is a node keeps it here too, with its
    adjectives: "was the head instructor for eighteen years" → "was head instructor for" (audit 53 read "was for")."""
    pred, timed = "", any(g.dep_ == "pobj" and g.ent_type_ in ("DATE", "TIME") for g in prep.children)
    for c in verb.children:
        if not c.text[:1].islower() or c.lower_ in _NO_PREDICATE:  # "Cappy is sold in …", "was near X in Y"
            continue
        if c.dep_ == "acomp" and c.pos_ == "ADJ":
            pred = c.lower_
        elif c.dep_ == "attr" and c.pos_ == "NOUN" and (mention(c) is None or timed):  # a node too, before a time:
            pred = " ".join([*(t.lower_ for t in c.children if t.dep_ in ("compound", "amod") and t.i < c.i and (
                t.text.isalpha() and t.text.islower() and (timed or t.dep_ == "compound"))), c.lower_])  # "was the
            # head instructor for eighteen years" (not "is castle in · Inner Carniola": a place's "is in" stays)
    return " ".join(w for w in ("is" if verb.lower_ == "is" else verb.lower_, pred, prep.lower_) if w)


#: nouns that name a work, for "the painting" after "her best known work, The Fencer at Rest" (:func:`named_kind`)
WORK_KIND = frozenset({"work", "piece", "masterpiece", "statue", "painting", "picture", "portrait", "sculpture", "book",
                        "novel", "poem", "song", "play", "film", "opera", "symphony", "memoir", "album"})


#: a person's role noun ("the winner", "the founder", "the heiress"), and plain words for people: never a thing's name
#: nouns for a body of people that acts as one ("The society meets …. Since 1911 it has awarded …"): "it" may stand
#: for the organisation's name such a noun stands for (:func:`spacy_pronouns._fits`); never a town's act (round 64)
BODY_NOUNS = frozenset({"society", "company", "association", "club", "institute", "academy", "council", "committee",
                        "union", "federation", "league", "foundation", "firm", "guild", "board", "commission",
                        "corporation", "agency", "organisation", "organization", "group"})
_GOVERNING = frozenset({"council", "committee", "board", "commission", "agency"})  # a town's own: "The council built"
_PERSON_NOUN = re.compile(r"(?:er|or|ist|ent|ant|ee|ess|ian)s?$")
_PEOPLE = frozenset({"man", "woman", "son", "daughter", "wife", "husband", "child", "boy", "girl", "king", "queen"})


def named_kind(m: Any, tok: Any) -> tuple[str, str] | None:
    """The name before ``tok`` that ``tok``'s definite noun takes up (audit 53): a name whose head word is the noun
    ("the guild" after "the Hallow Guild of Blades": its word before "of"), or a name the text described as one ("The
    main prize of the tournament is the Drummel Sabre … The prize", "the Tarn Bell, a brass bell … the bell"; a work
    as any work: "her best known work, The Fencer at Rest, … The painting"), the nearest first. None where the title
    is of that kind (its last word, or the text said so): the title's own kind wins."""
    noun, title = tok.lower_, (m.title or "").lower().split()
    if not title or any(c.dep_ == "appos" for c in tok.children):
        return None  # "the British film "Chase a Crooked Shadow"" names its own
    works = frozenset({noun, "work", "piece", "masterpiece"}) if noun in WORK_KIND else frozenset({noun})
    if _headed(title, noun) or (_PERSON_NOUN.search(noun) and noun not in THING_AGENTS) or noun in _PEOPLE:
        return None  # a person's role ("the winner also receives a grant"): each year's, not the one named before
    if title_of_kind(m, works):
        return None  # "Tai Chi 0 is a 2012 film …", "Angel Eyes (film)": "the film" is the title's
    headed = {m.mention(t) for t in m.doc[:tok.i] if t.i in m.mention_of and t.pos_ == "PROPN" and t.lower_ == noun
              and _headed([w.lower_ for w in m.doc[m.mention_of[t.i][0]:m.mention_of[t.i][1]]], noun)} - {None}
    if headed:  # the one name headed by the noun; two ("the College of Engineering … the College of Science"): neither
        got = headed.pop()
        return got if not headed and got[1] != "TITLE" and " " in got[0] else None  # type: ignore[no-any-return]
    for t in reversed(m.doc[:tok.i] if tok.dep_ in ("nsubj", "nsubjpass") else ()):  # a subject: not "featured in the
        # film" after "the British film X" in a film's passage whose first sentence calls it "a production"
        if t.lower_ not in works or t.pos_ != "NOUN" or t.i == tok.i:
            continue
        if t.dep_ == "nsubj" and t.head.lemma_ == "be":  # "The main prize … is the Drummel Sabre"
            named = [c for c in t.head.children if c.dep_ == "attr" and c.pos_ == "PROPN"]
        elif t.dep_ == "attr":  # "X is a prize"
            named = [c for c in t.head.children if c.dep_ == "nsubj"]
        else:  # "X, a brass bell"; "her best known work, The Fencer at Rest"
            named = [t.head] if t.dep_ == "appos" else [c for c in t.children if c.dep_ == "appos"]
        got = m.mention(named[0]) if named and named[0].pos_ == "PROPN" else None
        if got is not None and (got[1] in VALUE_LABELS or len(got[0]) < 3 or any(c.isdigit() for c in got[0])):
            continue  # "The lowest temperature … was −15 °C"
        if got is not None and (got[1] == "TITLE" or got[0] in (m.title or "")):  # "Sullivan's Island is a town"
            return None  # the text made the title one: "The Ostrevel Tournament is a competition … the competition"
        if got is not None:
            return got  # type: ignore[no-any-return]
    return None


def title_of_kind(m: Any, nouns: frozenset[str]) -> bool:
    """Whether the text's first sentence (or the title's brackets) gives the title one of ``nouns`` as its kind: "Tai Chi
    0 … is a 2012 Chinese martial arts film", "Angel Eyes (film)" — a work, whatever its name looks like."""
    sents: list[Any] = []  # the passage's opening, on to its copula: "The Criminal Investigator II (…; lit. "The O
    for sent in m.doc.sents if m.before is None else ():  # Files II") is a 1996 Hong Kong … television drama"; not a
        sents.append(sent)  # passage that goes on from the one before
        if any(t.lemma_ == "be" for t in sent) or len(sents) > 3:
            break
    return any(t.pos_ == "NOUN" and t.lower_ in nouns for sent in sents for t in sent) or (m.title or "").endswith(
        tuple(f"{w})" for w in nouns))


def role_name(role: Any, name: Any, agent: Any) -> bool:
    """Whether ``name``, the attribute of "The first <person's role noun> of X was <name>", is a person's name whatever
    its label: "The first winner of the Drummel Sabre was Ilse Marrow" (untagged; audit 53 read "<title> · was · Ilse
    Marrow" where X was not the title). A proper noun of two words or more, capitalised."""
    return bool(agent.fullmatch(role.lower_)) and name.pos_ == "PROPN" and any(
        c.dep_ == "compound" and c.pos_ == "PROPN" for c in name.children) and name.text[:1].isupper()


def subject_apposition(tok: Any) -> bool:
    """Whether the object ``tok`` describes the subject after a comma: "She won it in 1872, the first person to do so",
    "the youngest farmer to win it" (audit 53 read "Ilse Marrow · won · first person"): the/only/first/superlative, a
    "to"-infinitive after it, and the verb's own object or a comma before it. No node."""
    if tok.dep_ != "dobj" or tok.i == 0 or tok.doc[tok.left_edge.i - 1].text != ",":
        return False
    lead = any(c.dep_ == "amod" and (c.lower_ in ("first", "only", "last") or c.tag_ == "JJS") for c in tok.children)
    return lead and any(c.dep_ in ("relcl", "acl") and any(a.lower_ == "to" for a in c.children) for c in tok.children)


#: words for one of several siblings or children: "the elder became a physician and the younger a grain merchant"
_RANKS = frozenset({"elder", "younger", "eldest", "youngest", "older", "oldest", "former", "latter"})


def sibling_rank(tok: Any) -> bool:
    """Whether ``tok`` is "the elder"/"the younger" standing for one of the people before it ("His sons did not follow
    him; the elder became a physician and the younger a grain merchant": audit 53 gave the father "became physician
    in · Lusk" and "became · younger a grain merchant"), or the gapped clause "the younger a grain merchant" the parser
    joined to the first one's object. No node: which son is no name."""
    if any(c.dep_ == "appos" for c in tok.children):
        return False  # "the elder, Sabeth Tollevane, ran …": that name (spacy_lists.picked_name)
    if tok.lower_ in _RANKS and tok.dep_ in ("nsubj", "nsubjpass") and any(c.lower_ == "the" for c in tok.children):
        return True
    return tok.dep_ == "conj" and any(c.dep_ in ("amod", "nsubj") and c.lower_ in _RANKS and tok.doc[c.i - 1].lower_ == (
        "the") and tok.doc[c.i + 1].lower_ in ("a", "an") for c in tok.children)  # not "the youngest sibling, Virginia"


def not_the_title(m: Any, tok: Any) -> bool:
    """Whether the definite subject ``tok`` ("the <noun>") can be no passage title of its kind (audit 55, the class
    "a plural or unnamed 'the <noun>' subject is not the title"): in a firm's or body's passage a plural ("The last
    apprentices … moved to the railway workshops", "The ledgers fill two rooms" read "Corrick Ironworks · moved to" and
    "Hallow Guild of Blades · fill"), or in a person's passage a noun for no person ("The rack was made by the Corrick
    Ironworks" read "Ansel Brisk · made by"). Never where the noun is the title's kind (a word of the title or one it
    ends in, "The works" of "Corrick Ironworks"; a kind the text or disambiguation gave), nor "the <noun> of <the
    title or its kind>" ("The politics of the state"), nor a place's own people or a family ("The family moved"). An
    event's, show's or song's plural stays its title ("The protests led to …" of "Euromaidan": MuSiQue)."""
    from core.backends.spacy_spans import _KIND_GROUPS, title_kinds  # spacy_spans' callers import this module
    word, kinds = tok.lower_, title_kinds(m)[0]
    title = re.findall(r"\w+", (m.title or "").lower().split(" (", 1)[0])
    stem = word[:-1] if tok.tag_ == "NNS" and word.endswith("s") else word  # the small model has no lemmatizer
    own = {word, stem}
    if own & (kinds | set(title)) or (len(word) > 3 and any(w.endswith(word) or w.startswith(stem) for w in title)):
        return False  # "The revolutions began in Poland" of "Revolutions of 1989"; "the bombs" of "… bombings"
    if own & (_PEOPLE | _OWN_PEOPLE) or of_own(tok, kinds | set(title)):
        return False  # "The effects of the atomic bombings killed …", "the children of X were successful"
    if tok.tag_ == "NN" and kinds & _KIND_GROUPS[0] and (own & _KIND_GROUPS[1] or word in BODY_NOUNS - _GOVERNING):
        return True  # round 64: "Dunmere is a harbour town. … the company opened a puppet school": no town's act
    said = (m.title or "") in m._gender or (named_person(m.title or "") and any(m.mention_of.get(t.i, "")[2:] == (  # "X was a
        "TITLE",) and agent_attr(t, AGENT) for t in m.doc))  # weaver" with a given name (audit 56); not "Ann Arbor", a bomber
    person = bool(said and m._title_person()) and not _PERSON_NOUN.search(word)  # a plural too: "The looms" (audit 56)
    named = all(w[:1].isupper() for w in (m.title or "").split(" (", 1)[0].split() if w not in _SMALL)
    body = named and (bool((kinds | set(title)) & _BODIES) or any(w.endswith(("works", "mills")) for w in title))
    if any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children):  # another thing's part (audit 56): "The lens
        return person or body  # of that telescope was ground by …" in a firm's passage
    return person or (tok.tag_ == "NNS" and body)  # a named body: not "Institute of technology" (MuSiQue)


def of_own(tok: Any, words: set[str]) -> bool:
    """Whether "the <noun> of …" ``tok`` is of the title, its kind, a pronoun or a name not a person's ("The effects of the atomic bombings" of
    "Atomic bombings of …"; "the rest of it"): the title's own part; "the lens of that telescope" is not (audit 56)."""
    obj = [o for c in tok.children if c.dep_ == "prep" and c.lower_ == "of" for o in c.children if o.dep_ == "pobj"]
    return any(o.pos_ == "PRON" or o.lower_ in words or o.lower_.rstrip("s") in words or (  # a name: the title's under
        o.pos_ == "PROPN" and o.ent_type_ != "PERSON") for o in obj)  # another ("of the Swiss Confederation"), not a person's


#: a place's own people and a family, the title's in its passage ("The inhabitants …", "The family moved to Jena")
_OWN_PEOPLE = frozenset({"inhabitants", "residents", "citizens", "people", "villagers", "townspeople", "locals", "family",
                         "couple", "pair", "duo", "trio"})
_SMALL = frozenset({"of", "the", "and", "for", "in", "on", "at", "de", "&"})
#: a firm's or body's kinds, whose passage's plural "the <noun>" is its people or things, never the body itself
_BODIES = frozenset("company firm business works ironworks publisher enterprise corporation manufacturer maker foundry "
                    "mill mills brewery guild society association union trust council institute academy "
                    "workshop factory yard shipyard library museum school college".split())


def kin_word(noun: Any) -> str:
    """The kin noun ``noun`` as the text wrote it: "brother-in-law", which the tokenizer cuts into "brother - in - law",
    is no "brother" (audit 55, the class "in-law relations": "His brother-in-law, Piet Lorimer," read "Piet Lorimer ·
    brother of · Ansel Brisk"); any other noun its lower-case word."""
    doc, i = noun.doc, noun.i
    if [t.lower_ for t in doc[i + 1:i + 5]] == ["-", "in", "-", "law"]:
        return f"{noun.lower_}-in-law"
    return str(noun.lower_)


def listed_noun_verb(verb: Any) -> bool:
    """Whether the verb ``verb`` is a noun's modifier inside a list of nouns (audit 55, the class "a noun read as a verb
    inside a list"): "built pumps, bridges, rack rails and small steam locomotives" read "rack" as a verb ("Corrick
    Ironworks · rack · small steam locomotives"). A base form with no subject or auxiliary of its own, after a comma
    that follows a plural noun of the list, a noun right after it and an object. No verb: no edge."""
    doc, i = verb.doc, verb.i
    if verb.tag_ != "VB" or i < 2 or i + 1 >= len(doc) or doc[i - 1].text != ",":
        return False
    if doc[i - 2].tag_ not in ("NNS", "VBZ"):  # "lamps, stoves, cook pots": "stoves" tagged a verb too
        return False
    after = doc[i + 1]
    return after.pos_ == "NOUN" and any(c.dep_ == "dobj" for c in verb.children) and not any(
        c.dep_ in ("nsubj", "nsubjpass", "aux", "auxpass", "mark") for c in verb.children)


def title_verb(verb: Any) -> bool:
    """Whether the verb ``verb`` is a word of a work's title (audit 55, the class "a title with a verb in it is a name,
    not a clause"): "a biography of the founder, The Man Who Climbed the Varnholt," read "two books · climbed · Man Who
    Climbed the Varnholt". Capitalised inside its sentence, after a capitalised word: no verb, no edge."""
    doc, i = verb.doc, verb.i
    return i > verb.sent.start + 1 and verb.text[:1].isupper() and doc[i - 1].text[:1].isupper() and doc[i - 1].is_alpha \
        and doc[i - 1].text != "I"


def name_giving(verb: Any) -> bool:
    """Whether ``verb`` gives the noun right before it its name (audit 55, the class "a <noun> named <Name>"): "the son
    of a clockmaker named Tobias Brisk" read "Halverton · named · Tobias Brisk", the parser hanging "named" on "son", the
    apposition of Halverton. A participle "named"/"called" with a proper-noun complement, after a common noun the parser
    hung it on an apposition ("a third movie named "Tai Chi Summit"", "formed a new company made up of both parties
    called X" keep their "named"/"called": MuSiQue)."""
    return verb.dep_ == "acl" and verb.lower_ in ("named", "called") and verb.i > 0 and verb.doc[verb.i - 1].pos_ == (
        "NOUN") and verb.head.i != verb.i - 1 and verb.head.dep_ == "appos" and any(c.dep_ in ("oprd", "dobj", "attr") and c.pos_ == "PROPN" for c in verb.children)


def not_a_verb(verb: Any) -> bool:
    """A verb that is no relation of its own: a noun or a title's word the parser made a verb (:func:`listed_noun_verb`,
    :func:`title_verb`), a name given to the noun before it (:func:`name_giving`); audit 55."""
    return listed_noun_verb(verb) or title_verb(verb) or name_giving(verb)


def _definite_noun(tok: Any) -> bool:
    return tok.pos_ == "NOUN" and any(c.dep_ == "det" and c.lower_ == "the" for c in tok.children)


def _object_verb(c: Any) -> Any:
    """The verb whose own object the conjunct ``c`` is where the parser joined it to a preposition's proper-noun object
    (:func:`conjuncts_of`), else None."""
    h = c.head
    if c.dep_ != "conj" or not _definite_noun(c) or h.dep_ != "pobj" or h.pos_ != "PROPN":
        return None
    verb = h.head.head if h.head.head.pos_ == "VERB" else h.head.head.head
    obj = next((d for d in verb.children if d.dep_ == "dobj" and d.i < h.i and _definite_noun(d)), None)
    return verb if verb.pos_ == "VERB" and obj is not None else None


def conjuncts_of(tok: Any) -> list[Any]:
    """The later conjuncts of ``tok`` (audit 55, the class "a conjoined object taken as the object of the preposition"):
    "built the iron footbridge over the Sable at Halverton and the winding gear of the Kessing Quarry" joins "the
    winding gear" to "the Sable", which read "Corrick Ironworks · built over · winding gear". A definite common noun
    joined to a preposition's proper-noun object, where the verb has a definite common-noun object before it, is that
    object's conjunct: the verb's object, no object of the preposition."""
    own = [c for c in tok.conjuncts if c.i > tok.i and _object_verb(c) is None]
    if tok.dep_ != "dobj":
        return own
    moved = [c for t in tok.head.subtree if t.dep_ == "pobj" for c in t.conjuncts if _object_verb(c) == tok.head]
    return own + sorted(set(moved), key=lambda t: t.i)
