"""Graph store at scale: a synthetic KG with a skewed degree distribution loaded
into FalkorDB; BubbleRAG's localize + expansion + ranking per question with the remote store vs in
memory on the same graph; the RSS of a process that uses only the remote store; the h-hop cap on hubs.

The graph: ``--nodes`` entities and ``--edges`` directed edges whose endpoints are drawn with
probability ∝ (rank + 10)^-``--skew`` (a Zipf-like head: a few hubs with tens of thousands of
edges, a long tail of degree 1-3, like OpenIE KGs), 64 relation labels, one provenance chunk per
1000 edges. Questions: 2-3 anchor groups of 1-2 node anchors each, drawn uniformly among nodes with
an edge (so most questions never touch a hub), plus ``--hub-questions`` anchored at the top hubs.
Node vectors are random unit vectors (dim 32, seeded): costs need *some* vectors, and the store
path does not depend on which.

Per question both paths run BubbleRAG §3.3-3.4 with the paper defaults (h = 6, |V'| ≤ 50,000,
B = 10): in memory, :func:`localized_graph` on the whole graph; remote, the store's capped h-hop
region (:meth:`FalkorStore.region`) then the same stages on that region. The CEGs are compared
(they must be identical). The remote timing runs in a child process that never builds the whole
graph: its RSS before and after the questions is the app-side cost of the remote store.

Usage: flock /tmp/egx-cpu.lock python benchmarks/store_scale.py [--edges 5000000] [--nodes 1000000]
       [--questions 30] [--out benchmarks/results/store_scale.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

DIM = 32


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def synthetic_graph(n_nodes: int, n_edges: int, skew: float, seed: int):  # -> KnowledgeGraph
    from core.graph.model import Chunk, KnowledgeGraph

    rng = np.random.default_rng(seed)
    p = (np.arange(n_nodes) + 10.0) ** -skew
    p /= p.sum()
    perm = rng.permutation(n_nodes)  # hubs are spread over the id space
    h = perm[rng.choice(n_nodes, size=n_edges, p=p)].astype(np.int32)
    t = perm[rng.choice(n_nodes, size=n_edges, p=p)].astype(np.int32)
    rels = tuple(f"relation {i}" for i in range(64))
    rel_idx = rng.integers(0, 64, size=n_edges)
    n_chunks = max(1, n_edges // 1000)
    chunk_ids = tuple(f"c{i}" for i in range(n_chunks))
    return KnowledgeGraph(
        node_ids=tuple(f"n{i}" for i in range(n_nodes)),
        node_names=tuple(f"entity {i}" for i in range(n_nodes)),
        node_descriptions=("",) * n_nodes,
        node_chunks=((),) * n_nodes,
        edge_head=h, edge_tail=t,
        edge_relation=tuple(rels[i] for i in rel_idx.tolist()),
        edge_chunks=tuple((chunk_ids[e // 1000 % n_chunks],) for e in range(n_edges)),
        chunks=tuple(Chunk(c, f"passage {c}", f"text of {c}") for c in chunk_ids),
        name="synthetic")


def node_vectors(n_nodes: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed + 1).standard_normal((n_nodes, DIM)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def questions(degree: np.ndarray, n: int, hubs: int, seed: int) -> list[list[list[int]]]:
    rng = np.random.default_rng(seed + 2)
    live = np.flatnonzero(degree > 0)
    out = [[rng.choice(live, size=int(rng.integers(1, 3)), replace=False).tolist()
            for _ in range(int(rng.integers(2, 4)))] for _ in range(n)]
    top = np.argsort(-degree, kind="stable")[:hubs]
    for v in top.tolist():  # a hub anchor plus an ordinary one
        out.append([[int(v)], rng.choice(live, size=1).tolist()])
    return out


def stages(graph, terminals_groups, vecs, qvec, *, h: int, cap: int):
    """localize + expansion + ranking on ``graph`` (whole graph or region, local ids)."""
    from core.methods.bubblerag.candidates import Candidate
    from core.methods.bubblerag.expansion import bubble_expansion
    from core.methods.bubblerag.grouping import AnchorGroup
    from core.methods.bubblerag.localize import localized_graph
    from core.methods.bubblerag.ranking import rank_cegs

    groups = [AnchorGroup(g, f"g{g}", 1.0 / len(terminals_groups),
                          tuple(Candidate(f"c{g}_{j}", "node", int(v), "", 1.0, ("k",)) for j, v in enumerate(grp)))
              for g, grp in enumerate(terminals_groups)]
    terms = {v for grp in groups for v in grp.terminals(graph)}
    local = localized_graph(graph, terms, vecs, qvec, h=h, max_nodes=cap)
    exp = bubble_expansion(graph, local, groups, budget=10)
    cost = {int(v): float(c) for v, c in zip(local.nodes.tolist(), local.cost.tolist())}
    ranked = rank_cegs(exp.cegs, cost, np.array([g.weight for g in groups]), alpha=1.0)
    return local, ranked


def signature(ranked, nodes_map=None, edges_map=None) -> list:
    def n(x):
        return [int(nodes_map[v]) if nodes_map is not None else int(v) for v in x]

    def e(x):
        return [int(edges_map[v]) if edges_map is not None else int(v) for v in x]

    return [[sorted(n(r.ceg.nodes)), sorted(e(r.ceg.edges)), round(r.score, 9)] for r in ranked]


def remote_child(args: argparse.Namespace) -> None:
    """The app-side process with the remote store: never holds the whole graph."""
    from core.graph.stores import open_store

    r0 = rss_mb()
    store = open_store(args.url)
    vecs = node_vectors(store.n_nodes, args.seed)
    r1 = rss_mb()
    qs = json.loads(Path(args.questions_file).read_text())
    qvec = node_vectors(1, args.seed + 7)[0]
    times, sigs, info = [], [], []
    for grp in qs:
        t0 = time.perf_counter()
        seeds = sorted({v for g in grp for v in g})
        region = store.region(seeds, hops=args.h, max_nodes=args.cap)
        t1 = time.perf_counter()
        loc = region.local_nodes
        local_groups = [loc(g).tolist() for g in grp]
        _local, ranked = stages(region.graph, local_groups, vecs[region.nodes], qvec, h=args.h, cap=args.cap)
        t2 = time.perf_counter()
        times.append([t1 - t0, t2 - t1])
        sigs.append(signature(ranked, region.nodes, region.edges))
        info.append({"region_nodes": int(region.nodes.size), "region_edges": int(region.edges.size),
                     "hops": region.hops, "capped": region.capped})
    r2 = rss_mb()
    Path(args.child_out).write_text(json.dumps({"times": times, "sigs": sigs, "info": info,
                                                "rss_mb": {"start": r0, "with_vectors": r1, "after": r2}}))


def pct(xs, q) -> float:
    return round(float(np.percentile(xs, q)) * 1000, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--edges", type=int, default=5_000_000)
    ap.add_argument("--skew", type=float, default=0.9)
    ap.add_argument("--questions", type=int, default=30)
    ap.add_argument("--hub-questions", type=int, default=3)
    ap.add_argument("--h", type=int, default=6)
    ap.add_argument("--cap", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--out")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--questions-file", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        remote_child(args)
        return

    from core.graph.stores.falkor_load import load_graph_into
    from core.graph.stores.falkor_server import FalkorServer
    from core.graph.stores.store import parse_store_url

    out: dict = {"nodes": args.nodes, "edges": args.edges, "skew": args.skew, "h": args.h, "cap": args.cap}
    t0 = time.perf_counter()
    g = synthetic_graph(args.nodes, args.edges, args.skew, args.seed)
    deg = g.degree
    out["generate_s"] = round(time.perf_counter() - t0, 1)
    out["degree"] = {"max": int(deg.max()), "p99": float(np.percentile(deg, 99)), "median": float(np.median(deg)),
                     "isolated": int((deg == 0).sum()), "top5": np.sort(deg)[-5:][::-1].tolist()}
    print(json.dumps(out), flush=True)
    with FalkorServer(Path(os.environ.get("TMPDIR", "/tmp")) / f"egx-store-scale-{os.getpid()}",
                      ready_timeout=30) as srv:
        url = srv.url("synthetic")
        t0 = time.perf_counter()
        load = load_graph_into(g, parse_store_url(url), batch=args.batch,
                               progress=lambda m, f: None)
        out["load_s"] = round(time.perf_counter() - t0, 1)
        out["load_edges_per_s"] = round(args.edges / out["load_s"])
        import redis

        info = redis.Redis(port=srv.port).info("memory")
        out["server_used_memory_mb"] = round(info["used_memory"] / 2**20)
        print(json.dumps({k: out[k] for k in ("load_s", "load_edges_per_s", "server_used_memory_mb")}), flush=True)
        del load

        qs = questions(deg, args.questions, args.hub_questions, args.seed)
        qfile = Path(srv.data_dir) / "questions.json"
        qfile.write_text(json.dumps(qs))
        vecs = node_vectors(args.nodes, args.seed)
        qvec = node_vectors(1, args.seed + 7)[0]
        g.csr  # noqa: B018 - built once, like a loaded workspace
        mem_t, mem_sigs, mem_info = [], [], []
        for grp in qs:
            t0 = time.perf_counter()
            local, ranked = stages(g, grp, vecs, qvec, h=args.h, cap=args.cap)
            mem_t.append(time.perf_counter() - t0)
            mem_sigs.append(signature(ranked))
            mem_info.append({"nodes": local.n_nodes, "h": local.h, "capped": local.capped})
        out["memory_process_rss_mb"] = round(rss_mb())
        child_out = Path(srv.data_dir) / "child.json"
        subprocess.run([sys.executable, __file__, "--child", "--url", url, "--questions-file", str(qfile),
                        "--child-out", str(child_out), "--h", str(args.h), "--cap", str(args.cap),
                        "--seed", str(args.seed)], check=True)
        child = json.loads(child_out.read_text())
    n = args.questions
    rt = [a + b for a, b in child["times"]]
    out["same_cegs"] = sum(a == b for a, b in zip(mem_sigs, child["sigs"]))
    out["questions"] = len(qs)
    out["ordinary"] = {
        "memory_ms": {"median": pct(mem_t[:n], 50), "p95": pct(mem_t[:n], 95)},
        "remote_ms": {"median": pct(rt[:n], 50), "p95": pct(rt[:n], 95)},
        "remote_region_fetch_ms": {"median": pct([a for a, _ in child["times"][:n]], 50),
                                   "p95": pct([a for a, _ in child["times"][:n]], 95)},
        "region_nodes": {"median": float(np.median([i["region_nodes"] for i in child["info"][:n]])),
                         "max": max(i["region_nodes"] for i in child["info"][:n])},
        "capped": sum(i["capped"] for i in child["info"][:n]),
    }
    out["hubs"] = [{"hub_degree": int(deg[grp[0][0]]), "memory_ms": round(mem_t[n + k] * 1000, 1),
                    "remote_ms": round(rt[n + k] * 1000, 1), **child["info"][n + k]}
                   for k, grp in enumerate(qs[n:])]
    out["remote_process_rss_mb"] = {k: round(v) for k, v in child["rss_mb"].items()}
    out["node_vectors_mb"] = round(args.nodes * DIM * 4 / 2**20)
    print(json.dumps(out, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
