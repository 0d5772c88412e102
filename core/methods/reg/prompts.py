"""ReG prompts (Appendix F): supervision refinement (Fig. 6 style) and evidence-based QA (Fig. 7 style).

Both put a set of paths into the prompt, each written as a directional evidence chain
``e0 → [r1] → e1 → [r2] → e2`` (Appendix F). The triple-list and chain QA prompts share the
instructions, so their token difference is the evidence format alone.

Appendix F's in-context demonstrations are in every prompt here (§4.1: "in-context learning with
explanation-based demonstrations"): each selection prompt opens with a worked example and its reply with
the explanation; ReG's QA prompt opens with one too (:mod:`core.methods.evidence.prompts`). They are written
about made-up entities (:data:`DEMO_NAMES`): none names an entity of ``sample_data/`` or of a public
benchmark (a test checks this), and the small local model we ship has copied an example's names into its
replies before, so a reply naming a demonstration entity its own question and candidates do not name is
treated as a failed check (:func:`demo_copied`), as BubbleRAG treats a reply that copies its template.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

# the evidence-based QA prompts (Fig. 7 style) are shared by every method's evidence formats
from core.methods.evidence.prompts import DEMO_NAMES as DEMO_NAMES
from core.methods.evidence.prompts import QA_SYSTEM as QA_SYSTEM
from core.methods.evidence.prompts import demonstration_copies
from core.methods.evidence.prompts import qa_prompt as qa_prompt

SELECT_SYSTEM = "You select reasoning paths from a knowledge graph as evidence. Answer with JSON only."

#: App. F Fig. 6's worked example, made up: a spurious chain (through where she worked) and a chain that
#: follows the question's relations (birthplace, then river); the explanation says why.
SELECT_DEMO = """Example (made-up entities):
Question: Which river runs through the birthplace of Ilse Varnholt?
Answer: Ober Tamm
Candidates:
0. Ilse Varnholt → [worked in] → Quellstad → [on the river] → Ober Tamm
1. Ilse Varnholt → [born in] → Quellstad → [on the river] → Ober Tamm
2. Ilse Varnholt → [founded] → Marrowfield Ledger
Reply: {"explanation": "Candidate 1 follows Ilse Varnholt's birthplace Quellstad to its river, as the question \
asks; candidate 0 reaches Ober Tamm through her workplace, which the question does not ask about, and candidate 2 \
is not needed.", "selected": [1]}

Now the real task.
"""

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
    return SELECT_DEMO + _SELECT_USER.format(query=query.strip(), answers="; ".join(answers), candidates=body)


def demo_copied(reply: Any, prompt: str, demo: str) -> list[str]:
    """The demonstration entities ``reply`` names that ``prompt``'s real question and candidates do not
    (``demo``: the demonstration block the prompt opens with); empty when the reply is its own."""
    return demonstration_copies(reply, prompt, demo)


# --- stepwise selection: the same §4.1 decision asked as two constrained choices --------------------------------
# The shipped 1.5B model answers App. F's one-shot selection degenerately: it lists every candidate in order
# ("selected": [0, 1, ..., 11]) or a subset that no longer reaches the answer. Asked one narrow choice at a
# time — which query→answer chains, then whether (and which) extra facts — under a grammar that only admits the
# offered numbers, its replies are always well-formed and usually discriminate. Each step keeps §4.1's
# explanation-based demonstration and asks for the explanation first.

#: the chain step's worked example: a two-entity question needs one chain per entity, and a chain through a
#: relation the question does not ask about is spurious
CHAIN_DEMO = """Example (made-up entities):
Question: Which publisher employs both Ilse Varnholt and Oren Caskey?
Answer: Brindlewick Press
Paths:
0. Ilse Varnholt → [works for] → Brindlewick Press
1. Ilse Varnholt → [born in] → Quellstad → [home of] → Brindlewick Press
2. Oren Caskey → [works for] → Brindlewick Press
Reply: {"explanation": "The question asks who employs Ilse Varnholt and who employs Oren Caskey: paths 0 and 2; \
path 1 goes through her birthplace Quellstad, which the question does not ask about.", "paths": [0, 2]}

Now the real task.
"""

_STEP_CHAIN_USER = """Given a question, its answer and numbered reasoning paths from a knowledge graph that each \
lead from an entity of the question to the answer, choose the paths whose relations are the steps the question \
asks about: one path, or one for each entity the question names when it asks about several. A path that reaches \
the answer through relations the question does not ask about is spurious.

Question: {query}
Answer: {answers}
Paths:
{candidates}
Answer with JSON {{"explanation": "<one sentence: which paths follow the question's steps>", \
"paths": [<path numbers>]}}."""

#: the fact step's worked examples (§4.1, App. D.1 "incompleteness"): facts only when the question names a
#: constraint or property the chosen paths do not state, and none when they are enough
CONTEXT_DEMO = """Examples (made-up entities):
Question: In which town was the founder of the Marrowfield Ledger born?
Chosen paths: Marrowfield Ledger → [founded by] → Ilse Varnholt → [born in] → Quellstad
Facts:
0. Ilse Varnholt → [worked in] → Tolvane
1. Quellstad → [on the river] → Ober Tamm
Reply: {"explanation": "The chosen path states the Marrowfield Ledger's founder and her birthplace; no fact is \
needed.", "needed": "none", "selected": []}

Question: Which town on the Ober Tamm was Ilse Varnholt born in?
Chosen paths: Ilse Varnholt → [born in] → Quellstad
Facts:
0. Ilse Varnholt → [worked in] → Tolvane
1. Quellstad → [on the river] → Ober Tamm
Reply: {"explanation": "The question names the Ober Tamm as a constraint; fact 1 states that Quellstad lies on \
it.", "needed": "some", "selected": [1]}

Now the real task.
"""

_STEP_CONTEXT_USER = """Given a question, its answer and the reasoning paths chosen as evidence, decide whether \
the question also needs one of the numbered facts because it names it as a constraint or property the chosen \
paths do not state (a date, a place, a type, a comparison, a count). Most questions need none: answer \
"needed": "none" with no fact when the chosen paths are enough; otherwise "needed": "some" and at most {most} \
fact numbers.

Question: {query}
Answer: {answers}
Chosen paths: {chain}
Facts:
{candidates}
Answer with JSON {{"explanation": "<one sentence>", "needed": "<none or some>", "selected": [<fact numbers>]}}."""


def chain_prompt(query: str, answers: Sequence[str], candidates: Sequence[tuple[int, str]]) -> str:
    body = "\n".join(f"{i}. {c}" for i, c in candidates)
    return CHAIN_DEMO + _STEP_CHAIN_USER.format(query=query.strip(), answers="; ".join(answers), candidates=body)


def chain_schema(ids: Sequence[int]) -> dict[str, Any]:
    """One or more of the offered chain numbers, after a one-sentence explanation."""
    ids = list(ids)
    return {"type": "object",
            "properties": {"explanation": {"type": "string", "maxLength": 200},
                           "paths": {"type": "array", "items": {"enum": ids}, "minItems": 1, "maxItems": len(ids)}},
            "required": ["explanation", "paths"]}


def context_prompt(query: str, answers: Sequence[str], chain: str, candidates: Sequence[tuple[int, str]],
                   most: int) -> str:
    body = "\n".join(f"{i}. {c}" for i, c in candidates)
    return CONTEXT_DEMO + _STEP_CONTEXT_USER.format(query=query.strip(), answers="; ".join(answers), chain=chain,
                                                    candidates=body, most=most)


def context_schema(ids: Sequence[int], most: int) -> dict[str, Any]:
    """"needed" first ("none" is a choice of its own, listed first), then at most ``most`` fact numbers."""
    return {"type": "object",
            "properties": {"explanation": {"type": "string", "maxLength": 200},
                           "needed": {"enum": ["none", "some"]},
                           "selected": {"type": "array", "items": {"enum": list(ids)}, "maxItems": most}},
            "required": ["explanation", "needed", "selected"]}


def selection_prompts_sha256() -> str:
    """sha256 of every selection prompt template and demonstration: selections made under other prompts (a cache,
    a sample's shipped ``selections.json``) are not reused as if these prompts had made them."""
    text = "\n".join([SELECT_SYSTEM, SELECT_DEMO, _SELECT_USER, CHAIN_DEMO, _STEP_CHAIN_USER, CONTEXT_DEMO,
                      _STEP_CONTEXT_USER])
    return hashlib.sha256(text.encode()).hexdigest()
