"""One machine-readable summary of the engine's speed.

Three parts, each in this one process:

``index``    Build a sample workspace from scratch (graph + FAISS indexes over nodes, edges and chunks)
             with the MiniLM embedder into a temporary folder: total seconds and the per-index
             builds recorded in its manifest (items, seconds, items/s).
``methods``  Every requested method on the workspace's questions (default: all 100 MuSiQue
             questions, `none` mode) through the benchmark runner: mean / median / p90 seconds per
             question, mean seconds per trace stage, LLM tokens, and each method's mean latency as
             a ratio to dense retrieval's in the same run; R@5 alongside, for the latency-vs-recall
             trade-off.
``scale``    BubbleRAG's G' construction + bubble expansion + CEG ranking on synthetic ring-lattice
             graphs of 10k → 100k → 1M nodes with the same anchors (benchmarks/bubblerag_latency.py):
             median ms per size and the ratio time(1M) / time(10k) (§3.3 claims retrieval cost largely
             independent of |V|; target <= 2).

Usage::

    python benchmarks/summary.py [--parts index,methods,scale] [--sample musique] [--limit 100]
                                 [--methods dense,rerank,ppr,fastinsight,bubblerag] [--llm none]
                                 [--root .cache/test-samples] [--out .cache/benchmarks/summary.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bench_index(sample: str) -> dict:
    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace

    emb = get_embedder("minilm")
    emb.embed(["warm-up"])
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        ws = ensure_sample_workspace(sample, emb, root=Path(tmp))
        total = time.perf_counter() - t0
        builds = ws.manifest.get("index", {}).get("builds", [])
        g = ws.graph
        out = {"sample": sample, "total_s": round(total, 3), "nodes": g.n_nodes, "edges": g.n_edges,
               "chunks": g.n_chunks,
               "builds": [{"kind": b["kind"], "items": b["items"], "seconds": round(b["seconds"], 3),
                           "items_per_s": round(b["items"] / b["seconds"], 1) if b["seconds"] else None}
                          for b in builds]}
    print(f"index: {sample} built in {total:.1f} s ({g.n_nodes} nodes, {g.n_edges} edges, {g.n_chunks} chunks)")
    for b in out["builds"]:
        print(f"  {b['kind']:<7} {b['items']:>6} items  {b['seconds']:>7.2f} s  {b['items_per_s']} items/s")
    return out


def bench_methods(sample: str, methods: list[str], limit: int | None, llm_name: str, root: str | None) -> dict:
    from core.backends.registry import get_embedder, get_llm, get_reranker
    from core.eval.runner import run_benchmark
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends

    emb = get_embedder("minilm")
    llm = get_llm(llm_name)
    ws = ensure_sample_workspace(sample, emb, root=Path(root) if root else None)
    b = Backends(emb, llm, get_reranker("biencoder", embedder=emb, llm=llm))
    qs = load_questions(ws)
    for m in methods:  # warm-up: first-call costs (entity graph, passage graph, caches) are not per-question
        from core.methods.run import run_method

        run_method(m, "warm-up question about the United States", ws, b)
    with tempfile.TemporaryDirectory() as tmp:
        rep = run_benchmark(ws, qs, methods, b, out_dir=tmp, limit=limit, write_outputs=False)
    base = rep.summary["methods"].get("dense", {}).get("latency", {}).get("mean_s")
    out: dict = {"sample": sample, "llm": llm_name, "questions": rep.summary["questions"], "methods": {}}
    print(f"methods: {rep.summary['questions']} questions on {sample}, llm {llm_name}")
    for m, s in rep.summary["methods"].items():
        lat = s["latency"]
        ratio = round(lat["mean_s"] / base, 2) if base and lat["mean_s"] else None
        out["methods"][m] = {"mean_s": lat["mean_s"], "median_s": lat["median_s"], "p90_s": lat["p90_s"],
                             "ratio_to_dense": ratio, "stages_mean_s": lat["stages"], "tokens": s["tokens"],
                             "R@5": s["metrics"].get("R@5")}
        top = sorted(lat["stages"].items(), key=lambda kv: -kv[1])[:3]
        print(f"  {m:<12} mean {lat['mean_s']:.3f} s  median {lat['median_s']:.3f} s  x{ratio} dense   "
              + ", ".join(f"{k} {1000 * v:.1f} ms" for k, v in top))
    return out


def bench_scale(repeat: int) -> dict:
    spec = importlib.util.spec_from_file_location("bubblerag_latency", ROOT / "benchmarks" / "bubblerag_latency.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    print("scale: BubbleRAG G' + expansion + ranking on ring lattices")
    res: dict = mod.bench_scale((10_000, 100_000, 1_000_000), repeat)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="index,methods,scale")
    ap.add_argument("--sample", default="musique", help="sample workspace (musique, demo)")
    ap.add_argument("--methods", default="dense,rerank,ppr,fastinsight,bubblerag")
    ap.add_argument("--limit", type=int, default=None, help="questions for the methods part (default: all)")
    ap.add_argument("--llm", default="none")
    ap.add_argument("--root", help="workspaces folder for the methods part (default $EGX_HOME/workspaces; "
                                   "the tests' .cache/test-samples reuses their MiniLM build)")
    ap.add_argument("--repeat", type=int, default=5, help="timed repeats per size in the scale part")
    ap.add_argument("--out", default=str(ROOT / ".cache" / "benchmarks" / "summary.json"))
    args = ap.parse_args()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    out: dict = {"machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
                 "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if "index" in parts:
        out["index"] = bench_index(args.sample)
    if "methods" in parts:
        out["methods"] = bench_methods(args.sample, [m for m in args.methods.split(",") if m], args.limit, args.llm,
                                       args.root)
    if "scale" in parts:
        out["scale"] = bench_scale(args.repeat)
    p = Path(args.out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(f"wrote {p}")


if __name__ == "__main__":
    main()
