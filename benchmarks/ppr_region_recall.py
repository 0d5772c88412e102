"""What PPR on the seeds' region costs in recall: on a graph store (FalkorDB) the
whole graph is not in the app's process, so HippoRAG (v1) PPR runs on the region within
``region_hops`` hops of its seed entities (default 3, capped at 50,000 nodes). This runs the MuSiQue
sample's questions through whole-graph PPR and region PPR in memory — the region PPR's ranking is
the remote store's, exactly (``tests/methods/test_store_same_results.py``) — and reports R@2/5/10,
how many rankings differ, and the region sizes.

Usage: flock /tmp/egx-cpu.lock python benchmarks/ppr_region_recall.py [--questions 100] [--hops 2,3]
       [--embedder bge-small] [--root .cache/test-samples] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--hops", default="2,3")
    ap.add_argument("--embedder", default="")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1] / ".cache" / "test-samples"))
    ap.add_argument("--out")
    args = ap.parse_args()

    import numpy as np

    from core.backends.llm import NoLLM
    from core.backends.registry import DEFAULT_EMBEDDER, get_embedder
    from core.eval.metrics import recall_at_k
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends
    from core.methods.baselines.config import PPRConfig
    from core.methods.baselines.stages import PPRRegionData
    from core.methods.run import run_method

    emb = get_embedder(args.embedder or DEFAULT_EMBEDDER)
    ws = ensure_sample_workspace("musique", emb, root=Path(args.root))
    backends = Backends(emb, NoLLM(), None)
    qs = [q for q in load_questions(ws) if q.gold_chunks][: args.questions]
    configs = {"whole graph": PPRConfig()} | {f"{h}-hop region": PPRConfig(region_hops=int(h))
                                              for h in args.hops.split(",")}
    out: dict = {"embedder": emb.name, "questions": len(qs), "graph": {"nodes": ws.graph.n_nodes,
                                                                       "edges": ws.graph.n_edges}, "runs": {}}
    ranks: dict[str, list[list[str]]] = {}
    for name, cfg in configs.items():
        t0 = time.perf_counter()
        rows, sizes = [], []
        for q in qs:
            r = run_method("ppr", q.question, ws, backends, config=cfg)
            rows.append([c.chunk_id for c in r.ranked_chunks])
            reg = PPRRegionData.of(r.trace)
            if reg is not None:
                sizes.append(reg.nodes)
        ranks[name] = rows
        rec = {f"R@{k}": round(100 * float(np.mean([recall_at_k(rk, q.gold_chunks, k) for rk, q in zip(rows, qs)])), 1)
               for k in (2, 5, 10)}
        if sizes:
            rec["region_nodes"] = {"median": float(np.median(sizes)), "max": int(max(sizes)),
                                   "share_of_graph_median": round(float(np.median(sizes)) / ws.graph.n_nodes, 3)}
            rec["rankings_differing_from_whole_graph"] = sum(a != b for a, b in zip(rows, ranks["whole graph"]))
        rec["seconds_per_question"] = round((time.perf_counter() - t0) / len(qs), 3)
        out["runs"][name] = rec
        print(name, json.dumps(rec), flush=True)
    print(json.dumps(out, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
