"""The evidence-based QA prompts (ReG Appendix F, Fig. 7 style) shared by every method's evidence formats.

Both put the evidence into the prompt, as a triple list or as directional evidence chains
``e0 → [r1] → e1 → [r2] → e2`` (Appendix F). The two share their instructions, so their token
difference is the evidence format alone.

Appendix F puts an in-context demonstration before the question ("a structured prompt template with
in-context demonstrations", §4.2). ReG's own answer step (:func:`qa_prompt` with ``demonstration=True``)
has one, written about made-up entities that no sample or public benchmark names, and without the
explanation (App. F: "the explanation component in the ICL example is optional"; our answer step asks
for the answer alone). The small local model we ship has copied a demonstration's names into its
replies before, so :func:`demonstration_copies` finds a reply that names a demonstration entity the
real question and evidence do not, and the answer step treats it as an unusable reply (BubbleRAG's
template-copy check, :func:`core.methods.bubblerag.prompts.template_copies`, treats a copied format line
the same way). The other methods' evidence prompts stay without it.
"""

from __future__ import annotations

from core.methods.copy_check import DEMO_NAMES as DEMO_NAMES
from core.methods.copy_check import demonstration_copies as demonstration_copies

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


_QA_DEMO_CHAINS = """Example (made-up entities, not part of your evidence):
Reasoning paths:
1. Marrowfield Ledger → [founded by] → Ilse Varnholt → [born in] → Quellstad
2. Ilse Varnholt → [worked in] → Tolvane
Question: In which town was the founder of the Marrowfield Ledger born?
Answer: Quellstad

Now the real task.
"""

_QA_DEMO_TRIPLES = """Example (made-up entities, not part of your evidence):
Triples:
(Marrowfield Ledger, founded by, Ilse Varnholt)
(Ilse Varnholt, born in, Quellstad)
(Ilse Varnholt, worked in, Tolvane)
Question: In which town was the founder of the Marrowfield Ledger born?
Answer: Quellstad

Now the real task.
"""


def qa_demonstration(fmt: str) -> str:
    """The demonstration block ReG's answer prompt opens with, in the evidence format ``fmt``."""
    return _QA_DEMO_CHAINS if fmt == "chains" else _QA_DEMO_TRIPLES


def qa_prompt(query: str, evidence: str, fmt: str, *, demonstration: bool = False) -> str:
    """User message for ``fmt`` "chains" (numbered chains) or "triples" (one triple a line); ``demonstration``
    opens it with App. F's in-context example (ReG's answer step)."""
    tpl = _QA_CHAINS if fmt == "chains" else _QA_TRIPLES
    body = tpl.format(evidence=evidence.strip() or "(none)", query=query.strip())
    return qa_demonstration(fmt) + body if demonstration else body
