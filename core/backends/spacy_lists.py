"""Names a sentence lists after a plural noun, and objects a gapped clause shares (the ``spacy`` extractor).

:class:`core.backends.spacy_relations._Piece` reads its relations over the dependency parse; these rules read two
shapes the small parser gets wrong (an audit's type-foundry corpus; BubbleRAG §3.1 step 2, the triples of a passage):

* **A member of a plural noun**: "It is known for its paper mills, *among them the Dwell Paper Mill*" — the parser
  hung the name on "It" as an appositive, which read "<town> · is · Dwell Paper Mill". A name after "among them",
  "including", "such as", "notably" … and a plural noun is one of that noun's things: it takes the relation the noun
  has ("known for", "taught"), else the noun's owner has it ("its breweries, among them X": the town has X), never
  an "is" (:func:`member_of`, :func:`member_edges`).
* **A gapped object**: "The group bought Harrowgate Type Foundry in 1921 *and the Pellham Bindery in 1934*" — the
  parser joined "Bindery" to the verb, not to the first object, so only a title link was left of the purchase. A noun
  joined to a verb that has an object of its own is the verb's object too, with its own date (:func:`gapped_objects`).
* **A list read as an apposition**: "awarded for the best colony, the best comb honey, or for work …" — the parser
  made "the best comb honey" an appositive of "the best colony" ("best colony · is · best comb honey"); a common noun's
  common-noun appositive followed by ", or"/", and" is the next item of a list, a conjunct (:func:`listed_item`).
* **A work's title after its noun and a comma**: "Her best known painting, Saffron Sails at Dusk, shows …" — the small
  model cut the title at "at" ("saffron sails"); capitalised words with lower-case joining words between them, from
  the comma after a work's noun to the next comma, are one name (:func:`work_titles`).
* **A clause read as a noun**: "By 1960 the consortium owned paper mills, an ink works …" — the parser made "the
  consortium owned" an adjective of "mills" (an audit's node "By 1960 the consortium owned paper mills"); "the <noun>
  <past form>" before the noun of a verbless sentence is its subject and verb (:func:`subject_clause`), and "kept the
  X running" has X as its object (:func:`object_complement`).
"""

from __future__ import annotations

from typing import Any

#: what introduces the members of a plural noun after its comma, as lower-case words
_MARKERS = (("among", "them"), ("among", "these"), ("among", "those"), ("among", "which"), ("including",),
            ("such", "as"), ("notably",), ("especially",), ("particularly",), ("chiefly",), ("mainly",),
            ("namely",))
#: words of a marker the parser may put inside the member's own noun chunk ("notably the Dwell Paper Mill")
MARKER_ADVERBS = frozenset({"notably", "especially", "particularly", "chiefly", "mainly", "namely"})
_PLURAL = ("NNS", "NNPS")


#: words that pick one of the people just named ("two daughters, and the elder, Sabeth Tollevane, ran …")
_PICKS = frozenset({"elder", "eldest", "younger", "youngest", "older", "oldest"})


def good_name(name: str) -> bool:
    """A usable node name: has a letter or digit, balanced brackets, mostly Latin letters."""
    if not name or not any(c.isalnum() for c in name) or len(name) > 200:
        return False
    if name.count("(") != name.count(")") or name.count("[") != name.count("]"):
        return False
    letters = [c for c in name if c.isalpha()]
    return not letters or sum(c < "\u0250" for c in letters) >= 0.6 * len(letters)


def picked_name(tok: Any) -> Any:
    """The name after a comma that "the elder"/"the younger"/"the eldest"/"one of them" ``tok`` picks out of the people
    just named: "The couple had two daughters, and the elder, Sabeth Tollevane, later ran the blending room" — the
    elder is Sabeth, the subject of "ran" (an audit's KG read "<title> · is · Sabeth Tollevane" and "<title> · ran");
    None for any other word."""
    if tok.lower_ in _PICKS and tok.pos_ in ("NOUN", "ADJ"):
        if not any(c.dep_ == "det" and c.lower_ == "the" for c in tok.children):
            return None
    elif tok.lower_ != "one" or not any(c.dep_ == "prep" and c.lower_ == "of" and any(
            p.lower_ in ("them", "whom", "these", "those") for p in c.children) for c in tok.children):
        return None
    return next((c for c in tok.children if c.dep_ == "appos" and c.pos_ == "PROPN" and c.i > tok.i
                 and tok.doc[c.left_edge.i - 1].text == ","), None)


def member_of(m: Any, tok: Any) -> Any:
    """The plural noun whose member the mention ``tok`` heads ("its paper mills, among them the Dwell Paper Mill" →
    "mills"): a marker (:data:`_MARKERS`) right before the name, a comma before the marker and a plural noun before
    the comma, in one sentence; else None."""
    doc = m.doc
    span = m.mention_of.get(tok.i)
    start = span[0] if span is not None else min([tok.i, *(c.i for c in tok.children if c.dep_ == "compound")])
    while start < tok.i and (doc[start].pos_ == "DET" or doc[start].lower_ in MARKER_ADVERBS):
        start += 1
    while start > 0 and doc[start - 1].lower_ in ("the", "a", "an"):
        start -= 1
    first = tok.sent.start
    for marker in _MARKERS:
        at = start - len(marker)
        if at - 2 < first or tuple(t.lower_ for t in doc[at:start]) != marker:
            continue
        if doc[at - 1].text == "," and doc[at - 2].tag_ in _PLURAL:
            return doc[at - 2]
    return None


def member_edges(m: Any, tok: Any, plural: Any) -> None:
    """Give the member ``tok`` of ``plural`` (and the names joined to it by "and") the plural noun's relation: its
    verb's ("taught many students, among them X" → taught X; "known for its paper mills, among them X" → known for
    X), else its owner's "has" ("famous for its breweries, among them X" → <owner> · has · X)."""
    members = [m.mention(t) for t in m._conjuncts(tok)]
    verb, rel = plural.head, None
    if plural.dep_ == "dobj" and verb.pos_ == "VERB":
        rel = m.verb_phrase(verb)
    elif plural.dep_ == "pobj" and verb.dep_ == "prep" and verb.head.pos_ == "VERB":
        verb, rel = verb.head, f"{m.verb_phrase(verb.head)} {verb.lower_}"
    subjects = m._subjects_of(verb) if rel is not None and verb.lower_ not in ("is", "was", "are", "were", "be", "been") else []
    if not subjects:
        owner = next((c for c in plural.children if c.dep_ == "poss"), None)
        subjects, rel = ([m._possessor(owner)] if owner is not None else []), "has"
    for s in subjects:
        for x in members:
            m.add(s, rel, x)


def gapped_objects(m: Any, verb: Any, subjects: list[tuple[str, str]], phrase: str) -> None:
    """"bought Harrowgate Type Foundry in 1921 and the Pellham Bindery in 1934": a noun the parser joined to ``verb``
    (``conj``) while the verb has an object of its own is a second object, with its own prepositions ("bought in 1934",
    the object's date too as :func:`core.backends.spacy_dates.date_holders` gives the first's)."""
    if not any(c.dep_ == "dobj" for c in verb.children):
        return
    for c in verb.children:
        if c.dep_ != "conj" or c.pos_ not in ("NOUN", "PROPN") or any(g.dep_ in ("nsubj", "nsubjpass") for g in c.children):
            continue
        obj = m.mention(c)
        if obj is None:
            continue
        for s in subjects:
            m.add(s, phrase, obj)
        for prep in c.children:
            if prep.dep_ != "prep":
                continue
            for p in prep.children:
                if p.dep_ != "pobj":
                    continue
                tail = m.mention(p)
                for s in m.date_holders(verb, prep, tail, subjects, [obj]):
                    m.add(s, f"{phrase} {prep.lower_}", tail)


def named_members(noun: Any) -> list[Any]:
    """The names joined to the first one in apposition to a plural noun: "founded by the brothers Anselm Teskel and
    Joram Teskel" (the noun stands for Anselm Teskel) names Joram Teskel too, who took no edge (an audit). Only a
    plural common noun with a proper noun in apposition right after it, and the proper nouns joined to that one."""
    if noun.tag_ != "NNS":
        return []
    name = next((c for c in noun.children if c.dep_ == "appos" and c.pos_ == "PROPN" and c.left_edge.i == noun.i + 1),
                None)
    return [] if name is None else [c for c in name.conjuncts if c.i > name.i and c.pos_ == "PROPN"]


def listed_item(tok: Any) -> None:
    """Make the appositive ``tok`` a conjunct where it is a list's item (see the module docstring): both nouns common,
    a comma before it and ", or"/", and" right after it ("Vell, a weaver, and Tom Reed" keeps its apposition: a name heads it)."""
    doc = tok.doc
    end = tok.right_edge.i - (tok.right_edge.text == ",")  # the parser may hang the comma on the noun
    if tok.dep_ != "appos" or tok.pos_ != "NOUN" or tok.head.pos_ != "NOUN" or end + 2 >= len(doc) \
            or doc[end + 1].text != "," or doc[end + 2].lower_ not in ("or", "and") or doc[tok.left_edge.i - 1].text != ",":
        return
    tok.dep_ = "conj"


#: nouns of a work whose title may follow them after a comma
WORK_NOUNS = frozenset({"painting", "picture", "portrait", "book", "novel", "poem", "song", "album", "play", "film",
                        "pamphlet", "handbook", "memoir", "essay", "opera", "symphony", "sculpture", "manual",
                        "treatise", "hymn", "ballad", "story", "textbook", "primer", "guide", "history", "diary"})
#: lower-case words that may join the capitalised words of a title ("Twelve Lessons at the Clavier")
_JOIN = frozenset({"a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with"})


def work_titles(doc: Any, taken: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """(start, end, "WORK_OF_ART") of each work's title after "<work noun …>," (see the module docstring): from the
    comma (a work's noun among the five words before it) to the next comma, full stop or semicolon, capitalised words
    with at least one joining word between them ("Notes on Wind"); none an entity holds whole, none in ``taken``."""
    out: list[tuple[int, int, str]] = []
    for tok in doc[:-2]:
        before = doc[max(tok.sent.start, tok.i - 5):tok.i]
        if tok.text != "," or not any(t.lower_ in WORK_NOUNS and t.pos_ == "NOUN" for t in before) \
                or any(t.text == "," for t in before):
            continue
        start = end = tok.i + 1
        while end < tok.sent.end and (doc[end].text[:1].isupper() or doc[end].lower_ in _JOIN) and end - start < 12:
            end += 1
        if end >= len(doc) or doc[end].text not in (",", ".", ";") or not doc[start].text[:1].isupper() \
                or not doc[end - 1].text[:1].isupper() or not any(t.lower_ in _JOIN for t in doc[start + 1:end - 1]):
            continue
        if not any(e.start == start and e.end == end for e in doc.ents) and not any(
                b < end and start < e for b, e, _ in taken + out):
            out.append((start, end, "WORK_OF_ART"))
    return out


def _indefinite_named(tok: Any) -> None:
    """A name in apposition after a place or body that follows "a <noun> in/of": "a peak in the Grauhorn massif, the
    Dorrspitze, is named after him" and "A ferry of the Caledon Line, the MV Isla Dunnet," name the peak and the ferry
    (audits read "Grauhorn massif · is · Dorrspitze"), so the name goes to the indefinite noun."""
    head = tok.head
    if tok.dep_ != "appos" or tok.pos_ != "PROPN" or tok.doc[tok.left_edge.i - 1].text != "," \
            or tok.left_edge.lower_ != "the" or tok.ent_type_ in ("GPE", "LOC") \
            or head.dep_ != "pobj" or head.head.lower_ not in ("in", "of", "on", "at") or head.head.dep_ != "prep":
        return
    noun, after = head.head.head, tok.doc[tok.right_edge.i + 1:tok.right_edge.i + 3]
    if any(c.dep_ in ("conj", "cc") for c in tok.children) or any(t.lower_ in ("and", "or") for t in after):
        return  # "an event on the PGA Tour, the European Tour, and the Japan Golf Tour": a list
    if noun.pos_ == "NOUN" and noun.tag_ == "NN" and any(c.dep_ == "det" and c.lower_ in ("a", "an")
                                                       for c in noun.children):
        tok.head = noun


#: relatives a place cannot be ("born in 1829 in Pellmouth, the daughter of a ship chandler": the subject's)
_KIN_WORDS = frozenset({"daughter", "son", "wife", "husband", "widow", "sister", "brother", "mother", "father", "niece",
                        "nephew", "grandson", "granddaughter"})


def _placed_person(tok: Any) -> None:
    """A relative or a "who" clause the parser hung on a place a person is in or from, where it is the person's: "She
    was born in Pellmouth, the daughter of a ship chandler" (an audit's KG read "Pellmouth · daughter of · ship
    chandler") goes to the verb's subject; "a pilot from Port Ennis who had guided the steamers" (read "Port Ennis ·
    guided · steamers") to the pilot."""
    head = tok.head
    if head.ent_type_ not in ("GPE", "LOC", "FAC") or head.pos_ != "PROPN" or head.dep_ != "pobj" \
            or head.head.dep_ != "prep":
        return
    owner = head.head.head
    if tok.dep_ == "appos" and tok.lower_ in _KIN_WORDS and tok.tag_ == "NN" and owner.pos_ in ("VERB", "AUX"):
        subj = [c for c in owner.children if c.dep_ in ("nsubj", "nsubjpass") and c.pos_ in ("PRON", "PROPN")]
        if len(subj) == 1 and subj[0].lower_ not in ("it", "they", "which", "that"):
            tok.head = subj[0]
    elif tok.dep_ == "relcl" and any(c.dep_ in ("nsubj", "nsubjpass") and c.lower_ == "who" for c in tok.children) \
            and owner.tag_ in ("NN", "NNS") and head.head.lower_ in ("from", "in", "of", "at") and head.head.i - 1 in {owner.i, *(c.i for c in owner.conjuncts)}:
        tok.head = owner


def mend_appositive(tok: Any) -> None:
    """An appositive the parser read wrong: a list's item (:func:`listed_item`) or a work's title hung on a noun after
    the work's own ("a method book for young players, Twelve Lessons at the Clavier, which …": the book's, not the
    players'; an audit read "young players · is · Twelve Lessons …"): the title goes to the work's noun it follows,
    with the relative clause after it."""
    listed_item(tok)
    _indefinite_named(tok)
    _placed_person(tok)
    if tok.dep_ != "appos" or tok.ent_type_ != "WORK_OF_ART" or tok.head.lower_ in WORK_NOUNS or " " not in tok.text \
            or tok.doc[tok.i - 1].text != ",":
        return  # a title :func:`work_titles` made one token only ("rapper Lil Uzi Vert" is no album's title)
    head = tok.head
    while head.head.i != head.i and head.lower_ not in WORK_NOUNS and tok.i - head.i <= 6:
        head = head.head
    if head.lower_ in WORK_NOUNS and head.pos_ == "NOUN" and tok.i - head.i <= 6:
        for c in [c for c in tok.head.children if c.i > tok.i and c.dep_ in ("relcl", "punct")]:
            c.head = tok  # ", which was printed in 1931" the book's too
        tok.head = head


#: verbs with an object complement ("kept X running")
_KEEPS = frozenset({"kept", "keep", "keeps", "keeping", "left", "leave", "leaves", "found", "find", "finds"})


def object_complement(noun: Any) -> None:
    """"kept the Brackwater Apiary running" (an audit's node): the name is the object, "running" its complement."""
    verb, name = noun.head, noun.doc[noun.i - 1]
    if noun.dep_ != "dobj" or noun.tag_ != "NN" or not noun.lower_.endswith("ing") or verb.lower_ not in _KEEPS \
            or name.pos_ != "PROPN" or name.dep_ != "compound" or name.head.i != noun.i:
        return
    for c in [c for c in noun.children if c.i < name.i]:
        c.head = name
    name.head, name.dep_ = verb, "dobj"
    noun.head, noun.dep_, noun.pos_, noun.tag_ = verb, "xcomp", "VERB", "VBG"


def subject_clause(verb: Any) -> None:
    """"By 1960 the consortium owned paper mills, an ink works and two shipping lines.": the parser read "the
    consortium owned" as an adjective ("consortium-owned") of "mills", the sentence's root, so an audit's KG had the
    node "By 1960 the consortium owned paper mills". A sentence with no verb but that one is a clause: the noun after
    "the" is the subject, the past form the verb and the noun its object, and an appositive list after it ("an ink
    works and two shipping lines") more objects. So is a subject noun with an "and" after its last conjunct ("The
    consortium financed cargo ships and warehouses and, from the 1930s, bought …"): the later verb is the first's
    conjunct. Only "the <noun> <verb>" side by side, "the" on the object ("a family owned business" stays one noun)."""
    noun, doc = verb.head, verb.doc
    if verb.dep_ != "amod" or verb.tag_ not in ("VBD", "VBN") or noun.pos_ != "NOUN" or verb.i < 2 \
            or not verb.text.islower():
        return
    subj, det = doc[verb.i - 1], doc[verb.i - 2]
    if subj.dep_ != "npadvmod" or subj.head.i != verb.i or subj.tag_ != "NN" or det.lower_ != "the" \
            or det.head.i != noun.i:
        return
    later = noun.head
    if noun.dep_ == "nsubj" and later.dep_ == "ROOT" and later.tag_ == "VBD":
        last = max([c.i for c in noun.children if c.dep_ == "conj"], default=noun.i)
        ccs = [c for c in noun.children if c.dep_ == "cc" and c.i > last]
        if not ccs:
            return
        for c in [c for c in noun.children if c.i >= ccs[0].i]:
            c.head = later  # "and, from the 1930s," bought
        later.head, later.dep_ = verb, "conj"
    elif noun.dep_ != "ROOT" or any(t.pos_ in ("VERB", "AUX") for t in verb.sent if t.i != verb.i):
        return
    for c in [c for c in noun.children if c.i < verb.i or (c.dep_ == "punct" and c.i == verb.sent.end - 1)]:
        c.head = subj if c.i == det.i else verb
    for c in noun.children:
        if c.dep_ == "appos" and any(g.dep_ == "conj" for g in c.children):
            c.dep_ = "conj"  # a list of objects: "paper mills, an ink works and two shipping lines"
    subj.dep_, subj.pos_ = "nsubj", "NOUN"
    verb.head, verb.dep_, verb.pos_, verb.tag_ = verb, "ROOT", "VERB", "VBD"
    noun.head, noun.dep_ = verb, "dobj"


def prep_objects(prep: Any) -> list[Any]:
    """The objects of ``prep`` and of each later preposition of the same word joined to it by "and"/"or": "the
    birthplace of X and of the composer Y" is Y's too (an audit's KG read only "mentions · Y": the parser hangs the
    second "of" on the first as its conjunct, which no rule read). Only after a first object: not "takes care … of
    allocating rail capacity, and of traffic control" (the clause's "of" is no relation of "takes")."""
    own = _named_place_kept([g for g in prep.children if g.dep_ == "pobj" and not _time_phrase(g)], prep)
    if not own:
        return own
    preps = [c for c in prep.conjuncts if c.i > prep.i and c.lower_ == prep.lower_ and c.pos_ == "ADP"]
    return own + [g for p in preps for g in p.children if g.dep_ == "pobj"]


#: nouns of a stretch of time: "in its first summer", "in every season" are times, no node
_TIME_NOUNS = frozenset({"summer", "winter", "spring", "autumn", "season", "year", "month", "week", "day", "decade",
                         "century", "youth", "childhood", "lifetime", "life", "term", "reign", "tenure"})


def _time_phrase(g: Any) -> bool:
    """A stretch of time owned by a pronoun or counted by "every"/"each" ("kept the hut in its first summer", "kept a
    watch there in every season"): an audit's KG read "kept in · its first summer", a node shared by every passage."""
    return g.pos_ == "NOUN" and g.lower_ in _TIME_NOUNS and any(
        (c.dep_ == "poss" and c.tag_ == "PRP$") or (c.dep_ == "det" and c.lower_ in ("every", "each"))
        for c in g.children)


#: compass points a place lies at from another ("a parish west of Dunmere", "north-west of", "lies 3 miles south of")
DIRECTIONS = frozenset({"north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest",
                        "north-east", "north-west", "south-east", "south-west"})
#: heads of a place described, not named ("in the hill country", "the village"): no object beside a named place
_PLACE_WORDS = frozenset({"country", "countryside", "village", "region", "area", "district", "hills", "uplands"})


def _named_place_kept(own: list[Any], prep: Any) -> list[Any]:
    """``own`` less a compass point or a described place ("born in the village of Trevennac, in the hill country east
    of Sarnebourg": an audit's KG read "born in · east" and "born in · hill country") where a named place is in the
    same preposition chain: the word's objects of this preposition and of its other ones with the same word."""
    def vague(g: Any) -> bool:
        return (g.is_lower and g.lower_ in DIRECTIONS) or (g.pos_ == "NOUN" and g.lower_ in _PLACE_WORDS and not any(
            t.pos_ == "PROPN" for t in g.subtree))
    if not any(vague(g) for g in own):
        return own
    chain = [t for p in prep.head.children if p.dep_ == "prep" and p.lower_ == prep.lower_ for t in p.subtree]
    named = any(t.pos_ == "PROPN" and t.ent_type_ in ("GPE", "LOC", "FAC") for t in chain)
    return [g for g in own if not (named and vague(g))]


def name_past_owned(tok: Any) -> tuple[Any, Any] | None:
    """(the verb's object, the name) where a name in apposition hangs on a possessed object of the verb's preposition
    but names the object before it: "created an award in her memory, the Orvane Medal" created the medal (an audit's
    KG read "created in · Orvane Medal"). Only a common-noun object before the preposition, a tribute's noun ("in his
    honour"; MuSiQue's "studying with his grandmother, X" and "with his sister, X" are the relative's), the name after
    a comma; or a firm's name after a plural that the verb's object is for ("a school for perfumers, the X Atelier")."""
    verb = tok.head.head if tok.dep_ == "pobj" else tok.head
    obj = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "NOUN"), None)
    for p in (c for c in verb.children if c.dep_ == "prep" and obj is not None and c.i > obj.i):
        for q in (g for g in p.children if g.dep_ == "pobj" and g.lower_ in _TRIBUTE and any(
                x.dep_ == "poss" for x in g.children)):
            for a in (x for x in q.children if x.dep_ == "appos" and x.pos_ == "PROPN" and x.doc[x.left_edge.i - 1].text
                      == ","):
                return obj, a
    # "opened a school for perfumers, the Verlaque Atelier": a firm's name names no plural, so the school
    for p in (c for c in (obj.children if obj is not None and obj.tag_ == "NN" else ()) if c.dep_ == "prep"):
        for q in (g for g in p.children if g.dep_ == "pobj" and g.tag_ == "NNS" and g.i == p.i + 1):
            for a in (x for x in q.children if x.dep_ == "appos" and x.pos_ == "PROPN" and x.doc[x.left_edge.i - 1].text
                      == "," and x.ent_type_ in ("ORG", "FAC") and x.doc[q.i + 1].text == "," and x.doc[q.i + 2].lower_
                      == "the"):
                return obj, a
    return None


#: what "in her memory"/"in his honour" names: the thing given that name is the verb's object (:func:`name_past_owned`)
_TRIBUTE = frozenset({"memory", "honour", "honor"})


def gerund_compound(verb: Any) -> bool:
    """Whether the "-ing" word ``verb`` is the first word of a noun in a list the parser read as a verb and its object:
    "lives mostly from *walking tourism*, dairy farming and a slate quarry" (an audit's KG read "Tallemont · walking ·
    dairy farming"). Only an object right after it that is joined to a noun like "dairy farming" (a noun and an
    "-ing" noun), so "known for making cheese, butter and yogurt" stays a verb."""
    obj = next((c for c in verb.children if c.dep_ == "dobj" and c.i == verb.i + 1 and c.pos_ == "NOUN"), None)
    return obj is not None and any(d.pos_ == "NOUN" and d.lower_.endswith("ing") and any(
        g.dep_ == "compound" for g in d.children) for d in obj.conjuncts)


def listed_names(noun: Any) -> list[Any]:
    """The names a plural subject noun lists after it: "Two well-known people were born in Pellisca: the founder
    Taddeo Brunmark and the painter Abelina Sorrow" were each born there (an audit's KG had a node "Two well-known
    people"); each name, or the name in apposition to a listed role noun, as many as the subject counts. None where a
    listed item is no labelled name."""
    count = next((c.lower_ for c in noun.children if c.dep_ == "nummod"), "")
    if noun.tag_ != "NNS" or noun.pos_ != "NOUN" or noun.dep_ not in ("nsubj", "nsubjpass") or count not in _COUNTS:
        return []
    out = []
    for a in (c for c in noun.children if c.dep_ == "appos"):
        for t in [a, *a.conjuncts]:
            name = t if t.pos_ == "PROPN" else next((c for c in t.children if c.dep_ == "appos" and c.pos_ == "PROPN"), None)
            if name is None:
                return []
            out.append(name)
    return out if len(out) == _COUNTS[count] and all(n.ent_type_ in _NAMED for n in out) else []


#: the number a plural subject's names must match ("Two people …: A and B"), and the labels they must have
_COUNTS = {w: i for i, w in enumerate(("two", "three", "four", "five", "six"), 2)} | {str(i): i for i in range(2, 7)}
_NAMED = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP"})


def whose_subject(verb: Any) -> str | None:
    """The words of the common-noun subject "whose" owns in the relative clause ``verb``: "a building materials firm whose head office
    is in the city of Kastenmoor" (the firm's, not a node "head office" of its own); else None."""
    if verb.dep_ != "relcl" or verb.head.pos_ not in ("NOUN", "PROPN"):
        return None
    if any(c.dep_ in ("dobj", "attr") for c in verb.children):  # "the Eye, whose power possesses him", "whose
        return None  # average is 11,873 mm" (which the parser may hang on the wrong name): not read
    noun = next((s for s in verb.children if s.dep_ in ("nsubj", "nsubjpass") and s.pos_ == "NOUN" and any(
        c.dep_ == "poss" and c.lower_ == "whose" for c in s.children)), None)
    words = [] if noun is None else list(noun.doc[noun.left_edge.i + 1:noun.i + 1])  # a short common noun only: not
    return " ".join(t.lower_ for t in words) if 0 < len(words) < 3 and all(  # "whose component Eastern and Columbia
        t.pos_ in ("NOUN", "ADJ") for t in words) else None  # stores were founded by X"


def owned_copula_subject(verb: Any) -> tuple[str, Any] | None:
    """The words of a short common-noun subject a name or "its" owns before a copula with only a place after it, and
    that owner's token: "The company's head office was in Meriton" is ("head office", company), the company's "head
    office in" Meriton (an audit's KG held a node "head office" of its own); else None."""
    if verb.dep_ not in ("ROOT", "conj") or any(c.dep_ in ("attr", "acomp", "dobj", "oprd") for c in verb.children):
        return None
    noun = next((s for s in verb.children if s.dep_ == "nsubj" and s.pos_ == "NOUN"), None)
    poss = next((c for c in noun.children if c.dep_ == "poss"), None) if noun is not None else None
    if noun is None or poss is None or not any(c.dep_ == "prep" and c.lower_ in ("in", "on", "at")
                                               for c in verb.children):
        return None
    if any(c.dep_ == "appos" for c in noun.children):  # "Its central administration, the Holy See, is in X": the See's
        return None
    words = [t for t in noun.doc[poss.right_edge.i + 1:noun.i + 1] if t.tag_ != "POS"]
    ok = 0 < len(words) < 3 and all(t.pos_ in ("NOUN", "ADJ") for t in words)
    return (" ".join(t.lower_ for t in words), poss) if ok and (poss.lower_ == "its" or poss.pos_ in ("NOUN", "PROPN")) \
        else None


#: common nouns for a firm or a body that "the <noun>'s" may call the passage's title by (:func:`title_called`)
_CALLED = frozenset({"studio", "firm", "company", "workshop", "club", "society", "label", "publisher", "brewery",
                     "distillery", "foundry", "mill", "works", "school", "academy", "orchestra", "band", "team",
                     "museum", "theatre", "theater", "newspaper", "magazine", "bank", "agency", "charity", "guild"})


def title_called(m: Any, poss: Any) -> bool:
    """Whether "the <noun>'s" (``poss``) is the passage's title, a firm or body the passage called that noun before:
    "Orvane Pictures is a film studio … The studio's head office was in Tesselford" (an audit's KG held a node "head
    office" of its own). Never in a person's passage."""
    word = poss.lower_
    if poss.pos_ != "NOUN" or word not in _CALLED or not m.title or not any(c.lower_ == "the" for c in poss.children) \
            or m._title_person():
        return False
    return any(t.lower_ == word and t.dep_ == "attr" and t.i < poss.i and t.head.lemma_ == "be" and any(
        c.dep_ == "nsubj" and m.mention_of.get(c.i, (0, 0, ""))[2] == "TITLE" for c in t.head.children) for t in m.doc)


def holder_preps(m: Any, verb: Any) -> bool:
    """"The first winner of X was Y, in 1925, for a carriage clock": a copula's prepositions after a role noun's named
    holder are the holder's ("Y · winner in · 1925", "Y · winner for · carriage clock"), not the owner's (an audit's KG
    read "X · was for · carriage clock"). True where they were so added (the sentence says no more)."""
    subj = next((c for c in verb.children if c.dep_ == "nsubj" and c.pos_ == "NOUN" and any(
        d.dep_ == "poss" or (d.dep_ == "prep" and d.lower_ == "of") for d in c.children)), None)
    preps = [c for c in verb.children if c.dep_ == "prep" and c.lower_ != "of" and c.i > verb.i]
    if subj is None or not preps:
        return False
    holders = [h for a in verb.children if a.dep_ == "attr" and a.pos_ == "PROPN" for o in m._conjuncts(a)
               if (h := m.mention(o)) is not None and m._person(h, "NNP")]
    for h in holders:
        for c in preps:
            for p in prep_objects(c):
                for o in m._conjuncts(p):
                    m.add(h, f"{subj.lower_} {c.lower_}", m.mention(o))
    return bool(holders)


def own_thing_noun(tok: Any, title: str) -> bool:
    """Whether the definite description ``tok`` names a thing of its own, never the passage's title: a head noun with a
    common-noun modifier ("the town hall of Daskirrow", "the grain market", "the village school", "the award
    ceremony": an audit's KG read them as the town or the medal) whose noun the text never gave the title as its kind
    ("X is a rock band … The rock band split", "X were a class of steam locomotives … The steam locomotives were built"),
    nor a seat ("The head office of X stood in Y"), nor the population of the title's kind ("The city population was
    27,340" in "Dodge City"), nor the small model's noun for a verb ("The river originates in", "The region borders on")."""
    mods = [c.lower_ for c in tok.children if c.dep_ == "compound" and c.pos_ == "NOUN" and c.is_alpha]  # no "113th"
    kinds = {t.lower_ for t in tok.doc if t.i != tok.i and (t.dep_ in ("attr", "appos") or (
        t.dep_ == "pobj" and t.head.lower_ == "of" and t.head.head.dep_ in ("attr", "appos")))}
    kinds |= set(title.split(" (", 1)[0].split(",", 1)[0].lower().split()[-1:])
    if not mods or tok.lower_ in ("office", "headquarters") or tok.lower_ in kinds:
        return False
    verb = tok.tag_ == "NNS" and tok.i + 1 < len(tok.doc) and tok.doc[tok.i + 1].pos_ == "ADP"
    return not (set(mods) & kinds and (tok.lower_ == "population" or verb))
