"""The graph FastInsight runs on: passages as nodes (FastInsight §2.1, Definition 1).

FastInsight retrieves *nodes of a corpus graph*: every node is a text (its key ``k_n`` and content
``c_n``) and edges are links between texts. A workspace gives us one of two things:

* a **corpus graph** (``KnowledgeGraph.kind == "corpus_graph"``): every node already is one chunk
  and edges are references; we use it as it is (:func:`passage_graph` maps node ids to chunk
  positions);
* a **knowledge graph** (entities and relations extracted from passages): we *derive* a passage
  graph in which two passages are linked when they mention a common entity (both are in that
  entity's provenance ``node_chunks``). This is the "text-rich knowledge graph" setting of
  FastInsight §4.2.2 turned around: the paper turns corpora into graphs with LightRAG's
  extraction; here the extraction already happened and we read the passage links off it.

Construction of the derived graph (parameters recorded in :attr:`PassageGraph.params`):

1. For every entity ``v`` take ``P(v)``, the set of passages it was extracted from.
2. If ``2 <= |P(v)| <= max_entity_passages`` link every pair of passages in ``P(v)``.
3. Entities in more than ``max_entity_passages`` passages are **hubs** ("United States" is in 169
   of MuSiQue's 1,890 passages) and are skipped: one hub would add a clique of ~14k edges that
   says little more than "both passages mention a country", and would swamp every degree
   (``deg`` divides GRanker's weights and bounds STeX's bridging term). The skipped names are kept
   in :attr:`PassageGraph.skipped_entities` so the UI can show them.

Edges are **undirected** and unweighted in both cases. Algorithm 3 needs this: a STeX candidate
``n`` is found through an edge ``(n_i, n)`` but its adjacent retrieved set
``A(n) = {v in N_ret | (n, v) in E}`` must be non-empty for ``r_best`` (a minimum over ``A(n)``) to
exist, which holds for every candidate only when each edge can be walked both ways. Parallel
edges and self-loops are dropped (``E`` is a set of node pairs), so ``deg_E(n)`` is the number of
distinct neighbouring passages in the *full* graph (Algorithm 2 line 3, Algorithm 3 line 9).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from core.errors import ConfigError, EmptyGraphError, UnknownNameError

if TYPE_CHECKING:
    import networkx as nx

    from core.graph.model import KnowledgeGraph

PassageGraphSource = Literal["corpus_graph", "shared_entity", "edges", "kg_nodes"]
DEFAULT_MAX_ENTITY_PASSAGES = 20


@dataclass(frozen=True, eq=False)
class PassageGraph:
    """An undirected simple graph over passages, as CSR arrays.

    Node ``i`` is ``chunk_ids[i]`` with reranker text ``passages[i]``; the order is the order of
    the workspace's chunks, so row ``i`` of the chunk vector index is node ``i``'s vector.

    Parameters
    ----------
    chunk_ids, passages
        Per-node chunk id and text (``Chunk.passage``: title and text).
    indptr, nbr
        CSR adjacency: the distinct neighbours of ``i`` are ``nbr[indptr[i]:indptr[i+1]]``,
        sorted, no self-loops; every edge is stored in both rows.
    source
        ``"corpus_graph"`` (references of an uploaded corpus graph), ``"shared_entity"``
        (derived from a KG) or ``"edges"`` (built directly, e.g. in tests).
    params
        The construction parameters (shown in the trace and the UI).
    skipped_entities
        Hub entities left out of a derived graph (most passages first).
    """

    chunk_ids: tuple[str, ...]
    passages: tuple[str, ...]
    indptr: np.ndarray
    nbr: np.ndarray
    source: PassageGraphSource = "edges"
    params: dict[str, Any] = field(default_factory=dict)
    skipped_entities: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return len(self.chunk_ids)

    @property
    def n_edges(self) -> int:
        """Number of undirected edges."""
        return int(self.nbr.size // 2)

    @cached_property
    def degree(self) -> np.ndarray:
        """``deg_E(n)``: distinct neighbours of every node in the full graph (int64)."""
        return np.diff(self.indptr).astype(np.int64)

    @cached_property
    def position(self) -> dict[str, int]:
        return {c: i for i, c in enumerate(self.chunk_ids)}

    def index_of(self, chunk_id: str) -> int:
        """Node index of ``chunk_id``.

        Raises
        ------
        UnknownNameError
            If no passage has that chunk id (the message lists some valid ids).
        """
        try:
            return self.position[chunk_id]
        except KeyError:
            raise UnknownNameError("chunk", chunk_id, list(self.chunk_ids[:20])) from None

    def indices(self, chunk_ids: Iterable[str]) -> np.ndarray:
        """Node indices of several chunk ids (same errors as :meth:`index_of`)."""
        return np.asarray([self.index_of(c) for c in chunk_ids], dtype=np.int64)

    def neighbors(self, i: int) -> np.ndarray:
        return self.nbr[self.indptr[i]:self.indptr[i + 1]]

    def adjacent(self, nodes: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The neighbour rows of ``nodes``, concatenated: ``(lens, nb)`` where the first ``lens[0]``
        entries of ``nb`` are the distinct neighbours of ``nodes[0]`` (sorted), and so on.

        What Algorithms 2 and 3 read of ``E``; a graph kept in a store
        (:class:`~core.methods.fastinsight.store_graph.StoreNodeGraph`) answers it with one read.
        """
        nodes = np.asarray(nodes, dtype=np.int64)
        starts, ends = self.indptr[nodes], self.indptr[nodes + 1]
        lens = (ends - starts).astype(np.int64)
        total = int(lens.sum())
        if total == 0:
            return lens, np.zeros(0, np.int64)
        offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
        return lens, self.nbr[offsets + np.arange(total)].astype(np.int64)

    def degrees_of(self, nodes: Sequence[int] | np.ndarray) -> np.ndarray:
        """``deg_E`` of some nodes (int64): :attr:`degree` at ``nodes``."""
        return self.degree[np.asarray(nodes, dtype=np.int64)]

    def subgraph_adjacency(self, nodes: Sequence[int] | np.ndarray) -> np.ndarray:
        """``A`` of Algorithm 2 line 2: the 0/1 adjacency among ``nodes`` (in the given order).

        Vectorized over the neighbour rows of ``nodes`` (:meth:`adjacent`): each neighbour is looked
        up in the sorted node list with :func:`numpy.searchsorted`, so the cost is the total degree
        of ``nodes``.
        """
        nodes = np.asarray(nodes, dtype=np.int64)
        k = nodes.size
        a = np.zeros((k, k), dtype=np.float64)
        if k == 0:
            return a
        lens, nb = self.adjacent(nodes)
        if nb.size == 0:
            return a
        rows = np.repeat(np.arange(k), lens)
        order = np.argsort(nodes, kind="stable")
        sorted_nodes = nodes[order]
        pos = np.searchsorted(sorted_nodes, nb)
        pos_c = np.minimum(pos, k - 1)
        hit = sorted_nodes[pos_c] == nb
        a[rows[hit], order[pos_c[hit]]] = 1.0
        return a

    def to_networkx(self, nodes: Iterable[int] | None = None) -> nx.Graph:
        """An undirected ``networkx.Graph`` on node indices (optionally induced on ``nodes``)."""
        import networkx as nx

        g = nx.Graph()
        keep = range(self.n) if nodes is None else sorted({int(v) for v in nodes})
        keep_set = set(keep)
        for v in keep:
            g.add_node(v, chunk_id=self.chunk_ids[v])
        for v in keep:
            for u in self.neighbors(v).tolist():
                if u > v and u in keep_set:
                    g.add_edge(v, u)
        return g

    @classmethod
    def from_edges(cls, n: int, edges: Iterable[tuple[int, int]], *, chunk_ids: Sequence[str] | None = None,
                   passages: Sequence[str] | None = None, source: PassageGraphSource = "edges",
                   params: dict[str, Any] | None = None,
                   skipped_entities: Sequence[str] = ()) -> PassageGraph:
        """Build from node-index pairs; direction, duplicates and self-loops are dropped.

        Raises
        ------
        ValueError
            If an edge names a node outside ``0..n-1`` or the id/passage lists have the wrong length.
        """
        ids = tuple(chunk_ids) if chunk_ids is not None else tuple(f"p{i}" for i in range(n))
        texts = tuple(passages) if passages is not None else ids
        if len(ids) != n or len(texts) != n:
            raise ValueError(f"chunk_ids and passages must have n={n} entries, got {len(ids)} and {len(texts)}")
        pairs = np.asarray(list(edges), dtype=np.int64).reshape(-1, 2)
        if pairs.size and (pairs.min() < 0 or pairs.max() >= n):
            bad = pairs[(pairs < 0).any(axis=1) | (pairs >= n).any(axis=1)][0]
            raise ValueError(f"edge {tuple(bad.tolist())} refers to a node outside 0..{n - 1}")
        indptr, nbr = _symmetric_csr(n, pairs)
        return cls(ids, texts, indptr, nbr, source, dict(params or {}), tuple(skipped_entities))


def _symmetric_csr(n: int, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pairs = pairs[pairs[:, 0] != pairs[:, 1]] if pairs.size else pairs.reshape(0, 2)
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    key = np.unique(src * max(n, 1) + dst)  # sorted by (src, dst), duplicates gone
    src, dst = key // max(n, 1), key % max(n, 1)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst.astype(np.int32)


def passage_graph(graph: KnowledgeGraph, *, max_entity_passages: int = DEFAULT_MAX_ENTITY_PASSAGES) -> PassageGraph:
    """The passage graph FastInsight runs on for a workspace graph (FastInsight §2.1).

    A corpus graph is used as it is; a KG gives a derived graph linking passages that share an
    entity (see the module docstring for the construction). The result is kept on the graph per
    parameters (:meth:`~core.graph.model.KnowledgeGraph.derived`).

    Parameters
    ----------
    graph : KnowledgeGraph
        The workspace graph, with at least one chunk.
    max_entity_passages : int
        Derived graphs only: entities found in more passages than this are hubs and add no
        edges (default 20; on MuSiQue this skips 9 of 16,243 entities, e.g. "United States",
        "Japan", and leaves a mean degree of 8.3). Ignored for corpus graphs.

    Returns
    -------
    PassageGraph
        Nodes in the order of ``graph.chunks``.

    Raises
    ------
    EmptyGraphError
        If the graph has no chunks (there is nothing to retrieve).
    ConfigError
        If ``max_entity_passages < 2`` (no entity could link two passages).

    Examples
    --------
    >>> from core.graph.graph_builder import GraphBuilder
    >>> b = GraphBuilder()
    >>> a, c = b.add_chunk("A", "x", chunk_id="a"), b.add_chunk("C", "y", chunk_id="c")
    >>> _ = b.add_triple("Paris", "in", "France", chunk_id=a)
    >>> _ = b.add_triple("Paris", "capital of", "France", chunk_id=c)
    >>> passage_graph(b.build()).n_edges
    1
    """
    if graph.n_chunks == 0:
        raise EmptyGraphError(
            f"Graph {graph.name!r} has no passages (chunks), so there is nothing for FastInsight to "
            "retrieve. Upload a corpus, a corpus graph, or triples with a source-chunk column.")
    if max_entity_passages < 2:
        raise ConfigError(f"max_entity_passages must be at least 2 (an entity links the passages it "
                          f"appears in), got {max_entity_passages}.")
    cap = int(max_entity_passages)
    if graph.kind == "corpus_graph":
        return graph.derived(("fastinsight.passage_graph", "corpus_graph"), lambda: _corpus_passage_graph(graph))
    return graph.derived(("fastinsight.passage_graph", "shared_entity", cap), lambda: _shared_entity_graph(graph, cap))


def _ids_and_texts(graph: KnowledgeGraph) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return tuple(c.id for c in graph.chunks), tuple(c.passage for c in graph.chunks)


def _corpus_passage_graph(graph: KnowledgeGraph) -> PassageGraph:
    ids, texts = _ids_and_texts(graph)
    # In a corpus graph every node is one chunk (node id == chunk id); map through node_chunks so a
    # graph whose node ids differ from chunk ids still works.
    node_to_chunk = np.full(graph.n_nodes, -1, dtype=np.int64)
    for v, cids in enumerate(graph.node_chunks):
        if cids and cids[0] in graph.chunk_index:
            node_to_chunk[v] = graph.chunk_index[cids[0]]
        elif graph.node_ids[v] in graph.chunk_index:
            node_to_chunk[v] = graph.chunk_index[graph.node_ids[v]]
    h = node_to_chunk[graph.edge_head.astype(np.int64)]
    t = node_to_chunk[graph.edge_tail.astype(np.int64)]
    ok = (h >= 0) & (t >= 0)
    return PassageGraph.from_edges(len(ids), np.stack([h[ok], t[ok]], axis=1), chunk_ids=ids, passages=texts,
                                   source="corpus_graph", params={"edges": "references of the corpus graph"})


def _shared_entity_graph(graph: KnowledgeGraph, cap: int) -> PassageGraph:
    ids, texts = _ids_and_texts(graph)
    index = graph.chunk_index
    blocks: list[np.ndarray] = []
    hubs: list[tuple[int, str]] = []
    linking = 0
    for v, cids in enumerate(graph.node_chunks):
        if len(cids) < 2:
            continue
        members = np.unique(np.fromiter((index[c] for c in cids if c in index), dtype=np.int64))
        if members.size < 2:
            continue
        if members.size > cap:
            hubs.append((int(members.size), graph.node_names[v]))
            continue
        linking += 1
        iu, ju = np.triu_indices(members.size, k=1)
        blocks.append(np.stack([members[iu], members[ju]], axis=1))
    pairs = np.concatenate(blocks) if blocks else np.zeros((0, 2), dtype=np.int64)
    hubs.sort(key=lambda x: (-x[0], x[1]))
    params = {"edges": "passages sharing an entity", "max_entity_passages": cap,
              "linking_entities": linking, "skipped_hub_entities": len(hubs)}
    return PassageGraph.from_edges(len(ids), pairs, chunk_ids=ids, passages=texts, source="shared_entity",
                                   params=params, skipped_entities=[name for _, name in hubs])


def shared_entities(graph: KnowledgeGraph, chunk_a: str, chunk_b: str, *, limit: int = 5) -> list[str]:
    """Names of entities extracted from both passages (why a derived edge exists), for display."""
    out = [graph.node_names[v] for v, cids in enumerate(graph.node_chunks) if chunk_a in cids and chunk_b in cids]
    return out[:limit]
