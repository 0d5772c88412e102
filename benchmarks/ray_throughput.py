"""Ray throughput, 1 vs 2 workers, against one process (``egx index --ray``, ``egx bench --ray``).

Three pieces of batch work, each run in this process (egx's default path) and on a local Ray
(``ray.init(num_cpus=2)``) with 1 and with 2 model-holding actors (:class:`core.batch.ray_runner.RayRunner`):

* ``embed`` — N MuSiQue passages ("title\\ntext") with the default embedder (bge-small, int8 ONNX):
  :func:`core.index.vector_index.embed_texts` here (onnxruntime on all cores), ``RayRunner.embed`` there
  (one onnxruntime thread per actor); the vectors are checked equal (max |difference|);
* ``extract`` — spaCy triple extraction of the same passages (:func:`core.graph.builder.extract_triples`,
  empty cache): here with ``EGX_SPACY_PROCESSES=1`` (one process) and with the default worker processes;
* ``bench`` — K MuSiQue questions × ``dense,ppr,bubblerag`` (LLM ``none``, biencoder reranker, on the
  MuSiQue sample built with the hashing embedder so the methods' own work dominates):
  :func:`core.eval.runner.run_benchmark` here and with ``runner=`` there; the records are checked equal
  apart from timings.

Every Ray figure includes starting the actors and loading the models in them (what a user waits for),
not starting Ray itself (reported once as ``ray_start_s``). Items/s are wall clock; the load average
before and after each run is recorded (the machine is shared).

Usage: flock /tmp/egx-cpu.lock .venv/bin/python benchmarks/ray_throughput.py [--passages 1000] [--questions 20]
       [--out benchmarks/results/ray_throughput_DATE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path


def timed(fn):  # type: ignore[no-untyped-def]
    la0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    res = fn()
    return res, {"seconds": round(time.perf_counter() - t0, 2), "load_before": round(la0, 2),
                 "load_after": round(os.getloadavg()[0], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passages", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--skip", default="", help="comma-separated pieces to skip (embed, extract, bench)")
    ap.add_argument("--out")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))

    import numpy as np

    from core.backends.llm import NoLLM
    from core.backends.registry import get_embedder, get_extractor, get_reranker
    from core.batch.ray_runner import RayRunner
    from core.eval.runner import run_benchmark
    from core.graph.builder import extract_triples
    from core.graph.formats.load import load_inputs
    from core.index.paths import sample_data_dir
    from core.index.questions import load_questions
    from core.index.samples import ensure_sample_workspace
    from core.index.vector_index import embed_texts
    from core.methods.base import Backends

    sample = sample_data_dir() / "musique"
    recipe = json.loads((sample / "workspace.json").read_text())
    chunks = load_inputs([sample / recipe["inputs"][0]]).graph.chunks[: args.passages]
    passages = [c.passage for c in chunks]
    workers = [int(w) for w in args.workers.split(",")]
    out: dict = {"passages": len(passages), "questions": args.questions, "cpus": os.cpu_count(),
                 "load_average_start": os.getloadavg(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "results": {}}
    tmp = Path(tempfile.mkdtemp(prefix="egx-ray-bench-"))
    bge = get_embedder("bge-small")
    bge.embed(passages[:8])  # load the model here before timing

    t0 = time.perf_counter()
    outer = RayRunner(num_cpus=2)
    outer.start()
    out["ray_start_s"] = round(time.perf_counter() - t0, 2)
    try:
        if "embed" not in skip:
            ref, t = timed(lambda: embed_texts(passages, bge))
            res = {"one_process": {**t, "items_per_s": round(len(passages) / t["seconds"], 1)}}
            for w in workers:
                with RayRunner(workers=w) as r:
                    vecs, t = timed(lambda r=r: r.embed(bge, {"chunks": passages})["chunks"])
                res[f"ray_{w}"] = {**t, "items_per_s": round(len(passages) / t["seconds"], 1),
                                   "max_abs_diff": float(np.abs(vecs - ref).max())}
            out["results"]["embed"] = res
            print("embed", json.dumps(res))
        if "extract" not in skip:
            spacy = get_extractor("spacy")
            res = {}
            for label, env in (("one_process", "1"), ("one_process_spacy_workers", "")):
                os.environ["EGX_SPACY_PROCESSES"] = env
                ex = get_extractor("spacy")
                ex.extract(passages[:8])
                r1, t = timed(lambda ex=ex, label=label: extract_triples(chunks, ex, cache_dir=tmp / f"x-{label}"))
                res[label] = {**t, "items_per_s": round(len(chunks) / t["seconds"], 1), "n_process": ex.n_process}
                if label == "one_process":
                    ref_x = r1
            os.environ.pop("EGX_SPACY_PROCESSES", None)
            for w in workers:
                with RayRunner(workers=w) as r:
                    rx, t = timed(lambda r=r, w=w: extract_triples(chunks, spacy, cache_dir=tmp / f"x-ray{w}", runner=r))
                res[f"ray_{w}"] = {**t, "items_per_s": round(len(chunks) / t["seconds"], 1),
                                   "same_triples": rx.triples == ref_x.triples}
            out["results"]["extract"] = res
            print("extract", json.dumps(res))
        if "bench" not in skip:
            hashing = get_embedder("hashing")
            ws = ensure_sample_workspace("musique", hashing, root=tmp / "ws")
            qs = load_questions(ws)
            backends = Backends(hashing, NoLLM(), get_reranker("biencoder", embedder=hashing))
            methods = ["dense", "ppr", "bubblerag"]
            n_pairs = min(args.questions, len(qs)) * len(methods)
            ref_b, t = timed(lambda: run_benchmark(ws, qs, methods, backends, out_dir=tmp / "b-one",
                                                   limit=args.questions))
            res = {"one_process": {**t, "pairs_per_s": round(n_pairs / t["seconds"], 2)}}

            def strip(recs):  # type: ignore[no-untyped-def]
                return [{k: v for k, v in r.items() if k not in ("seconds", "stages")} for r in recs]

            for w in workers:
                with RayRunner(workers=w) as r:
                    rb, t = timed(lambda r=r, w=w: run_benchmark(ws, qs, methods, backends, out_dir=tmp / f"b-ray{w}",
                                                                 limit=args.questions, runner=r))
                res[f"ray_{w}"] = {**t, "pairs_per_s": round(n_pairs / t["seconds"], 2),
                                   "same_records": strip(rb.records) == strip(ref_b.records)}
            res["pairs"] = n_pairs
            out["results"]["bench"] = res
            print("bench", json.dumps(res))
    finally:
        outer.close()
    out["load_average_end"] = os.getloadavg()
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
