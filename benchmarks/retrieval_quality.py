"""Retrieval quality on MuSiQue: R@k and nDCG@10 of dense, Re2, PPR and FastInsight (FastInsight §5.1).

Every method runs through the method registry on the MuSiQue sample workspace (1,890 passages,
GPT-3.5 OpenIE KG; FastInsight on its default KG nodes and on the derived shared-entity passage
graph, ``graph="passages"``) with the same
embedder, the default reranker (the bi-encoder stand-in unless ``--reranker`` names another) and
no LLM. Gold passages are the ``is_supporting`` paragraphs. Also reported: Topological Recall /
MissTR of the top 10 on the graph each method searched (KG nodes for FastInsight's default, the
passage graph otherwise; :func:`core.eval.result_metrics.topological_metrics`), and FastInsight ablations (α = 0: no GRanker
smoothing; β = 0: similarity-only expansion).

Usage: python benchmarks/retrieval_quality.py [--questions N] [--embedder minilm] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._fi_common import setup


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--reranker", default="biencoder")
    ap.add_argument("--no-ablations", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()

    from dataclasses import replace

    from core.backends.registry import get_reranker
    from core.eval.metrics import ndcg_at_k, recall_at_k
    from core.eval.result_metrics import topological_metrics
    from core.methods.fastinsight import FastInsightConfig, passage_graph
    from core.methods.registry import get_method

    ws, backends, questions = setup(args.embedder)
    if args.reranker != "biencoder":
        backends = replace(backends, reranker=get_reranker(args.reranker, embedder=backends.embedder))
    qs = questions[: args.questions]
    pg = passage_graph(ws.graph)
    runs: list[tuple[str, str, object | None]] = [("dense", "dense", None), ("rerank", "Re2", None),
                                                  ("ppr", "PPR (HippoRAG)", None),
                                                  ("fastinsight", "FastInsight (KG nodes)", None),
                                                  ("fastinsight", "FastInsight (passage graph)",
                                                   FastInsightConfig(graph="passages"))]
    if not args.no_ablations:
        runs += [("fastinsight", "FastInsight α=0 (no GRanker smoothing)", FastInsightConfig(alpha=0.0)),
                 ("fastinsight", "FastInsight β=0 (similarity-only STeX)", FastInsightConfig(beta=0.0))]
    table = {}
    print(f"MuSiQue: {len(qs)} questions, {pg.n} passages, passage graph {pg.n_edges} edges; embedder "
          f"{backends.embedder.model_id}; reranker {backends.reranker.model_id}")
    print(f"{'method':<42} {'R@2':>6} {'R@5':>6} {'R@10':>6} {'nDCG@10':>8} {'TR@10':>6} {'MissTR':>7} {'ms/q':>7}")
    for name, label, cfg in runs:
        run = get_method(name).run
        run(qs[0].question, ws, config=cfg, backends=backends)  # warm caches (passage/entity graphs)
        rows = {"r2": [], "r5": [], "r10": [], "ndcg": [], "tr": [], "miss": [], "t": []}
        for q in qs:
            t0 = time.perf_counter()
            res = run(q.question, ws, config=cfg, backends=backends)
            rows["t"].append(time.perf_counter() - t0)
            ids = [c.chunk_id for c in res.ranked_chunks]
            for k in (2, 5, 10):
                rows[f"r{k}"].append(recall_at_k(ids, q.gold_chunks, k))
            rows["ndcg"].append(ndcg_at_k(ids, q.gold_chunks, 10))
            tm = topological_metrics(ws, ids, q.gold_chunks, result=res)
            rows["tr"].append(tm.get("TR", 0.0))
            rows["miss"].append(tm.get("MissTR", 0.0))
        m = {k: round(100 * statistics.fmean(v), 1) for k, v in rows.items() if k != "t"}
        m["ms_per_query"] = round(1000 * statistics.fmean(rows["t"]), 1)
        table[label] = m
        print(f"{label:<42} {m['r2']:>6} {m['r5']:>6} {m['r10']:>6} {m['ndcg']:>8} {m['tr']:>6} {m['miss']:>7} "
              f"{m['ms_per_query']:>7}")
    if args.out:
        Path(args.out).write_text(json.dumps(table, indent=2))


if __name__ == "__main__":
    main()
