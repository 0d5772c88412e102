"""Small text helpers shared by loaders, builder, methods and evaluation.

* names: :func:`normalize_name` (the entity merge key), :func:`clean_text`, :func:`content_hash`;
* words: :data:`FUNCTION_WORDS` and :data:`STOPWORDS`, one list for every method;
* sentences: :func:`split_sentences` (the rule-based extractor, the extractive answers and the
  passage chunker all split with it);
* answers: SQuAD answer normalisation, exact match and token F1 (:func:`answer_scores`).
"""

from __future__ import annotations

import hashlib
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

# Stripped from both ends of a name (after whitespace is collapsed to single spaces). str.strip is
# linear in the name; the regex it replaces backtracked on long runs of punctuation.
_EDGE_CHARS = " \"'`.,;:!?()[]{}"


def plural(n: int, word: str, many: str = "") -> str:
    """``"1 passage"``, ``"3 passages"`` (``many``: an irregular plural): a count a person reads, never "passage(s)".

    >>> plural(1, "file"), plural(1_200, "passage"), plural(2, "entry", "entries")
    ('1 file', '1,200 passages', '2 entries')
    """
    return f"{n:,} {word if abs(n) == 1 else (many or word + 's')}"


def singular(word: str) -> str | None:
    """A regular English plural's singular by its "s" alone; None where the ending is no sure guide.

    >>> singular("boats"), singular("seaplanes"), singular("buses"), singular("movies"), singular("glass")
    ('boat', 'seaplane', None, None, None)
    """
    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is", "ies", "ses", "oes", "ves", "xes",
                                                                  "zes", "ches", "shes")):
        return None
    return word[:-1]


def normalize_name(name: str) -> str:
    """Key under which entity names are merged.

    Unicode NFKC, lower-cased, whitespace collapsed, surrounding quotes/punctuation stripped.
    The MuSiQue OpenIE graph uses exactly this (lower-case, whitespace-normalized) to arrive at
    16,246 distinct entities.

    >>> normalize_name('  "Laurence   Fishburne" ')
    'laurence fishburne'
    """
    s = unicodedata.normalize("NFKC", str(name)).casefold()
    return " ".join(s.split()).strip(_EDGE_CHARS)


#: Titles dropped from the front of an extracted entity name when at least two words remain
#: ("Sir Walter Scott" meets "Walter Scott"; "Dr. Dre" and "Mr. Jones" stay as they are).
HONORIFICS = frozenset({"mr", "mrs", "ms", "mx", "dr", "prof", "professor", "sir", "dame", "rev", "reverend"})
_LEADING_DETERMINER = re.compile(r"^(?:the|a|an)\s+(?=\S)", re.IGNORECASE)
_PAREN_TAIL = re.compile(r"^(?P<name>.*\S)\s*\((?P<note>[^()]*)\)$")
_HONORIFIC = re.compile(r"^(?P<word>[A-Za-z]+)\.?\s+(?=\S)")
#: a saint's name with a possessive: the church, college or hospital named after the saint ("churchwarden of Saint
#: Anne's"), not the saint
SAINTS = re.compile(r"^(?:the\s+)?(?:Saint|St\.?|Ste\.?)\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?['’]s$")


def canonical_entity(name: str, *, drop_article: bool = True) -> str:
    """The canonical spelling of an *extracted* entity name: what every triple extractor's output
    merges under, so one entity spelled two ways is one node, with the case kept for display.

    Whitespace collapsed, then, in order: a trailing disambiguation in parentheses of at most four
    words dropped ("David Bradley (director)" → "David Bradley"), a possessive dropped
    ("Lothair II's" → "Lothair II", "the Beatles'" → "the Beatles"; a saint's is kept: "Saint Anne's" is a
    church, :data:`SAINTS`), a leading article dropped
    ("the Wachowskis" → "Wachowskis"), a leading honorific dropped when two words remain
    (:data:`HONORIFICS`: "Dr. Jane Smith" → "Jane Smith"). A name that would lose its last letter or
    digit is kept as it is. ``drop_article=False`` keeps the article (the display spelling: "The
    Matrix" is shown as such but merges with "Matrix"). Commas are kept: "John Wallop, 2nd Earl of Portsmouth" is one entity,
    and "Portland, Oregon" is not "Portland, Maine".

    Loaded graphs (triples files, HippoRAG OpenIE) are not changed: they merge by
    :func:`normalize_name` alone, so a published KG keeps its own entities.

    >>> canonical_entity("David Bradley (director)")
    'David Bradley'
    >>> canonical_entity("the Mexican film's")
    'Mexican film'
    >>> canonical_entity("Sir Walter Scott")
    'Walter Scott'
    """
    def keep(new: str, old: str) -> str:
        return new if any(c.isalnum() for c in new) else old

    s = clean_text(name).strip(" \"'`“”‘’")
    m = _PAREN_TAIL.match(s)
    if m and len(m.group("note").split()) <= 4:
        s = keep(m.group("name").rstrip(" ,"), s)
    if len(s) > 2 and s[-2:] in ("'s", "’s") and s[-3].isalnum() and not SAINTS.match(s):
        s = keep(s[:-2].rstrip(), s)
    elif len(s) > 2 and s[-1] in "'’" and s[-2] == "s":
        s = s[:-1]
    if drop_article:
        s = keep(_LEADING_DETERMINER.sub("", s), s)
    m = _HONORIFIC.match(s)
    if m and m.group("word").lower() in HONORIFICS and len(s[m.end():].split()) >= 2:
        s = s[m.end():]
    return s


#: a terminal escape sequence (CSI "ESC [ ... m" colours, OSC "ESC ] ... BEL" titles, or a 2-byte escape)
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
#: control characters other than tab and newlines (C0, DEL, C1), and lone UTF-16 surrogates
_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def safe_text(text: str) -> str:
    r"""``text`` without terminal escape sequences or control characters (tab and newlines kept), with each
    lone surrogate (``"\ud800"`` in a JSON file: no character, and unwritable as UTF-8) as U+FFFD. Text read
    from a user's file passes through this before it is stored, so a name can neither recolour the
    terminal that prints it nor make saving the workspace fail.

    >>> safe_text("\x1b[31mred\x1b[0m A\ud800\x07")
    'red A�'
    """
    s = str(text)
    if not _UNSAFE.search(s):
        return s
    s = _ANSI.sub("", s)
    return _UNSAFE.sub(lambda m: "\ufffd" if "\ud800" <= m.group(0) <= "\udfff" else "", s)


def clean_text(text: str) -> str:
    """Collapse runs of whitespace and strip; keeps case (control characters dropped: :func:`safe_text`)."""
    return " ".join(safe_text(text).split())


def content_hash(*parts: str | bytes, n: int = 16) -> str:
    """Stable short sha256 hex digest over the given parts (separated, so ('a','b') != ('ab',))."""
    h = hashlib.sha256()
    buf: list[bytes] = []
    size = 0
    for p in parts:  # framed as before (8-byte length, bytes); fed in ~1 MB blocks, not per part
        b = p.encode("utf-8") if isinstance(p, str) else p
        buf.append(len(b).to_bytes(8, "little"))
        buf.append(b)
        size += len(b) + 8
        if size >= 1 << 20:
            h.update(b"".join(buf))
            buf.clear()
            size = 0
    h.update(b"".join(buf))
    return h.hexdigest()[:n]


def approx_tokens(text: str) -> int:
    """Cheap token estimate (~4 characters per token) used only when a backend reports none."""
    return max(1, (len(text) + 3) // 4) if text else 0


# ------------------------------------------------------------------------------------ words
#: Articles, prepositions, auxiliaries, pronouns and WH-words: an n-gram made only of these is never
#: an entity mention (ReG's query-entity linking skips such spans).
FUNCTION_WORDS = frozenset("""
the a an of in on at to and or is was who what when where which how did does do for by with from as that this
it its be are were has have had his her their he she they whose whom why
""".split())

#: :data:`FUNCTION_WORDS` plus the question verbs and quantifiers a keyword never consists of
#: ("find", "name", "list", "many", ...): BubbleRAG's `none`-mode keywords and SG-RAG's query graph
#: drop words from this list.
STOPWORDS = FUNCTION_WORDS | frozenset("""
about into through over after before between under during but nor so yet if then than these those there here
been being am done having will would shall should can could may might must it's them our we you your i me my
mine find name tell give list show one ones both either neither also not no yes same other another many much
more most some any each every all such only just very s together
""".split())


# ------------------------------------------------------------------------------------ sentences
#: Abbreviations whose trailing dot ends no sentence (and may sit inside a name: "Warner Bros. Pictures").
ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "inc", "ltd", "co",
           "corp", "no", "vol", "fig", "gen", "col", "lt", "sgt", "capt", "mt", "ft", "e.g", "i.e",
           "u.s", "u.k", "bros", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
           "nov", "dec"})
_SENT_END = re.compile(r"[.!?][\"'”’)\]]*\s+")


def split_sentences(text: str) -> list[str]:
    """Split on ``.``/``!``/``?`` followed by whitespace, except after single-letter initials
    ("J. K. Rowling") and common abbreviations ("Mr.", "St.", "U.S.").

    >>> split_sentences("Mr. Smith met J. K. Rowling. She wrote! Did he?")
    ['Mr. Smith met J. K. Rowling.', 'She wrote!', 'Did he?']
    """
    out: list[str] = []
    start = 0
    for m in _SENT_END.finditer(text):
        before = text[start:m.start()].split()
        last = before[-1].lower().rstrip(".").lstrip("([{\"'") if before else ""
        if text[m.start()] == "." and ((len(last) == 1 and last.isalpha()) or last in ABBREVIATIONS):
            continue
        sent = text[start:m.end()].strip()
        if sent:
            out.append(sent)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


# ------------------------------------------------------------------------------------ answers
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCT = set(string.punctuation)


def normalize_answer(s: str) -> str:
    """SQuAD v1.1 answer normalisation: lower-case, drop punctuation, drop the articles a/an/the,
    collapse whitespace (the official ``evaluate-v1.1.py``, as used by HotpotQA, MuSiQue, HippoRAG).

    >>> normalize_answer("The  Eiffel-Tower!")
    'eiffeltower'
    """
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def exact_match(prediction: str, gold: str) -> float:
    """1.0 when the normalised strings are equal (SQuAD EM)."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 between normalised prediction and gold (bag of tokens, with multiplicity).

    >>> round(token_f1("the cat sat", "a cat sat down"), 4)
    0.8
    """
    p, g = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not p or not g:
        return float(p == g)
    common = Counter(p) & Counter(g)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def answer_scores(prediction: str, golds: Iterable[str]) -> tuple[float, float]:
    """(EM, F1) of ``prediction``, each the maximum over the gold answers (aliases), SQuAD-style.

    Raises
    ------
    ValueError
        If there is no gold answer.
    """
    gs = [g for g in golds if g is not None]
    if not gs:
        raise ValueError("no gold answer: EM and F1 are undefined")
    return max(exact_match(prediction, g) for g in gs), max(token_f1(prediction, g) for g in gs)


#: Last words that make a name beginning with a given name a place or a body ("Victoria Station").
_NOT_PERSON_HEADS = {"light", "lighthouse", "lightship", "station", "street", "road", "avenue", "bay", "river", "hall",
                     "point", "island", "bridge", "park", "house", "tower", "quay", "bank", "lake", "mount", "mountain",
                     "school", "college", "university", "church", "cathedral", "board", "company", "hospital", "square",
                     "county", "city", "town", "falls", "harbour", "harbor", "port", "line", "railway", "airport",
                     "prize", "award", "trust", "society", "museum", "library", "theatre", "theater",
                     # a firm's or a works' ("Corvin Glassworks", "Odell Foods", :func:`body_word`: audit 58's "It
                     # was founded in 1838 by Benedikt Corvin" stayed bare, the glassworks read as a person)
                     "glassworks", "works", "ironworks", "factory", "foundry", "brewery",
                     "store", "firm", "foods", "holdings", "group", "press", "studio", "studios", "workshop",
                     "exhibition", "festival", "fair", "gallery", "chapel", "abbey", "priory",
                     "hotel", "estate", "manor", "palace", "gardens", "observatory", "institute",
                     "academy", "orchestra", "choir", "club", "league", "corporation", "industries", "records",
                     "pictures", "airlines", "airways", "motors", "bakery", "dairy", "creamery", "quarry"}
_HONORIFICS = {"captain", "capt", "sir", "dame", "lady", "lord", "dr", "doctor", "mr", "mrs", "miss", "ms",
               "professor", "prof", "saint", "st", "king", "queen", "prince", "princess", "father", "sister", "brother",
               "rev", "reverend", "general", "colonel", "major", "admiral", "judge", "bishop"}


@lru_cache(maxsize=1)
def _given_names() -> frozenset[str]:
    """Given names: Faker's ``en`` person provider (the US Social Security name lists) and the first names of its
    Latin-script European locales ("Tomasz", "Henrike", "Benedikt", "Lisbet": invented corpora use them, the US lists
    lack them), less the words of those locales that English prose uses more often as a place or a plain word; MIT,
    shipped with the package. Empty where the package is missing (then only spaCy's PERSON tag counts)."""
    try:
        from faker.providers.person.en import Provider
    except ImportError:
        return frozenset()
    import importlib

    locales = ("en_GB", "en_IE", "pl_PL", "de_DE", "de_AT", "cs_CZ", "sk_SK", "fr_FR", "it_IT", "es_ES", "pt_PT",
               "nl_NL", "sv_SE", "da_DK", "no_NO", "fi_FI", "sl_SI", "hr_HR", "ro_RO", "hu_HU")
    # first names of those locales that English prose uses more often otherwise: towns and countries ("Vigo",
    # "Breda", "Medina", "Asunción", "Belo Horizonte", "Mar Vista"), an adjective of a country or era ("Philippine",
    # "Georgian", "Tudor"), and English words that open capitalised names of things ("My Best Friend", "Marine
    # Biological Laboratory", "Can Ladies Kill?", "Per Linguam"). en's own ("Paris", "Florence") are as they were.
    not_given = {"Vigo", "Breda", "Medina", "Enna", "Loreto", "Montserrat", "Asunción", "Encarnación", "Belo", "Mar",
                 "Ville", "Lot", "Philippine", "Georgian", "Gregorian", "Tudor", "Baptist", "My", "Can", "Per", "Line",
                 "Said", "Ties", "Floor", "Beat", "Mile", "Mille", "Sole", "Mate", "Kick", "Ion", "Tone", "Peer", "Gun",
                 "Mentor", "Till", "Owe", "Neo", "Odd", "Marine", "Lean", "Pier", "Corona", "Gala", "Mare", "Amor",
                 "Fleur"}
    more: set[str] = set()
    for locale in locales:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ImportError:
            continue
        for field in ("first_names", "first_names_male", "first_names_female"):
            more.update(getattr(provider, field, ()))  # a tuple, or a dict of weights (its keys)
    return frozenset(Provider.first_names) | frozenset(more - not_given)


def body_word(word: str) -> bool:
    """Whether ``word`` is the last word of a place's, a body's or a firm's name ("Station", "Glassworks", "Foods")."""
    return word.lower() in _NOT_PERSON_HEADS


def named_person(name: str) -> bool:
    """Whether ``name`` reads as a person's name though spaCy's small model tagged it otherwise: two to four
    capitalised words (after a title such as "Captain") whose first is a common given name and whose last is no
    place or body ("Agnes Morrow", tagged PRODUCT or LOC by ``en_core_web_sm``; not "Victoria Station")."""
    words = name.split()
    while words and words[0].lower().rstrip(".") in _HONORIFICS:
        words = words[1:]
    return (2 <= len(words) <= 4 and all(w[:1].isupper() for w in words) and words[0] in _given_names()
            and words[-1].lower() not in _NOT_PERSON_HEADS)


def name_mentions(name: str, sentences: Sequence[str]) -> list[tuple[str, str]]:
    """(sentence, the form it names ``name`` by) for each of ``sentences`` that names ``name`` in full, then for each
    that names a person (:func:`named_person`) by surname alone ("As a boy Wrenfield was apprenticed at the Hallam Toy
    Works" for "Tobias Wrenfield": an audit's re-read found no bridge there) — never where a sentence names another
    person of that surname ("Conrad Wrenfield") or the surname opens a longer name ("Wrenfield Toys")."""
    def names(text: str, form: str) -> bool:
        return re.search(rf"\b{re.escape(normalize_name(form))}\b", normalize_name(text)) is not None

    full = [(s, name) for s in sentences if names(s, name)]
    words = name.split()
    if not named_person(name) or len(words[-1]) < 3:
        return full
    given, sur = words[-2], words[-1]
    before = [m.group(1) for s in sentences for m in re.finditer(rf"\b([A-Z][\w'\-]*)\s+{re.escape(sur)}\b", s)]
    if any(w != given and w.lower() not in STOPWORDS for w in before):  # another person of the name
        return full
    alone = [(s, sur) for s in sentences if not names(s, name) and any(
        not re.search(rf"\b{re.escape(given)}\s+$", s[:m.start()]) and not re.match(r"\s+[A-Z]", s[m.end():])
        for m in re.finditer(rf"\b{re.escape(sur)}\b", s))]
    return full + alone


#: Nouns of people that no ending of :func:`person_noun` marks.
_PERSON_NOUNS = frozenset({
    "man", "woman", "person", "people", "child", "boy", "girl", "baby", "friend", "pupil", "apprentice", "widow",
    "wife", "husband", "spouse", "son", "daughter", "mother", "father", "parent", "brother", "sister", "aunt", "uncle",
    "nephew", "niece", "cousin", "grandson", "granddaughter", "heir", "king", "queen", "prince", "princess", "duke",
    "lord", "lady", "emperor", "empress", "pope", "bishop", "monk", "nun", "abbot", "priest", "saint", "poet", "chef",
    "cook", "guide", "judge", "nurse", "clerk", "pilot", "chief", "captain", "chaplain", "architect", "playwright",
    "smith", "mason", "wright", "tutor", "mentor", "master", "mistress", "host", "guest", "hero", "heroine", "rival",
    "partner", "colleague", "ally", "enemy", "staff", "crew", "team", "band", "group", "family", "couple"})


def person_noun(noun: str) -> bool:
    """Whether a description's noun may stand for a person ("the artist", "the founder", "the widow") rather than only
    a thing ("the window", "the school"): a listed noun of people or kin, or an agent ending (-er, -or, -ist, -ian,
    -ant, -ent, -ess, -eer: "painter", "sculptor", "merchant", "abbess", "engineer"). Errs towards a person: it only
    keeps a person's name from standing for a thing."""
    noun = noun.lower()
    return noun in _PERSON_NOUNS or noun.endswith(("er", "or", "ist", "ian", "ant", "ent", "ess", "eer", "ee"))
