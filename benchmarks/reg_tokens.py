"""Prompt tokens of the answer step with raw triples vs ReG evidence chains, for every method, on MuSiQue.

Every registered method whose config has ``evidence_format`` runs in ``none`` mode on the MuSiQue
questions; its answer step records the passage, raw-triple and chain prompts built from the same
evidence (passage methods: the KG triples of their top passages; BubbleRAG: G_final; reg: its top-K
triples) and their token counts under the offline WordPiece tokenizer. With ``--qwen`` the same
prompts are also counted with the Qwen2.5 tokenizer of the local answering model (GGUF vocabulary
only, ``vocab_only=True``). The paper (Table 5) reports *reasoning* (output) tokens of LRMs; these are
*prompt* tokens — see ``reg_answers.py`` for completion tokens with the local LLM.

Usage: python benchmarks/reg_tokens.py [--questions 100] [--methods dense reg ...] [--qwen] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def qwen_counter():  # -> Callable[[str], int]
    from llama_cpp import Llama

    from core.backends.gguf import ensure_model

    vocab = Llama(model_path=str(ensure_model("1.5b")), vocab_only=True, verbose=False)
    return lambda text: len(vocab.tokenize(text.encode("utf-8"), add_bos=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", default=str(ROOT / ".cache" / "test-samples" / "musique"))
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--methods", nargs="+")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--qwen", action="store_true", help="also count with the local model's Qwen2.5 tokenizer")
    ap.add_argument("--out")
    args = ap.parse_args()

    from core.backends.llm import NoLLM
    from core.backends.prompts import ANSWER_SYSTEM
    from core.backends.registry import get_embedder, get_reranker
    from core.errors import ConfigError
    from core.index.questions import load_questions
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.evidence.formats import AnswerStepData
    from core.methods.reg.prompts import QA_SYSTEM
    from core.methods.registry import METHODS, get_method

    ws = Workspace.open(args.workspace)
    emb = get_embedder(args.embedder)
    ws.ensure_index(emb)
    backends = Backends(emb, NoLLM(), get_reranker("biencoder", embedder=emb))
    qs = load_questions(ws)[: args.questions]
    count = qwen_counter() if args.qwen else None
    methods = args.methods or list(METHODS)
    out: dict = {"workspace": ws.name, "questions": len(qs), "tokenizers": ["wordpiece (all-MiniLM-L6-v2)"]
                 + (["qwen2.5 (local GGUF vocab)"] if count else []), "methods": {}}
    for m in methods:
        spec = get_method(m)
        runner = spec.run
        try:
            cfg = spec.make_config(evidence_format="triples")
        except ConfigError as exc:
            print(f"{m}: skipped ({exc})")
            continue
        rows = []
        t0 = time.perf_counter()
        for q in qs:
            r = runner(q.question, ws, config=cfg, backends=backends)
            d = AnswerStepData.of(r.trace, last=True)
            tok = d.evidence_tokens if d is not None else None
            if d is None or not tok or not d.evidence_triples:
                continue
            row: dict[str, Any] = {"triples": tok["triples"], "chains": tok["chains"], "passages": tok.get("passages"),
                   "n_triples": d.evidence_triples, "n_chains": d.evidence_chains}
            if count is not None and d.prompts is not None:
                sysmsg = ANSWER_SYSTEM if m == "bubblerag" else QA_SYSTEM
                row["qwen_triples"] = count(sysmsg + "\n" + d.prompts["triples"])
                row["qwen_chains"] = count(sysmsg + "\n" + d.prompts["chains"])
            rows.append(row)
        secs = time.perf_counter() - t0

        def agg(a: str, b: str, rows: list = rows) -> dict:
            sav = [1 - r[b] / r[a] for r in rows if r.get(a)]
            return {"mean_" + a: statistics.mean(r[a] for r in rows), "mean_" + b: statistics.mean(r[b] for r in rows),
                    "saving_of_means": 1 - sum(r[b] for r in rows) / sum(r[a] for r in rows),
                    "median_saving": statistics.median(sav), "share_chains_shorter": sum(s > 0 for s in sav) / len(sav)}

        if not rows:
            print(f"{m}: no question produced triples")
            continue
        res = {"questions_with_triples": len(rows), "seconds": round(secs, 1),
               "mean_triples_in_evidence": statistics.mean(r["n_triples"] for r in rows),
               "mean_chains": statistics.mean(r["n_chains"] for r in rows),
               "wordpiece": agg("triples", "chains")}
        if rows[0].get("passages") is not None:
            res["wordpiece"]["mean_passages"] = statistics.mean(r["passages"] for r in rows if r.get("passages"))
        if count is not None:
            res["qwen"] = agg("qwen_triples", "qwen_chains")
        out["methods"][m] = res
        w = res["wordpiece"]
        line = (f"{m:<12} {len(rows):>3} q  triples {w['mean_triples']:7.1f}  chains {w['mean_chains']:7.1f}  "
                f"saving {w['saving_of_means']:+.1%} (median {w['median_saving']:+.1%}, chains shorter in "
                f"{w['share_chains_shorter']:.0%})")
        if count is not None:
            qn = res["qwen"]
            line += f" | qwen {qn['mean_qwen_triples']:.1f} → {qn['mean_qwen_chains']:.1f} ({qn['saving_of_means']:+.1%})"
        print(line, flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1), encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
