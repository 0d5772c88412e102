"""The stages of a workspace build and its preparations: how long each took, and one progress bar over them.

A build at corpus scale runs for many minutes through stages of very different cost — reading the inputs,
triple extraction, the three vector indexes, then the methods' preparations (FastInsight's node vectors, PPR's
synonymy pairs, SG-RAG's dominance model). Two things a user needs from it:

* **the time of each stage** afterwards (:class:`StageTimes`: kept in the manifest's ``build_stages``, printed
  by ``egx index``, drawn by the Data page), so a slow build says where its time went;
* **one honest progress bar** while it runs (:class:`WeightedStages`): each stage takes the share of the bar
  its *estimated* seconds are of the whole, so a stage that takes 8 minutes never hides behind a bar that
  reads 99 % because it counted the stages done rather than the time left.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class StageTime:
    """One finished stage: its name, wall seconds and (optionally) how many items it handled."""

    stage: str
    seconds: float
    items: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"stage": self.stage, "seconds": round(self.seconds, 3)}
        if self.items is not None:
            out["items"] = int(self.items)
        return out


class StageTimes:
    """Wall time of each stage of one build, in the order they ran.

    Examples
    --------
    >>> times = StageTimes()
    >>> with times.stage("load"):
    ...     pass
    >>> [t.stage for t in times.done]
    ['load']
    """

    def __init__(self) -> None:
        self.done: list[StageTime] = []

    @contextmanager
    def stage(self, name: str, items: int | None = None) -> Iterator[None]:
        """Time the ``with`` block as stage ``name`` (recorded only when the block finishes)."""
        t0 = time.perf_counter()
        yield
        self.add(name, time.perf_counter() - t0, items)

    def add(self, name: str, seconds: float, items: int | None = None) -> None:
        self.done.append(StageTime(name, float(seconds), items))

    @property
    def total(self) -> float:
        return sum(t.seconds for t in self.done)

    def to_list(self) -> list[dict[str, Any]]:
        """JSON rows for the manifest's ``build_stages``: ``{"stage", "seconds"[, "items"]}``."""
        return [t.to_dict() for t in self.done]


def stage_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """``build_stages`` rows as aligned text lines with each stage's share of the total, for a terminal."""
    total = sum(float(r.get("seconds") or 0.0) for r in rows)
    width = max((len(str(r.get("stage", ""))) for r in rows), default=0)
    out = []
    for r in rows:
        s = float(r.get("seconds") or 0.0)
        share = f"{100 * s / total:5.1f} %" if total > 0 else "    – "
        items = r.get("items")
        rate = f"  ({items:,} items, {items / s:,.0f}/s)" if items and s > 0 else ""
        out.append(f"{r.get('stage', '')!s:<{width}}  {format_seconds(s):>9}  {share}{rate}")
    return out


def format_seconds(seconds: float) -> str:
    """``"8 m 12 s"`` from a minute on, else ``"4.21 s"``."""
    if seconds >= 60:
        m, s = divmod(round(seconds), 60)
        return f"{m} m {s:02d} s"
    return f"{seconds:.2f} s"


class WeightedStages:
    """One progress bar over stages whose shares are their estimated seconds.

    ``stage(name)`` returns the progress callback of one stage; its ``fraction`` (0…1 of that stage) moves the
    outer bar across the stage's share. :meth:`replan` takes new estimates for the stages that have not
    started (e.g. once the graph exists, the node vectors' estimate from its node count): the bar keeps the
    position it reached and the rest of it is shared out again, so it never moves backwards.

    Parameters
    ----------
    progress : callable or None
        The outer ``progress(message, fraction)``; None: nothing is reported.
    estimates : sequence of (str, float)
        Each stage's name and estimated seconds, in the order they run; a stage with no estimate
        takes ``default_s``.
    default_s : float
        Seconds assumed for a stage whose estimate is None or not positive.

    Raises
    ------
    ValueError
        If two stages share a name.
    """

    def __init__(self, progress: Progress | None, estimates: Sequence[tuple[str, float | None]], *,
                 default_s: float = 30.0) -> None:
        names = [n for n, _ in estimates]
        if len(set(names)) != len(names):
            raise ValueError(f"stage names must be unique, got {names}")
        self.progress = progress
        self.default_s = float(default_s)
        self._order = names
        self._est = {n: self._positive(s) for n, s in estimates}
        self._lo = 0.0  # where the stages the current plan shares the bar among begin on it
        self._hi = 1.0
        self._from = 0  # index of the first of those stages
        self._last = -1  # index of the last stage started
        self._shown = 0.0

    def _positive(self, s: float | None) -> float:
        return float(s) if s is not None and s > 0 else self.default_s

    def _remaining(self) -> float:
        return sum(self._est[n] for n in self._order[self._from:]) or 1.0

    def share(self, name: str) -> tuple[float, float]:
        """The slice ``(lo, hi)`` of the bar stage ``name`` covers under the current plan."""
        i = self._order.index(name)
        if i < self._from:
            raise ValueError(f"stage {name!r} already ran; the plan covers {self._order[self._from:]}")
        span = self._hi - self._lo
        before = sum(self._est[n] for n in self._order[self._from:i])
        lo = self._lo + span * before / self._remaining()
        return lo, lo + span * self._est[name] / self._remaining()

    def replan(self, estimates: Sequence[tuple[str, float | None]]) -> None:
        """New estimates for stages not yet started (call it between stages): the bar keeps its position and
        the rest of it is shared among those stages by the new estimates."""
        for name, s in estimates:
            if name not in self._est:
                raise ValueError(f"unknown stage {name!r}; the stages are {self._order}")
            if self._order.index(name) <= self._last:
                raise ValueError(f"stage {name!r} has started; only the stages after it can be re-estimated")
            self._est[name] = self._positive(s)
        self._lo, self._from = self._shown, self._last + 1

    def stage(self, name: str, label: str | None = None) -> Progress:
        """The progress callback of stage ``name`` (its messages prefixed with ``label``, default the name);
        asking for it marks the earlier stages as done."""
        if name not in self._est:
            raise ValueError(f"unknown stage {name!r}; the stages are {self._order}")
        i = self._order.index(name)
        if i > self._from:  # the stages before it are done (or skipped): the plan starts at this one
            self._lo, self._from = self.share(name)[0], i
        self._last = max(self._last, i)

        def update(msg: str, frac: float) -> None:
            lo, hi = self.share(name)
            self._shown = max(self._shown, lo + (hi - lo) * min(max(float(frac), 0.0), 1.0))
            if self.progress is not None:
                head = name if label is None else label
                self.progress(f"{head}: {msg}" if msg and head else (msg or head), self._shown)

        return update

    @property
    def fraction(self) -> float:
        """How far the bar has got (0…1)."""
        return self._shown
