"""Baselines on the same indexes as the paper methods: four methods in one package.

=============  ===========================================================================
module         method
=============  ===========================================================================
config         DenseConfig, RerankConfig, PPRConfig
dense          dense passage retrieval, NaiveRAG (FastInsight §4.1.1 "Vector Search")
rerank         retrieve-then-rerank, Re2 (FastInsight §3.1.3 Example 3, §4.1.1)
ppr            HippoRAG (v1) personalized PageRank (HippoRAG §3.2); its steps in ppr_entities,
               ppr_seeds, ppr_graph, ppr_synonyms (kept in the workspace) and ppr_walk
hipporag2      HippoRAG 2 (Gutiérrez et al. 2025, §3): hipporag2_config, hipporag2_linking (facts,
               recognition memory) with hipporag2_prompts, hipporag2_graph (phrases + passages),
               hipporag2_seeds, hipporag2_stages (typed trace data), hipporag2_intros (its page);
               it walks with ppr_walk and reuses ppr's synonymy pairs
diagnosis      where each lost the gold evidence
=============  ===========================================================================

Each of ``dense``, ``rerank``, ``ppr`` and ``hipporag2`` is the pipeline of one method — ``run(query,
workspace, *, config=None, backends)`` returning a :class:`~core.methods.baselines.common.BaselineResult`
(HippoRAG 2: its own :class:`~core.methods.baselines.hipporag2.HippoRAG2Result`) — so the package exports four
:class:`~core.methods.base.Method` objects, :data:`METHODS`, where the other packages export one ``METHOD``.
"""

from __future__ import annotations

from core.methods.base import Method
from core.methods.baselines import dense, hipporag2, ppr, rerank
from core.methods.baselines.common import BaselineResult, node_level_preparation
from core.methods.baselines.config import DenseConfig, PPRConfig, RerankConfig
from core.methods.baselines.diagnosis import (
    DENSE_STAGES,
    HIPPORAG2_STAGES,
    PPR_STAGES,
    RERANK_STAGES,
    diagnose_dense,
    diagnose_hipporag2,
    diagnose_ppr,
    diagnose_rerank,
)
from core.methods.baselines.hipporag2 import HippoRAG2Result
from core.methods.baselines.hipporag2_config import HippoRAG2Config
from core.methods.baselines.hipporag2_intros import INTROS as HIPPORAG2_INTROS
from core.methods.baselines.ppr_synonyms import PREPARATION as PPR_SYNONYMS
from core.methods.baselines.ppr_walk import personalized_pagerank
from core.methods.budget import passage_budget

DENSE: Method[DenseConfig, BaselineResult] = Method(
    "dense", "Dense passage retrieval (NaiveRAG)", "FastInsight §4 baselines; BubbleRAG §4.1 NaiveRAG",
    run=dense.run, config=DenseConfig, stages=DENSE_STAGES, diagnose=diagnose_dense,
    prepare=node_level_preparation("dense retrieval"), budget=passage_budget)
RERANK: Method[RerankConfig, BaselineResult] = Method(
    "rerank", "Retrieve-then-rerank (Re2)", "FastInsight §4 (Re2)", run=rerank.run, config=RerankConfig,
    stages=RERANK_STAGES, diagnose=diagnose_rerank, needs_reranker=True, page="pages/granker.py",
    prepare=node_level_preparation("Re2"), budget=passage_budget)
PPR: Method[PPRConfig, BaselineResult] = Method(
    "ppr", "HippoRAG (v1) PPR", "HippoRAG (Gutiérrez et al., 2024) §3", run=ppr.run,
    config=PPRConfig, stages=PPR_STAGES, diagnose=diagnose_ppr, prepare=PPR_SYNONYMS, budget=passage_budget)
# HippoRAG 2's config has ppr's synonym_threshold and region_hops, so it shares ppr's preparation (one job, one
# file: the synonymy pairs of the whole graph at 0.8)
HIPPORAG2: Method[HippoRAG2Config, HippoRAG2Result] = Method(
    "hipporag2", "HippoRAG 2", "HippoRAG 2 §3.2 (Gutiérrez et al., 2025; the released code's retrieve)",
    run=hipporag2.run, config=HippoRAG2Config, stages=HIPPORAG2_STAGES, diagnose=diagnose_hipporag2,
    prepare=PPR_SYNONYMS, page="pages/hipporag2.py", intros=HIPPORAG2_INTROS, budget=passage_budget)

METHODS: tuple[Method[DenseConfig, BaselineResult] | Method[RerankConfig, BaselineResult]
               | Method[PPRConfig, BaselineResult] | Method[HippoRAG2Config, HippoRAG2Result], ...] = (
    DENSE, RERANK, PPR, HIPPORAG2)

__all__ = ["DENSE", "HIPPORAG2", "METHODS", "PPR", "RERANK", "BaselineResult", "DenseConfig", "HippoRAG2Config",
           "HippoRAG2Result", "PPRConfig", "RerankConfig", "personalized_pagerank"]
