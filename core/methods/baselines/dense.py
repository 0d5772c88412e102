"""Dense passage retrieval, the NaiveRAG baseline (FastInsight §4.1.1 "Vector Search"; BubbleRAG §4.1).

The question is embedded and the ``top_k`` passages with the highest cosine similarity (inner
product of unit vectors in the FAISS chunk index) are returned: ``O_vs`` of FastInsight
Definition 2 on its own.

With ``node_level`` the same search also runs over the KG's nodes — the node texts and vectors FastInsight
searches (:mod:`core.methods.kg_nodes`) — and its ``top_k`` nodes are the result's ``node_ranking``: FastInsight's
"Vector Search" row of Table 3, scored node by node (§4.3.1). The passages retrieved do not change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import EmptyGraphError
from core.methods.answering import record_answer
from core.methods.base import Backends, RankedChunk
from core.methods.baselines.common import NODE_LEVEL_OFF, BaselineResult, search_nodes
from core.methods.baselines.config import DenseConfig
from core.methods.passages import PassageSource
from core.methods.run_start import begin_run
from core.pinning import pin_search

if TYPE_CHECKING:
    from core.index.workspace import Workspace


def run(query: str, workspace: Workspace, *, config: DenseConfig | None = None, backends: Backends) -> BaselineResult:
    """Retrieve the passages most similar to ``query`` (dense retrieval / NaiveRAG).

    Parameters
    ----------
    query : str
    workspace : Workspace
        Its chunk index is used (built for ``backends.embedder`` if needed).
    config : DenseConfig or None
    backends : Backends
        ``embedder`` for the query; ``llm`` for the answer (extractive in ``none`` mode).

    Returns
    -------
    BaselineResult
        ``ranked_chunks`` with cosine scores, best first; with ``config.node_level`` on a KG, ``node_ranking``
        holds the ``top_k`` KG nodes by cosine (else it is empty and ``node_ranking_note`` says why).

    Raises
    ------
    QueryError
        If the query is empty.
    EmptyGraphError
        If the workspace has no passages.
    ConfigError
        If ``config`` has the wrong type.
    """
    start = begin_run("dense", query, workspace, config, DenseConfig, backends)
    cfg, trace = start.config, start.trace
    source = PassageSource(workspace)  # the graph in memory, or row reads from a graph store (never loaded whole)
    if source.n_chunks == 0:
        raise EmptyGraphError(f"Workspace {workspace.name!r} has no passages to retrieve; upload a corpus.")
    with trace.timed("vector_search", f"Top-{cfg.top_k} passages by cosine similarity",
                     section="FastInsight §3.1.1 (O_vs)") as step:
        q = backends.embed_query(query)
        scores, ids = pin_search("dense.vector_search", *workspace.index("chunks", backends.embedder).search(q, cfg.top_k))
        ranked = tuple(RankedChunk(c, float(s)) for s, c in zip(scores[0], source.ids(ids[0].tolist())))
        step.data = {"chunk_ids": [c.chunk_id for c in ranked], "scores": [round(c.score, 6) for c in ranked]}
    nodes: tuple[int, ...] = ()
    note = NODE_LEVEL_OFF
    if cfg.node_level:
        found = search_nodes(trace, workspace, backends, q, cfg.top_k)
        if isinstance(found, str):
            note = found
        else:
            nodes, note = tuple(found.nodes.tolist()), ""
    passages = source.passages(ranked)
    ans = record_answer(trace, query, passages, backends, max_passages=cfg.answer_passages,
                        evidence_format=cfg.evidence_format,
                        evidence=source.evidence_for(query, backends.llm),
                        max_tokens=cfg.answer_tokens, budget=cfg.answer_budget)
    return BaselineResult("dense", query, ranked, ans.text, trace, node_ranking=nodes, node_ranking_note=note)
