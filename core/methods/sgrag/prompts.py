"""SG-RAG prompts, in one place: Table 12 (query → query graph) and Table 15 (answer from a matched
subgraph). Wording follows the paper's tables; the JSON output replaces the '#'-separated format so
llama.cpp's JSON-schema decoding can be used (a reply in the paper's '#' format is still read:
:func:`core.methods.sgrag.query_graph.parse_hash_format`). The format line shows placeholders, not an
example a small model could copy; the schema bounds the graph to Table 13's sizes."""

from __future__ import annotations

from typing import Any

QUERY_GRAPH_SYSTEM = (
    "Given a user question, identify all semantically independent entities and extract their implicit "
    "structural relations to construct a query graph. If the question contains a target entity (i.e., the "
    "answer is unknown), extract it as a node with label \"UNK\".\n"
    "Step 1, nodes: for each entity give a unique id, its label (the entity name as written in the question, "
    "or \"UNK\" for the target to be queried) and an optional short description. An entity the question "
    "only describes (not names) is also \"UNK\".\n"
    "Step 2, edges: for each related entity pair give the start and end node ids.\n"
    "Return JSON only: {\"nodes\": [{\"id\": \"<q1, q2, ...>\", \"label\": \"<entity name or UNK>\", "
    "\"description\": \"<optional>\"}, ...], \"edges\": [{\"source\": \"<node id>\", "
    "\"target\": \"<node id>\"}, ...]}."
)

#: query nodes and edges a query graph may have (Table 13: at most 5 entities and 6 relations a query)
MAX_QUERY_NODES, MAX_QUERY_EDGES = 6, 8
_QIDS = [f"q{i}" for i in range(1, MAX_QUERY_NODES + 1)]

#: Table 12's output as a bounded schema: ids q1..q6, short labels, every edge between listed ids
QUERY_GRAPH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "nodes": {"type": "array", "minItems": 2, "maxItems": MAX_QUERY_NODES, "items": {
            "type": "object",
            "properties": {"id": {"enum": _QIDS}, "label": {"type": "string", "maxLength": 80},
                           "description": {"type": "string", "maxLength": 80}},
            "required": ["id", "label"]}},
        "edges": {"type": "array", "minItems": 1, "maxItems": MAX_QUERY_EDGES, "items": {
            "type": "object",
            "properties": {"source": {"enum": _QIDS}, "target": {"enum": _QIDS}},
            "required": ["source", "target"]}},
    },
    "required": ["nodes", "edges"],
}


def query_graph_user(query: str) -> str:
    return f"Text: {query}"


ANSWER_SYSTEM = (
    "Below is a paragraph describing the relationships among entities in a structured graph. This paragraph "
    "contains the answer to a user question. Read and reason carefully. Note: the final answer must be one "
    "of the entity labels mentioned in the paragraph. If it cannot be decided, answer \"Unable to determine\". "
    "Return JSON only: {\"answer\": \"<entity label or Unable to determine>\"}."
)

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object", "properties": {"answer": {"type": "string", "maxLength": 120}}, "required": ["answer"],
}

#: above this many labels the answer is a bounded string checked afterwards (an enum grammar grows with them)
MAX_ENUM_LABELS = 200


def answer_schema(labels: list[str]) -> dict[str, Any]:
    """Table 15's constraint as the schema: the answer is one of the paragraph's entity labels or
    "Unable to determine" (an enum), so a reply cannot name anything else."""
    if not labels or len(labels) > MAX_ENUM_LABELS:
        return ANSWER_SCHEMA
    return {"type": "object", "properties": {"answer": {"enum": list(dict.fromkeys([*labels, UNDETERMINED]))}},
            "required": ["answer"]}

UNDETERMINED = "Unable to determine"


def relation_paragraph(sentences: list[str]) -> str:
    return " ".join(sentences)


def answer_user(query: str, paragraph: str, labels: list[str]) -> str:
    return (f"— Known Relations: {paragraph}\n— Entity labels you may answer with: {', '.join(labels)}\n"
            f"— User Question: {query}\nAnswer: [Entity] or \"{UNDETERMINED}\"")
