"""Which pronoun may stand for which mention (:func:`_fits`), and the gender a person's role noun gives
(:data:`ROLE_GENDER`): the small rules :mod:`core.backends.spacy_mentions` reads "he", "she", "it" and "they" by."""

from __future__ import annotations

import re
from typing import Any

from core.backends.spacy_kinds import BODY_NOUNS, is_kind
from core.backends.spacy_lists import WORK_NOUNS
from core.text import named_person

#: role nouns that give a person in apposition a gender ("Kim's mother, Ana Kim, …": Ana Kim is a "she")
ROLE_GENDER = {**dict.fromkeys(("mother", "wife", "daughter", "sister", "widow", "aunt", "niece", "grandmother",
                                "queen", "princess", "empress", "duchess", "countess", "actress"), "she"),
               **dict.fromkeys(("father", "husband", "son", "brother", "widower", "uncle", "nephew", "grandfather",
                                "king", "prince", "emperor", "duke", "count", "actor"), "he")}


#: Entity labels of things "it" may stand for. Not ORG or GPE: the small model labels people ORG
#: ("Keanu Reeves", "Sofia Marrow") and places PERSON, so a bare name is only "he"/"she" when PERSON.
_THING_LABELS = frozenset({"FAC", "PRODUCT", "WORK_OF_ART", "EVENT", "LAW"})


#: Entity labels the small model gives people's names ("Keanu Reeves" ORG, "Agnes Morrow" PRODUCT): "he"/"she" may
#: stand for such a name where :func:`core.text.named_person` reads it as a person's.
_NAME_LABELS = frozenset({"ORG", "PRODUCT", "GPE", "LOC", "NORP", "FAC", "WORK_OF_ART"})


def _fits(pronoun: str, mention: tuple[str, str], tag: str) -> bool:
    """Whether ``pronoun`` can stand for ``mention`` whose head word has the tag ``tag``.

    ``it``: a singular common noun chunk ("the Ostra bridge"), a named thing, a proper name after "the" ("The
    Grey Heron was a steam ferry"), or a common noun that stands for an organisation's name ("the society");
    ``he``/``she``: a
    PERSON entity, or a name of another label that begins with a common given name, neither after "the"; ``they``: a plural noun that
    is no PERSON. Anything else stays the title.
    """
    label = mention[1]
    plural = tag in ("NNS", "NNPS")
    if pronoun == "it":  # "the" before a proper name: a ship, a film, a building, never a person ("The Grey Heron",
        # which the small model tags PERSON, "The Silver Eel", whose "Silver" is a given name)
        # a body's common noun the text gave an organisation's name ("The society meets …" after "the Quorvath
        # Astronomical Society", tag "NN+body"): the text itself called it a body, so no person the small model
        # tagged ORG (not "the river"/"the church", which the name before may not be)
        return not plural and ((not label and tag == "NN") or label in _THING_LABELS or tag == "NNP+the"
                               or (label == "ORG" and tag == "NN+body"))
    if pronoun in ("he", "she"):
        # a name the small model tags otherwise but whose first word is a common given name ("Orla Brisk", ORG)
        return not plural and tag != "NNP+the" and (label == "PERSON" or (label in _NAME_LABELS
                                                                          and named_person(mention[0])))
    return plural and label != "PERSON"  # they


def made_person(m: Any, mention: tuple[str, str]) -> bool:
    """Whether the text made ``mention`` a person, for :class:`core.backends.spacy_mentions._Mentions` ``m``: an
    "it"/"its" never stands for one ("its founder" in the passage "Corwin Abernel" is no edge): a name the text
    called "he"/"she" or made a person, or a title the text made a person or called "he"/"she" and that opens with a
    given name ("Windy Hill Wind Farm", "Galen Peak" and "Red Wave" open with one)."""
    m._subjects_ready()  # not the PERSON label alone: the small model tags "Enola Gay" and "Tully Falls" PERSON
    if mention[1] == "TITLE":  # a "he" with no one before it falls back to the title: "Thinking Out Loud" got one
        # or a title called "he"/"she" that a PERSON-tagged or "born" subject names ("Ismar Tollevane", no given name
        # in the lists: "The company bought leaf … and blended it" read "<company> · blended · Ismar Tollevane"), never
        # one whose brackets name a work ("Wonder Woman (2017 film)", tagged PERSON, "her debut": "It is the fourth …")
        work = " (" in (m.title or "") and m.title.rstrip(")").split()[-1].lower() in _WORKS
        return bool(m.title) and (m.title in m._people or (m.title in m._gender and (named_person(
            m.title.split(" (")[0]) or (m._title_is_person and not m._title_thing and not work))))
    return mention[0] in m._gender or mention[0] in m._people


#: a title's bracketed kind that makes it a work, never a person: "Wonder Woman (2017 film)" (:func:`made_person`)
_WORKS = WORK_NOUNS | {"series", "episode", "musical", "game", "character"}


_WED = frozenset({"married", "wed", "marries", "weds"})


def couple(m: Any, poss: Any) -> list[tuple[str, str]]:
    """The two people a "their" right after a marriage stands for: "Dorr married the teacher Hanna Lind in 1912. Their
    daughter Ilse Dorr …" is Dorr's and Hanna Lind's daughter (an audit's KG had only "mentions · Ilse Dorr"). The
    subject and the object of "married" opening the sentence before, both people the text names; else none."""
    if poss.lower_ != "their" or poss.sent.start == 0:
        return []
    verb = m.doc[poss.sent.start - 1].sent.root
    if verb.lower_ not in _WED:
        return []
    pair = [m.mention(c) for c in verb.children if c.dep_ in ("nsubj", "dobj")]
    pair = [p for p in pair if p is not None and (p[1] == "PERSON" or p[0] in m._gender or (
        p[1] == "TITLE" and m._title_person()))]
    return pair if len(pair) == 2 else []


#: offices of a body: "the founder of Orvenna Rovers" names a club, which a "he"/"she"/"his" never stands for (the small
#: model tags "Orvenna Rovers" PERSON, and an audit's KG read "His father kept an inn" as the club's father)
_BODY_OFFICES = frozenset({"founder", "co-founder", "cofounder", "chairman", "chairwoman", "chairperson", "president",
                           "owner", "member", "player", "captain", "manager", "director", "shareholder", "sponsor",
                           "employee", "coach", "treasurer", "executive", "headquarters", "supporter"})
#: a name's life dates right after it: "Taddeo Brunmark (1884–1949) was …" is a person's passage
_LIFE = re.compile(r"\s*\((?:c\.\s*)?(\d{3,4})\s*[–-]\s*(?:c\.\s*)?(\d{3,4})\)")


def office_of(tok: Any) -> bool:
    """Whether the name ending at ``tok`` is the body of an office: "the founder of X", "a player of X" (no person)."""
    office = tok.head.head
    return tok.dep_ == "pobj" and tok.head.lower_ == "of" and office.pos_ == "NOUN" and (
        office.lower_ in _BODY_OFFICES or office.lower_[:-1] in _BODY_OFFICES)  # no lemmas: "members of X"


def life_dates(tok: Any) -> bool:
    """Whether the name ending at ``tok`` is followed by a lifetime of at most 120 years ("(1884–1949)")."""
    got = _LIFE.match(tok.doc.text, tok.idx + len(tok.text))
    return got is not None and 0 < int(got[2]) - int(got[1]) <= 120


def thing_title(m: Any, sent: Any, sub: Any) -> None:
    """Mark the title of :class:`core.backends.spacy_mentions._Mentions` ``m`` a thing where ``sent``, whose subject
    ``sub`` stands for it, calls it "its" on its own verb ("Brennick Clockworks closed its Ferrow Street workshop") or
    names it by a body noun ("The firm made …"): a firm the small model tagged PERSON, which a "he"/"his" never stands
    for (an audit's KG read "his diaries describe long walks" as the clock maker's)."""
    its = any(t.lower_ == "its" and t.tag_ == "PRP$" and t.head.head.i == sub.head.i for t in sent)
    if not m._title_thing and (its or (sub.pos_ == "NOUN" and sub.lower_ in BODY_NOUNS) or _defined_thing(m, sent)):
        m._title_thing = True  # read with m._title_is_person: the small model's PERSON tag alone made that


#: kinds that make a title a place, a firm, a prize or a building, which a "he"/"him"/"his"/"her" never stands for
#: (:func:`_defined_thing`); not "maker" or "group", which a person or a band may be
_THING_KINDS = frozenset("""town village hamlet city settlement parish county district province region island port
    borough suburb river brook stream lake hill mountain valley street road lane row square bridge company firm business
    works publisher enterprise corporation manufacturer brewery distillery prize award medal cup trophy shield church
    chapel abbey cathedral house inn hall mill farm manor school college museum library station fair festival
    competition contest tournament championship regatta race show exhibition""".split())  # events (audit 53)


def _defined_thing(m: Any, sent: Any) -> bool:
    """Whether ``sent`` (whose subject is the title) defines the title as a thing by a copula's kind ("Skelby is a
    hamlet", "The Tessel Prize is an award"), or the title ends in such a kind ("Brannock Cider House"), and no given
    name opens it: a "him" there is never the title (an audit's KG read "Pellew Row … is named after him" as Skelby)."""
    title = (m.title or "").split(" (", 1)[0]
    if not title or title in m._people:  # the text's own kind first: "Orrin Mill is a water mill" ("Orrin" a given name)
        return False
    attr = [c for c in sent.root.children if c.dep_ == "attr" and c.pos_ == "NOUN"] if sent.root.lemma_ == "be" else []
    kind = attr[0].lower_ if attr else ""  # any kind that stands in a place too: "an astronomical observatory" (audit 56)
    return bool(kind in _THING_KINDS or is_kind(kind)) or (title.split()[-1].lower() in _THING_KINDS and not (
        named_person(title) or title in m._gender))


def personal(m: Any, tok: Any) -> tuple[str, str] | None:
    """What a "his"/"her"/"him" stands for in a passage whose title is a thing (:func:`thing_title`): the person a
    "he"/"she" there would stand for (the previous sentence's subject person, else the last person named), else
    None: never the title."""
    if tok.lower_ not in ("his", "her", "him", "himself", "herself", "he", "she"):
        return (m.title, "TITLE") if m.title else None  # "its", "their", "them": the title, as before
    m._subjects_ready()
    start, word = tok.sent.start, "she" if tok.lower_.startswith(("her", "she")) else "he"
    verb = next((a for a in tok.ancestors if a.pos_ in ("VERB", "AUX")), None)  # never its own clause's subject: "Pellew
    own = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None) if verb is not None and (
        tok.tag_ == "PRP") else None  # a "his" may be its own clause's subject's ("Pellew brought from his workshop")
    near = [p for p in m._named_people(m.doc[start:tok.i], own) if m._sex_fits(p[0], word) and not _kind_named(p[0])]
    if near:  # the nearest person before it in its sentence ("Row … after him"; never "Varnet Lane", tagged PERSON):
        # "the tools that Odran Pellew brought …, and the ledger
        return near[0]  # type: ignore[no-any-return]  # in which he recorded his first sale" (not the cider house)
    persons = [p for p in m._persons.get(start, []) if m._person(p, "NNP") and not re.search(f'["“]{re.escape(p[0])}["”]', m.doc.text)]
    if not m._title_thing and tok.lower_ in ("her", "him"):  # a person's "He succeeded her", the sentence before
        persons += [p for p in earlier_persons(m, tok) if m._person(p, "NNP") and p not in persons]  # no one's (round 62)
    got = m._he_she(word, m._antecedents.get(start), persons, tok)  # no name in quotes ('The name was "Sam Khok"')
    return None if not got[0] or got[1] == "TITLE" else got


#: role nouns of a copula's subject whose attribute is a person: "The first winner of X was Perrin Oakhurst"
_ROLE = re.compile(r"(?:er|or|ist|ent|ant|ee)s?$")


def relative_person(m: Any, word: str, tok: Any) -> tuple[str, str] | None:
    """What the "he"/"she" subject ``tok`` of a relative clause stands for when its sentence's subject is no person
    (:meth:`core.backends.spacy_mentions._Mentions.antecedent`): the person named last before it in the sentence that
    fits ``word``. "The first winner of the Heron Salt Prize was Corra Molgrave, for a flaked salt she made in the white
    salt house at Brennick": Corra made it (an audit's KG read "Heron Salt Prize · made at · Brennick"); the name after "the
    first winner … was" is a person whatever the small model tags it ("Perrin Oakhurst" NORP). None else."""
    if word not in ("he", "she") or tok.head.dep_ != "relcl" or not m._subjects_ready():
        return None
    for t in reversed(m.doc[tok.sent.start:tok.i]):
        main = t.dep_ in ("attr", "appos")  # "was Corra Molgrave", not "the town of Wendlecross, which she ran"
        got = m.mention(t) if t.pos_ == "PROPN" and main else None
        role = t.dep_ == "attr" and any(c.dep_ == "nsubj" and c.pos_ == "NOUN" and _ROLE.search(c.lower_) for c in t.head.children)
        if got is not None and got[1] != "TITLE" and (m._person(got, t.tag_) or role) and m._sex_fits(got[0], word):
            return got  # type: ignore[no-any-return]
    return None


def its_thing(m: Any, poss: Any) -> tuple[str, str] | None:
    """What an "its" of a sentence opening with "Its" stands for when the sentence before's subject is "the <noun> of <Name>", no
    kind of the title: "The church of Saint Edda stands on the hill … Its tower was built in 1512" is the church's
    tower (an audit's KG read "Grisholt · tower built in · 1512"), the node "church of Saint Edda". None else."""
    if poss.lower_ != "its" or poss.doc[poss.sent.start].lower_ != "its" or poss.sent.start == 0:
        return None
    prev = m.doc[poss.sent.start - 1].sent
    sub = next((t for t in prev if t.dep_ in ("nsubj", "nsubjpass") and t.head.dep_ == "ROOT"), None)
    if sub is None or sub.pos_ != "NOUN" or not any(c.dep_ == "det" and c.lower_ == "the" for c in sub.children):
        return None
    from core.backends.spacy_spans import title_kinds  # spacy_spans imports this module's callers
    names = [m.mention(p) for c in sub.children if c.dep_ == "prep" and c.lower_ == "of" for p in c.children
             if p.dep_ == "pobj" and p.pos_ == "PROPN"]
    if not names or names[0] is None or names[0][1] in ("TITLE", "DATE", "CARDINAL") or sub.lower_ in title_kinds(m)[0]:
        return None
    return f"{sub.lower_} of {names[0][0]}", ""


def _kind_named(name: str) -> bool:
    """Whether ``name`` ends in a thing's kind ("Varnet Lane", "Pell Street", tagged PERSON by the small model): no
    person a "his"/"him" stands for (audit 53: "Varnet Lane is named after him … because his family owned …")."""
    return len(name.split()) > 1 and name.split()[-1].lower() in _THING_KINDS


def prep_it_of_object(tok: Any) -> bool:
    """Whether ``tok`` is an "it" after a verb's object and its place's preposition ("his family once owned every house
    on it"): the object's place, not the verb's, so no edge from the verb (audit 53 read "family owned on · <the title>")."""
    prep = tok.head
    return tok.lower_ == "it" and tok.dep_ == "pobj" and prep.lower_ in ("on", "in", "along", "inside", "within") and (
        prep.head.pos_ in ("VERB", "AUX")) and any(  # not "asked the Amex president about it" (MuSiQue)
        c.dep_ == "dobj" and c.i < prep.i for c in prep.head.children)


#: a time clause's words the parser may read as a preposition ("after its manager, X, left"): :func:`its_near`
_TIME_PREPS = frozenset({"after", "before", "until", "when"})


def its_near(m: Any, tok: Any) -> tuple[str, str] | None:
    """What the possessor "its" stands for where the nearest thing of its kind before it is no title (audit 55, the
    class "its = the nearest thing"): the object of the main verb whose time clause "its" opens ("The company closed
    the mill in 1933 after its owner, Ruth Dorsey, died": the mill's owner, not the passage's), and after "The <noun>
    is now the <Name>." the name the copula gave ("The site is now the Halverton Industrial Museum, opened in 1981 …
    Its director is …": the museum's, not the title's). ("", "") where that one is no node; None else."""
    if tok.lower_ != "its" or tok.dep_ != "poss":
        return None
    owned = tok.head
    clause = owned.head.dep_ == "advcl" and owned.dep_ in ("nsubj", "nsubjpass")  # "after its owner … died"
    if (clause or (owned.dep_ == "pobj" and owned.head.lower_ in _TIME_PREPS)) and owned.head.head.pos_ in ("VERB", "AUX"):
        obj = next((c for c in owned.head.head.children if c.dep_ == "dobj" and c.i < tok.i and c.pos_ == "NOUN"
                    and any(d.dep_ == "det" and d.lower_ == "the" for d in c.children)), None)
        if obj is not None:
            return m.mention(obj) or ("", "")
    if m.doc[tok.sent.start].i != tok.i or tok.sent.start == 0:
        return None
    prev = m.doc[tok.sent.start - 1].sent
    root = prev.root
    attr = next((c for c in root.children if c.dep_ == "attr" and c.pos_ == "PROPN"), None)
    sub = next((c for c in root.children if c.dep_ == "nsubj"), None)
    if root.lower_ not in ("is", "was", "are", "were") or attr is None or sub is None or sub.pos_ != "NOUN" or not any(
            c.dep_ == "det" and c.lower_ == "the" for c in sub.children):  # "The site is now …", not "Baure is a …"
        return None
    got = m.mention(attr)
    return got if got is not None and got[1] != "TITLE" and got[1] not in ("PERSON", "DATE", "CARDINAL") else None


def own_object(first: Any, word: str, tok: Any) -> Any:
    """The "him"/"her" object of the verb of the subject ``first`` before the "he"/"she" subject ``tok`` of a later
    clause of its sentence, else None (round 62, the class "a pronoun pair read the wrong way round"). "Ismene Vartan
    took *him* on as an assistant in 1880, after *he* wrote to her": the one she took on is the "he", never Ismene
    (audit 56 read "Ismene Vartan · wrote to · Tobin Ashgrove")."""
    form = {"he": "him", "she": "her"}.get(word)
    if form is None or first.head.i == tok.head.i:
        return None
    verbs = [first.head, *(c for c in first.head.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX"))]
    # a conjunct verb that shares the subject too: "X noticed her drawings and moved *her* to the painting shop, which
    # *she* ran from 1879" is her running it, never X (audit 58, class E read "Lorenz Corvin · ran from · 1879")
    objs = [c for verb in verbs for c in verb.children if c.dep_ in ("dobj", "dative")]
    objs += [o for verb in verbs for p in verb.children if p.dep_ == "prep" for o in p.children if o.dep_ == "pobj"]
    return next((o for o in objs if o.lower_ == form and o.tag_ == "PRP" and o.i < tok.i), None)


def other_sex_title(m: Any, tok: Any) -> bool:
    """Whether the object or possessive pronoun ``tok`` ("her", "him") cannot be the title: the text called the title
    the other pronoun, or the other pronoun subject of its clause stands for the title (round 62: "after he wrote to
    *her*" in Tobin Ashgrove's passage, a "he", is not Tobin; nor "He studied at night and became *her* deputy")."""
    word = {"her": "she", "herself": "she", "him": "he", "himself": "he", "his": "he"}.get(tok.lower_)
    if word is None or not m.title:
        return False
    verb = next((a for a in tok.ancestors if a.pos_ in ("VERB", "AUX")), None)
    while verb is not None and verb.dep_ == "conj" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children):
        verb = verb.head  # "He studied … and became her deputy": the first verb's subject
    sub = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None) if verb is not None else None
    other = sub is not None and sub.tag_ == "PRP" and sub.lower_ == ("he" if word == "she" else "she") and (
        m._title_person())  # a song's "without her, he would die": no person title, no one (MuSiQue)
    said = m._gender.get(m.title, word)  # only a "he" before it that is the title ("Tom Kell, her brother, visited
    called = said != word and any(t.lower_ == said and t.tag_ == "PRP" and t.dep_ in ("nsubj", "nsubjpass") and (  # her.
        m.mention(t) == (m.title, "TITLE")) for t in m.doc[:tok.i])  # He …": a later "he" may be misread)
    return called or (other and m.mention(sub) == (m.title, "TITLE"))


def earlier_persons(m: Any, tok: Any) -> list[tuple[str, str]]:
    """The people named two sentences before ``tok``'s, for a possessive "his"/"her" whose sentence before names no one
    who fits (round 62, the class "a 'her' whose woman is two sentences back"): "The company closed the mill after its
    owner, Ruth Dorsey, died. The apprentices moved to Selby. *Her* sister-in-law, Mara Quist, ran the inn": Ruth
    Dorsey. Read for a possessive in a passage whose title is no person, and for an object "her"/"him" that is not a
    person title (:func:`personal`: "He studied …. He succeeded *her*"); never for a "he"/"she" subject, which so far
    back read "Jeff Bennett · wears · Curious George" and "King of West Francia · was · last monarch" (MuSiQue)."""
    starts = sorted(s for s in m._persons if s < tok.sent.start)
    word = "she" if tok.lower_.startswith(("her", "she")) else "he"  # never one the text called the other (round 64:
    named = {p for s in m._persons if s <= tok.sent.start for p in m._persons[s] if m._person(p, "NNP") and (  # a "he"
        m._sex_fits(p[0], word))}  # of the passage before kept audit 56's "He succeeded her" from Ismene Vartan)
    # only the one person the passage named before it ("… run by Ada Voss …. Then Tom Hale bought it. … Her daughter":
    # two people, no one; a probe read "Lena Morr · daughter of · Tom Hale")
    return list(m._persons[starts[-1]]) if starts and len(named) == 1 else []



def said_first(m: Any, people: list[tuple[str, str]], word: str) -> list[tuple[str, str]]:
    """``people`` (the persons a sentence before named, the last first) with those the text gave ``word``'s gender put
    first (audit 57, a "her" after "the daughter of X"): "he married Philippa Voss, the daughter of the printer Jonas
    Voss. *Her* sister, Clara Voss, …" is the daughter's, a "she" by her role noun, not the father's, whose gender the
    text never gave; the order is otherwise kept."""
    return sorted(people, key=lambda p: m._gender.get(p[0]) != word)


def sentence_person(m: Any, tok: Any, word: str) -> tuple[str, str] | None:
    """In a passage whose title is no person, the person a "his"/"her" ``tok`` stands for when its own sentence named
    one of a fitting gender before it, the last first (audit 57): "After the death of Ida Roe in 1909, the firm passed
    to *her* son Tom Roe" is Ida Roe's, never a woman named in the passage before (the class "a possessive is its own
    sentence's person before the passage before's"). None in a person's passage ("After a concert with X, his career
    …": the title's). After the verb of a passage's first sentence, with no such person, no one (``("", "")``): only a
    pronoun opening the passage reads what the passage before ended on ("After the death of Idris Palemont …, the
    direction of the company passed to *his* daughter Mirela Palemont" read "· daughter of · Hester Moyle", a man
    of the passage before; the small model tags Idris Palemont ORG, no person)."""
    if m._title_person() or not m._subjects_ready():
        return None
    people = [p for p in m._named_people(m.doc[tok.sent.start:tok.i]) if m._sex_fits(p[0], word)]
    if people:
        return said_first(m, people, word)[0]
    return ("", "") if m.before is not None and tok.sent.start == 0 and tok.i > tok.sent.root.i else None


def them_object(m: Any, tok: Any) -> tuple[str, str] | None:
    """What an object "them" ``tok`` stands for where the sentence before ended on a plural common-noun object of its
    main verb: "… bought the papers of Anselm Greaves in 1990. Marren's assistant, Piet Olley, catalogued *them*." (audit
    57's breakers read "Piet Olley · catalogued · Harbour Notes", a title whose last word is plural); ``("", "")``, no
    edge, where that object has no node of its own ("the papers" folded into "bought papers of": round 64, the class "a
    plural pronoun object with no node to take is no edge, never the title"); None otherwise (the title, as before).
    Only the sentence before's own main-verb object ("dobj", tag NNS)."""
    if tok.lower_ != "them" or tok.dep_ != "dobj" or tok.sent.start == 0:
        return None
    before = m.doc[tok.sent.start - 1].sent
    objs = [c for c in before.root.children if c.dep_ == "dobj" and c.tag_ == "NNS" and c.pos_ == "NOUN"]
    if len(objs) != 1:
        return None
    got = m.mention(objs[-1])
    return ("", "") if got is None else got if got[1] != "TITLE" else None


#: the pronouns that give a person a gender
_GENDERED = frozenset({"he", "him", "his", "himself", "she", "her", "hers", "herself"})


def pair_title(m: Any, word: str, tok: Any, prev: Any) -> tuple[str, str] | None:
    """No one (``("", "")``) for a "he"/"she" subject ``tok`` whose own verb has the other pronoun as its object, where
    the text gave neither the person title nor the sentence before's subject a gender yet (round 64, the class "He
    succeeded her"): "Tobin Ashgrove was an astronomer. Ismene Vartan ran the observatory in 1890. *He* succeeded *her*"
    read "Ismene Vartan · succeeded · Tobin Ashgrove". The two pronouns are the title and that subject, in an order
    only the names' genders tell: "Paul Wren ran a school in Vienna. *He* taught *her*" in Anna Brook's passage is the
    other way round. A missing edge is better than a wrong one; the title-first reading made 3 of 6 such probes wrong.
    Never where a gendered pronoun came before ``tok`` ("*His* captain, Ida Roe, trusted him. She promoted him"; "*Her*
    teacher was Paul Wren. He gave her lessons"; "Anna Brook studied with *him*. He taught her"): the pronouns are read
    as before. None otherwise."""
    if word not in ("he", "she") or tok is None or tok.dep_ not in ("nsubj", "nsubjpass") or not m.title:
        return None
    if not m._title_person() or m._gender.get(m.title, word) != word:
        return None
    verb = tok.head
    objs = [c for c in verb.children if c.dep_ in ("dobj", "dative")]
    objs += [o for p in verb.children if p.dep_ == "prep" for o in p.children if o.dep_ == "pobj"]
    if not any(o.lower_ == ("her" if word == "he" else "him") and o.tag_ == "PRP" for o in objs):
        return None
    if any(t.lower_ in _GENDERED and t.pos_ == "PRON" for t in m.doc[:tok.i]):
        return None  # a gender the text gave: "Anna Brook studied with *him*. He taught her" (the "him"'s is the "he")
    if prev is None or prev[1] == "TITLE" or prev[1].startswith("PRON:") or prev[0][0] in m._gender or not m._person(
            *prev):
        return None
    return "", ""
