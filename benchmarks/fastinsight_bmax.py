"""FastInsight query processing time vs the node budget b_max (FastInsight §5.2.1, Fig. 4).

For b_max in {10, 30, 100} (BATCH=10, α=0.2, β=1) each MuSiQue question runs through Algorithm 1
with the reranker's own ``features`` (every retrieved passage is encoded once, so a run encodes
b_max passages, the paper's count of O_m calls). Reference in the same process: Re2 reranking the
top-b_max vector hits with the same reranker (same number of reranker inputs). Rerankers: the
default bi-encoder stand-in (MiniLM) and a randomly initialised MiniLM-sized BERT cross-encoder
(timing only: its scores are meaningless). R@10 is reported for the stand-in.

Usage: python benchmarks/fastinsight_bmax.py [--questions N] [--ce-questions M] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._fi_common import minilm_sized_cross_encoder, setup


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--ce-questions", type=int, default=5)
    ap.add_argument("--budgets", default="10,30,100")
    ap.add_argument("--no-cross-encoder", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()

    import numpy as np

    from core.backends.registry import get_reranker
    from core.eval.metrics import recall_at_k
    from core.graph.passage_graph import passage_graph
    from core.methods.fastinsight.loop import fastinsight
    from core.methods.reranking import rank_order

    ws, backends, questions = setup()
    pg = passage_graph(ws.graph)
    vecs = ws.index("chunks").vectors
    budgets = [int(b) for b in args.budgets.split(",")]
    rerankers = [("biencoder (default)", backends.reranker, args.questions)]
    if not args.no_cross_encoder:
        rerankers.append(("MiniLM-sized BERT cross-encoder (random init)",
                          get_reranker(f"cross-encoder:{minilm_sized_cross_encoder()}", device="cpu"), args.ce_questions))
    out: dict[str, dict[str, dict[str, float]]] = {}
    for label, rr, nq in rerankers:
        qs = questions[:nq]
        rr.head(rr.features("warm up", list(pg.passages[:8])))
        out[label] = {}
        print(f"{label}: {len(qs)} questions")
        for b in budgets:
            fi_t, re_t, fi_r, re_r = [], [], [], []
            for q in qs:
                qv = backends.embed_query(q.question)
                t0 = time.perf_counter()
                res = fastinsight(pg, q.question, qv, vecs, rr, batch=10, b_max=b, alpha=0.2, beta=1.0)
                fi_t.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                ids = ws.index("chunks").search(qv, b)[1][0]
                s = rr.head(rr.features(q.question, [pg.passages[int(i)] for i in ids]))
                re_rank = ids[rank_order(s)]
                re_t.append(time.perf_counter() - t0)
                gold = set(q.gold_chunks)
                fi_r.append(recall_at_k([pg.chunk_ids[int(v)] for v in res.ranking], gold, 10))
                re_r.append(recall_at_k([pg.chunk_ids[int(v)] for v in re_rank], gold, 10))
                assert np.isfinite(res.scores).all()
            row = {"fastinsight_qpt_s": round(statistics.fmean(fi_t), 4), "re2_qpt_s": round(statistics.fmean(re_t), 4),
                   "ratio": round(statistics.fmean(fi_t) / statistics.fmean(re_t), 3),
                   "fastinsight_r10": round(100 * statistics.fmean(fi_r), 1), "re2_r10": round(100 * statistics.fmean(re_r), 1)}
            out[label][str(b)] = row
            extra = f"   R@10 FastInsight {row['fastinsight_r10']:5.1f}  Re2 {row['re2_r10']:5.1f}" if "biencoder" in label else ""
            print(f"  b_max={b:>3}: FastInsight {row['fastinsight_qpt_s']:7.3f} s/query   Re2@{b} "
                  f"{row['re2_qpt_s']:7.3f} s/query   ratio {row['ratio']:.3f}{extra}")
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
