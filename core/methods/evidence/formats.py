"""Evidence formats for the answer step of every method: passages, raw triples, or ReG chains.

ReG §4.2 reorganizes *any* retrieved triple set; the issue asks for the option on every method:

* passage methods (dense, rerank, ppr, fastinsight): the triples are the KG triples whose
  provenance chunk is among the passages given to the answer (in passage rank order);
* BubbleRAG: the triples of its unified evidence graph G_final (§3.6);
* ``reg``: its top-K scored triples.

:func:`evidence_prompts` builds the triple-list prompt and the chain prompt for the same triples and
counts the tokens of both (and of the passage prompt when passages are given), so every answer step
records what each format would cost, whichever format was actually sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from core.backends.tokens import count_tokens
from core.graph.reader import GraphLike, chunk_provenance
from core.methods.evidence.chains import Reorganization, Triple, render_triples, reorganize, triples_from_edges
from core.methods.evidence.prompts import QA_SYSTEM, qa_demonstration, qa_prompt
from core.trace import StageData, Step, Trace


@dataclass(frozen=True)
class AnswerStepData(StageData):
    """What an answer step records, for every method (the Ask, Evidence chains and Compare pages and the
    diagnosis read it): the answer and how it was made, what it was handed, its answer check, and its
    evidence in the three formats — the triples, the ReG chains, their prompts and token counts.

    Every field is optional and None unless the writer set it, so the step keeps exactly the keys its
    method records (:meth:`StageData.data` leaves out None) and an older trace loads back. The evidence
    fields come together (:meth:`EvidencePrompts.trace_data`) or not at all (an early exit, a corpus graph).
    """

    STAGE: ClassVar[str] = "answer"
    answer: str | None = None
    mode: str | None = None  #: how the answer was made (passage methods): "llm", "extractive" or "empty"
    by: str | None = None  #: how the answer was made (BubbleRAG, SG-RAG)
    how: str | None = None  #: the sentence saying how it was made (shown beside the answer)
    chunk_id: str | None = None  #: extractive (passage methods): the passage the sentence comes from
    evidence_format: str | None = None  #: the format the answer was given ("passages", "triples", "chains")
    evidence_format_requested: str | None = None  #: the format asked for (a triple format without triples falls back)
    extractive: dict[str, Any] | None = None  #: how the extractive sentence was chosen (SentencePick.trace_data)
    rejected_answer: str | None = None  #: the LLM's text when it was no usable answer
    answer_check: dict[str, Any] | None = None  #: what the one answer check found (CheckedAnswer.data)
    flags: list[str] | None = None  #: why the shown answer should not be taken at face value
    context: dict[str, Any] | None = None  #: what the answer was handed (AnswerContext.data)
    budget_note: str | None = None  #: what a comparison budget left out
    # the evidence in the three formats (ReG §4.2), for every method with KG triples
    evidence_tokens: dict[str, int] | None = None
    tokenizer: str | None = None
    chain_token_saving: float | None = None
    evidence_triples: int | None = None
    evidence_chains: int | None = None
    query_entities: list[str] | None = None
    linked_query_entities: list[str] | None = None
    reorganization: dict[str, Any] | None = None
    prompts: dict[str, str] | None = None
    triples: list[str] | None = None
    chains: list[dict[str, Any]] | None = None
    # BubbleRAG (§3.6): the unified evidence graph and its ranked source chunks
    evidence_nodes: int | None = None
    evidence_edges: int | None = None
    chunk_ranking: str | None = None
    chunks: list[dict[str, Any]] | None = None
    # SG-RAG (§4.4, Table 15): the context of matched subgraphs and the labels the answer may take
    context_tokens: int | None = None
    context_budget: int | None = None
    subgraphs_total: int | None = None
    subgraphs_in_context: int | None = None
    pieces_dropped: int | None = None
    descriptions: int | None = None
    context_note: str | None = None
    candidates: list[str] | None = None
    bindings: list[str] | None = None
    allowed: list[str] | None = None
    paragraph: str | None = None
    context_edges: list[int] | None = None
    reasoning: str | None = None  #: Table 14's one line of reasoning, when asked for
    answer_type: str | None = None  #: SG-RAG none mode: the answer type the question asks (bindings are checked)
    type_note: str | None = None  #: SG-RAG none mode: which UNK bindings were not of that type
    subgraph: int | None = None  #: SG-RAG: the matched subgraph (0-based rank) the answer was read from

    @property
    def made_by(self) -> str:
        """"llm", "extractive", … whichever of ``mode`` (passage methods) and ``by`` the method records."""
        return self.mode or self.by or ""


#: the stages whose step answers the question: every method's answer step, and BubbleRAG's early exit (§3.2),
#: which answers from the pre-retrieved passages and records the same fields
ANSWER_STAGES: tuple[str, ...] = ("answer", "early_exit")


@dataclass(frozen=True)
class AnsweringStep:
    """A step that answers the question, with its data typed."""

    step: Step
    data: AnswerStepData

    @property
    def early_exit(self) -> bool:
        return self.step.stage == "early_exit"


def answering_steps(trace: Trace) -> list[AnsweringStep]:
    """Every step of ``trace`` that answers the question (:data:`ANSWER_STAGES`), in order, its data read as an
    :class:`AnswerStepData` (the last one is the run's answer)."""
    return [AnsweringStep(s, AnswerStepData.from_data(s.data, source=f"{trace.method} trace"))
            for s in trace.steps if s.stage in ANSWER_STAGES]


EvidenceFormat = Literal["passages", "triples", "chains"]
EVIDENCE_FORMATS: tuple[str, ...] = ("passages", "triples", "chains")
_MAX_SHOWN = 12000  #: characters of each prompt kept in the trace


@dataclass(frozen=True)
class EvidencePrompts:
    triples: tuple[Triple, ...]
    reorg: Reorganization
    system: str
    prompts: dict[str, str]  #: format → user message ("triples", "chains"; "passages" when given)
    tokens: dict[str, int]  #: format → tokens of system + user message
    tokenizer: str
    linked: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    #: format → the in-context demonstration its prompt opens with (ReG's answer step; empty: none), which the
    #: answer step's copy check removes before asking whether a reply's names come from the real evidence
    demonstrations: dict[str, str] = field(default_factory=dict)

    def evidence_text(self, fmt: str) -> str:
        """The evidence block of ``fmt`` as its prompt shows it: the triple lines ("triples"), the chain lines
        ("chains"); what a comparison budget counts (:class:`core.methods.answering.AnswerContext`)."""
        return self.reorg.text() if fmt == "chains" else render_triples(self.triples)

    def trace_data(self) -> dict[str, Any]:
        """What the answer step records (JSON-ready)."""
        t, c = self.tokens.get("triples", 0), self.tokens.get("chains", 0)
        return {
            "evidence_tokens": dict(self.tokens), "tokenizer": self.tokenizer,
            "chain_token_saving": round(1 - c / t, 4) if t else None,
            "evidence_triples": len(self.triples), "evidence_chains": len(self.reorg.chains),
            "query_entities": list(self.reorg.query_entities), "linked_query_entities": list(self.linked),
            "reorganization": dict(self.reorg.stats),
            "prompts": {k: v[:_MAX_SHOWN] for k, v in self.prompts.items()},
            "triples": [t.text() for t in self.triples[:300]],
            "chains": [{"text": ch.text(), "direction": ch.direction, "root": ch.root,
                        "merged_answers": ch.merged_answers, "group": ch.group,
                        "refined_from": list(ch.refined_from),
                        "entities": [list(e) for e in ch.entities], "relations": list(ch.relations)} for ch in self.reorg.chains[:300]],
        }


def passage_triples(graph: GraphLike, chunk_ids: Sequence[str], *, max_triples: int = 300) -> list[Triple]:
    """KG triples extracted from the given passages, in passage order (each edge once).

    A triple's score is ``1/rank`` of the first passage citing it, so chain order follows passage order.
    """
    seen: dict[int, float] = {}
    for rank, c in enumerate(chunk_ids, start=1):
        for e in chunk_provenance(graph, c)[1]:
            if e not in seen:
                seen[e] = 1.0 / rank
    edges = list(seen)[:max_triples]
    return triples_from_edges(graph, edges, [seen[e] for e in edges])


def passage_evidence(query: str, passages: Sequence[tuple[str, str, str]], graph: GraphLike, llm: Any, *,
                     passages_prompt: str, max_passages: int = 5) -> EvidencePrompts | None:
    """The evidence of a passage method's answer (dense, rerank, ppr, fastinsight): the KG triples of
    its top ``max_passages`` ``(chunk_id, title, text)`` passages as a raw list and as ReG chains,
    with the passage prompt's tokens too (``passages_prompt``: the answer's prompt of those passages,
    :func:`core.methods.answering.passages_prompt`, which imports this module); None for a corpus graph
    (no triples)."""
    if graph.kind != "kg":
        return None
    from core.backends import prompts as bprompts

    return evidence_prompts(query, passage_triples(graph, [p[0] for p in passages[:max_passages]]), graph=graph,
                            passages_prompt=passages_prompt, passages_system=bprompts.ANSWER_SYSTEM, llm=llm)


def evidence_prompts(query: str, triples: Sequence[Triple], *, graph: GraphLike | None = None,
                     query_entities: Sequence[str] | None = None, passages_prompt: str | None = None,
                     passages_system: str = "", max_length: int = 3, answer_merge: str = "relation_path",
                     entity_merge: bool = True, keep_unanchored: bool = False, llm: Any = None,
                     chains_prefix: str = "", triples_prefix: str = "",
                     demonstration: bool = False) -> EvidencePrompts:
    """Both evidence prompts (raw triples vs ReG chains) for ``triples`` and their token counts.

    ``query_entities`` default to the nodes linked in ``query`` by name (:mod:`.linking`).
    ``*_prefix`` lets a caller keep extra context (BubbleRAG's passages) identical in both prompts.
    ``demonstration`` opens both with App. F's in-context example (ReG's own answer step; :mod:`.prompts`).
    """
    linked: tuple[str, ...] = ()
    if query_entities is None:
        if graph is not None:
            from core.methods.evidence.linking import link_query_entities

            linked = link_query_entities(query, graph).names
        query_entities = linked
    reorg = reorganize(triples, query_entities, max_length=max_length, answer_merge=answer_merge,  # type: ignore[arg-type]
                       entity_merge=entity_merge, keep_unanchored=keep_unanchored)
    prompts = {"triples": triples_prefix + qa_prompt(query, render_triples(triples), "triples",
                                                     demonstration=demonstration),
               "chains": chains_prefix + qa_prompt(query, reorg.text(), "chains", demonstration=demonstration)}
    systems = {"triples": QA_SYSTEM, "chains": QA_SYSTEM}
    if passages_prompt is not None:
        prompts = {"passages": passages_prompt, **prompts}
        systems["passages"] = passages_system
    keys = list(prompts)
    counts, tokenizer = count_tokens([systems[k] + "\n" + prompts[k] for k in keys], llm)
    demos = {f: qa_demonstration(f) for f in ("triples", "chains")} if demonstration else {}
    return EvidencePrompts(tuple(triples), reorg, QA_SYSTEM, prompts, dict(zip(keys, counts)), tokenizer,
                           tuple(linked), demonstrations=demos)
