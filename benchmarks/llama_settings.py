"""llama.cpp settings on this CPU: prompt-eval and generation speed per setting.

For each setting (threads, n_batch/n_ubatch, flash attention) the bundled GGUF model is loaded
fresh and given one BubbleRAG-sized prompt (MuSiQue passages, ~1,300 tokens) twice with a cleared
KV cache: prompt tokens per second (median), then 48 generated tokens per second
free and under a JSON-schema grammar (the BubbleRAG stages decode under one). No LLM cache is
involved (this calls llama.cpp directly).

Usage: flock /tmp/egx-cpu.lock .venv/bin/python benchmarks/llama_settings.py --size 0.5b --out f.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SETTINGS = {
    "default (threads=2, batch 512)": {},
    "threads=1": {"n_threads": 1, "n_threads_batch": 1},
    "batch 128": {"n_batch": 128, "n_ubatch": 128},
    "batch 1024": {"n_batch": 1024, "n_ubatch": 1024},
    "flash_attn": {"flash_attn": True},
}

SCHEMA = {"type": "object", "properties": {"selected": {"type": "array", "items": {"type": "string"}},
                                           "sufficient": {"type": "boolean"}},
          "required": ["selected", "sufficient"]}


def prompt_text() -> str:
    import gzip

    root = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
    src = sorted(root.glob("**/musique_train_corpus.json.gz")) or sorted(root.glob("**/*corpus*.json.gz"))
    passages = json.loads(gzip.open(src[0]).read())[:12] if src else [{"title": "x", "text": "word " * 400}]
    body = "\n".join(f"[{i + 1}] {p.get('title', '')}: {p.get('text', '')[:500]}" for i, p in enumerate(passages))
    return f"Question: Who founded the company that made the camera?\n\nPassages:\n{body}\n\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="0.5b", choices=["0.5b", "1.5b"])
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--out")
    args = ap.parse_args()
    from llama_cpp import Llama, LlamaGrammar

    from core.backends.gguf import ensure_model

    path = str(ensure_model(args.size))
    text = prompt_text()
    grammar = LlamaGrammar.from_json_schema(json.dumps(SCHEMA), verbose=False)
    results = {}
    for name, kw in SETTINGS.items():
        if args.only and name not in args.only:
            continue
        opts = {"n_ctx": 4096, "n_threads": 2, "n_threads_batch": 2, "verbose": False, "seed": 0, **kw}
        llm = Llama(model_path=path, **opts)
        toks = llm.tokenize(text.encode())
        pp, tg, tg_g = [], [], []
        for _ in range(2):
            llm.reset()
            llm._ctx.kv_cache_clear()
            t0 = time.perf_counter()
            llm.eval(toks)
            pp.append(len(toks) / (time.perf_counter() - t0))
        for g, out in ((None, tg), (grammar, tg_g)):
            prompt = toks + llm.tokenize(b"Return a JSON object listing n1 to n30.", add_bos=False)
            llm.reset()
            llm._ctx.kv_cache_clear()
            n, t_first = 0, 0.0
            for _tok in llm.generate(prompt, temp=0.0, grammar=g):
                n += 1
                if n == 1:  # the prompt is read: time the decoding of the next 48 tokens
                    t_first = time.perf_counter()
                if n > 48:
                    break
            out.append((n - 1) / (time.perf_counter() - t_first))
        results[name] = {"prompt_tokens": len(toks), "prompt_tok_s": round(statistics.median(pp), 1),
                         "gen_tok_s": round(tg[0], 1), "gen_grammar_tok_s": round(tg_g[0], 1)}
        print(f"{name:<32} prompt {results[name]['prompt_tok_s']:7.1f} tok/s   gen {results[name]['gen_tok_s']:5.1f} "
              f"tok/s   gen+grammar {results[name]['gen_grammar_tok_s']:5.1f} tok/s", flush=True)
        del llm
    if args.out:
        Path(args.out).write_text(json.dumps({"size": args.size, "settings": results}, indent=2))


if __name__ == "__main__":
    main()
