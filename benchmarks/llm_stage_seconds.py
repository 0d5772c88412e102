"""Seconds and LLM tokens per stage of one method's recorded runs, two bundles side by side (before and
after a prompt change): reads the bundles only (each run keeps its live per-stage record), no model, no workspace.

    .venv/bin/python benchmarks/llm_stage_seconds.py BEFORE.json AFTER.json [--method bubblerag]
        [--workspace musique]

Prints a Markdown table: per stage the median seconds and mean prompt / completion tokens before and after,
then the median seconds per question.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any


def stage_figures(path: Path, method: str, workspace: str) -> tuple[dict[str, dict[str, float]], list[float], int]:
    """Per stage: median seconds, mean prompt and completion tokens over the runs; the runs' seconds."""
    runs = [r for r in json.loads(path.read_text(encoding="utf-8"))["runs"]
            if r["method"] == method and r["workspace"] == workspace]
    per: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        for s in r.get("stages", []):
            per.setdefault(s["stage"], []).append(s)
    out = {st: {"s": statistics.median(x["seconds"] for x in rows),
                "p": statistics.fmean(x.get("prompt_tokens", 0) for x in rows),
                "c": statistics.fmean(x.get("completion_tokens", 0) for x in rows), "n": len(rows)}
           for st, rows in per.items()}
    return out, [float(r["seconds"]) for r in runs], len(runs)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--method", default="bubblerag")
    ap.add_argument("--workspace", default="musique")
    a = ap.parse_args(argv)
    b, b_s, nb = stage_figures(Path(a.before), a.method, a.workspace)
    f, f_s, nf = stage_figures(Path(a.after), a.method, a.workspace)
    print("| stage | s before | s after | prompt tok before / after | completion tok before / after |")
    print("|---|---:|---:|---:|---:|")
    for st in dict.fromkeys([*b, *f]):
        x, y = b.get(st), f.get(st)
        if not ((x and x["s"] >= 0.05) or (y and y["s"] >= 0.05)):
            continue
        cell = lambda d, k, fmt: format(d[k], fmt) if d else "–"  # noqa: E731
        print(f"| {st} | {cell(x, 's', '.1f')} | {cell(y, 's', '.1f')} | {cell(x, 'p', '.0f')} / {cell(y, 'p', '.0f')} "
              f"| {cell(x, 'c', '.0f')} / {cell(y, 'c', '.0f')} |")
    print(f"| **per question (median)** | **{statistics.median(b_s):.0f}** ({nb} runs) | "
          f"**{statistics.median(f_s):.0f}** ({nf} runs) | | |")


if __name__ == "__main__":
    main()
