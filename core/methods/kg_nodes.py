"""KG nodes as retrieval items, for every method: the node text ``c_n``, its vectors kept in the workspace, and
the gold nodes of a question (FastInsight §3.1.1 and §4.2.2 on text-rich KGs; §4.3.1, Table 3 scores every
retriever on the same nodes).

FastInsight searches a KG node by node, and its Table 3 compares Vector Search, Re2, HippoRAG 2 and others *on
the same nodes*. So the node texts, their vectors and the gold-node rule live here, below the method packages
(which never import each other): FastInsight's KG node graph (:mod:`core.methods.fastinsight.node_graph`), the
node-level pass of dense retrieval and Re2 (:mod:`core.methods.baselines.dense`, ``rerank``) and the evaluation
(:mod:`core.eval.result_metrics`) all read them from this module.

=============================  ===================================================================
name                           what
=============================  ===================================================================
:func:`compose_node_text`      ``c_n`` from its parts: the one recipe (§4.2.2, LightRAG-style)
:func:`node_texts`             every node's ``c_n``, in node order (a store's page by page)
:func:`texts_of_nodes`         the ``c_n`` of a few nodes (what a reranker reads)
:func:`kg_node_vectors`        ``V`` over the node texts, embedded once per workspace and embedder
:func:`node_vectors_preparation`  that embedding as a method's :class:`~core.methods.base.Preparation`
:func:`gold_nodes`             every node whose provenance includes a gold passage (§4.2.2)
=============================  ===================================================================

The node text is the text a LightRAG description would be written from (our OpenIE / spaCy KGs rarely carry
descriptions)::

    c_n = name [": " description] "\\n" text of the linked passage(s)   — cut to ``max_chars`` (512)

Node indices are the graph's node rows (a graph store's node indices, which are the rows of the node FAISS
file and of the workspace's graph read from that store).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import singledispatch
from typing import TYPE_CHECKING, Any

import numpy as np

from core.graph.model import KnowledgeGraph
from core.graph.reader import question_graph
from core.graph.view import StoreGraphView
from core.index.estimate import STATED_SECONDS_PER_TEXT as STATED_SECONDS_PER_TEXT  # the one stated rate
from core.methods.base import Preparation

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.graph.stores.store import GraphStore
    from core.index.indexing import Progress
    from core.index.workspace import CachedVectors, Workspace
    from core.methods.configuration import MethodConfig

NODE_TEXT_CHARS = 512  #: FastInsight's default cut of a node text (the node vectors every method shares)
NODE_TEXT_RECIPE = "fastinsight-node-text-v1"  #: bump when :func:`compose_node_text` changes
PAGE = 5000  #: node rows per store read when every node text is read (the first-use embedding)


# ---------------------------------------------------------------------------------- the node text
def compose_node_text(name: str, description: str, passage_texts: Sequence[str], *,
                      max_chars: int = NODE_TEXT_CHARS) -> str:
    """``c_n`` from its parts (the one definition, in memory and on a graph store): ``name`` (with
    ``": description"`` when there is one, as :meth:`~core.graph.model.KnowledgeGraph.node_text`),
    a newline, the linked passages' texts joined by a space; cut to ``max_chars``.

    Examples
    --------
    >>> compose_node_text("Paris", "", ["Paris is in France."])
    'Paris\\nParis is in France.'
    >>> compose_node_text("Paris", "capital", [], max_chars=8)
    'Paris: c'
    """
    head = f"{name}: {description}" if description else name
    body = " ".join(t for t in passage_texts if t)
    return (f"{head}\n{body}" if body else head)[:max_chars]


def node_text(graph: KnowledgeGraph, v: int, *, max_chars: int = NODE_TEXT_CHARS) -> str:
    """``c_n`` of node ``v``: name, description, text of the linked passages, cut to ``max_chars``."""
    texts = [graph.chunks[graph.chunk_index[c]].text for c in graph.node_chunks[v] if c in graph.chunk_index]
    return compose_node_text(graph.node_names[v], graph.node_descriptions[v], texts, max_chars=max_chars)


def store_node_texts(store: GraphStore, nodes: Sequence[int], *, max_chars: int = NODE_TEXT_CHARS) -> list[str]:
    """``c_n`` of ``nodes`` read from a graph store: their rows and their passages, one read each."""
    rows = store.node_table([int(v) for v in nodes])
    want = list(dict.fromkeys(c for _, _, _, cids in rows for c in cids))
    text = {cid: t for cid, _, t in store.chunks(want)} if want else {}
    return [compose_node_text(name, desc, [text[c] for c in cids if c in text], max_chars=max_chars)
            for _, name, desc, cids in rows]


class StoreNodeTexts:
    """Every node text ``c_n`` of a store, page by page in node order: what the first use embeds
    (:class:`~core.index.indexing.TextPages`); memory stays flat (one page's rows at a time)."""

    def __init__(self, store: GraphStore, *, max_chars: int = NODE_TEXT_CHARS) -> None:
        self.store, self.max_chars = store, int(max_chars)

    def __len__(self) -> int:
        return int(self.store.n_nodes)

    def pages(self) -> Iterator[list[str]]:
        n = len(self)
        for lo in range(0, n, PAGE):
            yield store_node_texts(self.store, range(lo, min(lo + PAGE, n)), max_chars=self.max_chars)


@singledispatch
def node_texts(graph: Any, *, max_chars: int = NODE_TEXT_CHARS) -> Sequence[str] | StoreNodeTexts:
    """Every node's ``c_n``, in node order: computed once per graph in memory
    (:meth:`~core.graph.model.KnowledgeGraph.derived`), or a store's read page by page."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


def kg_node_texts(graph: KnowledgeGraph, *, max_chars: int = NODE_TEXT_CHARS) -> tuple[str, ...]:
    """Every node's ``c_n`` of a graph in memory, in node order, computed once per graph and ``max_chars``."""
    m = int(max_chars)
    return graph.derived(("kg_nodes.texts", m), lambda: tuple(node_text(graph, v, max_chars=m)
                                                              for v in range(graph.n_nodes)))


@node_texts.register
def _(graph: KnowledgeGraph, *, max_chars: int = NODE_TEXT_CHARS) -> Sequence[str] | StoreNodeTexts:
    return kg_node_texts(graph, max_chars=max_chars)


@node_texts.register
def _(graph: StoreGraphView, *, max_chars: int = NODE_TEXT_CHARS) -> Sequence[str] | StoreNodeTexts:
    return StoreNodeTexts(graph.store, max_chars=max_chars)


@singledispatch
def texts_of_nodes(graph: Any, nodes: Sequence[int], *, max_chars: int = NODE_TEXT_CHARS) -> list[str]:
    """The ``c_n`` of a few ``nodes`` (a reranker's candidates), in their order; a store reads only those."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@texts_of_nodes.register
def _(graph: KnowledgeGraph, nodes: Sequence[int], *, max_chars: int = NODE_TEXT_CHARS) -> list[str]:
    return [node_text(graph, int(v), max_chars=max_chars) for v in nodes]


@texts_of_nodes.register
def _(graph: StoreGraphView, nodes: Sequence[int], *, max_chars: int = NODE_TEXT_CHARS) -> list[str]:
    return store_node_texts(graph.store, nodes, max_chars=max_chars)


def has_kg_nodes(workspace: Workspace) -> bool:
    """Whether the workspace's graph is a KG with nodes (a corpus graph's items already are passages)."""
    graph = question_graph(workspace)
    return graph.kind == "kg" and graph.n_nodes > 0


def no_kg_nodes_reason(workspace: Workspace) -> str:
    """Why ``workspace`` has no KG node to rank ("" when it has): for a node ranking's note."""
    graph = question_graph(workspace)
    if graph.kind == "corpus_graph":
        return ("the workspace is a corpus graph: its nodes are passages, so there is no KG node to rank "
                "(node-level metrics need a KG, FastInsight §4.2.2)")
    if graph.n_nodes == 0:
        return "the workspace's KG has no nodes (a passage corpus without triples), so there is no KG node to rank"
    return ""


# ---------------------------------------------------------------------------------- the node vectors
def node_vectors_name(max_chars: int) -> str:
    """The workspace vector-cache name of the node texts cut at ``max_chars``. It keeps the name the cache
    had when FastInsight alone used it, so vectors prepared by earlier versions are still found."""
    return f"fastinsight_nodes_{int(max_chars)}"


def node_texts_key(workspace: Workspace, max_chars: int) -> str:
    """What names the node texts of ``workspace`` in its vector cache: the graph's content and
    provenance hashes (a node's text holds its linked passages) and the text recipe, so the cache is
    checked without reading a text — the same key in memory and on a graph store, so a workspace
    moved to a store keeps its vectors."""
    prov = workspace.provenance_hash or "provenance-unrecorded"
    return f"{workspace.content_hash}|{prov}|{NODE_TEXT_RECIPE}|{int(max_chars)}"


def has_node_vectors(workspace: Workspace, embedder: Embedder, *, max_chars: int = NODE_TEXT_CHARS) -> bool:
    """Whether :func:`kg_node_vectors` would read the vectors from the workspace cache (not embed now)."""
    return workspace.has_text_vectors(node_vectors_name(max_chars),
                                      node_texts(question_graph(workspace), max_chars=max_chars),
                                      embedder, texts_key=node_texts_key(workspace, max_chars))


def kg_node_vectors(workspace: Workspace, embedder: Embedder, *, max_chars: int = NODE_TEXT_CHARS,
                    progress: Progress | None = None) -> CachedVectors:
    """The node-text vectors ``V`` of ``workspace`` (FastInsight §3.1.1 on KG nodes): row ``i`` is node ``i``.

    Embedded on first use per (workspace, embedder, node texts) — on MuSiQue 16k texts, minutes on a CPU,
    reported through ``progress(message, fraction)`` — and then read from the workspace folder
    (:meth:`~core.index.workspace.Workspace.text_vectors`: a FAISS file, atomic writes; a damaged file is
    embedded again and ``CachedVectors.note`` says so). On a graph store the node texts are read page by
    page for the first use (a store's graph is never read whole).
    """
    return workspace.text_vectors(node_vectors_name(max_chars), node_texts(question_graph(workspace),
                                                                           max_chars=max_chars),
                                  embedder, progress=progress, texts_key=node_texts_key(workspace, max_chars),
                                  label="KG node texts")  # said in progress lines, not the file's name




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


def node_texts_to_embed(workspace: Workspace, embedder: Embedder, *, max_chars: int = NODE_TEXT_CHARS) -> int:
    """How many node texts :func:`kg_node_vectors` would embed now: 0 when cached; after documents were added,
    only the texts they changed (the stale cache keeps the others' rows); every node text otherwise."""
    return workspace.text_vectors_to_embed(node_vectors_name(max_chars),
                                           node_texts(question_graph(workspace), max_chars=max_chars),
                                           embedder, texts_key=node_texts_key(workspace, max_chars))


def node_vectors_estimate(workspace: Workspace, embedder: Embedder, *,
                          max_chars: int = NODE_TEXT_CHARS) -> tuple[float, str]:
    """Expected seconds to embed the node texts of ``workspace`` with ``embedder`` (only the changed ones after
    documents were added), and why."""
    n_all = question_graph(workspace).n_nodes
    n = node_texts_to_embed(workspace, embedder, max_chars=max_chars) or n_all
    rate, how = embedding_rate(workspace, embedder)
    what = f"{n:,} node texts" if n == n_all else f"{n:,} of {n_all:,} node texts (the others are kept)"
    return n * rate, f"{what}; {how}"


def node_vectors_key(workspace: Workspace, embedder: Embedder, max_chars: int) -> str:
    """The preparation key of the node vectors: the same for every method that asks for them, so one job
    (in the app) serves FastInsight and the node-level pass of dense retrieval and Re2 alike."""
    return f"fastinsight-nodes:{workspace.path}:{embedder.model_id}:{int(max_chars)}"


def node_vectors_preparation(who: str, uses: Callable[[MethodConfig], bool], *,
                             max_chars: Callable[[MethodConfig], int] = lambda cfg: NODE_TEXT_CHARS,
                             run: Callable[..., object] | None = None) -> Preparation:
    """The embedding of the node texts as ``who``'s :class:`~core.methods.base.Preparation`: needed when the
    method's config ``uses`` KG nodes, the workspace is a KG with nodes and the vectors are not cached yet.

    ``run(workspace, embedder, max_chars=..., progress=...)`` embeds them (default :func:`kg_node_vectors`; a
    method may pass its own wrapper, e.g. one that also opens its node graph)."""
    def embed(ws: Workspace, backends: Any, cfg: MethodConfig, progress: Progress | None) -> None:
        (run or kg_node_vectors)(ws, backends.embedder, max_chars=max_chars(cfg), progress=progress)

    def title(ws: Workspace, backends: Any, cfg: MethodConfig) -> str:
        """All the node texts on first use; after documents were added, only those they changed (the stale cache
        keeps the others): an audit read "Embedding 122 KG node texts … (first use)" after the add's message said
        the vectors were kept."""
        n_all = question_graph(ws).n_nodes
        n = node_texts_to_embed(ws, backends.embedder, max_chars=max_chars(cfg)) or n_all
        if n < n_all:
            return (f"Embedding {n:,} of {n_all:,} KG node texts for {who} (the ones documents added to "
                    f"“{ws.title}” changed; the others are kept)")
        return f"Embedding {n_all:,} KG node texts for {who} (first use of “{ws.title}”)"

    return Preparation(
        title=title,
        needed=lambda ws, backends, cfg: uses(cfg) and has_kg_nodes(ws) and not has_node_vectors(
            ws, backends.embedder, max_chars=max_chars(cfg)),
        run=embed,
        key=lambda ws, backends, cfg: node_vectors_key(ws, backends.embedder, max_chars(cfg)),
        estimate=lambda ws, backends, cfg: node_vectors_estimate(ws, backends.embedder, max_chars=max_chars(cfg)),
    )


# ---------------------------------------------------------------------------------- the gold nodes
def nodes_citing(node_chunks: Sequence[Collection[str]], gold_chunks: Iterable[str]) -> np.ndarray:
    """The gold-node rule of FastInsight §4.2.2 ("all nodes constructed from the original gold documents"):
    every node whose provenance (``node_chunks[v]``, the passages it was extracted from) includes a gold
    passage, sorted. The one definition: FastInsight's node graph and :func:`gold_nodes` both apply it.

    Examples
    --------
    >>> nodes_citing([("p1",), ("p2", "p3"), ()], {"p3"}).tolist()
    [1]
    """
    g = set(gold_chunks)
    return np.asarray([v for v, cids in enumerate(node_chunks) if g.intersection(cids)], dtype=np.int64)


def store_gold_nodes(store: GraphStore, gold_chunks: Iterable[str]) -> np.ndarray:
    """:func:`nodes_citing` on a graph store, through its provenance index (no whole-graph read), sorted."""
    found: set[int] = set()
    for c in dict.fromkeys(gold_chunks):
        found.update(int(v) for v in store.chunk_provenance(c)[0])
    return np.asarray(sorted(found), dtype=np.int64)


@singledispatch
def gold_nodes(graph: Any, gold_chunks: Iterable[str]) -> np.ndarray:
    """The gold nodes of a question (FastInsight §4.2.2): every node of ``graph`` whose provenance includes
    one of ``gold_chunks``, sorted node indices (:func:`nodes_citing`; a store answers from its index)."""
    raise TypeError(f"not a graph: {type(graph).__name__}")


@gold_nodes.register
def _(graph: KnowledgeGraph, gold_chunks: Iterable[str]) -> np.ndarray:
    return nodes_citing(graph.node_chunks, gold_chunks)


@gold_nodes.register
def _(graph: StoreGraphView, gold_chunks: Iterable[str]) -> np.ndarray:
    return store_gold_nodes(graph.store, gold_chunks)
