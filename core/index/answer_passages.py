"""The passages of a gold title that hold the gold answer: where a questions file names a title of several passages
without a place in it, and the answer stands in only some of them, those are the evidence
(:func:`core.index.questions.load_questions`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from core.text import normalize_answer


def answer_holders(chunks: Sequence[Any], answers: Iterable[str]) -> list[str]:
    """The ids of the ``chunks`` of one gold title (several passages, document order) whose text holds one of the
    ``answers`` (SQuAD-normalised, whole words), where some but not all do; [] else (none does, every one does, or no
    answer a passage could hold: empty, one letter, yes / no). A gold title named without a place in it is one
    document, found when any of its passages is retrieved — but where the gold answer stands in one of them, that one
    is the evidence: audit 56's "Casimir Dell" (q11) stood in passage 3 of “tobin ashgrove”, which four methods missed,
    while every verdict said the gold was retrieved (passage 1 was).

    >>> from core.graph.model import Chunk
    >>> doc = [Chunk("t#0", "T", "Tobin Ashgrove was born in Calmouth."), Chunk("t#1", "T", "He sailed for Casimir Dell.")]
    >>> answer_holders(doc, ["Casimir Dell"]), answer_holders(doc, ["Calmouth", "Dell"]), answer_holders(doc, ["yes"])
    (['t#1'], [], [])
    """
    keys = {f" {k} " for k in map(normalize_answer, answers) if len(k) > 1 and k not in ("yes", "no")}
    held = [c.id for c in chunks if keys and any(k in f" {normalize_answer(c.text)} " for k in keys)]
    return held if len(held) < len(chunks) else []

