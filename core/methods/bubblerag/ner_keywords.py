"""The keywords of the §4.3 ablation "w/o Anchor Specialization": a standard extractor, not the LLM.

BubbleRAG §4.3: "we replaced the LLM-based rewriting module with a direct keyword extraction
approach. In this variant, we extract explicit entities from the query using a standard extractor
and map them to graph nodes without refining generic terms (e.g., *mother*) into specific
constraints (e.g., *Lothair II's mother*)." §3.2 names that approach as the naive one BubbleRAG goes
beyond: "Named Entity Recognition (NER), treating extracted surface mentions as direct query
signals".

The standard extractor is spaCy's ``en_core_web_sm`` (the pinned package the ``spacy`` triple
extractor uses, :mod:`core.backends.spacy_model`): its named entities, in question order, are the
explicit keywords. The paper's variant still searches the generic terms ("without refining generic
terms (e.g., *mother*)"), so the question's other runs of nouns and proper nouns (the tagger's
``NOUN`` / ``PROPN``, outside every entity) follow as written: "mother", and names the small model's
NER misses ("Lothair II"). No keyword is implicit (there is no latent inference) and no LLM is asked.
"""

from __future__ import annotations

import time
from typing import Any

from core.methods.bubblerag.keywords import Keyword, Keywords
from core.trace import Step, Trace

#: the tagger's parts of speech that make a noun run (a generic term or a name the NER missed)
NOUN_POS = frozenset({"NOUN", "PROPN"})


def _nlp() -> Any:
    """spaCy's small English pipeline without parser and lemmatizer (tagger and NER are what is read);
    the same loaded pipeline as the extractive answerer's."""
    from core.backends.spacy_model import load_pipeline

    return load_pipeline(("parser", "lemmatizer"))


def ner_keywords(query: str, *, max_keywords: int = 8, trace: Trace | None = None) -> Keywords:
    """Explicit keywords of ``query`` by a standard NER extractor (BubbleRAG §4.3, w/o Anchor Specialization).

    Parameters
    ----------
    query
        The question.
    max_keywords
        At most this many keywords: the entities first, then the noun runs, each in question order.

    Returns
    -------
    Keywords
        ``source == "ner"``; every keyword explicit. With neither an entity nor a noun the question itself
        is the one keyword (as in `none` mode), and the trace says so.

    Raises
    ------
    BackendError
        If spaCy or its pinned model package is not installed (the message says how to install them).

    Examples
    --------
    >>> [k.text for k in ner_keywords("When did Lothair II's mother die?").items]
    ['Lothair II', 'mother']
    """
    t0 = time.perf_counter()
    step = Step("keywords", "Keywords by a standard NER extractor (w/o Anchor Specialization)",
                section="BubbleRAG §4.3")
    doc = _nlp()(query)
    in_entity = {i for e in doc.ents for i in range(e.start, e.end)}
    entities = [(e.text, e.label_) for e in doc.ents]
    runs: list[tuple[str, bool]] = []  # (text, whether it holds a proper noun: a name the NER missed)
    current: list[Any] = []
    for i, tok in enumerate([*doc, None]):
        if tok is not None and tok.pos_ in NOUN_POS and i not in in_entity:
            current.append(tok)
        elif current:
            runs.append((" ".join(t.text for t in current), any(t.pos_ == "PROPN" for t in current)))
            current = []
    items: list[Keyword] = []
    seen: set[str] = set()
    for text, entity in [(t, True) for t, _ in entities] + runs:
        t = " ".join(text.split()).strip(" .,;:?!")
        if t and t.lower() not in seen and len(items) < max_keywords:
            seen.add(t.lower())
            items.append(Keyword(t, "explicit", entity))
    if not items:
        items.append(Keyword(query.strip(), "explicit", any(c.isupper() or c.isdigit() for c in query)))
        step.fallback = "no entity or noun in the question: the question itself is searched"
    step.data = {"source": "ner", "explicit": [k.text for k in items], "implicit": [],
                 "entities": [{"text": t, "label": label} for t, label in entities], "noun_runs": [t for t, _ in runs],
                 "extractor": "spaCy en_core_web_sm (named entities, then noun runs outside them)",
                 "rule": "explicit = the named entities, then the question's other noun runs, as written; "
                         "no implicit keyword (no latent inference) and no LLM"}
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.record(step)
    return Keywords(tuple(items), "ner")
