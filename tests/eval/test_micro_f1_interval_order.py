"""Micro-F1's bootstrap interval resamples the same questions as every other column's (sorted question-id order,
:func:`core.eval.summary_stats.method_intervals`): when every answer is one item against one gold answer, Micro-F1
is the F1 of each resample, so the two intervals are the same — an audit read Micro-F1 [40, 100] beside
Precision / Recall / F1 / Hit 70.0 [40, 90] for one method, the records' written order drawing other questions."""

from __future__ import annotations

import random

from core.eval.reproduce_record import micro_f1_interval
from core.eval.summary_stats import method_intervals, record_scores


def _records(hits: list[int], order: list[int]) -> list[dict]:
    out = []
    for i in order:
        m = hits[i]
        out.append({"question_id": f"h{i + 1}", "method": "m",
                    "paper": {"precision": float(m), "recall": float(m), "f1": float(m), "hit": float(m),
                              "hit1": float(m), "matched": m, "predicted": 1, "gold": 1}})
    return out


def test_one_item_answers_give_micro_f1_the_f1_interval_whatever_order_the_records_were_written_in():
    rng = random.Random(7)
    # seven of ten right: all-right resamples are 0.7 ** 10 ≈ 2.8 % of them, so the upper end sits on the 97.5 %
    # quantile's edge and which questions a resample draws decides 90 or 100
    cases = [[1, 1, 0, 1, 1, 0, 1, 0, 1, 1]]
    cases += [[int(rng.random() < 0.7) for _ in range(rng.choice([10, 11, 12]))] for _ in range(12)]
    for hits in cases:
        n = len(hits)
        written = list(range(n))  # h1, h2, …, h10: string order h1, h10, h11, h2, … differs
        recs = _records(hits, written)
        f1 = method_intervals(record_scores(recs))["paper F1"]
        micro = micro_f1_interval(recs)
        assert micro is not None and micro["n"] == f1["n"] == n
        assert abs(micro["low"] - f1["low"]) < 1e-9 and abs(micro["high"] - f1["high"]) < 1e-9, (hits, micro, f1)
        shuffled = written[:]
        rng.shuffle(shuffled)
        again = micro_f1_interval(_records(hits, shuffled))
        assert again is not None and (again["low"], again["high"]) == (micro["low"], micro["high"])
