"""How the shipped real-LLM answers compare with the gold answers, by kind of match (core.eval.verdicts).

Reads the LLM recordings in ``sample_data/llm_recordings`` (Qwen2.5-Coder-1.5B, every method's answer on the
demo and MuSiQue questions) and matches each answer against its question's gold answer plus MuSiQue's
``answer_aliases`` (:func:`core.eval.verdicts.match_answer`): how many are exact, alias, partial (part of the
gold answer, or holding it — EM 0, so SQuAD scoring calls them wrong), some words shared, none. No model runs.

Usage: python benchmarks/answer_matches.py [--out answer_matches.json]
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path

from core.eval.verdicts import MATCH_LABELS, match_answer

ROOT = Path(__file__).resolve().parents[1]


def gold_answers() -> dict[str, list[str]]:
    """Question id -> [gold answer, *aliases] of the demo and MuSiQue samples."""
    out: dict[str, list[str]] = {}
    with gzip.open(ROOT / "sample_data" / "musique" / "musique_train.json.gz", "rt", encoding="utf-8") as fh:
        for q in json.load(fh):
            out[str(q["id"])] = [q["answer"], *(q.get("answer_aliases") or [])]
    for q in json.loads((ROOT / "sample_data" / "demo" / "questions.json").read_text(encoding="utf-8")):
        out[str(q["id"])] = [q["answer"]]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the counts and examples as JSON")
    args = ap.parse_args()
    golds = gold_answers()
    kinds: Counter[str] = Counter()
    by_method: dict[str, Counter[str]] = {}
    examples: dict[str, list[dict[str, object]]] = {}
    for path in sorted((ROOT / "sample_data" / "llm_recordings").glob("*.json")):
        for run in json.loads(path.read_text(encoding="utf-8"))["runs"]:
            gs = golds.get(str(run.get("question_id"))) or [str(run.get("gold_answer") or "")]
            m = match_answer(str(run.get("answer") or ""), gs)
            kinds[m.kind] += 1
            by_method.setdefault(str(run.get("method")), Counter())[m.kind] += 1
            if m.kind in ("alias", "part", "contains") and len(examples.setdefault(m.kind, [])) < 3:
                examples[m.kind].append({"answer": str(run["answer"])[:100], "gold": gs[:3], "f1": round(m.f1 or 0, 2)})
    n = sum(kinds.values())
    print(f"{n} recorded answers")
    for k in MATCH_LABELS:
        if kinds[k]:
            print(f"  {MATCH_LABELS[k]:<42} {kinds[k]:>4}  ({100 * kinds[k] / n:.1f} %)")
    partial = kinds["part"] + kinds["contains"]
    print(f"partly right (EM 0, shown as 'partly right' instead of 'answer wrong'): {partial} of {n}")
    if args.out:
        args.out.write_text(json.dumps({"n": n, "kinds": dict(kinds), "by_method": {m: dict(c) for m, c in
                                        by_method.items()}, "examples": examples}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
