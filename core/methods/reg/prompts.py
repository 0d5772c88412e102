"""ReG prompts (Appendix F): supervision refinement (Fig. 6 style) and evidence-based QA (Fig. 7 style).

Both put a set of paths into the prompt, each written as a directional evidence chain
``e0 → [r1] → e1 → [r2] → e2`` (Appendix F). The triple-list and chain QA prompts share the
instructions and the in-context example, so their token difference is the evidence format alone.
The example carries a one-line explanation (Appendix F: optional for strong LLMs; small local models
benefit from it). Every example is written for these prompts about made-up entities (the Tarn 4 camera,
Oskel Optics, the Hollin river): none is a question of ``sample_data/`` or of a public benchmark, so no
example hands a model the answer to a question it is evaluated on (a test checks this).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

QA_SYSTEM = ("You answer questions from knowledge-graph evidence. Reply with the short answer alone (a name, "
             "date, number or short phrase), no explanation.")

_QA_CHAINS = """Based on the reasoning paths, answer the question. Each path is an evidence chain \
"entity → [relation] → entity"; {{a; b}} lists entities that share one chain.

Example
Reasoning paths:
Tarn 4 → [manufactured by] → Oskel Optics → [founded in] → Brevik
Tarn 4 → [released in] → 1974
Question: In which town was the maker of the Tarn 4 camera founded?
Explanation: The Tarn 4 is manufactured by Oskel Optics, which was founded in Brevik.
Answer: Brevik

Reasoning paths:
{evidence}
Question: {query}
Answer:"""

_QA_TRIPLES = """Based on the triples, answer the question. Each triple is "(head, relation, tail)".

Example
Triples:
(Tarn 4, released in, 1974)
(Oskel Optics, founded in, Brevik)
(Tarn 4, manufactured by, Oskel Optics)
Question: In which town was the maker of the Tarn 4 camera founded?
Explanation: The Tarn 4 is manufactured by Oskel Optics, which was founded in Brevik.
Answer: Brevik

Triples:
{evidence}
Question: {query}
Answer:"""


def qa_prompt(query: str, evidence: str, fmt: str) -> str:
    """User message for ``fmt`` "chains" (numbered chains) or "triples" (one triple a line)."""
    tpl = _QA_CHAINS if fmt == "chains" else _QA_TRIPLES
    return tpl.format(evidence=evidence.strip() or "(none)", query=query.strip())


SELECT_SYSTEM = "You select reasoning paths from a knowledge graph as evidence. Answer with JSON only."

_SELECT_USER = """Given a question, its answer and numbered candidate reasoning paths from a knowledge graph, \
select the candidates that together give sufficient and logically coherent evidence for deriving the answer \
from the question. Drop paths that reach the answer through a relation the question does not ask about \
(spurious), and keep paths stating properties the question needs (a constraint, a comparison, a count). \
"+n similar" means the candidate stands for n more paths with the same relations.

Example
Question: Which town on the Hollin river has Ostra Hall as its town hall?
Answer: Pellam
Candidates:
0. Hollin → [flows through] → Pellam
1. Hollin → [named after] → Hollin Vale → [region of] → Pellam
2. Pellam → [town hall] → Ostra Hall
3. Hollin → [source] → Mount Dray
{{"explanation": "0 states the river the question asks for and 2 the town-hall constraint; 1 reaches Pellam \
through a name, which is not the river's course; 3 is about the river's source.", "selected": [0, 2]}}

Question: {query}
Answer: {answers}
Candidates:
{candidates}
Answer with JSON {{"explanation": "<one sentence>", "selected": [candidate numbers]}}."""

SELECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"explanation": {"type": "string"},
                   "selected": {"type": "array", "items": {"type": "integer"}}},
    "required": ["explanation", "selected"],
}


def select_prompt(query: str, answers: Sequence[str], candidates: Sequence[str]) -> str:
    body = "\n".join(f"{i}. {c}" for i, c in enumerate(candidates))  # numbered: the LLM answers with ids
    return _SELECT_USER.format(query=query.strip(), answers="; ".join(answers), candidates=body)
