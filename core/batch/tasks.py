"""The heavy jobs the app starts, as worker tasks (:mod:`core.background.workers`): a benchmark run, a paper's
reproduction, and the model stamp of a method's trained files. A method's own heavy work (ReG's retriever
training, SG-RAG's dominance model) lives in its package, declared on :attr:`core.methods.base.Method.tasks`.

Each comes in two halves. The server's half (``*_spec``, ``*_job``) turns the page's objects into a JSON spec
— backends by registry name, the LLM with its limits and cache switch, the workspace by folder — and reads
the worker's result back; the worker's half (``*_task``, named in :data:`core.background.workers.KINDS`) opens the
workspace and models again in the child and runs the same core function the CLI runs. What a kill leaves:

* **benchmark** — the ``results.jsonl`` lines of the pairs finished so far (one line per finished pair), so a
  rerun under the same name resumes;
* **reproduction** — the same, in each of its run folders (:mod:`core.eval.reproduce`): a rerun resumes them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.backends.registry import llm_from_spec, llm_spec
from core.background.workers import Progress, Words, run_worker

if TYPE_CHECKING:
    from core.eval.bench_report import BenchReport
    from core.eval.judge_choice import Judge
    from core.index.workspace import Workspace
    from core.methods.base import Backends


# ------------------------------------------------------------------------------------ backends by name
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
    from core.eval.timing import process_started
    from core.index.questions import load_questions

    ws = _open(spec)
    backends = _backends(spec)
    judge = _judge(spec, backends)
    each = _pairs_progress(progress)

    rep = run_benchmark(ws, load_questions(ws), spec["methods"], backends, out_dir=spec["out_dir"],
                        limit=spec.get("limit"), progress=each, judge=judge,
                        resume_unverified=bool(spec.get("resume_unverified")),
                        keep_trained=bool(spec.get("keep_trained")), started=process_started(),
                        **budget_run(spec["methods"], spec.get("budget"), spec.get("meta")))
    return {"ran": rep.ran, "skipped": rep.skipped, "warnings": list(rep.warnings)}


def bench_job(spec: dict[str, Any], *, progress: Progress | None = None,
              cancel: threading.Event | None = None) -> BenchReport:
    """Run :func:`bench_task` in a worker; the finished run's report (as ``run_benchmark`` returns it)."""
    from core.eval.bench_report import written_report

    out = Path(spec["out_dir"])
    figures = run_worker("bench", spec, words=Words(f"The benchmark “{out.name}”", "The question × method pairs "
                                                    "finished before are kept: run it again under the same name "
                                                    "to resume."),
                         progress=progress, cancel=cancel)
    res = figures.get("result") or {}
    return replace(written_report(out), ran=int(res.get("ran", 0)), skipped=int(res.get("skipped", 0)),
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
    from core.eval.reproduce_record import load_reproduction

    figures = run_worker("reproduce", spec, words=Words(f"The reproduction of {spec['paper']}", "The question × "
                                                        "method pairs finished before are kept: run it again to "
                                                        "resume."),
                         progress=progress, cancel=cancel)
    res = figures.get("result") or {}
    return {"record": load_reproduction(res["file"]), "ran": int(res.get("ran", 0)),
            "skipped": int(res.get("skipped", 0)), "warnings": list(res.get("warnings", ()))}
