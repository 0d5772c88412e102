"""``egx bench``: every method on every question, with metrics and failure diagnosis (resumable)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER
from core.background.procs import interruptible
from core.cli.options import (
    KEEP_TRAINED_HINT,
    add_budget,
    add_judge,
    add_keep_trained,
    add_ray,
    add_resume,
    method_configs,
    ray_runner,
)
from core.cli_support import add_llm_limits, close_bars, llm_spec, output_folder_arg, progress_bar, run_bar

if TYPE_CHECKING:
    from core.cli_support import Subparsers
    from core.eval.request import BenchRequest

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
    add_budget(b)
    b.add_argument("--cut", type=int, help="rank cut of the failure diagnosis (default: the budget's chunk count, "
                                           "else 5)")
    output_folder_arg(b, "--out", required=True, what="benchmark folder", ours=_bench_folder,
                      help="output folder: new, empty, or one egx bench wrote (resumed if it holds a run with the "
                           "same settings, workspace content and trained models)")
    add_resume(b)
    add_keep_trained(b)
    b.add_argument("--traces", action="store_true", help="also write every run's trace to OUT/traces/")
    add_judge(b)
    b.add_argument("--set", action="append", metavar="METHOD.NAME=VALUE",
                   help="change one method's setting for this run (repeatable), e.g. --set fastinsight.graph=passages "
                        "--set fastinsight.b_max=50 (VALUE read as JSON when it is)")
    b.add_argument("--node-level", action="store_true",
                   help="also rank KG nodes with every method that has a node_level setting (dense, rerank), so each "
                        "method gets node-level R@10 / nDCG@10 on the same KG nodes (FastInsight §4.3.1, Table 3); "
                        "costs the node vectors once per workspace and a second reranker pass per question for rerank")
    b.add_argument("--json", action="store_true", help="print the summary JSON instead of the markdown report")
    add_ray(b, "run the question x method pairs")
    return b


def _bench_folder(folder: Path) -> bool:
    from core.eval.bench_files import is_bench_folder

    return is_bench_folder(folder)


@interruptible  # a `kill` stops a run the way Ctrl-C does: finished lines kept, local Ray shut down
def run(args: argparse.Namespace) -> int:
    """Every method on every question; JSONL + summary + report + charts in --out."""
    from contextlib import nullcontext

    from core.eval.report import markdown_report
    from core.eval.request import run_request

    said: list[str] = []

    def note(coverage: str, left: str) -> None:  # said before the run, not first under its report
        if coverage:
            print(f"egx bench: note: {coverage}", file=sys.stderr)
        if left:
            print(f"egx bench: note: {left} {KEEP_TRAINED_HINT}", file=sys.stderr)
        said.extend((coverage, left))

    request = request_of(args)
    runner = ray_runner(args, request.llm)
    with runner if runner is not None else nullcontext():  # Ray first: a missing Ray or bad address fails at once
        rep = run_request(request, runner=runner, bars=progress_bar, progress=run_bar(NAME), notes=note)
    close_bars(clear=False)
    for w in rep.warnings:
        if w not in said:
            print(f"egx bench: warning: {w}", file=sys.stderr)
    for m, ms in rep.summary.get("methods", {}).items():
        for text, n in ms.get("notices", {}).items():
            print(f"egx bench: note: {m} ({n} of {ms['n']} questions): {text}", file=sys.stderr)
    if args.json:
        print(json.dumps(rep.summary, indent=1, ensure_ascii=False))
        return 0
    print(markdown_report(rep.summary))
    print(f"{rep.ran} runs now, {rep.skipped} already done. Files: "
          + ", ".join(str(p) for p in rep.files.values()))
    return 0


def request_of(args: argparse.Namespace) -> BenchRequest:
    """``egx bench``'s arguments as one :class:`~core.eval.request.BenchRequest`, checked before any model
    loads: the methods, their ``--set`` / ``--node-level`` changes, the budget and the LLM's limits (read once,
    for the generator, the judge and a Ray worker's LLM alike)."""
    from core.eval.request import BenchRequest
    from core.eval.timing import process_started
    from core.methods.budget import parse_budget
    from core.methods.registry import get_method

    started = process_started()
    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    for m in methods:
        get_method(m)  # an unknown method fails first
    budget = parse_budget(args.budget)  # a bad budget fails before any model loads
    configs = method_configs(args.set or [], methods, node_level=args.node_level)  # a bad --set likewise
    return BenchRequest(args.workspace, methods, Path(args.out), questions_file=args.questions, configs=configs,
                        budget=budget, cut=args.cut, embedder=args.embedder, reranker=args.reranker,
                        llm=llm_spec(args), judge=None if args.no_judge else args.judge_llm, limit=args.limit,
                        seed=args.seed, save_traces=args.traces, restart=args.restart, resume_unverified=args.resume_unverified,
                        keep_trained=args.keep_trained, started=started)
