"""Drawing helpers for the SG-RAG "Subgraph matching" page: the query graph as a tiny
KnowledgeGraph (so graph_view draws it like any other graph) and one colour per query node, shared by
the query graph and every matched subgraph (the node mapping shown by colour)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.graph.graph_builder import GraphBuilder
from core.graph.model import KnowledgeGraph
from core.methods.sgrag.query_graph import QueryGraph

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.index.workspace import Workspace

UNK_COLOR = "#e69f00"
PALETTE = ("#0072b2", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#7f3c8d", "#11a579", "#3969ac",
           "#e73f74", "#80ba5a", "#008695")


def qnode_colors(qg: QueryGraph) -> dict[str, str]:
    """Query node id → colour (UNK nodes orange, the others from a colour-blind-safe palette)."""
    out: dict[str, str] = {}
    i = 0
    for n in qg.nodes:
        if n.unknown:
            out[n.id] = UNK_COLOR
        else:
            out[n.id] = PALETTE[i % len(PALETTE)]
            i += 1
    return out


def query_graph_kg(qg: QueryGraph, labels: dict[str, str] | None = None) -> KnowledgeGraph:
    """The query graph as a KnowledgeGraph whose node i is ``qg.nodes[i]`` (name = label, or the
    normalized KG label when ``labels`` maps the id)."""
    b = GraphBuilder(name="query graph")
    for n in qg.nodes:
        shown = (labels or {}).get(n.id, n.label)
        b.add_node(shown, node_id=n.id,
                   description="the asked-for node (UNK)" if n.unknown else f"query label: {n.label}")
    for a, c in qg.edges:
        b.add_edge(a, "query edge", c)
    return b.build(allow_empty=True)


# pages/subgraph.py: the dominance model is trained outside any cache (it writes to disk) under a progress bar,
# then reused from disk.
def model_ready(workspace: Workspace, embedder: Embedder) -> bool:
    """Whether the SG-RAG dominance model for this workspace is already trained (no progress bar needed)."""
    from core.methods.sgrag.pipeline import is_prepared

    return is_prepared(workspace, embedder)


def prepare(workspace: Workspace, embedder: Embedder, *, retrain: bool, progress: Any = None) -> Any:
    """Train (or load) the dominance model and label tables (``core.methods.sgrag.prepare``)."""
    from core.methods.sgrag import prepare as sgrag_prepare

    return sgrag_prepare(workspace, embedder, retrain=retrain, progress=progress)
