"""Embedding and cross-encoding speed on the CPU: ours vs raw onnxruntime, and Re2 / FastInsight per question.

On the MuSiQue sample's real texts, in one process (ratios are measured in the same run, alternating):

* **embedding** — for each kind of text an index holds (node names, enriched edge texts "head relation
  tail", chunk passages "title\\ntext"): items/s of :meth:`BgeSmallEmbedder.embed` and of raw
  onnxruntime on the same texts — one ``InferenceSession`` on the same bundled model file with
  onnxruntime's default options, a plain loop over fixed-size batches (``--raw-batch``, in input
  order) padded to their longest, [CLS] pooling, L2 norm: what a user would write — and the ratio
  ours / raw (target >= 0.9);
* **cross-encoder** — seconds per question for the top-100 (question, passage) pairs of bge-small,
  with the previous settings (all CPUs of the affinity mask, spinning pool, batches of 16 with no
  token cap) and the current ones (threads from the cores other processes leave free, no spinning,
  batches capped at ``CPU_BATCH_TOKENS`` padded tokens), plus the pairs' token lengths;
* **methods** — seconds per question of Re2 (``rerank``) and FastInsight with the previous and the
  current cross-encoder settings (alternating), their reranker share, and how many passages
  FastInsight sent through the cross-encoder (each once: features are cached per question).
  Target: within 2 s per question on 2 cores.

Usage: python benchmarks/embed_rerank_speed.py [--limit 1000] [--questions 10] [--repeat 2] [--out f.json]
       (the workspace comes from $EGX_HOME, built on first use; --skip-methods for the model figures only)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=1000, help="texts of each kind to embed (0 = all)")
    ap.add_argument("--questions", type=int, default=10, help="questions for the cross-encoder and the methods")
    ap.add_argument("--repeat", type=int, default=2, help="alternate the contenders this many times, keep the best")
    ap.add_argument("--raw-batch", type=int, default=32, help="the raw loop's batch size")
    ap.add_argument("--skip-methods", action="store_true", help="no Re2 / FastInsight runs")
    ap.add_argument("--out", help="write the figures as JSON")
    args = ap.parse_args()

    from core.backends.device import cpu_threads
    from core.backends.onnx_models import CPU_BATCH_TOKENS, onnx_threads

    res: dict[str, Any] = {"cpus_in_mask": len(os.sched_getaffinity(0)), "loadavg_at_start": os.getloadavg(),
                           "onnx_threads": onnx_threads(), "default_threads": cpu_threads(),
                           "cpu_batch_tokens": CPU_BATCH_TOKENS}
    print(f"onnxruntime threads {res['onnx_threads']} of {res['cpus_in_mask']} CPUs "
          f"(1-min load {res['loadavg_at_start'][0]:.2f}); batches capped at {CPU_BATCH_TOKENS} padded tokens")
    res["embedding"] = _embedding(args)
    res["cross_encoder"], inputs = _cross_encoder(args)
    if not args.skip_methods:
        res["methods"] = _methods(args, inputs)
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=2))


def _best_of(repeat: int, fns: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Best wall time of each function over ``repeat`` alternating runs."""
    best = {k: float("inf") for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def _sample_texts(limit: int) -> dict[str, list[str]]:
    from core.graph.formats.load import load_inputs
    from core.index.paths import sample_data_dir

    sample = sample_data_dir() / "musique"
    recipe = json.loads((sample / "workspace.json").read_text())
    graph = load_inputs([sample / p for p in recipe["inputs"]]).graph
    kinds = {"nodes": list(graph.node_texts), "edges": list(graph.edge_texts), "chunks": [c.passage for c in graph.chunks]}
    return {k: v[:limit] if limit else v for k, v in kinds.items()}


def _raw_embed(batch_size: int) -> Callable[[list[str]], Any]:
    """What a user would write: default session options, fixed-size batches padded to their longest."""
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from core.backends.bundled import bundled_file

    session = ort.InferenceSession(str(bundled_file("bge_small_en", "model.onnx")), providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(bundled_file("bge_small_en", "tokenizer.json")))
    tok.enable_padding()
    tok.enable_truncation(512)
    names = {i.name for i in session.get_inputs()}

    def embed(texts: list[str]) -> Any:
        out = []
        for s in range(0, len(texts), batch_size):
            enc = tok.encode_batch(texts[s:s + batch_size])
            feeds = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                     "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
                     "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}
            cls = session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in names})[0][:, 0]
            out.append(cls / np.linalg.norm(cls, axis=1, keepdims=True))
        return np.vstack(out)
    return embed


def _embedding(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    from core.backends.onnx_models import BgeSmallEmbedder

    kinds = _sample_texts(args.limit)
    ours, raw = BgeSmallEmbedder(device="cpu"), _raw_embed(args.raw_batch)
    ours.embed(kinds["chunks"][:64])  # warm-up: first allocations of both sessions
    raw(kinds["chunks"][:64])
    out: dict[str, Any] = {"raw_batch": args.raw_batch}
    print(f"\nembedding (bge-small, int8 ONNX), best of {args.repeat}:")
    print(f"  {'kind':<7} {'texts':>6} {'ours items/s':>13} {'raw items/s':>12} {'ratio':>6}  (target >= 0.9)")
    for kind, texts in kinds.items():
        t = _best_of(args.repeat, {"ours": partial(ours.embed, texts), "raw": partial(raw, texts)})
        cos = float(np.min(np.sum(ours.embed(texts[:200]) * raw(texts[:200]), axis=1)))
        out[kind] = {"texts": len(texts), "ours_items_per_s": round(len(texts) / t["ours"], 1),
                     "raw_items_per_s": round(len(texts) / t["raw"], 1), "ratio": round(t["raw"] / t["ours"], 3),
                     "min_cosine_ours_vs_raw": round(cos, 5), "target": 0.9}
        r = out[kind]
        print(f"  {kind:<7} {len(texts):>6} {r['ours_items_per_s']:>13.1f} {r['raw_items_per_s']:>12.1f} {r['ratio']:>6.2f}"
              f"  (min cosine ours vs raw {cos:.4f})")
    return out


@contextmanager
def _previous_settings() -> Iterator[None]:
    """Sessions opened inside are built as before the thread rule: every CPU of the mask, spinning pool."""
    from core.backends import onnx_models

    real, cache = onnx_models._session, onnx_models._CACHE

    def session(model: str, onnx_bytes: bytes, providers: list[Any]) -> Any:
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.intra_op_num_threads = len(os.sched_getaffinity(0))
        so.inter_op_num_threads = 1
        so.log_severity_level = 3
        return ort.InferenceSession(onnx_bytes, sess_options=so, providers=providers)

    onnx_models._session, onnx_models._CACHE = session, {}
    try:
        yield
    finally:
        onnx_models._session, onnx_models._CACHE = real, cache


def _question_pairs(n: int) -> tuple[Any, list[Any], list[tuple[str, list[str]]]]:
    from benchmarks._fi_common import setup

    ws, backends, questions = setup("bge-small")
    index = ws.index("chunks", backends.embedder)
    chunks = ws.graph.chunks
    pairs = []
    for q in questions[: n + 1]:  # the first one warms the sessions up
        ids = index.search(backends.embed_query(q.question), 100)[1][0]
        pairs.append((q.question, [chunks[int(i)].passage for i in ids]))
    return ws, questions[: n + 1], pairs


def _cross_encoder(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    import numpy as np

    from core.backends.onnx_models import BundledCrossEncoder

    ws, questions, pairs = _question_pairs(args.questions)
    with _previous_settings():
        before = BundledCrossEncoder(device="cpu", batch_tokens=0)
    after = BundledCrossEncoder(device="cpu")
    for ce in (before, after):
        ce.features(*pairs[0])
    lengths = np.array([len(e.ids) for q, ps in pairs[1:] for e in after._tok.encode_batch([(q, p) for p in ps])])
    t = {"before": 0.0, "after": 0.0}
    drift = []
    for q, ps in pairs[1:]:
        best = _best_of(args.repeat, {"before": partial(before.features, q, ps), "after": partial(after.features, q, ps)})
        for k in t:
            t[k] += best[k] / (len(pairs) - 1)
        drift.append(float(np.abs(before.head(before.features(q, ps)) - after.head(after.features(q, ps))).max()))
    out = {"questions": len(pairs) - 1, "pairs_per_question": len(pairs[1][1]),
           "pair_tokens": {"p50": int(np.percentile(lengths, 50)), "p90": int(np.percentile(lengths, 90)),
                           "p99": int(np.percentile(lengths, 99)), "max": int(lengths.max()),
                           "over_256": round(float((lengths > 256).mean()), 4),
                           "tokens_kept_at_256": round(float(np.minimum(lengths, 256).sum() / lengths.sum()), 4)},
           "before_s_per_question": round(t["before"], 3), "after_s_per_question": round(t["after"], 3),
           "speedup": round(t["before"] / t["after"], 2), "max_logit_change": round(max(drift), 3)}
    print(f"\ncross-encoder, {out['questions']} questions x {out['pairs_per_question']} pairs (tokens: median "
          f"{out['pair_tokens']['p50']}, p99 {out['pair_tokens']['p99']}, max {out['pair_tokens']['max']}), best of {args.repeat}:")
    print(f"  before (all CPUs, spinning, batches of 16): {t['before']:.2f} s/question")
    print(f"  after  (free CPUs, no spinning, {after.batch_tokens}-token batches): {t['after']:.2f} s/question "
          f"= {out['speedup']:.2f}x faster; largest logit change {out['max_logit_change']:.3f} (int8 batch noise)")
    return out, (ws, questions, before)


def _methods(args: argparse.Namespace, inputs: Any) -> dict[str, Any]:
    """Re2 and FastInsight per question with the cross-encoder's previous and current settings,
    alternating question by question so both see the same machine."""
    import numpy as np

    from core.backends.llm import NoLLM
    from core.backends.onnx_models import BundledCrossEncoder
    from core.backends.registry import get_embedder
    from core.methods.base import Backends
    from core.methods.baselines import rerank
    from core.methods.fastinsight import pipeline as fastinsight

    ws, questions, before = inputs
    emb = get_embedder("bge-small")
    backends = {"before": Backends(emb, NoLLM(), before), "after": Backends(emb, NoLLM(), BundledCrossEncoder(device="cpu"))}
    methods = {"rerank": (rerank.run, "rerank"), "fastinsight": (fastinsight.run, "granker")}
    out: dict[str, Any] = {}
    print(f"\nmethods, {len(questions) - 1} questions (the `none` answer step included), previous vs current settings:")
    for name, (run, stage) in methods.items():
        for b in backends.values():
            run(questions[0].question, ws, backends=b)  # warm-up
        secs: dict[str, list[float]] = {"before": [], "after": []}
        model, encoded = [], []
        for q in questions[1:]:
            for label, b in backends.items():
                t0 = time.perf_counter()
                r = run(q.question, ws, backends=b)
                secs[label].append(time.perf_counter() - t0)
                if label == "after":
                    model.append(sum(s.seconds for s in r.trace.steps if s.stage == stage))
                    if name == "fastinsight":
                        encoded.append(r.engine.encoded)
        row = {"questions": len(secs["after"]), "before_mean_s": round(float(np.mean(secs["before"])), 3),
               "after_mean_s": round(float(np.mean(secs["after"])), 3),
               "after_p90_s": round(float(np.percentile(secs["after"], 90)), 3),
               "speedup": round(float(np.mean(secs["before"]) / np.mean(secs["after"])), 2),
               f"{stage}_share": round(float(np.sum(model) / np.sum(secs["after"])), 3), "target_s": 2.0}
        if encoded:
            row["passages_encoded_per_question"] = round(float(np.mean(encoded)), 1)
        out[name] = row
        print(f"  {name:<12} before {row['before_mean_s']:.2f} s/question, after {row['after_mean_s']:.2f} "
              f"(p90 {row['after_p90_s']:.2f}; {row['speedup']:.2f}x; {stage} {100 * row[stage + '_share']:.0f} %)"
              + (f"; {row['passages_encoded_per_question']} passages cross-encoded per question" if encoded else ""))
    return out


if __name__ == "__main__":
    main()
