"""Index build throughput: ours vs raw ``SentenceTransformer.encode``, and bge-small vs MiniLM.

Every run embeds exactly the texts a workspace indexes (node names, enriched edge texts
"head relation tail", chunk passages "title\\ntext"), in one process, after a warm-up:

* MiniLM through the workspace path vs one raw ``SentenceTransformer.encode`` call with the same
  weights (the workspace adds batching for the progress bar, FAISS construction and atomic writes;
  target >= 0.9x raw throughput);
* every other embedder in ``--embedders`` (default: the default embedder, bge-small, int8 ONNX in
  onnxruntime) through the same workspace path, as items/s and as a ratio to MiniLM's
  (target >= 0.8x), with the per-kind figures (nodes, edges, chunks).

Usage: python benchmarks/index_throughput.py [--limit N] [--repeat R] [--embedders bge-small] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="use only the first N texts of each kind (0 = all)")
    ap.add_argument("--repeat", type=int, default=1, help="alternate raw/ours this many times, keep the best")
    ap.add_argument("--embedders", default="bge-small", help="embedders compared with MiniLM (comma-separated)")
    ap.add_argument("--out", help="write the figures as JSON")
    args = ap.parse_args()

    from core.backends.registry import get_embedder
    from core.graph.formats.load import load_inputs
    from core.graph.graph_builder import GraphBuilder
    from core.index.indexing import build_indexes
    from core.index.paths import sample_data_dir

    sample = sample_data_dir() / "musique"
    recipe = json.loads((sample / "workspace.json").read_text())
    graph = load_inputs([sample / p for p in recipe["inputs"]]).graph
    if args.limit:
        b = GraphBuilder()
        for c in graph.chunks[: args.limit]:
            b.add_chunk(c.title, c.text, chunk_id=c.id)
        for e in range(min(args.limit, graph.n_edges)):
            b.add_triple(graph.node_names[graph.edge_head[e]], graph.edge_relation[e], graph.node_names[graph.edge_tail[e]])
        graph = b.build()
    texts = list(graph.node_texts) + list(graph.edge_texts) + [c.passage for c in graph.chunks]
    n = len(texts)

    emb = get_embedder("minilm")
    model = getattr(emb, "model", None) or emb._model  # the underlying SentenceTransformer
    model.encode(texts[:512], batch_size=64, normalize_embeddings=True)  # warm-up

    raw_times, ours_times = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        raw_times.append(time.perf_counter() - t0)
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            build_indexes(Path(tmp), graph, emb)
            ours_times.append(time.perf_counter() - t0)
    raw, ours = min(raw_times), min(ours_times)
    res: dict = {
        "texts": n, "nodes": graph.n_nodes, "edges": graph.n_edges, "chunks": graph.n_chunks,
        "device": str(model.device), "raw_s": round(raw, 2), "index_s": round(ours, 2),
        "raw_items_per_s": round(n / raw, 1), "index_items_per_s": round(n / ours, 1),
        "ratio": round(raw / ours, 3), "target": 0.9,
    }
    print(f"MuSiQue texts: {n} ({graph.n_nodes} nodes, {graph.n_edges} edges, {graph.n_chunks} chunks) on {res['device']}")
    print(f"raw SentenceTransformer.encode : {res['raw_items_per_s']:>8.1f} items/s ({raw:.1f} s)")
    print(f"workspace index build (minilm) : {res['index_items_per_s']:>8.1f} items/s ({ours:.1f} s)")
    print(f"ratio (index / raw throughput) : {res['ratio']:.3f}  (target >= 0.9)")

    kinds = {"nodes": list(graph.node_texts), "edges": list(graph.edge_texts), "chunks": [c.passage for c in graph.chunks]}
    res["per_kind_items_per_s"] = {"minilm": _per_kind(emb, kinds)}
    res["compared"] = {}
    for name in [e.strip() for e in args.embedders.split(",") if e.strip()]:
        other = get_embedder(name)
        other.embed(texts[:512])  # warm-up (session start, first allocations)
        times = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                build_indexes(Path(tmp), graph, other)
                times.append(time.perf_counter() - t0)
        best = min(times)
        res["compared"][name] = {"model_id": other.model_id, "device": getattr(other, "device", "?"),
                                 "index_s": round(best, 2), "index_items_per_s": round(n / best, 1),
                                 "ratio_to_minilm": round(ours / best, 3), "target": 0.8}
        res["per_kind_items_per_s"][name] = _per_kind(other, kinds)
        print(f"workspace index build ({name}) : {n / best:>8.1f} items/s ({best:.1f} s) = "
              f"{ours / best:.3f}x MiniLM  (target >= 0.8)")
    for name, per in res["per_kind_items_per_s"].items():
        print(f"  {name:<10} items/s by kind: " + ", ".join(f"{k} {v:.1f}" for k, v in per.items()))
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=2))


def _per_kind(embedder, kinds: dict) -> dict:  # -> dict[str, float]
    """Items/s of ``embedder`` on each kind of text (one pass, the index's batching)."""
    from core.index.vector_index import embed_texts

    out = {}
    for kind, texts in kinds.items():
        t0 = time.perf_counter()
        embed_texts(texts, embedder)
        out[kind] = round(len(texts) / (time.perf_counter() - t0), 1)
    return out


if __name__ == "__main__":
    main()
