"""Whether an LLM reply copied the in-context demonstration its prompt opens with (ReG App. F's examples), instead
of answering its own question; shared by ReG's selection checks (:mod:`core.methods.reg.selection`) and the answer
step (:func:`core.methods.answering.answer_question`), and free of both so neither imports the other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: The made-up entities of the demonstrations (QA and ReG's selection): none is a name of ``sample_data/``
#: or of a public benchmark (a test checks this); a reply naming one that its own question and evidence do
#: not name copied the demonstration.
DEMO_NAMES: tuple[str, ...] = ("Marrowfield Ledger", "Ilse Varnholt", "Quellstad", "Ober Tamm", "Oren Caskey",
                               "Brindlewick Press", "Tolvane")


def reply_strings(reply: object) -> list[str]:
    """Every string of a parsed JSON reply (a string, or dicts and lists of them), in order: what a copy check
    reads (BubbleRAG's template check and the demonstration check below)."""
    if isinstance(reply, str):
        return [reply]
    if isinstance(reply, dict):
        return [t for v in reply.values() for t in reply_strings(v)]
    if isinstance(reply, list):
        return [t for v in reply for t in reply_strings(v)]
    return []


def _names_in(name: str, text: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(name.lower()) + r"(?!\w)", text.lower()) is not None


def demonstration_copies(reply: object, prompt: str, demonstration: str,
                         names: Iterable[str] = DEMO_NAMES) -> list[str]:
    """What ``reply`` copied from the ``demonstration`` block ``prompt`` opens with, instead of answering its own
    question: the demonstration entities it names that the rest of ``prompt`` does not, and any of its strings
    written in the demonstration word for word but not in the rest of the prompt (40 characters or more: a short
    phrase such as "no fact is needed" may be the reply's own).

    ``reply`` is a string or a parsed JSON reply (every string in it is read); ``names``: the demonstration's
    made-up entities (:data:`DEMO_NAMES`).
    """
    texts = reply_strings(reply)
    said = "\n".join(texts)
    real = prompt.replace(demonstration, "") if demonstration else prompt
    found = [n for n in names if _names_in(n, said) and not _names_in(n, real)]

    def norm(t: str) -> str:
        return " ".join(t.lower().split())

    demo, rest = norm(demonstration), norm(real)
    found += [t[:60] for t in texts if len(norm(t)) >= 40 and norm(t) in demo and norm(t) not in rest]
    return list(dict.fromkeys(found))
