"""FastInsight's node vectors computed lazily (``node_vectors="lazy"``) against the full precompute, on the
MuSiQue sample: what each costs and what the lazy pool does to retrieval.

In one process, with the shipped backends (bge-small, the bundled cross-encoder, ``none`` mode):

* **quality** — every question run with the precomputed node vectors (read from the workspace's cache: they
  must exist, e.g. after `egx index --workspace DIR --prepare fastinsight`) and lazily (one lazy cache,
  empty at the start and filled as the questions go, as a bench or an app session fills it), the two
  alternating question by question: R@5 of the passages and node R@10 (FastInsight §4.3.1), the paired
  bootstrap interval of lazy − precomputed (``core.eval.stats.paired_interval``), the questions whose R@5
  differs, seconds per question, node texts embedded per question;
* **cold first answer** — for the first ``--cold`` questions, a lazy run on an *empty* lazy cache (a new
  cache folder, nothing kept in memory) against a precomputed run of the same question, alternating:
  seconds, and the node texts the lazy run embedded;
* **build time saved** — the node texts a precompute embeds (every node) at this run's lazy embedding rate,
  against what the lazy runs embedded for all the questions.

The workspace is changed (its lazy cache folders): run it on a copy. Usage::

    flock /tmp/egx-cpu.lock python benchmarks/lazy_node_vectors.py --workspace COPY_OF_MUSIQUE \\
        [--questions 100] [--cold 10] [--pool 20] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _clear_lazy(ws: object) -> None:
    from core.methods.fastinsight import lazy_vectors as lv

    for d in (ws.index_dir / "extra").glob("*.lazy-*"):  # type: ignore[attr-defined]
        shutil.rmtree(d)
    lv._OPEN.clear()  # nothing kept in memory either: what a new process has


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workspace", required=True, help="a copy of the MuSiQue sample workspace (its lazy cache is written)")
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--cold", type=int, default=10, help="questions timed with an empty lazy cache")
    ap.add_argument("--pool", type=int, default=20, help="lazy_pool_passages")
    ap.add_argument("--out", help="write the figures as JSON here")
    args = ap.parse_args()

    from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER, get_embedder, get_llm, get_reranker
    from core.eval.result_metrics import node_metrics, retrieval_metrics
    from core.eval.stats import paired_interval
    from core.index.questions import load_questions
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.fastinsight import FastInsightConfig, run
    from core.methods.fastinsight.node_vectors import has_node_vectors
    from core.methods.fastinsight.stages import LazyNodeVectorsData

    emb = get_embedder(DEFAULT_EMBEDDER)
    backends = Backends(emb, get_llm("none"), get_reranker(DEFAULT_RERANKER, embedder=emb))
    ws = Workspace.open(args.workspace)
    if not has_node_vectors(ws, emb):
        raise SystemExit(f"{ws.path} holds no precomputed node vectors for {emb.name}: run "
                         f"`egx index --workspace {ws.path} --prepare fastinsight` first.")
    qs = [q for q in load_questions(ws) if q.gold_chunks][: args.questions]
    pre_cfg, lazy_cfg = FastInsightConfig(), FastInsightConfig(node_vectors="lazy", lazy_pool_passages=args.pool)
    run(qs[0].question, ws, backends=backends)  # warm-up: sessions, the graph, the precomputed file's page cache

    def one(q: object, cfg: FastInsightConfig) -> tuple[dict[str, float], float, dict[str, int]]:
        t0 = time.perf_counter()
        res = run(q.question, ws, backends=backends, config=cfg)  # type: ignore[attr-defined]
        dt = time.perf_counter() - t0
        m = retrieval_metrics([c.chunk_id for c in res.ranked_chunks], q.gold_chunks, unmatched=q.unmatched)  # type: ignore[attr-defined]
        m.update(node_metrics(ws, q.gold_chunks, result=res))  # type: ignore[attr-defined]
        lazy = LazyNodeVectorsData.of(res.trace)
        return m, dt, ({**lazy.data(), "seconds": res.trace.stage(lazy.STAGE)[0].seconds} if lazy is not None else {})

    # the pool against the paper's initial search (no reranker needed): is the precompute's top BATCH inside it?
    from core.methods.fastinsight.lazy_vectors import top_passages
    from core.methods.fastinsight.loop import vector_search
    from core.methods.fastinsight.node_vectors import node_vectors

    ng, cached = node_vectors(ws, emb)
    chunk_ids = [c.id for c in ws.graph.chunks]
    coverage: dict[str, dict[str, float]] = {}
    for size in (5, 10, 20, 40):
        held, sizes, share = 0, [], []
        for q in qs:
            qv = backends.embed_query(q.question)
            initial = set(vector_search(qv, cached.vectors, pre_cfg.batch)[0].tolist())
            pool = set(ng.gold_nodes([chunk_ids[int(r)] for r in top_passages(ws.index("chunks", emb).scores(qv), size)]).tolist())
            held += initial <= pool
            share.append(len(initial & pool) / len(initial))
            sizes.append(len(pool))
        coverage[str(size)] = {"initial_search_held": held, "of": len(qs), "initial_nodes_in_pool": statistics.fmean(share),
                               "pool_nodes_median": statistics.median(sizes)}
        print(f"pool of {size} passages: {statistics.median(sizes)} nodes; the initial top {pre_cfg.batch} held "
              f"whole for {held}/{len(qs)} questions", flush=True)

    # cold first answers: an empty lazy cache each time
    cold = []
    for q in qs[: args.cold]:
        _clear_lazy(ws)
        _, t_lazy, st = one(q, lazy_cfg)
        _, t_pre, _ = one(q, pre_cfg)
        cold.append({"lazy_s": t_lazy, "precomputed_s": t_pre, "embedded": st["embedded_now"],
                     "pool_nodes": st["pool_nodes"], "reached": st["reached"]})
        print(f"cold  lazy {t_lazy:6.2f} s ({st['embedded_now']} texts)  precomputed {t_pre:6.2f} s", flush=True)

    # quality: one lazy cache filled as the questions go
    _clear_lazy(ws)
    rows = []
    for i, q in enumerate(qs):
        mp, tp, _ = one(q, pre_cfg)
        ml, tl, st = one(q, lazy_cfg)
        rows.append({"id": q.id, "pre": mp, "lazy": ml, "pre_s": tp, "lazy_s": tl, **st})
        print(f"{i + 1:3d}  R@5 {mp.get('R@5', 0):.2f}/{ml.get('R@5', 0):.2f}  node R@10 "
              f"{mp.get('node R@10', float('nan')):.2f}/{ml.get('node R@10', float('nan')):.2f}  "
              f"{tp:5.2f}/{tl:5.2f} s  embedded {st['embedded_now']}", flush=True)

    out: dict[str, object] = {"questions": len(rows), "pool_passages": args.pool, "nodes": ws.graph.n_nodes,
                              "embedder": emb.model_id, "reranker": backends.reranker.model_id}  # type: ignore[union-attr]
    for key in ("R@5", "node R@10"):
        both = [r for r in rows if key in r["pre"] and key in r["lazy"]]
        a, b = [r["lazy"][key] for r in both], [r["pre"][key] for r in both]
        iv = paired_interval(a, b)
        out[key] = {"precomputed": statistics.fmean(b), "lazy": statistics.fmean(a), "lazy_minus_precomputed": iv.mean,
                    "interval": [iv.low, iv.high], "n": iv.n, "differ": sum(x != y for x, y in zip(a, b))}
    embedded = sum(int(r["embedded_now"]) for r in rows)
    embed_s = sum(float(r.get("seconds", 0.0)) for r in rows)
    out["per_question"] = {
        "precomputed_s_median": statistics.median(r["pre_s"] for r in rows),
        "lazy_s_median": statistics.median(r["lazy_s"] for r in rows),
        "pool_nodes_median": statistics.median(r["pool_nodes"] for r in rows),
        "reached_median": statistics.median(r["reached"] for r in rows),
        "embedded_first10": [r["embedded_now"] for r in rows[:10]],
        "embedded_last10": [r["embedded_now"] for r in rows[-10:]]}
    rate = embedded / embed_s if embed_s else float("nan")
    out["embedding"] = {"lazy_texts_all_questions": embedded, "of_nodes": ws.graph.n_nodes,
                        "lazy_texts_per_s": rate, "precompute_s_at_this_rate": ws.graph.n_nodes / rate if embed_s else None}
    if cold:
        out["cold"] = {"questions": len(cold), "lazy_s_median": statistics.median(c["lazy_s"] for c in cold),
                       "precomputed_s_median": statistics.median(c["precomputed_s"] for c in cold),
                       "ratio_median": statistics.median(c["lazy_s"] / c["precomputed_s"] for c in cold),
                       "embedded_median": statistics.median(c["embedded"] for c in cold), "runs": cold}
    out["pool_coverage"] = coverage
    out["rows"] = rows
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=1))
    if args.out:
        from core.fsio import atomic_write_json

        atomic_write_json(args.out, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
