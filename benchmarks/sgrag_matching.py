"""SG-RAG path matching: R*-tree index (Alg. 7) vs the brute-force scan, on FB15k-237 slices.

For each slice (the first N triples of FB15k-237's train split) it reports: dominance-model training
time, path-index build time (path enumeration + R*-tree bulk load), and per-query latency of

* exact matching (labels known, dominance test on) — σ, Alg. 7 — index vs brute force;
* wildcard completion (the UNK position open) — Alg. 5 — index vs brute force;

over the query paths of generated bridge-star questions (``core.eval.erqa``) on the slice; the two
matchers are checked to return identical rows on every query. Ratios are brute / index in the same run;
the crossover is the smallest slice where the index is faster.

Usage: python benchmarks/sgrag_matching.py [--sizes 10000,100000,272115] [--questions 100] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from core.backends.embedders import HashingEmbedder
from core.eval.erqa import build_erqa
from core.graph.graph_builder import GraphBuilder
from core.methods.sgrag.config import DominanceConfig
from core.methods.sgrag.dominance import train_dominance
from core.methods.sgrag.index import brute_force_match, build_path_index
from core.methods.sgrag.labels import graph_labels
from core.methods.sgrag.matching import query_node_embeddings
from core.methods.sgrag.query_graph import bridge_star

FB = Path(__file__).resolve().parents[2] / "shared" / "data" / "fb15k237_named"


def fb_slice(n: int):
    ents = dict(ln.split("\t", 1) for ln in (FB / "kgbert_entity2text.txt").read_text().splitlines() if "\t" in ln)
    ent_ids = {}
    for ln in (FB / "openke_entity2id.txt").read_text().splitlines()[1:]:
        k, v = ln.split("\t")
        ent_ids[v] = k
    rel_ids = {}
    for ln in (FB / "openke_relation2id.txt").read_text().splitlines()[1:]:
        k, v = ln.split("\t")
        rel_ids[v] = k
    b = GraphBuilder(name=f"fb15k237-{n}")
    for ln in (FB / "openke_train2id.txt").read_text().splitlines()[1:n + 1]:
        h, t, r = ln.split()
        for e in (ent_ids[h], ent_ids[t]):
            if not b.has_node(e):
                b.add_node(ents[e].strip(), node_id=e)
        b.add_edge(ent_ids[h], rel_ids[r].replace("/", " ").replace("_", " ").strip(), ent_ids[t])
    return b.build()


def timed(fn, reps: int = 1) -> tuple[float, object]:
    t0 = time.perf_counter()
    for _ in range(reps):
        out = fn()
    return (time.perf_counter() - t0) / reps, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,272115")
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--min-degree", type=int, default=6, help="star degree of the generated questions")
    ap.add_argument("--train-stars", type=int, default=1500)
    ap.add_argument("--out")
    args = ap.parse_args()
    emb = HashingEmbedder(dim=64)
    rows = []
    for n in [int(x) for x in args.sizes.split(",")]:
        t0 = time.perf_counter()
        g = fb_slice(n)
        load_s = time.perf_counter() - t0
        labels = graph_labels(g)
        lv = np.asarray(emb.embed(list(labels.names)), np.float32)
        t0 = time.perf_counter()
        model = train_dominance(g, lv[labels.of_node], config=DominanceConfig(max_epochs=args.epochs),
                                max_train_stars=args.train_stars)
        train_s = time.perf_counter() - t0
        ix = build_path_index(g, 1, labels.of_node, lv, model.node_emb)
        qs = build_erqa(g, args.questions, seed=0, min_degree=args.min_degree)
        exact_ix, exact_bf, wild_ix, wild_bf, cands = [], [], [], [], []
        for q in qs:
            qg = bridge_star(list(q.query_entities))
            lab = {n_.id: labels.id_of(n_.label) for n_ in qg.nodes if not n_.unknown}
            full = {**lab, "q0": labels.id_of(q.star)}
            o = query_node_embeddings(qg, full, model, lv)
            for a, b in qg.edges:
                path = (a, b)
                la = np.array([full[x] for x in path])
                dom = np.concatenate([o[x] for x in path])
                ti, ri = timed(lambda ix=ix, la=la, dom=dom: ix.search(la, dom), 3)
                tb, rb = timed(lambda ix=ix, la=la, dom=dom: brute_force_match(ix, la, dom), 3)
                assert np.array_equal(ri, rb)
                exact_ix.append(ti)
                exact_bf.append(tb)
                cands.append(len(ri))
                lw = la.copy()
                lw[0] = -1
                ti, ri = timed(lambda ix=ix, lw=lw: ix.search(lw, None), 3)
                tb, rb = timed(lambda ix=ix, lw=lw: brute_force_match(ix, lw, None), 3)
                assert np.array_equal(ri, rb)
                wild_ix.append(ti)
                wild_bf.append(tb)
        med = statistics.median
        row = {"triples": n, "nodes": g.n_nodes, "edges": g.n_edges, "paths": len(ix.paths),
               "dimension": ix.dimension, "load_s": round(load_s, 2), "dominance_train_s": round(train_s, 2),
               "dominance_epochs": model.epochs, "dominance_converged": model.converged,
               "index_build_s": round(ix.build_seconds, 3), "questions": len(qs), "query_paths": len(exact_ix),
               "exact_index_ms": round(1e3 * med(exact_ix), 4), "exact_brute_ms": round(1e3 * med(exact_bf), 4),
               "exact_ratio_brute_over_index": round(med(exact_bf) / med(exact_ix), 2),
               "wildcard_index_ms": round(1e3 * med(wild_ix), 4), "wildcard_brute_ms": round(1e3 * med(wild_bf), 4),
               "wildcard_ratio_brute_over_index": round(med(wild_bf) / med(wild_ix), 2),
               "identical_results": True}
        rows.append(row)
        print(json.dumps(row))
    cross = {k: next((r["triples"] for r in rows if r[f"{k}_ratio_brute_over_index"] > 1.0), None)
             for k in ("exact", "wildcard")}
    print("\n| triples | paths | train s | build s | exact idx ms | exact brute ms | ratio | wildcard idx ms | "
          "wildcard brute ms | ratio |\n|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['triples']:,} | {r['paths']:,} | {r['dominance_train_s']} | {r['index_build_s']} | "
              f"{r['exact_index_ms']} | {r['exact_brute_ms']} | {r['exact_ratio_brute_over_index']} | "
              f"{r['wildcard_index_ms']} | {r['wildcard_brute_ms']} | {r['wildcard_ratio_brute_over_index']} |")
    print(f"crossover (first slice where the index is faster): {cross}")
    if args.out:
        Path(args.out).write_text(json.dumps({"rows": rows, "crossover_triples": cross}, indent=2))


if __name__ == "__main__":
    main()
