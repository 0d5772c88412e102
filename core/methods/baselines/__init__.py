"""Baselines on the same indexes as the paper methods.

=========  ===========================================================================
module     method
=========  ===========================================================================
dense      dense passage retrieval, NaiveRAG (FastInsight §4.1.1 "Vector Search")
rerank     retrieve-then-rerank, Re2 (FastInsight §3.1.3 Example 3, §4.1.1)
ppr        HippoRAG-style personalized PageRank (HippoRAG §3.2)
=========  ===========================================================================

Each module exposes ``run(query, workspace, *, config=None, backends)`` returning a
:class:`~core.methods.baselines.common.BaselineResult`.
"""

from __future__ import annotations

from core.methods.baselines.common import BaselineResult
from core.methods.baselines.dense import DenseConfig
from core.methods.baselines.ppr import PPRConfig, personalized_pagerank
from core.methods.baselines.rerank import RerankConfig

__all__ = ["BaselineResult", "DenseConfig", "PPRConfig", "RerankConfig", "personalized_pagerank"]
