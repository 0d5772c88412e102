"""``egx bench``: every method on every question, with metrics and failure diagnosis (resumable)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER
from core.cli.options import add_judge, add_ray, bench_inputs, judge_from_args, method_configs, ray_runner
from core.cli_support import add_llm_limits, close_bars, run_bar
from core.procs import interruptible

if TYPE_CHECKING:
    from core.cli_support import Subparsers

NAME = "bench"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    b = subparsers.add_parser(NAME, help="benchmark methods on questions with gold evidence (metrics + failure diagnosis)",
                              description="Runs every method on every question in one process and writes results.jsonl "
                                          "(one line per question x method; a rerun resumes), summary.json, report.md "
                                          "and charts.html to --out.")
    b.add_argument("--workspace", default="musique", help="workspace folder, name, or sample (demo, musique)")
    b.add_argument("--questions", help="questions file (HippoRAG JSON/JSONL, or BEIR qrels .tsv with queries.jsonl "
                                       "beside it); default: the workspace's own questions")
    b.add_argument("--methods", default="dense,rerank,ppr,fastinsight,bubblerag",
                   help="comma-separated registered methods (see core/methods/registry.py)")
    b.add_argument("--llm", default="none", help="none, local, local-small, openai, recorded")
    add_llm_limits(b)
    b.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    b.add_argument("--reranker", default=DEFAULT_RERANKER,
                   help="for methods that rerank (ms-marco-minilm, biencoder, llm, cross-encoder:<path-or-id>)")
    b.add_argument("--limit", type=int, help="run only the first N questions (after the seeded shuffle, if --seed)")
    b.add_argument("--seed", type=int, help="shuffle the questions with this seed and seed every generator")
    b.add_argument("--cut", type=int, default=5, help="rank cut of the failure diagnosis (default 5)")
    b.add_argument("--out", required=True, help="output folder (resumed if it holds a run with the same settings)")
    b.add_argument("--traces", action="store_true", help="also write every run's trace to OUT/traces/")
    add_judge(b)
    b.add_argument("--set", action="append", metavar="METHOD.NAME=VALUE",
                   help="change one method's setting for this run (repeatable), e.g. --set fastinsight.graph=passages "
                        "--set fastinsight.b_max=50 (VALUE read as JSON when it is)")
    b.add_argument("--json", action="store_true", help="print the summary JSON instead of the markdown report")
    add_ray(b, "run the question x method pairs")
    return b


@interruptible  # a `kill` stops a run the way Ctrl-C does: finished lines kept, local Ray shut down
def run(args: argparse.Namespace) -> int:
    """Every method on every question; JSONL + summary + report + charts in --out."""
    from contextlib import nullcontext

    from core.eval.runner import run_benchmark
    from core.methods.registry import get_method

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    specs = [get_method(m) for m in methods]
    configs = method_configs(args.set or [], methods)  # a bad --set fails before any model loads
    meta: dict[str, object] = {}
    if configs:  # recorded in run.json: a resumed run must use the same settings
        meta["config_changes"] = {m: c.overrides() for m, c in configs.items()}
    runner = ray_runner(args)
    with runner if runner is not None else nullcontext():  # Ray first: a missing Ray or bad address fails at once
        ws, qs, backends = bench_inputs(args, specs, "bench")
        judge = judge_from_args(args, backends.llm)
        rep = run_benchmark(ws, qs, methods, backends, out_dir=args.out, limit=args.limit,
                            seed=args.seed, cut=args.cut, progress=run_bar("bench"), save_traces=args.traces,
                            meta={"questions_file": str(args.questions or ws.questions_path), **meta},
                            configs=configs, runner=runner, judge=judge)
    close_bars(clear=False)
    for w in rep.warnings:
        print(f"egx bench: warning: {w}", file=sys.stderr)
    for m, ms in rep.summary.get("methods", {}).items():
        for text, n in ms.get("notices", {}).items():
            print(f"egx bench: note: {m} ({n} of {ms['n']} questions): {text}", file=sys.stderr)
    if args.json:
        print(json.dumps(rep.summary, indent=1, ensure_ascii=False))
        return 0
    from core.eval.report import markdown_report

    print(markdown_report(rep.summary))
    print(f"{rep.ran} runs now, {rep.skipped} already done. Files: "
          + ", ".join(str(p) for p in rep.files.values()))
    return 0
