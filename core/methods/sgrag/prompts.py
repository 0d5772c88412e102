"""SG-RAG prompts, in one place: Table 12 (query → query graph) and Table 15 (answer from a matched
subgraph). Wording follows the paper's tables; the JSON output replaces the '#'-separated format so
llama.cpp's JSON-schema decoding can be used (a reply in the paper's '#' format is still read:
:func:`core.methods.sgrag.query_graph.parse_hash_format`). The format line shows placeholders, not an
example a small model could copy; the schema bounds the graph (:data:`MAX_QUERY_NODES`) well above Table 13's
averages and the largest question ``egx make-erqa`` builds, so only a runaway reply is refused."""

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

#: Query nodes and edges a query graph may have. Table 13 gives *averages* (up to 6.1 entities and 5.7
#: relations a query, so single queries go above them), and ``egx make-erqa`` builds questions of up to
#: 7 nodes (``max_constraints`` = 6 constraint entities around the asked-for star, 6 edges). Twelve nodes
#: and sixteen edges hold those with margin, while a runaway reply (a model looping over ids) is still
#: refused, with the bound in the message (:func:`core.methods.sgrag.query_graph.query_graph_size_problem`).
MAX_QUERY_NODES, MAX_QUERY_EDGES = 12, 16
_QIDS = [f"q{i}" for i in range(1, MAX_QUERY_NODES + 1)]

#: Table 12's output as a bounded schema: ids q1..q12, short labels, every edge between listed ids
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

#: With exact matches (§4.4: the prompt then "ensur[es] all constraints are satisfied"), the candidates are
#: listed first and the answer is one of them: each satisfies every relation of the question's graph.
ANSWER_SYSTEM_MATCHED = (
    "Below is a paragraph describing the relationships among entities in a structured graph, and the candidate "
    "answers: the entities that satisfy every relation the question asks about (exact matches of the question's "
    "graph, best match first). Read and reason carefully, and choose the candidate the question asks for. Note: "
    "the final answer must be one of the candidates. "
    "Return JSON only: {\"answer\": \"<candidate>\"}."
)

#: Table 14's shape, for a run whose answers an LLM judge scores for their reasoning (Emp.S, Table 17)
REASONING_LINE = (" Add one line of reasoning that names the relations the answer satisfies: "
                  "{\"answer\": \"...\", \"reasoning\": \"<one sentence>\"}.")
#: characters of that line (one sentence; the answer's token limit must hold it)
REASONING_CHARS = 240


def answer_system(*, matched: bool, reasoning: bool) -> str:
    """The answer stage's instruction: Table 15's, or with exact matches the candidates-first one, each
    with Table 14's reasoning line when ``reasoning``."""
    return (ANSWER_SYSTEM_MATCHED if matched else ANSWER_SYSTEM) + (REASONING_LINE if reasoning else "")


ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object", "properties": {"answer": {"type": "string", "maxLength": 120}}, "required": ["answer"],
}

#: above this many labels the answer is a bounded string checked afterwards (an enum grammar grows with them)
MAX_ENUM_LABELS = 200


def answer_schema(labels: list[str], *, candidates: list[str] | None = None, reasoning: bool = False) -> dict[str, Any]:
    """Table 15's constraint as the schema: the answer is one of the paragraph's entity labels or
    "Unable to determine" (an enum), so a reply cannot name anything else. With exact matches
    (``candidates``: their UNK bindings, best first) the enum is the candidates alone; ``reasoning`` adds
    Table 14's one line of reasoning (a bounded string)."""
    if candidates:
        answer: dict[str, Any] = {"enum": list(dict.fromkeys(candidates))}
    elif not labels or len(labels) > MAX_ENUM_LABELS:
        answer = dict(ANSWER_SCHEMA["properties"]["answer"])
    else:
        answer = {"enum": list(dict.fromkeys([*labels, UNDETERMINED]))}
    props: dict[str, Any] = {"answer": answer}
    if reasoning:
        props["reasoning"] = {"type": "string", "maxLength": REASONING_CHARS}
    return {"type": "object", "properties": props, "required": list(props)}

UNDETERMINED = "Unable to determine"


def relation_paragraph(sentences: list[str]) -> str:
    return " ".join(sentences)


def answer_user(query: str, paragraph: str, labels: list[str], candidates: list[str] | None = None) -> str:
    """Table 15's user prompt; with exact matches, their candidates come first and the answer is one of them."""
    if candidates:
        return (f"— Candidate answers (exact matches, best first): {'; '.join(candidates)}\n"
                f"— Known Relations: {paragraph}\n— User Question: {query}\nAnswer: [one candidate]")
    return (f"— Known Relations: {paragraph}\n— Entity labels you may answer with: {', '.join(labels)}\n"
            f"— User Question: {query}\nAnswer: [Entity] or \"{UNDETERMINED}\"")
