"""The extractive answer: which retrieved sentence answers the question (``none`` mode, LLM fallbacks).

Every method that answers from passages (the shared answer step :mod:`core.methods.answering`,
BubbleRAG §3.6's ``none`` mode) falls back to *pointing at* a sentence of its top passages when no
LLM writes the answer. None of the papers defines this step (each assumes an LLM), so the rules
below are ours, documented here and recorded in the trace (``extractive`` in the answer step):

1. **Candidates** — every sentence of the top ``max_passages`` passages (in retrieval order).
   A sentence opening with a pronoun ("She died on 20 March 851 ...") is scored with the passage
   title in its place ("Ermengarde of Tours died on 20 March 851 ..."), and one opening with a
   description that does not name the title ("The tower was designed by ...") is scored after the
   title ("Keldmoor Light: The tower was designed by ..."): the passage is about its title, so this
   is the coreference a reader makes (an audit's "Who designed Keldmoor Light?" got the headland
   sentence, which names the light, over the one naming its designer). A "He"/"She" may also be the person
   named last before it, in its passage or in the paragraph before it when that one was retrieved too
   (:func:`antecedents`; the spaCy KG reads a document's paragraphs the same way), but it continues the "He" or the
   subject before it, never that sentence's object (:mod:`core.methods.pronoun_subjects`).
2. **Score** — the relevance of (question, sentence) under the cross-encoder when the method's
   :class:`~core.methods.base.Backends` carry a reranker (the default ``ms-marco-minilm``;
   ``biencoder`` is the embedding cosine); *fallback* without one (or with the ``llm`` reranker,
   which would need the LLM that is missing): the embedding cosine of question and sentence. The
   trace names the scorer used.
3. **Bridges** (:mod:`core.methods.bridges`) — "When did Lothair II's mother die?" asks about *Lothair II's
   mother*, not Lothair II. When a retrieved passage states the relation ("... the mother of Lothair II"),
   its title is the bridge entity and the question is also scored as rewritten ("When did Ermengarde
   of Tours die?"); a sentence's score is the better of the two. A description by a clause is read the same
   way: "Who built the ferry that Mattias Venn captained?" is also scored as "Who built the ferry Lantern
   Moth?" where a retrieved sentence says "He [Mattias Venn] became captain of the ferry Lantern Moth", and
   relations are read from either side ("the father of Aldo Fenn": "He was the son of Tobias Fenn"). This is
   the first hop of a question decomposition, done by string rules; a bridge found, the later passages' sentences
   naming it are candidates too, and may resolve the next hop (:mod:`core.methods.bridge_hops`). A sentence about the entity the bridge took out of the question, that
   names no bridge entity, is scored by the re-read question alone and names no answer (rule 4) (:func:`about_replaced`):
   once "the founder of Harrowgate Type Foundry" is Ansel Drewitt, "… a type foundry in the city of Velmora" does not
   say where the founder was born, however many words it shares with the question as asked.
4. **Answer type** — "when" asks for a date, "who"/"whom" for a person, "where" or "which/what
   city, country, county, river ..." for a place, "how many"/"how much"/"what percentage" for a number
   (:func:`core.methods.answer_types.expected_answer_type` with ``nouns``), and "which/what NOUN" of any other noun for a thing named after
   that noun ("Which tug …?": "the tug Merryweather"). A sentence that names such a thing *not already named in the
   question* is preferred over every sentence that does not ("Laurence Fishburne is an American
   actor." names only a person of the question, so it cannot answer "who played ..."; a title read for "it" names
   no person; a place whose head noun the question uses for what it describes — "the Kessel Viaduct" for "which river
   does the viaduct … cross?" — is not one it asks for, nor "the Sallow Hills" a city). Dates and
   numbers are found by patterns; persons and places by spaCy's ``en_core_web_sm`` NER (the pinned
   package of the ``spacy`` extractor, loaded lazily; the trace says which), else by runs of capitalised words.
   The small model tags some plain names otherwise ("Agnes Morrow" PRODUCT): a name whose first word is a common
   given name counts as a person (:func:`core.text.named_person`). A sentence holding only the verb of the question's
   description ("founded" for "… the circus founded by X sold?") ranks after one holding its own, and one saying the
   question's own verb of a bridge entity ("… Wilhelmina Stroud … born in …") first (:mod:`core.methods.question_verb`).
5. **Antecedents** — "He"/"She"/"His"/"Her" in a passage that is not about a person is also read as the person the
   passage named last before it, and "It"/"Its" as the named thing the sentence before is about ("The Brown Ox was
   a ferry … It worked only the Pellow Reach crossing"); the better reading counts (:func:`readings`). The answer
   shows the reading in brackets ("He [Oriel Vantreck] …"), and a leading "It" of a passage about its title, no
   person, as the title ("It [Ambercroft Foods] was founded in 1921 …"; never an expletive "It is said that …":
   :mod:`core.methods.title_it`).

It is an extract, not an answer: a multi-hop question whose chain spans several passages gets the
one sentence that scores best, which may name the answer without stating the chain (the pages say so
next to the result).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.graph.builder import previous_ids
from core.methods.answer_types import (
    OPENERS,
    PLACE_NOUNS,
    SPACY_LABELS,
    answer_type_phrase,
    expected_answer_type,
    ner_available,
    new_mentions,
    settlement_asked_but_not,
    typed_mentions,
)
from core.methods.base import Backends
from core.methods.bridge_hops import first_bridges, head_readings, hop_on, names_bridge
from core.methods.pronoun_subjects import Referents, he_after_title, lived, people_only, said_born, surname_reading
from core.methods.question_verb import other_verb_only, verb_about_bridge
from core.methods.reranking import FeatureCache, active_feature_store
from core.methods.title_it import defined_as_thing, is_title, title_its
from core.pinning import pin
from core.text import named_person, normalize_name, split_sentences

#: a sentence that opens with a description of what its passage is about: "The tower was designed by …"
_DESCRIPTION = re.compile(r"^(?:The|This|These|That)\s+[a-z]")


#: A sentence's subject pronoun, leading or after a short opening phrase that names no one ("In 1899 she sold it to …",
#: "After the war he …"; not "After Clara Ormond died in 1912, her nephew …", whose "her" is hers): what
#: :func:`readings` and :func:`bracketed` read it as. Group ``p`` is the pronoun.
_LEAD = re.compile(r"^(?:(?:In|On|By|After|Before|During|From|Until|At|Later|Then|Soon|Eventually)\b[^,.;A-Z]{0,30}?,?\s+)?"
                   r"(?P<p>(?<=\s)(?:he|she|it|they|his|her|its|their)\b|(?:He|She|It|They|His|Her|Its|Their)\b)")


def _pronoun(sentence: str) -> re.Match[str] | None:
    """The subject pronoun of ``sentence`` (:data:`_LEAD`): leading, or lower-case after an opening phrase."""
    m = _LEAD.match(sentence)
    return m if m is not None and (m.start("p") == 0 or m.group("p").islower()) else None


def resolve_pronoun(sentence: str, title: str) -> str:
    """``sentence`` read as its passage's reader reads it (rule 1): a leading pronoun replaced by the passage title,
    and a sentence that opens with a description ("The tower …") and does not name the title read after it
    ("Keldmoor Light: The tower was designed by …")."""
    if not title:
        return sentence
    m = _pronoun(sentence)
    if not m:
        if _DESCRIPTION.match(sentence) and normalize_name(title) not in normalize_name(sentence):
            return f"{title}: {sentence}"
        return surname_reading(sentence, title) or sentence  # "Morrow died …" in "Edda Morrow"
    return _replace_pronoun(sentence, m, title)


def _replace_pronoun(sentence: str, m: re.Match[str], name: str) -> str:
    possessive = m.group("p").lower() in ("his", "her", "its", "their")
    return sentence[:m.start("p")] + name + ("'s" if possessive else "") + sentence[m.end("p"):]


_PERSONAL = ("he", "she", "his", "her")
#: A sentence about a named thing: "The Brown Ox was a flat-bottomed ferry …" (what a following "It" stands for).
_THING = re.compile(r"^The\s+((?:[A-Z][\w'\-]*\s+)*[A-Z][\w'\-]*)\s+(?:was|is|had|has)\b")


def readings(sentences: Sequence[str], title: str, names: Sequence[str] | None = None) -> list[tuple[str, ...]]:
    """How a reader may read each of a passage's ``sentences`` (rule 1): :func:`resolve_pronoun`'s reading, and for a
    sentence opening with "He"/"She"/"His"/"Her" in a passage whose title is not a person the passage names, also the
    reading with the person named last in the sentences before it ("The lightship was commanded by Captain Elias
    Penhallow. He had trained under Agnes Morrow": "He" is the captain, not the lightship; an audit's "Who trained the
    captain of the Saltmere Lightship?" got the command sentence). Both are scored and the better one counts: "She
    drifted nine miles" after a captain's sentence may still be the ship. ``names``: :func:`antecedents` of the
    sentences, when the caller has them already."""
    out: list[tuple[str, ...]] = []
    for s, name in zip(sentences, antecedents(sentences, title) if names is None else names):
        m = _pronoun(s)
        out.append((resolve_pronoun(s, title),) + ((_replace_pronoun(s, m, name),) if m and name else ()))
    return out


def antecedents(sentences: Sequence[str], title: str) -> list[str]:
    """The person each of ``sentences`` may mean by its leading "He"/"She"/"His"/"Her" besides the title, and the named
    thing it may mean by "It"/"Its" (the name opening the last sentence with no pronoun: "The Brown Ox was a ferry
    … It worked only the Pellow Reach crossing"); "" where none (see :func:`readings`)."""
    title_n = normalize_name(title)
    title_is_person = _title_is_person(sentences, title)
    out = []
    thing = ""
    people = Referents(title)  # a "He" continues the subject before it, never its object (core.methods.pronoun_subjects)
    for s in sentences:
        m = _pronoun(s)
        word = m.group("p").lower() if m is not None else ""
        ref = people.referent(word) if word in _PERSONAL else ""
        if word in _PERSONAL:
            out.append(ref if ref and not title_is_person and normalize_name(ref) != title_n else "")
        else:
            out.append(thing if word in ("it", "its") and not is_title(thing, title) else "")  # "[The Matrix]"
        people.see(s, word, ref, people_only(s, typed_mentions(s, "person", names=True)))  # no club's "founder of X"
        if not word:  # "It …" keeps the thing of the sentence before it
            t = _THING.match(s)
            thing = t.group(1) if t else ""
    return out


def _title_is_person(sentences: Sequence[str], title: str) -> bool:
    """Whether the passage's ``title`` is a person its ``sentences`` name as one (or a given name opens it)."""
    title_n = normalize_name(title)
    persons = [p for s in sentences for p in typed_mentions(s, "person", names=True)]
    # the title alone is no evidence: spaCy tags the bare title "Harrow Glassworks" PERSON, and its founder's "He was
    # born in Odeby" then lost its reading (an audit); the passage naming it as a person, or a given name, is
    return bool(title_n) and not defined_as_thing(sentences, title) and (any(normalize_name(p) == title_n for p in persons) or named_person(title)
                              or said_born(sentences, title) or lived(sentences, title) or he_after_title(
                                  sentences, title, typed_mentions(sentences[0], "person", names=True)))


def shown_sentence(sentence: str, name: str, title: str, title_is_person: bool) -> str:
    """``sentence`` as the answer shows it (:func:`bracketed`): its "He"/"She" read as ``name`` (the person named before
    it, :func:`antecedents`), else as the passage's ``title`` when that is a person the passage names ("He [Jakob Venn]
    founded the Carrow Fiddle Fair in 1877": quoted alone, an audit read a bare "He founded …", while a passage about a
    timber yard had its "his [Anton Pell’s]")."""
    if name:
        return bracketed(sentence, name)
    m = _pronoun(sentence)
    if title_is_person and m is not None and m.group("p").lower() in _PERSONAL:
        return bracketed(sentence, title)
    return sentence


#: A title's trailing disambiguation in parentheses ("Speed (1994 film)").
_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")


def bracketed(sentence: str, name: str) -> str:
    """``sentence`` as the answer shows it when read with ``name`` for its leading pronoun: "She [Miriam Castellane]
    introduced the keepers' pension fund in 1879." (the sentence alone names no one)."""
    m = _pronoun(sentence)
    if not m or not name:
        return sentence
    name = _DISAMBIGUATION.sub("", name) or name  # "It [Speed] stars …": a title's "(1994 film)" is no word of it
    possessive = m.group("p").lower() in ("his", "her", "its", "their")
    mark = ("’" if name.endswith("s") else "’s") if possessive else ""  # "Its [Bellcastle Holdings’] chairman"
    return f"{sentence[:m.end('p')]} [{name}{mark}]{sentence[m.end('p'):]}"


@dataclass(frozen=True)
class Candidate:
    sentence: str
    chunk_id: str
    title: str
    score: float  #: relevance under the scorer (the better of the question and its bridge rewrite)
    typed: tuple[str, ...]  #: mentions of the expected answer type that the question does not name
    #: the sentence as the answer shows it: with the person (or thing) its "He"/"She"/"It" stands for, whichever reading
    #: scored best (an audit read "He [Aldo Fenn] was …" for one question and "He was …" for another)
    shown: str = ""


@dataclass(frozen=True)
class SentencePick:
    """The extractive answer and why it was picked (recorded as the answer step's ``extractive``)."""

    text: str
    chunk_id: str
    scorer: str
    answer_type: str
    bridges: tuple[str, ...] = ()
    candidates: tuple[Candidate, ...] = field(default=(), repr=False)  #: best first
    note: str = ""

    def trace_data(self, top: int = 5) -> dict[str, Any]:
        return {"rule": "the sentence of the top passages scored by " + self.scorer + (
                    f"; sentences naming {answer_type_phrase(self.answer_type)} the question does not name come first"
                    if self.answer_type else "") + ("; bridge: " + "; ".join(self.bridges)
                                                    if self.bridges else ""),
                "scorer": self.scorer, "answer_type": self.answer_type,
                "ner": "spaCy en_core_web_sm" if self.answer_type in SPACY_LABELS and ner_available() else
                       ("capitalised runs" if self.answer_type in SPACY_LABELS else "patterns"),
                "bridges": list(self.bridges), "note": self.note,
                "candidates": [{"sentence": c.sentence, "chunk_id": c.chunk_id, "passage": c.title,
                                "score": round(c.score, 4), "answer_type_mentions": list(c.typed),
                                **({"shown": c.shown} if c.shown and c.shown != c.sentence else {})}
                               for c in self.candidates[:top]]}


def _scorer(backends: Backends) -> tuple[Any, str]:
    rr = backends.reranker
    if rr is not None and rr.name != "llm":
        return rr, f"the reranker {rr.name} ({rr.model_id})"
    # no reranker: none is configured, or the method does not rerank and was set to answer with an LLM
    # (core.methods.run.backends_for keeps the reranker only for the extractive answer of LLM-free runs)
    why = ("the LLM reranker needs the LLM" if rr is not None else
           "no reranker: this method answers with the LLM and keeps no reranker for its fallback"
           if backends.llm is not None and backends.llm.available else "no reranker given")
    return None, f"embedding cosine under {backends.embedder.name} ({why})"


def _score(backends: Backends, scorer: Any, questions: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    best = np.full(len(texts), -np.inf, dtype=np.float64)
    if not texts:
        return best
    vecs = backends.embedder.embed(list(texts)) if scorer is None else None
    for q in questions:
        if scorer is not None:
            # in the app, sentences an earlier run scored for the same question are read back (FeatureStore)
            feats = FeatureCache(scorer, q, list(texts), store=active_feature_store(), scope="sentences")
            s = np.asarray(scorer.head(feats.get(np.arange(len(texts)))), dtype=np.float64).reshape(-1)
        else:
            assert vecs is not None
            s = np.asarray(vecs @ np.asarray(backends.embedder.embed_queries([q])[0]), dtype=np.float64).reshape(-1)
        best = np.maximum(best, pin("extractive.sentences.score", s, key=q))
    return best


_WORD = re.compile(r"[^\W_]+")


def shares_a_word(query: str, texts: Sequence[str], *, prefix: int = 5) -> bool:
    """True when a content word of ``query`` (not in :data:`core.text.STOPWORDS`, two letters or more) appears in
    one of ``texts``, compared on its first ``prefix`` characters, case-folded ("died" meets "die", "founded"
    meets "founder"); True for a question with no content word (nothing to compare)."""
    from core.text import STOPWORDS

    words = {w[:prefix] for w in _WORD.findall(query.casefold()) if len(w) > 1 and w not in STOPWORDS}
    if not words:
        return True
    # every beginning of a passage word up to ``prefix`` letters: a short question word ("die") meets a longer one
    seen = {w[:k] for t in texts for w in _WORD.findall(t.casefold()) for k in range(2, min(len(w), prefix) + 1)}
    return bool(words & seen)


def _typed(sentence: str, resolved: str, title: str, atype: str, query: str) -> tuple[str, ...]:
    """The new mentions of the answer type in ``resolved`` (``sentence`` with its pronoun read as ``title``), the
    title left out where it stands for "it"/"its" in a person question: "It was founded by … Idris Kalden" read as
    "Vellmora was founded …", and spaCy's small model tags the town PERSON, so the sentence counted as naming a new
    person and outranked "It was designed by the engineer Sofia Marrow" for "Who designed …?" (an audit)."""
    if not atype:
        return ()
    found = new_mentions(resolved, atype, query, names=True, recipients=True)
    m = _pronoun(sentence)
    if title and ((atype == "person" and m and m.group("p").lower() in ("it", "its"))
                  or (m is None and resolved != sentence)):  # the title put before a description: not the sentence's
        found = [x for x in found if normalize_name(x) != normalize_name(title)]
    if atype == "place":
        found = [x for x in found if not _described(x, query) and not settlement_asked_but_not(x, query, resolved)]
    return tuple(found)


def _described(mention: str, query: str) -> bool:
    """Whether a place ``mention`` is the thing the question describes rather than one it asks for: its head noun is
    a word of the question other than the asked kind ("the Kessel Viaduct" for "Which river does the viaduct designed
    by … cross?", which spaCy tags a place; an audit's none-mode answer quoted the sentence naming the viaduct)."""
    q = " ".join(query.lower().split())
    asked = re.search(rf"\b(?:which|what) ({PLACE_NOUNS})\b", q)
    words = mention.lower().split()
    head = words[-1] if words else ""
    return bool(head) and head not in OPENERS and re.search(rf"\b{re.escape(head)}s?\b", q) is not None and (
        asked is None or not asked.group(1).startswith(head.rstrip("s")))


#: A name in a question: capitalised words, "of"/"the" between two of them ("Battle of the Boyne").
_QUESTION_NAME = re.compile(r"[A-Z][\w\-]*(?:'s|’s)?(?:\s+(?:(?:of|the|de|von|van)\s+)*[A-Z][\w\-]*(?:'s|’s)?)*")


def absent_names(query: str, texts: Sequence[str]) -> list[str]:
    """The names of ``query`` (capitalised words; its opening question word and a lone capitalised first word aside)
    that none of ``texts`` mentions, compared SQuAD-normalised on whole words.

    >>> absent_names("Who founded the Zebra Mill?", ["The Harrow Glassworks was founded in 1851."])
    ['Zebra Mill']
    >>> absent_names("When did Lothair II's mother die?", ["Lothair II was the son of Ermengarde of Tours."])
    []
    """
    hay = " " + " ".join(normalize_name(t) for t in texts) + " "
    out = []
    for m in _QUESTION_NAME.finditer(query):
        name = re.sub(r"(?:'s|’s)\b", "", m.group(0))
        words = name.split()
        if m.start() == 0 or query[:m.start()].strip() == "":
            words = words[1:]  # "Who …", "In …": the question's opening word
        while words and words[0].lower() in OPENERS:
            words = words[1:]
        name = " ".join(words)
        key = normalize_name(name)
        if key and len(key) > 2 and f" {key} " not in hay:
            out.append(name)
    return out


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in split_sentences(text) if len(s.strip()) > 3]


def about_replaced(query: str, bridges: Sequence[tuple[str, str]], readings: Sequence[str]) -> np.ndarray:
    """Which of ``readings`` are about an entity that every bridge re-reading took out of ``query`` and name no bridge
    entity (rule 3): once "the founder of Harrowgate Type Foundry" is Ansel Drewitt, "Harrowgate Type Foundry was a
    type foundry in the city of Velmora" says where the foundry is, not where its founder was born, so only the re-read
    question ("Which city was the founder Ansel Drewitt born in?") scores it — the question as asked shares its words
    ("city", the foundry's name) and scored it above "Ansel Drewitt was a punchcutter born in Ostrel" (an audit, all
    eight methods). A reading that also names the bridge entity (the first hop), or the last word of its name ("Drewitt,
    the founder of Harrowgate Type Foundry, was born in Ostrel"), is left as it was.

    >>> about_replaced("Where was Lothair II's mother born?", [("Where was Ermengarde of Tours born?", "Ermengarde of Tours")],
    ...                ["Lothair II was born in Pavia.", "Ermengarde of Tours was born in Tours.",
    ...                 "Ermengarde of Tours was the mother of Lothair II."]).tolist()
    [True, False, False]
    """
    gone = absent_names(query, [q for q, _ in bridges]) if bridges else []
    names = {n for _, b in bridges for n in (b, b.split()[-1] if len(b.split()) > 1 else b)}
    return np.array([bool(gone) and any(names_bridge(r, x) for x in gone)
                     and not any(names_bridge(r, b) for b in names) for r in readings], dtype=bool)


def pick_sentence(query: str, passages: Sequence[tuple[str, str, str]], backends: Backends, *,
                  max_passages: int = 3) -> SentencePick:
    """The sentence of the top ``max_passages`` ``(chunk_id, title, text)`` passages that answers ``query``.

    Parameters
    ----------
    query
        The question.
    passages
        Ranked passages, best first.
    backends
        The reranker scores sentences when present (else the embedder's cosine; see the module docstring).
    max_passages
        How many top passages supply candidate sentences.

    Returns
    -------
    SentencePick
        ``text`` is "" only when the passages hold no text.
    """
    scorer, scorer_name = _scorer(backends)
    atype = expected_answer_type(query, nouns=True)
    top = [p for p in passages[:max_passages]]
    rows: list[tuple[str, tuple[str, ...], str, str, str]] = []  # (sentence, its readings, chunk id, title, antecedent)
    person_titles: set[str] = set()  # titles a passage names as a person: what its "He" shows when no one came before
    by_id = {cid: (title, text) for cid, title, text in passages}
    for cid, title, text in top:
        sents = [s.strip() for s in split_sentences(text) if len(s.strip()) > 3] or ([text.strip()] if text.strip() else [])
        # a "He" opening a paragraph may be the person the paragraph before ended on, when that one was retrieved too
        # ("Its first director was the historian Owen Pike." / "He bought the Larkmere Chalice …"; the KG reads it so)
        before = next((_sentences(by_id[p][1]) for p in previous_ids(cid) if p in by_id and by_id[p][0] == title), [])
        full = antecedents(before + sents, title)  # once: the readings and the brackets both use them
        names, is_person = full[len(before):], _title_is_person(before + sents, title)
        if is_person:
            person_titles.add(title)
        # the brackets also read a leading "It" as the title where the passage is about it (core.methods.title_it)
        shown = title_its(before + sents, title, full, title_is_person=is_person)[len(before):]
        for s, read, name in zip(sents, readings(sents, title, names), shown):
            rows.append((s, read, cid, title, name))
    if not rows:
        return SentencePick("", top[0][0] if top else "", scorer_name, atype, note="the top passages hold no text")
    # the person reading first ("Orla Brisk commanded …"), then "the company" read as the passage's title or the
    # company named before it (core.methods.bridge_hops.head_readings)
    heads = head_readings(passages)
    said = [r for s, read, _cid, title, _name in rows for r in (*read[::-1], *heads(s, title))]
    for _cid, title, text in passages[max_passages:max(max_passages, 5)]:
        sents = _sentences(text)
        said += [r for s, rs in zip(sents, readings(sents, title)) for r in (*rs[::-1], *heads(s, title))]
    clauses, bridges = first_bridges(query, said, passages[:max(max_passages, 5)])
    # a bridge found, a reader looks it up in the other passages it was handed too, hop after hop: "Petra Lund was born
    # in Harwick" in the fourth passage answers "Where was the engineer who bought the Colbridge Lamp Company born?",
    # and BubbleRAG's ninth of 15 "It was founded in 1903 by Wilhelmina Stroud" the founder of the company that bought X
    later: list[tuple[tuple[str, tuple[str, ...], str, str, str], bool]] = []
    for cid, title, text in passages[max_passages:] if bridges else ():
        sents = _sentences(text)
        names = antecedents(sents, title)
        is_person = _title_is_person(sents, title)
        shown = title_its(sents, title, names, title_is_person=is_person)
        later += [((s, read, cid, title, name), is_person)
                  for s, read, name in zip(sents, readings(sents, title, names), shown)]
    clauses, bridges, taken = hop_on(query, said, [(*row[1][::-1], *heads(row[0], row[3])) for row, _ in later],
                                     clauses, bridges)
    hops = {hop for _, _, hop, _ in clauses}  # each scored by the re-read questions alone (core.methods.bridges)
    for row, is_person in (later[i] for i in taken):
        rows.append(row)
        if is_person:
            person_titles.add(row[3])
    flat = [r for row in rows for r in row[1]]
    flat_scores = _score(backends, scorer, [query], flat)
    replaced = about_replaced(query, bridges, flat)  # about what a bridge took out of the question: no answer of it
    if bridges:
        reread = _score(backends, scorer, [q for q, _ in bridges], flat)
        hop_rows = np.array([any(r in hops for r in row[1]) for row in rows for _ in row[1]], dtype=bool)
        flat_scores = np.where(hop_rows | replaced, reread, np.maximum(flat_scores, reread))
    # a bridge entity is the re-read question's subject, not its answer: "It was founded … by the clockmaker Anselm
    # Tessely" names no new person for "Who taught the founder of Tessely Clockworks?" once the founder is known
    # … unless the re-read question asks for it: "Who was the husband of the artist Mina Roe?" → "Who was Jonas Weald?",
    # "Who was the head brewer who trained Owen Crake?" → "Who was the brewer Agnes Tilney?"
    typed_query = " ".join([query, *(f"({name})" for q, name in bridges if not re.fullmatch(
        rf"(?:Who|What)\s+(?:was|is)\s+(?:the\s+(?:[a-z\-]+\s+){{1,2}})?{re.escape(name)}\s*\?", q.strip()))])
    cands = []
    at = 0
    for s, read, cid, title, name in rows:
        which = int(np.argmax(flat_scores[at:at + len(read)]))
        best = at + which
        at += len(read)
        typed = () if replaced[best] else _typed(s, flat[best], title, atype, typed_query)
        cands.append(Candidate(s, cid, title, float(flat_scores[best]), typed,
                               shown_sentence(s, name, title, title in person_titles)))
    late = other_verb_only(query, [c.sentence for c in cands], [bool(c.typed) for c in cands])  # "founded" for "sold"
    # the question's verb said of a resolved bridge ("Wilhelmina Stroud was … born in …") before other typed sentences;
    # not by a sentence that resolved a description: its verb may be the description's ("… where X is located?")
    first = verb_about_bridge(query, [c.shown or c.sentence for c in cands], [bool(c.typed) and not any(
        r in hops for r in row[1]) for c, row in zip(cands, rows)], [name for _, name in bridges])
    order = sorted(range(len(cands)), key=lambda i: (not cands[i].typed, not first[i], late[i], -cands[i].score, i))
    ranked = tuple(cands[i] for i in order)
    note = ""
    if atype and not ranked[0].typed and not atype.startswith("named:"):  # "the position X" is rarely written so
        note = f"no sentence of the top passages names {answer_type_phrase(atype)} that the question does not name"
    won = rows[order[0]][1]
    asked, bridge = next(((q, name) for q, name, said, _ in clauses if said in won), ("", ""))
    # the first hop won: say that no passage handed answers the second, unless the sentence also says all the re-read
    # question asks ("Ivo Fenn, the son of Amos Fenn, managed the Pellory Railway from 1920" resolves "the railway
    # founded by Amos Fenn" and answers "Who managed the Pellory Railway from 1920?")
    if any(r in hops for r in won) and not (ranked[0].typed and asked and all(
            shares_a_word(w, won) for w in _WORD.findall(asked.replace(bridge, " ")) if len(w) > 3)):
        note = (f"this sentence only resolves what the question describes; no passage the answer was handed says "
                f"{'what “' + asked + '” asks' if asked else 'what the re-read question asks'}" + (f"; {note}" if note else ""))
    # every passage the answer was handed, not only the top ones: BubbleRAG hands 13 whose order is not the ranking's,
    # and an audit read "names “Clara Dunmore”, which none of the retrieved passages mentions" beside two that did
    absent = absent_names(query, [f"{title} {text}" for _, title, text in passages])
    if absent:  # an audit asked "Who founded the Zebra Mill?" of a corpus without it and got a confident sentence
        named = ", ".join(f"“{n}”" for n in absent[:3])
        note = (f"the question names {named}, which none of the retrieved passages mentions: this sentence is only the "
                f"nearest by score" + (f"; {note}" if note else ""))
    elif not shares_a_word(query, [f"{title} {text}" for _, title, text in top]):
        # an audit asked "zzqx vbnm plorf" and got a confident sentence: the nearest sentence by score is no answer
        # when the passages hold no word of the question
        note = ("no word of the question appears in the top passages: this sentence is only the nearest by score, "
                "most likely not an answer" + (f"; {note}" if note else ""))
    return SentencePick(ranked[0].shown or ranked[0].sentence, ranked[0].chunk_id, scorer_name, atype,
                        tuple(f"{t} (question read as: {q})" for q, t in bridges), ranked, note)
