"""Mentions in one spaCy-parsed piece of text: which tokens name which entity, and by what name.

Named entities (``doc.ents``) and noun chunks without their determiners are mentions, the title's tokens the
title, a name after its description the name alone (the spans: :mod:`core.backends.spacy_spans`). A subject pronoun
(he, she, it, they) opening its sentence is the subject of the previous sentence when that one is of
its kind (``it``: a common noun or a named thing, ``he``/``she``: a person the text never called the other, ``they``: a
plural noun; after "X is the Named Y", the name), and one in a later clause is its sentence's subject when that
one is of its kind ("The workshop trained twelve engravers before *it* closed"); a ``he``/``she`` subject goes on with
the sentence before's ``he``/``she`` (a chain), else takes that sentence's subject (the title too, when a person), else
the title when a person the text called so or a "his"/"her" before it points at, else the last person named, else the
title, never one the text called the other pronoun (:meth:`_Mentions._he_she`), and before a subject of no stated gender
the one an object "her"/"him" of the sentence before stood for; an "it" after a person's sentence is that sentence's
thing object; "the buyer"/"the seller" are the parties of the sentence before's sale (:mod:`spacy_anaphora`); other
pronouns and the title's own name are the title. A definite description ("the workshop") is the name before it that ends with its noun ("the Stane
Workshop"), else the title where the title's last word is its noun ("the nursery" in "Hollin Vale Nursery"), else, as a
subject, a thing the sentence or the one before brought in with "a" ("a second greenhouse … The greenhouse"), else, as a
main clause's subject, the title ("the film"). A role noun with a name in apposition ("the engineer
Sofia Marrow") is that name. Dates, times and numbers (:data:`VALUE_LABELS`) are
mentions too, used by :mod:`core.backends.spacy_relations` only as the object of a relation.
"""

from __future__ import annotations

import re
from typing import Any

from core.backends import spacy_anaphora as ana
from core.backends import spacy_appositions as apps
from core.backends import spacy_kinds as kinds
from core.backends import spacy_lists as lists
from core.backends import spacy_openers as op
from core.backends import spacy_people as ppl
from core.backends import spacy_pronouns as pr
from core.backends import spacy_referents as rf
from core.backends import spacy_spans as spans
from core.backends import spacy_works as wk
from core.backends.spacy_lists import good_name as _good_name
from core.backends.spacy_pronouns import BODY_NOUNS, ROLE_GENDER, _fits, life_dates, made_person, office_of
from core.backends.spacy_spans import VALUE_LABELS, mention_spans
from core.text import SAINTS, canonical_entity, clean_text, named_person, normalize_name

_PRONOUNS = frozenset({"he", "she", "it", "they", "his", "her", "its", "their", "him", "them"})
_SUBJECT_PRONOUNS = frozenset({"he", "she", "it", "they"})
_SUBJ_DEPS = ("nsubj", "nsubjpass")
#: what a "he"/"she" stands for where no one fits (the title was called the other pronoun): no mention at all
_NOBODY = ("", "")
#: role nouns of people by their ending ("the engraver Pim Rattery"; not "the river Aske": ``kinds.THING_AGENTS``)
_AGENT = kinds.AGENT
#: prepositions whose object is a place, never a person ("born in Ostrava Mill", "died at Kellbrug")
_PLACE_PREPS = frozenset({"in", "at", "near"})
#: Entity labels an appositive name may have to stand for its role noun ("the engineer Sofia Marrow").
_NOT_NAMES = VALUE_LABELS | {"NORP", "LANGUAGE"}

_EDGE_PUNCT = " \"'`“”‘’,;:-–—/"


def doc_dep(tok: Any) -> str:
    return str(tok.dep_)


class _Mentions:
    """The mentions of one parsed piece of text (``doc``) whose passage has title ``title``."""

    def __init__(self, doc: Any, title: str | None, before: Carry | None = None) -> None:
        self.doc = doc
        self.title = title
        #: what the passage before this one (same document) ended on (:meth:`carry`): the first sentence's pronoun
        #: reads it as it reads the sentence before within a passage
        self.before = before
        #: token index -> (start, end, label) of the mention the token is part of (:func:`mention_spans`)
        self.mention_of: dict[int, tuple[int, int, str]] = mention_spans(doc, title)
        # the title's own name before a comma or parenthesis ("John Wallop, 2nd Earl of Portsmouth"): the title entity
        self.title_keys: set[str] = set()
        self._antecedents: dict[int, tuple[tuple[str, str], str] | None] | None = None
        #: sentence start -> the person the sentence before it named last (what "he"/"she" stands for when the
        #: subject before is no person)
        self._persons: dict[int, list[tuple[str, str]]] = {}
        #: names the text shows to be people's though the small model tagged them otherwise (:meth:`_people_of`)
        self._people: set[str] = set()
        #: names the text puts where a place goes ("born in Ostrava Mill", tagged PERSON): no "he"/"she" (:meth:`_person`)
        self._places: set[str] = set()
        #: name -> "he"/"she" where the text said so ("She …" read as the person, "her nephew" after the person)
        self._gender: dict[str, str] = dict(before[2]) if before is not None else {}
        self._end: Carry = (None, None, {}, {})
        #: sentence start -> what the sentence before it leaves besides its subject (:mod:`spacy_anaphora`)
        self._others: dict[int, ana.Others] = {}
        self._title_is_person = self._title_thing = False  # a thing: called "its"/"the firm" (thing_title)
        if title:
            t = normalize_name(title)
            self.title_keys = {t, normalize_name(canonical_entity(title))}
            for sep in (",", " ("):
                if sep in title:
                    self.title_keys.add(normalize_name(canonical_entity(title.split(sep, 1)[0])))

    # -- mentions ------------------------------------------------------------------------------
    def text_of(self, span: tuple[int, int, str]) -> str:
        s, e, _ = span
        if e - s >= 1 and self.doc[e - 1].tag_ == "POS" and not SAINTS.match(self.doc[s:e].text):
            e -= 1  # a saint's kept: "churchwarden of Saint Anne's" is the church
        return " ".join(re.sub(r'["“”]', " ", clean_text(self.doc[s:e].text)).split()).strip(_EDGE_PUNCT)  # no quote

    def mention(self, tok: Any, *, as_subject: bool = False) -> tuple[str, str] | None:
        """(name, entity label or "") of the mention ``tok`` heads, resolving pronouns (:meth:`antecedent`,
        else the title) and role nouns (:meth:`role_name`)."""
        if kinds.subject_apposition(tok) or kinds.sibling_rank(tok):
            return None  # "she won it in 1872, the first person to do so"; "the elder became a physician"
        if tok.lower_ in _PRONOUNS and tok.pos_ == "PRON":
            near = pr.its_near(self, tok) or pr.them_object(self, tok)  # "closed the mill after its owner died": the mill's (audit 55); "bought the papers …. X catalogued them" (audit 57)
            if near is not None:
                return near if near[0] else None
            got = self.antecedent(tok) if not pr.prep_it_of_object(tok) else _NOBODY  # "owned every house on it"
            if got == _NOBODY:
                return None
            thing = tok.lower_ in ("it", "its")  # "it" is a firm, a work, a place: never a person (else no edge)
            if got is not None:
                return None if thing and made_person(self, got) else got
            if (tok.lower_ == "them" and self._title_person()) or (thing and made_person(self, ("", "TITLE"))):
                return None  # "her violas … bought sets of them": a plural, never the one person of the title
            if self._subjects_ready() and (self._title_thing or pr.other_sex_title(self, tok)):  # "he wrote to her"
                return pr.personal(self, tok)  # not the title a "he" stood for (round 62)
            return rf.title_fallback(self, tok)  # only a title that fits the pronoun (audit 58, class A)
        own = ana.own_thing(self, tok, _NOT_NAMES)  # "her own company": its name, or no node
        if own is not None:
            return own if own[0] else None
        named = self.role_name(tok)
        if named is not None:
            return named
        span = self.mention_of.get(tok.i)
        if span is None:
            if tok.pos_ != "PROPN":
                return None
            start = tok.i  # a proper noun outside any chunk: with its compound words ("Lothair II")
            while start > 0 and doc_dep(self.doc[start - 1]) == "compound" and self.doc[start - 1].head.i >= tok.i - 3:
                start -= 1
            span = (start, tok.i + 1, "")
        s, e, label = span
        if label == "TITLE" and self.title:
            return self.title, "TITLE"
        name = (kinds.shared_surname(tok) if e - s == 1 else None) or self.text_of(span)  # "Lemuel and Gad Stask"
        if not _good_name(name) or name in ("one", "ones"):
            return None  # "bought its first one": a pronoun-like "one" names nothing (the CARDINAL tag is no number)
        if self.title and label not in VALUE_LABELS and normalize_name(canonical_entity(name)) in self.title_keys:
            return self.title, "TITLE"
        if not label:
            words = [t for t in self.doc[s:e] if not t.is_punct]
            proper = any(t.pos_ == "PROPN" for t in words)
            first = self.doc[span[0] - 1] if span[0] > 0 else None
            definite = first is not None and first.lower_ in ("the", "this", "that")
            # an object only as the bare noun: "the largest clock" describes, "for the nursery" refers
            if definite and not proper and (len(words) <= 2 if as_subject else (
                    len(words) == 1 and tok.dep_ in ("dobj", "pobj"))):
                party = ana.party_of(tok)  # "… was sold to X. The buyer kept …": X
                if party is not None and self._subjects_ready() and party in self._others.get(tok.sent.start, {}):
                    return self._others[tok.sent.start][party]  # type: ignore[no-any-return]
                named = apps.subject_person(self, tok, as_subject) or wk.work_part(self, tok, as_subject) or ana.named_before(self, tok) or kinds.named_kind(self, tok) or ana.described_town(self, tok)  # "her own studio, the Stane
                # Workshop, … The workshop trained …"; "Brannock, a market town, … the town holds …"
                if named is not None:
                    return named
                head = normalize_name(self.title or "").split()
                if head and head[-1] == tok.lower_:  # "ran the nursery" in "Hollin Vale Nursery"
                    return self.title or "", "TITLE"
                earlier = ana.earlier_indefinite(self, tok) if as_subject else None
                if earlier is not None:  # "opened a second greenhouse … The greenhouse was designed by": no title
                    return earlier if earlier[0] else None
                if as_subject and self.title and ana.main_clause(tok) and ana.titles_kind(self, tok) and not (
                        tok.lower_ in kinds.WORK_KIND and self._title_person() and not kinds.title_of_kind(
                            self, kinds.WORK_KIND)):  # a person is never "the painting" ("Tai Chi 0 is a film": no person)
                    if spans.of_title(self, tok):  # "the chapel of Tarsk", "the corn exchange of Gaulmere": its own
                        return f"{name} of {self.title}", ""
                    if not lists.own_thing_noun(tok, self.title):  # "The last apprentices moved": no node (audit 55)
                        return None if kinds.not_the_title(self, tok) or rf.described_not_title(self, tok) else (self.title, "TITLE")  # "the film" of a film
            if len(words) == 1 and not proper and not words[0].like_num:
                return spans.of_phrase(self, tok)  # a bare common noun ("film") would join every passage about one
        return name, label

    # -- simple coreference ----------------------------------------------------------------------
    def role_name(self, tok: Any) -> tuple[str, str] | None:
        """The named entity in apposition to a common noun: "the engineer Sofia Marrow" is Sofia Marrow.

        Only when ``tok``'s own mention is no name (a bare or unlabelled common noun): "the Wachowskis,
        a duo" stays the Wachowskis. Without this, "the engineer" took the "the film" rule (a definite
        description is the title) and "designed by the engineer Sofia Marrow" gave "<title> is Sofia Marrow".
        """
        picked = lists.picked_name(tok)  # "the elder, Sabeth Tollevane, ran …": Sabeth, never "<title> is Sabeth"
        if picked is not None or tok.pos_ != "NOUN":
            return None if picked is None else self.mention(picked)
        past = lists.name_past_owned(tok) if tok.dep_ in ("dobj", "pobj") else None  # "an award in her memory, X"
        if past is not None and tok.i in (past[0].i, past[1].head.i):
            return self.mention(past[1]) if tok.i == past[0].i else None
        own = ana.own_thing(self, tok, _NOT_NAMES)  # "her own company, Crane Looms"
        if own is not None:
            return own if own[0] else None
        named = ana.name_after(self, tok, _NOT_NAMES) or ana.kin_name(self, tok, _NOT_NAMES) or ana.owned_name(
            self, tok, _NOT_NAMES) or ana.called_name(self, tok, _NOT_NAMES) or apps.of_object_name(self, tok)  # "the house Osterby & Daughters", "X's
        if named is not None:  # son, Casimir Vantreck,", "her best-known book, The Cacao Atlas,", "a heron called X"
            return named
        span = self.mention_of.get(tok.i)
        loose = None if span is not None and span[2] else ana.loose_name(self, tok, _NOT_NAMES)
        if loose is not None:  # "married the architect Jonas Pell": Jonas Pell, where the parser left the name loose
            return loose
        if span is not None and (span[2] or any(t.pos_ == "PROPN" for t in self.doc[span[0]:span[1]])):
            return None
        for c in tok.children:
            # no comma between: "the Christian saint, Monica" is left to the appositive rule
            # nor between "<noun> in <place>" and its name ("A street in Harvoy, Castemar Row,": spacy_repair)
            if c.dep_ == "appos" and c.pos_ == "PROPN" and not apps.of_name(tok, c) and (not any(t.is_punct for t in self.doc[tok.i + 1:c.i]) or any(
                    x.dep_ == "poss" for x in tok.children) or any(
                    p.dep_ == "prep" and p.i == tok.i + 1 and p.lower_ in _PLACE_PREPS and p.right_edge.i + 1 == c.left_edge.i
                    and self.doc[p.right_edge.i].text == "," for p in tok.children)):
                got = self.mention(c)
                # an unlabelled name counts when all proper nouns ("the astronomer Ilse Brandvik" lost "founded … by")
                span = self.mention_of.get(c.i)
                plain = got is not None and not got[1] and span is not None and all(
                    t.pos_ == "PROPN" for t in self.doc[span[0]:span[1]])
                if got is not None and ((got[1] and got[1] not in _NOT_NAMES) or plain):
                    return got
        return ana.named_place(self, tok, _NOT_NAMES)

    def antecedent(self, tok: Any) -> tuple[str, str] | None:
        """What a subject pronoun opening its sentence stands for: the previous sentence's subject when
        that one is of its kind (:func:`_fits`); None (the caller takes the title) otherwise, and for
        every other pronoun.

        "The Ostra bridge was built in 1866. It replaced a ferry landing.": "It" is the bridge, not the
        passage "Ostra River". A chain of pronouns keeps the antecedent ("It was rebuilt in 1950.").
        """
        word = tok.lower_
        if word not in _SUBJECT_PRONOUNS or tok.dep_ not in _SUBJ_DEPS:
            return None
        sent = tok.sent
        earlier = [t for t in self.doc[sent.start:tok.i] if t.dep_ in _SUBJ_DEPS]
        if earlier:  # "The workshop trained twelve engravers before it closed": the sentence's subject, if it fits
            first = earlier[0]
            if first.pos_ == "PRON":  # "He trained … before he moved": the same pronoun is the same one
                if first.lower_ == word and word in ("he", "she"):
                    return self.antecedent(first)
                return self._other_sex_before(word, tok) if word in ("he", "she") else None
            if first.head.i == tok.head.i:
                return None
            if (obj := pr.own_object(first, word, tok)) is not None:  # "X took him on …, after he wrote": not X
                return self.mention(obj) or _NOBODY
            got = self.mention(first, as_subject=True)
            if word in ("he", "she") and got is not None and got[1] not in VALUE_LABELS:
                other = self._other_sex_before(word, tok)  # "Wyre married Ilse Marrow; she …": not Wyre, a "he"
                if other is not None:
                    return other
            if got is None or got[1] in VALUE_LABELS or got[1] == "TITLE":  # the title by name: its pronoun
                return None if (self.mention_of.get(first.i) or (0, 0, ""))[2] == "TITLE" else pr.relative_person(self, word, tok)
            tag = str(first.tag_) + ("+body" if got[1] == "ORG" and first.lower_ in BODY_NOUNS else "")  # "the group"
            made = word in ("he", "she") and first.pos_ == "PROPN" and self._subjects_ready() and (  # "the luthier X"
                self._person(got, tag) or self._gender.get(got[0]) == word)  # (tagged ORG), one the text called "she"
            if (_fits(word, got, tag) or made) and self._gender.get(got[0], word) == word:
                return got
            return pr.relative_person(self, word, tok)  # "X was Corra, for a salt she made": hers, not the title's
        self._subjects_ready()
        prev = self._antecedents.get(sent.start) if self._antecedents else None
        if word in ("he", "she"):
            return self._he_she(word, prev, self._persons.get(sent.start, []), tok)
        own = self._others.get(sent.start, {}).get("owner") if word == "it" else None
        if own is not None:  # "Its first scent, Vell Water, was sold … In 1949 it bought …": the house
            return own[0]  # type: ignore[no-any-return]
        if prev is not None and ((_fits(word, *prev) and self._gender.get(prev[0][0], word) == word) or (word == "it" and (
                prev[1] == "TITLE" and not made_person(self, prev[0])))):  # "X sponsors a prize. Today it runs": X
            return prev[0]
        thing = self._others.get(sent.start, {}).get(word)  # "She bred the X pea. It was sold …": the pea
        return thing[0] if thing is not None else None

    def _subjects_ready(self) -> bool:
        if self._antecedents is None:
            self._antecedents = {}  # a mention looked up below never comes back here
            self._antecedents = self._sentence_subjects()
        return True

    def _he_she(self, word: str, prev: tuple[tuple[str, str], str] | None,
                persons: list[tuple[str, str]], tok: Any = None) -> tuple[str, str]:
        """What a "he"/"she" subject ``tok`` stands for (centering): the entity the previous sentence's "he"/"she"
        subject stood for (a chain goes on), else the previous sentence's subject when a person of a fitting gender
        ("Anselm Tessely was born in Varn. He trained …"; the title when a person: "Krkić broke the record set by
        Lionel Messi. He scored …"), else the title when a person the text called this pronoun or that a "his"/"her"
        before ``tok`` in its sentence stands for ("Inside his family, he …"), else the last person named of a fitting
        gender, else the title; never a name the text already called the other pronoun: the title so called is
        :data:`_NOBODY`."""
        if prev is not None and prev[1] == "PRON:" + word:
            return prev[0]
        other = self._other_sex_before(word, tok) or op.opening_title(self, word, tok) or pr.pair_title(self, word, tok, prev)  # audit 57; round 64: "He succeeded her"
        if other is not None:
            return other
        # "… Edwin Marlow trained under her there. She bred …": the one the "her" stood for goes on (centering prefers
        # continuing it), not a subject whose gender the text never gave
        cb = self._others.get(tok.sent.start, {}).get(word) if tok is not None else None
        if cb is not None and prev is not None and prev[1] != "TITLE" and not prev[1].startswith("PRON:") \
                and prev[0] != cb and prev[0][0] not in self._gender and self._sex_fits(cb[0], word):
            return cb  # type: ignore[no-any-return]
        titled = bool(self.title) and self._sex_fits(self.title or "", word) and self._title_person()
        if prev is not None and prev[1] == "TITLE":
            if titled:
                return prev[0]
        elif prev is not None and not prev[1].startswith("PRON:") and self._person(*prev) and self._sex_fits(
                prev[0][0], word):
            return prev[0]
        own = ("his", "him", "himself") if word == "he" else ("her", "herself")
        if titled and (self._gender.get(self.title or "") == word or (tok is not None and any(
                t.lower_ in own and t.pos_ == "PRON" for t in self.doc[tok.sent.start:tok.i]))):
            return self.title or "", "TITLE"
        poss = tok is not None and tok.dep_ == "poss" and not self._title_person()  # round 62: "… Ruth Dorsey, died.
        further = pr.earlier_persons(self, tok) if poss else []  # The apprentices moved …. Her sister-in-law, X, …"
        for p in pr.said_first(self, persons + further, word):  # a place the text named later ("moved to X … at X") is no one (audit 56)
            if self._sex_fits(p[0], word) and self._person(p, "NNP"):
                return p
        if self.title and self._sex_fits(self.title, word) and rf.may_be_person(self, tok):  # never a firm, nor a title unnamed
            return self.title, "TITLE"
        return _NOBODY

    def _other_sex_before(self, word: str, tok: Any) -> tuple[str, str] | None:
        """Where the subject named before ``tok`` in its sentence is one the text called the other pronoun ("Wyre
        married the painter Ilse Marrow in 1891; *she* designed …", Wyre a "he"): the person named last before
        ``tok`` in the sentence whom the text never called the other pronoun (Ilse Marrow), else an owned parent noun's
        person (:func:`core.backends.spacy_anaphora.parent_before`: "her father … when he died"), else None."""
        if tok is None or not self._subjects_ready():
            return None
        sent = tok.sent
        subject = next((t for t in self.doc[sent.start:tok.i] if t.dep_ in _SUBJ_DEPS), None)
        # a pronoun subject only when the other one ("In 1891 he married the painter Ilse Marrow, and she …")
        said = subject is not None and subject.pos_ == "PRON"
        if subject is None or (said and subject.lower_ not in ("he", "she")) or subject.lower_ == word:
            return None
        got = self.mention(subject, as_subject=True)
        if got is None:
            return None
        # the title under its short name too ("Wyre" in the passage "Tomas Wyre")
        titled = got[1] == "TITLE" or self._names_title(got[0], got[1])
        name = (self.title or "") if titled else got[0]
        if not said and self._gender.get(name, word) == word:
            return None
        for p in self._named_people(self.doc[sent.start:tok.i], subject):
            if p[0] != name and self._sex_fits(p[0], word):
                return p
        return ana.parent_before(self, word, tok)  # "She learned … from her father … when he died": the father

    def _title_person(self) -> bool:
        """Whether the title is a person's: a given name first, or the text made it one (a "he"/"she", a person named
        by it as a subject: :meth:`_sentence_subjects`)."""
        return not self._title_thing and (self._title_is_person or (self.title or "") in self._gender or named_person(
            (self.title or "").split(" (", 1)[0]))

    def _sex_fits(self, name: str, word: str) -> bool:
        # only what the text said: Faker's given-name lists put "Orla" among the men's
        return self._gender.get(name, word) == word

    def _person(self, mention: tuple[str, str], tag: str) -> bool:
        """A person's name: :func:`_fits` for "he", or one the text made a person (:meth:`_people_of`); never a
        name the text put where a place goes and nowhere made a person ("… born in Ostrava Mill. Her daughter …":
        a gendered pronoun stands for a person, not for a place the small model tagged PERSON)."""
        if mention[0] in self._places and mention[0] not in self._people and mention[0] not in self._gender:
            return False
        return _fits("he", mention, tag) or (mention[0] in self._people and tag not in ("NNS", "NNPS", "NNP+the"))

    def _people_of(self, sent: Any) -> None:
        """Names ``sent`` shows to be people's though the small model tagged them otherwise: the subject of "was
        born" or of "was a painter" (:func:`core.backends.spacy_kinds.agent_attr`), a name after a person's role noun ("the engraver Pim
        Rattery"); and names it puts where a place goes (:data:`_PLACE_PREPS`)."""
        for tok in sent:
            if tok.pos_ != "PROPN" or tok.i not in self.mention_of:
                continue
            span = self.mention_of[tok.i]
            if span[1] != tok.i + 1 or span[2] in VALUE_LABELS or span[2] == "TITLE":
                continue
            born = tok.dep_ in _SUBJ_DEPS and tok.head.lower_ == "born"
            role = any(n.pos_ == "NOUN" and n.tag_ == "NN" and _AGENT.fullmatch(n.lower_) for n in (  # "X, a cooper"
                *self.doc[span[0] - 1:span[0]], *(c for c in tok.children if c.dep_ == "appos" and c.i > tok.i + 1 and
                                                   self.doc[c.left_edge.i].lower_ in ("a", "an"))))
            if born or role or kinds.agent_attr(tok, _AGENT) or ppl.person_cue(self, tok, span):  # round 64
                self._people.add(self.text_of(span))
            elif tok.dep_ == "pobj" and (tok.head.lower_ in _PLACE_PREPS or office_of(tok)):  # "born in X", "founder of X"
                self._places.add(self.text_of(span))
            # "Kim Jong-il's mother, Kim Jong-suk, …": a name in apposition to a kin or rank noun has its gender
            kin = apps.kin_through_role(tok) if tok.dep_ == "appos" else next((c for c in tok.children if c.dep_ == "appos"), tok)
            if kin.lower_ in ROLE_GENDER and kin.pos_ == "NOUN":
                self._gender.setdefault(self.text_of(span), ROLE_GENDER[kin.lower_])

    def _sentence_subjects(self) -> dict[int, tuple[tuple[str, str], str] | None]:
        """Sentence start -> the previous sentence's subject (mention, its head's tag), pronouns resolved in order."""
        out: dict[int, tuple[tuple[str, str], str] | None] = {}
        prev, person = (self.before[0], self.before[1]) if self.before is not None else (None, None)
        persons = [person] if person is not None else []
        others: ana.Others = dict(self.before[3]) if self.before is not None else {}
        for sent in self.doc.sents:
            out[sent.start] = prev
            self._persons[sent.start] = persons
            self._others[sent.start] = others
            self._people_of(sent)
            subs = [c for c in sent.root.children if c.dep_ in _SUBJ_DEPS]
            cur = None
            if subs and subs[0].pos_ == "PRON":
                word = subs[0].lower_
                if word in ("he", "she"):
                    she = self._he_she(word, prev, persons, subs[0])
                    if she != _NOBODY:
                        self._gender.setdefault(she[0], word)
                        cur = (she, "PRON:" + word)  # the chain the next "he"/"she" goes on
                elif word == "it" and "owner" in others:  # after "Its first scent …": the scent's owner
                    cur = others["owner"]
                elif word in _SUBJECT_PRONOUNS and prev is not None and _fits(word, *prev) \
                        and self._gender.get(prev[0][0], word) == word:
                    cur = prev
                elif word in others:  # the thing a person acted on (an "it" chain goes on with it)
                    cur = others[word]
            elif subs:
                got = self.mention(subs[0], as_subject=True)
                if got is not None and got[1] not in ("PERSON", "TITLE") and got[0] in self._people:
                    got = (got[0], "PERSON")  # "the engraver Pim Rattery …" then "He …" (next passage too)
                if got is not None and self.title and (got[1] == "TITLE" or (got[1] in ("PERSON", "") and subs[
                        0].pos_ == "PROPN" and self._names_title(got[0], got[1]))):
                    # the title, under a short name too ("Garbarek was born …. He grew up …"): a person when so named,
                    pr.thing_title(self, sent, subs[0])  # or "was born" (tagged ORG); never one called "its"/"the firm"
                    self._title_is_person |= got[1] == "PERSON" or subs[0].ent_type_ == "PERSON" or (
                        subs[0].pos_ == "PROPN" and (sent.root.lower_ == "born" or kinds.agent_attr(subs[0], _AGENT) or life_dates(subs[0])))
                    cur = ((self.title, "TITLE"), "TITLE")  # "The first winner of it was Petra Fenwick": Petra
                    cur = (ana.named_attr(self, sent.root, VALUE_LABELS) if subs[0].tag_ == "NN" and _AGENT.fullmatch(
                        subs[0].lower_) else None) or cur
                elif got is not None and got[1] not in VALUE_LABELS:
                    # a proper name after "the" names a thing ("The Grey Heron was a steam ferry. It carried …")
                    the = subs[0].tag_ == "NNP" and got[0] not in self._people and any(c.dep_ == "det" and c.lower_ == "the" for c in subs[0].children)
                    body = got[1] == "ORG" and subs[0].tag_ == "NN" and subs[0].lower_ in BODY_NOUNS
                    cur = (got, str(subs[0].tag_) + ("+the" if the else "") + ("+body" if body else ""))
                    named = ana.named_attr(self, sent.root, VALUE_LABELS) if not got[1] and subs[0].pos_ == "NOUN" else None
                    if named is not None:  # "Her best-known work is the Larkmere Chalice. It was made in 1880"
                        cur = named
            if cur is not None and subs:  # "Hester Quill died … and her nephew …": Hester Quill is a "she"
                for t in self.doc[subs[0].i + 1:sent.end]:
                    # the title by name, where the word is its verb's own ("Bojan began his career"): a person
                    if cur[1] == "TITLE" and (subs[0].pos_ != "PROPN" or t.head.head.i != sent.root.i):
                        continue
                    if t.tag_ == "PRP$" and t.lower_ in ("her", "his"):
                        self._gender.setdefault(cur[0][0], "she" if t.lower_ == "her" else "he")
                        break
            others = {**ana.object_referents(self, sent, prev, persons, cur[0] if cur else None),
                      **ana.sale_parties(self, sent)}
            owner = ana.its_owner(self, subs[0] if subs else None, prev, _fits)
            if owner is not None:
                others["owner"] = owner
            if cur is not None and (cur[1].startswith("PRON:") or self._person(*cur) or (
                    cur[1] == "TITLE" and self._title_person())):
                thing = ana.thing_object(self, sent, _fits, VALUE_LABELS)  # a person is no "it": what it acted on
                if thing is not None:
                    others["it"] = thing
            prev = cur
            persons = self._named_people(sent, subs[0] if subs else None)
            if cur is not None and cur[0][1] != "TITLE" and (cur[1].startswith("PRON:") or self._person(*cur)) \
                    and cur[0] not in persons:
                persons.append(cur[0])
            person = persons[0] if persons else None
        self._end = (prev, person, dict(self._gender), others)
        return out

    def carry(self) -> Carry:
        """What the last sentence leaves for a pronoun opening the next passage of the same document: its subject
        (with its head's tag) when one of a pronoun's kinds, the person it named last, the genders the text gave.

        "Its first director was the historian Owen Pike." then "He bought the Larkmere Chalice": he is Owen Pike."""
        self._subjects_ready()
        return (*self._end[:3], {**self._end[3], op.TITLE_SAID: op.title_said(self), op.TITLE_LAST: op.title_last(self), wk.TITLE_WORK: wk.title_work(self), rf.TITLE_NAMED: rf.title_named(self)})

    def _named_people(self, sent: Any, subject: Any = None) -> list[tuple[str, str]]:
        """The people ``sent`` names other than its main ``subject``, the last first ("The company was founded by
        Hester Quill. She had been a grain merchant": she is Hester Quill, whom "she" cannot reach through the subject;
        "Hester Quill died and her nephew Ambrose Quill took over. He …": Ambrose Quill)."""
        out: list[tuple[str, str]] = []
        for tok in reversed(sent):
            if (subject is not None and tok.i == subject.i) or tok.pos_ != "PROPN" or tok.dep_ == "compound":
                continue  # a name that only qualifies a noun ("the Vellmora lighthouse") names no one
            span = self.mention_of.get(tok.i)
            if span is None or span[1] != tok.i + 1:
                continue
            got = self.mention(tok)
            if got is not None and got[1] != "TITLE" and self._person(got, "NNP") and not self._names_title(got[0]) \
                    and got not in out:
                out.append(got)
        return out

    def _names_title(self, name: str, label: str = "PERSON") -> bool:
        """A person named by a word of the title ("Schwarzenegger" in the passage "Arnold Schwarzenegger",
        "Owen Laird" in "Ron Laird"): the title under another form, not a second person."""
        if not self.title:
            return False
        # only by the title's last word, its surname: "Anselm Tessely" in "Tessely Clockworks" is a person of its own;
        # or the title's first or last word alone ("Bojan" in "Bojan Krkić", "Park" in "Park Geun-hye")
        words = [w for w in normalize_name(self.title.split(" (", 1)[0]).split() if len(w) > 2]
        got = normalize_name(name).split()
        if not words or (label == "PERSON" and words[-1] in got):
            return bool(words)
        raw = self.title.split(" (", 1)[0].split()
        if len(raw) > 1 and all(w.isalpha() and w.islower() for w in raw[1:]):
            return False  # "The Gull" in "Gull roadster" (no person's title): its own name, its node ("It had …" too)
        return len(words) > 1 and got in (words[:1], words[-1:])


#: What a passage's last sentence leaves for the next passage's pronouns (:meth:`_Mentions.carry`): the subject
#: mention with its head's tag, the person named last, the genders the text gave (name -> "he"/"she").
Carry = tuple[tuple[tuple[str, str], str] | None, tuple[str, str] | None, dict[str, str], ana.Others]
