"""§3.6 Answer Generation.

"BubbleRAG merges the expanded subgraphs from the top-n candidates into a single Unified Evidence
Graph G_final, consolidating redundant nodes and edges ... We then map nodes in G_final back to
their provenance in the source corpus (via the chunk pointers retained during indexing) and
retrieve the corresponding original text chunks C_text. The assembled hybrid context, combining
(i) structured triples serialized from G_final as a reasoning skeleton and (ii) the associated
raw text chunks as descriptive grounding, is fed into the LLM along with the original user query."

Chunk ranking (what retrieval metrics read): each evidence element spreads one unit of support
over the chunks it cites (an edge weight 1, a node weight ½ — hub nodes cite many chunks), scaled
by 1/rank of the best CEG that contains it; chunks are sorted by support, ties by cosine to the
query, and at most ``max_chunks`` (15, §4.1) are kept. When the evidence cites fewer, the
remaining slots may be filled with the pre-retrieved chunks, marked ``source="preview"``.

`none` mode answers extractively: the sentence of the top evidence chunks most similar to the query.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.backends.base import LLM, Embedder
from core.backends.extractors import split_sentences
from core.graph.model import KnowledgeGraph
from core.methods.base import RankedChunk
from core.methods.bubblerag import prompts
from core.methods.bubblerag.llmcall import ask_text
from core.methods.bubblerag.reasoning import ReasoningExpansion
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

    def triples(self, graph: KnowledgeGraph) -> list[str]:
        order = sorted(self.edges, key=lambda e: (self.edge_rank.get(e, 99), e))
        return [graph.edge_text(e) for e in order]


@dataclass(frozen=True)
class Answer:
    text: str
    by: str  #: "llm" or "extractive"
    evidence: EvidenceGraph
    chunks: tuple[EvidenceChunk, ...]
    triples: tuple[str, ...]

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


def rank_evidence_chunks(evidence: EvidenceGraph, graph: KnowledgeGraph, chunk_vectors: np.ndarray, qvec: np.ndarray,
                         preview: Sequence[str], *, max_chunks: int = 15,
                         fill_with_preview: bool = True) -> tuple[EvidenceChunk, ...]:
    """Map G_final to its provenance chunks and rank them (see the module docstring)."""
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

    def sim(c: str) -> float:
        return float(chunk_vectors[graph.chunk_index[c]] @ q) if chunk_vectors.size else 0.0

    ranked = sorted(support, key=lambda c: (-round(support[c], 9), -sim(c), c))[:max_chunks]
    out = [EvidenceChunk(c, float(support[c]) + 1.0, "evidence", support[c], sim(c)) for c in ranked]
    if fill_with_preview:
        for c in preview:
            if len(out) >= max_chunks:
                break
            if c not in support:
                s = sim(c)
                out.append(EvidenceChunk(c, s, "preview", 0.0, s))
    return tuple(out)


def generate_answer(query: str, evidence: EvidenceGraph, graph: KnowledgeGraph, chunk_vectors: np.ndarray,
                    qvec: np.ndarray, preview: Sequence[str], llm: LLM, embedder: Embedder, *, max_chunks: int = 15,
                    fill_with_preview: bool = True, max_tokens: int = 256, trace: Trace | None = None) -> Answer:
    """Serialize G_final + its chunks into the hybrid context and answer (§3.6)."""
    t0 = time.perf_counter()
    step = Step("answer", "Unified evidence graph and answer", section="BubbleRAG §3.6")
    chunks = rank_evidence_chunks(evidence, graph, chunk_vectors, qvec, preview, max_chunks=max_chunks,
                                  fill_with_preview=fill_with_preview)
    triples = evidence.triples(graph)
    ctx = [(graph.chunk(c.chunk_id).title, graph.chunk(c.chunk_id).text) for c in chunks]
    res = ask_text(llm, prompts.ANSWER_SYSTEM, prompts.answer_prompt(query, triples, ctx), max_tokens=max_tokens,
                   step=step)
    if res.data is not None:
        text, by = str(res.data), "llm"
    else:
        text, by = extractive_answer(query, [graph.chunk(c.chunk_id).text for c in chunks[:3]], embedder), "extractive"
    step.data = {"answer": text, "by": by, "evidence_nodes": len(evidence.nodes), "evidence_edges": len(evidence.edges),
                 "triples": triples[:50],
                 "chunks": [{"id": c.chunk_id, "title": graph.chunk(c.chunk_id).title, "source": c.source,
                             "support": round(c.support, 4), "similarity": round(c.similarity, 4)} for c in chunks]}
    step.seconds = time.perf_counter() - t0
    if trace is not None:
        trace.steps.append(step)
    return Answer(text, by, evidence, chunks, tuple(triples))


def extractive_answer(query: str, texts: Sequence[str], embedder: Embedder) -> str:
    """The sentence (from ``texts``) with the highest cosine to the query; "" when there is none."""
    sents = [s.strip() for t in texts for s in split_sentences(t) if len(s.strip()) > 3]
    if not sents:
        return ""
    vecs = embedder.embed([query, *sents])
    best = int(np.argmax(vecs[1:] @ vecs[0]))
    return sents[best]
