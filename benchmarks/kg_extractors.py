"""KGs built without an LLM vs the GPT-3.5 OpenIE KG on MuSiQue.

Three workspaces from the same 1,890-passage MuSiQue corpus (the HippoRAG tuning set in
``sample_data/musique``), one embedder (the default ``bge-small``):

* ``openie`` — the corpus + HippoRAG's GPT-3.5-turbo OpenIE triples (today's bundled sample);
* ``spacy`` — the corpus alone, triples by :class:`core.backends.spacy_extractor.SpacyExtractor`;
* ``rules`` — the corpus alone, triples by the rule-based extractor.

For each: nodes, edges, mean degree; extraction throughput (passages/s, measured on an empty
extraction cache in this process) and index build time; the share of gold passages connected to a
question entity within 2 hops (question entities found and linked exactly as the ``ppr`` method
does in ``none`` mode: capitalized mentions and years, each linked to its nearest node by
embedding cosine; a gold passage counts when a node within 2 hops of a linked node cites it); and
``egx bench`` (``core.eval.runner.run_benchmark``) R@2 / R@5 for ``--methods`` on the first
``--questions`` questions, ``none`` mode.

Usage: flock /tmp/egx-cpu.lock .venv/bin/python benchmarks/kg_extractors.py [--questions 100]
       [--methods dense,ppr,bubblerag,sgrag,reg] [--root .egx/bench-kg] [--out results.json]

Workspaces and bench runs under ``--root`` are reused (delete the folder to start over); the
extraction timing always starts from an empty cache.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KGS = ("openie", "spacy", "rules")


def gold_within_hops(ws: Any, questions: list[Any], backends: Any, hops: int = 2) -> dict[str, float]:
    """Share of gold passages cited by a node within ``hops`` of a linked question entity."""
    from core.methods.baselines.ppr_entities import query_entities

    g = ws.graph
    node_index = ws.index("nodes", backends.embedder)
    hit = total = linked_q = 0
    for q in questions:
        ents, _, _, _ = query_entities(q.question, backends)
        _, ids = node_index.search(backends.embedder.embed(ents), 1)
        seeds = sorted({int(i) for i in ids[:, 0] if int(i) >= 0})
        linked_q += bool(seeds)
        region = g.khop(seeds, hops).tolist() if seeds else []
        cited = {c for v in region for c in g.node_chunks[v]}
        for c in q.gold_chunks:
            total += 1
            hit += c in cited
    return {"gold_within_2_hops": hit / max(total, 1), "gold_passages": total, "questions_linked": linked_q}


def hub_stats(g: Any) -> dict[str, float]:
    """Hub figures: nodes in more than 50 passages, year nodes' share of edge endpoints,
    and the share of title→mention ``mentions`` edges."""
    import re

    import numpy as np

    year = np.array([bool(re.fullmatch(r"1[0-9]{3}|20[0-9]{2}", n)) for n in g.node_ids])
    ends = np.concatenate([g.edge_head, g.edge_tail]).astype(np.int64)
    spec = g.node_specificity()
    return {"nodes_in_over_50_passages": int((spec < 1 / 50).sum()),
            "year_endpoint_share": round(float(year[ends].mean()) if ends.size else 0.0, 4),
            "mentions_edge_share": round(g.edge_relation.count("mentions") / max(g.n_edges, 1), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=100, help="questions per bench run (the first N)")
    ap.add_argument("--methods", default="dense,ppr,bubblerag,sgrag,reg")
    ap.add_argument("--kgs", default=",".join(KGS), help="which workspaces (openie, spacy, rules)")
    ap.add_argument("--root", default=str(ROOT / ".egx" / "bench-kg"))
    ap.add_argument("--out", help="write every figure as JSON")
    ap.add_argument("--skip-timing", action="store_true", help="do not time the extraction (figures of a resumed run)")
    args = ap.parse_args()

    from core.backends.registry import DEFAULT_EMBEDDER, get_embedder, get_extractor, get_llm
    from core.eval.runner import run_benchmark
    from core.graph.builder import extract_triples
    from core.graph.formats.load import load_inputs
    from core.index.create import create_workspace
    from core.index.paths import sample_data_dir
    from core.index.questions import load_questions
    from core.index.workspace import Workspace
    from core.methods.base import Backends

    sample = sample_data_dir() / "musique"
    recipe = json.loads((sample / "workspace.json").read_text())
    corpus = sample / recipe["inputs"][0]
    openie = sample / recipe["inputs"][1]
    qfile = sample / recipe["questions"]
    root = Path(args.root)
    root.mkdir(parents=True, exist_ok=True)
    embedder = get_embedder(DEFAULT_EMBEDDER)
    backends = Backends(embedder, get_llm("none"), None)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    results: dict[str, Any] = {"settings": {"questions": args.questions, "methods": methods,
                                            "embedder": DEFAULT_EMBEDDER, "llm": "none", "cpus": os.cpu_count()},
                               "kgs": {}}
    for kg in [k.strip() for k in args.kgs.split(",") if k.strip()]:
        path = root / kg
        row: dict[str, Any] = {}
        inputs = [corpus, openie] if kg == "openie" else [corpus]
        if kg != "openie" and not args.skip_timing:
            chunks = load_inputs([corpus]).graph.chunks
            ex = get_extractor(kg)
            ex.extract(["Warm-up\nThe model is loaded before timing."])
            with tempfile.TemporaryDirectory(prefix="egx-kg-bench-") as tmp:
                t0 = time.perf_counter()
                res = extract_triples(chunks, ex, cache_dir=Path(tmp))
                dt = time.perf_counter() - t0
            row["extraction"] = {"passages": len(chunks), "seconds": round(dt, 2),
                                 "passages_per_s": round(len(chunks) / dt, 1), "triples": res.n_triples}
            print(f"[{kg}] extraction: {len(chunks)} passages in {dt:.1f} s = {len(chunks) / dt:.1f} passages/s, "
                  f"{res.n_triples} triples", flush=True)
        try:
            ws = Workspace.open(path)
            ws.ensure_index(embedder)
        except Exception:
            t0 = time.perf_counter()
            ws = create_workspace(inputs, path, name=f"musique-{kg}", embedder=embedder, questions=qfile,
                                  extractor=None if kg == "openie" else get_extractor(kg), overwrite=True)
            row["build_seconds"] = round(time.perf_counter() - t0, 1)
        row["index_seconds"] = round(sum(b["seconds"] for b in ws.manifest.get("index", {}).get("builds", [])), 1)
        st = ws.graph.stats()
        row["graph"] = {k: st[k] for k in ("nodes", "edges", "linked_pairs", "mean_degree", "median_degree",
                                            "p99_degree", "max_degree", "components", "largest_component", "hub")}
        row["hubs"] = hub_stats(ws.graph)
        qs = load_questions(ws)[: args.questions]
        row["connectivity"] = gold_within_hops(ws, qs, backends)
        print(f"[{kg}] graph {row['graph']}; {row['connectivity']}", flush=True)
        t0 = time.perf_counter()
        rep = run_benchmark(ws, qs, methods, backends, out_dir=root / f"bench-{kg}", limit=args.questions)
        row["bench_seconds"] = round(time.perf_counter() - t0, 1)
        row["methods"] = {m: {"R@2": round(100 * s["metrics"]["R@2"], 1), "R@5": round(100 * s["metrics"]["R@5"], 1),
                              "mean_s": round(s["latency"]["mean_s"], 3), "errors": s["errors"]}
                          for m, s in rep.summary["methods"].items()}
        print(f"[{kg}] " + "; ".join(f"{m} R@2 {v['R@2']} R@5 {v['R@5']}" for m, v in row["methods"].items()),
              flush=True)
        results["kgs"][kg] = row
        if args.out:
            Path(args.out).write_text(json.dumps(results, indent=1, ensure_ascii=False))
    print(json.dumps(results, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
