"""Baselines on the same indexes as the paper methods: three small methods in one package.

=============  ===========================================================================
module         method
=============  ===========================================================================
config         DenseConfig, RerankConfig, PPRConfig
dense          dense passage retrieval, NaiveRAG (FastInsight §4.1.1 "Vector Search")
rerank         retrieve-then-rerank, Re2 (FastInsight §3.1.3 Example 3, §4.1.1)
ppr            HippoRAG-style personalized PageRank (HippoRAG §3.2); its steps in ppr_entities,
               ppr_seeds, ppr_graph, ppr_synonyms (kept in the workspace) and ppr_walk
diagnosis      where each lost the gold evidence
=============  ===========================================================================

Each of ``dense``, ``rerank`` and ``ppr`` is the pipeline of one method — ``run(query, workspace, *,
config=None, backends)`` returning a :class:`~core.methods.baselines.common.BaselineResult` — so the
package exports three :class:`~core.methods.base.Method` objects, :data:`METHODS`, where the other
packages export one ``METHOD``.
"""

from __future__ import annotations

from core.methods.base import Method
from core.methods.baselines import dense, ppr, rerank
from core.methods.baselines.common import BaselineResult
from core.methods.baselines.config import DenseConfig, PPRConfig, RerankConfig
from core.methods.baselines.diagnosis import (
    DENSE_STAGES,
    PPR_STAGES,
    RERANK_STAGES,
    diagnose_dense,
    diagnose_ppr,
    diagnose_rerank,
)
from core.methods.baselines.ppr_synonyms import PREPARATION as PPR_SYNONYMS
from core.methods.baselines.ppr_walk import personalized_pagerank
from core.methods.budget import passage_budget

DENSE: Method[DenseConfig, BaselineResult] = Method(
    "dense", "Dense passage retrieval (NaiveRAG)", "FastInsight §4 baselines; BubbleRAG §4.1 NaiveRAG",
    run=dense.run, config=DenseConfig, stages=DENSE_STAGES, diagnose=diagnose_dense, budget=passage_budget)
RERANK: Method[RerankConfig, BaselineResult] = Method(
    "rerank", "Retrieve-then-rerank (Re2)", "FastInsight §4 (Re2)", run=rerank.run, config=RerankConfig,
    stages=RERANK_STAGES, diagnose=diagnose_rerank, needs_reranker=True, page="pages/granker.py",
    budget=passage_budget)
PPR: Method[PPRConfig, BaselineResult] = Method(
    "ppr", "HippoRAG-style personalized PageRank", "HippoRAG (Gutiérrez et al., 2024) §3", run=ppr.run,
    config=PPRConfig, stages=PPR_STAGES, diagnose=diagnose_ppr, prepare=PPR_SYNONYMS, budget=passage_budget)

METHODS: tuple[Method[DenseConfig, BaselineResult] | Method[RerankConfig, BaselineResult]
               | Method[PPRConfig, BaselineResult], ...] = (DENSE, RERANK, PPR)

__all__ = ["DENSE", "METHODS", "PPR", "RERANK", "BaselineResult", "DenseConfig", "PPRConfig", "RerankConfig",
           "personalized_pagerank"]
