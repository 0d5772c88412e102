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

and prints / writes a table of stage, size, device and seconds. Every stage is called twice in one
process: the first call (imports, model loads, CUDA context and kernel loads: what a fresh app session pays)
and a second, warm call at the same size (the steady-state cost a GPU should cut); the two trainings also
report the seconds the models record themselves (``DominanceModel.seconds``, ``TrainResult.seconds``).
Without a GPU it says so and runs the same on the CPU (the table is then the CPU baseline to compare a GPU
run with).

``--musique`` also trains the GAT and the ReG retriever on the MuSiQue sample's KG (16,243 nodes, 17,037
edges, 100 questions): a sample workspace built with the ``hashing`` embedder at 384 dimensions (bge-small's
width; ~1 s to build, no model files), so the sizes are real and the features are stand-ins: a timing, not
a quality figure (benchmarks/reg_retriever.py and the SG-RAG benchmarks have those).

Usage: python benchmarks/gpu_check.py [--texts 2000] [--pairs 100] [--musique] [--gat-epochs 60]
       [--reg-epochs 80] [--out benchmarks/results/gpu_check.json]      (``make gpu-check``)
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


#: what a stage's function returns: (device, detail, seconds the model recorded itself or None)
Result = tuple[str, str, float | None]


def _sync() -> None:
    """Wait for queued CUDA work, so a call's time includes it (the trainings sync anyway: .item() per batch)."""
    if "torch" in sys.modules:
        import torch

        if torch.cuda.is_available():
            torch.cuda.synchronize()


def _call(fn: Callable[[], Result]) -> tuple[float, Result | None, str]:
    t0 = time.perf_counter()
    try:
        out = fn()
        _sync()
        return time.perf_counter() - t0, out, ""
    except Exception as exc:  # the check reports every failure and goes on
        return time.perf_counter() - t0, None, f"{type(exc).__name__}: {exc}"[:300]


def _timed(rows: list[dict[str, Any]], stage: str, size: str, fn: Callable[[], Result]) -> None:
    """Call ``fn`` twice (first call, then warm) and append a row; a failure is a row too, never a crash."""
    first_s, out, error = _call(fn)
    warm_s, first_model_s = None, None
    device, detail, model_s = "?", "", None
    if out is not None:
        first_model_s = out[2]
        warm_s, out2, error = _call(fn)
        device, detail, model_s = out2 if out2 is not None else out
    rows.append({"stage": stage, "size": size, "device": device, "first_s": _r(first_s), "warm_s": _r(warm_s),
                 "first_model_s": _r(first_model_s), "warm_model_s": _r(model_s), "detail": detail, "error": error})
    r = rows[-1]
    print(f"  {stage:<34} {r['device']:<5} first {_s(r['first_s'])} s, warm {_s(r['warm_s'])} s"
          f"{_model(r)}  {size}; {r['detail'] or r['error']}", flush=True)


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def _s(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _model(r: dict[str, Any]) -> str:
    if r["warm_model_s"] is None:
        return ""
    return f" (model-recorded {_s(r['first_model_s'])} / {_s(r['warm_model_s'])} s)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--texts", type=int, default=2000, help="texts to embed")
    ap.add_argument("--pairs", type=int, default=100, help="query-passage pairs for the cross-encoder")
    ap.add_argument("--tokens", type=int, default=64, help="tokens llama.cpp generates")
    ap.add_argument("--musique", action="store_true",
                    help="also train the GAT and the ReG retriever on the MuSiQue sample's KG (hashing features)")
    ap.add_argument("--gat-epochs", type=int, default=0,
                    help="GAT max_epochs on the MuSiQue KG (0: the app's 60; with hashing features it does not "
                         "reach loss 0 there, so all run)")
    ap.add_argument("--reg-epochs", type=int, default=80, help="ReG epochs on the MuSiQue KG (App. E: 80)")
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

    def embed(name: str) -> Callable[[], Result]:
        def run() -> Result:
            e = emb if name == "bge-small" else get_embedder(name)
            t0 = time.perf_counter()
            v = e.embed(texts)
            dt = time.perf_counter() - t0
            return str(getattr(e, "device", "?")), (f"{v.shape[1]}-d, {len(texts) / dt:.0f} texts/s"
                                                    + _batching(e)), None
        return run

    _timed(rows, "embedder bge-small (onnxruntime)", f"{len(texts)} texts", embed("bge-small"))
    _timed(rows, "embedder minilm (torch)", f"{len(texts)} texts", embed("minilm"))

    def cross() -> Result:
        rr = get_reranker("ms-marco-minilm")
        ps = [passages[i % len(passages)] for i in range(args.pairs)]
        t0 = time.perf_counter()
        scores = rr.head(rr.features("When did Lothair II's mother die?", ps))
        dt = time.perf_counter() - t0
        return str(getattr(rr, "device", "?")), f"{len(scores) / dt:.0f} pairs/s" + _batching(rr), None

    _timed(rows, "cross-encoder ms-marco-minilm", f"{args.pairs} pairs", cross)

    def gat(w: Any, max_epochs: int | None = None) -> Callable[[], Result]:
        def run() -> Result:
            from core.methods.sgrag.config import DominanceConfig
            from core.methods.sgrag.dominance import train_dominance

            feats = np.array(w.index("nodes").vectors, dtype=np.float32)  # a writable copy, as torch wants
            cfg = DominanceConfig(max_epochs=max_epochs) if max_epochs else None
            m = train_dominance(w.graph, feats, config=cfg)
            return str(m.device), (f"{m.epochs} epochs ({'converged' if m.converged else 'not converged'}), "
                                   f"{m.seconds / m.epochs:.3f} s/epoch"), float(m.seconds)
        return run

    def reg(w: Any, e: Any, seed: int, epochs: int | None = None) -> Callable[[], Result]:
        def run() -> Result:
            from core.methods.base import Backends
            from core.methods.reg.config import TrainConfig
            from core.methods.reg.train import train_reg

            assert w.questions_path is not None
            cfg = TrainConfig(supervision="weak", seed=seed, epochs=epochs or TrainConfig().epochs)
            out = Path(tempfile.mkdtemp(prefix="reg-", dir=tmp))
            res = train_reg(w, w.questions_path, backends=Backends(e, get_llm("none")), cfg=cfg, out=out, cache=False)
            return (str(res.device), f"{res.counts.get('train_examples', 0)} train questions, {cfg.epochs} epochs, "
                    f"best epoch {res.best_epoch}", float(res.seconds))
        return run

    g = ws.graph
    demo = f"demo KG, {g.n_nodes} nodes, {g.n_edges} edges"
    _timed(rows, "SG-RAG GAT dominance training", demo, gat(ws))
    # the demo's 5 questions: split seed 1 leaves a validation question with a positive triple
    # (seed 0 does not); a device check, not a quality figure (benchmarks/reg_retriever.py has those)
    _timed(rows, "ReG triple retriever training", f"{demo}, 5 questions", reg(ws, emb, 1))
    if args.musique:
        hashing = get_embedder("hashing", dim=384)
        t0 = time.perf_counter()
        mq = ensure_sample_workspace("musique", hashing, root=tmp / "ws-hashing")
        g = mq.graph
        print(f"  (MuSiQue sample workspace with hashing vectors built in {time.perf_counter() - t0:.1f} s, untimed)")
        big = f"MuSiQue KG, {g.n_nodes:,} nodes, {g.n_edges:,} edges, hashing 384-d features"
        _timed(rows, "SG-RAG GAT dominance training", big, gat(mq, args.gat_epochs))
        _timed(rows, "ReG triple retriever training", f"{big}, 100 questions", reg(mq, hashing, 0, args.reg_epochs))

    loaded: list[Any] = []  # the warm call reuses the loaded model: it times generation alone

    def llama() -> Result:
        from core.backends.base import ChatMessage

        if not loaded:
            loaded.append(get_llm("local-small", cache=False))
            loaded[0].load()
        llm = loaded[0]
        r = llm.chat([ChatMessage("user", "Count from 1 to 100, separated by commas.")], max_tokens=args.tokens)
        offload = "cuda (all layers)" if gpu and env["llama_cpp_gpu_offload"] else "cpu"
        return offload.split(" ")[0], (f"{r.completion_tokens} tokens in {r.latency_s:.2f} s, "
                                       f"{r.completion_tokens / max(r.latency_s, 1e-9):.1f} tokens/s; offload: {offload}"), None

    _timed(rows, "llama.cpp 0.5B generation", f"{args.tokens} tokens", llama)

    report = {"date": time.strftime("%Y-%m-%d"), "argv": sys.argv[1:], "machine": f"{platform.machine()}, "
              f"{len(os.sched_getaffinity(0))} CPU core(s)", "gpu_visible": gpu, "environment": env, "rows": rows}
    print("\n| stage | size | device | first call, s | warm, s | model-recorded s (first / warm) | detail |\n"
          "|---|---|---|---:|---:|---:|---|")
    for r in rows:
        rec = "" if r["warm_model_s"] is None else f"{_s(r['first_model_s'])} / {_s(r['warm_model_s'])}"
        print(f"| {r['stage']} | {r['size']} | {r['device']} | {_s(r['first_s'])} | {_s(r['warm_s'])} | {rec} | "
              f"{r['detail'] or r['error']} |")
    if not gpu:
        print("\nNo GPU was visible: this table is the CPU baseline.")
    if args.out:
        from core.fsio import atomic_write_json

        atomic_write_json(args.out, report)
        print(f"wrote {args.out}")
    return 1 if any(r["error"] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
