"""Evaluation: questions with gold evidence and retrieval metrics.

* :mod:`core.eval.datasets` — HippoRAG-format questions matched to workspace chunks.
* :mod:`core.eval.metrics` — capped Recall@k and nDCG@k (FastInsight §4.3.1), Topological Recall
  and MissTR (FastInsight §4.3.2).
"""

from __future__ import annotations

from core.eval.datasets import Question, load_questions, load_questions_file, parse_questions
from core.eval.metrics import (
    RankingMetrics,
    TopologicalRecall,
    miss_tr,
    ndcg_at_k,
    path_uncertainty,
    ranking_metrics,
    recall_at_k,
    topological_recall,
    tr_decomposition,
)

__all__ = [
    "Question", "RankingMetrics", "TopologicalRecall", "load_questions", "load_questions_file", "miss_tr",
    "ndcg_at_k", "parse_questions", "path_uncertainty", "ranking_metrics", "recall_at_k", "topological_recall",
    "tr_decomposition",
]
