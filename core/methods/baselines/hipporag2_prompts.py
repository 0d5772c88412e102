"""HippoRAG 2's recognition-memory prompt and its JSON schema (Gutiérrez et al. 2025, §3.2; the released code's
DSPy filter, ``src/hipporag/rerank.py`` and ``prompts/filter_default_prompt.py``).

The code's filter shows the question and the linked facts as ``[subject, predicate, object]`` lists and asks
for "up to 4 relevant facts" from the candidate list, with an empty list when none is relevant, after ten
few-shot demonstrations. Ours asks the same in the project's style for the small local model
(:mod:`core.methods.bubblerag.prompts`): no demonstration (an example fact could be copied, and the code's
demonstrations are benchmark questions), facts by id, and a bounded schema whose items are the offered ids
(an enum), at most :data:`MAX_KEPT` of them, so a reply cannot name a fact that was not offered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: The code's filter instruction asks for "up to 4 relevant facts".
MAX_KEPT = 4
#: ``{"facts": ["f1", "f2", "f3", "f4"]}`` is about 25 tokens; room for spacing, never for a runaway reply.
FILTER_MAX_TOKENS = 48

FILTER_SYSTEM = ("You are the recognition memory of a retrieval system: from facts recalled for a question you keep "
                 "those that help answer it. Reply with the requested JSON object only.")


def fact_ids(n: int) -> list[str]:
    """The ids the prompt gives ``n`` facts: ``f1`` … ``fn``."""
    return [f"f{i + 1}" for i in range(n)]


def filter_prompt(query: str, facts: Sequence[tuple[str, str, str]], *, most: int = MAX_KEPT) -> str:
    """User message: the question and the linked facts ``(subject, relation, object)``, best linked first."""
    lines = "\n".join(f"{fid}: {s} | {r} | {o}" for fid, (s, r, o) in zip(fact_ids(len(facts)), facts))
    return (f"Question: {query.strip()}\n\nRecalled facts (subject | relation | object):\n{lines or '(none)'}\n\n"
            f"Task: keep at most {most} of these facts that are relevant to the question: a fact about something "
            "the question names, or a step on the way to its answer (the question may need several steps). Keep "
            "only facts from the list, by id; keep none if no fact is relevant.\n"
            'Format: {"facts": ["<fact id>", ...]}')


def filter_schema(n: int, *, most: int = MAX_KEPT) -> dict[str, Any]:
    """``{"facts": [...]}``: ids of the ``n`` offered facts only, at most ``min(most, n)``."""
    return {"type": "object",
            "properties": {"facts": {"type": "array", "items": {"enum": fact_ids(n)}, "maxItems": min(most, n)}},
            "required": ["facts"]}


def check_filter_reply(data: Any, n: int, *, most: int = MAX_KEPT) -> list[int]:
    """The kept facts' positions (0-based, in the reply's order, repeats dropped).

    Raises
    ------
    ValueError
        When the reply is not ``{"facts": [ids]}`` with offered ids only, or keeps more than ``most`` (the
        message is shown to the model when it is asked again).
    """
    ids = fact_ids(n)
    if not isinstance(data, dict) or not isinstance(data.get("facts"), list):
        raise ValueError('the output has no "facts" list')
    bad = [x for x in data["facts"] if not isinstance(x, str) or x not in ids]
    if bad:
        raise ValueError(f'"facts" may hold only the offered ids {", ".join(ids)}; got {bad[0]!r}')
    kept = list(dict.fromkeys(ids.index(x) for x in data["facts"]))
    if len(kept) > most:
        raise ValueError(f"keep at most {most} facts, not {len(kept)}")
    return kept
