"""A benchmark run's estimate on a busy machine: does the machine's load say how much longer a run will take?

On the MuSiQue sample (bge-small, the bundled cross-encoder, LLM ``none``), one process: a warm-up run and a run
``quiet`` on the machine as it is; then ``--busy`` spinning processes start, and after ``--settle`` seconds (the
1-minute load average climbing) a run ``busy`` is estimated from ``quiet`` and timed; the spinners stop, and after
the load has fallen again a run ``after`` is estimated from ``busy`` (measured beside them) and timed. For each timed
run: the 1-minute load when it was estimated and while it ran, its estimate from the earlier run's seconds over its
real wall time (1.0 is right), and whether the estimate said the machine was busier
(:meth:`core.eval.estimate.Estimate.under_load`).

Usage: python benchmarks/estimate_under_load.py [--questions 6] [--methods dense,rerank,ppr,bubblerag]
       [--busy 2] [--settle 75] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _spin(stop: Any) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _load() -> float:
    return float(os.getloadavg()[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=6)
    ap.add_argument("--methods", default="dense,rerank,ppr,bubblerag")
    ap.add_argument("--busy", type=int, default=2)
    ap.add_argument("--settle", type=float, default=75.0)
    ap.add_argument("--out")
    args = ap.parse_args()

    from core.backends.registry import get_embedder, get_llm, get_reranker
    from core.eval.estimate import estimate_run
    from core.eval.runner import run_benchmark
    from core.eval.timing import machine_load
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends

    emb = get_embedder("bge-small")
    llm = get_llm("none")
    root = ROOT / ".cache" / "test-samples" / "by-model" / re.sub(r"[^A-Za-z0-9.-]+", "_", emb.model_id)
    ws = ensure_sample_workspace("musique", emb, root=root)
    backends = Backends(emb, llm, get_reranker("ms-marco-minilm", embedder=emb, llm=llm))
    questions = [q for q in load_questions(ws) if q.gold_chunks][: args.questions]
    methods = args.methods.split(",")
    runs = Path(tempfile.mkdtemp(prefix="egx-estimate-load-"))

    def run(name: str) -> dict[str, Any]:
        cores = os.cpu_count() or 1
        est = estimate_run(runs, ws.name, "none", methods, len(questions), passages=ws.meta.n_chunks)
        load = machine_load()
        said = est.under_load(*load) if load is not None else est
        t0 = time.perf_counter()
        rep = run_benchmark(ws, questions, methods, backends, out_dir=runs / name)
        wall = time.perf_counter() - t0
        row = {"run": name, "load_at_estimate": round(load[0], 2) if load else None, "cores": cores,
               "load_recorded": rep.summary["timing"].get("load"), "load_after": round(_load(), 2),
               "wall_s": round(wall, 2), "estimate_s": round(est.total, 2),
               "estimate_over_real": round(est.total / wall, 2), "said_busier": said.busy,
               "sources": dict(est.sources)}
        print(json.dumps(row), flush=True)
        return row

    rows = []
    run("warm-up")  # the models' first use, not an estimate's basis (the next run is newer)
    rows.append(run("quiet"))
    stop = mp.Event()
    spinners = [mp.Process(target=_spin, args=(stop,), daemon=True) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    time.sleep(args.settle)
    rows.append(run("busy"))
    stop.set()
    for p in spinners:
        p.join()
    time.sleep(args.settle)
    rows.append(run("after"))
    if args.out:
        Path(args.out).write_text(json.dumps({"questions": len(questions), "methods": methods, "busy": args.busy,
                                              "settle_s": args.settle, "rows": rows}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
