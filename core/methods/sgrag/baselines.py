"""SG-RAG's naive graph baselines of Table 5 (sg_rag.txt §5.2, §5.3): what the question's entities reach
without structure-guided exact matching.

§5.2: "We additionally design two naive baselines to isolate the effect of structure guided exact
retrieval. [...] *Entity-based Retrieval* returns chunks that mention any query entity. *2-hop Graph
Retrieval* expands each query entity to its two-hop neighbors." §5.3 runs them on CM-ERQA with NaiveRAG
and "LightRAG (1-hop)", "spanning from purely semantic retrieval to shallow neighborhood expansion".

Each runs as SG-RAG with ``retrieval`` set (``egx ablate --method sgrag``, the Table 5 rows of
``egx reproduce``), so everything but the retrieval is SG-RAG's: the query entities are the known nodes of
the query graph q* (ψ, Table 12) after entity normalization (Alg. 3), and the answer is γ's Table 15
prompt over the retrieved triples under the same 1,200-token context (§5), as SG-RAG's own fallback
context g'' is. Where the paper is silent, these are our choices:

* **Entity-based Retrieval** (``entity``): the triples that mention a query entity (its head or tail is
  one), and as passages the chunks those triples were extracted from, i.e. the chunks that mention a query
  entity in our KGs (a KG records where each triple comes from, not every mention of a name).
* **LightRAG (1-hop)** (``1-hop``): the subgraph induced on the query entities and their 1-hop neighbours
  (LightRAG's low-level retrieval of entities with their neighbours and the relations among them), so
  relations between two neighbours are in, unlike in the entity-based row.
* **2-hop Graph Retrieval** (``2-hop``): the subgraph induced on the nodes within two hops of a query entity.

The KG is taken as undirected (as SG-RAG's matching does). A neighbourhood can hold far more triples than
the context: they are ordered by cosine similarity to the question (as g'' is, §4.4) and the first
:data:`MAX_EDGES` go to the answer stage, whose token budget then cuts them; the trace records how many the
neighbourhood held.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from core.graph.model import KnowledgeGraph
from core.methods.sgrag.assembly import Assembly
from core.pinning import pin
from core.trace import Trace

#: ``retrieval`` values: SG-RAG itself, then the Table 5 baselines by the paper's names
RETRIEVALS: dict[str, str] = {
    "subgraph": "SG-RAG",
    "entity": "Entity-based Retrieval",
    "1-hop": "LightRAG (1-hop)",
    "2-hop": "2-hop Graph Retrieval",
}

#: Triples handed to the answer stage at most: the 1,200-token context (§5) holds about 40-60 relation
#: sentences, so 200 leaves the budget to decide while bounding the tokenizer's work on a hub's neighbourhood.
MAX_EDGES = 200


def incident_edges(graph: KnowledgeGraph, nodes: Iterable[int]) -> list[int]:
    """The edges with an endpoint in ``nodes`` (each once, by id): the triples that mention them."""
    out: set[int] = set()
    for v in nodes:
        out.update(int(e) for e in graph.csr.row(int(v))[1].tolist())
    return sorted(out)


def within_hops(graph: KnowledgeGraph, seeds: Iterable[int], hops: int) -> set[int]:
    """The nodes at most ``hops`` edges from a seed, edges taken as undirected (the seeds included)."""
    seen = {int(v) for v in seeds}
    frontier = set(seen)
    for _ in range(hops):
        nxt: set[int] = set()
        for v in frontier:
            nxt.update(int(n) for n in graph.csr.row(v)[0].tolist())
        frontier = nxt - seen
        seen |= frontier
    return seen


def induced_edges(graph: KnowledgeGraph, nodes: set[int]) -> list[int]:
    """The edges whose two endpoints are both in ``nodes`` (each once, by id)."""
    out: set[int] = set()
    for v in nodes:
        nbr, eid = graph.csr.row(v)
        out.update(int(e) for n, e in zip(nbr.tolist(), eid.tolist()) if int(n) in nodes)
    return sorted(out)


def baseline_edges(graph: KnowledgeGraph, entities: Iterable[int], retrieval: str) -> list[int]:
    """The triples a Table 5 baseline retrieves for the query entities ``entities`` (by edge id).

    Raises
    ------
    ValueError
        For ``retrieval`` other than ``entity``, ``1-hop`` or ``2-hop``.
    """
    ents = sorted({int(v) for v in entities})
    if retrieval == "entity":
        return incident_edges(graph, ents)
    if retrieval in ("1-hop", "2-hop"):
        return induced_edges(graph, within_hops(graph, ents, 1 if retrieval == "1-hop" else 2))
    raise ValueError(f"no Table 5 baseline is called {retrieval!r}; use 'entity', '1-hop' or '2-hop'.")


def baseline_retrieval(graph: KnowledgeGraph, entities: list[int], retrieval: str, edge_vecs: np.ndarray | None,
                       qvec: np.ndarray | None, *, trace: Trace | None = None) -> Assembly:
    """Run the Table 5 baseline ``retrieval`` and hand its triples, most question-similar first, to the
    answer stage as a context of their own (an :class:`Assembly` with no exact match, as g'' is)."""
    tr = trace if trace is not None else Trace("sgrag", "")
    name = RETRIEVALS[retrieval]
    with tr.timed("baseline", f"{name}: triples of the query entities' neighbourhood",
                  section="SG-RAG §5.2, §5.3, Table 5") as step:
        eids = baseline_edges(graph, entities, retrieval)
        if edge_vecs is not None and qvec is not None and eids:
            sims = pin(f"sgrag.baseline.{retrieval}.edge_similarity", edge_vecs[eids] @ qvec, ids=eids)
            eids = [eids[i] for i in np.argsort(-sims, kind="stable")]
        total = len(eids)
        eids = eids[:MAX_EDGES]
        step.data.update({"retrieval": retrieval, "baseline": name, "entities": [graph.node_names[v] for v in entities],
                          "edges_total": total, "edges": eids[:50],
                          "edge_texts": [graph.edge_text(e) for e in eids[:50]], "max_edges": MAX_EDGES,
                          "note": f"{name}, a Table 5 baseline: no structure-guided matching"})
    return Assembly((), 0, 0, False, False, True, tuple(eids), tuple(entities))
