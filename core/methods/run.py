"""Running one method on one question: the one runner the CLI, the benchmark, recording, Ray and the app use.

:func:`run_method` prepares what the method needs in the workspace (:func:`prepare_method`: the vector
indexes, then the method's own :class:`~core.methods.base.Preparation`), seeds the generators, opens the
question's LLM scope and, with the ``recorded`` LLM, hands the run its recorded retrieval state. The app
runs :func:`pending_preparations` as background jobs with a progress bar first, so its runs only read.
"""

from __future__ import annotations

import importlib
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from core.methods.base import MethodConfig

if TYPE_CHECKING:
    from core.graph.builder import Progress
    from core.index.stages import StageTimes
    from core.index.workspace import Workspace
    from core.methods.base import Backends, Method, MethodResult, Preparation
    from core.pinning import StateTape


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and (when already imported) torch's generators."""
    random.seed(seed)
    np.random.seed(seed % (2**32))
    # Seed torch only when something already uses it (importing it costs seconds). It may be half
    # imported by another thread (a background build job): ``importlib.import_module`` waits on the
    # module's import lock until it is whole, where ``sys.modules["torch"]`` would hand over a partial
    # module without ``manual_seed`` (seen in the app: AttributeError on the first question).
    if "torch" in sys.modules:
        importlib.import_module("torch").manual_seed(seed)


@dataclass(frozen=True)
class PendingPreparation:
    """One thing to compute before a run: ``work(progress)`` does it."""

    key: str  #: the same for two runs that need the same preparation (one job serves both)
    title: str
    work: Callable[[Progress | None], Any]
    estimate_s: float | None = None  #: how long it is expected to take (None: not estimated)
    estimate_how: str = ""  #: what the estimate rests on, in a sentence


def pending_preparations(spec: Method[Any, Any], workspace: Workspace, backends: Backends,
                         config: MethodConfig | None = None) -> list[PendingPreparation]:
    """What must be computed before ``spec`` runs on ``workspace`` with ``backends`` (empty: nothing): the
    vector indexes for the embedder, then the method's own preparation when it declares one."""
    out: list[PendingPreparation] = []
    embedder = backends.embedder
    if workspace.index_problem(embedder) is not None:
        out.append(PendingPreparation(
            f"index:{workspace.path}:{embedder.model_id}", f"Building the vector indexes of “{workspace.title}”",
            lambda progress: workspace.ensure_index(embedder, progress=progress)))
    prep, cfg = spec.prepare, config if config is not None else spec.make_config()
    if prep is not None and (out or prep.needed(workspace, backends, cfg)):
        recheck = bool(out)  # with the indexes missing, whether it is needed is known only once they are built

        def work(progress: Progress | None, prep: Preparation = prep) -> None:
            if not recheck or prep.needed(workspace, backends, cfg):
                prep.run(workspace, backends, cfg, progress)

        seconds, how = (None, "")
        if prep.estimate is not None and not recheck:
            seconds, how = prep.estimate(workspace, backends, cfg)
        out.append(PendingPreparation(prep.key(workspace, backends, cfg), prep.title(workspace, backends, cfg), work,
                                      seconds, how))
    return out


def prepare_method(spec: Method[Any, Any], workspace: Workspace, backends: Backends,
                   config: MethodConfig | None = None, *, progress: Progress | None = None) -> None:
    """Compute :func:`pending_preparations` here, in order (stored in the workspace folder, so once)."""
    for p in pending_preparations(spec, workspace, backends, config):
        p.work(progress)


def prepare_workspace(workspace: Workspace, embedder: Any, methods: Sequence[str] | None = None, *,
                      progress: Callable[[str], Progress | None] | None = None,
                      overall: Progress | None = None, times: StageTimes | None = None,
                      configs: Mapping[str, MethodConfig] | None = None) -> list[str]:
    """Compute now, one after another, what ``methods`` (default: every registered method) would prepare
    before their first run on ``workspace`` with ``embedder``, each with its default settings or its config
    in ``configs`` (method name → config, e.g. FastInsight with ``node_vectors="lazy"``, which prepares
    nothing) — what ``egx index --prepare`` and ``egx samples build`` do, so no question (and no new process)
    waits on it.

    ``progress(title)`` gives the progress callback for one preparation (e.g. a terminal bar named after
    it). ``overall`` instead reports all of them on one bar, each preparation's share its estimated seconds
    (:class:`~core.index.stages.WeightedStages`; one without an estimate counts
    :data:`UNESTIMATED_PREPARATION_S`), so the bar says how much of the *time* is left, not how many
    preparations. ``times`` records each preparation's wall seconds (:class:`~core.index.stages.StageTimes`).
    Returns the titles of what was computed (empty: everything was ready).
    """
    from core.backends.registry import get_llm
    from core.index.stages import WeightedStages
    from core.methods.base import Backends as B
    from core.methods.registry import METHODS, get_method

    backends = B(embedder, get_llm("none"), None)  # preparations read the graph and the embedder only
    pending: list[PendingPreparation] = []
    seen: set[str] = set()
    for name in (list(methods) if methods is not None else list(METHODS)):
        for p in pending_preparations(get_method(name), workspace, backends, (configs or {}).get(name)):
            if p.key not in seen:
                seen.add(p.key)
                pending.append(p)
    bar = WeightedStages(overall, [(p.key, p.estimate_s) for p in pending], default_s=UNESTIMATED_PREPARATION_S) \
        if overall is not None else None
    done: list[str] = []
    for k, p in enumerate(pending, 1):
        label = f"{k}/{len(pending)} {p.title.split(' (')[0]}"  # the bar's message: what runs, not whose workspace
        cb = bar.stage(p.key, label) if bar is not None else (progress(p.title) if progress is not None else None)
        t0 = time.perf_counter()
        p.work(cb)
        if times is not None:
            times.add(p.title, time.perf_counter() - t0)
        done.append(p.title)
    if bar is not None and overall is not None and pending:
        overall(f"Prepared {len(done)}", 1.0)
    return done


#: Seconds a preparation without an estimate counts on :func:`prepare_workspace`'s one bar. The one that has
#: none is SG-RAG's dominance model, whose training took 19 s on 100k triples and 74 s on 272k (2 cores,
#: benchmarks/README.md "SG-RAG"): a corpus-scale KG of tens of thousands of edges is of that order.
UNESTIMATED_PREPARATION_S = 30.0


def scoped_backends(backends: Backends, workspace: str, method: str | None = None,
                    question: str | None = None) -> Backends:
    """``backends`` with the ``recorded`` LLM narrowed to the recordings of ``workspace``
    (:meth:`~core.backends.llm_recorded.RecordedLLM.for_workspace`; any other LLM is kept), and, given ``method``
    and ``question``, to a question they hold a run of (:meth:`~core.backends.llm_recorded.RecordedLLM.for_question`):
    where they hold none it is not available, so the run is the ``none`` run, its reranker kept for the
    extractive answer (:func:`backends_for`). Call it before :func:`backends_for`, as :func:`run_method` does."""
    scope: Callable[[str], Any] | None = getattr(backends.llm, "for_workspace", None)  # recorded LLM
    if scope is None:
        return backends
    llm = scope(workspace)
    if method is not None and question is not None:
        llm = llm.for_question(workspace, method, question)
    return replace(backends, llm=llm)


def backends_for(method: str, backends: Backends) -> Backends:
    """``backends`` with the reranker dropped for methods that do not rerank — unless answers are
    extractive (no LLM): the extractive answer scores sentences with it (:mod:`core.methods.extractive`)."""
    from core.methods.base import Backends as B
    from core.methods.registry import get_method

    spec = get_method(method)
    keep = spec.needs_reranker or not backends.llm.available
    return B(backends.embedder, backends.llm, backends.reranker if keep else None)


def run_method(method: str, query: str, workspace: Workspace, backends: Backends, *, config: object | None = None,
               seed: int = 0, tape: StateTape | None = None, in_scope: bool = False) -> MethodResult:
    """Run one registered method on one question with seeded generators, inside one question's
    LLM scope (its budget and circuit breaker: :func:`core.backends.llm_guard.question_scope`).

    With the ``recorded`` LLM, the recorded run of this question and these settings (if any) hands
    its retrieval state back to the run (:mod:`core.pinning`), so it replays the same on any hardware,
    and ``result.trace.replay`` says how completely it replayed. ``tape`` (a ``record`` tape) keeps
    the run's retrieval state instead (:func:`core.batch.recording.record`). ``in_scope``: the caller has opened
    the question's LLM scope itself (to read its summary afterwards), so no second one is opened."""
    from core.backends.llm_guard import question_scope
    from core.methods.registry import get_method
    from core.pinning import replay_status, tape_scope

    spec = get_method(method)
    scope = getattr(backends.llm, "for_workspace", None)  # recorded LLM
    # it replays this workspace's recordings only, and a question they hold no run of is a none run
    backends = scoped_backends(backends, workspace.name, spec.name, query)
    own = backends_for(method, backends)
    # a run itself never writes: what it needs is made first
    prepare_method(spec, workspace, own, config if isinstance(config, MethodConfig) else None)
    label = ""
    find: Callable[..., tuple[StateTape, str] | None] | None = getattr(backends.llm, "tape_for", None)  # recorded LLM
    replaying = tape is None and find is not None and backends.llm.available  # a none run is no replay
    if find is not None and replaying:
        cfg: Any = config if config is not None else spec.make_config()
        found = find(workspace.name, spec.name, query, cfg.to_dict(), own.names())
        tape, label = found if found is not None else (None, "")
    seed_everything(seed)
    with (nullcontext() if in_scope else question_scope(backends.llm)), tape_scope(tape):
        result = spec.run(query, workspace, config=config, backends=own)
    if replaying:
        result.trace.replay = replay_status(result.trace, tape, label).to_dict()
    if scope is not None and not _llm_answered(result.trace):
        holds: Callable[[str], bool] = getattr(backends.llm, "holds_workspace", lambda _w: True)
        result.trace.backends["llm"] = unanswered_llm(str(getattr(backends.llm, "model_id", "?")),
                                                      workspace=not holds(workspace.name))
    return result


def _llm_answered(trace: Any) -> bool:
    """Whether any LLM reply reached the run: tokens counted, or a reply from the cache or a recording."""
    return bool(trace.tokens) or any(sum(s.llm_cache.values()) for s in trace.steps)


def unanswered_llm(model_id: str, *, workspace: bool) -> str:
    """The trace's ``llm`` provenance when the recorded LLM (``model_id``) answered nothing: every LLM stage took
    its fallback, so "recorded (…)" would name a model that wrote none of it. ``workspace``: it holds no run of
    the workspace at all (else: none of this question)."""
    what = "this workspace" if workspace else "this question"
    return f"{UNANSWERED_PREFIX} ({model_id}) holds no run of {what}"


#: how :func:`unanswered_llm` begins: a run the recorded LLM answered nothing of (:func:`is_unanswered`)
UNANSWERED_PREFIX = "none — the recorded LLM"


def is_unanswered(trace: Any) -> bool:
    """Whether ``trace`` is a run with the ``recorded`` LLM that it answered nothing of (a workspace or question
    the recordings hold no run of: :func:`unanswered_llm`), i.e. a ``none`` run, said before it started — not a
    replay whose recorded replies all missed (that says "Not a recorded run" or "Partly replayed" itself)."""
    label = str((getattr(trace, "backends", None) or {}).get("llm", ""))
    return label.startswith(UNANSWERED_PREFIX) and not getattr(trace, "replay", None)


