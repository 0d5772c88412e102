"""FastInsight's node vectors ``V`` on a KG workspace (FastInsight §3.1.1 on KG nodes, §4.2.2): embedded
once per workspace, embedder and node-text cap, kept in the workspace's vector cache, in memory or from a
graph store's node texts read page by page (a store's graph is never read whole).

Kept apart from :mod:`~core.methods.fastinsight.node_graph` (the node graph itself) and
:mod:`~core.methods.fastinsight.store_graph` (its graph-store form), which both feed it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.graph.reader import question_graph
from core.methods.base import Preparation
from core.methods.fastinsight.node_graph import NODE_TEXT_CHARS, KGNodeGraph
from core.methods.fastinsight.store_graph import node_texts, open_node_graph

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.index.indexing import Progress, TextPages
    from core.index.workspace import CachedVectors, Workspace
    from core.methods.fastinsight.config import FastInsightConfig


def node_vectors_name(max_chars: int) -> str:
    """The workspace vector-cache name of the node texts cut at ``max_chars``."""
    return f"fastinsight_nodes_{int(max_chars)}"


NODE_TEXT_RECIPE = "fastinsight-node-text-v1"  #: bump when :func:`compose_node_text` changes


def node_texts_key(workspace: Workspace, max_chars: int) -> str:
    """What names the node texts of ``workspace`` in its vector cache: the graph's content and
    provenance hashes (a node's text holds its linked passages) and the text recipe, so the cache is
    checked without reading a text — the same key in memory and on a graph store, so a workspace
    moved to a store keeps its vectors."""
    prov = workspace.provenance_hash or "provenance-unrecorded"
    return f"{workspace.content_hash}|{prov}|{NODE_TEXT_RECIPE}|{int(max_chars)}"


def node_texts_source(workspace: Workspace, max_chars: int) -> Sequence[str] | TextPages:
    """The node texts to embed: the in-memory node graph's, or a graph store's page by page."""
    return node_texts(question_graph(workspace), max_chars=max_chars)


def has_node_vectors(workspace: Workspace, embedder: Embedder, *, max_chars: int = NODE_TEXT_CHARS) -> bool:
    """Whether :func:`node_vectors` would read the vectors from the workspace cache (not embed now)."""
    return workspace.has_text_vectors(node_vectors_name(max_chars), node_texts_source(workspace, max_chars),
                                      embedder, texts_key=node_texts_key(workspace, max_chars))


def node_vectors(workspace: Workspace, embedder: Embedder, *, max_chars: int = NODE_TEXT_CHARS,
                 progress: Progress | None = None) -> tuple[KGNodeGraph, CachedVectors]:
    """The node graph of ``workspace`` and its node-text vectors ``V`` (FastInsight §3.1.1 on KG nodes).

    The vectors are embedded on first use per (workspace, embedder, node texts) — on MuSiQue 16k
    texts, minutes on a CPU, reported through ``progress(message, fraction)`` — and then read from
    the workspace folder (:meth:`~core.index.workspace.Workspace.text_vectors`: a FAISS file, atomic
    writes; a damaged file is embedded again and ``CachedVectors.note`` says so).

    On a graph-store workspace the node graph is a
    :class:`~core.methods.fastinsight.store_graph.StoreNodeGraph` that reads from the store only
    what a question touches, and the first use reads the node texts page by page to embed them.
    """
    key = node_texts_key(workspace, max_chars)
    graph = question_graph(workspace)
    ng = open_node_graph(graph, max_chars=max_chars)
    cached = workspace.text_vectors(node_vectors_name(max_chars), node_texts(graph, max_chars=max_chars), embedder,
                                    progress=progress, texts_key=key)
    return ng, cached


# ---------------------------------------------------------------------------------- preparation
def _searches_nodes(workspace: Workspace, config: FastInsightConfig) -> bool:
    graph = question_graph(workspace)
    return config.graph == "kg_nodes" and graph.kind == "kg" and graph.n_nodes > 0


#: Seconds per text assumed when the workspace records no index build by the embedder (a sentence-transformer
#: of bge-small's size on two CPU cores, texts of about 512 characters); measured rates replace it.
STATED_SECONDS_PER_TEXT = 0.05


def embedding_rate(workspace: Workspace, embedder: Embedder) -> tuple[float, str]:
    """Seconds per node text for ``embedder``, and what the figure rests on.

    The workspace's manifest records how long its index build took per kind
    (:class:`~core.index.indexing.IndexBuild`), on the machine that built it (for the bundled samples: this
    one, at ``egx app``'s start). Node texts are name + linked passage text cut at 512 characters, so the
    passages' rate is the one that fits (the node *names* of the node index are a few words each). Without a
    recorded build by this embedder, :data:`STATED_SECONDS_PER_TEXT`."""
    if workspace.meta.index_model_id == embedder.model_id:
        builds = {str(b.get("kind")): b for b in workspace.meta.index_builds}
        for kind, what in (("chunks", "passages"), ("nodes", "node names")):
            b = builds.get(kind) or {}
            items, seconds = int(b.get("items") or 0), float(b.get("seconds") or 0.0)
            if items >= 10 and seconds > 0:
                return seconds / items, (f"{embedder.name} embedded this workspace's {items:,} {what} at "
                                         f"{1000 * seconds / items:.1f} ms each when its index was built")
    return STATED_SECONDS_PER_TEXT, (f"no index build by {embedder.name} is recorded here, so "
                                     f"{1000 * STATED_SECONDS_PER_TEXT:.0f} ms per text is assumed")


def node_vectors_estimate(workspace: Workspace, embedder: Embedder) -> tuple[float, str]:
    """Expected seconds to embed the node texts of ``workspace`` with ``embedder``, and why."""
    n = question_graph(workspace).n_nodes
    rate, how = embedding_rate(workspace, embedder)
    return n * rate, f"{n:,} node texts; {how}"


#: FastInsight's preparation: the first run on a KG embeds every node text (on MuSiQue 16k texts, minutes on a
#: CPU with a real embedder), kept in the workspace folder; the app runs it as a job with a progress bar.
PREPARATION = Preparation(
    title=lambda ws, cfg: (f"Embedding {question_graph(ws).n_nodes:,} KG node texts for FastInsight "
                           f"(first use of “{ws.title}”)"),
    needed=lambda ws, backends, cfg: _searches_nodes(ws, cfg) and not has_node_vectors(
        ws, backends.embedder, max_chars=cfg.node_text_chars),
    run=lambda ws, backends, cfg, progress: node_vectors(ws, backends.embedder, max_chars=cfg.node_text_chars,
                                                         progress=progress),
    key=lambda ws, backends, cfg: f"fastinsight-nodes:{ws.path}:{backends.embedder.model_id}:{cfg.node_text_chars}",
    estimate=lambda ws, backends, cfg: node_vectors_estimate(ws, backends.embedder),
)
