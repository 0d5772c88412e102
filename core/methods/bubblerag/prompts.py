"""BubbleRAG prompts and their JSON schemas, in one module (as nano-graphrag keeps its prompts).

Each prompt states the stage's job in the paper's words and asks for a small JSON object; the
schemas are handed to backends that support constrained decoding (llama.cpp, OpenAI). The inline
examples are written for these prompts about made-up entities (the Tarn 4 camera, Oskel Optics):
none is a question of ``sample_data/`` (the paper's own Lothair II / Keanu Reeves examples are demo
questions there) or of a public benchmark, so no prompt primes a model with an evaluated answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SYSTEM = ("You are the retrieval planner of a graph RAG system over a knowledge graph whose schema is unknown. "
          "Answer only with the requested JSON object.")


def _passages(chunks: Sequence[tuple[str, str]], limit: int = 700) -> str:
    return "\n".join(f"[{i + 1}] {t}: {x[:limit]}" for i, (t, x) in enumerate(chunks))


# ---------------------------------------------------------------- §3.2 pre-retrieval sufficiency
SUFFICIENCY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"sufficient": {"type": "boolean"}, "answer": {"type": "string"}, "reason": {"type": "string"}},
    "required": ["sufficient", "answer"],
}


def sufficiency_prompt(query: str, chunks: Sequence[tuple[str, str]]) -> str:
    return (f"Question: {query}\n\nPassages:\n{_passages(chunks)}\n\n"
            "Do these passages contain ALL the information needed to answer the question with certainty? "
            "Multi-hop questions usually need facts from several passages; say false unless every hop is covered. "
            'Return {"sufficient": true|false, "answer": "<short answer if sufficient, else empty>", '
            '"reason": "<one sentence>"}.')


# ---------------------------------------------------------------- §3.2 keywords + latent inference
KEYWORDS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "explicit": {"type": "array", "items": {"type": "string"}},
        "implicit": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["explicit", "implicit"],
}


def keywords_prompt(query: str, chunks: Sequence[tuple[str, str]]) -> str:
    return (f"Question: {query}\n\nPreview passages (may or may not be relevant):\n{_passages(chunks, 400)}\n\n"
            "Extract the keywords needed to find the evidence in a knowledge graph:\n"
            "- explicit: entities, relations and attributes literally mentioned in the question "
            "(e.g. 'Tarn 4', 'maker', 'founding town');\n"
            "- implicit: concepts the question implies but does not name, inferred by reasoning "
            "(e.g. for 'lenses sold by the maker of the Tarn 4 camera' infer 'Oskel Optics' if a passage names it). "
            "Use [] if nothing is implied.\n"
            'Return {"explicit": [...], "implicit": [...]} with at most 6 short items each.')


# ---------------------------------------------------------------- §3.2 anchor specialization
SPECIALIZE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"rewrites": {"type": "array", "items": {
        "type": "object", "properties": {"keyword": {"type": "string"}, "specialized": {"type": "string"}},
        "required": ["keyword", "specialized"]}}},
    "required": ["rewrites"],
}


def specialize_prompt(query: str, keywords: Sequence[str]) -> str:
    return (f"Question: {query}\nKeywords: {list(keywords)}\n\n"
            "Some keywords are under-specified on their own: a generic word such as 'mother' matches thousands of "
            "graph elements. Rewrite each under-specified keyword into a query-conditioned constraint that binds it "
            "to the other concepts of the question (e.g. 'maker' -> \"Tarn 4's maker\"). Leave specific "
            "keywords (named entities, dates) unchanged by omitting them.\n"
            'Return {"rewrites": [{"keyword": "...", "specialized": "..."}]}.')


# ---------------------------------------------------------------- §3.2 schema relaxation
RELAX_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"relaxations": {"type": "array", "items": {
        "type": "object",
        "properties": {"keyword": {"type": "string"}, "relaxed": {"type": "string"},
                       "passage": {"type": "integer"}, "reason": {"type": "string"}},
        "required": ["keyword", "relaxed", "passage", "reason"]}}},
    "required": ["relaxations"],
}


def relax_prompt(query: str, keywords: Sequence[str], chunks: Sequence[tuple[str, str]]) -> str:
    return (f"Question: {query}\nKeywords: {list(keywords)}\n\nPreview passages:\n{_passages(chunks, 500)}\n\n"
            "A knowledge graph may not use the exact labels of a keyword (e.g. it stores 'employer', not "
            "'first employer'). If a preview passage confirms that the question's other concepts occur together "
            "in one region (e.g. it mentions the job AND the town AND the prize), relax the schema-sensitive "
            "keyword to a necessary but more general condition ('first employer' -> 'employer'). Only relax "
            "keywords that a passage supports; cite the passage number.\n"
            'Return {"relaxations": [{"keyword": "...", "relaxed": "...", "passage": <number>, "reason": "..."}]}.')


# ---------------------------------------------------------------- §3.2 grouping + weights
GROUPING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"groups": {"type": "array", "items": {
        "type": "object",
        "properties": {"concept": {"type": "string"}, "weight": {"type": "number"},
                       "members": {"type": "array", "items": {"type": "string"}}},
        "required": ["concept", "weight", "members"]}}},
    "required": ["groups"],
}


def grouping_prompt(query: str, candidates: Sequence[tuple[str, str, str]]) -> str:
    lines = "\n".join(f"{cid} [{kind}] {text}" for cid, kind, text in candidates)
    return (f"Question: {query}\n\nCandidate graph elements (id [node|edge] text):\n{lines}\n\n"
            "Group the candidates by the query concept they realise (one group per concept; candidates matching the "
            "same concept through different keywords belong together; leave out candidates that match no concept). "
            "Give each group an importance weight by its centrality to answering: the core subject entity highest, "
            "relations medium, peripheral modifiers lowest; weights sum to 1 (e.g. Tarn 4 0.5, maker 0.3, "
            "founding town 0.2).\n"
            'Return {"groups": [{"concept": "...", "weight": 0.5, "members": ["c1", "c4"]}]}.')


# ---------------------------------------------------------------- §3.5 reasoning-aware expansion
EXPAND_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"selected": {"type": "array", "items": {"type": "string"}}, "sufficient": {"type": "boolean"}},
    "required": ["selected", "sufficient"],
}


def expand_prompt(query: str, evidence: Sequence[str], neighbours: Sequence[tuple[str, str]]) -> str:
    ev = "\n".join(f"- {t}" for t in evidence) or "- (none yet)"
    nb = "\n".join(f"{nid}: {t}" for nid, t in neighbours)
    return (f"Question: {query}\n\nCurrent evidence (triples):\n{ev}\n\nNeighbouring triples you may add:\n{nb}\n\n"
            "Select the neighbouring triples that move the evidence toward the answer (e.g. place relations "
            "when the question asks where something is), and discard irrelevant attributes. Select none if nothing helps. "
            "Set sufficient=true if the evidence (with your selection) already answers the question.\n"
            'Return {"selected": ["n1", ...], "sufficient": true|false}.')


# ---------------------------------------------------------------- §3.6 answer
ANSWER_SYSTEM = ("You answer questions from retrieved evidence: a knowledge-graph reasoning skeleton and source "
                 "passages. Answer with a short phrase (an entity, date or number), no explanation.")


def answer_prompt(query: str, triples: Sequence[str], chunks: Sequence[tuple[str, str]]) -> str:
    sk = "\n".join(f"- {t}" for t in triples) or "- (none)"
    return (f"Reasoning skeleton (triples from the evidence graph):\n{sk}\n\nSource passages:\n{_passages(chunks, 900)}\n\n"
            f"Question: {query}\nAnswer:")


# ---------------------------------------------------------------- bounded JSON (option tight_json)
#: ``max_tokens`` per LLM stage, in one place (the answer's is ``BubbleConfig.answer_max_tokens``). The
#: same with ``tight_json``: there the bounded schema closes each reply's JSON (item counts, string
#: lengths, ids from the offered ones), so the limit is only a ceiling that a reply no longer runs into
#: while repeating itself; lower values would cut off replies the bounded schema allows.
STAGE_MAX_TOKENS: dict[str, int] = {
    "preretrieval": 160,
    "keywords": 200,
    "specialization": 200,
    "relaxation": 256,
    "grouping": 400,
    "reasoning": 160,
}

#: Character limits of the bounded schemas: a keyword or concept is a short phrase, a reason one
#: sentence (what the prompts ask for: "at most 6 short items", "<one sentence>").
SHORT, PHRASE, SENTENCE = 60, 100, 200
MAX_KEYWORDS = 6  #: "at most 6 short items each" (keywords_prompt)


def _str(max_len: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_len}


def _enum(values: Sequence[Any]) -> dict[str, Any]:
    return {"enum": list(dict.fromkeys(values))}


def sufficiency_schema(tight: bool) -> dict[str, Any]:
    """§3.2 sufficiency check; bounded: a short answer and a one-sentence reason."""
    if not tight:
        return SUFFICIENCY_SCHEMA
    return {**SUFFICIENCY_SCHEMA, "properties": {"sufficient": {"type": "boolean"}, "answer": _str(PHRASE),
                                                 "reason": _str(SENTENCE)}}


def keywords_schema(tight: bool) -> dict[str, Any]:
    """§3.2 keywords; bounded: at most 6 short items per list, as the prompt asks."""
    if not tight:
        return KEYWORDS_SCHEMA
    items = {"type": "array", "items": _str(SHORT), "maxItems": MAX_KEYWORDS}
    return {**KEYWORDS_SCHEMA, "properties": {"explicit": {**items, "minItems": 1}, "implicit": items}}


def specialize_schema(tight: bool, keywords: Sequence[str]) -> dict[str, Any]:
    """§3.2 specialization; bounded: at most one rewrite per keyword, naming one of the given keywords."""
    if not tight or not keywords:
        return SPECIALIZE_SCHEMA
    item = {"type": "object", "properties": {"keyword": _enum(keywords), "specialized": _str(PHRASE)},
            "required": ["keyword", "specialized"]}
    return {**SPECIALIZE_SCHEMA, "properties": {"rewrites": {"type": "array", "items": item,
                                                             "maxItems": len(set(keywords))}}}


def relax_schema(tight: bool, keywords: Sequence[str], n_passages: int) -> dict[str, Any]:
    """§3.2 relaxation; bounded: at most one relaxation per keyword, citing a shown passage."""
    if not tight or not keywords or n_passages < 1:
        return RELAX_SCHEMA
    item = {"type": "object",
            "properties": {"keyword": _enum(keywords), "relaxed": _str(SHORT),
                           "passage": _enum(range(1, n_passages + 1)), "reason": _str(SENTENCE)},
            "required": ["keyword", "relaxed", "passage", "reason"]}
    return {**RELAX_SCHEMA, "properties": {"relaxations": {"type": "array", "items": item,
                                                           "maxItems": len(set(keywords))}}}


def grouping_schema(tight: bool, candidate_ids: Sequence[str]) -> dict[str, Any]:
    """§3.2 grouping; bounded: members are candidate ids, a candidate in at most one group."""
    if not tight or not candidate_ids:
        return GROUPING_SCHEMA
    n = len(set(candidate_ids))
    item = {"type": "object",
            "properties": {"concept": _str(SHORT), "weight": {"type": "number"},
                           "members": {"type": "array", "items": _enum(candidate_ids), "minItems": 1, "maxItems": n}},
            "required": ["concept", "weight", "members"]}
    return {**GROUPING_SCHEMA, "properties": {"groups": {"type": "array", "items": item, "minItems": 1,
                                                         "maxItems": n}}}


def expand_schema(tight: bool, labels: Sequence[str]) -> dict[str, Any]:
    """§3.5 expansion hop; bounded: only the offered neighbour labels, each at most once in count."""
    if not tight or not labels:
        return EXPAND_SCHEMA
    return {**EXPAND_SCHEMA, "properties": {"selected": {"type": "array", "items": _enum(labels),
                                                         "maxItems": len(set(labels))},
                                            "sufficient": {"type": "boolean"}}}
