"""Corpus → KG (BubbleRAG §3.1): chunk the corpus, extract triples per chunk, merge into one graph.

"(1) chunking the corpus into passages, (2) using an LLM to extract triplets from each passage,
and (3) indexing the triplets into a graph structure. Crucially, entities appearing in different
chunks, potentially from different source documents, are linked into a single graph."

Extraction is batched, cached per chunk (key: extractor id + chunk content hash, one small JSON
file each, written atomically), and therefore resumable: an interrupted build restarts where it
stopped. Entities merge by normalized name (:func:`core.text.normalize_name`), and every node and
edge keeps the ids of the chunks it came from.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.backends.base import ExtractedTriple, TripleExtractor
from core.fsio import atomic_write_text
from core.graph.model import Chunk, GraphBuilder, KnowledgeGraph
from core.text import content_hash

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class ExtractionResult:
    """Triples per chunk id plus the accounting shown in the UI."""

    triples: dict[str, tuple[ExtractedTriple, ...]]
    extractor: str
    from_cache: int
    extracted: int

    @property
    def n_triples(self) -> int:
        return sum(len(t) for t in self.triples.values())


def _cache_file(cache_dir: Path, extractor_id: str, chunk: Chunk) -> Path:
    return cache_dir / content_hash(extractor_id, n=12) / f"{content_hash(chunk.passage, n=24)}.json"


def extract_triples(chunks: Sequence[Chunk], extractor: TripleExtractor, *, cache_dir: Path | None,
                    batch_size: int = 8, progress: Progress | None = None) -> ExtractionResult:
    """Run ``extractor`` over ``chunks`` in batches, reusing and filling the per-chunk cache.

    Parameters
    ----------
    chunks
        Passages to extract from (``Chunk.passage`` — title and text — is what the extractor sees).
    extractor
        Any :class:`~core.backends.base.TripleExtractor` (LLM-based or the rule-based fallback).
    cache_dir
        Folder for the per-chunk cache; ``None`` disables caching.
    batch_size
        Chunks handed to the extractor per call.
    progress
        ``progress(message, fraction)`` after every batch.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    ext_id = f"{extractor.name}:{extractor.model_id}"
    out: dict[str, tuple[ExtractedTriple, ...]] = {}
    todo: list[Chunk] = []
    for c in chunks:
        f = _cache_file(cache_dir, ext_id, c) if cache_dir else None
        if f is not None and f.exists():
            try:
                rows = json.loads(f.read_text(encoding="utf-8"))
                out[c.id] = tuple(ExtractedTriple(*r) for r in rows)
                continue
            except (json.JSONDecodeError, TypeError):
                pass  # a corrupt cache entry is simply recomputed
        todo.append(c)
    cached = len(out)
    n = len(chunks)
    for start in range(0, len(todo), batch_size):
        batch = todo[start:start + batch_size]
        if progress:
            progress(f"Extracting triples ({extractor.name}): {cached + start}/{n} chunks", (cached + start) / max(n, 1))
        results = extractor.extract([c.passage for c in batch])
        if len(results) != len(batch):
            raise RuntimeError(f"extractor {extractor.name!r} returned {len(results)} results for {len(batch)} passages")
        for c, triples in zip(batch, results):
            out[c.id] = tuple(triples)
            if cache_dir:
                atomic_write_text(_cache_file(cache_dir, ext_id, c),
                                   json.dumps([[t.head, t.relation, t.tail] for t in triples]))
    if progress:
        progress(f"Extracted triples from {n} chunks ({cached} from cache)", 1.0)
    return ExtractionResult(out, ext_id, cached, len(todo))


def add_extracted(builder: GraphBuilder, result: ExtractionResult) -> None:
    """Merge extracted triples into ``builder`` with provenance (entities merge by normalized name)."""
    for chunk_id, triples in result.triples.items():
        for t in triples:
            if t.head.strip() and t.relation.strip() and t.tail.strip():
                builder.add_triple(t.head, t.relation, t.tail, chunk_id=chunk_id)


def build_kg_from_corpus(graph: KnowledgeGraph, extractor: TripleExtractor, *, cache_dir: Path | None,
                         batch_size: int = 8, progress: Progress | None = None) -> tuple[KnowledgeGraph, ExtractionResult]:
    """Extract triples from every chunk of ``graph`` and return the graph with them merged in.

    Existing nodes and edges are kept; chunk ids are preserved so provenance stays valid.
    """
    result = extract_triples(graph.chunks, extractor, cache_dir=cache_dir, batch_size=batch_size, progress=progress)
    b = GraphBuilder(kind=graph.kind, name=graph.name)
    for c in graph.chunks:
        b.add_chunk(c.title, c.text, chunk_id=c.id)
    for v in range(graph.n_nodes):
        b.add_node(graph.node_names[v], node_id=graph.node_ids[v], description=graph.node_descriptions[v],
                   chunk_ids=graph.node_chunks[v])
    for e in range(graph.n_edges):
        b.add_edge(graph.node_ids[int(graph.edge_head[e])], graph.edge_relation[e],
                   graph.node_ids[int(graph.edge_tail[e])], chunk_ids=graph.edge_chunks[e])
    add_extracted(b, result)
    return b.build(), result
