"""What the shipped LLM recordings hold, as one Markdown table per bundle.

    .venv/bin/python scripts/recordings_table.py [BUNDLE ...]

Per method: how many questions are recorded, the recorded seconds per run (median and range, the live
run's wall clock on the recording machine), LLM calls per run, how many answers match the bundle's gold
answer (exact match after SQuAD normalisation, or the gold answer contained in the answer), and which
stages fell back and how often. Reads the bundles only; no model, no workspace.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def table(path: Path) -> str:
    from core.text import exact_match, normalize_answer

    bundle = json.loads(path.read_text(encoding="utf-8"))
    prov = bundle.get("provenance", {})
    runs = bundle.get("runs", [])
    lines = [f"`{path.name}`: {prov.get('model', '?')} {prov.get('quantization', '')}, recorded "
             f"{min((r['date'][:10] for r in runs), default='?')} – {max((r['date'][:10] for r in runs), default='?')} "
             f"on {prov.get('machine', '?')}; {len({r['question_id'] for r in runs})} questions, {len(runs)} runs.", "",
             "| method | questions | seconds per run, median (min–max) | LLM calls per run | answer right | stages that fell back (runs) |",
             "|---|---:|---|---:|---:|---|"]
    for method in sorted({r["method"] for r in runs}):
        rs = [r for r in runs if r["method"] == method]
        secs = [float(r["seconds"]) for r in rs]
        calls = [int(r.get("llm", {}).get("calls", 0)) + int(r.get("llm", {}).get("cache_hits", 0)) for r in rs]  # reused replies count
        right = sum(1 for r in rs if exact_match(r["answer"], r["gold_answer"]) or
                    (normalize_answer(r["gold_answer"]) and normalize_answer(r["gold_answer"]) in normalize_answer(r["answer"])))
        fell: Counter[str] = Counter()
        for r in rs:
            fell.update({s["stage"] for s in r.get("stages", []) if s.get("fallback")})
        lines.append(f"| {method} | {len(rs)} | {statistics.median(secs):.0f} ({min(secs):.0f}–{max(secs):.0f}) | "
                     f"{statistics.median(calls):g} | {right} of {len(rs)} | "
                     f"{', '.join(f'{k} ({v})' for k, v in fell.most_common()) or '—'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from core.backends.llm_bundles import recording_paths

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundles", nargs="*", help="bundle files (default: every shipped one)")
    a = ap.parse_args(argv)
    for path in [Path(b) for b in a.bundles] or recording_paths():
        print(table(path), end="\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
