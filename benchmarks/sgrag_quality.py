"""SG-RAG vs dense retrieval vs BubbleRAG (``none`` mode) on generated ERQA-style FB15k-237 questions.

Workspace: FB15k-237's train split (272,115 triples) with one passage per entity (its facts, ≤ 60
triples touching it, "Head relation Tail." sentences; every triple's provenance is its head's
passage), so dense retrieval has passages to rank. Indexed with the ``hashing`` embedder by default
(MiniLM over 14.5k nodes + 272k edges + 14.5k passages takes too long on 2 shared cores; pass
``--embedder minilm`` to use it). Questions: ``core.eval.erqa.build_erqa`` on the workspace graph
(bridge-star, unique gold answer, template text), seed 0.

Metrics per method (``none`` mode, so answers are not LLM text):

* **Hit@1 (entity)** — SG-RAG: its answer (the UNK binding) equals the gold answer; dense and
  BubbleRAG: the top-1 passage is the gold answer entity's passage;
* **gold passage in top 5** — the answer entity's passage is among the first 5 ranked chunks;
* median latency per question.

Usage: python benchmarks/sgrag_quality.py [--n 200] [--methods sgrag,dense,bubblerag] [--limit-bubble 200]
       [--llm none] [--out f.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

FB = Path(__file__).resolve().parents[2] / "shared" / "data" / "fb15k237_named"


def write_inputs(folder: Path, *, labels: str = "last", max_triples: int | None = None) -> list[Path]:
    """corpus.json + triples.csv of the entity-passage workspace; ``labels`` = "last" (the readable last
    Freebase path step, "directed by") or "phrase" (the full KG-BERT relation2text phrase, one label per
    relation; the paraphrased questions of ``sgrag_erqa_styles.py`` need it); ``max_triples`` keeps only
    the first N train triples (a quick smoke run)."""
    ents = dict(ln.split("\t", 1) for ln in (FB / "kgbert_entity2text.txt").read_text().splitlines() if "\t" in ln)
    id2e = {v: k for k, v in (ln.split("\t") for ln in (FB / "openke_entity2id.txt").read_text().splitlines()[1:])}
    id2r = {v: k for k, v in (ln.split("\t") for ln in (FB / "openke_relation2id.txt").read_text().splitlines()[1:])}
    triples = []
    for ln in (FB / "openke_train2id.txt").read_text().splitlines()[1:max_triples + 1 if max_triples else None]:
        h, t, r = ln.split()
        rel = (" ".join(id2r[r].split("/")[-1].split("_")) if labels == "last"  # the last path step, readable
               else " ".join(id2r[r].strip("/").replace("/", " ").replace("_", " ").split()))
        triples.append((ents[id2e[h]].strip(), rel, ents[id2e[t]].strip(), id2e[h]))
    facts: dict[str, list[str]] = defaultdict(list)
    title: dict[str, str] = {}
    for h, r, t, hid in triples:
        title[hid] = h
        s = f"{h} {r} {t}."
        facts[hid].append(s)
    for ln in (FB / "openke_train2id.txt").read_text().splitlines()[1:max_triples + 1 if max_triples else None]:
        # tail-only entities get a passage too
        h, t, r = ln.split()
        title.setdefault(id2e[t], ents[id2e[t]].strip())
    folder.mkdir(parents=True, exist_ok=True)
    by_name_tail: dict[str, list[str]] = defaultdict(list)  # incoming facts: a passage names every neighbour
    for h, r, t, _hid in triples:
        by_name_tail[t].append(f"{h} {r} {t}.")
    corpus = []
    for eid, name in title.items():
        sents = (facts.get(eid, []) + by_name_tail.get(name, []))[:60]
        corpus.append({"id": eid, "title": name, "text": " ".join(sents) or name})
    cpath = folder / "corpus.json"
    cpath.write_text(json.dumps(corpus, ensure_ascii=False))
    tpath = folder / "triples.csv"
    with tpath.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["head", "relation", "tail", "source"])
        w.writerows(triples)
    return [cpath, tpath]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--methods", default="sgrag,dense,bubblerag")
    ap.add_argument("--limit-bubble", type=int, default=200, help="BubbleRAG on the first N questions only")
    ap.add_argument("--embedder", default="hashing")
    ap.add_argument("--llm", default="none")
    ap.add_argument("--workdir", default="/tmp/egx-sgrag-quality")
    ap.add_argument("--out")
    args = ap.parse_args()

    from core.backends.registry import get_embedder, get_llm
    from core.eval.erqa import build_erqa
    from core.index.create import create_workspace
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.registry import get_method
    from core.text import normalize_name

    work = Path(args.workdir)
    emb = get_embedder(args.embedder)
    wpath = work / f"ws-{args.embedder}"
    t0 = time.perf_counter()
    if (wpath / "manifest.json").exists():
        ws = Workspace.open(wpath)
        ws.ensure_index(emb)
    else:
        ws = create_workspace(write_inputs(work / "in"), wpath, name="fb15k237-entities", embedder=emb)
    build_s = time.perf_counter() - t0
    g = ws.graph
    print(f"workspace: {g.n_nodes} nodes, {g.n_edges} edges, {g.n_chunks} passages ({build_s:.1f} s)")
    qs = build_erqa(g, args.n, seed=0, min_degree=8)
    print(f"{len(qs)} questions")
    backends = Backends(emb, get_llm(args.llm))
    title_of = {c.id: c.title for c in g.chunks}
    res: dict[str, dict] = {}
    for m in args.methods.split(","):
        runner = get_method(m).run
        hits, top5, secs, n = 0, 0, [], 0
        by: dict[str, int] = defaultdict(int)  # SG-RAG: who built the query graph / answered, and fallbacks
        limit = args.limit_bubble if m == "bubblerag" else len(qs)
        for q in qs[:limit]:
            t = time.perf_counter()
            r = runner(q.question, ws, backends=backends)
            secs.append(time.perf_counter() - t)
            gold = normalize_name(q.answers[0])
            titles = [normalize_name(title_of.get(c.chunk_id, "")) for c in r.ranked_chunks]
            if m == "sgrag":
                hits += normalize_name(r.answer) == gold
                by[f"query_graph_by_{r.query_graph.by}"] += 1
                by[f"answer_by_{r.answer_detail.by}"] += 1
                by["fallback_1hop"] += int(r.fallback)
            else:
                hits += bool(titles) and titles[0] == gold
            top5 += gold in titles[:5]
            n += 1
        res[m] = {"questions": n, "hit_at_1": round(hits / max(n, 1), 4), "gold_passage_top5": round(top5 / max(n, 1), 4),
                  "median_s": round(statistics.median(secs), 4), "mean_s": round(statistics.mean(secs), 4),
                  **({"counts": dict(by)} if by else {})}
        print(m, json.dumps(res[m]))
    out = {"embedder": args.embedder, "llm": args.llm, "workspace_build_s": round(build_s, 1), "nodes": g.n_nodes,
           "edges": g.n_edges, "passages": g.n_chunks, "n_questions": len(qs), "methods": res}
    if "dense" in res:
        for m in res:
            out["methods"][m]["hit_at_1_ratio_vs_dense"] = (round(res[m]["hit_at_1"] / res["dense"]["hit_at_1"], 2)
                                                            if res["dense"]["hit_at_1"] else None)
    print(json.dumps(out, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
