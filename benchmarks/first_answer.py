"""Time from a new process to its first answer, per method: what a user waits for after `egx ask`.

Each method runs in a fresh Python process (nothing kept from an earlier run but what the workspace folder
holds), which times its phases:

* ``import`` — importing the engine;
* ``models`` — loading the embedder and the reranker (onnxruntime sessions) and the spaCy pipeline the
  extractive answer reads (``none`` mode has no LLM to load), and for SG-RAG torch_geometric, which its
  dominance GNN needs (3-5 s of imports): "model loading";
* ``open`` — opening the workspace: manifest, graph, vector indexes;
* ``prepare`` — what the method would still build before a run (its :class:`~core.methods.base.Preparation`,
  e.g. FastInsight's node vectors): 0 when the workspace already holds it. Timed apart because the app runs it
  as a background job and ``egx samples build`` / ``egx index --prepare`` build it ahead;
* ``first`` — the first question (``none`` LLM mode: extractive answers, so no LLM time is counted);
* ``second`` — a second question in the same process (the warm figure).

The target is ``open + first ≤ 2 s`` for every method (model loading excluded), on 2 cores.

Usage: python benchmarks/first_answer.py [--workspace musique] [--methods dense,rerank,...] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_METHODS = "dense,rerank,ppr,fastinsight,bubblerag,sgrag,reg"


def child(method: str, workspace: str, q1: int, q2: int) -> dict[str, float | str]:
    """One fresh process's phases (seconds)."""
    out: dict[str, float | str] = {"method": method}
    t = time.perf_counter()
    from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER, get_embedder, get_llm, get_reranker
    from core.cli_support import resolve_workspace
    from core.index.questions import load_questions
    from core.methods.base import Backends
    from core.methods.registry import get_method
    from core.methods.run import backends_for, pending_preparations, run_method

    out["import"] = time.perf_counter() - t
    t = time.perf_counter()
    embedder = get_embedder(DEFAULT_EMBEDDER)
    reranker = get_reranker(DEFAULT_RERANKER, embedder=embedder)
    backends = Backends(embedder, get_llm("none"), reranker)
    from core.methods.answer_types import ner_available

    ner_available()  # the extractive answer's spaCy pipeline (no LLM): a model too
    if method == "sgrag":  # SG-RAG's dominance model is a GNN: loading it is importing torch_geometric
        import torch_geometric.nn  # noqa: F401
    out["models"] = time.perf_counter() - t
    t = time.perf_counter()
    ws = resolve_workspace(workspace, embedder)
    questions = load_questions(ws)
    _ = ws.graph
    out["open"] = time.perf_counter() - t
    t = time.perf_counter()
    pending = pending_preparations(get_method(method), ws, backends_for(method, backends))
    for p in pending:
        p.work(None)
    out["prepare"] = time.perf_counter() - t
    out["prepared"] = ", ".join(p.title for p in pending)
    for label, i in (("first", q1), ("second", q2)):
        t = time.perf_counter()
        run_method(method, questions[i % len(questions)].question, ws, backends)
        out[label] = time.perf_counter() - t
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", default="musique")
    ap.add_argument("--methods", default=DEFAULT_METHODS)
    ap.add_argument("--question", type=int, default=0, help="index of the first question (the second is the next)")
    ap.add_argument("--out")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.workspace, args.question, args.question + 1)))
        return
    rows = []
    for method in args.methods.split(","):
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--child", method, "--workspace", args.workspace,
                               "--question", str(args.question)], capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        wall = time.perf_counter() - t
        if proc.returncode != 0:
            print(f"{method}: failed\n{proc.stderr[-2000:]}", file=sys.stderr)
            continue
        row = json.loads(proc.stdout.strip().splitlines()[-1])
        row["process"] = wall
        rows.append(row)
    head = f"{'method':12s} {'import':>7s} {'models':>7s} {'open':>7s} {'prepare':>8s} {'first':>7s} " \
           f"{'open+1st':>9s} {'second':>7s} {'process':>8s}"
    print(head)
    for r in rows:
        print(f"{r['method']:12s} {r['import']:7.2f} {r['models']:7.2f} {r['open']:7.2f} {r['prepare']:8.2f} "
              f"{r['first']:7.2f} {r['open'] + r['first']:9.2f} {r['second']:7.2f} {r['process']:8.2f}"
              + (f"  (prepared: {r['prepared']})" if r["prepared"] else ""))
    if args.out:
        Path(args.out).write_text(json.dumps({"workspace": args.workspace, "cpus": os.cpu_count(), "rows": rows},
                                             indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
