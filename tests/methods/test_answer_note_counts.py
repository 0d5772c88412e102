"""The extractive answer's note (no LLM) says both numbers: how many passages the answer step was handed and how
many of the top ones its sentence is picked from (:data:`core.methods.answering.EXTRACTIVE_PASSAGES`); an audit
read "the sentence of the top 3 passages" beside "its answer read 5 passages" on HippoRAG 2's page."""

from __future__ import annotations

import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.methods.answering import EXTRACTIVE_PASSAGES, context_of, record_answer
from core.methods.base import Backends
from core.methods.evidence.formats import answering_steps
from core.trace import Trace

PASSAGES = [(f"p{i}", f"Harbour {i}", f"The ferry Gull {i} sailed from Harbour {i} in 19{10 + i}.") for i in range(6)]


@pytest.mark.parametrize(("handed", "says"), [
    (5, f"the sentence of the top {EXTRACTIVE_PASSAGES} of the 5 passages handed to the answer step"),
    (2, "the sentence of the 2 passages handed to the answer step"),  # fewer than 3: no "top 3"
    (1, "the sentence of the 1 passage handed to the answer step"),
])
def test_the_extractive_note_says_how_many_passages_it_had_and_picked_from(handed: int, says: str) -> None:
    emb = HashingEmbedder(dim=64)
    trace = Trace("hipporag2", "When did the Gull 1 sail?")
    record_answer(trace, "When did the Gull 1 sail?", PASSAGES, Backends(emb, NoLLM(), None), max_passages=handed)
    result = type("R", (), {"trace": trace})()
    data = answering_steps(trace)[-1].data
    assert data.mode == "extractive" and says in data.how, data.how
    ctx = context_of(result)
    assert ctx is not None and ctx.chunks == handed  # the context the page counts agrees with the note
