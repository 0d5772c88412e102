"""One passage's spaCy triples, shared by the centering and anaphora tests (their extractor: ``ex`` in conftest)."""

from __future__ import annotations

from core.backends.spacy_extractor import SpacyExtractor
from core.graph.builder import extract_triples
from core.graph.model import Chunk


def triples(ex: SpacyExtractor, title: str, text: str) -> set[tuple[str, str, str]]:
    """The (head, relation, tail) triples of one passage titled ``title``."""
    res = extract_triples([Chunk("p", title, text)], ex, cache_dir=None)
    return {(t.head, t.relation, t.tail) for t in res.triples.get("p", [])}


def passage_triples(ex: SpacyExtractor, passage: str) -> set[tuple[str, str, str]]:
    """The triples of one passage as the extractor reads it ("Title\\ntext"), without the builder's cache."""
    return {(t.head, t.relation, t.tail) for t in ex.extract([passage])[0]}


def nodes(got: set[tuple[str, str, str]]) -> set[str]:
    """The heads and tails of ``got``."""
    return {h for h, _, _ in got} | {t for _, _, t in got}
