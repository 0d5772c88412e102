"""``egx record``: record live-LLM runs of the questions into a bundle that the ``recorded`` LLM (and
the app's "recorded LLM run") replays with no model, so a lecture can show a method's LLM version
at once; saved after each run, so running it again resumes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER
from core.cli.options import KEEP_TRAINED_HINT, add_budget, add_keep_trained, config_changes
from core.cli_support import add_llm_limits, output_file_arg, resolve_workspace

if TYPE_CHECKING:
    from core.cli_support import Subparsers

NAME = "record"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    rc = subparsers.add_parser(NAME, help="record live-LLM runs of the sample questions for the 'recorded' LLM "
                                          "(resumable)",
                               description="Runs each question x method with a live LLM and saves every LLM reply, "
                                           "the answer and seconds per stage into a JSON bundle that `--llm recorded` "
                                           "(and the app's 'recorded LLM run') replays with no model. Saved after "
                                           "each run; running it again resumes.")
    rc.add_argument("--workspace", default="demo", help="workspace folder, name, or sample (demo, musique)")
    rc.add_argument("--methods", default="bubblerag,sgrag,reg", help="comma-separated methods")
    rc.add_argument("--llm", default="local", help="local (Qwen2.5-Coder-1.5B), local-small (0.5B) or openai")
    add_llm_limits(rc)
    rc.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    rc.add_argument("--reranker", default=DEFAULT_RERANKER)
    rc.add_argument("--questions", help="questions file (default: the workspace's own)")
    rc.add_argument("--only", help="comma-separated question ids to record")
    rc.add_argument("--limit", type=int, help="record only the first N questions")
    output_file_arg(rc, "--out", example="bundle.json",
                    help="bundle file (default: sample_data/llm_recordings/<workspace>-<llm>.json)")
    rc.add_argument("--redo", action="store_true", help="record runs already in the bundle again")
    add_budget(rc)  # another budget than own records into <workspace>-<llm>-<budget>.json unless --out names one
    rc.add_argument("--reuse-recorded", action="store_true",
                    help="answer the requests the shipped recordings already hold for this model from them (through "
                         "the LLM cache), so recording under another budget asks the model only for the prompts the "
                         "budget changed")
    add_keep_trained(rc)
    rc.add_argument("--set", action="append", metavar="NAME=VALUE",
                    help="change a method setting (repeatable; applied to the methods that have it). BubbleRAG's "
                         "wall-clock time_budget_s is always lifted while recording, so the replay is never cut short")
    return rc


def run(args: argparse.Namespace) -> int:
    from core.backends.llm_bundles import RECORDINGS_DIR, recording_paths
    from core.backends.llm_guard import LLMSettings
    from core.backends.registry import get_embedder, get_llm, get_reranker
    from core.batch.recording import record
    from core.index.questions import load_questions, load_questions_file
    from core.methods.base import Backends

    if args.llm in ("none", "recorded"):
        raise SystemExit(f"egx record: --llm {args.llm} generates nothing to record; use local, local-small or openai")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    settings = LLMSettings.from_env(timeout=args.llm_timeout, retries=args.llm_retries,
                                    budget=args.llm_budget if args.llm_budget is not None else 0.0)
    llm = get_llm(args.llm, settings=settings, cache=not args.no_cache)
    embedder = get_embedder(args.embedder)
    reranker = get_reranker(args.reranker, embedder=embedder, llm=llm)
    ws = resolve_workspace(args.workspace, embedder)
    qs = load_questions_file(args.questions, ws.graph) if args.questions else load_questions(ws)
    if args.only:
        qs = [q for q in qs if q.id in set(args.only.split(","))]
    qs = qs[: args.limit] if args.limit else qs
    if not qs:
        raise SystemExit("egx record: no questions; give --questions FILE, --only IDS that exist, or a workspace "
                         "with a questions file")
    from core.methods.budget import parse_budget

    budget = parse_budget(args.budget)
    tail = "" if budget.own else f"-{budget.name.replace(',', '-')}"
    out = Path(args.out) if args.out else RECORDINGS_DIR / f"{ws.name}-{args.llm}{tail}.json"

    def progress(done: int, total: int, msg: str) -> None:
        print(f"[{done}/{total}] {msg}", file=sys.stderr, flush=True)

    runs = record(ws, qs, methods, Backends(embedder, llm, reranker), out, settings=settings,
                  embedder_name=args.embedder, reranker_name=args.reranker, redo=args.redo, progress=progress,
                  config_changes=config_changes(args.set or []), keep_trained=args.keep_trained,
                  budget=None if budget.own else budget.name,
                  reuse=[p for p in recording_paths() if p.resolve() != out.resolve()] if args.reuse_recorded else ())
    new = [r for r in runs if not r.skipped]
    left = [r for r in runs if r.skipped and r.trained_on]
    if left:
        by = {m: sum(1 for r in left if r.method == m) for m in dict.fromkeys(r.method for r in left)}
        print("egx record: note: " + "; ".join(f"{n} {m} run(s) left out: {m}'s trained model was trained or "
                                                f"validated on their questions" for m, n in by.items())
              + f" {KEEP_TRAINED_HINT}", file=sys.stderr)
    for r in new:
        print(f"recorded {r.method:<10} {r.seconds:7.1f} s  {r.question}")
    print(f"{len(new)} run(s) recorded, {len(runs) - len(new) - len(left)} already in {out}"
          + (f", {len(left)} left out (trained on)" if left else ""))
    return 0
