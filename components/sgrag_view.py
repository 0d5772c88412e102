"""Drawing helpers for the SG-RAG "Subgraph matching" page: the query graph as a tiny
KnowledgeGraph (so graph_view draws it like any other graph) and one colour per query node, shared by
the query graph and every matched subgraph (the node mapping shown by colour)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from components import colors
from core.graph.graph_builder import GraphBuilder
from core.graph.model import KnowledgeGraph
from core.methods.sgrag.query_graph import QueryGraph

if TYPE_CHECKING:
    from core.backends.base import Embedder
    from core.index.workspace import Workspace



def qnode_colors(qg: QueryGraph) -> dict[str, str]:
    """Query node id → colour (UNK nodes orange, the others from a colour-blind-safe palette)."""
    out: dict[str, str] = {}
    i = 0
    for n in qg.nodes:
        if n.unknown:
            out[n.id] = colors.UNK
        else:
            out[n.id] = colors.nth(colors.QUERY_NODES, i)
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
