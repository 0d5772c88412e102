"""Evaluation: questions with gold evidence and retrieval metrics.

* :mod:`core.eval.metrics` — capped Recall@k and nDCG@k (FastInsight §4.3.1), Topological Recall
  and MissTR (FastInsight §4.3.2), all-recall AR@k, answer EM / token F1 (SQuAD), per-stage latency
  and LLM tokens from traces.
* :mod:`core.eval.diagnose` — failure diagnosis: the method's own diagnoser, then the gold the workspace lacks.
* :mod:`core.eval.verdicts` — the one verdict vocabulary and the answer match (EM / F1 / alias / partial).
* :mod:`core.eval.triage` — per-question triage rows and their CSV / JSON downloads.
* :mod:`core.eval.stats` — 95 % bootstrap intervals of a mean, paired intervals of a difference, the sign
  and Wilcoxon signed-rank tests, and the verdict in words ("within noise" or which method is better);
  :mod:`core.eval.summary_stats` applies them to a benchmark's records (every figure's interval, every pair).
* :mod:`core.eval.runner` — the benchmark runner behind ``egx bench``, which runs one :mod:`~core.eval.plan`
  (:class:`~core.eval.plan.BenchPlan`); its parts: :mod:`~core.eval.selection`
  (which questions), :mod:`~core.eval.pair` (one question × method and its record),
  :mod:`~core.eval.result_metrics` (R@k, nDCG, TR of one result), :mod:`~core.eval.bench_files`
  (``results.jsonl``, ``run.json``), :mod:`~core.eval.judge_choice` (which LLM judges the run),
  :mod:`~core.eval.judgements` (ACC_L and Emp.S by that judge), :mod:`~core.eval.pairwise`
  (FastInsight's pairwise wins on long-form answers) and
  :mod:`~core.eval.bench_report` (a benchmark folder read back).
"""
