"""Evaluation: questions with gold evidence and retrieval metrics.

* :mod:`core.eval.datasets` — HippoRAG-format questions matched to workspace chunks (from
  :mod:`core.index.questions`).
* :mod:`core.eval.metrics` — capped Recall@k and nDCG@k (FastInsight §4.3.1), Topological Recall
  and MissTR (FastInsight §4.3.2), all-recall AR@k, answer EM / token F1 (SQuAD), per-stage latency
  and LLM tokens from traces.
* :mod:`core.eval.diagnosis` — the failure-diagnosis contract (where the gold evidence was lost).
* :mod:`core.eval.verdicts` — the one verdict vocabulary and the answer match (EM / F1 / alias / partial).
* :mod:`core.eval.triage` — per-question triage rows and their CSV / JSON downloads.
* :mod:`core.eval.stats` — 95 % bootstrap intervals of a mean, paired intervals of a difference, the sign
  and Wilcoxon signed-rank tests, and the verdict in words ("within noise" or which method is better);
  :mod:`core.eval.summary_stats` applies them to a benchmark's records (every figure's interval, every pair).
* :mod:`core.eval.runner` — the benchmark runner behind ``egx bench``; its parts: :mod:`~core.eval.selection`
  (which questions), :mod:`~core.eval.pair` (one question × method and its record),
  :mod:`~core.eval.result_metrics` (R@k, nDCG, TR of one result), :mod:`~core.eval.bench_files`
  (``results.jsonl``, ``run.json``), :mod:`~core.eval.judge` (which LLM judges the run),
  :mod:`~core.eval.judging` (ACC_L and Emp.S by that judge), :mod:`~core.eval.pairwise`
  (FastInsight's pairwise wins on long-form answers) and
  :mod:`~core.eval.bench_report` (a benchmark folder read back).
"""

from __future__ import annotations

from core.eval.datasets import Question, load_questions, load_questions_file, parse_questions
from core.eval.metrics import (
    RankingMetrics,
    TopologicalRecall,
    all_recall_at_k,
    answer_scores,
    exact_match,
    llm_tokens,
    miss_tr,
    ndcg_at_k,
    normalize_answer,
    path_uncertainty,
    ranking_metrics,
    recall_at_k,
    stage_latency,
    token_f1,
    topological_recall,
    tr_decomposition,
)

__all__ = [
    "Question",
    "RankingMetrics",
    "TopologicalRecall",
    "all_recall_at_k",
    "answer_scores",
    "exact_match",
    "llm_tokens",
    "load_questions",
    "load_questions_file",
    "miss_tr",
    "ndcg_at_k",
    "normalize_answer",
    "parse_questions",
    "path_uncertainty",
    "ranking_metrics",
    "recall_at_k",
    "stage_latency",
    "token_f1",
    "topological_recall",
    "tr_decomposition",
]
