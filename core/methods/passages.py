"""Passages wherever the graph lives: what the passage methods (dense, Re2, PPR) read besides their
vector index.

A passage method ranks rows of the workspace's chunk FAISS file, then needs each row's id, title and
text (for the ranking, the answer prompt and the trace) and, for the "triples"/"chains" evidence
formats, the KG triples those passages cite. In memory these come from the graph's arrays, exactly as
before; on a graph store (FalkorDB, issue 19) they come from the store row by row
(:meth:`~core.graph.store.GraphStore.chunk_rows`, :meth:`~core.graph.store.GraphStore.chunk_provenance`),
so a question costs a few small reads and the whole graph is never loaded into the process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from core.graph.store import remote_store
from core.methods.base import RankedChunk

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.graph.store import GraphStore
    from core.index.workspace import Workspace
    from core.methods.evidence.formats import EvidencePrompts

Passage = tuple[str, str, str]  #: (chunk id, title, text)
MAX_EVIDENCE_TRIPLES = 300  #: as :func:`core.methods.evidence.formats.passage_triples`


class PassageSource:
    """Chunk rows, ids and texts of one workspace, read from its graph or its graph store.

    Parameters
    ----------
    workspace : Workspace
        In memory, :attr:`Workspace.graph` is used (loaded once, as every method does); on a store
        workspace only :attr:`Workspace.store` is read.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.remote = remote_store(workspace)
        self._seen: dict[int, Passage] = {}  # rows already read from the store (one question's worth)

    # ------------------------------------------------------------------ what the store or graph holds
    @property
    def graph(self) -> KnowledgeGraph:
        """The in-memory graph (only for a workspace that is not on a store)."""
        assert not self.remote, "a store workspace's passages are read from its store"
        return self.workspace.graph

    @property
    def store(self) -> GraphStore:
        return self.workspace.store

    @property
    def n_chunks(self) -> int:
        return self.store.n_chunks if self.remote else self.graph.n_chunks

    @property
    def kind(self) -> str:
        return self.store.kind if self.remote else self.graph.kind

    # ------------------------------------------------------------------ rows → passages
    def rows(self, rows: Sequence[int]) -> list[Passage]:
        """``(id, title, text)`` of chunk rows, in order."""
        if not self.remote:
            g = self.graph
            return [(c.id, c.title, c.text) for c in (g.chunks[int(r)] for r in rows)]
        missing = [int(r) for r in dict.fromkeys(int(r) for r in rows) if int(r) not in self._seen]
        if missing:
            self._seen.update(zip(missing, self.store.chunk_rows(missing)))
        return [self._seen[int(r)] for r in rows]

    def ids(self, rows: Sequence[int]) -> list[str]:
        """Chunk ids of rows, in order."""
        if not self.remote:
            chunks = self.graph.chunks
            return [chunks[int(r)].id for r in rows]
        return [p[0] for p in self.rows(rows)]

    def texts(self, rows: Sequence[int]) -> dict[int, str]:
        """Each row's passage text as the reranker reads it (``title\\ntext``, :attr:`Chunk.passage`)."""
        return {int(r): (f"{t}\n{x}" if t else x) for r, (_, t, x) in zip(rows, self.rows(rows))}

    def passages(self, ranked: Sequence[RankedChunk]) -> list[Passage]:
        """``(chunk_id, title, text)`` of ranked chunks, for :func:`core.methods.answering.record_answer`."""
        if not self.remote:
            g = self.graph
            return [(ch.id, ch.title, ch.text) for ch in (g.chunk(c.chunk_id) for c in ranked)]
        known = {p[0]: p for p in self._seen.values()}
        want = [c.chunk_id for c in ranked if c.chunk_id not in known]
        if want:
            known.update((p[0], p) for p in self.store.chunks(want))
        return [known[c.chunk_id] for c in ranked if c.chunk_id in known]

    # ------------------------------------------------------------------ evidence
    def evidence(self, query: str, passages: Sequence[Passage], llm: Any, *,
                 max_passages: int = 5) -> EvidencePrompts | None:
        """The answer's evidence in the three formats (passages, KG triples, ReG chains) of the top
        ``max_passages`` passages; None for a corpus graph.
        In memory: :func:`core.methods.evidence.formats.passage_evidence`. On a store: the same triples
        (each passage's edges from its provenance, in passage order, each edge once, scored ``1/rank``)
        and the same query entities (the store's batch name lookup), read from the store."""
        from core.methods.evidence.formats import passage_evidence

        if not self.remote:
            return passage_evidence(query, passages, self.graph, llm, max_passages=max_passages)
        if self.kind != "kg":
            return None
        from core.backends import prompts as bprompts
        from core.methods.answering import passages_prompt
        from core.methods.evidence.chains import Triple
        from core.methods.evidence.formats import evidence_prompts
        from core.methods.evidence.linking import link_query_entities_from_store

        store = self.store
        score: dict[int, float] = {}
        for rank, (cid, _, _) in enumerate(passages[:max_passages], start=1):
            for e in store.chunk_provenance(cid)[1]:
                score.setdefault(int(e), 1.0 / rank)
        edges = list(score)[:MAX_EVIDENCE_TRIPLES]
        rows = store.edge_rows(edges)
        ends = sorted({v for h, _, t in rows for v in (h, t)})
        name = {v: n for v, (_, n) in zip(ends, store.node_rows(ends))}
        triples = [Triple(name[h], r, name[t], e, score[e]) for e, (h, r, t) in zip(edges, rows)]
        linked = link_query_entities_from_store(query, store).names
        ev = evidence_prompts(query, triples, query_entities=linked,
                              passages_prompt=passages_prompt(query, passages, max_passages=max_passages),
                              passages_system=bprompts.ANSWER_SYSTEM, llm=llm)
        return replace(ev, linked=tuple(linked))  # as the in-memory path records the entities it linked
