"""Passages wherever the graph lives: what the passage methods (dense, Re2, PPR) read besides their
vector index.

A passage method ranks rows of the workspace's chunk FAISS file, then needs each row's id, title and
text (for the ranking, the answer prompt and the trace) and, for the "triples"/"chains" evidence
formats, the KG triples those passages cite. They are read from the question's graph
(:func:`~core.graph.reader.question_graph`): in memory the graph's arrays; on a graph store (FalkorDB)
a read-through view, so a question costs a few batched reads and the whole graph is never loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from core.graph.reader import GraphLike, question_graph, read_ahead
from core.methods.base import RankedChunk

if TYPE_CHECKING:
    from core.index.workspace import Workspace
    from core.methods.evidence.formats import EvidencePrompts

Passage = tuple[str, str, str]  #: (chunk id, title, text)


class PassageSource:
    """Chunk rows, ids and texts of one workspace, read from the graph one question reads.

    Parameters
    ----------
    workspace : Workspace
        Its :func:`~core.graph.reader.question_graph`: in memory the workspace's graph (loaded once, as
        every method does); on a graph store a read-through view, so only the rows asked for are read.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.graph: GraphLike = question_graph(workspace)

    # ------------------------------------------------------------------ what the graph holds
    @property
    def n_chunks(self) -> int:
        return self.graph.n_chunks

    @property
    def kind(self) -> str:
        return self.graph.kind

    # ------------------------------------------------------------------ rows → passages
    def rows(self, rows: Sequence[int]) -> list[Passage]:
        """``(id, title, text)`` of chunk rows, in order."""
        read_ahead(self.graph, chunk_rows=rows)
        chunks = self.graph.chunks
        return [(c.id, c.title, c.text) for c in (chunks[int(r)] for r in rows)]

    def ids(self, rows: Sequence[int]) -> list[str]:
        """Chunk ids of rows, in order."""
        return [p[0] for p in self.rows(rows)]

    def texts(self, rows: Sequence[int]) -> dict[int, str]:
        """Each row's passage text as the reranker reads it (``title\\ntext``, :attr:`Chunk.passage`)."""
        return {int(r): (f"{t}\n{x}" if t else x) for r, (_, t, x) in zip(rows, self.rows(rows))}

    def passages(self, ranked: Sequence[RankedChunk]) -> list[Passage]:
        """``(chunk_id, title, text)`` of ranked chunks, for :func:`core.methods.answering.record_answer`."""
        ids = [c.chunk_id for c in ranked]
        read_ahead(self.graph, chunk_ids=ids)
        g = self.graph
        return [(ch.id, ch.title, ch.text) for ch in (g.chunk(c) for c in ids if c in g.chunk_index)]

    # ------------------------------------------------------------------ evidence
    def evidence(self, query: str, passages: Sequence[Passage], llm: Any, *,
                 max_passages: int = 5) -> EvidencePrompts | None:
        """The answer's evidence in the three formats (passages, KG triples, ReG chains) of the top
        ``max_passages`` passages (:func:`core.methods.evidence.formats.passage_evidence`); None for a
        corpus graph."""
        from core.methods.answering import passages_prompt
        from core.methods.evidence.formats import passage_evidence

        return passage_evidence(query, passages, self.graph, llm, max_passages=max_passages,
                                passages_prompt=passages_prompt(query, passages, max_passages=max_passages))

    def evidence_for(self, query: str, llm: Any) -> Callable[[Sequence[Passage]], EvidencePrompts | None]:
        """:meth:`evidence` of whichever passages the answer step hands over (all of them), for
        :func:`core.methods.answering.record_answer`, which picks them under a comparison budget."""
        return lambda handed: self.evidence(query, handed, llm, max_passages=len(handed))
