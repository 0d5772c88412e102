"""Prompt-lookup decoding on the local model, A/B on BubbleRAG's real requests.

1. ``capture``: replays BubbleRAG from a recording bundle (``egx bench --llm recorded``) and writes every
   request it sends (messages, JSON schema, ``max_tokens``) with the recorded reply, one JSON line each.
2. ``run``: sends those requests, in order, to the bundled 1.5B model (prompt-state cache on, as in
   production) with ``EGX_LLAMA_LOOKUP`` set per run, in a fresh process each, and reports seconds per
   request and whether the reply equals the recorded one.

Usage (nothing else on the cores; the model loads once per setting)::

    EGX_HOME=$PWD/.egx-rec .venv/bin/python benchmarks/llm_lookup_ab.py capture --workspace musique \
        --limit 2 --out /tmp/requests.jsonl
    .venv/bin/python benchmarks/llm_lookup_ab.py run /tmp/requests.jsonl --lookup 0 8 \
        --out benchmarks/results/llm_lookup_ab_$(date +%F).json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def capture(workspace: str, limit: int, out: Path) -> None:
    from core.backends import llm_recorded
    from core.cli import main

    original = llm_recorded.RecordedLLM.chat

    def chat(self, messages, *, max_tokens=512, temperature=0.0, json_schema=None):  # type: ignore[no-untyped-def]
        r = original(self, messages, max_tokens=max_tokens, temperature=temperature, json_schema=json_schema)
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"messages": [{"role": m.role, "content": m.content} for m in messages],
                                "max_tokens": max_tokens, "schema": json_schema, "text": r.text}) + "\n")
        return r

    llm_recorded.RecordedLLM.chat = chat  # type: ignore[method-assign]
    out.write_text("")
    with tempfile.TemporaryDirectory() as tmp:
        main(["bench", "--workspace", workspace, "--llm", "recorded", "--limit", str(limit), "--methods",
              "bubblerag", "--no-judge", "--out", tmp])


def one_setting(requests: Path) -> list[dict]:
    """Run in a child process (``EGX_LLAMA_LOOKUP`` read when the model loads)."""
    from core.backends.base import ChatMessage
    from core.backends.llm_local import LlamaCppLLM

    llm = LlamaCppLLM(timeout=600)
    raw = llm.load()
    rows = []
    for line in requests.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        stats = getattr(raw, "lookup_stats", None)
        if stats is not None:
            stats.update(batches=0, tokens=0)
        t0 = time.perf_counter()
        resp = llm.chat([ChatMessage(m["role"], m["content"]) for m in r["messages"]], max_tokens=r["max_tokens"],
                        json_schema=r["schema"])
        rows.append({"seconds": round(time.perf_counter() - t0, 2), "prompt_tokens": resp.prompt_tokens,
                     "completion_tokens": resp.completion_tokens, "same_as_recorded": resp.text == r["text"],
                     "steps": dict(stats) if stats is not None else None})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("--workspace", default="musique")
    c.add_argument("--limit", type=int, default=2)
    c.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("requests")
    r.add_argument("--lookup", type=int, nargs="+", default=[0, 8])
    r.add_argument("--out")
    o = sub.add_parser("one")  # internal: one setting, JSON rows on stdout
    o.add_argument("requests")
    a = ap.parse_args()
    if a.cmd == "capture":
        capture(a.workspace, a.limit, Path(a.out))
    elif a.cmd == "one":
        print(json.dumps(one_setting(Path(a.requests))))
    else:
        res = {}
        for k in a.lookup:
            env = {**os.environ, "EGX_LLAMA_LOOKUP": str(k)}
            out = subprocess.run([sys.executable, __file__, "one", a.requests], env=env, check=True,
                                 capture_output=True, text=True).stdout
            rows = json.loads(out.strip().splitlines()[-1])
            res[str(k)] = {"total_seconds": round(sum(x["seconds"] for x in rows), 1),
                           "same_as_recorded": sum(x["same_as_recorded"] for x in rows), "requests": len(rows),
                           "rows": rows}
            print(f"lookup {k}: {res[str(k)]['total_seconds']} s for {len(rows)} requests, "
                  f"{res[str(k)]['same_as_recorded']} replies as recorded", flush=True)
        if a.out:
            Path(a.out).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
