"""``egx ablate``: a paper's ablation rows of one method on a questions file, one table (resumable)."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER
from core.cli.options import (
    KEEP_TRAINED_HINT,
    add_budget,
    add_judge,
    add_keep_trained,
    add_resume,
    bench_inputs,
    budget_cut,
    judge_from_args,
)
from core.cli_support import add_llm_limits, close_bars, output_folder_arg, run_bar

if TYPE_CHECKING:
    from core.cli_support import Subparsers

NAME = "ablate"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    a = subparsers.add_parser(NAME, help="run a paper's ablation rows of one method and write one table",
                              description=textwrap.fill("BubbleRAG §4.3 (w/o specialization, relaxation, CEG ranking, reasoning "
                                          "expansion), FastInsight (w/o GRanker, w/o STeX), ReG (weak vs refined "
                                          "supervision, chains vs triples), SG-RAG (Table 5's naive baselines: "
                                          "NaiveRAG, Entity-based Retrieval, LightRAG (1-hop), 2-hop Graph Retrieval; "
                                          "then our variants: w/o dominance filter, Alg. 5 as printed): every row is a resumable `egx bench` run in "
                                          "OUT/<row>/; the table goes to OUT/ablation.md.", 100),
                              epilog=_rows_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    from core.methods.registry import METHODS

    # the methods whose package declares ablation rows (Method.ablations)
    a.add_argument("--method", required=True, choices=sorted(m for m, spec in METHODS.items() if spec.ablations))
    a.add_argument("--workspace", default="musique", help="workspace folder, name, or sample (demo, musique)")
    a.add_argument("--questions", help="questions file; default: the workspace's own questions")
    a.add_argument("--rows", help="comma-separated row names to run (default: all; see core/eval/ablation.py)")
    a.add_argument("--llm", default="none", help="none, local, local-small, openai")
    add_llm_limits(a)
    a.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    a.add_argument("--reranker", default=DEFAULT_RERANKER)
    a.add_argument("--limit", type=int, help="run only the first N questions (after the seeded shuffle, if --seed)")
    a.add_argument("--seed", type=int, help="shuffle the questions with this seed and seed every generator")
    add_budget(a)
    a.add_argument("--cut", type=int, help="rank cut of the failure diagnosis (default: the budget's chunk count, "
                                           "else 5)")
    output_folder_arg(a, "--out", required=True, what="ablation folder", ours=_ablation_folder,
                      help="output folder: new, empty, or one egx ablate wrote (each row's sub-folder resumes)")
    add_resume(a, "a row's sub-folder")
    add_keep_trained(a)
    add_judge(a)
    a.add_argument("--json", action="store_true", help="print the rows as JSON instead of the markdown table")
    return a


def _ablation_folder(folder: Path) -> bool:
    from core.eval.ablation import is_ablation_folder

    return is_ablation_folder(folder)


def _rows_epilog() -> str:
    """Every method's rows, each with the paper's definition (what the row changes, in the paper's words)."""
    from core.methods.registry import METHODS

    lines = ["rows (--rows), as the papers define them:"]
    for m, spec in sorted(METHODS.items()):
        for r in spec.ablation_rows():
            text = f"{m} {r.name} — {r.label}" + (f": {r.definition}" if r.definition else "")
            lines += textwrap.wrap(text, 100, initial_indent="  ", subsequent_indent="      ")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from core.eval.ablation import ablation_rows, run_ablation
    from core.methods.budget import parse_budget
    from core.methods.registry import get_method

    rows = ablation_rows(args.method)  # an unknown method fails before any model loads
    budget = parse_budget(args.budget)
    ws, qs, backends = bench_inputs(args, [get_method(r.method) for r in rows])
    judge = judge_from_args(args, backends.llm)
    progress = run_bar("ablate")

    names = [n.strip() for n in args.rows.split(",") if n.strip()] if args.rows else None
    rep = run_ablation(ws, qs, args.method, backends, out_dir=args.out, limit=args.limit,
                       seed=args.seed, cut=budget_cut(args.cut, budget.chunks), rows=names, progress=progress,
                       judge=judge, budget=budget,
                       meta={"questions_file": str(args.questions or ws.questions_path)},
                       restart=args.restart, resume_unverified=args.resume_unverified,
                       keep_trained=args.keep_trained)
    close_bars(clear=False)
    for w in rep.warnings:  # e.g. the questions a row's trained model learned from, left out
        print(f"egx ablate: note: {w}" + (f" {KEEP_TRAINED_HINT}" if "trained or validated on" in w else ""),
              file=sys.stderr)
    if args.json:
        print(json.dumps({"method": rep.method, "rows": list(rep.rows)}, indent=1, ensure_ascii=False, default=str))
        return 0
    print(rep.markdown)
    print(f"{rep.ran} runs now, {rep.skipped} already done. Table: {rep.out_dir / 'ablation.md'}")
    return 0
