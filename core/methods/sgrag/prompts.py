"""SG-RAG prompts, in one place: Table 12 (query → query graph) and Table 15 (answer from a matched
subgraph). Wording follows the paper's tables; the JSON output replaces the '#'-separated format so
llama.cpp's JSON-schema decoding can be used."""

from __future__ import annotations

from typing import Any

QUERY_GRAPH_SYSTEM = (
    "Given a user question, identify all semantically independent entities and extract their implicit "
    "structural relations to construct a query graph. If the question contains a target entity (i.e., the "
    "answer is unknown), extract it as a node with label \"UNK\".\n"
    "Step 1, nodes: for each entity give a unique id, its label (the entity name as written in the question, "
    "or \"UNK\" for the target to be queried) and an optional short description.\n"
    "Step 2, edges: for each related entity pair give the start and end node ids.\n"
    "Return JSON only: {\"nodes\": [{\"id\": \"q1\", \"label\": \"...\", \"description\": \"\"}], "
    "\"edges\": [{\"source\": \"q1\", \"target\": \"q2\"}]}."
)

QUERY_GRAPH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "nodes": {"type": "array", "items": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "label": {"type": "string"},
                           "description": {"type": "string"}},
            "required": ["id", "label"]}},
        "edges": {"type": "array", "items": {
            "type": "object",
            "properties": {"source": {"type": "string"}, "target": {"type": "string"}},
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
    "type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
}

UNDETERMINED = "Unable to determine"


def relation_paragraph(sentences: list[str]) -> str:
    return " ".join(sentences)


def answer_user(query: str, paragraph: str, labels: list[str]) -> str:
    return (f"— Known Relations: {paragraph}\n— Entity labels you may answer with: {', '.join(labels)}\n"
            f"— User Question: {query}\nAnswer: [Entity] or \"{UNDETERMINED}\"")
