"""Error bars and paired tests for benchmark figures: is a difference between two methods real?

A benchmark here runs 20–101 questions, so a mean such as R@5 carries about ±10 points of sampling
noise at 95 %: two methods 2 points apart are not ranked by that difference. This module gives every
mean its interval and every comparison of two methods on the same questions a paired interval and two
paired tests, in plain words:

* :func:`bootstrap_interval` — the 95 % percentile bootstrap interval of a mean over questions [1]_;
* :func:`paired_interval` — the same for the mean difference of two methods, resampling *question
  indices* with the same indices for both methods (the paired bootstrap [1]_ [2]_), so what both
  methods find easy or hard cancels out of the difference;
* :func:`sign_test` — the two-sided exact sign test on wins vs losses, ties dropped [3]_;
* :func:`wilcoxon_test` — the Wilcoxon signed-rank test on the per-question differences [4]_;
* :func:`compare_paired` — all of the above for two methods' per-question scores, as a
  :class:`PairedComparison` whose :meth:`~PairedComparison.sentence` says "within noise" when the
  interval holds 0 and otherwise names the better method.

Only numpy and scipy: no streamlit, no records. :mod:`core.eval.summary_stats` applies it to a
benchmark's records.

The bootstrap is deterministic: resample ``r`` (``r = 0 … n_resamples − 1``) is the ``n`` indices drawn by
``numpy.random.default_rng(seed).integers(0, n, size=n)`` in turn, so a plain loop over the same
generator draws exactly the same resamples (the tests check this). The percentile interval is the
``(1 − level) / 2`` and ``(1 + level) / 2`` quantiles of the resampled means (numpy's linear
interpolation). It is known to be somewhat too narrow on very few questions [1]_ (§13.3): below
:data:`MIN_VERDICT_QUESTIONS` paired questions a comparison names no winner.

References
----------
.. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993,
   ch. 13 (the percentile interval).
.. [2] P. Koehn, "Statistical significance tests for machine translation evaluation", EMNLP 2004
   (paired bootstrap resampling over test items).
.. [3] W. J. Conover, *Practical Nonparametric Statistics*, 3rd ed., Wiley, 1999, §3.4 (the sign test).
.. [4] F. Wilcoxon, "Individual comparisons by ranking methods", *Biometrics Bulletin* 1(6), 1945.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from core.errors import ConfigError

__all__ = ["LEVEL", "MIN_VERDICT_QUESTIONS", "N_RESAMPLES", "SEED", "Interval", "PairedComparison",
           "bootstrap_interval", "compare_paired", "paired_interval", "resampled_means", "sign_test", "signed",
           "wilcoxon_test"]

#: The coverage of every interval.
LEVEL = 0.95
#: Bootstrap resamples per interval: the interval's end points then move by well under a point between seeds.
N_RESAMPLES = 10_000
#: The default seed of every bootstrap (a report recomputed from the same records shows the same intervals).
SEED = 0
#: Fewer paired questions than this and a comparison names no winner, whatever its interval: with so few the
#: percentile bootstrap is too narrow, and the sign test cannot reach p < 0.05 below 6 questions.
MIN_VERDICT_QUESTIONS = 10
#: A per-question difference this small is a tie (scores are fractions computed the same way for both methods;
#: this only absorbs float rounding).
TIE_TOLERANCE = 1e-12
#: At most this many indices are drawn at once, and resample counts up to this size are kept for the next metric
#: (16 MB: 10,000 resamples of 200 questions); memory stays bounded for thousands of questions.
_BLOCK_CELLS = 2_000_000


@dataclass(frozen=True)
class Interval:
    """A mean over ``n`` questions and its percentile bootstrap interval ``[low, high]``, in the
    units of the values (fractions for R@k, EM, F1: the reports print them ×100)."""

    mean: float
    low: float
    high: float
    n: int
    level: float = LEVEL

    def holds(self, value: float = 0.0) -> bool:
        """Whether ``value`` lies in the interval (its end points included)."""
        return self.low <= value <= self.high

    def to_dict(self) -> dict[str, Any]:
        """``{"low", "high", "n"}``: what ``summary.json`` keeps beside the mean it already has."""
        return {"low": self.low, "high": self.high, "n": self.n}


def _values(values: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
    x = np.asarray(values, dtype=float).reshape(-1)
    if x.size == 0:
        raise ConfigError(f"The {what} has no values; an interval needs at least one question's score.")
    if not np.all(np.isfinite(x)):
        bad = x[~np.isfinite(x)][0]
        raise ConfigError(f"The {what} holds a non-finite score ({bad}); leave out the questions a method has no "
                          "score for instead of writing NaN or infinity.")
    return x


def _check(n_resamples: int, level: float) -> None:
    if not isinstance(n_resamples, int | np.integer) or n_resamples < 1:
        raise ConfigError(f"n_resamples must be a positive whole number, got {n_resamples!r}; the default is "
                          f"{N_RESAMPLES:,}.")
    if not 0.0 < level < 1.0:
        raise ConfigError(f"level must lie strictly between 0 and 1, got {level!r}; use 0.95 for a 95 % interval.")


def _count_blocks(n: int, n_resamples: int, seed: int) -> Iterator[tuple[int, int, np.ndarray]]:
    """``(start, stop, counts)``: how often each of the ``n`` questions is drawn in resamples ``start … stop − 1``
    (a float matrix, so a resample's sum is one matrix product), in blocks of at most :data:`_BLOCK_CELLS`."""
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // n)
    for start in range(0, n_resamples, block):
        stop = min(n_resamples, start + block)
        idx = rng.integers(0, n, size=(stop - start, n))
        flat = (idx + (np.arange(stop - start) * n)[:, None]).ravel()
        yield start, stop, np.bincount(flat, minlength=(stop - start) * n).reshape(stop - start, n).astype(float)


@functools.lru_cache(maxsize=2)
def _cached_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """The counts of every resample at once, kept for the next metric over as many questions: a summary
    bootstraps dozens of metrics over the same 20–200 questions, and drawing the resamples is most of the work."""
    counts = np.concatenate([c for _, _, c in _count_blocks(n, n_resamples, seed)])
    counts.flags.writeable = False
    return counts


def resampled_means(values: Sequence[float] | np.ndarray, *, n_resamples: int = N_RESAMPLES,
                    seed: int = SEED) -> np.ndarray:
    """The mean of each bootstrap resample of ``values`` (question indices drawn with replacement).

    Resample ``r`` holds the ``n`` indices of the ``r``-th ``rng.integers(0, n, size=n)`` of
    ``rng = numpy.random.default_rng(seed)``; they are drawn in blocks and counted only to save time.

    Returns
    -------
    numpy.ndarray
        ``n_resamples`` means, in the order drawn.
    """
    x = _values(values, "score list")
    _check(n_resamples, LEVEL)
    n, r = x.size, int(n_resamples)
    if n * r <= _BLOCK_CELLS:
        return np.asarray(_cached_counts(n, r, int(seed)) @ x) / n
    out = np.empty(r)
    for start, stop, counts in _count_blocks(n, r, int(seed)):
        out[start:stop] = counts @ x / n
    return out


def bootstrap_interval(values: Sequence[float] | np.ndarray, *, n_resamples: int = N_RESAMPLES, seed: int = SEED,
                       level: float = LEVEL) -> Interval:
    """The percentile bootstrap interval of the mean of ``values`` (one score per question).

    Parameters
    ----------
    values
        One finite score per question (e.g. each question's R@5 in [0, 1]).
    n_resamples
        Bootstrap resamples (default 10,000).
    seed
        Seed of the resampling: the same seed and values give the same interval.
    level
        Coverage (default 0.95).

    Returns
    -------
    Interval
        The sample mean, the ``(1 − level) / 2`` and ``(1 + level) / 2`` quantiles of the resampled means
        (Efron & Tibshirani 1993, ch. 13), and ``n``.

    Raises
    ------
    ConfigError
        No values, a non-finite value, ``n_resamples < 1`` or ``level`` outside (0, 1).

    Examples
    --------
    >>> iv = bootstrap_interval([1.0, 1.0, 1.0])
    >>> (iv.mean, iv.low, iv.high, iv.n)
    (1.0, 1.0, 1.0, 3)
    """
    _check(n_resamples, level)
    x = _values(values, "score list")
    means = resampled_means(x, n_resamples=n_resamples, seed=seed)
    low, high = np.quantile(means, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return Interval(float(x.mean()), float(low), float(high), int(x.size), float(level))


def paired_interval(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, *,
                    n_resamples: int = N_RESAMPLES, seed: int = SEED, level: float = LEVEL) -> Interval:
    """The paired bootstrap interval of the mean difference ``mean(a) − mean(b)``.

    ``a[i]`` and ``b[i]`` are two methods' scores on question ``i``. Each resample draws question indices
    with replacement and takes the *same* indices for both methods (Efron & Tibshirani 1993; Koehn 2004),
    so the interval is that of the mean of ``a − b`` (:func:`bootstrap_interval` of the differences).

    Returns
    -------
    Interval
        The mean difference, its percentile interval and the number of questions.

    Raises
    ------
    ConfigError
        ``a`` and ``b`` of different lengths, or what :func:`bootstrap_interval` refuses.

    Examples
    --------
    >>> iv = paired_interval([1.0, 0.5, 1.0], [0.0, 0.5, 0.0])
    >>> round(iv.mean, 3), iv.n
    (0.667, 3)
    """
    xa, xb = _values(a, "first method's score list"), _values(b, "second method's score list")
    if xa.size != xb.size:
        raise ConfigError(f"Paired scores need one score per question for both methods; got {xa.size} and {xb.size}. "
                          "Keep only the questions both methods ran.")
    return bootstrap_interval(xa - xb, n_resamples=n_resamples, seed=seed, level=level)


def sign_test(wins: int, losses: int) -> float | None:
    """The two-sided exact sign test: is a method's share of wins among the non-tied questions ½?

    ``scipy.stats.binomtest(wins, wins + losses, 0.5)`` (Conover 1999, §3.4); ties are dropped before
    (the usual sign test). None when every question was a tie (no non-tied question: undefined).

    Raises
    ------
    ConfigError
        A negative count.

    Examples
    --------
    >>> round(sign_test(9, 1), 4)
    0.0215
    >>> sign_test(0, 0) is None
    True
    """
    if wins < 0 or losses < 0:
        raise ConfigError(f"wins and losses are counts of questions, got wins={wins}, losses={losses}.")
    if wins + losses == 0:
        return None
    from scipy.stats import binomtest

    return float(binomtest(int(wins), int(wins + losses), 0.5, alternative="two-sided").pvalue)


def wilcoxon_test(differences: Sequence[float] | np.ndarray) -> float | None:
    """The two-sided Wilcoxon signed-rank p-value of per-question differences ``a − b``.

    ``scipy.stats.wilcoxon(d)`` with scipy's documented defaults: ``zero_method="wilcox"`` drops zero
    differences (as the sign test drops ties), ``method="auto"`` computes the exact distribution for up
    to 50 non-zero differences without ties, every sign flip for up to 13 differences with ties or zeros, and the
    normal approximation otherwise (Wilcoxon 1945). Up to 13 differences the flips are enumerated here
    (:func:`signed_rank_exact`, the same p-values, a thousand times faster).
    Differences within :data:`TIE_TOLERANCE` of 0 count as 0. None when undefined: every difference 0.

    Raises
    ------
    ConfigError
        No differences, or a non-finite one.

    Examples
    --------
    >>> wilcoxon_test([0.0, 0.0]) is None
    True
    >>> round(wilcoxon_test([1.0] * 10), 4)
    0.002
    """
    d = _values(differences, "list of differences")
    d = np.where(np.abs(d) <= TIE_TOLERANCE, 0.0, d)
    if not np.any(d):
        return None
    if len(d) <= EXACT_SIGN_FLIPS_UP_TO:  # what scipy computes there, without its per-permutation Python loop
        return signed_rank_exact(d)
    from scipy.stats import wilcoxon

    p = float(wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)
    return None if math.isnan(p) else p


#: Up to this many differences (zeros included) scipy's ``method="auto"`` enumerates every sign flip (a permutation
#: test, when there are ties or zeros; else the exact distribution, which the enumeration equals): 2^13 ≤ its 9,999
#: resamples. Its permutation test calls the statistic once per flip in Python — 0.07–0.15 s a call, ~10 s of a
#: 10-question × 8-method run's report (28 method pairs × 5 metrics); :func:`signed_rank_exact` is one matrix product.
EXACT_SIGN_FLIPS_UP_TO = 13


def signed_rank_exact(d: np.ndarray) -> float:
    """The two-sided Wilcoxon signed-rank p-value of ``d`` (zeros dropped, ties given average ranks) over every one of
    its 2^n sign flips, as ``scipy.stats.permutation_test`` computes it for ``scipy.stats.wilcoxon``: the share of
    flips whose rank sum of the positive differences is at least (and at most) the observed one, doubled, at most 1."""
    from scipy.stats import rankdata

    n = len(d)
    ranks = np.zeros(n)
    nonzero = d != 0
    ranks[nonzero] = rankdata(np.abs(d[nonzero]))
    observed = float(ranks[d > 0].sum())
    flips = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(float)
    null = flips @ ranks
    gamma = abs(np.finfo(float).eps * 100 * observed)  # scipy's tolerance for rank sums equal up to rounding
    greater = np.count_nonzero(null >= observed - gamma) / len(null)
    less = np.count_nonzero(null <= observed + gamma) / len(null)
    return float(min(1.0, 2 * min(greater, less)))


def signed(x: float, digits: int = 1) -> str:
    """``x`` with its sign and a true minus sign (``+5.0``, ``−4.0``); a value that rounds to 0 has none."""
    text = f"{x:+.{digits}f}"
    if float(text) == 0.0:
        return f"{0.0:.{digits}f}"
    return text.replace("-", "−")


def _p(x: float | None) -> str:
    if x is None:
        return "undefined (every question a tie)"
    return "p < 0.001" if x < 0.001 else f"p = {x:.3f}"


@dataclass(frozen=True)
class PairedComparison:
    """Two methods on the questions both have a score for: the paired interval of ``a − b``, wins /
    ties / losses of ``a``, the sign-test and Wilcoxon p-values, and the verdict in words."""

    a: str
    b: str
    metric: str
    difference: Interval  #: mean of a − b with its paired bootstrap interval; ``n`` = paired questions
    mean_a: float
    mean_b: float
    wins: int  #: questions where a scored higher
    ties: int
    losses: int  #: questions where b scored higher
    sign_p: float | None
    wilcoxon_p: float | None

    @property
    def n(self) -> int:
        return self.difference.n

    @property
    def verdict(self) -> Literal["too_few", "noise", "a", "b"]:
        """``too_few`` below :data:`MIN_VERDICT_QUESTIONS` questions, ``noise`` when the interval holds 0,
        else which method is better (``a`` when the whole interval is above 0)."""
        if self.n < MIN_VERDICT_QUESTIONS:
            return "too_few"
        if self.difference.holds(0.0):
            return "noise"
        return "a" if self.difference.low > 0 else "b"

    @property
    def better(self) -> str | None:
        """The better method's name, or None (within noise, or too few questions)."""
        return {"a": self.a, "b": self.b}.get(self.verdict)

    def conclusion(self) -> str:
        """The verdict alone: "within noise (the interval holds 0)", "X is better", or too few questions.

        "X is better" says "tentatively" when the Wilcoxon test does not agree at the same level: on a few dozen
        questions with few decided ones the percentile interval can exclude 0 while a rank test cannot."""
        if self.verdict == "too_few":
            return f"too few questions to tell (a verdict needs at least {MIN_VERDICT_QUESTIONS})"
        if self.verdict == "noise":
            return "within noise (the interval holds 0)"
        alpha = 1.0 - self.difference.level
        if self.wilcoxon_p is None or self.wilcoxon_p >= alpha:
            return (f"{self.better} is better, tentatively (the interval excludes 0 but the Wilcoxon test gives "
                    f"{_p(self.wilcoxon_p)})")
        return f"{self.better} is better"

    def sentence(self, *, scale: float = 100.0, unit: str = "points") -> str:
        """The comparison in words, e.g. ``dense − ppr = +5.0 [−4.0, +14.0] R@5 points on 50 questions:
        within noise (the interval holds 0)``. ``scale`` turns the scores into the printed unit (100:
        fractions as percentage points; 1 for a 0–3 scale such as Emp.S)."""
        d = self.difference
        digits = 1 if scale >= 10 else 2
        n = f"{d.n} question" + ("" if d.n == 1 else "s")
        return (f"{self.a} − {self.b} = {signed(scale * d.mean, digits)} [{signed(scale * d.low, digits)}, "
                f"{signed(scale * d.high, digits)}] {self.metric} {unit} on {n}: {self.conclusion()}")

    def tests_sentence(self) -> str:
        """Wins / ties / losses and the two p-values in words."""
        return (f"{self.a} wins {self.wins}, ties {self.ties}, loses {self.losses}; sign test {_p(self.sign_p)}; "
                f"Wilcoxon {_p(self.wilcoxon_p)}")

    def to_dict(self, *, scale: float = 100.0, unit: str = "points") -> dict[str, Any]:
        """The JSON form (``summary.json``'s ``pairs``): scores stay in their own units (fractions)."""
        return {"a": self.a, "b": self.b, "metric": self.metric, "n": self.n, "mean_a": self.mean_a,
                "mean_b": self.mean_b, "difference": self.difference.mean, "low": self.difference.low,
                "high": self.difference.high, "level": self.difference.level, "wins": self.wins, "ties": self.ties,
                "losses": self.losses, "sign_p": self.sign_p, "wilcoxon_p": self.wilcoxon_p,
                "verdict": self.verdict, "better": self.better, "words": self.sentence(scale=scale, unit=unit),
                "tests": self.tests_sentence()}


def compare_paired(a: str, a_scores: Mapping[str, float], b: str, b_scores: Mapping[str, float], *, metric: str,
                   n_resamples: int = N_RESAMPLES, seed: int = SEED, level: float = LEVEL) -> PairedComparison | None:
    """Methods ``a`` and ``b`` compared on ``metric`` over the questions both have a score for.

    Parameters
    ----------
    a, b
        The methods' names (as the sentence prints them).
    a_scores, b_scores
        Question id → that method's score on it. A question enters the comparison only when both
        methods have a value; the pairs are taken in sorted question-id order, so the result does not
        depend on the order the records were written in.
    metric
        The metric's name (as the sentence prints it).
    n_resamples, seed, level
        As for :func:`paired_interval`.

    Returns
    -------
    PairedComparison or None
        None when no question has a score of both methods.

    Examples
    --------
    >>> c = compare_paired("x", {"q1": 1.0, "q2": 0.0}, "y", {"q1": 0.0, "q2": 0.0, "q3": 1.0}, metric="R@5")
    >>> (c.n, c.wins, c.ties, c.losses, c.verdict)
    (2, 1, 1, 0, 'too_few')
    """
    shared = sorted(set(a_scores) & set(b_scores))
    if not shared:
        return None
    xa = _values([a_scores[q] for q in shared], f"{a}'s {metric} scores")
    xb = _values([b_scores[q] for q in shared], f"{b}'s {metric} scores")
    d = xa - xb
    wins = int(np.sum(d > TIE_TOLERANCE))
    losses = int(np.sum(d < -TIE_TOLERANCE))
    return PairedComparison(a, b, metric, paired_interval(xa, xb, n_resamples=n_resamples, seed=seed, level=level),
                            float(xa.mean()), float(xb.mean()), wins, len(shared) - wins - losses, losses,
                            sign_test(wins, losses), wilcoxon_test(d))
