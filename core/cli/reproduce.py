"""``egx reproduce``: a paper's main tables beside what this project measures under the paper's protocol."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER
from core.cli.options import add_judge, add_resume, bench_inputs, judge_from_args
from core.cli_support import add_llm_limits, close_bars, output_folder_arg, run_bar
from core.eval.reproduce import is_reproduction_folder

if TYPE_CHECKING:
    from core.cli_support import Subparsers

NAME = "reproduce"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    from core.eval.paper_model import PAPER_IDS

    r = subparsers.add_parser(
        NAME, help="run a paper's protocol and put its main tables beside our figures (intervals, n, differences)",
        description=textwrap.fill(
            "Runs the methods of the paper's table rows that this project implements, each with the row's settings, "
            "under the paper's answer budget (a preset of --budget: bubblerag ≤ 15 chunks, fastinsight top 10, "
            "sgrag ≤ 1,200 tokens, reg ≈ 100 triples) and, for FastInsight, on KG nodes (--node-level). Every run is "
            "a resumable `egx bench` run in OUT/<paper>/<llm>/<run>/; the tables go to OUT/<paper>/<llm>/"
            "reproduce.md and reproduce.json: the paper's numbers, ours with their 95 % interval and n, blanks with "
            "their reasons, our rows compared paired, and every difference of setting. The questions: the "
            "workspace's questions with gold evidence that no trained model of the runs saw.", 100),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("--paper", required=True, choices=[*PAPER_IDS, "all"],
                   help="the paper whose tables to reproduce (all: the four, one after the other)")
    r.add_argument("--workspace", default="musique", help="workspace folder, name, or sample (demo, musique)")
    r.add_argument("--questions", help="questions file; default: the workspace's own questions")
    r.add_argument("--llm", default="none", help="none, recorded (replays the shipped runs), local, local-small, "
                                                 "openai")
    add_llm_limits(r)
    r.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    r.add_argument("--reranker", default=DEFAULT_RERANKER,
                   help="for methods that rerank, and the extractive answer without an LLM")
    r.add_argument("--limit", type=int, help="only the first N questions (of those every run may use)")
    output_folder_arg(r, "--out", help="output folder (default: $EGX_HOME/reproduce/<workspace>); each run in it "
                                       "resumes", what="reproduction folder", ours=is_reproduction_folder)
    add_resume(r, "a run folder")
    add_judge(r)
    r.add_argument("--json", action="store_true", help="print reproduce.json instead of the markdown")
    return r


def run(args: argparse.Namespace) -> int:
    from core.eval.paper_model import PAPER_IDS
    from core.eval.reproduce import reproduce_command, reproduce_root, run_reproduction
    from core.eval.reproduce_plan import reproduction_plan
    from core.methods.registry import get_method

    papers = list(PAPER_IDS) if args.paper == "all" else [args.paper]
    plans = [reproduction_plan(p) for p in papers]
    specs = [get_method(m) for p in plans for r in p.runs for m in r.methods]
    ws, qs, backends = bench_inputs(args, specs)
    judge = judge_from_args(args, backends.llm)
    out = Path(args.out) if args.out else reproduce_root(ws.name)
    results = []
    for plan in plans:
        command = reproduce_command(plan.paper, args.workspace, args.llm, limit=args.limit,
                                    judge=args.judge_llm, embedder=args.embedder, reranker=args.reranker)
        rep = run_reproduction(ws, qs, plan.paper, backends, out_dir=out, limit=args.limit, judge=judge,
                               progress=run_bar(f"reproduce {plan.paper}"), command=command,
                               meta={"questions_file": str(args.questions or ws.questions_path)},
                               restart=args.restart, resume_unverified=args.resume_unverified)
        close_bars(clear=False)
        for w in rep.warnings:
            print(f"egx reproduce: note: {plan.paper}: {w}", file=sys.stderr)
        results.append(rep)
        if not args.json:
            print(rep.markdown)
            print(f"{plan.paper}: {rep.ran} runs now, {rep.skipped} already done, {rep.seconds:.0f} s. Files: "
                  f"{rep.out_dir / 'reproduce.md'}, {rep.out_dir / 'reproduce.json'}")
    if args.json:
        records = [r.record for r in results]
        print(json.dumps(records[0] if len(records) == 1 else records, indent=1, ensure_ascii=False))
    return 0
