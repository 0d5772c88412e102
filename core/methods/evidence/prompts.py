"""The evidence-based QA prompts (ReG Appendix F, Fig. 7 style) shared by every method's evidence formats.

Both put the evidence into the prompt, as a triple list or as directional evidence chains
``e0 → [r1] → e1 → [r2] → e2`` (Appendix F). The two share their instructions, so their token
difference is the evidence format alone. Appendix F's in-context example is replaced by a format line
with placeholders: the small local model we ship copied the example's names into its replies, and a
placeholder cannot be an answer.
"""

from __future__ import annotations

QA_SYSTEM = ("You answer questions from knowledge-graph evidence. Reply with the short answer alone (a name, "
             "date, number or short phrase), no explanation.")

_QA_CHAINS = """Based on the reasoning paths, answer the question. Each path is an evidence chain \
"entity → [relation] → entity"; {{a; b}} lists entities that share one chain. Follow the chain the question \
describes from the entity it names to the entity it asks for.

Reasoning paths:
{evidence}
Question: {query}
Reply with the answer alone (<an entity, date or number from the paths>).
Answer:"""

_QA_TRIPLES = """Based on the triples, answer the question. Each triple is "(head, relation, tail)". Follow the \
triples the question describes from the entity it names to the entity it asks for.

Triples:
{evidence}
Question: {query}
Reply with the answer alone (<an entity, date or number from the triples>).
Answer:"""


def qa_prompt(query: str, evidence: str, fmt: str) -> str:
    """User message for ``fmt`` "chains" (numbered chains) or "triples" (one triple a line)."""
    tpl = _QA_CHAINS if fmt == "chains" else _QA_TRIPLES
    return tpl.format(evidence=evidence.strip() or "(none)", query=query.strip())
