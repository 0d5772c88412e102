"""FastInsight's KG node texts (name + linked passage, cut at 512 characters): texts/s of bge-small per setting.

On the MuSiQue sample's node texts (``--limit`` of them, evenly spread over the 16,243 nodes), one process, every
contender embedding the same texts in turn (A B C … A B C …, best of ``--repeat``), so the ratios to the shipped
settings are same-run ratios. Contenders are :class:`BgeSmallEmbedder` instances differing in one thing: the cap on
a batch's padded tokens (``batch_tokens``; shipped: ``CPU_BATCH_TOKENS``), the batch size, or onnxruntime's idle
threads spinning. Also reported: how many node texts are identical (what deduplication could save), their token
lengths, and each contender's smallest cosine to the shipped vectors (int8 activation scales are per batch, so
other batch-mates move a vector slightly).

Usage: python benchmarks/node_text_speed.py [--limit 2000] [--repeat 2] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out")
    args = ap.parse_args()

    import numpy as np

    from benchmarks._fi_common import setup
    from benchmarks.ce_session_options import _session_with
    from core.backends.onnx_models import CPU_BATCH_TOKENS, BgeSmallEmbedder, onnx_threads
    from core.methods.kg_nodes import kg_node_texts

    ws, _, _ = setup("bge-small")
    every = kg_node_texts(ws.graph, max_chars=512)
    step = max(1, len(every) // max(1, args.limit))
    texts = list(every[::step][: args.limit])
    shipped = BgeSmallEmbedder(device="cpu")
    lengths = np.array([len(e.ids) for e in shipped._tok.encode_batch(texts)])
    with _session_with(lambda so: so.add_session_config_entry("session.intra_op.allow_spinning", "1")):
        spinning = BgeSmallEmbedder(device="cpu")
    ce: dict[str, Any] = {
        f"cap_{CPU_BATCH_TOKENS}_shipped": shipped,
        "cap_256": BgeSmallEmbedder(device="cpu", batch_tokens=256),
        "cap_1024": BgeSmallEmbedder(device="cpu", batch_tokens=1024),
        "cap_2048": BgeSmallEmbedder(device="cpu", batch_tokens=2048),
        "spinning": spinning,
    }
    for e in ce.values():  # warm-up: first allocations of every session
        e.embed(texts[:64])
    best = {k: float("inf") for k in ce}
    runs: dict[str, list[float]] = {k: [] for k in ce}
    vecs: dict[str, Any] = {}
    for _ in range(args.repeat):
        for k, e in ce.items():
            t0 = time.perf_counter()
            vecs[k] = e.embed(texts)
            dt = time.perf_counter() - t0
            runs[k].append(dt)
            best[k] = min(best[k], dt)
    ship = next(iter(ce))
    ref = vecs[ship]
    print(f"{len(texts)} MuSiQue node texts (of {len(every):,}; {len(set(every)):,} distinct), tokens p50 "
          f"{int(np.percentile(lengths, 50))} p90 {int(np.percentile(lengths, 90))} max {int(lengths.max())}; "
          f"onnx threads {onnx_threads()}, load {os.getloadavg()[0]:.2f}; best of {args.repeat}")
    print(f"{'contender':<18} {'texts/s':>8} {'ratio to shipped (median of runs)':>34} {'min cosine':>11}")
    rows = {}
    for k in ce:
        ratio = statistics.median(b / a for a, b in zip(runs[k], runs[ship]))
        cos = float(np.min(np.sum(vecs[k] * ref, axis=1)))
        rows[k] = {"texts_per_s": round(len(texts) / best[k], 1), "speedup_vs_shipped_median": round(ratio, 3),
                   "min_cosine_to_shipped": round(cos, 5)}
        print(f"{k:<18} {rows[k]['texts_per_s']:>8.1f} {ratio:>34.3f} {cos:>11.4f}")
    if args.out:
        Path(args.out).write_text(json.dumps({
            "texts": len(texts), "node_texts": len(every), "distinct_node_texts": len(set(every)),
            "tokens": {"p50": int(np.percentile(lengths, 50)), "p90": int(np.percentile(lengths, 90)),
                       "max": int(lengths.max())},
            "onnx_threads": onnx_threads(), "repeat": args.repeat, "contenders": rows}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
