"""ReG prompts (Appendix F): supervision refinement (Fig. 6 style) and evidence-based QA (Fig. 7 style).

Both put a set of paths into the prompt, each written as a directional evidence chain
``e0 → [r1] → e1 → [r2] → e2`` (Appendix F). The triple-list and chain QA prompts share the
instructions, so their token difference is the evidence format alone. Appendix F's in-context example
is replaced by a format line with placeholders: the small local model we ship copied the example's
names into its replies ("Oskel Optics", "Brevik"), and a placeholder cannot be an answer. None of the
prompts names an entity of ``sample_data/`` or of a public benchmark (a test checks this).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# the evidence-based QA prompts (Fig. 7 style) are shared by every method's evidence formats
from core.methods.evidence.prompts import QA_SYSTEM as QA_SYSTEM
from core.methods.evidence.prompts import qa_prompt as qa_prompt

SELECT_SYSTEM = "You select reasoning paths from a knowledge graph as evidence. Answer with JSON only."

_SELECT_USER = """Given a question, its answer and numbered candidate reasoning paths from a knowledge graph, \
select the candidates that together give sufficient and logically coherent evidence for deriving the answer \
from the question. Drop paths that reach the answer through a relation the question does not ask about \
(spurious), and keep paths stating properties the question needs (a constraint, a comparison, a count). \
"+n similar" means the candidate stands for n more paths with the same relations.

Question: {query}
Answer: {answers}
Candidates:
{candidates}
Answer with JSON {{"explanation": "<one sentence: which candidates state what the question asks>", \
"selected": [<candidate numbers>]}}."""

SELECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"explanation": {"type": "string"},
                   "selected": {"type": "array", "items": {"type": "integer"}}},
    "required": ["explanation", "selected"],
}


def select_schema(n_candidates: int) -> dict[str, Any]:
    """The selection bounded to the offered candidates: numbers 0..n-1, each at most once in count, and a
    one-sentence explanation."""
    if n_candidates < 1:
        return SELECT_SCHEMA
    return {"type": "object",
            "properties": {"explanation": {"type": "string", "maxLength": 300},
                           "selected": {"type": "array", "items": {"enum": list(range(n_candidates))},
                                        "maxItems": n_candidates}},
            "required": ["explanation", "selected"]}


def select_prompt(query: str, answers: Sequence[str], candidates: Sequence[str]) -> str:
    body = "\n".join(f"{i}. {c}" for i, c in enumerate(candidates))  # numbered: the LLM answers with ids
    return _SELECT_USER.format(query=query.strip(), answers="; ".join(answers), candidates=body)


# --- stepwise selection: the same §4.1 decision asked as two constrained choices --------------------------------
# The shipped 1.5B model answers App. F's one-shot selection degenerately: it lists every candidate in order
# ("selected": [0, 1, ..., 11]) or a subset that no longer reaches the answer. Asked one narrow choice at a
# time — which query→answer chain, then which (if any) extra facts — under a grammar that only admits the
# offered numbers, its replies are always well-formed and usually discriminate.

_STEP_CHAIN_USER = """Given a question, its answer and numbered reasoning paths from a knowledge graph that each \
lead from an entity of the question to the answer, choose the path whose relations are the steps the question \
asks about. A path that reaches the answer through relations the question does not ask about is spurious.

Question: {query}
Answer: {answers}
Paths:
{candidates}
Answer with JSON {{"path": <path number>}}."""

_STEP_CONTEXT_USER = """Given a question, its answer and the reasoning path chosen as evidence, choose the numbered \
facts the question also needs because it names them as a constraint or property (a date, a place, a type, a \
comparison). Choose at most {most}; choose none when the path is enough.

Question: {query}
Answer: {answers}
Chosen path: {chain}
Facts:
{candidates}
Answer with JSON {{"selected": [<fact numbers>]}}."""


def chain_prompt(query: str, answers: Sequence[str], candidates: Sequence[tuple[int, str]]) -> str:
    body = "\n".join(f"{i}. {c}" for i, c in candidates)
    return _STEP_CHAIN_USER.format(query=query.strip(), answers="; ".join(answers), candidates=body)


def chain_schema(ids: Sequence[int]) -> dict[str, Any]:
    return {"type": "object", "properties": {"path": {"enum": list(ids)}}, "required": ["path"]}


def context_prompt(query: str, answers: Sequence[str], chain: str, candidates: Sequence[tuple[int, str]],
                   most: int) -> str:
    body = "\n".join(f"{i}. {c}" for i, c in candidates)
    return _STEP_CONTEXT_USER.format(query=query.strip(), answers="; ".join(answers), chain=chain, candidates=body,
                                     most=most)


def context_schema(ids: Sequence[int], most: int) -> dict[str, Any]:
    return {"type": "object", "properties": {"selected": {"type": "array", "items": {"enum": list(ids)},
                                                          "maxItems": most}},
            "required": ["selected"]}
