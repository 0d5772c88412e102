"""BubbleRAG LLM time per stage with a local llama.cpp model, LLM cache OFF.

Runs BubbleRAG at the paper's defaults (``BubbleConfig()``: B=10, h=6, d=6, n=3, ≤15 chunks) with
``--llm local`` (Qwen2.5-Coder-1.5B-Instruct Q4_K_M) or ``local-small`` (0.5B) on the first N
MuSiQue questions of the sample workspace, one question at a time inside the per-question LLM scope
(:func:`core.methods.run.run_method`, as ``egx bench`` and the app run it), and records per stage:
seconds, LLM calls, prompt and completion tokens, and whether the stage fell back. The LLM response
cache is forced off (``EGX_LLM_CACHE=0``), so every reply is generated now.

The model is loaded and warmed on one throw-away chat before the first question (load time is
reported apart). Per question it also records the machine's load average, since the 2 cores are
shared.

Usage::

    EGX_CACHE_DIR=$PWD/.cache EGX_HOME=$PWD/.egx flock /tmp/egx-cpu.lock \\
        .venv/bin/python benchmarks/llm_stage_times.py --llm local --limit 3 \\
        --label after --out benchmarks/results/llm_stage_times_after.json

``--tight`` runs with ``BubbleConfig(tight_json=True)`` (bounded JSON per stage, the named option of
the fast path). Per stage it also reads llama.cpp's own counters (prompt tokens evaluated and their
milliseconds, tokens decoded and theirs), so the rest of a stage's LLM time is sampling, grammar and
Python; prompt tokens sent minus prompt tokens evaluated is what the KV-cache prefix reuse saved.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LLM_STAGES = ("preretrieval", "keywords", "specialization", "relaxation", "grouping", "reasoning", "answer")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--llm", default="local", choices=["local", "local-small"])
    ap.add_argument("--limit", type=int, default=3)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--label", default="")
    ap.add_argument("--tight", action="store_true", help="BubbleConfig(tight_json=True): bounded JSON per stage")
    ap.add_argument("--out")
    args = ap.parse_args()
    os.environ["EGX_LLM_CACHE"] = "0"  # timings with the response cache off, or they measure nothing

    from core.backends.base import ChatMessage
    from core.backends.registry import get_embedder, get_llm
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends
    from core.methods.bubblerag.config import BubbleConfig
    from core.methods.run import run_method

    emb = get_embedder(args.embedder)
    ws = ensure_sample_workspace("musique", emb)
    questions = json.loads(ws.questions_path.read_text())[args.offset:args.offset + args.limit]
    llm = get_llm(args.llm, cache=False)
    t0 = time.perf_counter()
    llm.chat([ChatMessage("system", "Answer briefly."), ChatMessage("user", "Say ok.")], max_tokens=4)
    load_s = time.perf_counter() - t0
    inner = llm
    while hasattr(inner, "inner"):
        inner = inner.inner
    b = Backends(emb, llm)
    import core.methods.llm_steps as steps_mod

    calls: dict[str, int] = {}
    perf: dict[str, dict[str, float]] = {}  # llama.cpp's own counters per stage: prompt / decode tokens and ms
    announce, record = steps_mod._announce, steps_mod._record
    start: dict[str, float] = {}

    def counters() -> dict[str, float]:
        import llama_cpp

        from core.backends.llm_local import _LLAMA_CACHE

        if not _LLAMA_CACHE:
            return {}
        model = next(iter(_LLAMA_CACHE.values()))[0]
        d = llama_cpp.llama_perf_context(model._ctx.ctx)
        return {"prompt_eval_tokens": d.n_p_eval, "prompt_eval_ms": d.t_p_eval_ms, "decode_tokens": d.n_eval,
                "decode_ms": d.t_eval_ms, "wall_ms": time.perf_counter() * 1000}

    def counting(step):  # one LLM call starts in this stage
        if step is not None:
            calls[step.stage] = calls.get(step.stage, 0) + 1
            start.clear()
            start.update(counters())
        announce(step)

    def recording(step, out):  # ... and ends: add llama.cpp's counters to the stage
        if step is not None and start:
            end = counters()
            acc = perf.setdefault(step.stage, {})
            for k, v in end.items():
                acc[k] = acc.get(k, 0) + v - start[k]
        record(step, out)

    steps_mod._announce, steps_mod._record = counting, recording
    cfg = BubbleConfig(tight_json=args.tight)
    per_q = []
    for q in questions:
        calls.clear()
        perf.clear()
        la0 = os.getloadavg()[0]
        t0 = time.perf_counter()
        r = run_method("bubblerag", q["question"], ws, b, config=cfg)
        total = time.perf_counter() - t0
        stages = {}
        for s in r.trace.steps:
            n_calls = calls.get(s.stage, 0)
            if s.stage in LLM_STAGES or n_calls:
                stages[s.stage] = {"seconds": round(s.seconds, 2), "calls": n_calls,
                                   "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens,
                                   "fallback": s.fallback[:160],
                                   "llama_perf": {k: round(v, 1) for k, v in perf.get(s.stage, {}).items()}}
        rec = {"id": q.get("id"), "question": q["question"], "seconds": round(total, 2),
               "llm_seconds": round(sum(v["seconds"] for v in stages.values()), 2),
               "answer": r.answer, "gold": q.get("answer") or q.get("answers"),
               "loadavg_1m_before": round(la0, 2), "loadavg_1m_after": round(os.getloadavg()[0], 2),
               "stages": stages}
        per_q.append(rec)
        print(f"{rec['seconds']:7.1f} s  load {la0:.1f}  {q['question'][:70]}", flush=True)
        for k, v in stages.items():
            print(f"    {k:<15} {v['seconds']:7.1f} s  {v['calls']:2d} calls  {v['prompt_tokens']:6d} p  "
                  f"{v['completion_tokens']:5d} c  {v['fallback'][:60]}", flush=True)
    summary = {}
    for st in LLM_STAGES:
        xs = [q["stages"][st] for q in per_q if st in q["stages"]]
        if xs:
            summary[st] = {"median_s": round(statistics.median(x["seconds"] for x in xs), 2),
                           "mean_s": round(statistics.fmean(x["seconds"] for x in xs), 2),
                           "mean_calls": round(statistics.fmean(x["calls"] for x in xs), 2),
                           "mean_prompt_tokens": round(statistics.fmean(x["prompt_tokens"] for x in xs), 1),
                           "mean_completion_tokens": round(statistics.fmean(x["completion_tokens"] for x in xs), 1)}
    out = {"label": args.label, "llm": args.llm, "model": llm.model_id, "backend": repr(inner),
           "tight_json": args.tight, "embedder": args.embedder, "config": cfg.to_dict(), "cache": "off",
           "cpus": os.cpu_count(), "load_and_warmup_s": round(load_s, 2),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "median_question_s": round(statistics.median(q["seconds"] for q in per_q), 2),
           "stages": summary, "questions": per_q}
    tot: dict[str, float] = {}
    for q in per_q:
        for v in q["stages"].values():
            for k, x in v["llama_perf"].items():
                tot[k] = tot.get(k, 0) + x
    if tot.get("wall_ms"):
        out["where_llm_time_goes"] = {
            "prompt_eval_s": round(tot["prompt_eval_ms"] / 1000, 1), "decode_s": round(tot["decode_ms"] / 1000, 1),
            "other_s (sampling, grammar, Python)": round((tot["wall_ms"] - tot["prompt_eval_ms"] - tot["decode_ms"]) / 1000, 1),
            "prompt_tok_per_s": round(1000 * tot["prompt_eval_tokens"] / max(tot["prompt_eval_ms"], 1), 1),
            "decode_tok_per_s": round(1000 * tot["decode_tokens"] / max(tot["decode_ms"], 1), 1),
            "prompt_tokens_sent": sum(v["prompt_tokens"] for q in per_q for v in q["stages"].values()),
            "prompt_tokens_evaluated": int(tot["prompt_eval_tokens"])}
        print("where the LLM time goes:", out["where_llm_time_goes"])
    print(f"median per question: {out['median_question_s']} s over {len(per_q)} questions")
    for k, v in summary.items():
        print(f"  {k:<15} median {v['median_s']:7.1f} s  {v['mean_calls']:5.1f} calls  "
              f"{v['mean_prompt_tokens']:7.0f} p  {v['mean_completion_tokens']:6.0f} c")
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    main()
