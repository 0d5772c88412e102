"""ReG prompts (Appendix F): supervision refinement (Fig. 6 style) and evidence-based QA (Fig. 7 style).

Both put a set of paths into the prompt, each written as a directional evidence chain
``e0 → [r1] → e1 → [r2] → e2`` (Appendix F). The triple-list and chain QA prompts share the
instructions and the in-context example, so their token difference is the evidence format alone.
The example carries a one-line explanation (Appendix F: optional for strong LLMs; small local models
benefit from it).
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
Lothair II → [son of] → Ermengarde of Tours → [died on] → 20 March 851
Gisela → [sibling] → Lothair II
Question: When did Lothair II's mother die?
Explanation: Lothair II is the son of Ermengarde of Tours, who died on 20 March 851.
Answer: 20 March 851

Reasoning paths:
{evidence}
Question: {query}
Answer:"""

_QA_TRIPLES = """Based on the triples, answer the question. Each triple is "(head, relation, tail)".

Example
Triples:
(Gisela, sibling, Lothair II)
(Ermengarde of Tours, died on, 20 March 851)
(Lothair II, son of, Ermengarde of Tours)
Question: When did Lothair II's mother die?
Explanation: Lothair II is the son of Ermengarde of Tours, who died on 20 March 851.
Answer: 20 March 851

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
Question: Which country borders Spain and has Paris as its capital?
Answer: France
Candidates:
0. Spain → [borders] → France
1. Spain → [official language] → Spanish → [spoken in] → France
2. France → [capital] → Paris
3. Spain → [capital] → Madrid
{{"explanation": "0 states the bordering the question asks for and 2 the capital constraint; 1 reaches France \
through a shared language, which is not bordering; 3 is about Spain's capital.", "selected": [0, 2]}}

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
