"""BubbleRAG prompts and their JSON schemas, in one module (as nano-graphrag keeps its prompts).

Each prompt states the stage's job in the paper's words and asks for a small JSON object; the
schemas are handed to backends that support constrained decoding (llama.cpp, OpenAI). The inline
examples are written for these prompts about made-up entities (the Tarn 4 camera, Oskel Optics):
none is a question of ``sample_data/`` (the paper's own Lothair II / Keanu Reeves examples are demo
questions there) or of a public benchmark, so no prompt primes a model with an evaluated answer.
"""

from __future__ import annotations

from collections.abc import Sequence

SYSTEM = ("You are the retrieval planner of a graph RAG system over a knowledge graph whose schema is unknown. "
          "Answer only with the requested JSON object.")


def _passages(chunks: Sequence[tuple[str, str]], limit: int = 700) -> str:
    return "\n".join(f"[{i + 1}] {t}: {x[:limit]}" for i, (t, x) in enumerate(chunks))


# ---------------------------------------------------------------- §3.2 pre-retrieval sufficiency
SUFFICIENCY_SCHEMA = {
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
KEYWORDS_SCHEMA = {
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
SPECIALIZE_SCHEMA = {
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
RELAX_SCHEMA = {
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
GROUPING_SCHEMA = {
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
EXPAND_SCHEMA = {
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
