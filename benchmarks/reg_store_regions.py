"""ReG on a FalkorDB workspace vs in memory (issue 19): process memory and seconds per question.

Builds the MuSiQue sample workspace (HashingEmbedder dim 128, ``none`` mode: no model download), a
copy whose graph lives in a local FalkorDB server, and runs ReG (untrained cosine fallback, paper
defaults: hops = 3, K = 100) on the first ``--questions`` questions twice, each in a fresh child
process: once on the in-memory workspace (which loads ``graph.json.gz``), once on the store
workspace (which reads only each question's 3-hop region, :func:`core.methods.reg.pipeline.run`).
Each child reports its RSS after opening the workspace and its FAISS indexes, after the questions,
its peak RSS (VmHWM), the seconds per question, the region sizes, and a signature of every result;
the parent checks the signatures are equal and writes JSON.

Usage: flock /tmp/egx-cpu.lock .venv/bin/python benchmarks/reg_store_regions.py [--questions 20]
       [--out benchmarks/results/reg_store_regions.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]


def _status(key: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def child(args: argparse.Namespace) -> None:
    import numpy as np

    from core.backends.embedders import HashingEmbedder
    from core.backends.llm import NoLLM
    from core.backends.rerankers import BiEncoderReranker
    from core.eval.runner import run_method
    from core.index.workspace import Workspace
    from core.methods.base import Backends

    r0 = _status("VmRSS")
    emb = HashingEmbedder(dim=128)
    backends = Backends(emb, NoLLM(), BiEncoderReranker(emb))
    ws = Workspace.open(args.workspace)
    ws.index("nodes", emb), ws.index("edges")
    r1 = _status("VmRSS")
    questions = json.loads(Path(args.questions_file).read_text())
    times, sigs, regions = [], [], []
    for q in questions:
        t0 = time.perf_counter()
        r = run_method("reg", q, ws, backends)
        times.append(time.perf_counter() - t0)
        sigs.append([[c.chunk_id, round(c.score, 9)] for c in r.ranked_chunks] + [r.answer])  # type: ignore[attr-defined]
        step = r.trace.stage("neighbourhood")[0].data
        regions.append({k: step[k] for k in ("region_nodes", "region_edges", "region_hops", "capped") if k in step}
                       | {"triples": step["triples"]})
    out = {"rss_mb": {"start": round(r0), "opened": round(r1),
                      "after": round(_status("VmRSS")), "peak": round(_status("VmHWM"))},
           "whole_graph_loaded": "graph" in ws.__dict__, "store": ws.store_url,
           "seconds_per_question": {"mean": round(float(np.mean(times)), 4), "p50": round(float(np.median(times)), 4),
                                    "max": round(float(np.max(times)), 4)},
           "regions": regions, "sigs": sigs}
    Path(args.child_out).write_text(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--root", default=str(ROOT / ".cache" / "bench-reg-store"))
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / f"reg_store_regions_{time.strftime('%Y-%m-%d')}.json"))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--workspace", help=argparse.SUPPRESS)
    ap.add_argument("--questions-file", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return

    from core.backends.embedders import HashingEmbedder
    from core.eval.datasets import load_questions
    from core.graph.falkor_server import FalkorServer
    from core.index.workspace import Workspace, ensure_sample_workspace

    root = Path(args.root)
    mem = ensure_sample_workspace("musique", HashingEmbedder(dim=128), root=root / "mem")
    questions = [q.question for q in load_questions(mem)][:args.questions]
    qfile = root / "questions.json"
    qfile.write_text(json.dumps(questions))
    out: dict[str, object] = {"questions": len(questions), "graph": mem.manifest.get("graph", {}),
                              "config": "RegConfig() defaults, untrained cosine fallback, none mode"}
    with FalkorServer(root / "falkordb") as server:
        dst = root / "store" / "musique"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(mem.path, dst)
        Workspace.open(dst).move_to_store(server.url("bench_reg_musique"), overwrite=True)
        for name, path in (("memory", mem.path), ("falkordb", dst)):
            res = root / f"child-{name}.json"
            subprocess.run([sys.executable, __file__, "--child", "--workspace", str(path), "--questions-file",
                            str(qfile), "--child-out", str(res)], check=True)
            out[name] = json.loads(res.read_text())
    mem_sigs = out["memory"].pop("sigs")  # type: ignore[attr-defined]
    remote_sigs = out["falkordb"].pop("sigs")  # type: ignore[attr-defined]
    out["identical_results"] = mem_sigs == remote_sigs
    out["memory"].pop("regions")  # type: ignore[attr-defined]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
