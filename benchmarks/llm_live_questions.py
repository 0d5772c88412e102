"""Run a method with the live local LLM on sample questions; print each stage's seconds, tokens, fallback and
decisions as JSON lines (for prompt experiments). Run it alone: two llama.cpp processes on 2 cores slow both 10-30x.

    EGX_LLM_CACHE=0 EGX_LLM_BUDGET=0 EGX_LLM_TIMEOUT=900 .venv/bin/python benchmarks/llm_live_questions.py \\
        demo bubblerag matrix-villain,lothair-mother out.jsonl

Arguments: workspace (a bundled sample), method, question ids (comma-separated; empty = all), output file.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from core.backends.registry import get_embedder, get_llm, get_reranker
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.run import run_method

KEYS = ("explicit", "implicit", "rewrites", "rejected", "relaxed", "groups", "review", "expanded", "sufficient",
        "answer", "source", "query_graph", "described_as_unk", "exact", "sufficiency_rejected", "reason")


def main(argv: list[str]) -> None:
    ws_name, method = argv[0], argv[1]
    ids = argv[2].split(",") if len(argv) > 2 and argv[2] else None
    out_path = Path(argv[3] if len(argv) > 3 else "llm_live_questions.jsonl")
    emb = get_embedder("bge-small")
    llm = get_llm("local")
    root = Path(__file__).resolve().parents[1] / ".cache" / "test-samples" / "by-model"
    ws = ensure_sample_workspace(ws_name, emb, root=root / re.sub(r"[^A-Za-z0-9.-]+", "_", emb.model_id))
    b = Backends(emb, llm, get_reranker("ms-marco-minilm", embedder=emb, llm=llm))
    with out_path.open("w", encoding="utf-8") as out:
        for q in [q for q in load_questions(ws) if ids is None or q.id in ids]:
            t0 = time.perf_counter()
            r = run_method(method, q.question, ws, b)
            rec = {"id": q.id, "q": q.question, "gold": q.answer, "answer": r.answer,
                   "seconds": round(time.perf_counter() - t0, 1), "ranked": [c.chunk_id for c in r.ranked_chunks[:10]],
                   "gold_chunks": list(q.gold_chunks),
                   "steps": [{"stage": s.stage, "s": round(s.seconds, 1), "p": s.prompt_tokens, "c": s.completion_tokens,
                              "fallback": s.fallback, "data": {k: v for k, v in s.data.items() if k in KEYS}}
                             for s in r.trace.steps]}
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            out.flush()
            print(q.id, rec["seconds"], "s:", r.answer, "| gold", q.answer, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
