"""GPU path check: every model-backed stage on the device it picks, with timings.

Runs, on whatever device each backend selects (CUDA when visible, the CPU otherwise):

* the embedder ``bge-small`` (onnxruntime; the CUDA provider needs ``onnxruntime-gpu``) and
  ``minilm`` (torch);
* the cross-encoder ``ms-marco-minilm`` (features + head over query–passage pairs);
* SG-RAG's GAT dominance model training (App. C, :func:`core.methods.sgrag.dominance.train_dominance`);
* ReG's triple retriever training (weak supervision, :func:`core.methods.reg.train.train_reg`);
* llama.cpp generation with the 0.5B GGUF, all layers offloaded when CUDA is selected
  (``n_gpu_layers=-1``; llama-cpp-python must be built with ``-DGGML_CUDA=ON``, which
  scripts/bootstrap.sh does only when ``nvcc`` is present).

and prints / writes a table of stage, device and seconds. Without a GPU it says so and runs the same
on the CPU (the table is then the CPU baseline to compare a GPU run with).

Usage: python benchmarks/gpu_check.py [--texts 2000] [--pairs 100] [--out benchmarks/results/gpu_check.json]
       (``make gpu-check``)
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _cuda_summary() -> dict[str, Any]:
    import torch

    out: dict[str, Any] = {"torch": torch.__version__, "torch_cuda_visible": torch.cuda.is_available()}
    if out["torch_cuda_visible"]:
        out["gpu"] = torch.cuda.get_device_name(0)
    try:
        import onnxruntime as ort

        out["onnxruntime_providers"] = ort.get_available_providers()
    except ImportError:
        out["onnxruntime_providers"] = []
    try:
        import llama_cpp

        out["llama_cpp_gpu_offload"] = bool(llama_cpp.llama_supports_gpu_offload())
    except (ImportError, AttributeError):
        out["llama_cpp_gpu_offload"] = None
    return out


def _batching(backend: Any) -> str:
    """How an onnxruntime backend batches on its device: whole batches on a GPU, a token cap on the CPU."""
    if not hasattr(backend, "batch_tokens"):
        return ""
    from core.backends.onnx_models import onnx_threads

    cap = f"at most {backend.batch_tokens} padded tokens" if backend.batch_tokens else "no token cap"
    return f"; batches of {backend.batch_size}, {cap}, {onnx_threads()} onnxruntime CPU threads"


def _timed(rows: list[dict[str, Any]], stage: str, fn: Callable[[], tuple[str, str]]) -> None:
    """Run ``fn`` (returns ``(device, detail)``) and append a row; a failure is a row too, never a crash."""
    t0 = time.perf_counter()
    try:
        device, detail = fn()
        rows.append({"stage": stage, "device": device, "seconds": round(time.perf_counter() - t0, 3),
                     "detail": detail, "error": ""})
    except Exception as exc:  # the check reports every failure and goes on
        rows.append({"stage": stage, "device": "?", "seconds": round(time.perf_counter() - t0, 3), "detail": "",
                     "error": f"{type(exc).__name__}: {exc}"[:300]})
    r = rows[-1]
    print(f"  {stage:<34} {r['device']:<6} {r['seconds']:>8.2f} s  {r['detail'] or r['error']}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--texts", type=int, default=2000, help="texts to embed")
    ap.add_argument("--pairs", type=int, default=100, help="query-passage pairs for the cross-encoder")
    ap.add_argument("--tokens", type=int, default=64, help="tokens llama.cpp generates")
    ap.add_argument("--out", help="JSON file for the table (default: print only)")
    args = ap.parse_args()

    import numpy as np

    from core.backends.device import select_device
    from core.backends.registry import get_embedder, get_llm, get_reranker
    from core.index.samples import ensure_sample_workspace

    env = _cuda_summary()
    device = select_device()
    gpu = device == "cuda"
    print(f"torch device: {device}; " + (f"GPU: {env.get('gpu')}" if gpu else
          "no GPU is visible (torch.cuda.is_available() is False): everything runs on the CPU"))
    print(f"onnxruntime providers: {env['onnxruntime_providers']}; llama.cpp GPU offload support: "
          f"{env['llama_cpp_gpu_offload']}")

    tmp = Path(tempfile.mkdtemp(prefix="egx-gpu-check-"))
    os.environ.setdefault("EGX_LLM_CACHE_DIR", str(tmp / "llm-cache"))
    emb = get_embedder("bge-small")
    ws = ensure_sample_workspace("demo", emb, root=tmp / "ws")
    passages = [c.text for c in ws.graph.chunks if c.text]
    texts = [passages[i % len(passages)] + f" ({i})" for i in range(args.texts)]
    rows: list[dict[str, Any]] = []

    def embed(name: str) -> Callable[[], tuple[str, str]]:
        def run() -> tuple[str, str]:
            e = emb if name == "bge-small" else get_embedder(name)
            t0 = time.perf_counter()
            v = e.embed(texts)
            dt = time.perf_counter() - t0
            return str(getattr(e, "device", "?")), (f"{len(texts)} texts, {v.shape[1]}-d, {len(texts) / dt:.0f} texts/s"
                                                    + _batching(e))
        return run

    _timed(rows, "embedder bge-small (onnxruntime)", embed("bge-small"))
    _timed(rows, "embedder minilm (torch)", embed("minilm"))

    def cross() -> tuple[str, str]:
        rr = get_reranker("ms-marco-minilm")
        ps = [passages[i % len(passages)] for i in range(args.pairs)]
        t0 = time.perf_counter()
        scores = rr.head(rr.features("When did Lothair II's mother die?", ps))
        dt = time.perf_counter() - t0
        return str(getattr(rr, "device", "?")), f"{len(scores)} pairs, {len(scores) / dt:.0f} pairs/s" + _batching(rr)

    _timed(rows, "cross-encoder ms-marco-minilm", cross)

    def gat() -> tuple[str, str]:
        from core.methods.sgrag.dominance import train_dominance

        feats = ws.index("nodes").vectors
        m = train_dominance(ws.graph, np.asarray(feats, dtype=np.float32))
        return device, f"{ws.graph.n_nodes} nodes, {getattr(m, 'epochs', '?')} epochs"

    _timed(rows, "SG-RAG GAT dominance training", gat)

    def reg() -> tuple[str, str]:
        from core.methods.base import Backends
        from core.methods.reg.config import TrainConfig
        from core.methods.reg.train import train_reg

        assert ws.questions_path is not None
        # the demo's 5 questions: split seed 1 leaves a validation question with a positive triple
        # (seed 0 does not); a device check, not a quality figure (benchmarks/reg_retriever.py has those)
        res = train_reg(ws, ws.questions_path, backends=Backends(emb, get_llm("none")),
                        cfg=TrainConfig(supervision="weak", seed=1), out=tmp / "reg", cache=False)
        return str(res.device), f"{res.counts.get('train_examples', 0)} train questions, best epoch {res.best_epoch}"

    _timed(rows, "ReG triple retriever training", reg)

    def llama() -> tuple[str, str]:
        from core.backends.base import ChatMessage

        llm = get_llm("local-small", cache=False)
        llm.load()
        r = llm.chat([ChatMessage("user", "Count from 1 to 100, separated by commas.")], max_tokens=args.tokens)
        offload = "cuda (all layers)" if gpu and env["llama_cpp_gpu_offload"] else "cpu"
        return offload.split(" ")[0], (f"{r.completion_tokens} tokens in {r.latency_s:.2f} s, "
                                       f"{r.completion_tokens / max(r.latency_s, 1e-9):.1f} tokens/s; offload: {offload}")

    _timed(rows, "llama.cpp 0.5B generation", llama)

    report = {"date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, "
              f"{len(os.sched_getaffinity(0))} CPU core(s)", "gpu_visible": gpu, "environment": env, "rows": rows}
    print("\n| stage | device | seconds | detail |\n|---|---|---:|---|")
    for r in rows:
        print(f"| {r['stage']} | {r['device']} | {r['seconds']:.2f} | {r['detail'] or r['error']} |")
    if not gpu:
        print("\nNo GPU was visible: this table is the CPU baseline.")
    if args.out:
        from core.fsio import atomic_write_json

        atomic_write_json(args.out, report)
        print(f"wrote {args.out}")
    return 1 if any(r["error"] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
