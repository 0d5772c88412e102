"""Answer EM / F1 and tokens with raw triples vs ReG evidence chains, using the local LLM, on a MuSiQue sample.

For each method and question the method runs once per evidence format (``triples``, ``chains``;
optionally ``passages``) with the same retrieval (methods are deterministic), and the answer step's
LLM call is scored against the gold answer and aliases (SQuAD EM / token F1,
:func:`core.text.answer_scores`). Prompt and completion tokens are the LLM's own counts. The
paper's claim (Table 5) concerns reasoning tokens of large reasoning models; a 0.5B/1.5B model
answering in a few tokens shows mostly the prompt side.

Usage: python benchmarks/reg_answers.py --llm local-small [--questions 10] [--methods reg dense] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", default=str(ROOT / ".cache" / "test-samples" / "musique"))
    ap.add_argument("--questions", type=int, default=10)
    ap.add_argument("--methods", nargs="+", default=["reg", "dense"])
    ap.add_argument("--formats", nargs="+", default=["triples", "chains"])
    ap.add_argument("--llm", default="local-small")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--out")
    args = ap.parse_args()

    from core.backends.registry import get_embedder, get_llm, get_reranker
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.evidence.formats import AnswerStepData
    from core.methods.reg.supervision import load_qa
    from core.methods.registry import get_method
    from core.text import answer_scores

    ws = Workspace.open(args.workspace)
    emb = get_embedder(args.embedder)
    llm = get_llm(args.llm)
    ws.ensure_index(emb)
    b = Backends(emb, llm, get_reranker("biencoder", embedder=emb))
    items = [it for it in load_qa(ws.questions_path, ws.graph)][: args.questions]
    out: dict = {"llm": llm.model_id, "questions": len(items), "results": {}}
    for m in args.methods:
        spec = get_method(m)
        runner = spec.run
        for fmt in args.formats:
            cfg = spec.make_config(evidence_format=fmt)
            rows = []
            t0 = time.perf_counter()
            for it in items:
                r = runner(it.question, ws, config=cfg, backends=b)
                st = r.trace.stage("answer")[-1]
                said = AnswerStepData.from_data(st.data)
                em, f1 = answer_scores(r.answer, it.answers)
                rows.append({"qid": it.qid, "em": em, "f1": f1, "answer": r.answer, "mode": said.mode,
                             "format_used": said.evidence_format, "prompt_tokens": st.prompt_tokens,
                             "completion_tokens": st.completion_tokens, "fallback": st.fallback})
            res = {"em": statistics.mean(x["em"] for x in rows), "f1": statistics.mean(x["f1"] for x in rows),
                   "prompt_tokens": statistics.mean(x["prompt_tokens"] for x in rows),
                   "completion_tokens": statistics.mean(x["completion_tokens"] for x in rows),
                   "llm_answers": sum(x["mode"] == "llm" for x in rows), "seconds": round(time.perf_counter() - t0, 1),
                   "rows": rows}
            out["results"][f"{m}/{fmt}"] = res
            print(f"{m:<10} {fmt:<8} EM {res['em']:.2f}  F1 {res['f1']:.3f}  prompt {res['prompt_tokens']:.0f}  "
                  f"completion {res['completion_tokens']:.1f} tokens  ({res['llm_answers']}/{len(rows)} LLM answers, "
                  f"{res['seconds']:.0f} s)", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1), encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
