"""A job's "time left": the rate its progress fraction moves at, measured where it says something about the rest.

:class:`RateMeter` is fed every fraction a job reports (:meth:`core.background.jobs.Job.report`) and estimates the
seconds left (:meth:`core.background.jobs.Job.status`). What it leaves out, each from an audit of a short job:

* the time before the fraction first moves (a benchmark building what its methods need, a model loading);
* a pause longer than :data:`ETA_STALL_FACTOR` × all the progress measured before it (a build's bar jumps its
  read-inputs share in a blink, then its first extraction batch loads spaCy: "about 3 min left" for a 12-s build);
* the first unit of work, once enough was measured after it (its warm-up: "48 s left" with 24 s to go);

and it measures the rate up to the last move, counting the time since down, with no estimate while a pause outlasts
everything measured (a rate measured up to *now* grew while spaCy loaded: "about 2 min 24 s left", 1.4 s before
the end).

Where the recent moves are markedly slower than the whole measured stretch (the last :data:`RECENT_SHARE` of it, at
least :data:`ETA_MIN_SECONDS` and :data:`ETA_MIN_MOVES` moves, slower by :data:`SLOWDOWN` or more), the recent rate
speaks: the machine grew busier, or the bar's later part costs more per percent than its earlier. An audit's
background sample build, with its own build started beside it, counted down from "about 50 s left" at 51 % and then
added time back, 2–2.5× too low, because the rate of the idle first half still spoke. Never the other way: a recent
speed-up does not shorten the estimate (a time left that grows back is what users distrust).

A job that was estimated before it started (a benchmark: each method's seconds from earlier runs) hands the meter
that estimate (:meth:`RateMeter.expect`); the time left is then the estimate's remainder (from half its time on,
never less than its share of the work left) and the measured rate's, weighted by the fraction done: early the estimate speaks (the first question's runs load every method's models, and
a rate measured on them said "about 42 s left" with 23 s to go, an audit), late the measured rate does.
"""

from __future__ import annotations

#: An estimate needs this many seconds of measured progress, this much of the work done, and this many moves: one
#: move extrapolated the bar's first 3 % to "about 2 min 01 s left" for a build that ended 1 s later (an audit).
ETA_MIN_SECONDS = 2.0
ETA_MIN_FRACTION = 0.01
ETA_MIN_MOVES = 2
#: A move after a pause this many times longer than all the progress measured before it restarts the measurement.
#: Steady work never trips it (the k-th pause is ~1/k of what was measured before it).
ETA_STALL_FACTOR = 10.0
#: From this share of a job's own estimate gone on, the time left is at least that estimate's share of the work left
#: (:meth:`RateMeter.seconds_left`).
ESTIMATE_BEHIND = 0.5
#: The recent stretch of the measured progress (a share of its time) whose rate replaces the whole stretch's when it
#: is slower by a factor of at least :data:`SLOWDOWN` (module docstring). Ordinary step-to-step spread (one step
#: 2.5× its neighbours) stays under it once a few steps are in the stretch.
RECENT_SHARE = 1 / 3
SLOWDOWN = 1.25


class RateMeter:
    """The moves of one job's progress fraction (not thread-safe: the job calls it under its lock)."""

    def __init__(self) -> None:
        self._fraction: float | None = None
        self._rate_from: tuple[float, float] | None = None  # (time, fraction) of the first measured report
        self._moves = 0  # times the fraction moved since then
        self._last_move: float | None = None  # when the fraction last moved
        self._first_move: tuple[float, float] | None = None  # (time, fraction) of the first move after _rate_from
        self._expected_end: float | None = None  # when the job's own estimate said it would end
        self._expected_seconds = 0.0  # what that estimate said the whole job takes
        self._expected_from = 0.0  # when it was given
        self._moves_at: list[tuple[float, float]] = []  # (time, fraction) of each move since _rate_from

    def expect(self, now: float, seconds: float) -> None:
        """The job was estimated to take ``seconds`` from ``now`` (module docstring); a non-positive or unknown
        estimate is ignored."""
        if seconds and seconds > 0:
            self._expected_end = now + float(seconds)
            self._expected_seconds, self._expected_from = float(seconds), now

    def add(self, now: float, fraction: float) -> float:
        """Record a reported ``fraction`` (clamped to [0, 1], never backwards) at time ``now``; returns the
        fraction now standing."""
        f = min(max(float(fraction), 0.0), 1.0)
        if self._fraction is not None and f > self._fraction:
            self._moves += 1
            if (self._rate_from is not None and self._last_move is not None
                    and self._last_move > self._rate_from[0]
                    and now - self._last_move > ETA_STALL_FACTOR * (self._last_move - self._rate_from[0])):
                self._rate_from = None  # a pause that dwarfs what came before it: measure from here
            self._last_move = now
            if self._moves == 1:
                self._first_move = (now, f)
            self._moves_at.append((now, f))
        self._fraction = max(f, self._fraction or 0.0)
        if self._rate_from is None or self._fraction == self._rate_from[1]:
            # measured from the last report before the fraction first moved
            self._moves, self._first_move, self._moves_at = 0, None, []
            self._rate_from = (now, self._fraction)
        return self._fraction

    def seconds_left(self, now: float) -> float | None:
        """The estimated seconds left at ``now``, or None while too little was measured and no estimate of the
        job's own still runs (module docstring): the measured and the expected remainder, weighted by the fraction
        done; an expected end already passed says nothing."""
        measured = self._measured_left(now)
        expected = self._expected_end - now if self._expected_end is not None and self._expected_end > now else None
        if expected is not None and now - self._expected_from >= ESTIMATE_BEHIND * self._expected_seconds:
            # half the estimated time gone: a job on schedule is past its warm-up (the first question's model loads,
            # front-loaded), so the estimate's own share of the work left is a floor. Without it a job slower than
            # estimated (a loaded machine, an estimate from another workspace) read "16 s left" at 5 % done with
            # 14 s gone, of 53 s in all (an audit): the time passed ate the estimate.
            expected = max(expected, self._expected_seconds * (1.0 - (self._fraction or 0.0)))
        if expected is None or measured is None:
            return measured if expected is None else expected
        w = self._fraction or 0.0
        return (1.0 - w) * expected + w * measured

    def _measured_left(self, now: float) -> float | None:
        f, last = self._fraction, self._last_move
        if f is None or self._rate_from is None or last is None:
            return None
        t0, f0 = self._rate_from
        first = self._first_move
        if (first is not None and self._moves - 1 >= ETA_MIN_MOVES and last - first[0] >= ETA_MIN_SECONDS
                and f - first[1] >= ETA_MIN_FRACTION):
            t0, f0 = first  # the first unit's warm-up left out
        span, paused = last - t0, now - last
        if span < ETA_MIN_SECONDS or f - f0 < ETA_MIN_FRACTION or self._moves < ETA_MIN_MOVES or paused > span:
            return None
        per_fraction = span / (f - f0)
        recent = self._recent_seconds_per_fraction(t0, span)
        if recent is not None and recent >= SLOWDOWN * per_fraction:
            per_fraction = recent
        return max(per_fraction * (1.0 - f) - paused, 0.0)

    def _recent_seconds_per_fraction(self, t0: float, span: float) -> float | None:
        """Seconds per unit of fraction over the last :data:`RECENT_SHARE` of the measured stretch (from the last
        move at or before its start), or None when that stretch is too short to say (module docstring)."""
        f, last = self._fraction, self._last_move
        if f is None or last is None:
            return None
        start = last - RECENT_SHARE * span
        before = [(t, x) for t, x in self._moves_at if t0 <= t <= start]
        if not before:
            return None
        tw, fw = before[-1]
        moves = sum(1 for t, _ in self._moves_at if t > tw)
        if last - tw < ETA_MIN_SECONDS or moves < ETA_MIN_MOVES or f - fw <= 0:
            return None
        return (last - tw) / (f - fw)
