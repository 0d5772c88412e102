"""§3.6 Answer Generation.

"BubbleRAG merges the expanded subgraphs from the top-n candidates into a single Unified Evidence
Graph G_final, consolidating redundant nodes and edges ... We then map nodes in G_final back to
their provenance in the source corpus (via the chunk pointers retained during indexing) and
retrieve the corresponding original text chunks C_text. The assembled hybrid context, combining
(i) structured triples serialized from G_final as a reasoning skeleton and (ii) the associated
raw text chunks as descriptive grounding, is fed into the LLM along with the original user query."

Chunk ranking (what retrieval metrics read; the paper only says the chunks of G_final are
retrieved, so the order is ours). Each evidence element spreads one unit of *support* over the
chunks it cites (an edge weight 1, a node weight ½ — hub nodes cite many chunks), scaled by 1/rank
of the best CEG that contains it. Two orders are offered (``chunk_ranking``):

* ``"support"`` (default, the paper's context) — only the chunks linked to G_final, by support,
  ties by cosine to the query. ``fill_with_preview`` (ours, off by default) fills empty slots with
  the pre-retrieved chunks (``source="preview"``).
* ``"interleave"`` (ours: "+dense fill") — the list alternates between the next chunk by support
  and the next by cosine to the query among the evidence chunks *and* the pre-retrieved chunks of
  §3.2, skipping repeats, so up to half of the context is dense retrieval. It was the default
  once; its measured delta over the paper's context is in ``benchmarks/README.md``.

At most ``max_chunks`` (15, §4.1) are kept either way.

`none` mode answers extractively (:mod:`core.methods.extractive`, shared with every method): the
sentence of the top 3 evidence chunks that answers the question — scored by the reranker the
backends carry (else the embedding cosine), sentences naming the asked-for answer type first,
bridges resolved. A workspace whose chunks hold no text (a triples-only upload) offers the
evidence graph's triples as the candidate sentences instead ("Ermengarde of Tours died on 20 March
851"), and the trace says so. So does a failed LLM call, and an LLM text that is no answer — a refusal or a truncated JSON
fragment: the LLM's answer goes through every method's one answer check
(:func:`core.methods.answer_gate.check_llm_answer`), the rejected text is kept in ``EvidenceAnswer.rejected`` and
the trace step's fallback says why; an answer cut at its token limit is shown cut and flagged, one that addresses
the system or carries markup is flagged beside it.

Evidence format (ReG §4.2): ``evidence_format="triples"`` is the paper's prompt (G_final
serialized as a triple list + passages); ``"chains"`` replaces the triple list with the same triples
reorganized into ReG evidence chains; ``"passages"`` drops the skeleton. The passages are the same in
all three, and the answer step records the token counts of every variant.

What the answer is handed (:class:`core.methods.answering.AnswerContext`, recorded in the step's
``data["context"]``): the source chunks (its chunks) and the WordPiece tokens of the skeleton and the
chunks as the prompt shows them. Under a comparison budget's tokens (``max_tokens``,
:mod:`core.methods.budget`) the skeleton's triples, best CEG first, then the chunks, best first, go in while
they fit (:func:`budget_context`); without one, all of them (the paper's context).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.backends.base import LLM, Embedder, Reranker
from core.graph.reader import GraphLike, read_ahead
from core.methods.answer_gate import check_llm_answer
from core.methods.answering import AnswerContext, count_evidence, fit_count
from core.methods.base import Backends, RankedChunk
from core.methods.bubblerag import prompts
from core.methods.bubblerag.reasoning import ReasoningExpansion
from core.methods.evidence.formats import AnswerStepData
from core.methods.extractive import SentencePick, pick_sentence
from core.methods.llm_steps import ask_text
from core.pinning import pin
from core.trace import Step, Trace


@dataclass(frozen=True)
class EvidenceChunk:
    chunk_id: str
    score: float
    source: str  #: "evidence" (cited by G_final) or "preview" (pre-retrieval filler)
    support: float
    similarity: float


@dataclass(frozen=True)
class EvidenceGraph:
    """G_final: the union of the expanded top-n CEGs."""

    nodes: tuple[int, ...]
    edges: tuple[int, ...]
    node_rank: dict[int, int]  #: best CEG rank containing each node
    edge_rank: dict[int, int]

    def triples(self, graph: GraphLike) -> list[str]:
        order = sorted(self.edges, key=lambda e: (self.edge_rank.get(e, 99), e))
        return [graph.edge_text(e) for e in order]


@dataclass(frozen=True)
class EvidenceAnswer:
    text: str
    by: str  #: "llm" or "extractive"
    evidence: EvidenceGraph
    chunks: tuple[EvidenceChunk, ...]
    triples: tuple[str, ...]
    rejected: str = ""  #: the LLM's text when it was no usable answer (a refusal, a fragment)

    @property
    def ranked_chunks(self) -> tuple[RankedChunk, ...]:
        return tuple(RankedChunk(c.chunk_id, c.score) for c in self.chunks)


def unify(reasoning: ReasoningExpansion) -> EvidenceGraph:
    """Merge the expanded CEGs, keeping for each element the best rank that contains it."""
    node_rank: dict[int, int] = {}
    edge_rank: dict[int, int] = {}
    for x in reasoning.expanded:
        for v in x.nodes:
            node_rank[v] = min(node_rank.get(v, x.rank), x.rank)
        for e in x.edges:
            edge_rank[e] = min(edge_rank.get(e, x.rank), x.rank)
    return EvidenceGraph(tuple(sorted(node_rank)), tuple(sorted(edge_rank)), node_rank, edge_rank)


def rank_evidence_chunks(evidence: EvidenceGraph, graph: GraphLike, chunk_vectors: np.ndarray, qvec: np.ndarray,
                         preview: Sequence[str], *, max_chunks: int = 15, fill_with_preview: bool = False,
                         ranking: str = "support") -> tuple[EvidenceChunk, ...]:
    """Map G_final to its provenance chunks and rank them (see the module docstring).

    ``ranking="support"`` (the paper's §3.6 context) orders G_final's chunks by support and, only
    with ``fill_with_preview``, fills with the pre-retrieved chunks; ``"interleave"`` (ours: +dense
    fill) alternates support order and query-cosine order over evidence ∪ pre-retrieved chunks.
    """
    if ranking not in ("interleave", "support"):
        from core.errors import ConfigError

        raise ConfigError(f"chunk_ranking = {ranking!r} is not valid; use 'interleave' or 'support'.")
    support: dict[str, float] = {}
    for e in evidence.edges:
        cs = [c for c in graph.edge_chunks[e] if c in graph.chunk_index]
        for c in cs:
            support[c] = support.get(c, 0.0) + 1.0 / len(cs) / evidence.edge_rank[e]
    for v in evidence.nodes:
        cs = [c for c in graph.node_chunks[v] if c in graph.chunk_index]
        for c in cs:
            support[c] = support.get(c, 0.0) + 0.5 / len(cs) / evidence.node_rank[v]
    q = np.asarray(qvec, dtype=np.float32).reshape(-1)
    pool = list(dict.fromkeys([*support, *(c for c in preview if c in graph.chunk_index)]))
    rows = [graph.chunk_index[c] for c in pool]
    cos = pin("bubblerag.answer.chunk_cosine",
              np.array([float(chunk_vectors[r] @ q) if chunk_vectors.size else 0.0 for r in rows]), ids=rows)
    sims = dict(zip(pool, cos.tolist()))

    def sim(c: str) -> float:
        return sims[c]

    by_support = sorted(support, key=lambda c: (-round(support[c], 9), -sim(c), c))
    if ranking == "interleave":
        by_cosine = sorted(pool, key=lambda c: (-sim(c), c))
        order: list[str] = []
        seen: set[str] = set()
        queues = [iter(by_support), iter(by_cosine)]
        while len(order) < max_chunks and queues:
            for queue in list(queues):
                nxt = next((x for x in queue if x not in seen), None)
                if nxt is None:
                    queues.remove(queue)
                    continue
                if len(order) < max_chunks:
                    order.append(nxt)
                    seen.add(nxt)
        return tuple(EvidenceChunk(c, 1.0 / (i + 1), "evidence" if c in support else "preview",
                                   support.get(c, 0.0), sim(c)) for i, c in enumerate(order))
    ranked = by_support[:max_chunks]
    out = [EvidenceChunk(c, float(support[c]) + 1.0, "evidence", support[c], sim(c)) for c in ranked]
    if fill_with_preview:
        for c in preview:
            if len(out) >= max_chunks:
                break
            if c not in support:
                s = sim(c)
                out.append(EvidenceChunk(c, s, "preview", 0.0, s))
    return tuple(out)


_SKELETON = "Reasoning skeleton (triples from the evidence graph):"
_CHAIN_SKELETON = "Reasoning skeleton (evidence chains from the evidence graph, entity → [relation] → entity):"


def skeleton_order(evidence: EvidenceGraph) -> list[int]:
    """G_final's edges as the skeleton lists them: best CEG first, then by edge id."""
    return sorted(evidence.edges, key=lambda e: (evidence.edge_rank.get(e, 99), e))


def _chain_lines(query: str, evidence: EvidenceGraph, graph: GraphLike, edges: Sequence[int]) -> list[str]:
    from core.methods.evidence.chains import reorganize, triples_from_edges
    from core.methods.evidence.linking import link_query_entities

    ts = triples_from_edges(graph, list(edges), [1.0 / evidence.edge_rank.get(e, 99) for e in edges])
    return reorganize(ts, link_query_entities(query, graph).names).lines()


@dataclass(frozen=True)
class BudgetedContext:
    """The part of the §3.6 context a comparison budget leaves: the skeleton's edges and the chunks."""

    edges: tuple[int, ...]  #: skeleton edges, in skeleton order
    chunks: tuple[EvidenceChunk, ...]  #: source chunks, best first
    tokens: int  #: WordPiece tokens of the skeleton lines and the chunk lines as the prompt shows them
    dropped: int  #: triples and chunks the budget left out


def budget_context(query: str, evidence: EvidenceGraph, graph: GraphLike, chunks: Sequence[EvidenceChunk], *,
                   evidence_format: str = "triples", max_tokens: int | None = None) -> BudgetedContext:
    """The skeleton triples (best CEG first) and the source chunks (best first) that fit in ``max_tokens``
    WordPiece tokens, skeleton first as the prompt orders them, each part ending at its first piece that
    does not fit; everything with ``max_tokens=None`` (the paper's context). With ``"chains"`` the kept
    triples' chains are counted (fewer triples while they do not fit); with ``"passages"`` there is no
    skeleton."""
    order = skeleton_order(evidence) if evidence_format != "passages" else []
    lines = [f"- {graph.edge_text(e)}" for e in order]
    sizes = count_evidence(lines)
    k = fit_count(sizes, max_tokens)
    used = int(sum(sizes[:k]))
    if evidence_format == "chains" and order:
        used = int(sum(count_evidence([f"- {x}" for x in _chain_lines(query, evidence, graph, order[:k])])))
        while max_tokens is not None and k > 0 and used > max_tokens:
            k -= 1
            used = int(sum(count_evidence([f"- {x}" for x in _chain_lines(query, evidence, graph, order[:k])])))
    text = [(graph.chunk(c.chunk_id).title, graph.chunk(c.chunk_id).text) for c in chunks]
    csizes = count_evidence(prompts.passage_lines(text, prompts.ANSWER_PASSAGE_CHARS))
    n = fit_count(csizes, max_tokens, used=used)
    return BudgetedContext(tuple(order[:k]), tuple(chunks[:n]), used + int(sum(csizes[:n])),
                           (len(order) - k) + (len(chunks) - n))


def evidence_format_prompts(query: str, evidence: EvidenceGraph, graph: GraphLike,
                            ctx: Sequence[tuple[str, str]], llm: LLM, *,
                            edges: Sequence[int] | None = None) -> tuple[dict[str, str], dict[str, Any]]:
    """The §3.6 prompt in the three evidence formats, and the trace data (token counts, chains); ``edges``:
    the skeleton's edges in order (default all of G_final's, :func:`skeleton_order`)."""
    from core.backends.tokens import count_tokens
    from core.methods.evidence.chains import reorganize, triples_from_edges
    from core.methods.evidence.linking import link_query_entities

    order = list(edges) if edges is not None else skeleton_order(evidence)
    ts = triples_from_edges(graph, order, [1.0 / evidence.edge_rank.get(e, 99) for e in order])
    linked = link_query_entities(query, graph).names
    reorg = reorganize(ts, linked)
    full = prompts.answer_prompt(query, [graph.edge_text(e) for e in order], ctx)
    chains = prompts.answer_prompt(query, reorg.lines(), ctx).replace(_SKELETON, _CHAIN_SKELETON, 1)
    bare = prompts.answer_prompt(query, [], ctx)
    cut = bare.find("Source passages:")
    out = {"passages": bare[cut:] if cut >= 0 else bare, "triples": full, "chains": chains}
    counts, tokenizer = count_tokens([prompts.ANSWER_SYSTEM + "\n" + out[k] for k in out], llm)
    tok = dict(zip(out, counts))
    data: dict[str, Any] = {
        "evidence_tokens": tok, "tokenizer": tokenizer,
        "chain_token_saving": round(1 - tok["chains"] / tok["triples"], 4) if tok["triples"] else None,
        "evidence_triples": len(ts), "evidence_chains": len(reorg.chains), "query_entities": list(reorg.query_entities),
        "linked_query_entities": list(linked), "reorganization": dict(reorg.stats),
        "prompts": {"triples": full[:12000], "chains": chains[:12000]},
        "chains": [{"text": c.text(), "direction": c.direction, "root": c.root, "merged_answers": c.merged_answers,
                    "group": c.group, "refined_from": list(c.refined_from),
                    "entities": [list(e) for e in c.entities], "relations": list(c.relations)} for c in reorg.chains[:300]]}
    return out, data


def generate_answer(query: str, evidence: EvidenceGraph, graph: GraphLike, chunk_vectors: np.ndarray,
                    qvec: np.ndarray, preview: Sequence[str], llm: LLM, embedder: Embedder, *, max_chunks: int = 15,
                    fill_with_preview: bool = False, max_tokens: int = 256, trace: Trace | None = None,
                    evidence_format: str = "triples", chunk_ranking: str = "support",
                    reranker: Reranker | None = None, answer_tokens: int | None = None,
                    budget: str = "own") -> EvidenceAnswer:
    """Serialize G_final + its chunks into the hybrid context and answer (§3.6).

    ``evidence_format`` picks the skeleton: "triples" (paper), "chains" (ReG §4.2) or "passages".
    ``reranker`` scores the sentences of an extractive answer (``none`` mode or an unusable LLM
    answer); without one they are scored by the embedder's cosine. ``max_tokens`` / ``budget``: a
    comparison budget's tokens and name (:func:`budget_context`; the chunk count is ``max_chunks``).
    """
    if evidence_format not in ("passages", "triples", "chains"):
        from core.errors import ConfigError

        raise ConfigError(f"evidence_format = {evidence_format!r} is not valid; use 'passages', 'triples' or 'chains'.")
    t0 = time.perf_counter()
    step = Step("answer", "Unified evidence graph and answer", section="BubbleRAG §3.6")
    chunks = rank_evidence_chunks(evidence, graph, chunk_vectors, qvec, preview, max_chunks=max_chunks,
                                  fill_with_preview=fill_with_preview, ranking=chunk_ranking)
    read_ahead(graph, edges=evidence.edges, chunk_ids=[c.chunk_id for c in chunks])
    triples = evidence.triples(graph)
    fit = budget_context(query, evidence, graph, chunks, evidence_format=evidence_format, max_tokens=answer_tokens)
    handed = fit.chunks
    ctx = [(graph.chunk(c.chunk_id).title, graph.chunk(c.chunk_id).text) for c in handed]
    variants, fmt_data = evidence_format_prompts(query, evidence, graph, ctx, llm,
                                                 edges=fit.edges if answer_tokens is not None else None)
    res = ask_text(llm, prompts.ANSWER_SYSTEM, variants[evidence_format], max_tokens=max_tokens, step=step,
                   stream=True)
    rejected = ""
    # the one answer check of every method: no answer, cut at the token limit, injection or markup
    check = check_llm_answer(str(res.data), truncated=res.truncated) if res.data is not None else None
    pick: SentencePick | None = None
    if check is not None and check.ok:
        text, by = check.text, "llm"
        if check.cut:
            step.fallback = f"the LLM's answer stopped at its {max_tokens}-token limit: shown cut (…)"
    else:
        pick = extractive_pick(query, evidence, graph, handed, Backends(embedder, llm, reranker))
        text, by = pick.text, "extractive"
        if check is not None:
            rejected = str(res.data)[:2000]
            step.fallback = f"the LLM's answer was unusable ({check.problem}); extractive answer instead"
    extractive = pick.trace_data() if pick is not None else None
    budget_note = None
    if answer_tokens is not None and fit.dropped:
        budget_note = (f"the answer budget of {answer_tokens:,} tokens held {len(fit.edges)} of "
                       f"{len(evidence.edges) if evidence_format != 'passages' else 0} skeleton triples "
                       f"and {len(handed)} of {len(chunks)} source chunks")
    step.data = AnswerStepData(
        answer=text, by=by, evidence_nodes=len(evidence.nodes), evidence_edges=len(evidence.edges),
        triples=triples[:50], evidence_format=evidence_format, chunk_ranking=chunk_ranking, **fmt_data,
        chunks=[{"id": c.chunk_id, "title": graph.chunk(c.chunk_id).title, "source": c.source,
                 "support": round(c.support, 4), "similarity": round(c.similarity, 4)} for c in chunks],
        context=AnswerContext(tuple(c.chunk_id for c in handed), fit.tokens, budget, max_chunks, answer_tokens,
                              evidence_format if evidence_format == "passages" else f"{evidence_format} + passages",
                              fit.dropped).data(),
        budget_note=budget_note,
        **(check.step_fields() if check is not None else {}),
        rejected_answer=rejected or None, extractive=extractive,
        # the passage the extractive sentence comes from: the diagnosis asks whether it is gold, as for every method
        chunk_id=(pick.chunk_id or None) if pick is not None and not pick.chunk_id.startswith("triple:") else None,
        how=("Extractive answer (no LLM generation): " + extractive["rule"]
             + ". It quotes the evidence; it does not reason across passages.") if extractive is not None else None,
    ).data()
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.record(step)
    return EvidenceAnswer(text, by, evidence, chunks, tuple(triples), rejected)


def extractive_pick(query: str, evidence: EvidenceGraph, graph: GraphLike, chunks: Sequence[EvidenceChunk],
                    backends: Backends) -> SentencePick:
    """The extractive answer over the top evidence chunks, or over G_final's triples when the chunks hold
    no text (a triples-only workspace)."""
    passages = [(c.chunk_id, graph.chunk(c.chunk_id).title, graph.chunk(c.chunk_id).text) for c in chunks
                if c.chunk_id in graph.chunk_index]
    if any(t.strip() for _, _, t in passages[:3]):
        return pick_sentence(query, passages, backends, max_passages=3)
    order = sorted(evidence.edges, key=lambda e: (evidence.edge_rank.get(e, 99), e))
    triples = [(f"triple:{e}", "", graph.edge_text(e) + ".") for e in order[:40]]
    if not triples:
        why = ("the workspace's passages hold no text (a triples-only upload) and the evidence graph has no triple"
               if passages else "nothing was retrieved")
        return SentencePick("", "", "", "", note=why)
    pick = pick_sentence(query, triples, backends, max_passages=len(triples))
    note = ("the workspace's passages hold no text (a triples-only upload): the answer is the evidence graph's "
            "triple that answers best" + (f"; {pick.note}" if pick.note else ""))
    return SentencePick(pick.text, pick.chunk_id, pick.scorer, pick.answer_type, pick.bridges, pick.candidates, note)
