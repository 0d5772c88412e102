"""Every prompt the backends send, in one module (as nano-graphrag keeps them).

Changing a prompt changes results: bump the matching ``*_VERSION`` so per-chunk caches keyed by
the extractor's ``model_id`` are rebuilt.
"""

from __future__ import annotations

from typing import Any

# --- OpenIE triple extraction (BubbleRAG §3.1 step 2; HippoRAG-style OpenIE) -------------------

TRIPLES_VERSION = "openie-v2"  # v2: the example passage is about made-up entities, so it primes no answer

TRIPLES_SYSTEM = (
    "You extract knowledge-graph triples from text (open information extraction). "
    "Answer with JSON only."
)

TRIPLES_INSTRUCTIONS = """\
Extract factual triples [subject, relation, object] from the passage.
Rules:
- Subjects and objects are specific named entities, dates or numbers, written as in the text.
- Replace pronouns (he, she, it, they) with the entity they refer to.
- Relations are short verb phrases in lower case (e.g. "born in", "starred in", "directed").
- One fact per triple; include every fact stated in the passage.
Example passage:
Edda Castell was born in Brevik. She founded Oskel Optics in 1931.
Example answer:
{"triples": [["Edda Castell", "born in", "Brevik"], ["Edda Castell", "founded", "Oskel Optics"], \
["Oskel Optics", "founded in", "1931"]]}"""

TRIPLES_USER = """{instructions}

Passage:
{passage}

Answer with JSON of the form {{"triples": [["subject", "relation", "object"], ...]}}."""

TRIPLES_BATCH_USER = """{instructions}

Extract triples from each of the {n} numbered passages below, separately.

{passages}

Answer with JSON of the form {{"passages": [{{"index": 1, "triples": [["subject", "relation", \
"object"], ...]}}, ...]}} with one entry per passage index 1 to {n}."""

_TRIPLE_ITEMS: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string"},
    "minItems": 3,
    "maxItems": 3,
}

TRIPLES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"triples": {"type": "array", "items": _TRIPLE_ITEMS}},
    "required": ["triples"],
}

TRIPLES_BATCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "passages": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "index": {"type": "integer"},
                    "triples": {"type": "array", "items": _TRIPLE_ITEMS},
                },
                "required": ["index", "triples"],
            },
        }
    },
    "required": ["passages"],
}


def triples_prompt(passage: str) -> str:
    """User message asking for the triples of one passage."""
    return TRIPLES_USER.format(instructions=TRIPLES_INSTRUCTIONS, passage=passage.strip())


def triples_batch_prompt(passages: list[str]) -> str:
    """User message asking for the triples of several numbered passages at once."""
    body = "\n\n".join(f"Passage {i}:\n{p.strip()}" for i, p in enumerate(passages, start=1))
    return TRIPLES_BATCH_USER.format(instructions=TRIPLES_INSTRUCTIONS, n=len(passages),
                                     passages=body)


# --- LLM yes/no relevance (reranker) -----------------------------------------------------------

RELEVANCE_VERSION = "yesno-v1"

RELEVANCE_SYSTEM = "You judge whether a passage helps answer a question. Answer with JSON only."

RELEVANCE_USER = """Question: {query}

Passage:
{passage}

Does this passage contain information that helps answer the question? Answer with JSON \
{{"relevant": "yes" or "no", "confidence": a number from 0 to 1}}."""

RELEVANCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "relevant": {"type": "string", "enum": ["yes", "no"]},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
    "required": ["relevant", "confidence"],
}


def relevance_prompt(query: str, passage: str) -> str:
    """User message asking whether ``passage`` helps answer ``query``."""
    return RELEVANCE_USER.format(query=query.strip(), passage=passage.strip())


# --- answers from retrieved passages (every retrieval method) ---------------------------------

ANSWER_SYSTEM = ("You answer questions from the given passages only. Reply with the short answer "
                 "alone (a name, date, number or short phrase), no explanation.")

ANSWER_USER = """Passages:
{passages}

Question: {query}
Short answer:"""


def answer_prompt(query: str, passages: list[str]) -> str:
    """User message asking for a short answer to ``query`` from numbered ``passages``."""
    body = "\n\n".join(f"[{i}] {p.strip()}" for i, p in enumerate(passages, start=1))
    return ANSWER_USER.format(passages=body, query=query.strip())


# --- query entities (HippoRAG (v1) PPR seeds) -----------------------------------------------

QUERY_NER_VERSION = "query-ner-v1"

QUERY_NER_SYSTEM = "You extract named entities from questions. Answer with JSON only."

QUERY_NER_USER = """Extract the named entities (people, places, organisations, works, dates, other \
proper names) mentioned in this question. Answer with JSON {{"named_entities": [...]}}.

Question: {query}"""

QUERY_NER_SCHEMA: dict[str, Any] = {  # bounded: a question names a handful of entities, each a short name
    "type": "object",
    "properties": {"named_entities": {"type": "array", "items": {"type": "string", "maxLength": 80}, "maxItems": 8}},
    "required": ["named_entities"],
}


def query_ner_prompt(query: str) -> str:
    """User message asking for the named entities of ``query`` (HippoRAG §3.2, query NER)."""
    return QUERY_NER_USER.format(query=query.strip())
