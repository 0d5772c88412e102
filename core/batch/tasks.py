"""The heavy jobs the app starts, as worker tasks (:mod:`core.background.workers`): a benchmark run, a paper's reproduction,
ReG retriever training, SG-RAG dominance-model training.

Each comes in two halves. The server's half (``*_spec``, ``*_job``) turns the page's objects into a JSON spec
— backends by registry name, the LLM with its limits and cache switch, the workspace by folder — and reads
the worker's result back; the worker's half (``*_task``, named in :data:`core.background.workers.KINDS`) opens the
workspace and models again in the child and runs the same core function the CLI runs. What a kill leaves:

* **benchmark** — the ``results.jsonl`` lines of the pairs finished so far (one line per finished pair), so a
  rerun under the same name resumes;
* **reproduction** — the same, in each of its run folders (:mod:`core.eval.reproduce`): a rerun resumes them;
* **ReG training** — nothing: the model is trained into a hidden sibling of its folder and swapped into place
  when complete (:func:`core.index.commit.commit`); the previous model stays usable until then. The LLM's S(I)
  selections made so far stay cached (``reg/selections-*.json``), so a rerun does not ask again;
* **dominance training** — nothing: the model file is written to a temporary name and renamed
  (:func:`core.methods.sgrag.dominance.load_or_train`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.background.workers import Progress, Words, run_worker

if TYPE_CHECKING:
    from core.eval.bench_report import BenchReport
    from core.eval.judge_choice import Judge
    from core.index.workspace import Workspace
    from core.methods.base import Backends


# ------------------------------------------------------------------------------------ backends by name
def llm_spec(llm: Any) -> dict[str, Any]:
    """An LLM backend as JSON: its registry name, its limits (:class:`~core.backends.llm.LLMSettings`, found on
    the guard inside the cache wrapper) and whether the response cache is on."""
    settings = None
    node, seen = llm, 0
    while node is not None and seen < 8:  # CachedLLM → GuardedLLM → the backend
        if getattr(node, "settings", None) is not None:
            settings = asdict(node.settings)
            break
        node, seen = getattr(node, "inner", None), seen + 1
    enabled = getattr(llm, "enabled", None)
    return {"name": str(getattr(llm, "name", "none") or "none"), "settings": settings,
            "cache": None if enabled is None else bool(enabled)}


def llm_from_spec(spec: dict[str, Any] | None) -> Any:
    """The LLM :func:`llm_spec` describes, built again (in the worker)."""
    from core.backends.llm import LLMSettings
    from core.backends.registry import get_llm

    spec = spec or {"name": "none"}
    settings = LLMSettings(**spec["settings"]) if spec.get("settings") else None
    return get_llm(spec.get("name") or "none", settings=settings, cache=spec.get("cache"))


def _backends(spec: dict[str, Any]) -> Any:
    from core.backends.registry import get_embedder, get_reranker
    from core.methods.base import Backends

    emb = get_embedder(spec["embedder"])
    llm = llm_from_spec(spec.get("llm"))
    rr_name = spec.get("reranker") or ""
    rr = get_reranker(rr_name, embedder=emb, llm=llm if rr_name == "llm" else None) if rr_name else None
    return Backends(emb, llm, rr)


def _open(spec: dict[str, Any]) -> Workspace:
    from core.index.workspace import Workspace

    return Workspace.open(Path(spec["workspace"]))


# ------------------------------------------------------------------------------------ benchmark
def bench_spec(workspace: Workspace, methods: list[str], *, embedder: str, llm: Any, reranker: str, out_dir: Path,
               limit: int, judge: str = "none", meta: dict[str, Any] | None = None,
               resume_unverified: bool = False, keep_trained: bool = False, budget: str = "own") -> dict[str, Any]:
    """What :func:`bench_task` needs: the page's choices, backends by name, the answer budget by its text."""
    return {"workspace": str(workspace.path), "methods": list(methods), "embedder": embedder, "llm": llm_spec(llm),
            "reranker": reranker, "out_dir": str(out_dir), "limit": int(limit), "judge": judge or "none",
            "meta": dict(meta or {}), "resume_unverified": bool(resume_unverified), "keep_trained": bool(keep_trained),
            "budget": str(budget or "own")}


def budget_run(methods: list[str], budget: Any, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The :func:`~core.eval.runner.run_benchmark` arguments an answer budget sets (:mod:`core.methods.budget`):
    each method's ``configs`` under it, the diagnosis ``cut`` (its chunk count, else 5) and the ``meta`` that
    records it in ``run.json`` (so a run is never resumed under another budget).

    Raises
    ------
    ConfigError
        For a budget that is not one, or a method without a budget hook under a budget other than ``own``.
    """
    from core.methods.budget import budget_configs, budget_settings, parse_budget
    from core.methods.registry import get_method

    b = parse_budget(budget)
    return {"configs": budget_configs([get_method(m) for m in methods], b) or None, "cut": b.chunks or 5,
            "meta": {**(meta or {}), **budget_settings(b)}}


def _judge(spec: dict[str, Any], backends: Backends) -> Judge | None:
    """The judge the page chose (by name), built with the run's own LLM settings."""
    from core.eval.judge_choice import choose_judge

    return choose_judge(spec.get("judge") or "none", backends.llm,
                        build=lambda name: llm_from_spec({**(spec.get("llm") or {}), "name": name}))


def _pairs_progress(progress: Progress) -> Callable[[int, int, str], None]:
    """A runner's ``progress(done, total, message)`` as the worker's ``progress(text, fraction)``."""
    def each(done: int, total: int, msg: str) -> None:
        progress(f"{done}/{total} · {msg}", done / max(total, 1))
    return each


def bench_task(spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Worker side of a benchmark: :func:`core.eval.runner.run_benchmark` as the page configured it."""
    from core.eval.runner import run_benchmark
    from core.index.questions import load_questions

    ws = _open(spec)
    backends = _backends(spec)
    judge = _judge(spec, backends)
    each = _pairs_progress(progress)

    rep = run_benchmark(ws, load_questions(ws), spec["methods"], backends, out_dir=spec["out_dir"],
                        limit=spec.get("limit"), progress=each, judge=judge,
                        resume_unverified=bool(spec.get("resume_unverified")),
                        keep_trained=bool(spec.get("keep_trained")),
                        **budget_run(spec["methods"], spec.get("budget"), spec.get("meta")))
    return {"ran": rep.ran, "skipped": rep.skipped, "warnings": list(rep.warnings)}


def bench_job(spec: dict[str, Any], *, progress: Progress | None = None,
              cancel: threading.Event | None = None) -> BenchReport:
    """Run :func:`bench_task` in a worker; the finished run's report (as ``run_benchmark`` returns it)."""
    from core.eval.bench_report import load_report

    out = Path(spec["out_dir"])
    figures = run_worker("bench", spec, words=Words(f"The benchmark “{out.name}”", "The question × method pairs "
                                                    "finished before are kept: run it again under the same name "
                                                    "to resume."),
                         progress=progress, cancel=cancel)
    res = figures.get("result") or {}
    return replace(load_report(out), ran=int(res.get("ran", 0)), skipped=int(res.get("skipped", 0)),
                   warnings=tuple(res.get("warnings", ())))


# ------------------------------------------------------------------------------------ a paper's reproduction
def reproduce_spec(workspace: Workspace, paper: str, *, embedder: str, llm: Any, reranker: str, out_dir: Path,
                   limit: int | None = None, judge: str = "none") -> dict[str, Any]:
    """What :func:`reproduce_task` needs: ``egx reproduce``'s options, backends by name."""
    return {"workspace": str(workspace.path), "paper": paper, "embedder": embedder, "llm": llm_spec(llm),
            "reranker": reranker, "out_dir": str(out_dir), "limit": None if limit is None else int(limit),
            "judge": judge or "none"}


def reproduce_task(spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Worker side of a reproduction: :func:`core.eval.reproduce.run_reproduction` as ``egx reproduce`` runs it."""
    from core.eval.reproduce import REPRODUCE_JSON, reproduce_command, run_reproduction
    from core.index.questions import load_questions

    ws = _open(spec)
    backends = _backends(spec)
    judge = _judge(spec, backends)
    each = _pairs_progress(progress)

    llm = str((spec.get("llm") or {}).get("name") or "none")
    command = reproduce_command(spec["paper"], ws.name, llm, limit=spec.get("limit"), judge=spec.get("judge"),
                                embedder=spec["embedder"], reranker=spec.get("reranker"))
    rep = run_reproduction(ws, load_questions(ws), spec["paper"], backends, out_dir=spec["out_dir"],
                           limit=spec.get("limit"), judge=judge, progress=each, command=command,
                           meta={"questions_file": str(ws.questions_path)})
    return {"paper": rep.paper, "file": str(rep.out_dir / REPRODUCE_JSON), "ran": rep.ran, "skipped": rep.skipped,
            "seconds": rep.seconds, "warnings": list(rep.warnings)}


def reproduce_job(spec: dict[str, Any], *, progress: Progress | None = None,
                  cancel: threading.Event | None = None) -> dict[str, Any]:
    """Run :func:`reproduce_task` in a worker; the fresh ``reproduce.json`` it wrote, with ``ran`` / ``skipped``
    (the question × method pairs run now and done before) and the runs' warnings beside it."""
    from core.eval.reproduce import load_reproduction

    figures = run_worker("reproduce", spec, words=Words(f"The reproduction of {spec['paper']}", "The question × "
                                                        "method pairs finished before are kept: run it again to "
                                                        "resume."),
                         progress=progress, cancel=cancel)
    res = figures.get("result") or {}
    return {"record": load_reproduction(res["file"]), "ran": int(res.get("ran", 0)),
            "skipped": int(res.get("skipped", 0)), "warnings": list(res.get("warnings", ()))}


# ------------------------------------------------------------------------------------ ReG training
def reg_model_dir(workspace: Workspace, unit: str) -> Path:
    """The folder ``reg`` loads for ``unit`` by default (the workspace's own)."""
    from core.methods.reg.entity_retriever import default_entity_model_dir
    from core.methods.reg.retriever import default_model_dir

    return default_entity_model_dir(workspace) if unit == "entity" else default_model_dir(workspace)


def train_reg_spec(workspace: Workspace, *, embedder: str, llm: Any, supervision: str, selection: str = "auto",
                   unit: str = "triple", epochs: int = 80, seed: int = 0, limit: int | None = None,
                   cosine_residual: bool = False, use_anyway: bool = False) -> dict[str, Any]:
    """What :func:`train_reg_task` needs (the options of ``egx train-reg``); the model goes to a hidden sibling
    of the workspace's model folder first (``tmp``), which the server removes if the worker dies. ``use_anyway``:
    install it even when it loses on the held-out split (``egx train-reg --use-anyway``)."""
    from core.fsio import temp_sibling

    folder = reg_model_dir(workspace, unit)
    return {"workspace": str(workspace.path), "embedder": embedder, "llm": llm_spec(llm), "supervision": supervision,
            "selection": selection, "unit": unit, "epochs": int(epochs), "seed": int(seed),
            "limit": None if limit is None else int(limit), "cosine_residual": bool(cosine_residual),
            "use_anyway": bool(use_anyway), "folder": str(folder), "tmp": str(temp_sibling(folder, "building"))}


def train_reg_task(spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Worker side of ReG training: :func:`core.methods.reg.train.train_reg` (or ReG@Entity's) into ``tmp``,
    then swapped into the model folder in one step — or, when it loses on the held-out split to the untrained
    cosine or the retriever active now (:func:`core.methods.reg.train.judge`), into the kept-aside folder
    (:func:`core.methods.reg.train.aside_dir`), the active scorer unchanged, unless the spec says ``use_anyway``."""
    from core.backends.registry import get_embedder
    from core.errors import ConfigError
    from core.fsio import atomic_write_json
    from core.index.commit import commit
    from core.methods.base import Backends
    from core.methods.reg.config import TrainConfig
    from core.methods.reg.keep import aside_dir, judge
    from core.methods.reg.train import train_reg
    from core.methods.reg.train_entity import train_reg_entity

    ws = _open(spec)
    if ws.questions_path is None:
        raise ConfigError(f"The workspace “{ws.name}” has no questions with answers to train on; add a questions "
                          "file on the Data page.")
    llm = llm_from_spec(spec.get("llm"))
    cfg = TrainConfig(supervision=spec["supervision"], selection=spec.get("selection", "auto"),
                      seed=int(spec.get("seed", 0)), epochs=int(spec.get("epochs", 80)),
                      cosine_residual=bool(spec.get("cosine_residual", False)))
    train = train_reg_entity if spec.get("unit") == "entity" else train_reg
    folder, tmp = Path(spec["folder"]), Path(spec["tmp"])
    res = train(ws, ws.questions_path, backends=Backends(get_embedder(spec["embedder"]), llm), cfg=cfg, out=tmp,
                limit=spec.get("limit"), progress=progress)
    verdict = judge(res)  # train_reg wrote to tmp (a named folder): the choice of folder is made here
    res.verdict = verdict.text
    if not verdict.install and not spec.get("use_anyway"):
        folder = aside_dir(folder)
        res.kept_aside = True
    res.model_dir = str(folder)
    atomic_write_json(tmp / "result.json", res.to_dict())
    folder.parent.mkdir(parents=True, exist_ok=True)
    commit(tmp, folder)  # one rename (or an atomic exchange): the previous model until here, the new one after
    return {"supervision": res.supervision, "best_epoch": res.best_epoch, "test": res.test,
            "baseline_test": res.baseline_test, "current_test": res.current_test, "counts": res.counts,
            "seconds": res.seconds, "device": res.device, "run": folder.name, "kept_aside": res.kept_aside,
            "verdict": res.verdict, "model_dir": str(folder)}


def use_kept_aside(workspace: Workspace, unit: str = "triple") -> Path:
    """Install the retriever training kept aside (the page's "Use it anyway"): it replaces the workspace's active
    one in one step (:func:`core.index.commit.commit`), and its ``result.json`` says so.

    Raises
    ------
    WorkspaceError
        When no retriever is kept aside for ``unit``.
    """
    import json
    import shutil

    from core.errors import WorkspaceError
    from core.fsio import atomic_write_json, temp_sibling
    from core.index.commit import commit
    from core.methods.reg.keep import aside_dir
    from core.methods.reg.retriever import is_model_folder

    folder = reg_model_dir(workspace, unit)
    aside = aside_dir(folder)
    if not is_model_folder(aside):
        raise WorkspaceError(f"No retriever is kept aside in {aside}: there is nothing to use. Train one first "
                             "(`egx train-reg`, or the Train panel).",
                             app="No retriever is kept aside: there is nothing to use. Train one first.")
    tmp = temp_sibling(folder, "building")
    shutil.copytree(aside, tmp)  # a copy: the kept-aside model stays whole until the new one is in place
    result = tmp / "result.json"
    if result.exists():
        data = json.loads(result.read_text(encoding="utf-8"))
        data.update({"kept_aside": False, "model_dir": str(folder),
                     "verdict": f"{data.get('verdict', '')}; installed anyway by the user"})
        atomic_write_json(result, data)
    folder.parent.mkdir(parents=True, exist_ok=True)
    commit(tmp, folder)
    shutil.rmtree(aside, ignore_errors=True)
    return folder


def train_reg_job(spec: dict[str, Any], *, progress: Progress | None = None,
                  cancel: threading.Event | None = None) -> dict[str, Any]:
    """Run :func:`train_reg_task` in a worker; its summary (supervision, best epoch, held-out recall)."""
    import shutil

    unit = "ReG@Entity" if spec.get("unit") == "entity" else "ReG@Triple"
    figures = run_worker("train-reg", spec, words=Words(f"Training {unit}", "The previous model is kept and "
                                                        "still used."),
                         progress=progress, cancel=cancel,
                         cleanup=lambda: shutil.rmtree(spec["tmp"], ignore_errors=True))
    return dict(figures.get("result") or {})


# ------------------------------------------------------------------------------------ SG-RAG dominance model
def train_dominance_spec(workspace: Workspace, *, embedder: str, seed: int = 0) -> dict[str, Any]:
    return {"workspace": str(workspace.path), "embedder": embedder, "seed": int(seed)}


def train_dominance_task(spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Worker side of SG-RAG's dominance model: :func:`core.methods.sgrag.prepare` with ``retrain`` (Alg. 2),
    the model written to the workspace's ``sgrag/`` folder under a temporary name and renamed."""
    from core.backends.registry import get_embedder
    from core.methods.sgrag import SGRAGConfig, prepare

    ws = _open(spec)
    prep = prepare(ws, get_embedder(spec["embedder"]), config=SGRAGConfig(seed=int(spec.get("seed", 0))),
                   retrain=True, progress=progress)
    m = prep.model
    return {"epochs": m.epochs, "converged": m.converged, "final_loss": m.losses[-1] if m.losses else 0.0,
            "losses": list(m.losses), "seconds": round(m.seconds, 2), "device": m.device}


def train_dominance_job(spec: dict[str, Any], *, progress: Progress | None = None,
                        cancel: threading.Event | None = None,
                        after: Callable[[], Any] | None = None) -> dict[str, Any]:
    """Run :func:`train_dominance_task` in a worker; ``after()`` then loads the new model into this process."""
    figures = run_worker("train-dominance", spec, words=Words("Training SG-RAG's dominance model",
                                                              "The previous model is kept and still used."),
                         progress=progress, cancel=cancel)
    if after is not None:
        after()
    return dict(figures.get("result") or {})


# ------------------------------------------------------------------------------------ estimates and model stamps
#: Rough costs on a 2-core machine without a GPU, used only when no earlier run in the workspace says better:
#: starting a worker (interpreter, torch, the workspace and embedder), weak supervision per question, one
#: epoch per training question, and one LLM selection per question (a small local model; an API is faster).
WORKER_START_S = 8.0
WEAK_S_PER_QUESTION = 0.05
EPOCH_S_PER_QUESTION = 0.01
LLM_S_PER_QUESTION = 12.0


def estimate_reg_seconds(n_questions: int, epochs: int, *, refined: bool, uncached: int = 0,
                         previous: dict[str, Any] | None = None) -> tuple[float, str]:
    """Seconds a ReG training will take, and what the figure rests on: an earlier run in this workspace
    (its seconds scaled to ``epochs``) when there is one, else the rough rates above. ``uncached`` questions
    need an LLM selection (refined supervision; the others are in the selections cache)."""
    llm = LLM_S_PER_QUESTION * uncached if refined else 0.0
    prev_epochs = int(((previous or {}).get("config") or {}).get("epochs") or 0)
    if previous and prev_epochs and float(previous.get("seconds") or 0) > 0:
        fit = float(previous["seconds"]) * epochs / prev_epochs
        return WORKER_START_S + WEAK_S_PER_QUESTION * n_questions + fit + llm, "scaled from the last run here"
    fit = EPOCH_S_PER_QUESTION * n_questions * epochs
    return WORKER_START_S + WEAK_S_PER_QUESTION * n_questions + fit + llm, "rough rates: no earlier run here"


def model_stamp(workspace: Any, method: str) -> str:
    """What a method's trained models in ``workspace`` look like on disk right now (names, sizes, mtimes of
    ReG's retriever manifests, SG-RAG's dominance files; "" for other methods): part of a cached run's key,
    so a model trained since — in the app's worker or by the CLI — is a new run, never the old result."""
    root = Path(workspace.path)
    if method == "reg":
        files = [root / "reg" / d / "manifest.json" for d in ("retriever", "retriever-entity")]
    elif method == "sgrag":
        files = sorted((root / "sgrag").glob("dominance-*.pt")) if (root / "sgrag").is_dir() else []
    else:
        return ""
    parts = []
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        parts.append(f"{f.parent.name}/{f.name}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(parts)


def cached_selections(workspace: Any, llm: Any, selection: str) -> set[str]:
    """Question ids whose S(I) selection by ``llm`` (in form ``selection``) is cached in the workspace or
    shipped with its sample: refined training asks the LLM only for the others."""
    import json

    from core.methods.reg.train import selection_how, selections_file, shipped_selections

    how = selection_how(selection, llm)
    path = Path(workspace.path) / "reg" / selections_file(llm.model_id, how)
    try:
        return set(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else \
            set(shipped_selections(workspace, llm.model_id, how))
    except (OSError, ValueError):
        return set()
