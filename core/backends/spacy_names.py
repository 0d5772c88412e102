"""The triples of one passage over its parsed pieces, with short names resolved to the full name.

A passage's pieces (:mod:`core.backends.spacy_relations`) are merged and de-duplicated; a surname, a
place's head word, a given name or a firm's first word stands for the full name it abbreviates in the passage, and a
maiden name for the married name the passage also uses (:meth:`_Collected.aliases`);
the title entity is linked to every named entity the passage mentions (``mentions``) unless a
relation already links the two.
"""

from __future__ import annotations

import re
from typing import Any

from core.backends.base import ExtractedTriple
from core.backends.spacy_anaphora import PLACE_NOUNS as _PLACE_NOUNS
from core.backends.spacy_kinds import is_kind
from core.backends.spacy_lists import good_name as _good_name
from core.backends.spacy_mentions import VALUE_LABELS
from core.backends.spacy_relations import _Piece
from core.backends.spacy_repair import FIRM_HEADS
from core.text import canonical_entity, named_person, normalize_name


class _Collected:
    """The triples of one passage over its pieces, plus its title links, de-duplicated, with short
    names resolved to the full name they stand for in the passage (:meth:`aliases`)."""

    def __init__(self, title: str | None) -> None:
        self.title = title
        self.triples: list[ExtractedTriple] = []
        self.named: list[str] = []
        self.labels: dict[str, str] = {}
        #: name -> where it is first named in the passage (its mentions in text order, over all pieces): a bare
        #: surname is the full name named nearest *before* it (:meth:`aliases`)
        self.order: dict[str, int] = {}
        #: bare words of several names the title links to none of (:meth:`aliases`)
        self.unlinked: set[str] = set()
        #: whether a piece read the title as a person's (:meth:`_Mentions._title_person`)
        self.title_person = False
        #: names a mention of which is a clause's subject ("Quenby worked as …"): a person-titled passage's surname
        #: so used is the title's, whatever place label the small model gave it (:meth:`aliases`)
        self.subjects: set[str] = set()
        #: bare words a mention of which only qualifies a family noun ("Under Keswin ownership", "the Keswin name"):
        #: the one firm the passage names with that word, else no node (:meth:`aliases`)
        self.family: set[str] = set()
        self.kin: dict[str, str] = {}  # such a word before "family"/"brothers"/"sisters": "Dunmore" → "Dunmore family"
        self.unqualified: set[str] = set()  # names with a mention that qualifies no family noun
        #: names a mention of which is a place on its own ("born in X", "the town of X", "X is a village"): never the
        #: firm the passage names with that first word (:meth:`aliases`; "the furnace at Vellmora" is the glassworks)
        self.own_places: set[str] = set()

    def add(self, piece: _Piece) -> None:
        self.triples.extend(piece.triples)
        for name, label in piece.labels.items():
            self.labels.setdefault(name, label)
        self.title_person |= bool(self.title) and piece._title_person()
        for span in sorted(set(piece.mention_of.values())):  # in text order (the dict is not: chunks, then entities)
            self.order.setdefault(piece.text_of(span), len(self.order))
            if piece.doc[span[0]:span[1]].root.dep_ in ("nsubj", "nsubjpass"):
                self.subjects.add(piece.text_of(span))
            root = piece.doc[span[0]:span[1]].root
            if _own_place(root):
                self.own_places.add(piece.text_of(span))
            if span[2] and root.dep_ in ("compound", "nmod") and root.head.lower_ in _FAMILY_NOUNS:
                self.family.add(piece.text_of(span))
                if root.head.lower_ in _KIN_GROUPS and root.head.i == span[1] and span[2] != "NORP" and not any(
                        c.dep_ == "prep" for c in root.head.children) and piece.doc[span[0] - 1].lower_ == "the":
                    # "the Dunmore family", not "the Holiday Inn family" (the bare "Inn") nor "family of brands"
                    self.kin[piece.text_of(span)] = f"{piece.text_of(span)} {root.head.lower_}"
            elif span[2]:  # "Knott added …" beside "the Knott family": a name of its own
                self.unqualified.add(piece.text_of(span))
            if span[2] and span[2] != "TITLE" and span[2] not in VALUE_LABELS:
                name = piece.text_of(span)
                if _good_name(name):
                    self.named.append(name)
                    self.labels.setdefault(name, span[2])
            elif not span[2] and all(t.pos_ == "PROPN" for t in piece.doc[span[0]:span[1]]) \
                    and not piece.doc[span[0]].is_sent_start and self._title_prefix(piece.text_of(span)):
                self.named.append(piece.text_of(span))  # "The Gull …" in "Gull roadster": "Gull roadster · mentions · Gull"

    def _title_prefix(self, name: str) -> bool:
        """Whether ``name`` is the capitalised words a title of a name and lower-case nouns starts with ("Gull" of
        "Gull roadster"): the thing's own name, unlabelled by the small model (proper nouns not opening a sentence: no
        "Currency …" of "Currency transaction report"), which the title links to."""
        raw = (self.title or "").split(" (", 1)[0].split()
        k = next((i for i, w in enumerate(raw) if not w[:1].isupper()), len(raw))
        return 0 < k < len(raw) and all(w.isalpha() and w.islower() for w in raw[k:]) and name.split() == raw[:k]

    def _starts_name(self, full: str, label: str, full_label: str, name: str = "") -> bool:
        """Whether a bare first word labelled ``label`` may stand for ``full``: a person's given name (a name
        :func:`~core.text.named_person` reads as a person's; not a king's "Lothair" of "Lothair II"), or a firm's first
        word ("Dunmere Holdings"); never a thing named after a place ("Brannock Carillon", "Batesville Regional
        Airport", whose title line the small model tags PERSON) nor a name going on in lower case ("Wren roadster");
        a PERSON-tagged word is the PERSON-tagged person, not the title, named in full before it ("her nephew Dorran
        Calloran took over. Under Dorran …", no given name in the lists); "Ashgrove" is the "Ashgrove Trading House"."""
        raw = full.split(" (", 1)[0].split()
        if len(raw) < 2 or not raw[1][:1].isupper() or all(x.lower() in _NAME_SUFFIXES for x in raw[1:]):
            return False
        # a person's by a given name first (the small model tags "Dandi Satyagraha", and a title line, PERSON)
        person = (full_label == "PERSON" or full == self.title) and named_person(" ".join(raw))
        person = person or (full_label == label == "PERSON" and full != self.title and name in self.order
                            and self.order.get(full, self.order[name]) < self.order[name])
        return (person and label in ("PERSON", "")) or raw[-1].lower() in _FIRM_HEADS or (
            full_label == "ORG" and raw[-1].lower() in _HOUSE_HEADS and any(x.lower() in _FIRM_HEADS for x in raw[1:-1]))

    def aliases(self) -> dict[str, str]:
        """Short names that stand for a longer name of the same passage: ``{"Snow": "Hank Snow"}``.

        Wikipedia (and most prose) names a person in full once, then by surname ("Clarence Eugene
        'Hank' Snow … Snow signed with RCA"), and a place by its head word ("Jiménez Municipality …
        Jiménez is one of …"). An OpenIE LLM resolves these; left alone, "Snow" and "Jiménez" become
        nodes shared by every passage with a person or place of that name — false bridges. A name of
        one or two capitalized words (a person's, or an unlabelled proper noun) maps to the longer name of the passage — the title, or a
        person named in it — that ends with those words (generational suffixes such as "II" or "Jr."
        aside): the title when it is one of them (the passage is about it; so whatever the small model tagged the
        surname when the title is a person's: "the Society awarded Ostberg" in "Cassia Ostberg"), else the person
        named nearest before the short name is first used, never one named only after it ("At sixteen Ostberg …"
        is not the nephew "Rurik Ostberg" named later); or to the title when the title starts with them and goes on only with a generic head
        noun ("Municipality", "River", …); when the title is one of several such names, the title wins
        (the passage is about it); a name after "of" in the title is what the title is of, never its short name
        ("Circus Marvetti" in "Sale of Circus Marvetti"). A person's fuller name that contains the title's words in order
        ('Clarence Eugene "Hank" Snow' in "Hank Snow") is the title. A one-word name no such name ends with is the
        one longer name of the passage (the title or a named entity) that starts with it, where exactly one does and it
        is a person's or a firm's (:meth:`_starts_name`: "Orla" in "Orla Fenwick", "Dunmere" beside "Dunmere
        Holdings"; a place never a person's or a firm's: "Washington" is no "Washington Irving"). A maiden name is the married name the passage also gives the spouse's wife or husband
        ("Pell married Miriam Lusk … Miriam Pell kept …": Miriam Pell). "<Name> and <Name>" is the one firm the passage names
        with those words and a firm's head ("Marrick and Stoll Holdings"). A bare word that two or more names of the passage
        start with, one a firm's or a person's and none a place's ("Pellow" of "Pellow Typewriter Company" and "Pellow
        Medal"; no acronym), is the one person named with it as
        surname ("Anselm Pellow"); with none or several, the title links to no such word (:attr:`unlinked`). A bare word that
        only qualifies a family noun ("Under Keswin ownership") is the one firm the passage names with it, else (with
        namesakes) no node. A person title's surname the small model tagged a place is the title where it is a clause's
        subject ("Quenby worked as …"), the title all capitalised ("Steel industry in China" is no person's). Dates and numbers are never aliased.
        """
        def words(name: str) -> tuple[str, ...]:
            return tuple(normalize_name(canonical_entity(name)).split())

        full: list[tuple[tuple[str, ...], str]] = []  # (words without suffix, name): title and persons
        title_words: tuple[str, ...] = ()
        if self.title:
            title_words = words(re.split(r" \(|, ", self.title, maxsplit=1)[0])
            full.append((_strip_suffix(title_words), self.title))
        # a full name whose last word alone is a clause's subject ("Tamsin Vell" (ORG) … "Vell had trained as …")
        subject_words = {words(n) for n in self.subjects if len(words(n)) == 1 and self.labels.get(n) not in _PLACE_LABELS
                         and not n.isupper()}  # a person's two words: no "American MTV", "US Congress", "Olympic Winter Games"
        for name, label in self.labels.items():
            w = words(name)
            if len(w) >= 2 and (label == "PERSON" or _person_named(name, label) or (
                    len(w) == 2 and w[-1:] in subject_words and label not in _PLACE_LABELS | VALUE_LABELS | {"TITLE"}
                    and name[:1].isupper() and not name.split()[0].isupper() and w[-1] not in _FIRM_HEADS | FIRM_HEADS)):
                full.append((_strip_suffix(w), name))
        # the longer names a bare first word may stand for: the title and each named entity of two words or more
        labels_of = {n: lab for n, lab in self.labels.items() if lab not in VALUE_LABELS and lab != "TITLE"}
        firsts = [(title_words, str(self.title))] if self.title else []
        firsts += [(words(n), n) for n, lab in labels_of.items() if lab and n[:1].isupper()]
        out: dict[str, str] = {}
        family: set[str] = set()  # "Keswin" of "Under Keswin ownership": the one firm, else the namesakes' word
        for name in self.family - self.unqualified:
            w = words(name)
            if len(w) == 1 and f"{name} family" in self.labels:  # "bought it from the Molgrave family": that node alone
                family.add(name)
                continue
            if len(w) == 1 and name in self.kin:  # "until the sale to the Dunmore family": no edge, yet no bare "Dunmore"
                out[name] = self.kin[name]
                continue
            if self.labels.get(name) == "NORP" or not any(  # "the Tuareg name"; "the Calvert family" its
                    len(fw) > 1 and w and w[0] in (fw[0], fw[-1]) for fw, _ in firsts):  # only node: kept
                continue
            firms = {f for fw, f in firsts if len(fw) > 1 and fw[0] == w[0] and (labels_of.get(f) == "ORG" or (
                         f == self.title and not self.title_person))} if len(w) == 1 else set()
            if len(firms) == 1:
                out[name] = firms.pop()
            elif len(w) == 1:
                family.add(name)
        for name, label in self.labels.items():
            w = words(name)
            if name in out or name in family:
                continue
            if label in VALUE_LABELS or label == "TITLE" or not 1 <= len(w) <= 2 or not name[:1].isupper():
                continue
            # a surname: the parser may tag a lone surname ORG ("Sheeran"), but a place never stands
            # for a person, and "Tours" is no short name of the title "Ermengarde of Tours"
            # nor is "Circus Marvetti" the title "Sale of Circus Marvetti": a name after "of" is what the title is of
            # (but "Armstrong" is the "Rural Municipality of Armstrong", a place head before "of")
            if len(w) == 1 and len(title_words) > 1 and title_words[0] == w[0] and (
                    label not in _PLACE_LABELS or name not in self.own_places) \
                    and title_words[-1] in _FIRM_HEADS | FIRM_HEADS:
                out[name] = str(self.title)  # "Halvet grew" in "Halvet Instruments" is the firm, not "Ruben Halvet"
                continue
            targets = {f for fw, f in full if len(fw) > len(w) and fw[-len(w):] == w and _short_of(fw, len(w))
                       and (label in ("PERSON", "") or (label not in _PLACE_LABELS and (
                           f != self.title or self.title_person or is_kind(w[-1]))) or (  # "The Courthouse" (audit 56)  # "Quenby worked …" (GPE) in "Halvard Quenby"
                           f == self.title and self.title_person and name in self.subjects and all(
                               x[:1].isupper() for x in f.split(" (", 1)[0].split())))}
            if title_words and len(title_words) > len(w) and title_words[:len(w)] == w \
                    and all(x in _GENERIC_HEADS for x in title_words[len(w):]):
                targets.add(str(self.title))
            if not targets and len(w) == 1:  # a first word: "Orla" of "Orla Fenwick", "Quillon" of "Quillon Honey Co."
                starts = {fw: f for fw, f in firsts if len(fw) > 1 and fw[0] == w[0]}  # one name only: no
                # "Sapporo" among "Sapporo Sugar Company", "Sapporo Beer Garden", …
                if len(starts) == 1 and label not in _PLACE_LABELS and self._starts_name(
                        next(iter(starts.values())), label, labels_of.get(next(iter(starts.values())), ""), name):
                    out[name] = starts.popitem()[1]
                    continue
            if label == "ORG" and len(w) == 1 and 1 < len(title_words) < 4 and title_words[-1] == w[0] \
                    and w[0].endswith("s") and not self.title_person:
                out[name] = str(self.title)  # "The Rovers first played …" in "Orvenna Rovers": the club, no node "Rovers"
                continue
            if ", " in (self.title or "") and w == title_words and label not in ("PERSON", "TITLE"):
                out[name] = str(self.title)  # "Hosterman" in "Hosterman, West Virginia" (no person "… Hosterman")
                continue
            if self.title in targets:
                out[name] = self.title  # the passage is about its title: "Snow" in "Hank Snow"
            elif name in self.order and any(f in self.order for f in targets):
                # the person named nearest before the short name's first use: none named only after it
                before = [f for f in targets if self.order.get(f, self.order[name]) < self.order[name]]
                if before:
                    out[name] = max(before, key=lambda f: self.order[f])
            elif len(targets) == 1:  # where the text gave no order (names the pieces' spans do not hold)
                out[name] = targets.pop()
        self.unlinked = set(family)
        for name, label in self.labels.items():  # "Pellow" beside "Pellow Typewriter Company" and "Pellow Medal"
            w = words(name)
            kin = [(fw, f) for fw, f in firsts if len(fw) > 1 and fw[0] == w[0]]
            if name in out or len(w) != 1 or label in VALUE_LABELS or label in _PLACE_LABELS or label == "TITLE" \
                    or len(kin) < 2 or name.isupper() or any(labels_of.get(f) in _PLACE_LABELS for _, f in kin) \
                    or not any(fw[-1] in _FIRM_HEADS | FIRM_HEADS or labels_of.get(f) == "PERSON" for fw, f in kin):
                continue  # an acronym ("MTV" beside "MTV India"), a place's ("Dandi March"), none a firm's or person's
            persons = {n for n, lab in labels_of.items() if lab not in _PLACE_LABELS and 2 <= len(words(n)) <= 3
                       and words(n)[-1] == w[0] and n[:1].isupper() and words(n)[0] != w[0]}
            if len(persons) == 1:
                out[name] = persons.pop()  # the one person of that surname: "Anselm Pellow"
            else:
                self.unlinked.add(name)  # the namesakes' word, no node of its own
        for name, label in self.labels.items():  # "at the Atelier" is the "Verlaque Atelier" the passage names
            w = words(name)
            ends = {f for fw, f in firsts if len(fw) > 1 and w and (w[0] in (fw[0], fw[-1]) or (
                w[0] in _HOUSE_HEADS and w[0] in fw)) and f != name and labels_of.get(f) not in _PLACE_LABELS}
            if name in out or name in self.unlinked or len(w) != 1 or label in VALUE_LABELS or label in _PLACE_LABELS \
                    or label == "TITLE" or name.isupper() or not ends or (w[0] not in _HOUSE_HEADS and not all(
                    {words(f)[0], words(f)[-1]} & (_HOUSE_HEADS | _FIRM_HEADS | FIRM_HEADS) for f in ends)):
                continue  # a bare word of a house's name only: "Verlaque" of "Maison Verlaque" and "Verlaque Atelier"
            bodies = {f for f in ends if _body_of(w[0], words(f))}  # not "Society" of "X Society Transactions"
            if w[0] in _HOUSE_HEADS and self.title in bodies:
                out[name] = str(self.title)  # "the Institute" in "New South Wales Institute of Sport"
            elif len(bodies) == 1 and w[0] in _HOUSE_HEADS:  # not "Harvard" of "Harvard Business School"
                out[name] = bodies.pop()
            elif len(ends) > 1:
                self.unlinked.add(name)  # the houses' word, no node of its own
        for name in self.labels:  # "Marrick and Stoll" is the firm "Marrick and Stoll Holdings" the passage names
            firm = [n for n in self.labels if n.startswith(name + " ") and " and " in name
                    and n[len(name) + 1:].lower() in FIRM_HEADS]
            if len(firm) == 1:
                out[name] = firm[0]
        # a maiden name is the married name the passage also uses: "Pell married Miriam Lusk … Miriam Pell kept …"
        wed = {(out.get(t.head, t.head), t.tail) for t in self.triples if t.relation == "married"}
        for spouse, maiden in wed | {(b, a) for a, b in wed}:
            mw, sw = words(maiden), words(spouse)
            wife = [n for n, lab in self.labels.items() if lab == "PERSON" and len(mw) == 2 and len(sw) >= 2
                    and words(n) == (mw[0], sw[-1]) and mw[1] != sw[-1] and mw[0] not in _PARTICLES]
            if len(wife) == 1 and maiden not in out:
                out[maiden] = wife[0]
        if len(title_words) >= 2:  # a fuller form of the title: 'Clarence Eugene "Hank" Snow' is "Hank Snow"
            for name, label in self.labels.items():
                w = tuple(x.strip("\"'“”‘’") for x in words(name))
                if label == "PERSON" and len(w) > len(title_words) and w[-1] == title_words[-1] \
                        and _subsequence(title_words, w):
                    out[name] = str(self.title)
        return out

    def finish(self) -> list[ExtractedTriple]:
        out: list[ExtractedTriple] = []
        seen: set[tuple[str, str, str]] = set()
        linked: set[str] = set()
        alias = self.aliases()

        def key(name: str) -> str:
            return normalize_name(canonical_entity(name))

        for t in self.triples:
            t = ExtractedTriple(alias.get(t.head, t.head), t.relation, alias.get(t.tail, t.tail))
            k = (key(t.head), normalize_name(t.relation), key(t.tail))
            if k not in seen and k[0] and k[2] and k[0] != k[2]:
                seen.add(k)
                out.append(t)
        if self.title:
            tk = key(self.title)
            linked = {k[2] for k in seen if k[0] == tk} | {k[0] for k in seen if k[2] == tk}
            for name in self.named:
                name = alias.get(name, name)
                nk = key(name)
                if nk and nk != tk and nk not in linked and not _inside(nk, tk) and name not in self.unlinked:
                    linked.add(nk)
                    out.append(ExtractedTriple(self.title, "mentions", name))
        return out


_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC", "NORP", "LANGUAGE"})
#: nouns a bare family word only qualifies ("Under Keswin ownership", "the Keswin name"; :attr:`_Collected.family`)
_FAMILY_NOUNS = frozenset({"ownership", "name", "family", "control", "management", "era", "brand", "estate", "heirs",
                           "dynasty", "fortune", "brothers", "sisters"})
#: nouns of a family a bare name before them is of: its node is "<name> family" (:attr:`_Collected.kin`)
_KIN_GROUPS = frozenset({"family", "brothers", "sisters"})


def _person_named(name: str, label: str) -> bool:
    """A name the small model tagged otherwise ("Tomasz Vellaric" ORG) that reads as a person's full name: a given
    name first (:func:`~core.text.named_person`), and no place, date or number by its label."""
    return label not in _PLACE_LABELS and label not in VALUE_LABELS and label != "TITLE" and named_person(name)
#: Generational suffixes ignored when a surname is matched ("Strauss" → "Johann Strauss II").
_NAME_SUFFIXES = frozenset({"ii", "iii", "iv", "jr", "jr.", "sr", "sr.", "junior", "senior"})
#: Head nouns after which a title's first words are its short name ("Jiménez" → "Jiménez Municipality").
_GENERIC_HEADS = frozenset({
    "municipality", "county", "district", "province", "parish", "township", "village", "town", "city",
    "state", "region", "department", "prefecture", "island", "islands", "river", "lake", "mountain",
    "mountains", "valley", "bay", "airport", "station", "university", "college", "school", "company",
    "corporation", "inc.", "ltd", "band", "fc", "f.c.", "club"})


#: a surname's first word, no given name ("Van Alen" is no "Van Buren" married)
_PARTICLES = frozenset({"van", "von", "de", "der", "den", "di", "da", "du", "del", "della", "la", "le", "st", "st.",
                        "mac", "mc", "o", "al", "el", "ben", "bin", "ter", "ten"})
#: a firm's last word: its first word alone is the firm ("Dunmere" of "Dunmere Holdings")
_FIRM_HEADS = frozenset({"company", "holdings", "trading", "group", "corporation", "industries", "enterprises",
                         "ltd", "ltd.", "limited", "inc", "inc.", "plc", "co.", "brothers", "sons", "partners",
                         "instruments", "glassworks"})


#: first or last words of a house's or a body's name: its other word alone is that name ("Atelier" of "Verlaque Atelier",
#: :meth:`_Collected.aliases`; two such names: neither)
_HOUSE_HEADS = frozenset({"atelier", "maison", "guild", "society", "academy", "institute", "school", "workshop", "studio",
                          "house", "foundation", "association", "league", "union", "club", "press", "works"})


def _body_of(head: str, name: tuple[str, ...]) -> bool:
    """Whether ``head`` names the body ``name``: its last word, or before "of" ("House of Tudor"), or a house's first
    word ("Maison Verlaque")."""
    return name[-1] == head or any(name[i] == head and name[i + 1] == "of" for i in range(len(name) - 1)) or (
        name[0] == head and head in ("maison", "atelier"))


def _short_of(full: tuple[str, ...], n: int) -> bool:
    """Whether the last ``n`` words of ``full`` may stand for it: not after "of" ("Circus Marvetti" is what "Sale of
    Circus Marvetti" is of), unless a place's head comes before ("Kingdom of Gera", "Rural Municipality of X")."""
    return len(full) < n + 2 or full[-n - 1] != "of" or full[-n - 2] in _GENERIC_HEADS or full[-n - 2] in _REALMS


#: heads of a realm named by "of": "Gera" is the "Kingdom of Gera"
_REALMS = frozenset({"kingdom", "duchy", "principality", "republic", "empire", "emirate", "sultanate", "county",
                     "municipality", "borough", "commune", "barony", "earldom", "grand duchy", "khanate"})


def _subsequence(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def _strip_suffix(w: tuple[str, ...]) -> tuple[str, ...]:
    while len(w) > 1 and w[-1].strip(".,") in _NAME_SUFFIXES:
        w = w[:-1]
    return w


_WORD = re.compile(r"\w+")


def _inside(name_key: str, title_key: str) -> bool:
    """A mention that is the title's own name ("David Bradley" in "David Bradley (director)")."""
    return bool(name_key) and title_key.startswith(name_key + " ") and len(_WORD.findall(name_key)) >= 2


def _own_place(root: Any) -> bool:
    """Whether the mention headed by ``root`` is a place on its own: a verb's place ("born in X", "moved to X"), what
    a place noun is of ("the town of X"), a copula's subject or an appositive's head ("X is a village", "X, a town"),
    never a thing's ("the last furnace at Vellmora" is the glassworks of "Vellmora Glassworks")."""
    if root.dep_ == "pobj" and root.head.head.pos_ in ("VERB", "AUX"):
        return True
    if root.dep_ == "pobj" and root.head.lower_ == "of" and root.head.head.lower_ in _PLACE_NOUNS:
        return True
    return any(c.dep_ == "appos" for c in root.children) or (
        root.dep_ == "nsubj" and any(c.dep_ == "attr" for c in root.head.children))
