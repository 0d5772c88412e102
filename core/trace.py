"""Step / Trace: what every method records so the UI can replay it and exports can reload it.

A :class:`Trace` is a flat list of :class:`Step` records in execution order. Each step names its
stage (e.g. ``"anchor_grouping"``), carries a JSON-ready ``data`` payload with the intermediates
the UI draws, its wall time and LLM token counts, and whether it was a *fallback* (so fallbacks are
always visible, never only in a log line).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np

from core.background.jobs import current_job
from core.errors import InputFormatError

TRACE_FORMAT = "egx-trace"
TRACE_VERSION = 1


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, tuples, sets and dataclasses into plain JSON values."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if hasattr(obj, "__dataclass_fields__"):
        return to_jsonable(asdict(obj))
    if isinstance(obj, float) and not np.isfinite(obj):
        return None if np.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


S = TypeVar("S", bound="StageData")

#: every typed stage by stage name, filled as the modules that define them are imported (a stage name several
#: methods write, e.g. "answer", may have more than one type); a test checks that each stage a view reads has one
STAGE_TYPES: dict[str, list[type[StageData]]] = {}


@dataclass(frozen=True)
class StageData:
    """A stage's result as a typed value: subclasses are frozen dataclasses whose fields are the keys the
    stage's step records, with :attr:`STAGE` its stage name.

    A method records one with ``trace.add(stage, title, value)`` (or ``step.data = value.data()``); a page
    reads it with ``Type.of(trace)`` and then by attribute, so renaming a field is a type error in the
    page, not a silent ``KeyError`` at run time. Traces stay plain JSON (the fields' values), so an
    exported trace loads back: a field an older trace lacks takes its default.
    """

    STAGE: ClassVar[str] = ""
    #: fields whose None is a value the step records (e.g. a threshold that is off): written as null, not left out,
    #: and read as None where a trace lacks them (one written while they were left out)
    KEEP_NONE: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.__dict__.get("STAGE"):  # a stage's own type (not a shared base such as StepNotes)
            STAGE_TYPES.setdefault(cls.STAGE, []).append(cls)

    def data(self) -> dict[str, Any]:
        """The JSON-ready step data: every field by name, except those that are None (optional facts this
        run did not have, e.g. a store's read counts in memory) and not in :attr:`KEEP_NONE`."""
        return to_jsonable({f.name: v for f in fields(self)
                            if (v := getattr(self, f.name)) is not None or f.name in self.KEEP_NONE})

    @classmethod
    def from_data(cls: type[S], data: Mapping[str, Any], *, source: str = "trace") -> S:
        """The typed value of a step's data; keys it does not know are ignored (a newer trace)."""
        kw: dict[str, Any] = {}
        for f in fields(cls):
            if f.name in data:
                kw[f.name] = data[f.name]
            elif f.name in cls.KEEP_NONE:
                kw[f.name] = None
            elif f.default is MISSING and f.default_factory is MISSING:
                raise InputFormatError(source, f"the {cls.STAGE!r} step has no {f.name!r}",
                                       "a trace written by this version of egx")
        return cls(**kw)

    @classmethod
    def of(cls: type[S], trace: Trace, *, last: bool = False) -> S | None:
        """The first (``last``: the last) step of :attr:`STAGE` in ``trace`` as this type; None when the run
        had no such step (e.g. an early exit)."""
        steps = trace.stage(cls.STAGE)
        return cls.from_data(steps[-1 if last else 0].data, source=f"{trace.method} trace") if steps else None


@dataclass(frozen=True, kw_only=True)
class StepNotes(StageData):
    """The notes any step may carry for every view beside its stage's own data, read by name from whichever step
    has them (so a shared view reads them without importing the method that wrote them): a notice every view
    shows (``notice``, ``notice_app`` in the app's words, ``more_notices``), a caption not worth a warning
    (``quiet_notes``), the fallback in the app's words (``fallback_app``: no command line, no folder) and what
    the stage could not express (``limitation``). A stage's type that carries them subclasses this one, so they
    come first in its step, as they are written first."""

    fallback_app: str | None = None
    notice: str | None = None
    notice_app: str | None = None
    more_notices: list[str] | None = None
    quiet_notes: list[str] | None = None
    limitation: str | None = None


@dataclass
class Step:
    """One recorded stage of a method run."""

    stage: str
    title: str
    data: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fallback: str = ""  #: non-empty when the stage took its documented fallback, saying why
    section: str = ""  #: the paper section implemented, e.g. "BubbleRAG §3.3"
    #: True when every LLM reply of this step came from the LLM cache or a recording (no LLM time),
    #: False when at least one was generated now, None when the step got no LLM reply
    cached: bool | None = None
    llm_cache: dict[str, int] = field(default_factory=dict)  #: {"hits": h, "misses": m} over the step's LLM replies
    #: JSON calls of this step: {"calls": c, "rejected": replies the parser or the stage's validation rejected
    #: (each asked again), "first_unusable": calls whose first reply was not usable JSON as it came}
    llm_json: dict[str, int] = field(default_factory=dict)

    @property
    def notes(self) -> StepNotes:
        """The notes this step carries for every view (:class:`StepNotes`), whatever its stage."""
        return StepNotes.from_data(self.data if isinstance(self.data, dict) else {}, source=f"{self.stage} step")

    def note_cache(self, hit: bool) -> None:
        """Count one LLM reply of this step as a cache hit or miss."""
        self.llm_cache["hits" if hit else "misses"] = self.llm_cache.get("hits" if hit else "misses", 0) + 1
        self.cached = not self.llm_cache.get("misses", 0)


@dataclass
class Trace:
    """Everything one method did for one question."""

    method: str
    query: str
    workspace: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    backends: dict[str, str] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    #: with the ``recorded`` LLM: how completely the run replayed its recording
    #: (:class:`core.pinning.ReplayStatus`); empty for any other LLM
    replay: dict[str, Any] = field(default_factory=dict)

    def record(self, step: Step, *, check: bool = True) -> Step:
        """The one way a step enters the trace: append ``step`` (its data made JSON-ready, a :class:`StageData`
        value turned into its fields), count the stage for the run's job, and stop here when that job was
        cancelled (``check=False``: only while an exception already unwinds the stage). :meth:`add` and
        :meth:`timed` are built on it; a stage that times itself builds a :class:`Step` and records it here."""
        step.data = step.data.data() if isinstance(step.data, StageData) else to_jsonable(step.data)
        self.steps.append(step)
        job = current_job()
        if job is not None:  # a stage finished: count it, and stop here when the run was cancelled
            job.count(stages_done=1)
            if check:
                job.check()
        return step

    def add(self, stage: str, title: str, data: dict[str, Any] | StageData | None = None, **kw: Any) -> Step:
        """Record a finished step; ``data`` is a plain dict or the stage's typed :class:`StageData`."""
        return self.record(Step(stage, title, data.data() if isinstance(data, StageData) else dict(data or {}), **kw))

    @contextmanager
    def timed(self, stage: str, title: str, *, section: str = "") -> Iterator[Step]:
        """Record a step and its wall time: ``with trace.timed("x", "X") as step: step.data[...] = ...`` (a typed
        stage: ``step.data = SomeStageData(...).data()``)."""
        step = Step(stage, title, {}, section=section)
        job = current_job()
        if job is not None:  # a run in the app's background: say which stage runs, stop if cancelled
            job.report(stage=title)
        t0 = time.perf_counter()
        failed = True
        try:
            yield step
            failed = False
        finally:
            step.seconds = time.perf_counter() - t0
            self.record(step, check=not failed)

    def stage(self, stage: str) -> list[Step]:
        return [s for s in self.steps if s.stage == stage]

    def fallback(self, stage: str) -> str:
        """The documented fallback the first step of ``stage`` took ("" when it took none or did not run)."""
        return next((s.fallback for s in self.steps if s.stage == stage), "")

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.steps)

    @property
    def tokens(self) -> int:
        return sum(s.prompt_tokens + s.completion_tokens for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {"format": TRACE_FORMAT, "version": TRACE_VERSION, **to_jsonable(asdict(self))}

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kw)

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, source: str = "trace") -> Trace:
        if not isinstance(d, dict) or d.get("format") != TRACE_FORMAT:
            raise InputFormatError(source, "this is not an egx trace", f'a JSON object with "format": "{TRACE_FORMAT}"')
        try:
            steps = [Step(**s) for s in d.get("steps", [])]
            replay = d.get("replay") or {}
            return cls(d["method"], d["query"], d.get("workspace", ""), d.get("config", {}),
                       d.get("backends", {}), steps, replay if isinstance(replay, dict) else {})
        except (KeyError, TypeError) as exc:
            raise InputFormatError(source, f"a trace field is missing or unexpected ({exc})",
                                   "a trace exported by egx") from None

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        from core.graph.formats.jsonio import parse_json
        from core.graph.formats.textio import read_text

        p = Path(path)
        return cls.from_dict(parse_json(read_text(p), p.name, expected="a trace exported by egx"), source=p.name)
