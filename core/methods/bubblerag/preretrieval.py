"""§3.2 (first paragraph): pre-retrieval of the top-k chunks and the sufficiency check.

"Given a query q, the system first retrieves the top-k relevant text chunks from the corpus. If
these chunks contain sufficient information to directly answer q, BubbleRAG terminates the graph
traversal and outputs the response. If the information is insufficient, these chunks act as
contextual evidence for the subsequent graph anchor extraction" (they become the previews that
schema relaxation reads).

`none` mode cannot judge sufficiency, so it never exits early (recorded as a fallback).

Disabled (``enabled=False``, the §4.3 ablation "w/o Schema Relaxation", which "removed the retrieval
of text chunks prior to anchor selection"): no chunk is retrieved, nothing is checked, and the empty
result leaves keyword extraction and schema relaxation without a preview.

Guard (ours): an early exit also needs the LLM's answer to occur in one of the preview passages
(case-insensitive, as whole words). Small local models tend to call any preview "sufficient" and answer
from memory; an ungrounded answer would skip the whole graph search, so it is treated as "insufficient"
and the trace says why.

The early exit's answer is an answer a person reads, so it goes through every method's one answer check
(:func:`core.methods.answer_gate.check_llm_answer`, recorded in ``PreRetrieval.check``): a reply that is no
answer (a refusal, garbage), or one cut at its token limit or repaired from broken JSON, never exits early
— a verdict ``{"sufficient": true, "answer": "E`` cut at its limit would otherwise be repaired into the
answer ``"E"`` — and an answer that addresses the system or carries markup is flagged beside it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import numpy as np

from core.backends.base import LLM
from core.graph.reader import GraphLike, read_ahead
from core.index.workspace import Workspace
from core.methods.answer_gate import CheckedAnswer, check_llm_answer
from core.methods.answering import count_evidence, fit_count
from core.methods.bubblerag import prompts
from core.methods.llm_steps import ask_json
from core.pinning import pin_search
from core.trace import Step, Trace


@dataclass(frozen=True)
class PreRetrieval:
    chunk_ids: tuple[str, ...]
    scores: tuple[float, ...]
    sufficient: bool
    answer: str
    reason: str
    checked: bool  #: whether an LLM judged sufficiency
    #: the chunks the sufficiency check was shown (an early exit answers from them): all of ``chunk_ids``
    #: unless a comparison budget's tokens cut them; None: every one of ``chunk_ids``
    shown: tuple[str, ...] | None = None
    shown_tokens: int = 0  #: their WordPiece tokens as the check's prompt shows them
    check: CheckedAnswer | None = None  #: what the answer check found in the claimed answer (None: none claimed)

    @property
    def context_ids(self) -> tuple[str, ...]:
        return self.chunk_ids if self.shown is None else self.shown


def _grounded(answer: str, chunks: list[tuple[str, str]]) -> bool:
    """Whether ``answer`` occurs in a chunk as whole words ("E" is not grounded by every "e" of a passage)."""
    a = " ".join(answer.lower().split()).strip(" .")
    if not a:
        return False
    pattern = re.compile(rf"(?<!\w){re.escape(a)}(?!\w)")
    return any(pattern.search(" ".join(f"{t} {x}".lower().split())) for t, x in chunks)


def pre_retrieve(query: str, qvec: np.ndarray, workspace: Workspace, llm: LLM, *, k: int = 5,
                 check: bool = True, tight_json: bool = True, trace: Trace | None = None,
                 graph: GraphLike | None = None, enabled: bool = True, max_tokens: int | None = None) -> PreRetrieval:
    """Top-``k`` chunks by cosine to the query, then (optionally) the LLM sufficiency check.

    Returns
    -------
    PreRetrieval
        ``sufficient=True`` with an ``answer`` means BubbleRAG exits early (§3.2); with ``enabled=False``
        no chunk (nothing is retrieved: the §4.3 ablation "w/o Schema Relaxation").

    ``graph``: the question's graph (default the workspace's; a store view reads only the chunks it needs).
    ``max_tokens`` (a comparison budget's tokens, :mod:`core.methods.budget`): the check is shown the top
    chunks, best first, while their WordPiece tokens fit, since an early exit answers from them; the later
    stages still read every pre-retrieved chunk as their preview.
    """
    if not enabled:
        reason = "pre-retrieval off: no chunk is retrieved before anchor selection (BubbleRAG §4.3, w/o Schema Relaxation)"
        if trace is not None:
            trace.add("preretrieval", "No pre-retrieval (w/o Schema Relaxation)", {
                "chunks": [], "sufficient": False, "answer": "", "reason": reason, "checked": False, "enabled": False},
                section="BubbleRAG §4.3")
        return PreRetrieval((), (), False, "", reason, False)
    t0 = time.perf_counter()
    step = Step("preretrieval", "Pre-retrieval and sufficiency check", section="BubbleRAG §3.2")
    g = workspace.graph if graph is None else graph
    ids: tuple[str, ...] = ()
    scores: tuple[float, ...] = ()
    if g.n_chunks:
        s, i = pin_search("bubblerag.preretrieval.search", *workspace.index("chunks").search(qvec, k))
        read_ahead(g, chunk_rows=[int(j) for j in i[0] if int(j) >= 0])
        ids = tuple(g.chunks[int(j)].id for j in i[0])
        scores = tuple(float(x) for x in s[0])
    sufficient, answer, reason, checked = False, "", "", False
    gate: CheckedAnswer | None = None
    every = [(g.chunk(c).title, g.chunk(c).text) for c in ids]
    sizes = count_evidence(prompts.passage_lines(every))
    k = fit_count(sizes, max_tokens)
    shown, shown_tokens = ids[:k], int(sum(sizes[:k]))
    if check and shown:
        chunks = every[:k]
        out = ask_json(llm, prompts.SYSTEM, prompts.sufficiency_prompt(query, chunks),
                       prompts.sufficiency_schema(tight_json), max_tokens=prompts.STAGE_MAX_TOKENS["preretrieval"],
                       step=step)
        if out.data is not None:
            checked = True
            claimed = str(out.data.get("answer", "")).strip()
            sufficient = bool(out.data.get("sufficient")) and bool(claimed)
            reason = str(out.data.get("reason", "")) or ("the LLM judged the passages sufficient" if sufficient
                                                         else "the LLM judged the passages insufficient")
            if sufficient:  # an early exit shows this answer: the one answer check of every method
                gate = check_llm_answer(claimed, truncated=out.truncated, repaired=out.repaired, whole=True)
            if gate is not None and not gate.ok:
                sufficient = False
                reason = (f"LLM said sufficient, but its answer is unusable ({gate.problem}); continuing with "
                          "graph retrieval")
            elif sufficient and not _grounded(claimed, chunks):
                sufficient = False
                reason = (f"LLM said sufficient with answer {claimed[:80]!r}, but that answer does not occur in "
                          "any preview passage; continuing with graph retrieval")
            answer = gate.text if sufficient and gate is not None else ""
        else:
            step.fallback = f"{step.fallback}; no early exit, graph retrieval continues"
    elif not check:
        reason = "sufficiency check disabled"
    step.data = {"chunks": [{"id": c, "title": g.chunk(c).title, "score": sc} for c, sc in zip(ids, scores)],
                 "sufficient": sufficient, "answer": answer, "reason": reason, "checked": checked}
    if gate is not None:  # the early exit's answer check and flags, which every view shows beside its answer
        step.data.update(gate.step_fields())
    if k < len(ids):
        step.data["shown_to_check"] = list(shown)
        step.data["budget_note"] = (f"the answer budget of {max_tokens:,} tokens showed the sufficiency check "
                                    f"{k} of {len(ids)} pre-retrieved chunks")
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.record(step)
    return PreRetrieval(ids, scores, sufficient, answer, reason, checked, shown, shown_tokens, gate)
