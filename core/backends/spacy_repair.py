"""Names the small parser cuts apart, made one token: read as a verb, a firm's, a guild's or an emphasised one.

"Barnaby Fell", "Pell and Sons", "Masons' Company", "*Cones and Kettles*".

"the shipwright Barnaby Fell in 1899" parsed "Fell" as the sentence's verb ("Barnaby fell in 1899"), so the ``spacy``
extractor lost "built by Barnaby Fell" and wrote "Barnaby Fell · fell in · 1899" (an audit). A verb written with a capital inside a sentence, right after a proper noun or inside a named entity,
is a word of a name; the piece is parsed again with that name as one token, which the parser then places where a
name goes (the agent's object here), and the name keeps its entity label.

A firm's name with "and" or "&" ("Mauncey and Daughters", "Brask & Co") becomes one ORG token too, merged in place
with the parse kept: the parser read "founded Mauncey and Daughters" as two objects, "Mauncey" and "Daughters", so the
``spacy`` extractor wrote "Ida Mauncey · founded · Mauncey" (an audit). Only where the words show one name: a capitalised family or partner word
after "and" (:data:`FIRM_WORDS`: "and Sons"), a firm's head word after "<Name> and <Name>" (:data:`FIRM_HEADS`:
"Harrow and Pell Trading", "the Telk and Quillom Press"), the same "<Name> and <Name>" without it where the passage
names the firm ("Under Marrick and Stoll the company moved …" beside "Marrick and Stoll Holdings": an audit's bare
nodes "Marrick" and "Stoll"), or "&" between capitalised words; "Ida and Tom founded …" stays two people.

A name with a plural possessive inside ("the Confectioners' Guild of Halvek") becomes one ORG token the same way: the
parser read it as "Guild" owned by "Confectioners" (an audit's node "Guild"). A name a text emphasises
("a memoir, *Cones and Kettles*, which": a .txt file or a JSON corpus keeps its asterisks; a Markdown document's text
is without its markup) is parsed as one token without its markers (:func:`unmark_names`).

Only pieces holding such a name change; the text, and so every character offset, is unchanged (a marked name's
markers aside, which the parse never sees).

Attachments the small parser gets wrong in a list are mended in the parse before any relation is read
(:func:`mend_attachments`):

- A verb after a comma in a list of objects, read as an adjective of the next object: "…, which rebuilt the
  auditorium, added electric lighting and a balcony, and began touring …" parsed "added" as "lighting"'s modifier,
  so the ``spacy`` extractor wrote "X · rebuilt · added electric lighting" (an audit). The verb is the first verb's
  conjunct, with the same subject, and the noun is its object (:func:`_listed_verbs`).
- A relative clause after nouns joined by "and"/"or" hung on the first of them: "comic sketches and long serial
  dramas that ran over many evenings" gave "comic sketches · ran over · many evenings" (an audit). The clause is the
  nearest noun's where that is a plural common noun, unless its verb's number says it cannot be
  (:func:`_nearest_relative`).
- A name in apposition after "<noun> in <place>," hung on the place: "A street in Harvoy, Castemar Row, was named
  after her" gave "Harvoy · is · Castemar Row" and "Harvoy · street named in · 1951" (an audit). The name is the
  noun's, and so is a building ("The company's headquarters in Dovrecka, a brick warehouse …": an audit's "Dovrecka ·
  is · brick warehouse") (:func:`_named_thing_in_place`).
- "works" after a noun read as a verb: "built a new bell works at Fallowgate" gave "built · new bell" (an audit); it
  is the noun, a factory (:func:`_works_noun`).
- A relative clause without "that" read as a second object: "lists every bell the foundry cast" gave "lists ·
  foundry cast" (an audit) (:func:`_contact_relative`). So are a copula's noun with a participle read as a clause
  ("is a kite festival held …", :func:`_copula_participle`) and "kept X running" (:func:`_object_complement`).

Heads are changed in place (spaCy's ``Token.head``), each within the span the parser already gave the list, so the
parse stays projective and the noun chunks follow the new heads.
"""

from __future__ import annotations

import re
from typing import Any

from core.backends.spacy_lists import mend_appositive, object_complement, subject_clause, work_titles
from core.backends.spacy_mentions import VALUE_LABELS
from core.backends.spacy_participles import mend_agent_noun, mend_conj_participle, mend_listed_of
from core.backends.spacy_titles import relative_titles

#: Longest name (in tokens) merged into one token: a longer entity is more likely the parser's error than a name.
MAX_NAME_TOKENS = 6
#: words that, capitalised after "<Name> and", end a firm's name rather than list a second party ("Mauncey and
#: Daughters", "Harrow and Sons", "Pell and Co.")
FIRM_WORDS = frozenset({"sons", "son", "daughters", "daughter", "co", "co.", "company", "brothers", "bros", "bros.",
                        "sisters", "partners", "associates", "nephews", "nephew", "cousins", "heirs", "successors"})
#: a legal form that may follow such a name ("Pell and Sons Ltd")
_LEGAL = frozenset({"ltd", "ltd.", "limited", "inc", "inc.", "plc", "llc", "gmbh", "co", "co."})
#: a firm's head word after "<Name> and <Name>": "Harrow and Pell Trading" is one firm (the model cut "Harrow" off)
FIRM_HEADS = frozenset({"trading", "holdings", "company", "industries", "shipping", "manufacturing", "enterprises",
                        "corporation", "merchants", "publishers", "brewery", "foundry", "works", "mills", "limited",
                        "press"})


#: a name in Markdown-style emphasis in a passage's text ("a memoir, *Cones and Kettles*, which",
#: "The **Golden Whisk Prize** is …"): its words are one name, which the text without markup reads as two
_MARKED = re.compile(r"(?<![\w*])(\*\*?)([A-Z0-9\u00c0-\u00de][^*\n]{0,200}?)\1(?![\w*])")
#: lower-case words that may join a marked name's capitalised words ("Cones and Kettles", "Lord of the Isles")
_JOINING = frozenset({"a", "an", "and", "as", "at", "by", "de", "du", "for", "from", "in", "la", "le", "of", "on",
                      "or", "the", "to", "van", "von", "with", "&"})


def unmark_names(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` without the markers of its emphasised names (:data:`_MARKED`: two words or more, capitalised but for
    joining words between them), and the (start, end) characters of each such name in the text returned.

    >>> unmark_names("a memoir, *Cones and Kettles*, which was *very* good")
    ('a memoir, Cones and Kettles, which was *very* good', [(10, 27)])
    """
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    at = size = 0
    for m in _MARKED.finditer(text):
        name, words = m.group(2), m.group(2).split()
        if name != name.strip() or len(words) < 2 or not (words[-1][:1].isupper() or words[-1][:1].isdigit()) or any(
                not (w[:1].isupper() or w[:1].isdigit()) and w not in _JOINING for w in words):
            continue
        out += [text[at:m.start()], name]
        size += m.start() - at
        spans.append((size, size + len(name)))
        size += len(name)
        at = m.end()
    return "".join(out) + text[at:], spans


def _marked_spans(doc: Any, marked: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(start, end, entity label) of the tokens of each marked name (:func:`unmark_names`) the small model did not
    already read as one entity: the model's label where an entity lies inside it, else WORK_OF_ART (a work's title)."""
    out: list[tuple[int, int, str]] = []
    for s, e in marked:
        span = doc.char_span(s, e, alignment_mode="expand")
        if span is None or len(span) < 2 or len(span) > 2 * MAX_NAME_TOKENS or any(
                ent.start == span.start and ent.end == span.end for ent in doc.ents):
            continue
        inside = [ent.label_ for ent in doc.ents if span.start <= ent.start and ent.end <= span.end
                  and ent.label_ not in VALUE_LABELS]
        out.append((span.start, span.end, inside[0] if len(inside) == 1 and len(set(inside)) == 1 else "WORK_OF_ART"))
    return out


def _verb_in_name(tok: Any) -> bool:
    """A capitalised verb that is not its sentence's first word and follows a proper noun ("Barnaby Fell")."""
    # not an auxiliary: "Orange Is the New Black" is a title the parse keeps as words, and merging "Orange Is" made a
    # fragment of it one token
    return (tok.pos_ == "VERB" and tok.text[:1].isupper() and tok.text[1:].islower()
            and tok.i > tok.sent.start and tok.i > 0 and tok.doc[tok.i - 1].pos_ == "PROPN"
            and not tok.doc[tok.i - 1].text.endswith("."))  # "D.C. Located …": a sentence the splitter missed


def _name_spans(doc: Any) -> list[tuple[int, int, str]]:
    """(start, end, entity label) of each name holding a verb the parser mistook (:func:`_verb_in_name`)."""
    ents = {t.i: e for e in doc.ents for t in e}
    out: list[tuple[int, int, str]] = []
    for tok in doc:
        if not _verb_in_name(tok) or (out and tok.i < out[-1][1]):
            continue
        ent = ents.get(tok.i)
        if ent is not None and ent.label_ not in VALUE_LABELS and ent.end - ent.start <= MAX_NAME_TOKENS \
                and ent.start < tok.i:
            start, end, label = ent.start, ent.end, ent.label_
            if end > tok.i + 2 and doc[tok.i + 1].lower_ in ("the", "a", "an"):
                end = tok.i + 1  # "awarded [Isolde Varn the Lumen Medal]": the name ends before the thing given
        else:  # no entity over it: the proper nouns before it and the capitalised words after it
            start = tok.i
            while start > tok.sent.start and doc[start - 1].pos_ == "PROPN" and tok.i - start < MAX_NAME_TOKENS - 1:
                start -= 1
            end = tok.i + 1
            while end < tok.sent.end and doc[end].text[:1].isupper() and doc[end].pos_ in ("PROPN", "VERB") \
                    and end - start < MAX_NAME_TOKENS:
                end += 1
            label = "PERSON" if end - start == 2 else ""
        if doc[start].lower_ == "the":
            start += 1
        if end - start >= 2:
            out.append((start, end, label))
    return out


def _firm_spans(doc: Any) -> list[tuple[int, int, str]]:
    """(start, end, "ORG") of each firm's name joined by "and"/"&" that the small model did not already label as one
    entity (see the module docstring): the proper nouns before the conjunction, the firm word (after "and") or the
    word or entity after "&", and a legal form after them; not two multi-word names of their own."""
    out: list[tuple[int, int, str]] = []
    firms = {(t.nbor(-1).lower_, t.nbor().lower_) for t in doc if t.lower_ == "and" and 0 < t.i < len(doc) - 2
             and t.nbor(2).lower_ in FIRM_HEADS and t.nbor(2).text[:1].isupper()}  # "Marrick and Stoll" of its firm
    for tok in doc:
        if tok.lower_ not in ("and", "&") or tok.i == 0 or tok.i + 1 >= len(doc) or (out and tok.i < out[-1][1]):
            continue
        left, right = doc[tok.i - 1], doc[tok.i + 1]
        if left.pos_ != "PROPN" or not left.text[:1].isupper() or not right.text[:1].isupper() \
                or right.sent.start != tok.sent.start:
            continue
        headed = tok.lower_ == "and" and right.pos_ == "PROPN" and tok.i + 2 < tok.sent.end \
            and doc[tok.i + 2].lower_ in FIRM_HEADS and doc[tok.i + 2].text[:1].isupper()
        if tok.lower_ == "and" and right.lower_ not in FIRM_WORDS and not headed \
                and (left.lower_, right.lower_) not in firms:
            continue
        start = tok.i - 1
        while start > tok.sent.start and doc[start - 1].pos_ == "PROPN" and doc[start - 1].text[:1].isupper() \
                and tok.i - start < MAX_NAME_TOKENS - 2:
            start -= 1
        ent_of = {t.i: e for e in doc.ents for t in e}
        before, after = ent_of.get(tok.i - 1), ent_of.get(tok.i + 1)
        if before is not None and after is not None and before is not after and len(before) > 1 and len(after) > 1:
            continue  # two names of their own: "Booker T. Washington High School & Warren Easton High School"
        end = tok.i + 3 if headed else tok.i + 2
        if any(e.start <= start and e.end >= end for e in doc.ents):
            continue  # one entity already: the mention rules keep it whole
        if tok.lower_ == "&":  # the name after "&" whole: "Mr. & Mrs. Smith"
            if after is not None and after.start == tok.i + 1:
                end = after.end
            while end < tok.sent.end and doc[end - 1].dep_ == "compound" and doc[end - 1].head.i >= end \
                    and doc[end].pos_ == "PROPN" and end - start < MAX_NAME_TOKENS:
                end += 1
        if end < tok.sent.end and doc[end].lower_ in _LEGAL and doc[end].text[:1].isupper():
            end += 1  # "Pell and Sons Ltd"
        if any(start < e.start < end < e.end or e.start < start < e.end < end for e in doc.ents):
            continue  # an entity running past either end: the words are no name of their own ("Dubai & Abu" Dhabi)
        out.append((start, end, "ORG"))
    return out


#: the last word of a name with a plural possessive inside ("Confectioners' Guild", "Poets' Church", "Bishop Cotton
#: Girls' School"): a body or its house, not a thing the plural owns ("the Allies' Manhattan Project", "US Airways'
#: MetroJet", "2K Games' Community Manager", MuSiQue)
GUILD_WORDS = frozenset({"guild", "company", "society", "association", "union", "league", "club", "institute", "party",
                         "college", "academy", "school", "church", "chapel", "hall", "hospital", "home", "federation",
                         "council", "alliance", "brotherhood", "sisterhood", "lodge", "fund", "trust", "cooperative",
                         "co-operative", "congress", "movement", "front", "exchange", "bank", "asylum", "almshouse"})


def _guild_spans(doc: Any) -> list[tuple[int, int, str]]:
    """(start, end, "ORG") of each name with a plural possessive inside ("the Confectioners' Guild of Halvek", "the
    Masons' Company"), which the small model left as "Guild" owned by "Confectioners" (an audit's node "Guild"): the
    capitalised plural and the proper nouns before it, the capitalised words after the apostrophe up to a body's word
    (:data:`GUILD_WORDS`), and "of" with one to three proper nouns after them; not where one entity already holds the
    words."""
    out: list[tuple[int, int, str]] = []
    for tok in doc:
        if tok.tag_ != "POS" or tok.text not in ("'", "\u2019") or tok.i == 0 or (out and tok.i < out[-1][1]):
            continue
        owner = doc[tok.i - 1]
        if not (owner.text[:1].isupper() and owner.text.endswith("s") and owner.pos_ in ("PROPN", "NOUN")):
            continue
        end = tok.i + 1
        while end < tok.sent.end and doc[end].text[:1].isupper() and doc[end].pos_ in ("PROPN", "NOUN") \
                and end - tok.i <= 3:
            end += 1
        if end == tok.i + 1 or doc[end - 1].lower_ not in GUILD_WORDS:
            continue  # "the Smiths' house", "the Allies' Manhattan Project": no body's name after it
        start = tok.i - 1
        while start > tok.sent.start and doc[start - 1].pos_ == "PROPN" and doc[start - 1].text[:1].isupper() \
                and tok.i - start < 3:
            start -= 1
        place = end + 1
        while end < tok.sent.end - 1 and doc[end].lower_ == "of" and place < tok.sent.end \
                and doc[place].pos_ == "PROPN" and doc[place].text[:1].isupper() and place - end <= 3:
            place += 1
        if place > end + 1:
            end = place  # "… Guild of Halvek": kept whole (the builder may fold it to the guild, "located in" Halvek)
        if any(e.start <= start and end <= e.end for e in doc.ents) or end - start > MAX_NAME_TOKENS:
            continue
        out.append((start, end, "ORG"))
    return out


def repair_names(nlp: Any, doc: Any, marked: list[tuple[int, int]] | None = None) -> Any:
    """``doc`` parsed again with each name holding a mistaken verb, and each ``marked`` name (the characters
    :func:`unmark_names` gives), as one proper-noun token (see the module docstring); ``doc`` itself where there is
    none."""
    marks = _marked_spans(doc, marked or [])
    marks += work_titles(doc, marks)  # "a biography, The Man Who Climbed …,"; "The Boy Who Painted the Moon was …"
    return mend_attachments(_merge_firms(_reparse_names(nlp, doc, marks + relative_titles(doc, marks))))


def _merge_firms(doc: Any) -> Any:
    """``doc`` with each firm's name joined by "and"/"&" (:func:`_firm_spans`) merged into one ORG token in place.
    The parse is kept, not redone: it placed the name right, only as two conjuncts; the merged token takes the first
    one's place ("Quill and Sons bought …": the subject). Parsed again, a token holding spaces read as a preposition's
    object."""
    firms = _firm_spans(doc)
    firms = sorted(firms + [g for g in _guild_spans(doc) if not any(g[0] < e and b < g[1] for b, e, _ in firms)])
    if not firms:
        return doc
    from spacy.tokens import Span

    ents = [e for e in doc.ents if not any(e.start < end and start < e.end for start, end, _ in firms)]
    doc.ents = sorted(ents + [Span(doc, start, end, label="ORG") for start, end, _ in firms], key=lambda e: e.start)
    with doc.retokenize() as retok:
        for start, end, _ in firms:
            retok.merge(doc[start:end], attrs={"TAG": "NNP", "POS": "PROPN"})
    return doc


def _reparse_names(nlp: Any, doc: Any, marked: list[tuple[int, int, str]] | None = None) -> Any:
    """``doc`` parsed again with each name holding a mistaken verb (:func:`_name_spans`), and each ``marked`` name
    (:func:`_marked_spans`), as one token."""
    marked = marked or []
    spans = sorted(marked + [s for s in _name_spans(doc) if not any(s[0] < e and b < s[1] for b, e, _ in marked)])
    if not spans:
        return doc
    from spacy.tokens import Doc, Span

    words: list[str] = []
    spaces: list[bool] = []
    merged: list[tuple[int, str]] = []  # (index in the new doc, label)
    i = 0
    starts = {s: (e, label) for s, e, label in spans}
    while i < len(doc):
        if i in starts:
            end, label = starts[i]
            merged.append((len(words), label))
            words.append(doc[i:end].text)
            spaces.append(bool(doc[end - 1].whitespace_))
            i = end
        else:
            words.append(doc[i].text)
            spaces.append(bool(doc[i].whitespace_))
            i += 1
    new = nlp(Doc(nlp.vocab, words=words, spaces=spaces))
    at = {j for j, _ in merged}
    for j, _ in merged:  # a name: tagged so the mention rules read it as one
        new[j].tag_ = "NNP"
        new[j].pos_ = "PROPN"
    ents = [e for e in new.ents if not any(e.start <= j < e.end for j in at)]
    ents += [Span(new, j, j + 1, label=label or "PERSON") for j, label in merged]
    new.ents = sorted(ents, key=lambda e: e.start)
    return new


#: determiners and possessives that open a noun phrase: a verb before one cannot be that noun's adjective ("added a
#: balcony")
_OPENERS = frozenset({"the", "a", "an", "its", "his", "her", "their", "our", "my", "your", "this", "these", "those"})
#: where a thing lies in a place ("a street in Harvoy, Castemar Row,")
PLACE_PREPS = frozenset({"in", "at", "near", "outside", "on"})
#: what a town cannot be: "<noun> in <town>, a <building>" describes the noun ("The company's headquarters in
#: Dovrecka, a brick warehouse beside the railway station, …"; an audit's KG read "Dovrecka · is · brick warehouse")
BUILDINGS = frozenset({"warehouse", "building", "house", "mansion", "villa", "cottage", "barn", "shed", "factory", "mill",
                       "workshop", "office", "hotel", "inn", "shop", "store", "tower", "palace", "chapel", "hall"})
#: entity labels of a name that is a place's own part or a place itself ("a village in Kent, England"): left as parsed
_PLACE_LABELS = frozenset({"GPE", "LOC"})


def mend_attachments(doc: Any) -> Any:
    """``doc`` with the attachments above mended (the same ``doc``)."""
    for tok in doc:
        _listed_verbs(tok)
        _nearest_relative(tok)
        _named_thing_in_place(tok)
        _works_noun(tok)
        _contact_relative(tok)
        _copula_participle(tok)
        mend_appositive(tok)
        object_complement(tok)
        subject_clause(tok)
        mend_agent_noun(tok)  # "a spare lens ground by X": a participle, not a noun (round 62)
        mend_conj_participle(tok)  # "… and of a puppet school opened in 1921": the school's participle (audit 57)
        mend_listed_of(tok)  # "the home of X, which moved …, and of a museum": the home's (round 64)
    return doc


def _copula_participle(verb: Any) -> None:
    """"X is a kite festival held … since 1905": the parser made "a kite festival held …" a clause (an audit's "kite
    festival · held since · 1905"); the noun is the copula's attribute, "held" a participle on it (its edges are the
    subject's). Only "a"/"an" + noun right after "is"/"was", then the past form with no object, and no attribute."""
    if verb.lower_ not in ("is", "was", "are", "were") or any(c.dep_ == "attr" for c in verb.children):
        return
    for clause in [c for c in verb.children if c.dep_ == "ccomp" and c.tag_ in ("VBD", "VBN")]:
        subs = [c for c in clause.children if c.dep_ in ("nsubj", "nsubjpass")]
        if len(subs) != 1 or any(c.dep_ in ("dobj", "aux", "auxpass") for c in clause.children):
            continue
        noun = subs[0]
        if noun.pos_ != "NOUN" or noun.left_edge.i != verb.i + 1 or clause.i != noun.i + 1 or noun.left_edge.lower_ not in ("a", "an"):
            continue
        noun.head, noun.dep_ = verb, "attr"
        clause.head, clause.dep_, clause.tag_ = noun, "acl", "VBN"


#: determiners of a noun a clause without "that" may follow ("every bell the foundry cast")
_EVERY = frozenset({"every", "each", "all", "any", "the"})


def _contact_relative(verb: Any) -> None:
    """"lists every bell the foundry cast between 1842 and 1921": the parser made "the foundry cast" a second object
    of "lists" (an audit's "bronze plaque · lists · foundry cast"); it is a relative clause without "that" on the first
    object, its last word the clause's verb and the word before it the clause's subject. Only two objects of one verb
    side by side, no "and" or comma between, the first a common noun after "every"/"each"/"all"/"any"/"the", the
    second "the <word> <word>" (a double object, "gave the town the bell", has a dative, not two objects)."""
    objs = [c for c in verb.children if c.dep_ == "dobj"]
    if verb.pos_ != "VERB" or len(objs) != 2:
        return
    first, second = objs
    doc = verb.doc
    if first.pos_ != "NOUN" or second.left_edge.i != first.right_edge.i + 1 or second.i != second.left_edge.i + 2 \
            or not any(c.dep_ == "det" and c.lower_ in _EVERY for c in first.children) \
            or doc[second.left_edge.i].lower_ not in ("the", "its", "his", "her", "their"):
        return
    subject = doc[second.i - 1]
    if not subject.is_alpha or not subject.is_lower:
        return
    subject.head, subject.dep_, subject.pos_, subject.tag_ = second, "nsubj", "NOUN", "NN"
    doc[second.left_edge.i].head = subject
    second.head, second.dep_, second.pos_, second.tag_ = first, "relcl", "VERB", "VBD"


def _works_noun(works: Any) -> None:
    """"built a new bell works at Fallowgate": ``works`` (the parser's verb, "bell" the object) is the noun, a
    factory, and the word before it its compound, so the object is "new bell works" (an audit's "built · new bell" and
    "X · works at · Fallowgate" from "closed the bell works at Fallowgate"). Only "works" right after a singular noun
    with an article or possessive of its own that is a verb's object, or its subject where "works" is no main verb of
    its own but a conjunct or complement of a past-tense verb ("took over X, and with it the bell works at Y")."""
    if works.lower_ != "works" or works.tag_ != "VBZ" or works.i == 0:
        return
    noun = works.doc[works.i - 1]
    if noun.tag_ not in ("NN", "NNP") or not any(c.dep_ in ("det", "poss") for c in noun.children):
        return
    if noun.dep_ == "nsubj" and noun.head.i == works.i:
        if works.dep_ not in ("conj", "ccomp") or works.head.tag_ != "VBD":
            return
        head, dep = works.head, "dobj" if works.dep_ == "ccomp" else "conj"
    elif noun.dep_ in ("dobj", "pobj") and noun.head.i != works.i and works.head.i == noun.head.i:
        head, dep = noun.head, noun.dep_
    else:
        return
    for c in list(noun.children):
        c.head = works  # "a new" bell works
    works.head, works.dep_, works.tag_, works.pos_ = head, dep, "NNS", "NOUN"
    noun.head, noun.dep_ = works, "compound"


def _first_conjunct(noun: Any) -> Any:
    while noun.dep_ == "conj" and noun.head.i < noun.i:
        noun = noun.head
    return noun


def _listed_verbs(verb: Any) -> None:
    """"rebuilt the auditorium, added electric lighting": ``verb`` ("added", an amod of "lighting") becomes the first
    verb's conjunct and the noun its object. Only a past-tense verb ("rebuilt") whose object list holds the noun, the
    word right after a comma, and a sign that it is a verb: a determiner or possessive between it and its noun ("added
    a balcony"), or a later verb joined to the first ("…, and began touring"); "sold bread, smoked fish and cheese"
    stays a list of goods."""
    if verb.dep_ != "amod" or verb.pos_ != "VERB" or verb.tag_ not in ("VBD", "VBN") or verb.i == 0 \
            or verb.doc[verb.i - 1].text != "," or not verb.text.islower():
        return
    noun = verb.head
    if noun.dep_ != "conj" or noun.pos_ != "NOUN" or noun.i <= verb.i:
        return
    first = _first_conjunct(noun)
    head = first.head
    if first.dep_ != "dobj" or head.pos_ != "VERB" or head.tag_ != "VBD" or head.i > first.i:
        return
    if any(c.i < verb.i and c.dep_ in ("det", "poss", "amod", "compound", "nummod") for c in noun.children):
        return  # "the old, painted doors": the verb is one of the noun's modifiers after others
    opener = any(verb.i < c.i < noun.i and c.dep_ in ("det", "poss") and c.lower_ in _OPENERS for c in noun.children)
    up = {head.i, *(a.i for a in head.ancestors)}  # "…, and began touring" may be joined to the verb above
    later_verb = any(t.dep_ == "conj" and t.pos_ == "VERB" and t.head.i in up for t in verb.doc[noun.i + 1:verb.sent.end])
    if not (opener or later_verb):
        return
    verb.head = head
    verb.dep_ = "conj"
    noun.head = verb
    noun.dep_ = "dobj"


def _nearest_relative(clause: Any) -> None:
    """"comic sketches and long serial dramas that ran over many evenings": the relative clause (on "sketches") is
    "dramas"'s, the plural common noun right before it. Not where the verb's number fits only the noun it hangs on
    ("a garden and two ponds that is open …")."""
    if clause.dep_ != "relcl" or clause.head.pos_ != "NOUN":
        return
    noun = clause.head
    later = [c for c in noun.conjuncts if noun.i < c.i < clause.i]
    if not later:
        return
    last = max(later, key=lambda c: c.i)
    if last.tag_ != "NNS":
        return  # "a former FBI agent and psychologist who works …" is one person; names ("Narayan, Anand and Raja
        # Rao who contributed …") are each the clause's (a MuSiQue reading)
    if clause.left_edge.i != last.right_edge.i + 1 or any(c.i > last.i and c.dep_ == "conj" for c in last.children):
        return  # the clause right after the last noun's words only
    rel = [c for c in clause.children if c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in ("that", "which", "who")]
    if rel:
        verb = next((c for c in clause.children if c.dep_ in ("aux", "auxpass")), clause)
        plural = verb.tag_ == "VBP" or verb.lower_ in ("were", "are", "have")
        singular = verb.tag_ == "VBZ" or verb.lower_ in ("was", "is", "has")
        if (plural and last.tag_ in ("NN", "NNP")) or (singular and last.tag_ in ("NNS", "NNPS")):
            return  # the verb's number does not fit the nearest noun
    clause.head = last


def _named_thing_in_place(name: Any) -> None:
    """"A street in Harvoy, Castemar Row, was named …": the name between commas after "<noun> in <place>" (hung on the
    place) is the noun's where the noun is a subject, as is "a <building>" there (:data:`BUILDINGS`). Not a place's
    name ("a village in Kent, England": where Kent lies), nor after a name ("the Old Mill in Harvoy, …")."""
    if name.dep_ != "appos" or name.ent_type_ in _PLACE_LABELS:
        return
    place = name.head
    prep = place.head
    noun = prep.head
    if name.pos_ == "NOUN":  # "The company's headquarters in Dovrecka, a brick warehouse beside …": a building
        if name.lower_ not in BUILDINGS or not any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in name.children) \
                or place.pos_ != "PROPN" or place.ent_type_ == "PERSON":
            return
    elif name.pos_ != "PROPN" or place.ent_type_ not in ("GPE", "LOC", "FAC"):
        return
    if place.dep_ != "pobj" or prep.lower_ not in PLACE_PREPS \
            or prep.dep_ != "prep" or noun.pos_ != "NOUN" or noun.i > prep.i or noun.dep_ not in ("nsubj", "nsubjpass"):
        # a subject only: "is a rural gmina in Elblag County, Warmian-Masurian Voivodeship" names where the county
        # lies (a MuSiQue reading)
        return
    doc = name.doc
    if doc[name.left_edge.i - 1].text != "," or name.left_edge.i != place.i + 2:
        return
    end = name.right_edge.i + 1
    if end < len(doc) and doc[end].text != ",":
        return
    name.head = noun
    if end < len(doc) and doc[end].head.i == place.i:
        doc[end].head = noun  # the closing comma too: no crossing arc
