"""What a benchmark run is asked to do, in one typed, frozen value (:class:`BenchPlan`).

A front end (``egx bench``, the Benchmark page, an ablation row) opens the workspace, loads the questions, builds
the backends and settles every setting first; :func:`core.eval.runner.run_plan` then takes the plan alone. So
the run reads its inputs from one place, and never reaches back to the command line or re-opens the workspace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.eval.judge_choice import Judge
    from core.eval.pair import PairRunner
    from core.index.questions import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends


@dataclass(frozen=True)
class BenchPlan:
    """One benchmark run: what it runs, on what, and where its files go.

    ``workspace`` is opened and indexed with ``backends.embedder`` before the plan is made. ``configs`` are the
    methods' final configs (the ``--set`` changes and the answer budget applied; a method absent runs its paper
    defaults). ``meta`` holds the extra settings ``run.json`` pins (the questions file, the budget, the config
    changes), checked on resume. The other fields are :func:`core.eval.runner.run_benchmark`'s parameters."""

    workspace: Workspace
    questions: tuple[Question, ...]
    methods: tuple[str, ...]
    backends: Backends
    out_dir: Path
    configs: Mapping[str, object] = field(default_factory=dict)
    cut: int = 5
    limit: int | None = None
    seed: int | None = None
    judge: Judge | None = None
    runner: PairRunner | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    save_traces: bool = False
    write_outputs: bool = True
    restart: bool = False
    resume_unverified: bool = False
    keep_trained: bool = False
    started: float | None = None  #: when the front end began (epoch s): its start-up counts in the run's timing

    @property
    def generator_seed(self) -> int:
        """The seed every method call is seeded with (0 when the run has none)."""
        return 0 if self.seed is None else int(self.seed)
