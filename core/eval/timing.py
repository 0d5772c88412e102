"""Where a benchmark run's wall time goes: the methods' own seconds, and the time outside them.

A record's ``seconds`` is the sum of its method's trace stages, so the report's "s / q" says nothing of the
run's other costs — starting the worker and loading the models (``start-up``), the run's checks and the
workspace's identity (``set-up``), what the methods need built once before their first run (``preparing``, with
the titles of what was built under ``prepared``: FastInsight's KG node vectors on a workspace's first use),
scoring, diagnosing and writing each pair (``between methods``), the judge and the summary (``judge``,
``report``). A ``timing.json`` from before ``preparing`` was timed apart (its node embedding counted under
``between methods``) reads as it was written. :class:`PhaseClock` times those phases; the run keeps them in
``summary["timing"]``, and :func:`timing_line` says them in one line ("wall 29.6 s: methods 22.4 s, …") in the
report and on the Benchmark page.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["LATENCY_NOTE", "PHASES", "PhaseClock", "machine_load", "preparing_text", "process_started", "timing_line"]

#: The phases outside the methods, in the order a run passes them, with their words in the report.
PHASES = {"start-up": "start-up (worker, imports, models)", "set-up": "set-up (checks, identity, questions)",
          "preparing": "preparing (what the methods need, first use)",
          "between methods": "between methods (scoring, diagnosis, writing each pair)",
          "judge": "judge", "report": "report (intervals, summary, files)"}

#: What the per-method seconds are, beside the run's wall time.
LATENCY_NOTE = ("Seconds are each method's own (the sum of its trace's stages), not the run's wall time: the time "
                "outside the methods is in the Time line.")


def process_started() -> float | None:
    """When this process started (epoch seconds), for the ``start-up`` phase: a worker's or the CLI's imports and
    model loading happen before the run begins. ``None`` when it cannot be told."""
    try:
        import psutil

        return float(psutil.Process().create_time())
    except Exception:
        return None


def machine_load() -> tuple[float, int] | None:
    """The machine's 1-minute load average and its CPU count, or None where the load cannot be read (Windows)."""
    import os

    try:
        return float(os.getloadavg()[0]), os.cpu_count() or 1
    except (AttributeError, OSError):
        return None


#: The phases at whose end the machine's load is read for ``figures()["load"]``: the pairs' start and end.
LOAD_AT = ("preparing", "pairs")


class PhaseClock:
    """Wall-clock phases of one run: :meth:`lap` ends the current phase under a name; :meth:`figures` adds the
    methods' own seconds and splits the pairs' wall time into methods and the time between them, and says how busy
    the machine was while the pairs ran (the 1-minute load at their start and end, :data:`LOAD_AT`): a later run's
    estimate says when the machine is busier then (:meth:`core.eval.estimate.Estimate.under_load`)."""

    def __init__(self, started: float | None = None, *, clock: Any = time.time,
                 load: Any = machine_load) -> None:
        self._clock = clock
        self._load = load
        self._t = clock()
        self.phases: dict[str, float] = {}
        self.loads: list[tuple[float, int]] = []
        if started is not None and started < self._t:
            self.phases["start-up"] = self._t - started

    def lap(self, name: str) -> float:
        """End the phase running since the last lap as ``name`` (added to an earlier one of that name)."""
        now = self._clock()
        took = max(0.0, now - self._t)
        self.phases[name] = self.phases.get(name, 0.0) + took
        self._t = now
        if name in LOAD_AT:
            sample = self._load()
            if sample is not None:
                self.loads.append(sample)
        return took

    def figures(self, method_seconds: Iterable[float], *, pairs: int, prepared: Sequence[str] = ()
                ) -> dict[str, Any]:
        """The run's timing for ``summary["timing"]``: ``wall``, ``methods`` (the sum of the pairs run now),
        every phase outside them (the ``pairs`` lap split into methods and ``between methods``), ``pairs`` and
        ``prepared`` (the titles of what the ``preparing`` lap built; left out when nothing was), and the machine's
        mean 1-minute ``load`` over its ``cores`` while the pairs ran (left out where it could not be read)."""
        phases = dict(self.phases)
        methods = float(sum(method_seconds))
        pair_wall = phases.pop("pairs", 0.0)
        phases["between methods"] = max(0.0, pair_wall - methods)
        wall = methods + sum(phases.values())
        out: dict[str, Any] = {"wall": round(wall, 2), "methods": round(methods, 2), "pairs": int(pairs)}
        out.update({k: round(phases[k], 2) for k in PHASES if k in phases})
        if prepared:
            out["prepared"] = [str(t) for t in prepared]
        if self.loads:
            out["load"] = round(sum(x for x, _ in self.loads) / len(self.loads), 2)
            out["cores"] = int(self.loads[-1][1])
        return out


def _s(x: float) -> str:
    return f"{x:.1f} s" if x < 120 else f"{x:.0f} s ({int(x // 60)} min {int(x % 60)} s)"


def _words(phase: str, words: str, timing: Mapping[str, Any]) -> str:
    """A phase's words in the Time line; ``preparing`` names what was built ("preparing (Embedding 16,243 KG node
    texts for FastInsight, first use)")."""
    prepared = timing.get("prepared") if phase == "preparing" else None
    if isinstance(prepared, list) and prepared:
        return f"preparing ({'; '.join(str(t) for t in prepared)}, first use)"
    return words


def timing_line(timing: Mapping[str, Any] | None) -> str:
    """``timing`` in one line: "wall 29.6 s: methods 22.4 s (40 runs), start-up 1.6 s, …" ("" for a run that
    recorded none); the phases under 0.05 s are left out."""
    if not timing or "wall" not in timing:
        return ""
    wall, methods = float(timing["wall"]), float(timing.get("methods", 0.0))
    pairs = int(timing.get("pairs", 0))
    parts = [f"methods {_s(methods)}" + (f" ({pairs} runs)" if pairs else "")]
    parts += [f"{_words(k, words, timing)} {_s(float(timing[k]))}" for k, words in PHASES.items()
              if float(timing.get(k, 0.0)) >= 0.05]
    outside = max(0.0, wall - methods)
    share = f"; {outside / wall:.0%} of it outside the methods" if wall > 0 else ""
    load, cores = timing.get("load"), int(timing.get("cores") or 0)
    busy = (f"; the machine was busy (load {float(load):.1f} on {cores} cores): other work shared the CPU"
            if load is not None and cores and float(load) > cores else "")
    return f"wall {_s(wall)}: " + ", ".join(parts) + share + busy


def preparing_text(title: str, message: str = "", fraction: float | None = None, elapsed: float = 0.0,
                   estimate_s: float | None = None) -> str:
    """The run's progress line while it builds what its methods need (``title``) before the first pair: what is
    built, its own progress (``message`` and ``fraction``, as the build reports them) and its own time left —
    from its measured rate once it has one, else from its estimate (``estimate_s``) less the ``elapsed`` seconds.
    The run's pair count stands still meanwhile, so the job's own "time left" is not measured then (an audit saw
    it grow from 4 to 18 minutes while 16,243 node texts were embedded)."""
    from core.eval.estimate import duration

    parts = [f"preparing {title}"]
    if message and message not in title:
        parts.append(message)
    left: float | None = None
    if fraction is not None and 0.0 < fraction < 1.0:
        parts.append(f"{100 * fraction:.0f} % of it")
        if fraction >= 0.05 and elapsed >= 3.0:
            left = elapsed * (1.0 - fraction) / fraction
    if left is None and estimate_s is not None and estimate_s > elapsed:
        left = estimate_s - elapsed
    if left is not None and left >= 1.0:
        parts.append(f"about {duration(left)} left of it")
    return " · ".join(parts)
