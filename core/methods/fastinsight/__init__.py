"""FastInsight: fast and insightful retrieval via fusion operators (FastInsight §3).

=======================  =====================================================================
module                   paper
=======================  =====================================================================
``config``               the knobs with the paper's defaults (§3.2, §4.1.1)
``pipeline``             :func:`run`: the method end to end, traced (§3, Algorithms 1-3)
``granker``              §3.3 GRanker, Algorithm 2 (``O_gm``)
``stex``                 §3.4 STeX, Algorithm 3 (``O_vgs``)
``loop``                 §3.2 the FastInsight loop, Algorithm 1 (``O_vs → (O_gm, O_vgs)*``)
``diagnosis``            where a question's gold passages were lost
``views``                display-ready views of a run for the GRanker page
``lazy_vectors``         the ``node_vectors="lazy"`` option: node vectors embedded as a question reaches them
=======================  =====================================================================

The corpus graph of §2.1 (Definition 1) and the passage graph derived from a KG live in
:mod:`core.graph.passage_graph` (PPR's corpus mode and the evaluation metrics walk it too).
Topological Recall and MissTR (§4.3.2) live in :mod:`core.eval.metrics`.
"""

from __future__ import annotations

from core.graph.passage_graph import PassageGraph, passage_graph
from core.methods.base import Method
from core.methods.fastinsight.ablations import ABLATIONS
from core.methods.fastinsight.config import FastInsightConfig, fastinsight_budget
from core.methods.fastinsight.diagnosis import STAGES, diagnose
from core.methods.fastinsight.granker import GRankerResult, granker, granker_scores, propagation_matrix
from core.methods.fastinsight.intros import INTROS
from core.methods.fastinsight.loop import FastInsightResult, FastInsightRound, fastinsight, iter_fastinsight
from core.methods.fastinsight.node_vectors import PREPARATION
from core.methods.fastinsight.pipeline import FastInsightRun, run
from core.methods.fastinsight.stex import STeXResult, stex
from core.methods.reranking import FeatureCache

__all__ = [
    "METHOD", "FastInsightConfig", "FastInsightResult", "FastInsightRound", "FastInsightRun", "FeatureCache",
    "GRankerResult", "PassageGraph", "STeXResult", "fastinsight", "granker", "granker_scores",
    "iter_fastinsight", "passage_graph", "propagation_matrix", "run", "stex",
]

METHOD: Method[FastInsightConfig, FastInsightRun] = Method(
    "fastinsight", "FastInsight (GRanker + STeX)", "FastInsight §3, Algorithms 1-3", run=run, config=FastInsightConfig,
    stages=STAGES, diagnose=diagnose, needs_reranker=True, page="pages/granker.py",
    ablations=ABLATIONS, intros=INTROS, prepare=PREPARATION, budget=fastinsight_budget)
