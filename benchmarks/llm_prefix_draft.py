"""What the local model reads and writes per BubbleRAG question: no prompt-state cache, the shipped cache, and the
cache with the 0.5B model as a draft — alternated question by question in one process.

BubbleRAG's LLM stages share one opening (the question, then the preview passages: ``prompts.preview_block``) and
llama.cpp keeps the prompt states of a question (``LlamaRAMCache``), so a stage reads only what an earlier one did
not. This script measures what that saves, and whether speculative decoding with the bundled 0.5B Qwen2.5-Coder
(same tokenizer; ``EGX_LLAMA_DRAFT``, :class:`core.backends.llama_sampling.SmallModelDraft`) makes the 1.5B's
replies faster on this machine:

1. ``capture`` (from ``benchmarks/llm_lookup_ab.py``): replays BubbleRAG from the shipped recordings and writes every
   request (messages, JSON schema, ``max_tokens``) with the recorded reply, one JSON line each;
2. ``run``: loads the 1.5B and the 0.5B once and sends each question's requests in order under every setting; the
   settings take turns (ABC, BCA, CAB, ...) so a change in the machine's load falls on each alike, and each setting
   starts a question with an empty context and an empty prompt-state cache. Per question and setting: prompt tokens
   sent, prompt tokens read (llama.cpp's own ``n_p_eval`` count, less the draft's check batches), tokens written,
   seconds, llama.cpp's prompt and decoding milliseconds, the draft's reading, and the replies that equal the
   shipped setting's (a guess is checked by the 1.5B, so the reply is the 1.5B's greedy reply up to float
   reductions: a batch is read with other sums than a token).

Each figure is a same-run comparison: per-question ratios to the shipped setting, their median, and the paired
bootstrap interval of the mean difference in seconds (``core/eval/stats.py``).

Usage (EGX_HOME pointing at the built samples; nothing else on the cores if the seconds are to be idle figures)::

    .venv/bin/python benchmarks/llm_lookup_ab.py capture --workspace musique --limit 3 --out /tmp/requests.jsonl
    .venv/bin/python benchmarks/llm_prefix_draft.py /tmp/requests.jsonl --draft-tokens 4 \\
        --out benchmarks/results/llm_prefix_draft_$(date +%F).json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SETTINGS = ("no state cache", "state cache (shipped)", "state cache + 0.5B draft")
SHIPPED = SETTINGS[1]
_QUESTION = re.compile(r"^Question: (.+)$", re.M)


def by_question(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The captured requests grouped by the question their user prompt names, in order."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for r in rows:
        m = _QUESTION.search(r["messages"][-1]["content"])
        q = m.group(1).strip() if m else (out[-1][0] if out else "")
        if not out or out[-1][0] != q:
            out.append((q, []))
        out[-1][1].append(r)
    return out


def _perf(raw: Any) -> tuple[int, int, float, float]:
    import llama_cpp

    p = llama_cpp.llama_perf_context(raw._ctx.ctx)
    return int(p.n_p_eval), int(p.n_eval), float(p.t_p_eval_ms), float(p.t_eval_ms)


def run(requests: Path, k: int) -> dict[str, Any]:
    from llama_cpp import Llama, LlamaRAMCache

    from core.backends.base import ChatMessage
    from core.backends.gguf import ensure_model
    from core.backends.llama_sampling import install_draft
    from core.backends.llm_local import LlamaCppLLM, prompt_cache_bytes

    questions = by_question([json.loads(x) for x in requests.read_text(encoding="utf-8").splitlines() if x.strip()])
    llm = LlamaCppLLM(timeout=1800)
    raw = llm.load()
    small = Llama(model_path=str(ensure_model("0.5b")), n_ctx=llm.n_ctx, n_threads=llm.n_threads,
                  n_threads_batch=llm.n_threads, n_gpu_layers=0, seed=llm.seed, verbose=False)
    draft = install_draft(raw, small, k)
    batches: list[int] = []
    checked_eval = raw.eval

    def eval_(tokens: Any) -> None:  # the sizes of the batches read during one request
        batches.append(len(tokens))
        return checked_eval(tokens)

    raw.eval = eval_
    out: list[dict[str, Any]] = []
    for qi, (question, reqs) in enumerate(questions):
        order = SETTINGS[qi % 3:] + SETTINGS[:qi % 3]
        per: dict[str, Any] = {}
        for name in order:
            raw.set_cache(None if name == SETTINGS[0] else LlamaRAMCache(capacity_bytes=prompt_cache_bytes()))
            raw.reset()
            small.reset()
            raw.draft_model = draft if name == SETTINGS[2] else None
            calls = []
            for r in reqs:
                batches.clear()
                p0, s0, g0 = _perf(raw), _perf(small), dict(draft.stats)
                t0 = time.perf_counter()
                resp = llm.chat([ChatMessage(m["role"], m["content"]) for m in r["messages"]],
                                max_tokens=r["max_tokens"], json_schema=r["schema"])
                seconds = time.perf_counter() - t0
                p1, s1 = _perf(raw), _perf(small)
                checks = sum(b for b in batches[1:] if b >= 2)  # the draft's guesses read with their check
                calls.append({"sent": resp.prompt_tokens, "read": p1[0] - p0[0] - checks,
                              "written": resp.completion_tokens, "seconds": round(seconds, 2),
                              "prompt_ms": round(p1[2] - p0[2]), "decode_ms": round(p1[3] - p0[3]),
                              "steps": max(0, len(batches) - 1),
                              "draft_read": draft.stats["read"] - g0["read"],
                              "draft_guessed": draft.stats["guessed"] - g0["guessed"],
                              "draft_ms": round((s1[2] - s0[2]) + (s1[3] - s0[3])), "text": resp.text})
            per[name] = {"seconds": round(sum(c["seconds"] for c in calls), 1),
                         **{f: sum(c[f] for c in calls) for f in ("sent", "read", "written", "steps", "prompt_ms",
                                                                 "decode_ms", "draft_read", "draft_guessed",
                                                                 "draft_ms")},
                         "calls": calls}
            print(f"q{qi + 1} {name}: {per[name]['seconds']} s, {per[name]['sent']} prompt tokens sent, "
                  f"{per[name]['read']} read, {per[name]['written']} written", flush=True)
        shipped = [c["text"] for c in per[SHIPPED]["calls"]]
        for name in SETTINGS:
            per[name]["replies_as_shipped"] = sum(c["text"] == t for c, t in zip(per[name]["calls"], shipped))
        out.append({"question": question, "requests": len(reqs), "settings": per})
    return {"questions": out, "summary": summary(out), "draft_tokens": k, "threads": llm.n_threads}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per setting: median seconds, tokens per question; against the shipped setting: the median per-question
    ratio of seconds and the paired interval of the mean difference."""
    from core.eval.stats import paired_interval

    base = [r["settings"][SHIPPED]["seconds"] for r in rows]
    out: dict[str, Any] = {}
    for name in SETTINGS:
        s = [r["settings"][name] for r in rows]
        secs = [x["seconds"] for x in s]
        row: dict[str, Any] = {"n": len(s), "median_seconds": statistics.median(secs),
                               **{f"{f}_per_question": statistics.median(x[f] for x in s)
                                  for f in ("sent", "read", "written", "steps", "draft_read")},
                               "replies_as_shipped": sum(x["replies_as_shipped"] for x in s),
                               "requests": sum(len(x["calls"]) for x in s)}
        if name != SHIPPED:
            iv = paired_interval(secs, base)
            row["ratio_to_shipped_median"] = round(statistics.median(a / b for a, b in zip(secs, base)), 3)
            row["minus_shipped_seconds"] = {"mean": round(iv.mean, 1), "low": round(iv.low, 1),
                                            "high": round(iv.high, 1), "n": iv.n}
        out[name] = row
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("requests", help="a file `benchmarks/llm_lookup_ab.py capture` wrote")
    ap.add_argument("--draft-tokens", type=int, default=4, help="tokens the 0.5B guesses a step (default 4)")
    ap.add_argument("--out")
    a = ap.parse_args()
    res = run(Path(a.requests), a.draft_tokens)
    print(json.dumps(res["summary"], indent=1))
    if a.out:
        Path(a.out).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
