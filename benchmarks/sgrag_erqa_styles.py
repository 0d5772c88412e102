"""SG-RAG vs dense, PPR and BubbleRAG on template vs paraphrased ERQA-style FB15k-237 questions.

Workspace: FB15k-237's train split (272,115 triples, the KG of the paper's FB-ERQA, Table 13) with one
passage per entity, as in ``sgrag_quality.py``, but every edge labelled with the full KG-BERT
``relation2text`` phrase (one label per relation, so the paraphrase lexicon can tell relations apart);
``hashing`` embedder (MiniLM/bge over 14.5k nodes + 272k edges + 14.5k passages is too slow on 2
shared cores). Two question sets over this one KG, seed 0:

* **template** — ``core.eval.erqa.build_erqa`` (SG-RAG App. G bridge-star, Table 16 template text
  quoting the KG's names and relation labels, unique answer by construction);
* **paraphrase** — ``core.eval.erqa_paraphrase.build_paraphrased`` (lexicon phrasings, entity
  surface variants, typed constraints, answer sets by a brute-force scan of the whole KG).

Every method runs through ``core.eval.runner.run_benchmark`` (what ``egx bench`` runs) with the
``none`` LLM and the default cross-encoder for extractive answers. Reported per set and method: the
papers' answer-set Precision/Recall/F1, Hit@1 (SG-RAG §5) and R@5/R@10 over the gold passages (the
answers' and the constraint entities' passages); SG-RAG's failure-diagnosis verdicts; and two
diagnostics of SG-RAG's ``none``-mode query graph on each set: how many constraint entities the
mention linker finds, and how many nodes are adjacent to all constraint entities when relations are
ignored (what an unlabelled bridge star matches) against the oracle's typed answer set.

Usage: flock /tmp/egx-cpu.lock .venv/bin/python benchmarks/sgrag_erqa_styles.py [--n 60]
       [--methods sgrag,dense,ppr,bubblerag] [--ship sample_data/erqa] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.sgrag_quality import write_inputs


def _linking(graph, qs) -> dict:  # type: ignore[no-untyped-def]
    """SG-RAG ``none``-mode query-graph diagnostics over a question set."""
    from core.methods.sgrag.query_graph import link_mentions
    from core.text import normalize_name

    nbrs = graph.neighbor_sets()
    found, extra, total, all_found, agnostic = 0, 0, 0, 0, []
    for q in qs:
        want = {normalize_name(e) for e in q["query_entities"]}
        got = {normalize_name(m) for m in link_mentions(q["question"], graph)}
        found += len(want & got)
        extra += len(got - want)
        total += len(want)
        all_found += want <= got
        ids = [graph._name_index[w][0] for w in want if w in graph._name_index]
        common = set.intersection(*(nbrs[v] for v in ids)) if ids else set()
        agnostic.append(len(common))
    return {"constraint_entities": total, "linked": found, "linked_share": round(found / max(total, 1), 4),
            "questions_all_linked": all_found, "extra_mentions": extra,
            "extra_mentions_per_question": round(extra / max(len(qs), 1), 2),
            "gold_answers_mean": round(statistics.mean(len(q["answer"]) for q in qs), 2),
            "gold_singletons": sum(len(q["answer"]) == 1 for q in qs),
            "relation_agnostic_common_neighbours_mean": round(statistics.mean(agnostic), 2) if agnostic else None,
            "relation_agnostic_common_neighbours_median": statistics.median(agnostic) if agnostic else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--methods", default="sgrag,dense,ppr,bubblerag")
    ap.add_argument("--embedder", default="hashing")
    ap.add_argument("--workdir", default="/tmp/egx-erqa-styles")
    ap.add_argument("--ship", help="also copy the two question files into this folder")
    ap.add_argument("--max-triples", type=int, help="only the first N train triples (a quick smoke run)")
    ap.add_argument("--out")
    args = ap.parse_args()

    from core.backends.registry import DEFAULT_RERANKER, get_embedder, get_llm, get_reranker
    from core.eval.erqa import build_erqa, write_erqa
    from core.eval.erqa_paraphrase import build_paraphrased, write_paraphrased
    from core.eval.runner import run_benchmark
    from core.index.create import create_workspace
    from core.index.questions import load_questions_file
    from core.index.workspace import Workspace
    from core.methods.base import Backends

    work = Path(args.workdir)
    emb = get_embedder(args.embedder)
    wpath = work / f"ws-{args.embedder}"
    t0 = time.perf_counter()
    if (wpath / "manifest.json").exists():
        ws = Workspace.open(wpath)
        ws.ensure_index(emb)
    else:
        ws = create_workspace(write_inputs(work / "in", labels="phrase", max_triples=args.max_triples), wpath, name="fb15k237-train-entities",
                              embedder=emb)
    build_s = time.perf_counter() - t0
    g = ws.graph
    print(f"workspace: {g.n_nodes} nodes, {g.n_edges} edges, {g.n_chunks} passages ({build_s:.1f} s)", flush=True)
    files = {"template": write_erqa(build_erqa(g, args.n, seed=0, min_degree=8), work / f"template_{args.n}.json"),
             "paraphrase": write_paraphrased(build_paraphrased(g, args.n, seed=0), work / f"paraphrase_{args.n}.json")}
    if args.ship:
        ship = Path(args.ship)
        ship.mkdir(parents=True, exist_ok=True)
        for style, p in files.items():
            (ship / f"fb15k237_train_{style}_{args.n}.json").write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    llm = get_llm("none")
    backends = Backends(emb, llm, get_reranker(DEFAULT_RERANKER, embedder=emb, llm=llm))
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    out: dict = {"embedder": args.embedder, "reranker": DEFAULT_RERANKER, "llm": "none", "seed": 0,
                 "workspace_build_s": round(build_s, 1), "nodes": g.n_nodes, "edges": g.n_edges,
                 "passages": g.n_chunks, "sets": {}}
    for style, path in files.items():
        raw = json.loads(path.read_text(encoding="utf-8"))
        qs = load_questions_file(path, g)
        t = time.perf_counter()
        rep = run_benchmark(ws, qs, methods, backends, out_dir=work / f"run-{style}", seed=0, cut=5,
                            meta={"questions_file": str(path)})
        row: dict = {"questions": len(qs), "file": str(path), "run_s": round(time.perf_counter() - t, 1),
                     "sgrag_query_graph": _linking(g, raw), "methods": {}}
        for m, s in rep.summary["methods"].items():
            p = s["paper"]
            row["methods"][m] = {"Precision": p.get("Precision"), "Recall": p.get("Recall"), "F1": p.get("F1"),
                                 "Hit": p.get("Hit"), "Hit@1": p.get("Hit@1"),
                                 "R@5": s["metrics"].get("R@5"), "R@10": s["metrics"].get("R@10"),
                                 "median_s": s["latency"]["median_s"], "diagnosis": s["diagnosis"],
                                 "errors": s["errors"]}
            print(style, m, json.dumps(row["methods"][m]), flush=True)
        print(style, "sgrag query graph", json.dumps(row["sgrag_query_graph"]), flush=True)
        out["sets"][style] = row
    if "sgrag" in methods:
        a, b = out["sets"]["template"]["methods"]["sgrag"], out["sets"]["paraphrase"]["methods"]["sgrag"]
        out["sgrag_drop_template_to_paraphrase"] = {k: (round(a[k] - b[k], 4) if a[k] is not None and b[k] is not None
                                                        else None) for k in ("Hit@1", "F1", "Recall", "R@5")}
    print(json.dumps(out, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
