"""Relation rules over the dependency parse of one piece of text: the ``spacy`` extractor's triples.

Subject–verb–object (``starred in``, active and passive ``directed by``), copular ``X is a Y``
(``is``), appositives (``X, a Y``), relational nouns (``X is the mother of Y``, ``Y's mother X`` →
``mother of``) and verb + preposition (``born in``). The subject of a participle is resolved
through the copula or apposition to the entity the sentence is about, never a modifier, nor the goods a maker makes
("a maker of wooden beehives founded by X": the maker). A date of an active verb is its named object's too ("hosted
the International Honey Exhibition in 1931"; a founding's date only its object's: :mod:`core.backends.spacy_dates`). A name listed after a plural noun ("its paper mills, among them X") and
an object a gapped clause shares ("bought X in 1921 and the Y in 1934") are :mod:`core.backends.spacy_lists`'s; where a description puts its holder ("a painter from X", "a town in Y") and a
place's unnamed thing ("A hotel at its summit was built by …") :mod:`core.backends.spacy_places`'s.
Mentions come from :mod:`core.backends.spacy_mentions`.
"""

from __future__ import annotations

from typing import Any

from core.backends import spacy_dates as dates
from core.backends import spacy_kinds as kinds
from core.backends import spacy_lists as lists
from core.backends import spacy_places as places
from core.backends import spacy_roles as roles
from core.backends import spacy_spans as spans
from core.backends.base import ExtractedTriple
from core.backends.spacy_anaphora import FAMILY, named_subjects, owned_name, titled_owner
from core.backends.spacy_mentions import _AGENT, _NOT_NAMES, VALUE_LABELS, Carry, _Mentions
from core.backends.spacy_pronouns import ROLE_GENDER, couple, its_thing, sentence_person
from core.backends.spacy_spans import COPULAS as _COPULAS
from core.text import canonical_entity, normalize_name

_RELATIVE = frozenset({"who", "which", "that", "whom", "whose"})
_SUBJ = ("nsubj", "nsubjpass", "csubj")
_OBJ = ("dobj", "attr", "oprd", "dative")
#: nouns that tie the name in apposition to their owner ("His daughter Agnes Marlow" → daughter of him)
_KIN = frozenset(ROLE_GENDER) | {"cousin", "child", "grandson", "granddaughter", "stepson", "stepdaughter"}
#: role nouns whose owner, when no person, is where the role is held ("employer in" a town: it employs people there)
_HELD_IN = frozenset({"employer", "investor"})
#: forms of "become" (the pipeline has no lemmatizer)
_BECOME = frozenset({"become", "becomes", "became", "becoming"})
class _Piece(_Mentions):
    """Triples of one parsed piece of text (``doc``) whose passage has title ``title``."""

    def __init__(self, doc: Any, title: str | None, before: Carry | None = None) -> None:
        super().__init__(doc, title, before)
        self.triples: list[ExtractedTriple] = []
        self.labels: dict[str, str] = {}  # mention name -> entity label ("" for a noun chunk)

    def subject(self, tok: Any, depth: int = 0) -> tuple[str, str] | None:
        """The entity ``tok`` stands for as a subject: through relative pronouns, copulas and appositions."""
        if depth > 4:
            return None
        if tok.lower_ in _RELATIVE and tok.head.dep_ == "relcl":
            return self.subject(places.founded_holder(tok.head), depth + 1)
        # "X is a 1999 Mexican drama film (directed by ...)": the film is X; but "Her best-known work is the Larkmere
        # Chalice, a cut-glass cup engraved with …": the cup is the Chalice, not the description "best-known work"
        if (tok.dep_ == "attr" or kinds.passive_oprd(tok)) and tok.head.pos_ in ("AUX", "VERB") and self._names_description(tok):
            got = self.mention(tok)
            if got is not None:
                return got
        if (tok.dep_ == "attr" or kinds.passive_oprd(tok)) and tok.head.pos_ in ("AUX", "VERB"):
            subj = self._subjects_of(tok.head, depth + 1)
            if subj:
                return subj[0]
            if any(c.dep_ in _SUBJ and c.pos_ == "NOUN" and any(d.dep_ == "poss" for d in c.children) and (
                    c.lower_ in _KIN or c.lower_ in FAMILY or _AGENT.fullmatch(c.lower_)) for c in tok.head.children):
                return None  # "Her brother was the last King of X": an unnamed other person, not "the last King" read
                # as the title ("Its quays were the centre of the tea trade" stays the town's)
        if tok.dep_ == "appos":  # "born in X, the daughter of Y": hers, not X's (audit 56)
            return self.subject(places.appos_holder(self, tok), depth + 1)
        if tok.dep_ == "conj" and tok.pos_ == "NOUN" and tok.head.dep_ == "attr" and self.mention(tok) is None:
            # "X was a perfumer and teacher born in Y": the teacher is X, as the perfumer is
            return self.subject(tok.head, depth + 1)
        got = self.mention(tok, as_subject=True)
        if got is None or got[1] in VALUE_LABELS:
            return None
        return got

    # -- relations -----------------------------------------------------------------------------
    def add(self, head: tuple[str, str] | None, relation: str, tail: tuple[str, str] | None) -> None:
        if head is None or tail is None or not relation:
            return
        if head[1] in VALUE_LABELS or (tail[1] == "DATE" and relation.endswith(" of") and tail[0].isdigit()):
            return  # "cut the plates for the Blue Atlas of 1899": the atlas's year, no "cut of · 1899"
        if normalize_name(canonical_entity(head[0])) == normalize_name(canonical_entity(tail[0])):
            return
        self.labels.setdefault(head[0], head[1])
        self.labels.setdefault(tail[0], tail[1])
        self.triples.append(ExtractedTriple(head[0], relation, tail[0]))

    @staticmethod
    def _conjuncts(tok: Any) -> list[Any]:
        return [tok, *kinds.conjuncts_of(tok), *lists.named_members(tok)]

    def verb_phrase(self, verb: Any) -> str:
        words = [verb.lower_]
        for c in verb.children:
            if c.dep_ == "prt":
                words.append(c.lower_)
            if c.dep_ == "neg":
                words.insert(0, "not")
        return " ".join(words)

    def relations(self) -> None:
        doc = self.doc
        for tok in doc:
            if tok.pos_ in ("VERB", "AUX") and tok.dep_ != "aux" and tok.dep_ != "auxpass":
                self._verb(tok)
            plural = lists.member_of(self, tok) if tok.pos_ in ("NOUN", "PROPN") and tok.dep_ != "compound" else None
            if plural is not None:  # "its paper mills, among them the Dwell Paper Mill": a mill, no "is"
                lists.member_edges(self, tok, plural)
            elif tok.dep_ == "appos" and tok not in lists.listed_names(tok.head):  # no "Two people · is · A"
                self._appos(tok)
            if tok.pos_ == "NOUN" and tok.dep_ in ("attr", "appos"):  # "a painter from X", "a town in Y"
                places.origin(self, tok)
                places.located(self, tok)
            if tok.lower_ in places.DIRECTIONS:  # "a parish west of Dunmere": located west of, no node "west"
                places.direction(self, tok)
            elif tok.pos_ in ("NOUN", "PROPN") and (tok.dep_ in ("attr", "appos") or (
                    kinds.passive_oprd(tok) and kinds.role_words(tok, _AGENT, ROLE_GENDER) is not None)):
                self._relational_noun(tok)  # "he was elected the first president of X" too
            elif tok.pos_ == "NOUN" and tok.lower_ in _KIN:
                self._kin(tok)
            elif tok.pos_ == "NOUN":
                self._owned_named(tok)

    def _subjects_of(self, verb: Any, depth: int = 0) -> list[tuple[str, str]]:
        subs = named_subjects([c for c in verb.children if c.dep_ in _SUBJ])  # not "The puppeteer" before her name
        obj = dates.participle_object(verb)
        if dates.noun_participle(verb):
            return []  # "and a fair held every May since 1850": the fair's, no subject's
        if not subs and obj is not None and not any(c.dep_ == "dobj" and not dates.timed(c) for c in verb.children):
            subs = [obj]  # "given the Grey Lark violin, made … by X": the violin was made (a participle on the object)
        v = verb
        while not subs and v.dep_ == "conj" and v.head.pos_ in ("VERB", "AUX"):
            v = v.head  # "was born in X and died in Y": the second verb shares the subject; a plural never a "was" (audit 58)
            subs = [c for c in v.children if c.dep_ in _SUBJ and not (c.tag_ == "NNS" and verb.lower_ in ("is", "was"))]
        if (not subs and verb.dep_ in ("acl", "relcl")) or (not subs and v.dep_ in ("acl", "relcl")):
            subs = [places.founded_holder(v)]  # "a film directed by X": the film (resolved further by subject())
        if not subs and spans.shares_subject(v) and depth < 3:
            # "He learned rigging from X", "She decided to move to Y": the one who learned or decided
            return self._subjects_of(v.head, depth + 1)
        if not subs and v.dep_ == "pcomp" and v.tag_ == "VBG" and v.head.head.pos_ in ("VERB", "AUX") and depth < 3:
            # "He was known for rescuing eleven passengers": the one rescuing is the subject of "known"
            return self._subjects_of(v.head.head, depth + 1)
        if not subs and v.dep_ == "ROOT" and self.title:
            # "Hello, I'm Your Aunt! () is a Soviet 1975 comedy": the parser lost the subject inside
            # the title; a title named before the root verb is its subject
            for i in range(v.i - 1, max(-1, v.i - 40), -1):  # back to the previous verb
                t = self.doc[i]
                if self.mention_of.get(i, (0, 0, ""))[2] == "TITLE":
                    return [(self.title, "TITLE")]
                if t.pos_ in ("VERB", "AUX") and t.dep_ not in ("aux", "auxpass"):
                    break
        out = []
        for s in subs:
            listed = lists.listed_names(s)  # "Two people were born in X: A and B": A and B (an appositive's own name)
            for c in listed or self._conjuncts(s):
                got = self.mention(c, as_subject=True) if listed else self.subject(c, depth)
                if got is not None:
                    out.append(got)
        return out

    def _verb(self, verb: Any) -> None:
        cop = verb.lower_ in ("is", "was", "are", "were", "be", "been")
        said = self._relational_subject(verb) if cop else 0
        if said == 2 or (cop and (lists.holder_preps(self, verb) or said == 1)):
            return  # "The first President of X was Y": no node "President"; "The first winner of X was Y": no "X · was"
        if spans.noun_read_as_verb(verb) or kinds.not_a_verb(verb):
            return  # "bought carts, barges and warehouses": no verb "barges"
        subjects = self._subjects_of(verb)
        phrase = self.verb_phrase(verb)
        if verb.dep_ == "pcomp" and verb.tag_ == "VBG" and verb.head.head.pos_ == "VERB":
            if lists.gerund_compound(verb):
                return  # "lives from walking tourism, dairy farming and …": a list of nouns, no verb "walking"
            if verb.head.lower_ in ("from", "for") and not any(c.dep_ in _OBJ for c in verb.children):
                # "retired from climbing in 1960": not "climbing in"; "after signing with X" is the signing's own
                phrase = f"{self.verb_phrase(verb.head.head)} {verb.head.lower_} {phrase}"
        if spans.shares_subject(verb):  # "learned rigging from X", "refused to sign X": not "rigging from", "sign"
            to = any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)
            phrase = f"{self.verb_phrase(verb.head)} {'to ' if to else ''}{phrase}"
        copula = verb.lower_ in _COPULAS
        whose = lists.whose_subject(verb)  # "a firm whose head office is in X": the firm's "head office in" X
        owner = self.subject(verb.head) if whose is not None else None
        held = lists.owned_copula_subject(verb) if copula and whose is None else None  # "The company's head office was in"
        if held is not None:
            last = (self.title or "").lower().split()[-1:] == [held[1].lower_] or lists.title_called(self, held[1])
            whose, owner = held[0], (self.title or "", "TITLE") if last else self.mention(held[1])
        if owner is not None and whose is not None and owner[1] not in VALUE_LABELS:
            subjects, phrase, copula = [owner], whose if copula else f"{whose} {phrase}", False
        if not subjects and not copula:  # "Its illustrations were painted by X": the owner's "illustrations painted by"
            owned = self._owned_subject(verb) or places.place_owner(self, verb)  # "A hotel at its summit was …"
            if owned is not None:
                subjects, phrase = [owned[0]], f"{owned[1]} {phrase}"
        if not subjects:
            return
        # "awarded Isolde Varn the Lumen Medal": the parser may hang the thing given (and what follows) on the
        # recipient, a name as the verb's dative; they are the verb's
        kids = [c for c in verb.children if not roles.indirect_pronoun(c)]  # "built her a loom": no "built · her"
        kids += [g for c in kids if c.dep_ == "dative" and c.pos_ == "PROPN" for g in c.children
                 if g.dep_ in ("dobj", "prep") and g.i > c.i]
        for c in kids:
            # "she sold it to X": spaCy's "dative" is here the preposition "to", whose object is the recipient
            dep = "prep" if c.dep_ == "dative" and c.pos_ == "ADP" else c.dep_
            if dep in _OBJ:
                rel = ("is" if verb.lower_ in ("is", "be", "been") else verb.lower_) if copula else phrase
                for o in self._conjuncts(c):
                    if (copula or verb.lower_ in _BECOME or kinds.passive_oprd(o)) and kinds.role_owner(
                            self, o, _AGENT, ROLE_GENDER):
                        continue  # "became its first president": its "first president of", no node (_relational_noun)
                    if copula and (self._relative(o) or self._names_description(o) or kinds.office(o, _AGENT, ROLE_GENDER)):
                        continue  # "is the museum's most visited object", "Her best-known work is X", "was the first
                        # Mayor of Y" (its "mayor of · Y"): no "is" node
                    tail = self.mention(o)
                    for s in subjects:
                        self.add(s, rel, tail)
                if not copula:
                    self._light_object(subjects, phrase, c)
            elif c.dep_ == "prep" and c.lower_ == "as" and not copula:
                self._role_object(subjects, phrase, c)
                continue
            elif dep in ("prep", "agent"):
                pobj = lists.prep_objects(c)  # "lived in X and in Y": Y too
                if c.dep_ == "dative":  # "X gave … to Y" only for a named giver: not "it gained worldwide attention,
                    # which gave impetus to …" (a noun phrase, no node worth the edge), and no value ("to eight")
                    pobj = [g for g in pobj if all((s[1] or s[0] in self._people) and s[1] not in _NOT_NAMES for s in subjects)
                            and (self.mention(g) or ("", ""))[1] not in VALUE_LABELS]
                role = self._taken_role(verb, phrase)
                if role is None:
                    continue  # "became in 1920" says nothing: a role named by a name or none at all
                rel = f"{role} {c.lower_}" if not copula else kinds.copula_relation(verb, c, self.mention)
                for p in pobj:
                    for o in self._conjuncts(p):
                        tail = self.mention(o)
                        own = rel if copula else spans.prep_relation(self, verb, c, role, o, tail)  # "built a shed in"
                        for s in (dates.date_holders(self, verb, c, tail, subjects) if not copula else subjects):
                            if own:  # None: "Under the new owners …", no edge
                                self.add(s, own, tail)
                if c.dep_ == "agent":  # "founded by X in the mill town of Y": founded in Y
                    places.agent_place(self, c, subjects, phrase)
                # "directed by X" under "starring" etc. is handled as its own verb
            elif c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX"):
                continue
        if copula:  # "Among the people born in X are Y and Z": born in X
            places.among_described(self, verb)
        if not copula:  # "bought X in 1921 and the Y in 1934": Y joined to the verb
            lists.gapped_objects(self, verb, subjects, phrase)

    def _taken_role(self, verb: Any, phrase: str) -> str | None:
        """The phrase a preposition of ``verb`` follows: "became mayor of Keldmoor in 1920" → "became mayor" (in
        1920), "became famous for" → "became famous"; an audit's KG read "became in · 1920". None for a "become"
        whose role is a name or missing (the name is its own edge: "became · Duke of York"); ``phrase`` for other
        verbs."""
        if verb.lower_ not in _BECOME:
            return phrase
        for c in verb.children:
            if c.dep_ == "acomp" and c.pos_ == "ADJ":
                return f"{phrase} {c.lower_}"
            if c.dep_ == "attr" and c.pos_ == "NOUN" and self.mention(c) is None:
                if any(t.dep_ == "amod" and t.i > c.i for t in c.children):
                    return None  # "a chess professional" parsed as the noun "chess": no "becoming chess in"
                return " ".join([phrase, *(t.lower_ for t in c.children if t.dep_ == "compound" and t.i < c.i), c.lower_])
        return None

    def date_holders(self, verb: Any, prep: Any, tail: tuple[str, str] | None, subjects: list[tuple[str, str]],
                     objects: list[tuple[str, str] | None]) -> list[tuple[str, str]]:
        """:func:`core.backends.spacy_dates.date_holders` for :mod:`core.backends.spacy_lists` (no import cycle)."""
        return dates.date_holders(self, verb, prep, tail, subjects, objects)

    def _possessor(self, tok: Any) -> tuple[str, str] | None:
        """The owner a possessive stands for: "his"/"her" a person named as a subject before it in its sentence,
        else as a "he"/"she" opening its sentence would be (no title that is no person: "Edwin Marlow died in 1889.
        His daughter …" is his); "its"/"their" and names as mentions."""
        if tok.pos_ != "PRON" or tok.lower_ not in ("his", "her"):
            return self.mention(tok)
        word = "he" if tok.lower_ == "his" else "she"
        joined = tok.head.head.i if tok.head.dep_ == "conj" else -1  # "X and later his son Y": X's
        for s in self.doc[tok.sent.start:tok.i]:  # "Hester Quill died … and her nephew", "After X's death … his nephew"
            own = self.mention(s) if (s.dep_ in ("nsubj", "nsubjpass", "poss") or s.i == joined) and s.pos_ == "PROPN" \
                else None
            if own is not None and own[1] != "TITLE" and (self._person(own, "NNP") or self._gender.get(own[0]) == word) \
                    and self._sex_fits(own[0], word):  # a name the text called "she" ("the luthier X", tagged ORG)
                return own
        self._subjects_ready()
        prev = self._antecedents.get(tok.sent.start) if self._antecedents else None
        got = sentence_person(self, tok, word) or self._he_she(word, prev, self._persons.get(tok.sent.start, []), tok)
        return None if not got[0] or (got[1] == "TITLE" and not self._title_person()) else got

    def _kin(self, noun: Any) -> None:
        """"His daughter Agnes Marlow then ran …" / "to her nephew Jaro Brask" → (Agnes Marlow, daughter of, him)."""
        named = self.role_name(noun)  # or "Orvane's nephew Corwin Abernel" (the noun the name's compound)
        if named is None and noun.dep_ == "compound" and noun.head.pos_ == "PROPN" and noun.lower_ in FAMILY \
                and noun.head.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj"):  # a clause's, not a cast list's
            named = self.mention(noun.head)
        # after a comma only a named owner's: "stands up to his sister, the formidable Aunt Alexandra" has a "his" too
        # far from its man to read (the last man named is her nephew's classmate)
        comma = noun.i + 1 < len(self.doc) and self.doc[noun.i + 1].text == ","
        for pair in (couple(self, c) for c in noun.children if c.dep_ == "poss" and named is not None):
            for o in pair:  # "X married Y. Their daughter Z …": the couple's
                self.add(named, f"{kinds.kin_word(noun)} of", o)
        for c in noun.children:  # a person's: not "their daughter", not the title that is no person
            if c.dep_ == "poss" and named is not None and c.lower_ not in ("its", "their") and not (
                    comma and c.pos_ != "PROPN"):
                owner = self._possessor(c)
                # the title only where the text made it a person ("Roman Empire" begins with a given name)
                titled = owner is not None and owner[1] == "TITLE" and (
                    self._title_is_person or (self.title or "") in self._gender) and not self._title_thing
                # a name owning a relative who is a person by name ("Oriel Vantreck's son, Casimir Vantreck", the
                # small model tagging "Oriel Vantreck's" ORG) is a person's
                kin = c.pos_ == "PROPN" and noun.lower_ in FAMILY and owner is not None and owner[1] in ("ORG", "")
                kin = kin or (owner is not None and owner[0] in self._gender)  # a "she" the model tagged ORG
                if owner is not None and (titled or (owner[1] != "TITLE" and (self._person(owner, "NNP") or kin))):
                    self.add(named, f"{kinds.kin_word(noun)} of", owner)

    def _owned_named(self, noun: Any) -> None:
        """"Her best-known book, X," → (X, book of, her) if "her" is the title's person (others: 4 of 16 wrong)."""
        named, role = owned_name(self, noun, _NOT_NAMES), None
        if named is None and noun.lower_ not in _KIN and any(c.dep_ == "poss" and c.pos_ != "PRON" for c in noun.children):
            role = kinds.role_words(noun, _AGENT, ROLE_GENDER, False)  # "the guild's first president, X," is X
            named = self.role_name(noun) if role is not None else None
        named = named or ("", "")
        for c in (noun.children if named[0] else ()):  # _possessor first: it may find the title a person
            owner = (self._possessor(c) or (kinds.body_owner(self, c) if role is not None else None)) \
                if c.dep_ == "poss" else None
            if owner is None or owner[0] == named[0]:
                continue
            if owner[1] == "TITLE" and ((self._title_is_person and not self._title_thing) or (  # "its founder, X", "its first fragrance, Y"
                    c.lower_ == "its" and self._title_thing and named[0][:1].isupper())):  # a name: no "its dairy, deli"
                self.add(named, self._role_of(kinds.kin_word(noun), owner), owner)
            elif role is not None and owner[1] not in VALUE_LABELS and c.pos_ != "PRON":
                # "The guild's first president, Matthew Colquhoun," → "first president of · <guild>" (a body's role)
                self.add(named, f"{role} {noun.lower_} of".strip(), owner)

    def _owned_subject(self, verb: Any) -> tuple[tuple[str, str], str] | None:
        """(owner, noun) of a subject that is an owned common noun and no node ("Its illustrations", "Her
        apprentices"): the owner acts through it."""
        for s in verb.children:
            if s.dep_ in ("nsubj", "nsubjpass") and s.pos_ == "NOUN" and self.mention(s, as_subject=True) is None:
                for c in s.children:
                    if c.dep_ == "poss":
                        owner = its_thing(self, c) or self._possessor(c)  # "… Its tower": the church's
                        return (owner, s.lower_) if owner is not None and owner[1] not in VALUE_LABELS else None
        return None

    def _relative(self, noun: Any) -> bool:
        """A common noun with an owner and no name of its own ("the museum's most visited object", "her older
        brother"): a description relative to its owner, which "X is …" must not make a node shared by every passage
        using the phrase (the relation to the owner, where that is a mention, is :meth:`_relational_noun`'s)."""
        return noun.pos_ == "NOUN" and any(c.dep_ == "poss" for c in noun.children) and self.role_name(noun) is None

    def _names_description(self, attr: Any) -> bool:
        """Whether ``attr`` is a name that a copula gives to a common-noun description ("Her best-known work is the
        Larkmere Chalice", "Its first director was the historian Owen Pike"): the name is what the sentence is about
        (:meth:`subject`), and "best-known work · is · Larkmere Chalice" would make the description a node of its own
        (the description's owner, if any, gets "work of": :meth:`_relational_subject`)."""
        verb = attr.head
        if attr.dep_ != "attr" or verb.lower_ not in ("is", "was", "are", "were", "been"):
            return False
        subs = [c for c in verb.children if c.dep_ == "nsubj"]
        if len(subs) != 1 or subs[0].pos_ != "NOUN" or self.role_name(subs[0]) is not None:
            return False
        span = self.mention_of.get(subs[0].i)
        if span is not None and (span[2] or any(t.pos_ == "PROPN" for t in self.doc[span[0]:span[1]])):
            return False  # the subject is a name itself
        named = self.role_name(attr) if attr.pos_ == "NOUN" else None
        got = named or (self.mention(attr) if attr.pos_ == "PROPN" else None)
        # a labelled name: not a value ("The coldest temperature is 5 °F"), a nationality or the title
        return got is not None and bool(got[1]) and got[1] not in _NOT_NAMES and got[1] != "TITLE"

    def _light_object(self, subjects: list[tuple[str, str]], phrase: str, obj: Any) -> None:
        """A bare noun object with a preposition: "took command of the ferry Silver Eel" → (X, took command of,
        Silver Eel); "took part in", "gained control of". The noun alone ("command") is no mention, so the fact
        was lost. Only a bare noun (no determiner or owner): "won the award for …" keeps its own object."""
        if obj.dep_ != "dobj" or obj.pos_ != "NOUN" or any(c.dep_ == "poss" for c in obj.children) \
                or obj.lower_ in places.DIRECTIONS:  # "located north-east of X": places.direction's
            return
        # with "the" only "of" and a noun that is no node: "cut the dial of the Marrowgate Tower Clock"
        the = any(c.dep_ == "det" for c in obj.children)
        if the and self.mention(obj) is not None:
            return
        a = any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in obj.children)  # "opened a shop in Brannock that
        for prep in obj.children:  # sold lamps": "opened shop in · Brannock" (only a name: "shop" alone is no node)
            if prep.dep_ != "prep" or (the and not a and prep.lower_ != "of"):
                continue
            for p in prep.children:
                if p.dep_ != "pobj":
                    continue
                for o in self._conjuncts(p):
                    tail = self.mention(o)
                    named = prep.lower_ == "of" or (o.pos_ != "PRON" and tail is not None and tail[1] not in VALUE_LABELS and tail[1])
                    for s in subjects if not a or named else []:
                        self.add(s, f"{phrase} {obj.lower_} {prep.lower_}", tail)

    def _role_object(self, subjects: list[tuple[str, str]], phrase: str, prep: Any) -> None:
        """"She joined the glassworks as an apprentice to Tobias Fenn" → (she, joined as apprentice to, Tobias Fenn):
        the role noun alone ("apprentice") is no mention, so the person it ties her to was lost (an audit). A role
        with its own name ("as the director Owen Pike") is that name; a fronted life stage ("As a young woman") none."""
        if prep.i < prep.head.i and any(p.lower_ in spans.LIFE_STAGES for p in prep.children):
            return
        for p in prep.children:
            if p.dep_ != "pobj":
                continue
            own = self.mention(p)
            if own is not None:
                for s in subjects:
                    self.add(s, f"{phrase} as", own)
                continue
            if p.pos_ != "NOUN":
                continue
            for inner in p.children:
                if inner.dep_ == "prep":
                    for o in inner.children:
                        if o.dep_ == "pobj":
                            for s in subjects:
                                self.add(s, f"{phrase} as {p.lower_} {inner.lower_}", self.mention(o))

    def _appos(self, tok: Any) -> None:
        self._owned_role(tok)
        head = self.subject(places.appos_holder(self, tok))  # "the daughter of the quarry owner X": the owner is X
        tail = places.named_in_place(self, tok, self.mention(tok))  # "A street in Harvoy, Castemar Row,": located in
        if head is None or tail is None or tail[1] in VALUE_LABELS or tail[1] in ("NORP", "LANGUAGE") or self._relative(tok):
            return  # "(Italian: La contessa di Parma)" is no "is Italian"; "X, the museum's best piece" no "is" node
        place = head[1] in ("GPE", "LOC", "FAC") and tail[1] in ("GPE", "LOC")
        self.add(head, "located in" if place else "is", tail)  # "Winnetka, Illinois"

    def _owned_role(self, tok: Any) -> None:
        """"Its founder, Henrik Corvane, started it in 1939" → (Henrik Corvane, founded, Corvane Group) (an audit's KG had
        only "Corvane Group · founder started in · 1939"); any other role noun's edge: :func:`spacy_roles.role_edge`."""
        role = tok.head
        roles.role_edge(self, role)  # "Marren's assistant, Piet Olley,", "The foreman of the works, X," (round 64)
        if role.pos_ != "NOUN" or role.tag_ != "NN" or not _AGENT.fullmatch(role.lower_) or tok.pos_ != "PROPN" \
                or role.dep_ not in ("nsubj", "nsubjpass"):
            return  # a subject only: "stands up to his sister, Aunt Alexandra" left "his" to the last man named
        poss = next((c for c in role.children if c.dep_ == "poss" and c.lower_ != "their"), None)
        name = self.mention(tok)
        if poss is None or name is None or (name[1] != "PERSON" and name[0] not in self._people):
            return
        owner = self._possessor(poss)
        if owner is not None and owner[1] not in VALUE_LABELS:
            founder = role.lower_ in ("founder", "co-founder", "cofounder")
            self.add(name, "founded" if founder else f"{kinds.kin_word(role)} of", owner)

    def _relational_subject(self, verb: Any) -> int:
        """"His mother was Ermengarde of Tours" / "The mother of X was Y" → (Y, mother of, X); "The current director
        is Y" in a passage about X (a main clause, a named Y) → (Y, director of, X); "The first President of X was Y"
        (an office with a capital, :func:`core.backends.spacy_kinds.office`) → (Y, president of, X). 2 where an
        office with a capital gave its holder a role: the sentence says no more (no "President · was · Y"); 1 where a
        person's role noun did ("The first winner of X was Y": no "X · was · Y", the copula's prepositions Y's)."""
        done = 0
        for s in verb.children:
            if s.dep_ != "nsubj" or (s.pos_ != "NOUN" and not kinds.office(s, _AGENT, ROLE_GENDER)):
                continue
            owners = [c for c in s.children if c.dep_ == "poss"]
            owners += [p for c in s.children if c.dep_ == "prep" and c.lower_ == "of" for p in c.children
                       if p.dep_ == "pobj"]
            # "The current director is Marek Lindqvist" in the observatory's passage: the director of its title
            titled = not owners and self.title is not None and verb.dep_ == "ROOT" and any(
                c.dep_ == "det" and c.lower_ == "the" for c in s.children) and not any(c.dep_ == "relcl" for c in s.children)  # "The man who bought her works was X": no "man of <title>" (audit 57)
            for o in verb.children:
                if o.dep_ != "attr":
                    continue
                for oc in self._conjuncts(o):
                    tail = self.mention(oc)
                    if tail is None or tail[1] in VALUE_LABELS or not (tail[1] or kinds.role_name(s, oc, _AGENT)):
                        continue
                    for ow in owners:
                        owner = self.mention(ow) or titled_owner(self, ow)
                        self.add(tail, self._role_of(kinds.kin_word(s), owner), owner)
                        done = max(done, 0 if owner is None else 2 if s.pos_ == "PROPN" else int(bool(_AGENT.fullmatch(
                            s.lower_))))  # 2: an office with a capital, 1: a person's role noun ("winner")
                    if titled and self.title:
                        self.add(tail, self._role_of(kinds.kin_word(s), (self.title, "TITLE")), (self.title, "TITLE"))
        return done

    def _relational_noun(self, noun: Any) -> None:
        """"X is the mother of Y" / "X, the mother of Y" / "X is Y's mother" → (X, mother of, Y)."""
        holder = self.subject(noun)
        if holder is None:
            return
        word, role = kinds.kin_word(noun), kinds.role_owner(self, noun, _AGENT, ROLE_GENDER)
        pre = f"{role[1]} " if role is not None and role[1] else ""  # "became the first winner of X": "first winner of"
        for c in noun.children:
            if c.dep_ == "prep" and (c.lower_ == "of" or (c.lower_ == "in" and word in _HELD_IN)):
                for p in lists.prep_objects(c):  # "the largest employer in Holt" as "of Holt"; "of X and of Y": Y too
                    for o in self._conjuncts(p):
                        owner = self.mention(o)
                        self.add(holder, pre + self._role_of(word, owner), owner)
            if c.dep_ == "poss":  # "became its first president": its the body named before it, the title a person
                owner = kinds.poss_owner(self, c, holder) if role is not None else self.mention(c)
                self.add(holder, pre + self._role_of(word, owner), owner)

    def _role_of(self, word: str, owner: tuple[str, str] | None) -> str:
        """The relation of a role noun to its owner: "mother of", "president of"; "employer in" where the owner is no
        person ("Its largest employer was the X Company" in a village's passage: the company employs people there, an
        audit's KG read "X Company · employer of · <village>"; "Her employer was X" stays "employer of")."""
        if word in _HELD_IN and owner is not None and not (
                owner[1] == "PERSON" or owner[0] in self._people
                or (owner[1] == "TITLE" and self._title_person()) or (owner[1] != "TITLE" and self._person(owner, "NNP"))):
            return f"{word} in"
        return f"{word} of"

