"""ReG: weak-to-strong graph RAG (reg_weak_to_strong_graphrag.txt §4, Appendices D–F).

==================  ==========================================================================
module              paper
==================  ==========================================================================
``chains``          §4.2, D.4 structure-aware reorganization (BFS chain expansion, both merges)
``evidence``        §4.2 evidence format for the answer step of every method (triples vs chains)
``linking``         topic/answer entities for a black-box KG (given in the paper's datasets)
``candidates``      §4.1, D.1 candidate pool (shortest paths + query-/answer-centric 1-hop)
``compression``     §4.1, D.2 answer merging + relation-chain merging (Table 1 ratio)
``selection``       §4.1, D.3 / App. F LLM selection of the sufficient, coherent subset
``supervision``     weak vs refined labels per question (D.1–D.3 end to end)
``dde``             App. E / SubgraphRAG directional distance encoding
``retriever``       D.3 Eq. 33 ReG@Triple MLP scorer (saved per workspace with a manifest)
``train``           App. E training loop with held-out splits and curves
``pipeline``        the ``reg`` method: score the neighbourhood, keep top-K, reorganize, answer
``tokens``          prompt token counts (the answering model's tokenizer, or WordPiece)
==================  ==========================================================================

``import core.methods.reg`` stays light: torch is imported inside the retriever functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.methods.reg.chains import EvidenceChain, Reorganization, Triple, reorganize
from core.methods.reg.config import RegConfig, TrainConfig

if TYPE_CHECKING:
    from core.index.workspace import Workspace
    from core.methods.base import Backends

__all__ = ["EvidenceChain", "RegConfig", "Reorganization", "TrainConfig", "Triple", "reorganize", "run"]


def run(query: str, workspace: Workspace, *, config: RegConfig | None = None, backends: Backends) -> Any:
    """The ``reg`` method (see :func:`core.methods.reg.pipeline.run`)."""
    from core.methods.reg.pipeline import run as _run

    return _run(query, workspace, config=config, backends=backends)
