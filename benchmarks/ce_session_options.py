"""Cross-encoder per question: which onnxruntime session options and batch shapes buy time, and at what cost.

On the MuSiQue sample's top-100 bge-small passages of ``--questions`` questions (the pairs Re2 reranks), one
process, every contender run on the same pairs in turn (A B C … A B C …, best of ``--repeat`` per question), so the
ratios against the shipped settings are same-run ratios. Each contender is a :class:`BundledCrossEncoder`
whose session is opened with one change:

* ``shipped`` — the settings in :mod:`core.backends.onnx_models` (ORT_ENABLE_ALL, threads from the free cores,
  idle threads sleep, batches capped at ``CPU_BATCH_TOKENS`` padded tokens);
* ``spinning`` — idle pool threads spin (onnxruntime's default);
* ``dynamic_block`` — ``session.dynamic_block_base = 4`` (work split into shrinking blocks, for uneven cores);
* ``no_arena`` — ``enable_cpu_mem_arena = False``;
* ``1_thread`` / ``2_threads`` — the thread count pinned;
* ``cap_256`` / ``cap_1024`` — another cap on a batch's padded tokens (changes the batch-mates, so the scores move
  within int8 noise: the table says by how much and whether the order of each question's top 10 held).

For each contender: seconds per question, the ratio to ``shipped`` (per question, then the median), the largest
logit difference to ``shipped`` and the share of questions whose top-10 order is identical. The tokenizer's share
of a question is timed apart (``encode_batch`` of the 100 pairs).

Usage: python benchmarks/ce_session_options.py [--questions 10] [--repeat 2] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@contextmanager
def _session_with(change: Callable[[Any], None]) -> Iterator[None]:
    """Sessions opened inside the block get the shipped options, then ``change(options)``."""
    from core.backends import onnx_models

    real, cache = onnx_models._session, onnx_models._CACHE

    def session(model: str, onnx_bytes: bytes, providers: list[Any]) -> Any:
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.intra_op_num_threads = onnx_models.onnx_threads()
        so.inter_op_num_threads = 1
        so.log_severity_level = 3
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        change(so)
        return ort.InferenceSession(onnx_bytes, sess_options=so, providers=providers)

    onnx_models._session, onnx_models._CACHE = session, {}
    try:
        yield
    finally:
        onnx_models._session, onnx_models._CACHE = real, cache


def _contenders(names: set[str] | None) -> dict[str, Any]:
    """The shipped cross-encoder and the variants in ``names`` (None: all), each with a session of its own."""
    from core.backends.onnx_models import BundledCrossEncoder

    def opened(change: Callable[[Any], None], **kw: Any) -> Callable[[], Any]:
        def make() -> Any:
            with _session_with(change):
                return BundledCrossEncoder(device="cpu", **kw)
        return make

    def threads(n: int) -> Callable[[Any], None]:
        def f(so: Any) -> None:
            so.intra_op_num_threads = n
        return f

    def nothing(so: Any) -> None:
        return None

    makers: dict[str, Callable[[], Any]] = {
        "shipped": lambda: BundledCrossEncoder(device="cpu"),
        "spinning": opened(lambda so: so.add_session_config_entry("session.intra_op.allow_spinning", "1")),
        "dynamic_block": opened(lambda so: so.add_session_config_entry("session.dynamic_block_base", "4")),
        "no_arena": opened(lambda so: setattr(so, "enable_cpu_mem_arena", False)),
        "1_thread": opened(threads(1)),
        "2_threads": opened(threads(2)),
        "cap_256": opened(nothing, batch_tokens=256),
        "cap_1024": opened(nothing, batch_tokens=1024),
    }
    return {k: make() for k, make in makers.items() if names is None or k == "shipped" or k in names}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--contenders", default="", help="comma-separated subset (default: all; shipped always runs)")
    ap.add_argument("--out")
    args = ap.parse_args()

    import numpy as np

    from benchmarks.embed_rerank_speed import _question_pairs
    from core.backends.onnx_models import onnx_threads

    _, _, pairs = _question_pairs(args.questions)
    ce = _contenders(set(args.contenders.split(",")) if args.contenders else None)
    for c in ce.values():  # warm-up: first allocations of every session
        c.features(*pairs[0])
    names = list(ce)
    secs: dict[str, list[float]] = {k: [] for k in names}
    drift: dict[str, float] = {k: 0.0 for k in names}
    same_top10: dict[str, int] = {k: 0 for k in names}
    tok_s: list[float] = []
    for q, ps in pairs[1:]:
        best = {k: float("inf") for k in names}
        feats: dict[str, Any] = {}
        for _ in range(args.repeat):
            for k in names:
                t0 = time.perf_counter()
                feats[k] = ce[k].features(q, ps)
                best[k] = min(best[k], time.perf_counter() - t0)
        t0 = time.perf_counter()
        ce["shipped"]._tok.encode_batch([(q, p) for p in ps])
        tok_s.append(time.perf_counter() - t0)
        ref = ce["shipped"].head(feats["shipped"])
        ref_top = np.argsort(-ref, kind="stable")[:10]
        for k in names:
            secs[k].append(best[k])
            s = ce[k].head(feats[k])
            drift[k] = max(drift[k], float(np.abs(s - ref).max()))
            same_top10[k] += int(np.array_equal(np.argsort(-s, kind="stable")[:10], ref_top))
    n = len(pairs) - 1
    # the encoder's work: 12 layers of Q, K, V, output (4 × 384²) and the feed-forward pair (2 × 384 × 1536)
    # multiply-accumulates per token, plus attention's two L × 384 products per token and layer
    tokens = [[len(e.ids) for e in ce["shipped"]._tok.encode_batch([(q, p) for p in ps])] for q, ps in pairs[1:]]
    macs = [sum(12 * (4 * 384 * 384 + 2 * 384 * 1536 + 2 * t * 384) * t for t in ts) for ts in tokens]
    gops = statistics.median(2 * m / s / 1e9 for m, s in zip(macs, secs["shipped"]))
    print(f"{statistics.mean(sum(ts) for ts in tokens):,.0f} tokens per question; shipped settings reach "
          f"{gops:.0f} GOP/s (int8 multiply-adds counted as 2 operations)")
    rows = {}
    print(f"cross-encoder, {n} questions x {len(pairs[1][1])} pairs, best of {args.repeat}, onnx threads "
          f"{onnx_threads()} (load {os.getloadavg()[0]:.2f}); tokenizer {statistics.median(tok_s) * 1000:.1f} ms/question")
    print(f"{'contender':<14} {'s/question':>10} {'ratio to shipped (median)':>26} {'max |dlogit|':>13} {'same top-10':>12}")
    for k in names:
        ratio = statistics.median(a / b for a, b in zip(secs[k], secs["shipped"]))
        rows[k] = {"s_per_question": round(statistics.mean(secs[k]), 3), "ratio_to_shipped_median": round(ratio, 3),
                   "max_logit_diff": round(drift[k], 4), "same_top10_questions": same_top10[k]}
        print(f"{k:<14} {rows[k]['s_per_question']:>10.3f} {ratio:>26.3f} {drift[k]:>13.4f} {same_top10[k]:>9}/{n}")
    if args.out:
        Path(args.out).write_text(json.dumps({"questions": n, "repeat": args.repeat, "onnx_threads": onnx_threads(),
                                              "tokenizer_ms_per_question": round(statistics.median(tok_s) * 1000, 2),
                                              "tokens_per_question": round(statistics.mean(sum(t) for t in tokens)),
                                              "shipped_gop_per_s": round(gops, 1),
                                              "contenders": rows}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
