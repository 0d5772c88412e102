"""Bootstrap intervals and paired tests (core.eval.stats) against brute force, a hand binomial and scipy."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from scipy import stats as sps

from core.errors import ConfigError
from core.eval.stats import (
    MIN_VERDICT_QUESTIONS,
    bootstrap_interval,
    compare_paired,
    paired_interval,
    resampled_means,
    sign_test,
    signed,
    wilcoxon_test,
)

# Sums of the same floats in another order differ in the last bits: compare bootstrap end points to this.
FLOAT_SUMS = 1e-12


def _percentile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default quantile), by hand."""
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (pos - lo) * (sorted_values[hi] - sorted_values[lo])


def _loop_interval(values, *, n_resamples, seed, paired_with=None):
    """The same seeded resamples, drawn one by one by a plain loop, and their 2.5 / 97.5 % percentiles."""
    rng = np.random.default_rng(seed)
    n = len(values)
    means = []
    for _ in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        m = sum(values[i] for i in idx) / n
        if paired_with is not None:  # the same indices for the second method
            m -= sum(paired_with[i] for i in idx) / n
        means.append(m)
    means.sort()
    return _percentile(means, 0.025), _percentile(means, 0.975)


@pytest.mark.parametrize(("n", "seed"), [(7, 3), (23, 0), (60, 11)])
def test_bootstrap_interval_is_the_plain_loops_percentiles(n, seed):
    values = list(np.random.default_rng(100 + n).choice([0.0, 0.5, 1.0, 1 / 3], size=n))
    iv = bootstrap_interval(values, n_resamples=3000, seed=seed)
    low, high = _loop_interval(values, n_resamples=3000, seed=seed)
    assert iv.low == pytest.approx(low, abs=FLOAT_SUMS) and iv.high == pytest.approx(high, abs=FLOAT_SUMS)
    assert iv.n == n and iv.mean == pytest.approx(sum(values) / n, abs=FLOAT_SUMS)


def test_resamples_drawn_in_blocks_are_the_loops_resamples(monkeypatch):
    """Many questions are resampled in blocks (bounded memory): the means are still the loop's, in order."""
    import core.eval.stats as st

    values = np.random.default_rng(5).random(40)
    whole = resampled_means(values, n_resamples=500, seed=9)
    monkeypatch.setattr(st, "_BLOCK_CELLS", 40 * 7)  # 7 resamples a block, the last one short
    assert np.allclose(resampled_means(values, n_resamples=500, seed=9), whole, rtol=0, atol=FLOAT_SUMS)
    rng = np.random.default_rng(9)
    loop = [values[rng.integers(0, 40, size=40)].mean() for _ in range(500)]
    assert np.allclose(whole, loop, rtol=0, atol=FLOAT_SUMS)


def test_bootstrap_interval_agrees_with_all_n_to_the_n_resamples():
    """The ideal bootstrap: every one of the 5^5 equally likely resamples enumerated."""
    values = [0.0, 0.5, 1.0, 1.0, 0.25]
    means = sorted(sum(values[i] for i in idx) / 5 for idx in itertools.product(range(5), repeat=5))
    exact = (_percentile(means, 0.025), _percentile(means, 0.975))
    # Monte Carlo: 10,000 draws put a percentile within ±0.2 % of probability of the exact one, less than the mass
    # of one attainable mean here (a multiple of 0.05), so the end points may differ by at most that one step
    for seed in range(3):
        iv = bootstrap_interval(values, seed=seed)
        assert abs(iv.low - exact[0]) <= 0.05 + FLOAT_SUMS and abs(iv.high - exact[1]) <= 0.05 + FLOAT_SUMS


def test_paired_interval_resamples_the_same_questions_for_both_methods():
    rng = np.random.default_rng(1)
    a = rng.random(30)
    b = a - 0.05 + rng.normal(0, 0.01, 30)  # b tracks a question by question, 5 points lower
    iv = paired_interval(a, b, n_resamples=2000, seed=4)
    low, high = _loop_interval(list(a), n_resamples=2000, seed=4, paired_with=list(b))
    assert iv.low == pytest.approx(low, abs=FLOAT_SUMS) and iv.high == pytest.approx(high, abs=FLOAT_SUMS)
    assert iv.n == 30 and iv.mean == pytest.approx(float(np.mean(a - b)), abs=FLOAT_SUMS)
    # pairing is what makes the difference visible: each method's own interval is ±10 points and they overlap
    ia, ib = bootstrap_interval(a, seed=4), bootstrap_interval(b, seed=4)
    assert ia.low < ib.high and not iv.holds(0.0) and iv.low > 0.03


def test_the_bootstrap_is_deterministic_and_seeded():
    values = np.random.default_rng(2).random(40)
    assert bootstrap_interval(values, seed=7) == bootstrap_interval(values, seed=7)
    assert bootstrap_interval(values, seed=7) != bootstrap_interval(values, seed=8)
    one = bootstrap_interval([0.4, 0.4, 0.4, 0.4])
    assert (one.low, one.high) == (pytest.approx(0.4), pytest.approx(0.4))


@pytest.mark.parametrize(("wins", "losses"), [(9, 1), (3, 7), (5, 5), (0, 4), (12, 3), (1, 0), (20, 31)])
def test_sign_test_is_the_hand_binomial(wins, losses):
    n = wins + losses
    tail = sum(math.comb(n, k) for k in range(min(wins, losses) + 1)) / 2 ** n
    assert sign_test(wins, losses) == pytest.approx(min(1.0, 2 * tail), rel=1e-9)


def test_the_sign_test_drops_ties_and_is_undefined_without_a_decided_question():
    c = compare_paired("a", {f"q{i}": 1.0 for i in range(12)} | {"t1": 0.5, "t2": 0.5, "l": 0.0},
                       "b", {f"q{i}": 0.0 for i in range(12)} | {"t1": 0.5, "t2": 0.5, "l": 1.0}, metric="R@5")
    assert (c.wins, c.ties, c.losses) == (12, 2, 1)
    assert c.sign_p == pytest.approx(2 * (1 + 13) / 2 ** 13, rel=1e-9)
    assert sign_test(0, 0) is None


def test_wilcoxon_matches_scipy_on_darwins_data():
    """Darwin's cross- vs self-fertilized Zea mays height differences (eighths of an inch), scipy's own example."""
    d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75]
    assert wilcoxon_test(d) == pytest.approx(sps.wilcoxon(d).pvalue, rel=1e-12)
    assert wilcoxon_test(d) == pytest.approx(0.041259765625, rel=1e-9)  # exact: 2 · 338 / 2^15 (T = 24)


def test_wilcoxon_drops_zero_differences_as_scipy_documents_and_is_undefined_on_all_ties():
    d = [0.0, 0.5, 0.0, 1.0, -0.5, 1.0, 1.0, 0.5, 0.0, 1.0, -1.0]
    assert wilcoxon_test(d) == pytest.approx(sps.wilcoxon(d, zero_method="wilcox").pvalue, rel=1e-12)
    assert wilcoxon_test([x + 1e-15 if x == 0 else x for x in d]) == wilcoxon_test(d)  # float dust is a tie
    assert wilcoxon_test([0.0] * 8) is None


def _scores(diffs, base=0.5):
    return ({f"q{i:03d}": base + d for i, d in enumerate(diffs)}, {f"q{i:03d}": base for i in range(len(diffs))})


def test_a_difference_whose_interval_holds_zero_is_within_noise():
    diffs = [0.5, -0.5, 0.5, 0.5, -0.5] * 10  # mean +0.1 over 50 questions, noisy
    a, b = _scores(diffs)
    c = compare_paired("dense", a, "bubblerag", b, metric="R@5")
    assert c.difference.holds(0.0) and c.verdict == "noise" and c.better is None
    text = c.sentence()
    assert re.fullmatch(r"dense − bubblerag = \+10\.0 \[−\d+\.\d, \+\d+\.\d\] R@5 points on 50 questions: "
                        r"within noise \(the interval holds 0\)", text), text


def test_a_difference_whose_interval_excludes_zero_names_the_better_method():
    diffs = [-0.5, -0.5, 0.0, -0.5, 0.5] * 10  # b clearly ahead
    a, b = _scores(diffs)
    c = compare_paired("bubblerag", a, "ppr", b, metric="R@5")
    assert c.difference.high < 0 and c.verdict == "b" and c.better == "ppr"
    assert c.sentence().startswith("bubblerag − ppr = −20.0 [−") and c.sentence().endswith(": ppr is better")
    assert c.tests_sentence().startswith("bubblerag wins 10, ties 10, loses 30; sign test p = 0.")
    flipped = compare_paired("ppr", b, "bubblerag", a, metric="R@5")
    assert flipped.verdict == "a" and flipped.better == "ppr" and flipped.sentence().endswith(": ppr is better")


def test_a_winner_the_rank_test_does_not_confirm_is_called_tentative():
    a, b = _scores([-0.5] * 5 + [0.0] * 7)  # 5 of 12 questions decided, all for b: the bootstrap is sure, ranks are not
    c = compare_paired("dense", a, "ppr", b, metric="EM")
    assert c.verdict == "b" and c.wilcoxon_p == pytest.approx(0.0625)
    assert c.sentence().endswith(": ppr is better, tentatively (the interval excludes 0 but the Wilcoxon test gives "
                                 "p = 0.062)")


def test_too_few_questions_name_no_winner():
    a, b = _scores([0.5] * (MIN_VERDICT_QUESTIONS - 1))
    c = compare_paired("x", a, "y", b, metric="R@2")
    assert not c.difference.holds(0.0) and c.verdict == "too_few" and c.better is None
    assert c.sentence().endswith(f"too few questions to tell (a verdict needs at least {MIN_VERDICT_QUESTIONS})")


def test_only_questions_both_methods_scored_enter_the_pair_in_any_order():
    a = {"q1": 1.0, "q2": 0.0, "q3": 1.0, "only-a": 1.0}
    b = {"q3": 0.0, "q2": 0.0, "q1": 0.5, "only-b": 0.0}
    c = compare_paired("a", a, "b", b, metric="R@5")
    assert c.n == 3 and (c.wins, c.ties, c.losses) == (2, 1, 0)
    assert c.mean_a == pytest.approx(2 / 3) and c.mean_b == pytest.approx(0.5 / 3)
    shuffled = compare_paired("a", dict(reversed(list(a.items()))), "b", dict(sorted(b.items())), metric="R@5")
    assert shuffled == c  # sorted by question id: the order the records were written in does not matter
    assert compare_paired("a", {"q1": 1.0}, "b", {"q2": 1.0}, metric="R@5") is None


def test_signed_numbers_use_a_true_minus_and_no_sign_on_zero():
    assert [signed(x) for x in (5.0, -4.04, 0.0, -0.01, 14.0)] == ["+5.0", "−4.0", "0.0", "0.0", "+14.0"]


def test_bad_input_says_what_and_how_to_fix_it():
    with pytest.raises(ConfigError, match=r"The score list has no values; an interval needs at least one question"):
        bootstrap_interval([])
    with pytest.raises(ConfigError, match=r"non-finite score \(nan\); leave out the questions a method has no score"):
        bootstrap_interval([0.5, float("nan")])
    with pytest.raises(ConfigError, match=r"one score per question for both methods; got 3 and 2\. Keep only"):
        paired_interval([1, 0, 1], [0, 1])
    with pytest.raises(ConfigError, match=r"n_resamples must be a positive whole number, got 0; the default is 10,000"):
        bootstrap_interval([1.0, 0.0], n_resamples=0)
    with pytest.raises(ConfigError, match=r"level must lie strictly between 0 and 1, got 95; use 0\.95"):
        bootstrap_interval([1.0, 0.0], level=95)
    with pytest.raises(ConfigError, match=r"wins and losses are counts of questions, got wins=-1, losses=2"):
        sign_test(-1, 2)
