"""Adding documents vs rebuilding: build 99 % of a corpus and add the last 1 %, against building 100 % at once.

The MuSiQue sample's corpus (``sample_data/musique/musique_train_corpus.json.gz``, 1,890 passages; the
first ``--passages`` of them), the default models of a corpus build without an LLM: the bundled bge-small
embedder and the spaCy extractor. Three timed steps in one process, the models loaded and warmed up first
(so no step pays for loading them), each build on an empty extraction cache of its own:

1. ``create_workspace`` on the first 99 % of the passages;
2. ``add_documents`` of the last 1 % into that workspace (the extraction cache of step 1, which holds none
   of the new passages);
3. ``create_workspace`` on all of them at once.

It prints the ratio add / full build (target <= 5 %), checks that the two workspaces hold the same graph
(content and provenance hashes), and reports how far the index vectors of the two differ and how many of
the sample's questions get the same dense top 10 from both. bge-small runs int8 ONNX with activations
quantized per batch, so a text's vector depends on the batch it was embedded in (up to ~0.015 per
component, measured): the rows an add reuses are the old build's, its new rows come from a batch of their
own, and a full build batches everything differently again. The exact equality of an add and a full build
is tested with a deterministic embedder (``tests/index/test_insert.py``).

Usage: flock /tmp/egx-test.lock nice -n 5 .venv/bin/python benchmarks/incremental_insert.py
       [--passages 1890] [--add-share 0.01] [--out results.json]

Workspaces go under a temporary folder that is deleted at the end (``--keep DIR`` keeps them there).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import shutil
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "musique"


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passages", type=int, default=1890, help="use the first N passages of the corpus")
    ap.add_argument("--add-share", type=float, default=0.01, help="the share of them added afterwards")
    ap.add_argument("--embedder", default="bge-small")
    ap.add_argument("--extractor", default="spacy")
    ap.add_argument("--keep", help="build the workspaces in this folder and keep them (default: a temporary one)")
    ap.add_argument("--out", help="write the figures as JSON")
    args = ap.parse_args()

    import numpy as np

    from core.backends.registry import get_embedder, get_extractor
    from core.index.create import create_workspace
    from core.index.insert import add_documents
    from core.index.workspace import Workspace

    corpus = json.loads(gzip.open(SAMPLE / "musique_train_corpus.json.gz").read())[: args.passages]
    records = [{"id": f"p{i}", **r} for i, r in enumerate(corpus)]
    n_add = max(1, math.ceil(len(records) * args.add_share))
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="egx-insert-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    base = _write(root / "base.jsonl", records[:-n_add])
    more = _write(root / "more.jsonl", records[-n_add:])

    emb, ext = get_embedder(args.embedder), get_extractor(args.extractor)
    emb.embed([r["text"] for r in records[:64]])  # load and warm up the models: no step pays for that
    ext.extract([f"{r['title']}\n{r['text']}" for r in records[:16]])

    def timed(cache: str, fn):  # type: ignore[no-untyped-def]
        os.environ["EGX_CACHE_DIR"] = str(root / cache)
        t0 = time.perf_counter()
        out = fn()
        return out, time.perf_counter() - t0

    try:
        _, t_base = timed("cache-inc", lambda: create_workspace([base], root / "inc", embedder=emb, extractor=ext))
        res, t_add = timed("cache-inc", lambda: add_documents(root / "inc", [more], embedder=emb, extractor=ext))
        full, t_full = timed("cache-full", lambda: create_workspace([base, more], root / "full", embedder=emb,
                                                                    extractor=ext))
        inc = Workspace.open(root / "inc")
        same_graph = (inc.graph.content_hash == full.graph.content_hash
                      and inc.graph.provenance_hash == full.graph.provenance_hash)
        diff = {k: float(np.abs(inc.index(k).vectors - full.index(k).vectors).max()) if same_graph else None
                for k in ("nodes", "edges", "chunks")}
        questions = [q["question"] for q in json.loads(gzip.open(SAMPLE / "musique_train.json.gz").read())]
        qv = emb.embed(questions)
        top_inc = inc.index("chunks").search(qv, 10)[1]
        top_full = full.index("chunks").search(qv, 10)[1]
        same_top = int(sum(a.tolist() == b.tolist() for a, b in zip(top_inc, top_full)))
        overlap = float(np.mean([len(set(a.tolist()) & set(b.tolist())) / 10 for a, b in zip(top_inc, top_full)]))
        figures = {
            "passages": len(records), "base_passages": len(records) - n_add, "added_passages": n_add,
            "embedder": emb.model_id, "extractor": f"{ext.name}:{ext.model_id}",
            "build_base_s": round(t_base, 2), "add_s": round(t_add, 2), "build_full_s": round(t_full, 2),
            "ratio_add_over_full": round(t_add / t_full, 4),
            "added": len(res.added), "duplicates": len(res.duplicates), "new_nodes": res.new_nodes,
            "new_edges": res.new_edges, "embedded": dict(res.embedded),
            "graph": {"nodes": full.graph.n_nodes, "edges": full.graph.n_edges, "chunks": full.graph.n_chunks},
            "same_graph": same_graph, "max_vector_diff": diff,
            "questions_same_dense_top10": f"{same_top}/{len(questions)}",
            "mean_dense_top10_overlap": round(overlap, 4),
        }
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(f"{figures['passages']} MuSiQue passages ({figures['embedder']}, {figures['extractor']}); graph "
          f"{figures['graph']['nodes']:,} nodes, {figures['graph']['edges']:,} edges")
    print(f"  build {figures['base_passages']} passages: {t_base:8.2f} s")
    print(f"  add {n_add} passages:      {t_add:8.2f} s  ({res.new_nodes} new nodes, {res.new_edges} new edges; "
          f"embedded {', '.join(f'{n} {k}' for k, n in res.embedded.items())})")
    print(f"  build all {len(records)} at once: {t_full:8.2f} s")
    print(f"  add / full build = {t_add / t_full:.2%} (target <= 5 %); same graph: {same_graph}; "
          f"max |vector difference| {diff}; same dense top 10 (in order) for {same_top}/{len(questions)} questions, "
          f"mean top-10 overlap {overlap:.1%}")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
