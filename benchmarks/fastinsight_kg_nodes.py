"""FastInsight on KG nodes vs on the derived passage graph vs dense, on MuSiQue.

FastInsight §4.2.2 retrieves the *nodes* of a text-rich KG; ``FastInsightConfig.graph`` picks
``"kg_nodes"`` (the default: node text = name + description + linked passage text, 512 characters,
KG edges) or ``"passages"`` (passages sharing an entity). Both are scored on passages (the node
ranking is mapped to its passages in rank order), with TR / MissTR on the graph each searched.
Also reported: the first-use node embedding time (the node vectors are deleted first with
``--fresh``, so it is measured; otherwise a cached file is reused and reported as such).

Usage: python benchmarks/fastinsight_kg_nodes.py [--questions 100] [--embedder bge-small]
       [--reranker ms-marco-minilm] [--fresh] [--out benchmarks/results/fastinsight_kg_nodes_DATE.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._fi_common import setup


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--embedder", default="bge-small")
    ap.add_argument("--reranker", default="ms-marco-minilm")
    ap.add_argument("--fresh", action="store_true", help="delete cached node vectors first (measure first use)")
    ap.add_argument("--out", default=f"benchmarks/results/fastinsight_kg_nodes_{time.strftime('%Y-%m-%d')}.json")
    args = ap.parse_args()

    from dataclasses import replace

    from core.backends.registry import get_reranker
    from core.eval.metrics import ndcg_at_k, recall_at_k
    from core.eval.result_metrics import topological_metrics
    from core.methods.fastinsight import FastInsightConfig
    from core.methods.fastinsight.node_graph import node_graph
    from core.methods.fastinsight.node_vectors import node_vectors
    from core.methods.registry import get_method

    t0 = time.perf_counter()
    ws, backends, questions = setup(args.embedder)
    setup_s = time.perf_counter() - t0
    backends = replace(backends, reranker=get_reranker(args.reranker, embedder=backends.embedder))
    qs = questions[: args.questions]
    if args.fresh:
        shutil.rmtree(ws.index_dir / "extra", ignore_errors=True)
    ng = node_graph(ws.graph)
    t0 = time.perf_counter()
    _, cached = node_vectors(ws, backends.embedder)
    first_use = {"node_texts": ng.n, "embedded_now": cached.built, "seconds": round(time.perf_counter() - t0, 1)}
    print(f"MuSiQue: {len(qs)} questions; {ng.n} KG nodes ({ng.n_edges} edges); embedder "
          f"{backends.embedder.model_id}; reranker {backends.reranker.model_id}; node vectors "
          f"{'embedded' if cached.built else 'read from cache'} in {first_use['seconds']} s")
    runs = [("dense", "dense", None),
            ("fastinsight", "FastInsight, KG nodes (default, §4.2.2)", FastInsightConfig(graph="kg_nodes")),
            ("fastinsight", "FastInsight, passage graph", FastInsightConfig(graph="passages"))]
    table: dict[str, dict[str, float]] = {}
    print(f"{'method':<42} {'R@2':>6} {'R@5':>6} {'R@10':>6} {'nDCG@10':>8} {'TR':>6} {'MissTR':>7} {'s/q':>6}")
    for name, label, cfg in runs:
        run = get_method(name).run
        rows: dict[str, list[float]] = {k: [] for k in ("r2", "r5", "r10", "ndcg", "tr", "miss", "t")}
        for q in qs:
            t = time.perf_counter()
            res = run(q.question, ws, config=cfg, backends=backends)
            rows["t"].append(time.perf_counter() - t)
            ids = [c.chunk_id for c in res.ranked_chunks]
            for k in (2, 5, 10):
                rows[f"r{k}"].append(recall_at_k(ids, q.gold_chunks, k))
            rows["ndcg"].append(ndcg_at_k(ids, q.gold_chunks, 10))
            tm = topological_metrics(ws, ids, q.gold_chunks, result=res)
            if tm:
                rows["tr"].append(tm["TR"])
                rows["miss"].append(tm["MissTR"])
        m = {k: round(100 * statistics.fmean(v), 1) for k, v in rows.items() if k != "t" and v}
        m["s_per_query"] = round(statistics.fmean(rows["t"]), 3)
        table[label] = m
        print(f"{label:<42} {m['r2']:>6} {m['r5']:>6} {m['r10']:>6} {m['ndcg']:>8} {m.get('tr', 0):>6} "
              f"{m.get('miss', 0):>7} {m['s_per_query']:>6}")
    out = {"command": " ".join(["python", *sys.argv]), "questions": len(qs), "embedder": backends.embedder.model_id,
           "reranker": backends.reranker.model_id, "llm": "none", "setup_seconds": round(setup_s, 1),
           "first_use_node_embedding": first_use, "results": table,
           "note": "R@k and nDCG@10 on passages (the node ranking mapped to passages in rank order); TR/MissTR on "
                   "the graph each mode searched (KG nodes: top 10 nodes vs the gold nodes; passages: top 10 "
                   "passages on the passage graph; dense: the passage graph)."}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2), encoding="utf-8")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
