"""Methods on a FalkorDB workspace vs in memory: process memory, seconds per question and
identical results, for the methods that read only what they need from a graph store.

Builds the MuSiQue sample workspace (HashingEmbedder dim 128, ``none`` mode: no model download), a
copy whose graph lives in a local FalkorDB server, and runs each method of ``--methods`` on the first
``--questions`` questions twice, each in a fresh child process: once on the in-memory workspace
(which loads ``graph.json.gz``), once on the store workspace. BubbleRAG reads through a per-question
:class:`core.graph.view.StoreGraphView` (G' is the store's h-hop region). ReG reads each question's 3-hop region
(:func:`core.methods.reg.pipeline.run`); dense and Re2 read their ranked chunk rows
(:class:`core.methods.passages.PassageSource`); PPR reads the 3-hop region of its seeds and that
region's passage incidence (in memory it is given ``region_hops=3`` so both rank on the same region).
FastInsight (KG nodes, §4.2.2) reads the node texts, neighbour rows and degrees its loop touches
(:class:`core.methods.fastinsight.store_graph.StoreNodeGraph`); its node vectors are embedded before
the questions (on the store: from the store's node texts, page by page) and that time is reported.
Each child reports its RSS after opening the workspace and its FAISS indexes, after the questions,
its peak RSS (VmHWM), the seconds per question per method, whether the whole graph was loaded, the
region sizes (ReG), and a signature of every result; the parent checks the signatures are equal and
writes JSON.

Usage: flock /tmp/egx-cpu.lock .venv/bin/python benchmarks/store_methods.py [--questions 20]
       [--methods reg,dense,rerank,ppr] [--out benchmarks/results/store_methods.json]
(``benchmarks/results/reg_store_regions_2026-11-23.json`` is the first run, ReG only, when the
script was ``reg_store_regions.py``.)
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
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.baselines.config import PPRConfig
    from core.methods.fastinsight.stages import NodePassagesData
    from core.methods.reg.stages import NeighbourhoodData
    from core.methods.run import run_method

    r0 = _status("VmRSS")
    emb = HashingEmbedder(dim=128)
    backends = Backends(emb, NoLLM(), BiEncoderReranker(emb))
    ws = Workspace.open(args.workspace)
    ws.index("nodes", emb), ws.index("edges")
    ws.index("chunks", emb)
    node_vectors_s = None
    if "fastinsight" in args.methods.split(","):
        from core.methods.fastinsight.node_vectors import node_vectors

        t0 = time.perf_counter()
        node_vectors(ws, emb)
        node_vectors_s = round(time.perf_counter() - t0, 3)
    r1 = _status("VmRSS")
    questions = json.loads(Path(args.questions_file).read_text())
    remote = ws.store_url != "memory:"
    times: dict[str, list[float]] = {}
    sigs, regions = [], []
    for method in args.methods.split(","):
        # PPR in memory walks the whole graph unless asked for the store's region
        config = PPRConfig(region_hops=3) if method == "ppr" and not remote else None
        for q in questions:
            t0 = time.perf_counter()
            r = run_method(method, q, ws, backends, config=config)
            times.setdefault(method, []).append(time.perf_counter() - t0)
            sigs.append([method] + [[c.chunk_id, round(c.score, 9)] for c in r.ranked_chunks]  # type: ignore[attr-defined]
                        + [r.answer])  # type: ignore[attr-defined]
            if method == "reg":
                hood = NeighbourhoodData.of(r.trace)
                assert hood is not None, "a ReG run records its neighbourhood step"
                regions.append({k: v for k, v in (("region_nodes", hood.region_nodes), ("region_edges", hood.region_edges),
                                                  ("region_hops", hood.region_hops), ("capped", hood.capped))
                                if v is not None} | {"triples": hood.triples})
            if method == "fastinsight" and remote:
                mapped = NodePassagesData.of(r.trace)
                assert mapped is not None and mapped.store_reads is not None, "a store run counts its reads"
                regions.append(mapped.store_reads)
    out = {"rss_mb": {"start": round(r0), "opened": round(r1),
                      "after": round(_status("VmRSS")), "peak": round(_status("VmHWM"))},
           "whole_graph_loaded": "graph" in ws.__dict__, "store": ws.store_url,
           "seconds_per_question": {m: {"mean": round(float(np.mean(t)), 4), "p50": round(float(np.median(t)), 4),
                                        "max": round(float(np.max(t)), 4)} for m, t in times.items()},
           "regions": regions, "sigs": sigs, "fastinsight_node_vectors_seconds": node_vectors_s}
    Path(args.child_out).write_text(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--methods", default="reg,dense,rerank,ppr", help="comma-separated (default: %(default)s)")
    ap.add_argument("--root", default=str(ROOT / ".cache" / "bench-reg-store"))
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / f"store_methods_{time.strftime('%Y-%m-%d')}.json"))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--workspace", help=argparse.SUPPRESS)
    ap.add_argument("--questions-file", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return

    from core.backends.embedders import HashingEmbedder
    from core.graph.stores.falkor_server import FalkorServer
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace
    from core.index.workspace import Workspace

    root = Path(args.root)
    mem = ensure_sample_workspace("musique", HashingEmbedder(dim=128), root=root / "mem")
    questions = [q.question for q in load_questions(mem)][:args.questions]
    qfile = root / "questions.json"
    qfile.write_text(json.dumps(questions))
    out: dict[str, object] = {"questions": len(questions), "graph": mem.manifest.get("graph", {}),
                              "methods": args.methods.split(","),
                              "config": "defaults, none mode (ReG: untrained cosine fallback); PPR in memory with "
                                        "region_hops=3, the store's default region"}
    with FalkorServer(root / "falkordb") as server:
        dst = root / "store" / "musique"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(mem.path, dst)
        Workspace.open(dst).move_to_store(server.url("bench_reg_musique"), overwrite=True)
        for name, path in (("memory", mem.path), ("falkordb", dst)):
            res = root / f"child-{name}.json"
            subprocess.run([sys.executable, __file__, "--child", "--workspace", str(path), "--questions-file",
                            str(qfile), "--child-out", str(res), "--methods", args.methods], check=True)
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
