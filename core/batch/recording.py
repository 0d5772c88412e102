"""Record real-LLM runs of the sample questions into a shipped bundle, replayed without an LLM.

``egx record`` (``make record-llm``) runs each question × method with a live LLM (by default the
local Qwen2.5-Coder-1.5B-Instruct Q4_K_M), journals every LLM request and its outcome
(:class:`core.backends.llm_bundles.Recorder`) and merges them, with the run's answer and seconds per
stage, into a recording bundle (:func:`core.backends.llm_bundles.save_recording`). The ``recorded``
LLM backend then replays those runs instantly, with no model. A run is saved as soon as it
finishes, atomically, so a kill loses at most the run in progress, and running the same command
again resumes with the next question × method (``--redo`` records again). The LLM response cache is
used too, so a resumed run that was killed mid-question re-asks nothing it already got.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.backends.llm_bundles import Recorder, load_recording, save_recording
from core.backends.llm_cache import CachedLLM
from core.backends.llm_guard import LLMSettings, question_scope
from core.errors import ConfigError
from core.pinning import NOT_RECORDED, StateTape

#: Methods recorded by default: the three with LLM stages of their own (answers of the others are
#: a single LLM call each; name them with ``--methods``).
DEFAULT_METHODS = ("bubblerag", "sgrag", "reg")

#: What a wall-clock anytime budget is set to while recording (see :func:`record`).
UNBOUNDED_S = 86_400.0


@dataclass(frozen=True)
class RecordedRun:
    workspace: str
    method: str
    question: str
    seconds: float
    skipped: bool  #: already in the bundle, or left out (``trained_on``)
    trained_on: bool = False  #: the method's trained model learned from this question: left out, or kept and flagged


def state_source(how: str) -> dict[str, str]:
    """Where a run's retrieval state (:mod:`core.pinning`) was taken: how, on what machine, when."""
    return {"how": how, "machine": _machine(), "date": _dt.date.today().isoformat()}


def _machine() -> str:
    """``x86_64, 2 CPU core(s), Linux, AVX-512`` -- the kernels a CPU picks set the last digits of its scores."""
    flags = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("flags"):
                    have = set(line.split(":", 1)[1].split())
                    flags = ", AVX-512 VNNI" if "avx512_vnni" in have else ", AVX-512" if "avx512f" in have \
                        else ", AVX2" if "avx2" in have else ""
                    break
    except OSError:
        pass
    return f"{platform.machine()}, {len(os.sched_getaffinity(0))} CPU core(s), {platform.system()}{flags}"


def provenance(llm: Any, *, embedder: str, reranker: str, settings: LLMSettings) -> dict[str, Any]:
    """Model, quantization, file hash, llama.cpp build and settings: what a reader of a recording must know."""
    inner = llm
    while "inner" in getattr(inner, "__dict__", {}):
        inner = inner.__dict__["inner"]
    out: dict[str, Any] = {"model_id": llm.model_id, "model_key": llm.model_key, "backend": llm.name,
                           "embedder": embedder, "reranker": reranker, "temperature": 0.0,
                           "llm_settings": {"timeout_s": settings.timeout, "retries": settings.retries,
                                            "budget_s": settings.budget},
                           "machine": _machine(),
                           "date": _dt.date.today().isoformat()}
    size = getattr(inner, "size", None)
    if llm.model_id.startswith("llama.cpp:") and size is not None and getattr(inner, "model_path", None) is None:
        from core.backends.gguf import MODELS

        spec = MODELS[size]
        name, _, quant = spec.title.rpartition(" ")
        out.update(model=name, quantization=quant, gguf_sha256=spec.sha256, gguf_file=spec.filename,
                   n_ctx=getattr(inner, "n_ctx", None), n_threads=getattr(inner, "n_threads", None),
                   seed=getattr(inner, "seed", None))
        try:
            import llama_cpp

            out["llama_cpp_python"] = getattr(llama_cpp, "__version__", "?")
        except ImportError:
            pass
    else:
        out.update(model=getattr(inner, "model", llm.model_id), quantization="(server side)")
    return out


def record(workspace: Any, questions: Sequence[Any], methods: Sequence[str], backends: Any, out: str | Path, *,
           settings: LLMSettings, embedder_name: str, reranker_name: str, redo: bool = False,
           config_changes: dict[str, Any] | None = None,
           progress: Callable[[int, int, str], None] | None = None, keep_trained: bool = False,
           budget: str | None = None, reuse: Sequence[str | Path] = ()) -> list[RecordedRun]:
    """Record ``methods`` on ``questions`` with the live LLM of ``backends`` into the bundle ``out``.

    Parameters
    ----------
    workspace : Workspace
    questions : sequence of Question
    methods : sequence of str
        Registry names (default :data:`DEFAULT_METHODS`).
    backends : Backends
        Its ``llm`` must be a live :class:`~core.backends.llm_cache.CachedLLM` (``local``,
        ``local-small`` or ``openai``), not ``none`` or ``recorded``.
    out : path
        The bundle (created, or merged into).
    redo : bool
        Record runs already in the bundle again (default: skip them, i.e. resume).
    config_changes : dict or None
        Method settings to change (each applied to the methods that have it). Whatever is given,
        a wall-clock anytime budget (BubbleRAG's ``time_budget_s``) is lifted to
        :data:`UNBOUNDED_S`: a live run cut short by it asks fewer LLM calls than the instant
        replay would, so the replay would ask for hops that were never recorded. The recorded run
        is the full expansion (the paper's behaviour); replayed at the default budget, it is never cut.
    keep_trained : bool
        Record a method on a question its trained model was trained or validated on (``Method.trained_on``:
        ReG's retriever split), the run flagged ``"trained_on": true`` in the bundle. Default: such a pair is
        left out (``RecordedRun.trained_on``), since a recording shown as the method's behaviour would show it
        on a question it learned from.
    budget : str or None
        A comparison's answer budget (:func:`core.methods.budget.parse_budget`; None or ``own``: each method's
        own default), mapped onto each method's config as Compare and the Benchmark map it, so the replay of a
        comparison under that budget finds these runs. Record a budget into its own bundle (``--out``): a
        bundle keeps one run per question x method.
    reuse : sequence of path
        Bundles whose replies to the same model answer the requests they hold
        (:func:`core.batch.recording_reuse.reuse_recorded`), so a recording under a new budget asks the model only
        for what the budget changed. A run's ``seconds`` then
        counts each reused reply at its recorded live time (``reused_s`` says how much), so what a run is said
        to take live stays true.

    Returns
    -------
    list of RecordedRun

    Raises
    ------
    ConfigError
        If the LLM is not a live one, or ``out`` records another model.
    """
    from core.batch.recording_reuse import reuse_recorded, reused_stage_seconds
    from core.methods.budget import apply_budget
    from core.methods.registry import get_method
    from core.methods.run import run_method

    changes = dict(config_changes or {})

    llm = backends.llm
    if not isinstance(llm, CachedLLM):
        raise ConfigError(f"egx record needs a live LLM ('local', 'local-small' or 'openai'), not {llm.name!r}.")
    specs = [get_method(m) for m in methods]
    out = Path(out)
    done: set[tuple[str, str, str]] = set()
    if out.exists() and not redo:
        rec = load_recording(out)
        done = {(str(r.get("workspace")), str(r.get("method")), str(r.get("question"))) for r in rec.runs}
    prov = provenance(llm, embedder=embedder_name, reranker=reranker_name, settings=settings)
    reused_keys = reuse_recorded(llm, reuse) if reuse else set()
    earlier = {(str(r.get("workspace")), str(r.get("method")), str(r.get("question"))): r
               for path in reuse for r in load_recording(path).runs}
    results: list[RecordedRun] = []
    seen_by: dict[str, frozenset[str]] = {}
    total = len(questions) * len(specs)
    i = 0
    for q in questions:
        for spec in specs:
            i += 1
            key = (workspace.name, spec.name, q.question)
            if key in done:
                results.append(RecordedRun(*key, 0.0, True))
                continue
            if progress is not None:
                progress(i - 1, total, f"{spec.name}: {q.question[:40]}")
            own = {k: v for k, v in changes.items() if spec.has_option(k)}
            if spec.has_option("time_budget_s"):
                own["time_budget_s"] = UNBOUNDED_S
            config = apply_budget(spec, spec.make_config(**own) if own else None, budget)
            if spec.name not in seen_by:  # the questions its trained model learned from, read once per method
                seen_by[spec.name] = (frozenset() if spec.trained_on is None
                                      else spec.trained_on(workspace, backends, config or spec.make_config()))
            trained = q.id in seen_by[spec.name]
            if trained and not keep_trained:
                results.append(RecordedRun(*key, 0.0, True, trained_on=True))
                continue
            recorder = Recorder()
            llm.recorder = recorder
            tape = StateTape("record")  # the retrieval state every decision read: the replay reads it back
            t0 = time.perf_counter()
            try:
                with question_scope(llm) as scope:
                    result = run_method(spec.name, q.question, workspace, backends, config=config, tape=tape,
                                        in_scope=True)
            finally:
                llm.recorder = None
            trace = result.trace
            entries = recorder.take()
            reused_s = sum(float(entries[k].get("latency_s") or 0.0) for k in entries if k in reused_keys)
            seconds = time.perf_counter() - t0 + reused_s
            run = {"workspace": workspace.name, "method": spec.name, "question": q.question, "question_id": q.id,
                   "gold_answer": q.answer, "answer": str(getattr(result, "answer", "") or ""),
                   "seconds": round(seconds, 2), "llm": scope.summary(), "config": trace.config,
                   "backends": trace.backends, "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                   "stages": [{"stage": s.stage, "title": s.title, "seconds": round(s.seconds, 3),
                               "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens,
                               "cached": s.cached, "fallback": s.fallback} for s in trace.steps],
                   "state": tape.entries, "state_source": state_source("recorded live")}
            if reused_s:
                run["reused_s"] = round(reused_s, 2)
                run["stages"] = reused_stage_seconds(run["stages"], earlier.get(key))
            if trained:  # kept on request: the method's model learned from this question
                run["trained_on"] = True
            save_recording(out, prov, run, entries)
            results.append(RecordedRun(*key, seconds, False, trained_on=trained))
    if progress is not None:
        progress(total, total, "done")
    return results


@dataclass(frozen=True)
class ReplayCheck:
    """One recorded run, run again with the ``recorded`` LLM: what it could not replay, and whether the
    answer is the recorded one."""

    workspace: str
    method: str
    question: str
    misses: tuple[str, ...]  #: stages whose LLM request is not in the bundle (the prompt changed)
    answer: str
    recorded_answer: str
    state_misses: tuple[str, ...] = ()  #: pins whose retrieval state is not on the run's tape
    error: str = ""  #: a strict replay's first miss (or another error the run raised)
    question_id: str = ""

    @property
    def ok(self) -> bool:
        return not (self.misses or self.state_misses or self.error) and \
            self.answer.strip() == self.recorded_answer.strip()

    def problem(self) -> str:
        """What went wrong, in one line ("" when the run replays)."""
        if self.error:
            return self.error
        if self.misses or self.state_misses:
            return "not replayed: " + ", ".join((*self.misses, *self.state_misses))
        if not self.ok:
            return f"other answer: {self.answer[:60]!r} (recorded {self.recorded_answer[:60]!r})"
        return ""


def check_replay(bundle: str | Path, open_workspace: Callable[[str, Any], Any], *,
                 workspaces: Sequence[str] | None = None, methods: Sequence[str] | None = None,
                 strict: bool = True, wrap: Callable[[Any], Any] | None = None,
                 retape: bool = False, used: set[str] | None = None) -> list[ReplayCheck]:
    """Replay every run of ``bundle`` (optionally only those of ``workspaces`` / ``methods``) with the
    ``recorded`` LLM on the embedder and reranker its provenance names, at the methods' defaults (under the
    comparison budget the run was recorded at, :func:`core.methods.budget.apply_budget`).

    A run that now asks something the bundle does not hold (a prompt, a retrieval result or a method
    default changed since it was recorded) shows what the app's "recorded LLM run" would fall back on:
    re-record it (``egx record --redo``). ``open_workspace(name, embedder)`` opens a workspace by the
    name the bundle records (the CLI resolves samples; the tests pass their cached samples).

    Parameters
    ----------
    strict : bool
        Stop each run at its first miss (:class:`~core.pinning.ReplayMissError`, in ``error``); False
        lets the run go on with its fallbacks and lists every miss.
    wrap : callable or None
        ``wrap(backends) -> backends``: e.g. models whose scores are perturbed, standing in for another
        CPU (``tests/backends/test_replay_portable.py``).
    retape : bool
        Keep the retrieval state each run reads now (a ``record`` tape), and write it into the bundle for
        every run that replays in full with its recorded answer (:func:`retape`). For a bundle recorded
        before runs kept their state: the prompts matched, so this state rebuilds every one of them.
    used : set or None
        Filled with the keys of the bundle's entries the replayed runs were answered from
        (the prune of ``scripts/check_recordings.py`` drops the others).
    """
    from core.backends.llm_recorded import RecordedLLM
    from core.backends.registry import get_embedder, get_reranker
    from core.methods.base import Backends
    from core.methods.budget import apply_budget
    from core.methods.registry import get_method
    from core.methods.run import run_method
    from core.pinning import ReplayMissError

    rec = load_recording(bundle)
    names = {k: str(rec.provenance.get(k) or "") for k in ("embedder", "reranker")}
    if not all(names.values()):  # replay with the models the recording names, never a default
        raise ConfigError(f"{Path(bundle).name} does not name its {' and '.join(k for k, v in names.items() if not v)} "
                          "in its provenance; re-record it with `egx record`.")
    emb = get_embedder(names["embedder"])
    llm = RecordedLLM([bundle], strict=strict and not retape)
    rr = get_reranker(names["reranker"], embedder=emb, llm=llm)
    backends = Backends(emb, llm, rr)
    if wrap is not None:
        backends = wrap(backends)
    opened: dict[str, Any] = {}
    out: list[ReplayCheck] = []
    tapes: dict[tuple[str, str, str], dict[str, str]] = {}
    for run in rec.runs:
        name = str(run.get("workspace"))
        if (workspaces is not None and name not in workspaces) or (methods is not None and run["method"] not in methods):
            continue
        if name not in opened:
            opened[name] = open_workspace(name, backends.embedder)
        ident = (name, str(run["method"]), str(run["question"]))
        tape = StateTape("record") if retape else None
        # the defaults under the comparison budget the run was recorded at (own: the defaults themselves)
        config = apply_budget(get_method(ident[1]), None, str((run.get("config") or {}).get("answer_budget") or "own"))
        try:
            r = run_method(ident[1], ident[2], opened[name], backends, config=config, tape=tape)
        except ReplayMissError as exc:
            out.append(ReplayCheck(*ident, (), "", str(run.get("answer") or ""), error=str(exc),
                                   question_id=str(run.get("question_id", ""))))
            continue
        status = r.trace.replay or {}
        misses = tuple(s.stage for s in r.trace.steps if NOT_RECORDED in (s.fallback or ""))
        check = ReplayCheck(*ident, misses, r.answer or "", str(run.get("answer") or ""),
                            tuple(status.get("missed_state", ())),
                            "" if retape or status.get("matched") else "no recorded run matches this run's settings",
                            str(run.get("question_id", "")))
        out.append(check)
        if retape and tape is not None and check.ok:
            tapes[ident] = tape.entries
    if retape and tapes:
        _write_tapes(Path(bundle), tapes)
    if used is not None:
        used.update(key for path, key in llm.used if Path(path).resolve() == Path(bundle).resolve())
    return out


def retape(bundle: str | Path, open_workspace: Callable[[str, Any], Any], *,
           workspaces: Sequence[str] | None = None, methods: Sequence[str] | None = None) -> list[ReplayCheck]:
    """Give the runs of a bundle recorded before runs kept their retrieval state (:mod:`core.pinning`)
    the state this machine computes, wherever it rebuilds every recorded prompt and the recorded answer.

    Each run is replayed with a ``record`` tape; a run whose every LLM request was in the bundle (so each
    prompt was rebuilt byte for byte from this machine's scores) and whose answer is the recorded one gets
    that state, written atomically into the bundle. A run that does not replay here (a near-tie this CPU
    orders the other way) keeps none and is listed: re-record it with a live LLM.
    """
    return check_replay(bundle, open_workspace, workspaces=workspaces, methods=methods, strict=False, retape=True)


def _write_tapes(path: Path, tapes: dict[tuple[str, str, str], dict[str, str]]) -> None:
    import json

    from core.backends.llm_bundles import write_bundle
    from core.fsio import path_lock

    src = state_source("re-taped: replayed with every recorded prompt and the recorded answer")
    with path_lock(path):
        data = json.loads(path.read_text(encoding="utf-8"))
        for run in data.get("runs", []):
            ident = (str(run.get("workspace")), str(run.get("method")), str(run.get("question")))
            if ident in tapes:
                run["state"] = tapes[ident]
                run["state_source"] = src
        write_bundle(path, data)


# ------------------------------------------------------------------ recorded time beside the replay's
@dataclass(frozen=True)
class StageTime:
    """One stage of a replayed run: the seconds it took in the recorded live run and in this replay."""

    stage: str
    title: str
    replay_s: float  #: this replay's seconds (no LLM: the replies come from the recording)
    recorded_s: float | None  #: the live run's seconds, as the recording stores them (None: not recorded)
    prompt_tokens: int = 0  #: of the live run's LLM calls in this stage
    completion_tokens: int = 0
    cached: bool = False  #: the recording answered this stage from the LLM cache (an earlier run's reply): no live time

    @property
    def llm(self) -> bool:
        """The live run asked the LLM in this stage (its recorded tokens; a call that failed counts none)."""
        return self.prompt_tokens + self.completion_tokens > 0


def stage_times(run: dict[str, Any], trace: Any) -> tuple[StageTime, ...]:
    """Pair the stages of a replayed ``trace`` with the stages of its recorded ``run`` (a bundle's run
    record, whose ``stages`` list each stage's seconds and tokens as measured live by :func:`record`).

    A stage is matched by its name and occurrence (the second ``reasoning`` step with the second one),
    never by position, so a replay that skipped a stage does not shift the rest.

    Parameters
    ----------
    run : dict
        A run of a recording bundle (:attr:`core.backends.llm_bundles.Recording.runs`).
    trace : Trace
        The replay's trace.

    Returns
    -------
    tuple of StageTime
        One per step of ``trace``, in its order; ``recorded_s`` is None for a step the run did not record.

    Examples
    --------
    >>> from core.trace import Trace
    >>> t = Trace("bubblerag", "q"); _ = t.add("keywords", "Keywords", seconds=0.01)
    >>> stage_times({"stages": [{"stage": "keywords", "seconds": 8.5, "prompt_tokens": 487}]}, t)[0].recorded_s
    8.5
    """
    recorded: dict[tuple[str, int], dict[str, Any]] = {}
    seen: dict[str, int] = {}
    for s in run.get("stages") or ():
        if not isinstance(s, dict):
            continue
        name = str(s.get("stage", ""))
        recorded[(name, seen.get(name, 0))] = s
        seen[name] = seen.get(name, 0) + 1
    out: list[StageTime] = []
    seen = {}
    for step in trace.steps:
        i = seen.get(step.stage, 0)
        seen[step.stage] = i + 1
        rec = recorded.get((step.stage, i))
        secs = rec.get("seconds") if rec is not None else None
        out.append(StageTime(step.stage, step.title, float(step.seconds),
                             float(secs) if isinstance(secs, int | float) else None,
                             int(rec.get("prompt_tokens") or 0) if rec is not None else 0,
                             int(rec.get("completion_tokens") or 0) if rec is not None else 0,
                             rec is not None and rec.get("cached") is True))
    return tuple(out)


def recorded_setup(provenance: dict[str, Any], run: dict[str, Any]) -> str:
    """What the recorded seconds were measured with, in one line: model, runtime, threads, the machine
    (where the run itself says it was recorded live there) and the date, e.g. ``Qwen2.5-Coder-1.5B-Instruct
    Q4_K_M · llama.cpp, 1 thread · x86_64, 2 CPU core(s), Linux, AVX-512 VNNI · 2026-11-26``."""
    model = f"{provenance.get('model') or provenance.get('model_id') or '?'} {provenance.get('quantization') or ''}"
    parts = [model.replace("(server side)", "").strip()]
    backend = str(provenance.get("backend") or "")
    runtime = {"local": "llama.cpp", "local-small": "llama.cpp", "openai": "OpenAI-compatible server"}.get(backend,
                                                                                                        backend)
    threads = provenance.get("n_threads")
    if isinstance(threads, int) and threads > 0:
        runtime += f", {threads} thread{'s' if threads != 1 else ''}"
    if runtime:
        parts.append(runtime)
    raw = run.get("state_source")
    source: dict[str, Any] = raw if isinstance(raw, dict) else {}
    # a re-taped run kept the seconds of the machine it was first recorded on, which the bundle does not name
    if str(source.get("how", "")).startswith("recorded live") and source.get("machine"):
        parts.append(str(source["machine"]))
    date = str(run.get("date") or provenance.get("date") or "")[:10]
    if date:
        parts.append(date)
    return " · ".join(parts)


def recorded_models(workspace: str, question: str, paths: Sequence[str | Path] | None = None) -> dict[str, str]:
    """The embedder and reranker of the recording that holds runs of ``question`` on ``workspace``
    (``{"embedder": …, "reranker": …}``; empty when no bundle holds one): a replay matches its recorded
    run only with these models, so the guided demo switches to them."""
    from core.backends.llm_bundles import recording_paths

    for path in (paths if paths is not None else recording_paths()):
        rec = load_recording(path)
        if any(r.get("workspace") == workspace and r.get("question") == question for r in rec.runs):
            return {k: str(rec.provenance[k]) for k in ("embedder", "reranker") if rec.provenance.get(k)}
    return {}
