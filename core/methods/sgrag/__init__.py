"""SG-RAG (sg_rag.txt §4): structure-guided exact subgraph matching for multi-constraint questions.

Start at :func:`run` (pipeline.py, whose docstring maps every module to its paper section).
:func:`prepare` builds/caches the dominance model ℳ and the R*-tree path indexes.
"""

from __future__ import annotations

from core.methods.sgrag.config import DominanceConfig, SGRAGConfig
from core.methods.sgrag.pipeline import SGRAGResult, prepare, run
from core.methods.sgrag.query_graph import QNode, QueryGraph, bridge_star

__all__ = ["DominanceConfig", "QNode", "QueryGraph", "SGRAGConfig", "SGRAGResult", "bridge_star", "prepare", "run"]
