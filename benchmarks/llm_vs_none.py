"""LLM mode next to `none` mode on the same questions: two `egx bench` runs compared.

Reads the ``results.jsonl`` of a run with an LLM and of a `none`-mode run (plain or ``.gz``), keeps the
(question, method) pairs both hold without an error, and writes per method: R@2/5/10 and AR@5 (×100),
answer EM/F1 (judged answers only: the extractive `none` answers are sentences, not judged), mean
seconds and LLM tokens per question, how many runs recorded a fallback, and the first stage at which
gold evidence was lost (the failure diagnosis) on each side — where a method is worse with the LLM,
the stage whose count grows is where the LLM loses the evidence.

Usage: python benchmarks/llm_vs_none.py --llm RUN_LLM/results.jsonl --none RUN_NONE/results.jsonl[.gz]
       [--none RERUN/results.jsonl ...] [--out benchmarks/results/llm_vs_none.json] [--md table.md]
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

RECALLS = ("R@2", "R@5", "R@10", "AR@5")


def read_records(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """(question id, method) → record, for records without an error (the last line of a pair wins)."""
    opener = gzip.open if path.suffix == ".gz" else open
    out: dict[tuple[str, str], dict[str, Any]] = {}
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:  # a torn last line of a killed run
                continue
            if not r.get("error"):
                out[(r["question_id"], r["method"])] = r
    return out


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


def side(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one method on one side."""
    judged = [r for r in records if r.get("answer_judged")]
    return {
        **{k: _mean([100.0 * float(r["metrics"][k]) for r in records if k in r["metrics"]]) for k in RECALLS},
        "EM": _mean([float(r["em"]) for r in judged]), "F1": _mean([float(r["f1"]) for r in judged]),
        "judged": len(judged),
        "seconds": _mean([float(r["seconds"]) for r in records]),
        "tokens": _mean([float((r.get("tokens") or {}).get("total", 0)) for r in records]),
        "runs_with_fallback": sum(1 for r in records if r.get("fallbacks")),
        "lost_at": dict(Counter(str((r.get("diagnosis") or {}).get("stage", "?")) for r in records).most_common()),
    }


def compare(llm: dict[tuple[str, str], dict[str, Any]], none: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    common = sorted(set(llm) & set(none))
    methods = list(dict.fromkeys(m for _, m in common))
    out: dict[str, Any] = {"pairs": len(common), "questions": len({q for q, _ in common}), "methods": {}}
    for m in methods:
        keys = [k for k in common if k[1] == m]
        a, b = side([llm[k] for k in keys]), side([none[k] for k in keys])
        out["methods"][m] = {"n": len(keys), "llm": a, "none": b,
                             "delta": {k: (round(a[k] - b[k], 2) if a[k] is not None and b[k] is not None else None)
                                       for k in RECALLS}}
    return out


def markdown(res: dict[str, Any]) -> str:
    def f(x: float | None, nd: int = 1) -> str:
        return "–" if x is None else f"{x:.{nd}f}"

    lines = [f"{res['questions']} questions, {res['pairs']} (question, method) pairs in both runs.", "",
             "| method | n | R@2 LLM / none | R@5 LLM / none | R@10 LLM / none | AR@5 LLM / none | EM / F1 (LLM) "
             "| s / q LLM / none | LLM tokens / q | runs with a fallback (LLM) |",
             "|---|---:|---|---|---|---|---|---|---:|---:|"]
    for m, r in res["methods"].items():
        a, b = r["llm"], r["none"]
        lines.append(f"| {m} | {r['n']} | " + " | ".join(f"{f(a[k])} / {f(b[k])}" for k in RECALLS)
                     + f" | {f(a['EM'], 2)} / {f(a['F1'], 2)} | {f(a['seconds'])} / {f(b['seconds'], 2)} "
                       f"| {f(a['tokens'], 0)} | {a['runs_with_fallback']} |")
    lines += ["", "First stage that lost gold evidence (the failure diagnosis, cut 5), LLM vs none:", ""]
    for m, r in res["methods"].items():
        lines.append(f"- {m}: LLM {r['llm']['lost_at']} · none {r['none']['lost_at']}")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--llm", required=True, type=Path, help="results.jsonl of the run with an LLM")
    ap.add_argument("--none", required=True, type=Path, action="append",
                    help="results.jsonl(.gz) of the none-mode run; repeat it to let a later run's records "
                         "replace an earlier one's (e.g. one method re-run)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--md", type=Path)
    args = ap.parse_args()
    none: dict[tuple[str, str], dict[str, Any]] = {}
    for path in args.none:
        none.update(read_records(path))
    res = compare(read_records(args.llm), none)
    text = markdown(res)
    if args.out:
        args.out.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    if args.md:
        args.md.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
