"""How long a benchmark run will take, said before it starts: questions × each method's seconds per question, plus
the run's costs outside the methods (:mod:`core.eval.timing`).

Each method's seconds per question come from the newest earlier run of the same workspace and LLM that ran it
(the mean of its records' ``seconds``), else from :data:`DEFAULT_SECONDS`, measured on this project's machine. The
costs outside the methods come from the newest such run's ``timing.json``, else :data:`DEFAULT_OVERHEAD`. The
:class:`Estimate` says which figure came from where.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_OVERHEAD", "DEFAULT_SECONDS", "NO_LLM_ANSWER_S", "NO_LLM_FLOOR", "SIZE_SCALING", "Estimate", "default_seconds", "earlier_runs", "estimate_run",
           "pairs_done", "remaining_estimate"]

#: Seconds per question of each method on the MuSiQue sample (1,890 passages) without a live LLM (the recorded
#: one), in the app's worker (one thread, 2-core machine): a 5-question run of all eight methods, its first-use
#: loading included (a 10-question run's means are 10–45 % lower).
DEFAULT_SECONDS = {"dense": 0.1, "rerank": 2.0, "ppr": 0.05, "hipporag2": 0.05, "fastinsight": 1.7, "bubblerag": 0.5,
                   "sgrag": 0.5, "reg": 0.05}
#: How the measured defaults shrink on a smaller workspace: ``(saturates at, floor)`` — a method's seconds scale with
#: ``min(1, passages / saturates)``, never below ``floor`` of the default. The reranking ones score at most 100
#: (question, passage) pairs with the cross-encoder, so they reach their MuSiQue time from 100 passages on; the graph
#: walks grow with the graph. Dense search (one question embedding) and SG-RAG's matching (the query graph's size) do
#: not. Checked on an audit's 14-passage workspace: 8 questions × 8 methods, 6.7 s in the methods and 11.8 s wall,
#: against 40 s in the methods from the unscaled defaults.
#: FastInsight is not scaled: its default searches KG nodes, and a KG of 8 passages already has over 100 of them for
#: its cross-encoder (an audit's 8-passage run: 0.34 s estimated, GRanker alone 7.5 s a question at load 8.5).
SIZE_SCALING = {"rerank": (100, 0.05), "ppr": (1890, 0.3), "hipporag2": (1890, 0.3),
                "bubblerag": (1890, 0.3), "reg": (1890, 0.3)}
#: Seconds per question and method of the extractive answer without an LLM (``none``), which the measured defaults
#: (the recorded LLM replays its answers) lack: it parses the top passages with spaCy, whatever the workspace's size.
#: Measured in audits' runs of all eight methods: 0.25–0.31 s at load 4.8 (12 questions), 0.46–0.74 s at load 6.3
#: (MuSiQue, 100), 0.84–1.1 s at load 8.5 (12); about 0.25 s on a quieter machine.
NO_LLM_ANSWER_S = 0.25
#: Seconds per question of each method without an LLM, its extractive answer included, on an invented 8-file corpus:
#: the quickest of the three quietest audits' first runs (audits 40, 44 and 47: 11–12 questions × 8 methods, load
#: 1.3–2.7; audit 40's figures here). A run without an LLM is never quicker than these (its cross-encoder scores every
#: pair and its answer reads the passages anew), however small the workspace: the scaled defaults above were half of
#: what nine audits' first runs took (FastInsight 1.95 s a question estimated, 3.2–9 s run; audit 47 estimated 57 s
#: and ran 84.5 s).
NO_LLM_FLOOR = {"dense": 0.5, "rerank": 0.66, "ppr": 0.29, "hipporag2": 0.28, "fastinsight": 3.24, "bubblerag": 0.34,
                "sgrag": 0.29, "reg": 0.28}
#: A method this table lacks (one added since).
UNKNOWN_METHOD_S = 1.0


def default_seconds(method: str, passages: int | None = None) -> float:
    """:data:`DEFAULT_SECONDS` of ``method`` on a workspace of ``passages`` passages (:data:`SIZE_SCALING`; the
    MuSiQue figure when the size is unknown)."""
    base = DEFAULT_SECONDS.get(method, UNKNOWN_METHOD_S)
    if passages is None or method not in SIZE_SCALING:
        return base
    saturates, floor = SIZE_SCALING[method]
    return base * max(floor, min(1.0, passages / saturates))
#: Seconds outside the methods of the same run (10 questions × 8 methods on MuSiQue): the worker's start-up
#: (imports, models) 1.8 s, the report (intervals, summary, files) 0.7 s and the server reading it back ~1 s, and
#: scoring, diagnosing and writing each pair (1.1 s over 80 pairs).
DEFAULT_OVERHEAD = {"fixed": 2.0 + 1.0 + 1.0, "per pair": 0.015}
#: How many run folders are read, newest first.
RUNS_READ = 12
#: The LLMs whose answers take no LLM time: the defaults hold for them.
NO_LIVE_LLM = ("none", "recorded")
#: How much busier (1-minute load) the machine must be now than when a figure was measured before the estimate says
#: so: the load's own drift between two quiet minutes stays unsaid.
BUSIER_BY = 1.0


@dataclass(frozen=True)
class Estimate:
    """A run of ``questions`` × ``methods``: each method's seconds per question and where it came from
    (``sources``: a run name, or ``"measured default"``), and the seconds outside the methods."""

    questions: int
    methods: tuple[str, ...]
    per_question: Mapping[str, float]
    sources: Mapping[str, str]
    overhead: float
    overhead_source: str
    lower_bound: bool = False  #: a live LLM with no earlier run of it: its answers' time is not counted
    notes: tuple[str, ...] = field(default_factory=tuple)
    passages: int | None = None  #: the workspace's size the measured defaults were scaled to (None: not scaled)
    #: method → the machine's load while its figure was measured (None: a measured default, on a quiet machine)
    loads: Mapping[str, float | None] = field(default_factory=dict)
    overhead_load: float | None = None  #: the load while the overhead's run ran (None: a default or unknown)
    busy: bool = False  #: the machine is busier now than when the figures were measured (:meth:`under_load`)
    busy_top: float | None = None  #: then the range's top: the run's seconds at its fair share of the CPUs
    no_llm: bool = False  #: the measured defaults carry :data:`NO_LLM_ANSWER_S` for the extractive answer

    def under_load(self, load: float | None, cores: int) -> Estimate:
        """This estimate, for a run started now on a machine whose 1-minute load is ``load`` on ``cores`` CPUs, with
        a note when the machine is busy (more runnable work than CPUs) and busier than when its figures were
        measured (an earlier run's recorded load; the measured defaults: a quiet machine). The seconds stay as
        measured: no rule from the load alone predicted the slowdown here — 2 spinning processes beside a run at
        load 5.5 made it 3.5× slower for a load change of 0.5, since much of that load was low-priority work
        (``benchmarks/estimate_under_load.py``)."""
        if load is None or cores < 1 or load <= cores:
            return self
        then = [*(self.loads.get(m) for m in self.methods), self.overhead_load]
        known = [x for x in then if x is not None]
        was = max(known) if known and None not in then else 0.0
        if load - was < BUSIER_BY:
            return self
        measured = (f"these seconds were measured at load {was:.1f}" if None not in then
                    else "these seconds were measured on a quieter machine")
        # the range's top: the run's fair share of the CPUs beside the load's runnable work — an audit's first run
        # took 1.9× its estimate at load 5 on 2 cores (the note said only "may take longer"), inside 1×–3×
        share = max(1.0, (load + 1) / cores)
        note = (f"The machine is busy now (load {load:.1f} on {cores} cores; {measured}): other work shares the "
                f"CPU, so the run may take longer — up to about {duration(self.total * share)} ({share:.1f}×) if it "
                f"gets only its share of the {cores} cores, more beside CPU-heavy work.")
        return replace(self, notes=(*self.notes, note), busy=True, busy_top=self.total * share)

    @property
    def in_methods(self) -> float:
        return self.questions * sum(self.per_question.get(m, 0.0) for m in self.methods)

    @property
    def total(self) -> float:
        return self.in_methods + self.overhead

    def sentence(self, lead: str = "Estimate") -> str:
        """The estimate in words, with what it is based on; ``lead`` its first words ("Then the runs" after a
        headline that gave the run's whole time)."""
        runs = sorted({s for s in self.sources.values() if s != MEASURED})
        basis = []
        if runs:
            basis.append("earlier runs of this workspace and LLM (" + ", ".join(f"“{r}”" for r in runs) + ")")
        if MEASURED in self.sources.values():
            measured = [m for m in self.methods if self.sources.get(m) == MEASURED]
            scaled = [m for m in measured if m in SIZE_SCALING]
            basis.append(f"seconds measured on the MuSiQue sample (1,890 passages) for {', '.join(measured)}"
                         + (f", scaled to this workspace's {self.passages:,} passages for {', '.join(scaled)}"
                            if self.passages is not None and scaled and self.passages < 1890 else "")
                         + (f", with {NO_LLM_ANSWER_S:g} s each for the extractive answer (no LLM) and at least "
                            "what an 8-file corpus's first run took" if self.no_llm else ""))
        per = ", ".join(f"{m} {self.per_question.get(m, 0.0):.2g} s" for m in self.methods)
        head = "at least " if self.lower_bound else "about "
        # a busy machine's range in the headline: an audit read "about 1 min 7 s" and waited 3 min 7 s at load 5.5,
        # the "up to about 3 min 34 s" at the end of the line
        now = (f" on a quiet machine, up to about {duration(self.busy_top)} on this busy one"
               if self.busy_top is not None and self.busy_top > self.total else "")
        text = (f"{lead}: {head}{duration(self.total)}{now} — {self.questions} questions × {len(self.methods)} methods: "
                f"{duration(self.in_methods)} in the methods ({per} per question), plus about "
                f"{duration(self.overhead)} outside them ({self.overhead_source}). Based on {' and '.join(basis)}.")
        if self.lower_bound:
            text += " The LLM is live and no earlier run used it: its answers' time is not counted."
        return text + "".join(f" {n}" for n in self.notes)


MEASURED = "measured default"


def duration(seconds: float) -> str:
    """``seconds`` as "45 s" or "3 min 20 s" or "2 h 5 min"."""
    s = round(seconds)
    if s < 60:
        return f"{max(s, 1)} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {(s % 3600) // 60} min"


def earlier_runs(root: Path, workspace: str, llm: str
                 ) -> list[tuple[str, dict[str, float], dict[str, Any], dict[str, int]]]:
    """The newest runs under ``root`` of ``workspace`` and ``llm`` (the first word of its recorded name):
    ``(run name, method → mean seconds per question, timing, method → questions it ran)`` each, newest first."""
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if (p / "results.jsonl").is_file() and (p / "run.json").is_file()]
    found.sort(key=lambda p: (p / "results.jsonl").stat().st_mtime, reverse=True)
    out = []
    for p in found[:RUNS_READ]:
        try:
            settings = json.loads((p / "run.json").read_text(encoding="utf-8")).get("settings") or {}
        except (OSError, ValueError):
            continue
        ran_llm = str((settings.get("backends") or {}).get("llm") or "none").split(" ", 1)[0]
        if settings.get("workspace") != workspace or ran_llm != llm:
            continue
        secs, counts = _mean_seconds(p / "results.jsonl")
        out.append((p.name, secs, _read_timing(p / "timing.json"), counts))
    return out


def _mean_seconds(path: Path) -> tuple[dict[str, float], dict[str, int]]:
    """Method → mean ``seconds`` of its records that did not fail, and method → how many there are."""
    sums: dict[str, list[float]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}, {}
    for line in lines:
        try:
            r = json.loads(line)
        except ValueError:
            continue  # a torn last line
        if isinstance(r, dict) and not r.get("error") and r.get("method"):
            sums.setdefault(str(r["method"]), []).append(float(r.get("seconds") or 0.0))
    return {m: sum(v) / len(v) for m, v in sums.items() if v}, {m: len(v) for m, v in sums.items() if v}


def _read_timing(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def estimate_run(root: Path, workspace: str, llm: str, methods: Sequence[str], questions: int, *,
                 passages: int | None = None) -> Estimate:
    """The estimate of a run of ``methods`` on ``questions`` questions of ``workspace`` under ``llm`` (a registry
    name), from the earlier runs under ``root`` where they ran these methods, else the measured defaults scaled to
    the workspace's ``passages`` (:func:`default_seconds`; an audit's first estimate on a 14-passage workspace was
    4× its wall time)."""
    runs = earlier_runs(root, workspace, llm)
    per: dict[str, float] = {}
    sources: dict[str, str] = {}
    loads: dict[str, float | None] = {}
    for m in methods:
        # the newest of the runs that ran the method on the most questions (up to this run's): a method's first
        # question carries its models' loading, so a 3-question run's mean put an audit's 12-question estimate at
        # 2 min 18 s beside the 79 s its 12-question run had taken
        ran = [(min(counts.get(m, 0), questions), -k, name, secs[m], _load_of(t))
               for k, (name, secs, t, counts) in enumerate(runs) if m in secs]
        hit = max(ran)[2:] if ran else None
        if hit is not None:
            sources[m], per[m], loads[m] = hit
        else:
            sources[m], per[m], loads[m] = MEASURED, default_seconds(m, passages), None
            if llm == "none":  # the defaults are the recorded LLM's, whose answers cost nothing; never below a
                # small corpus's own first run (NO_LLM_FLOOR)
                per[m] = max(per[m] + NO_LLM_ANSWER_S, NO_LLM_FLOOR.get(m, 0.0))
    live_unknown = llm not in NO_LIVE_LLM and any(s == MEASURED for s in sources.values())
    pairs = questions * len(methods)
    timed = max(((min(int(t.get("pairs") or 0), pairs), -k, name, t) for k, (name, _, t, _c) in enumerate(runs)
                 if t.get("wall")), default=None)
    overhead_load = None
    if timed is not None:
        name, t = timed[2:]
        overhead_load = _load_of(t)
        n = max(int(t.get("pairs") or 0), 1)
        fixed = sum(float(t.get(k) or 0.0) for k in ("start-up", "set-up", "judge", "report"))
        overhead = fixed + float(t.get("between methods") or 0.0) / n * pairs
        source = f"start-up, set-up, scoring and the report, as in the run “{name}”"
    else:
        overhead = DEFAULT_OVERHEAD["fixed"] + DEFAULT_OVERHEAD["per pair"] * pairs
        source = "start-up, set-up, scoring and the report, measured on the MuSiQue sample"
    return Estimate(questions, tuple(methods), per, sources, overhead, source, lower_bound=live_unknown,
                    passages=passages, loads=loads, overhead_load=overhead_load, no_llm=llm == "none")


def _load_of(timing: Mapping[str, Any]) -> float | None:
    """The machine's load while a run's pairs ran (its ``timing.json``), or None for a run from before it was kept
    (read as measured on a quiet machine, as the defaults were)."""
    try:
        return float(timing["load"]) if timing.get("load") is not None else None
    except (TypeError, ValueError):
        return None


def pairs_done(out_dir: Path, methods: Sequence[str], question_ids: Sequence[str]) -> int:
    """How many of the (question, method) pairs a run of ``methods`` on ``question_ids`` would write into ``out_dir``
    are there already (a resumed run skips them): an audit's fully resumed benchmark said "about 40 s left" for
    88 of 88 pairs done and ended in 8 s. 0 for a new folder."""
    from core.eval.bench_files import RESULTS, read_records

    recs, _ = read_records(Path(out_dir) / RESULTS)
    wanted_m, wanted_q = set(methods), set(question_ids)
    return len({(r["question_id"], r["method"]) for r in recs
                if r["method"] in wanted_m and r["question_id"] in wanted_q})


def remaining_estimate(total: float, overhead: float, pairs: int, done: int) -> float:
    """A run's estimate ``total`` (its ``overhead`` outside the methods included) once ``done`` of its ``pairs``
    are already in the run folder: the methods' part shrinks with the pairs left, the fixed costs stay."""
    if pairs <= 0:
        return total
    left = max(pairs - done, 0) / pairs
    return overhead + (total - overhead) * left
