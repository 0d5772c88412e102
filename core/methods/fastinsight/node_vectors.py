"""FastInsight's node vectors ``V`` on a KG workspace (FastInsight §3.1.1 on KG nodes, §4.2.2) and its node
graph, opened together: the vectors are the shared KG node vectors of :mod:`core.methods.kg_nodes` (embedded
once per workspace, embedder and node-text cap, kept in the workspace's vector cache, in memory or from a
graph store's node texts read page by page), which dense retrieval and Re2 search too for their node-level
pass (FastInsight §4.3.1, Table 3: every retriever on the same nodes).

Kept apart from :mod:`~core.methods.fastinsight.node_graph` (the node graph itself) and
:mod:`~core.methods.fastinsight.store_graph` (its graph-store form), which both feed it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.graph.reader import question_graph
from core.methods.fastinsight.node_graph import NODE_TEXT_CHARS, KGNodeGraph
from core.methods.fastinsight.store_graph import open_node_graph
from core.methods.kg_nodes import STATED_SECONDS_PER_TEXT as STATED_SECONDS_PER_TEXT
from core.methods.kg_nodes import embedding_rate as embedding_rate
from core.methods.kg_nodes import has_node_vectors as has_node_vectors
from core.methods.kg_nodes import kg_node_vectors, node_vectors_preparation
from core.methods.kg_nodes import node_texts_key as node_texts_key
from core.methods.kg_nodes import node_vectors_estimate as node_vectors_estimate
from core.methods.kg_nodes import node_vectors_name as node_vectors_name

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.index.indexing import Progress
    from core.index.workspace import CachedVectors, Workspace
    from core.methods.configuration import MethodConfig


def node_vectors(workspace: Workspace, embedder: Embedder, *, max_chars: int = NODE_TEXT_CHARS,
                 progress: Progress | None = None) -> tuple[KGNodeGraph, CachedVectors]:
    """The node graph of ``workspace`` and its node-text vectors ``V`` (FastInsight §3.1.1 on KG nodes).

    The vectors are :func:`~core.methods.kg_nodes.kg_node_vectors`: embedded on first use per (workspace,
    embedder, node texts), reported through ``progress(message, fraction)``, then read from the workspace
    folder. On a graph-store workspace the node graph is a
    :class:`~core.methods.fastinsight.store_graph.StoreNodeGraph` that reads from the store only what a
    question touches, and the first use reads the node texts page by page to embed them.
    """
    ng = open_node_graph(question_graph(workspace), max_chars=max_chars)
    return ng, kg_node_vectors(workspace, embedder, max_chars=max_chars, progress=progress)


def _uses_nodes(config: MethodConfig) -> bool:
    """Whether a run with ``config`` reads every node's vector: on KG nodes with ``node_vectors="precomputed"``
    (the lazy option embeds the nodes each question reaches as it runs, so there is nothing to prepare)."""
    return getattr(config, "graph", "") == "kg_nodes" and getattr(config, "node_vectors", "precomputed") == "precomputed"


def _embed(workspace: Workspace, embedder: Embedder, *, max_chars: int, progress: Progress | None) -> None:
    node_vectors(workspace, embedder, max_chars=max_chars, progress=progress)  # looked up now: tests gate it


#: FastInsight's preparation: the first run on a KG embeds every node text (on MuSiQue 16k texts, minutes on a
#: CPU with a real embedder), kept in the workspace folder; the app runs it as a job with a progress bar. Its key
#: is the node vectors' own, so dense retrieval's and Re2's node-level pass share the job and the file. None with
#: ``node_vectors="lazy"`` (:mod:`~core.methods.fastinsight.lazy_vectors`).
PREPARATION = node_vectors_preparation("FastInsight", _uses_nodes,
                                       max_chars=lambda cfg: int(getattr(cfg, "node_text_chars", NODE_TEXT_CHARS)),
                                       run=_embed)
