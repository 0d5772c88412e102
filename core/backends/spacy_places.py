"""Where a described name is from or lies, and what a place's unnamed thing had done to it (the ``spacy`` extractor).

:class:`core.backends.spacy_relations._Piece` reads its relations over the dependency parse; these rules read shapes
whose place hung on a common noun that is no mention (an audit's mountain-railway corpus; BubbleRAG §3.1 step 2, the
triples of a passage):

* **Origin**: "Perpetua Lisle was a painter *from the port city of Saltgrave*" / "X, a weaver from Marlow, …" — the
  place hung on the description "painter", so nothing tied her to it (no "Which city …" about her could be answered).
  A description's "from <name>" is its holder's: (X, from, Saltgrave), the place read as "born in" reads it ("the
  port city of Saltgrave" is Saltgrave) (:func:`origin`).
* **Location**: "The Gannet Incline was a short funicular *in Saltgrave harbour*", "Keldmoor is a town in Cumbria" —
  a thing's (never a person's) description "in <place>" is where the thing lies: (X, located in, Saltgrave), a
  lower-case part of a place after its name ("Saltgrave harbour", "the Ardennes department") being the place
  (:func:`located`); "on" a river too ("a river port city on the Sela", "a market town on the Sela river": located on).
* **A place's unnamed thing**: "*A hotel at its summit* was built by the Pellory Cog Railway" — the subject is a
  common noun, no node, so the builder was lost; the place it stands at or in ("its summit": the mountain's) is the
  subject, the noun joins the relation: (Mount Pellory, hotel built by, Pellory Cog Railway) (:func:`place_owner`),
  as "Its illustrations were painted by X" gives the owner's "illustrations painted by".
* **The agent's place**: "X was founded in 1881 by Z *in the mill town of Y*" — "in" hung on Z's name, so the place
  was only mentioned: (X, founded in, Y) (:func:`agent_place`).
* **A participle after the place**: "X is a dairy in Caddon Vale *founded in 1990 by Z*" — the parser hung the
  participle on the place; it describes the dairy, X: (X, founded by, Z), not (Caddon Vale, founded by, Z)
  (:func:`kind_before_place`).
"""

from __future__ import annotations

from typing import Any

from core.backends import spacy_kinds as kinds
from core.backends.spacy_anaphora import ORG_NOUNS, PLACE_NOUNS
from core.backends.spacy_appositions import names_subject, of_name
from core.backends.spacy_lists import DIRECTIONS
from core.backends.spacy_mentions import _AGENT
from core.backends.spacy_pronouns import ROLE_GENDER
from core.backends.spacy_spans import COPULAS, VALUE_LABELS

#: prepositions that put a described thing in a place ("a dairy in Caddon Vale")
PLACE_PREPS = frozenset({"in", "at", "near", "on", "outside"})
#: labels an origin or a location cannot have: values, nationalities, languages, people
_NO_PLACE = VALUE_LABELS | {"NORP", "LANGUAGE", "PERSON"}
#: labels a location must have, besides a plain proper name no label was given
_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
#: lower-case parts of a place after its name: "Saltgrave harbour" lies in Saltgrave
PLACE_PARTS = frozenset({"harbour", "harbor", "port", "bay", "valley", "district", "county", "region", "province",
                         "department", "parish", "municipality", "borough", "area", "docks", "waterfront",
                         "outskirts", "suburbs", "countryside"})
#: descriptions of a thing, never a person (some end like a role noun: "river", "tower"; a firm the small model took
#: for a man: "Hesketh Electric was an electrical firm in Varnholt"); others follow the holder
_THINGS = PLACE_NOUNS | ORG_NOUNS | {"river", "lake", "mountain", "hill", "peak", "suburb", "neighbourhood", "neighborhood",
                         "community", "commune", "locality", "tower", "manor", "harbor", "harbour", "center", "centre",
                         "theater", "theatre", "station", "airport", "stadium", "church", "museum", "bridge",
                         "railway", "funicular", "castle", "building"}
#: descriptions of a person that end like no role noun ("a student in Paris" is no location of hers)
_PEOPLE = frozenset({"student", "resident", "immigrant", "emigrant", "citizen", "native", "assistant", "pupil",
                     "apprentice", "member", "monk", "nun", "priest", "bishop", "chef", "poet", "pilot", "surgeon",
                     "expert", "official", "chief", "head", "figure", "personality", "celebrity"})
#: waters named by a proper noun before them ("the Sela river"), a place of what lies on or by them
_WATERS = frozenset({"river", "lake", "canal", "creek", "stream", "brook", "loch", "estuary", "fjord"})
#: prepositions by which a common-noun subject stands at or in a place ("A hotel at its summit")
_AT = frozenset({"at", "on", "in", "near", "beside"})




def direction_word(tok: Any) -> str | None:
    """The compass point a lower-case ``tok`` ends ("west", "north-west" over its three tokens), else None."""
    if not tok.is_lower or tok.lower_ not in DIRECTIONS:
        return None
    doc = tok.doc
    if tok.i >= 2 and doc[tok.i - 1].text == "-" and doc[tok.i - 2].lower_ in ("north", "south"):
        return f"{doc[tok.i - 2].lower_}-{tok.lower_}"
    return tok.lower_


def direction(m: Any, tok: Any) -> None:
    """(X, located west of, Y) for "X is a moorland parish west of Y", "X, a village 5 km north of Y", "X lies
    south of Y" ("lies south of"): the compass point is no node (an audit's KG had a node "moorland parish west") and
    the place it is read from is the subject's. Only a lower-case compass point with "of" and a named object."""
    word = direction_word(tok)
    of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None) if word else None
    if of is None:
        return
    tails = [m.mention(p) for p in of.children if p.dep_ == "pobj"]
    # a name the small model tagged a person's is a place all the same: nothing lies west of a person ("Buls Bay")
    tails = [t for t in tails if t is not None and t[0] and t[1] not in VALUE_LABELS | {"NORP", "LANGUAGE"}]
    if not tails:
        return
    head = tok.head
    if tok.dep_ in ("appos", "advmod", "npadvmod") and head.dep_ == "pobj" and head.head.dep_ == "prep":
        # "is located on U.S. Route 52 north of Iaeger", "a peak in Solvay Mountains west of Buls Bay": the parser hung
        # the compass point on the name the subject is on or in; it is the subject's (not the road's)
        tok, head = head.head, head.head.head
    if tok.dep_ in ("advmod", "npadvmod", "prep") and head.pos_ == "VERB":
        # "founded the Mirelund Observatory on the Mirelund ridge, forty kilometres north of Drennick": what was
        # founded there lies north of it, not its founder
        objs = [m.mention(c) for c in head.children if c.dep_ == "dobj"]
        objs = [o for o in objs if o is not None and o[0] and o[1] not in VALUE_LABELS]
        for holder in objs:
            for tail in tails:
                m.add(holder, f"located {word} of", tail)
        if objs:
            return
    if tok.dep_ in ("attr", "appos") or (tok.dep_ in ("advmod", "npadvmod", "amod", "prep") and head.pos_ in (
            "NOUN", "PROPN") and head.dep_ in ("attr", "appos", "nsubj")):
        holders = [m.subject(tok if tok.dep_ in ("attr", "appos") else head)]
        relation = f"located {word} of"
    elif tok.dep_ in ("advmod", "npadvmod", "dobj", "prep") and head.pos_ in ("VERB", "AUX"):
        holders = m._subjects_of(head)
        relation = f"located {word} of" if head.lower_ in COPULAS else f"{m.verb_phrase(head)} {word} of"
    else:
        return
    for holder in holders:
        if holder is not None and holder[1] not in VALUE_LABELS:
            for tail in tails:
                m.add(holder, relation, tail)


def _plain(m: Any, tok: Any) -> bool:
    """Whether the mention ``tok`` heads is all proper nouns (a name the small model left unlabelled)."""
    span = m.mention_of.get(tok.i)
    return span is not None and all(t.pos_ == "PROPN" for t in m.doc[span[0]:span[1]] if not t.is_punct)


def place_of(m: Any, tok: Any, *, person_ok: bool = False) -> tuple[str, str] | None:
    """The place the object ``tok`` of "from"/"in" names: a labelled or all-proper name ("the port city of
    Saltgrave" is Saltgrave, :func:`core.backends.spacy_anaphora.named_place`), the name before a lower-case place
    part ("Saltgrave harbour", :data:`PLACE_PARTS`); else None. ``person_ok``: a one-word name tagged PERSON that the
    text made no person counts (an unknown town the small model took for a surname)."""
    if tok.pos_ == "NOUN" and tok.lower_ in PLACE_PARTS:
        start = tok.i
        while start > tok.sent.start and m.doc[start - 1].pos_ == "PROPN" and m.doc[start - 1].head.i >= start:
            start -= 1  # the proper nouns right before, all inside the phrase ("Port Ellen harbour")
        if start == tok.i or any(c.dep_ == "prep" for c in tok.children):
            return None
        ents = {t.ent_type_ for t in m.doc[start:tok.i]}
        return None if ents & _NO_PLACE else (m.doc[start:tok.i].text, "")
    got = m.mention(tok)
    if got is not None and person_ok and got[1] == "PERSON" and " " not in got[0] and got[0] not in m._people:
        return got[0], ""
    if got is None or not got[0] or got[1] in _NO_PLACE:
        return None
    if got[1] or (tok.pos_ == "PROPN" and _plain(m, tok)):
        return got
    if tok.pos_ == "NOUN" and tok.lower_ in _WATERS and any(c.dep_ == "compound" and c.pos_ == "PROPN" and c.i == tok.i - 1
                                                         for c in tok.children):
        return got  # "a market town on the Sela river": the river named Sela
    return got if tok.pos_ == "NOUN" and m.role_name(tok) == got else None


def _description(m: Any, noun: Any) -> tuple[str, str] | None:
    """The holder of the common-noun description ``noun`` ("a painter" in "X was a painter …", "X, a painter …"),
    when ``noun`` is no name itself; else None."""
    if noun.pos_ != "NOUN" or noun.dep_ not in ("attr", "appos") or m.role_name(noun) is not None:
        return None
    if noun.dep_ == "attr" and noun.head.lower_ not in ("is", "was", "are", "were", "be", "been"):
        return None  # "became mayor of X": a role taken, not what X is
    holder = m.subject(noun)
    return holder if holder is not None and holder[1] not in VALUE_LABELS else None


_NO_MAKERS = VALUE_LABELS | {"GPE", "LOC", "NORP", "FAC", "TITLE"}


def work_by(m: Any, noun: Any) -> None:
    """(X, painting by, Y) for "X is a painting by Y" / "X, a novel by Y," (the residue of audit 53 that audit 55 listed:
    "The Fencer at Rest is a painting by Ilse Drummel." gave only ``mentions``): a work's noun
    (:data:`core.backends.spacy_kinds.WORK_KIND`) right before "by" and a proper name no place's; the title only
    (MuSiQue: "an album by the Philadelphia, Pennsylvania jazz drummer X" named Philadelphia, "the eighth studio album
    by X" held by the description)."""
    if noun.lower_ not in kinds.WORK_KIND or noun.i + 1 >= len(noun.doc) or noun.doc[noun.i + 1].lower_ != "by":
        return
    prep = noun.doc[noun.i + 1]
    makers = [m.mention(p) for p in prep.children if p.dep_ == "pobj" and p.pos_ == "PROPN"] if prep.head == noun else []
    holder = _description(m, noun) if makers else None
    for maker in makers:
        if holder is not None and holder[1] == "TITLE" and maker is not None and maker[1] not in _NO_MAKERS:
            m.add(holder, f"{noun.lower_} by", maker)


def origin(m: Any, noun: Any) -> None:
    """(X, from, place) for "X was a painter from <place>" / "X, a painter from the city of <place>, …"."""
    for prep in noun.children:
        if prep.dep_ != "prep" or prep.lower_ != "from":
            continue
        # after a person's role noun ("a potter from Lanford") a name the small model tagged a person's is a place:
        # "from" a person there reads as nonsense; not after a thing ("a gift from Edwin Marsh")
        agent = noun.tag_ == "NN" and bool(_AGENT.fullmatch(noun.lower_))
        places = [place_of(m, p, person_ok=agent) for p in prep.children if p.dep_ == "pobj"]
        # a place, not an organisation ("a politician from the National Action Party": a member, no origin)
        places = [p for p in places if p is not None and (p[1] in _PLACE_LABELS or p[1] in ("", "TITLE"))]
        holder = _description(m, noun) if places else None
        if holder is None or not holder[1]:
            continue  # a name's only: not "international flights from Khujand Airport"
        for place in places:
            m.add(holder, "from", place)


def located(m: Any, noun: Any) -> None:
    """(X, located in, place) for "X is a town in <place>" / "X was a funicular in <place> harbour": only a thing
    (no person: "a painter in Paris" is no location of hers), only a place (:func:`place_of`) labelled a place or
    all proper nouns. After a kind of thing (:func:`core.backends.spacy_kinds.is_kind`: "a dairy", "an inn") "at"/"near"
    give "located at"/"located near", any proper name no person's is the place (the small model tagged "a dairy in
    Caddon Vale" a person's) and the holder is a thing whatever its label (:mod:`core.backends.spacy_kinds`)."""
    word = noun.lower_
    kind = word in _THINGS or kinds.is_kind(word)
    work_by(m, noun)
    for prep in noun.children:
        relation = kinds.LOCATED.get(prep.lower_)
        if prep.dep_ != "prep" or relation is None or prep.i != noun.i + 1 or (prep.lower_ != "in" and not kind):
            continue
        places = []
        for p in prep.children:
            got = place_of(m, p) if p.dep_ == "pobj" else None
            if got is not None and (got[1] in _PLACE_LABELS or got[1] in ("", "TITLE")):
                places.append(got)
            elif p.dep_ == "pobj" and kind and (got := kinds.read_as_place(m, p)) is not None:
                places.append(got)
        if not places:
            continue
        holder = _description(m, noun)
        if holder is None or not holder[1]:
            continue  # a name's only: not "A cover version … was a pop hit in the U.S."
        # "a village in X" is a place, "a dairy in X" a thing, whatever the small model tagged its name
        if not kind and (word in ROLE_GENDER or word in _PEOPLE or bool(_AGENT.fullmatch(word)) or _person(m, holder)):
            continue
        for place in places:
            m.add(holder, relation, place)


def _person(m: Any, holder: tuple[str, str]) -> bool:
    """Whether ``holder`` is a person's: so labelled or made by the text (the title: its subject tagged PERSON)."""
    m._subjects_ready()  # reads each sentence's subject: a title the text names as a person is one
    # the title by what the text said only: a given name's look guesses ("Hesketh Electric" read as a man's)
    return holder[1] in ("PERSON", "NORP") or holder[0] in m._people or (
        holder[1] == "TITLE" and (m._title_is_person or (m.title or "") in m._gender) and not m._title_thing)


def place_owner(m: Any, verb: Any) -> tuple[tuple[str, str], str] | None:
    """(place, noun) for a passive's subject that is a common noun with "a"/"an", standing at or in a place and no
    node: "A hotel at its summit was built by X" → (Mount Pellory, "hotel"), "its" read as a possessive is (:meth:`_possessor`); "A bridge
    in Keldmoor …" → (Keldmoor, "bridge"). None otherwise."""
    for s in verb.children:
        # a passive's new thing ("A hotel …"): not "Control in Ireland fluxed between …", "the conflict in Asia can be
        # dated back to …" (no thing built, a topic)
        if s.dep_ != "nsubjpass" or s.pos_ != "NOUN" or s.tag_ != "NN" or not any(
                c.dep_ == "det" and c.lower_ in ("a", "an") for c in s.children) or \
                m.mention(s, as_subject=True) is not None or any(c.dep_ == "poss" for c in s.children):
            continue
        for prep in s.children:
            if prep.dep_ != "prep" or prep.lower_ not in _AT or prep.i != s.i + 1:
                continue
            for p in prep.children:
                if p.dep_ != "pobj":
                    continue
                poss = [c for c in p.children if c.dep_ == "poss"]
                place = m._possessor(poss[0]) if poss and p.pos_ == "NOUN" else (
                    place_of(m, p) if p.pos_ == "PROPN" else None)
                if place is not None and place[0] and place[1] not in _NO_PLACE:
                    return place, s.lower_
    return None


def agent_place(m: Any, agent: Any, subjects: list[tuple[str, str]], phrase: str) -> None:
    """(X, founded in, Y) for "X was founded in 1881 by Z in the mill town of Y": the parser hung "in" on the agent's
    name, so the place was only mentioned (an audit's KG check: no "Which town was X founded in"). Only "in" right
    after a name, whose object is a place (:func:`place_of`: "the mill town of Y" is Y) labelled a place or all
    proper nouns."""
    for name in agent.children:
        if name.dep_ != "pobj" or name.pos_ != "PROPN":
            continue
        for prep in name.children:
            if prep.dep_ != "prep" or prep.lower_ != "in" or prep.i != name.i + 1:
                continue
            got = [place_of(m, p) for p in prep.children if p.dep_ == "pobj"]
            for place in got:
                if place is not None and (place[1] in _PLACE_LABELS or place[1] == ""):
                    for s in subjects:
                        m.add(s, f"{phrase} in", place)


def kind_before_place(verb: Any) -> Any:
    """The description a participle after "a <kind> in <Place>" is about: "X is a dairy in Caddon Vale founded in 1990
    by Y" founded the dairy, which the copula makes X, not Caddon Vale the parser hung it on (an audit's KG read
    "Caddon Vale · founded by · Y"). Only a past participle (the small model tags some VBD) right after a proper
    name (not "a house in the village built in 1700"), and only for a description of a copula or apposition, so a
    named thing stands behind it (:func:`founded_holder`)."""
    place = verb.head
    prep = place.head
    kind = prep.head
    if verb.dep_ != "acl" or verb.tag_ not in ("VBN", "VBD") or place.dep_ != "pobj" or place.pos_ != "PROPN" \
            or prep.lower_ not in PLACE_PREPS or kind.pos_ != "NOUN" or kind.dep_ not in ("attr", "appos") \
            or not kind.i < prep.i < place.i < verb.i:
        return None
    # the participle follows the place's last word ("in Caddon Vale, founded …" too)
    between = [t for t in verb.doc[place.i + 1:verb.i] if t.text != ","]
    return kind if not between else None


def named_in_place(m: Any, name: Any, mention: tuple[str, str] | None) -> tuple[str, str] | None:
    """``mention``, the name ``name`` stands for, after adding where it lies: "A street in Harvoy, Castemar Row, …" →
    (Castemar Row, located in, Harvoy), the name :func:`core.backends.spacy_repair.mend_attachments` gave back to the
    noun lying where the noun does. Only a subject's plain name of a thing that lies somewhere: not "a group in New
    Haven, Indiana", nor "His first release in the United States, "Marriage Vow"," (MuSiQue)."""
    noun = name.head
    if mention is None or name.pos_ != "PROPN" or noun.pos_ != "NOUN" or noun.i > name.i \
            or noun.dep_ not in ("nsubj", "nsubjpass") or mention[1] in VALUE_LABELS \
            or not name.left_edge.text[:1].isupper() \
            or name.ent_type_ in ("GPE", "LOC", "WORK_OF_ART", "EVENT", "LAW", "PRODUCT", "NORP", "LANGUAGE"):
        return mention
    for prep in noun.children:
        if prep.dep_ == "prep" and prep.lower_ in PLACE_PREPS and noun.i < prep.i < name.i:
            for place in prep.children:
                got = m.mention(place) if place.dep_ == "pobj" else None
                if got is not None and place.ent_type_ in _PLACE_LABELS:
                    m.add(mention, kinds.LOCATED.get(prep.lower_, "located in"), got)
    return mention


#: verbs whose subject is an organisation or institution: "a maker of wooden beehives founded by X" founded the maker
_FOUNDING = frozenset({"founded", "cofounded", "established", "incorporated"})
#: what may be founded itself ("a network of schools founded by X": the schools may be)
_FOUNDABLE = ORG_NOUNS | {"school", "college", "university", "academy", "institute", "society", "club", "party", "church",
                          "order", "hospital", "museum", "library", "newspaper", "magazine", "journal", "team", "band",
                          "group", "association", "union", "city", "town", "village", "settlement", "colony",
                          "monastery", "abbey", "organization", "organisation", "charity", "foundation", "movement",
                          "league", "network", "chain", "station", "farm", "company", "agency", "institution"}
#: what a founding clause may move to: a firm by what it does ("a maker of …", "a producer of …"), or what may be
#: founded ("a chain of …"); not "the forerunners of the first botanical gardens, founded from the 1540s"
_MAKERS = _FOUNDABLE | {"producer", "supplier", "retailer", "distributor", "builder", "operator", "exporter", "importer",
                        "brewer", "provider", "developer", "seller", "vendor", "printer", "grower", "breeder"}


#: common nouns of a place a thing stands on or by, which a relative clause after "N1 on the N2" is never about
_PLACE_LIKE = frozenset("""brook river stream canal lake pond shore coast bank beach square road street lane hill green
    quay harbour harbor bay valley moor heath ridge island estate common""".split())


def _thing_before_place(verb: Any) -> Any:
    """The noun a "that"/"which" clause after "<N1> on/in/at/by the <place noun>" is about: N1 ("a mill on the Tarrow
    brook that ground corn until 1931" is the mill's; an audit's KG read "Tarrow brook · ground until · 1931"). Not a
    "where" clause, which is the place's; None else."""
    place, rel = verb.head, [c for c in verb.children if c.lower_ in ("that", "which") and c.dep_ != "mark"]
    if verb.dep_ != "relcl" or not rel or place.pos_ != "NOUN" or place.lower_ not in _PLACE_LIKE \
            or place.dep_ != "pobj" or place.head.lower_ not in PLACE_PREPS | {"by", "beside"}:
        return None
    return place.head.head if place.head.head.pos_ == "NOUN" and place.head.head.i < place.i else None


def founded_holder(verb: Any) -> Any:
    """The noun a founding clause is about when the parser hung it on a thing inside the noun before ("X is a maker of
    wooden beehives founded by Y": the maker, which the copula makes X; an audit's KG read "wooden beehives · founded by
    · Y"): a plain common noun after "of"/"for" that cannot be founded itself, after a maker (:data:`_MAKERS`); else
    the noun it hangs on."""
    noun = verb.head
    kind = kind_before_place(verb) or _thing_before_place(verb)
    if kind is not None:
        return kind
    if verb.lower_ not in _FOUNDING or verb.dep_ not in ("acl", "relcl"):
        return noun
    word = noun.lower_
    if noun.pos_ != "NOUN" or noun.ent_type_ or word in _FOUNDABLE or (word[-1:] == "s" and word[:-1] in _FOUNDABLE):
        return noun
    prep = noun.head
    # the maker is the copula's description or a name's appositive: not "the church of the Oratorians, a congregation
    # of secular priests, founded by …", where the parser hung the congregation on the church
    maker = prep.head
    if noun.dep_ == "pobj" and prep.lower_ in ("of", "for") and maker.pos_ == "NOUN" and maker.lower_ in _MAKERS \
            and maker.i < noun.i and (maker.dep_ == "attr" or (maker.dep_ == "appos" and maker.head.pos_ == "PROPN")):
        return maker
    return noun


def among_described(m: Any, verb: Any) -> None:
    """"Among the people born in Tallemont are the mountaineer Marta Velinsky and the painter Oskar Brunt": each name
    the copula lists was born there, (Marta Velinsky, born in, Tallemont) (an audit's KG had only "mentions"). A
    participle with a preposition on the plural noun after a fronted "among"; the names are the copula's subject, its
    conjuncts and theirs."""
    for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ == "among" and c.i < verb.i):
        for noun in (p for p in prep.children if p.dep_ == "pobj" and p.tag_ == "NNS"):
            for part in (a for a in noun.children if a.dep_ == "acl" and a.tag_ == "VBN"):
                names = [s for s in verb.children if s.dep_ == "nsubj" and s.i > verb.i]
                names += [c for s in list(names) for a in (s, *s.children) if a is s or a.dep_ == "appos"
                          for c in a.conjuncts]
                for where in (p for pr in part.children if pr.dep_ == "prep" for p in pr.children if p.dep_ == "pobj"):
                    place = m.mention(where)
                    for n in names:
                        name = m.mention(n)
                        if name is not None and name[1] not in VALUE_LABELS:
                            m.add(name, f"{part.lower_} {where.head.lower_}", place)


def appos_holder(m: Any, noun: Any) -> Any:
    """The token the apposition ``noun`` describes (audit 56, the class "an apposition after a place of birth is the
    person's"): "She was born in Calmouth, the daughter of a harbour pilot" hangs "daughter" on Calmouth (audit 56 read
    "Calmouth · daughter of · harbour pilot"). A kin noun in apposition to a preposition's object the text made a place
    (:meth:`~core.backends.spacy_mentions._Mentions._person`: "born in X") is the verb's subject's; any other apposition
    its head's; a name after "<kin> of <role noun>" the role noun's (:func:`~core.backends.spacy_appositions.of_name`)."""
    head = noun.head
    subject = names_subject(noun)  # "The director of the Dunmere museum, Ysolde Marren, bought": the subject's name
    if subject is not None:  # (audit 57), no "Dunmere museum · is · Ysolde Marren"
        return subject
    if of_name(head, noun):  # "the daughter of the quarry owner Silas Penrose": the owner's name
        return next(o for p in head.children if p.dep_ == "prep" and p.lower_ == "of" for o in p.children)
    if noun.lower_ not in ROLE_GENDER or head.dep_ != "pobj" or head.head.dep_ != "prep":
        return head
    got = m.mention(head)
    subs = [c for c in head.head.head.children if c.dep_ in ("nsubj", "nsubjpass")]
    place = got is not None and (got[1] in ("GPE", "LOC", "FAC") or got[0] in m._places) and not m._person(got, "NNP")
    return subs[0] if place and subs else head
