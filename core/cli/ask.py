"""``egx ask``: answer one question with one retrieval method and show its evidence."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER
from core.cli.options import add_budget, config_changes
from core.cli_support import add_llm_limits, llm_from_args, output_file_arg, progress_bar, resolve_workspace

if TYPE_CHECKING:
    from core.cli_support import Subparsers
    from core.index.workspace import Workspace
    from core.methods.registry import AnyMethod

NAME = "ask"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    k = subparsers.add_parser(NAME, help="answer a question with one retrieval method and show its evidence")
    k.add_argument("question")
    k.add_argument("--workspace", default="demo", help="workspace folder, name, or sample (demo, musique)")
    k.add_argument("--method", default="bubblerag", help="retrieval method (see core/methods/registry.py)")
    k.add_argument("--llm", default="none", help="none, local, local-small, openai, recorded (replay a shipped real-LLM recording)")
    add_llm_limits(k)
    k.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    k.add_argument("--reranker", default=DEFAULT_RERANKER,
                   help="for methods that rerank (ms-marco-minilm, biencoder, llm, cross-encoder:<path-or-id>)")
    k.add_argument("--top", type=int, default=5, help="how many CEGs / chunks to print")
    k.add_argument("--json", action="store_true", help="print the answer, CEGs and chunks as JSON")
    output_file_arg(k, "--trace", example="trace.json",
                    help="also write the full trace (JSON, reloadable) to this file (a regular file: a device, pipe "
                         "or symbolic link is refused)")
    k.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="change a method setting for this question (repeatable), e.g. --set d=2 --set n=1")
    k.add_argument("--evidence-format", choices=("passages", "triples", "chains"),
                   help="answer prompt evidence: passages, raw KG triples, or ReG evidence chains (ReG §4.2)")
    add_budget(k, alone=True)
    return k


def summarize(result: Any, workspace: Workspace, *, top: int = 5, method: AnyMethod | None = None) -> dict[str, Any]:
    """The fields `egx ask` prints (JSON-ready): answer, retrieved chunks, and the highlights of
    ``method`` (the method that produced ``result``; default: the registered one of that name)."""
    from core.methods.answering import describe_answer, method_notices
    from core.methods.registry import METHODS

    g = workspace.graph
    out: dict[str, Any] = {
        "method": result.method, "query": result.query, "answer": result.answer,
        "chunks": [{"id": c.chunk_id, "title": g.chunk(c.chunk_id).title, "score": round(float(c.score), 4)}
                   for c in result.ranked_chunks],
        "seconds": round(result.trace.seconds, 3), "tokens": result.trace.tokens,
        "fallbacks": [f"{s.stage}: {s.fallback}" for s in result.trace.steps if s.fallback],
    }
    out["notices"] = list(method_notices(result))
    from core.methods.run import is_unanswered

    if is_unanswered(result.trace):  # the recorded LLM holds no run of this workspace or question: a none run
        out["notices"].insert(0, f"LLM: {result.trace.backends['llm']}, so this run is a none-mode run (each LLM "
                                 "stage took the fallback none mode takes). Ask a recorded question, or use --llm local.")
    from core.eval.context import context_record

    ctx = context_record(result)
    if ctx is not None:  # what the answer was handed, and under which budget
        out["context"] = ctx
    if result.trace.replay:  # the recorded LLM: how completely this run replayed its recording
        from core.pinning import replay_notice

        out["replay"] = result.trace.replay
        out["replay_notice"] = replay_notice(result.trace.replay)
    note = describe_answer(result)
    out["answer_note"] = {"kind": note.kind, "label": note.label, "how": note.how, "limits": list(note.limits)}
    spec = method if method is not None else METHODS.get(result.method)
    if spec is not None and spec.highlights is not None:
        out.update(spec.highlights(result, workspace, top=top))
    return out


def run(args: argparse.Namespace) -> int:
    from core.backends.llm_guard import question_scope
    from core.backends.registry import get_embedder, get_reranker
    from core.methods.base import Backends
    from core.methods.budget import apply_budget, parse_budget
    from core.methods.registry import get_method
    from core.methods.run import backends_for, pending_preparations, run_method, scoped_backends

    spec = get_method(args.method)
    budget = parse_budget(args.budget)  # a bad budget fails before any model loads
    embedder = get_embedder(args.embedder)
    llm = llm_from_args(args)
    ws = resolve_workspace(args.workspace, embedder)
    # the extractive answer (no LLM) scores sentences with the reranker, whatever the method; the recorded LLM on a
    # workspace or question it holds no run of is no LLM there (core.methods.run.scoped_backends)
    no_llm = not scoped_backends(Backends(embedder, llm, None), ws.name, spec.name, args.question).llm.available
    wants = spec.needs_reranker or (no_llm and args.reranker != "llm")
    reranker = get_reranker(args.reranker, embedder=embedder, llm=llm) if wants else None
    changes = config_changes(getattr(args, "set", None) or [])
    if getattr(args, "evidence_format", None):
        changes["evidence_format"] = args.evidence_format
    config = apply_budget(spec, spec.make_config(**changes) if changes else None, budget)
    # what the method keeps in the workspace is computed first, with a bar (once per workspace)
    for p in pending_preparations(spec, ws, backends_for(spec.name, Backends(embedder, llm, reranker)), config):
        p.work(progress_bar(p.title[:40]))
    with question_scope(llm) as scope:
        result = run_method(spec.name, args.question, ws, Backends(embedder, llm, reranker), config=config,
                            in_scope=True)
    s = summarize(result, ws, top=args.top, method=spec)
    if not no_llm:  # as in none mode, no LLM summary where the recorded LLM holds no run of the workspace
        s["llm"] = scope.summary()
    if args.trace:  # checked when the arguments were parsed; again now, in case it changed meanwhile
        from core.outputs import write_output_text

        write_output_text(args.trace, result.trace.to_json(indent=1), flag="--trace")
    if args.json:
        print(json.dumps(s, indent=2, ensure_ascii=False))
        return 0
    _print(s, top=args.top)
    return 0


def _print(s: dict[str, Any], *, top: int) -> None:
    if s.get("replay_notice"):  # a partial replay says so before the answer
        print(f"REPLAY: {s['replay_notice']}")
    for n in s.get("notices", []):
        print(f"NOTE: {n}")
    print(f"Q: {s['query']}\nA: {s['answer'] or '(no answer)'}")
    note = s.get("answer_note") or {}
    if note.get("how"):
        print(f"   [{note['label']}] {note['how']}")
    for limit in note.get("limits", []):
        print(f"   ! {limit}")
    print()
    if "cegs" in s:
        print("Top candidate evidence graphs:")
        for c in s["cegs"]:
            print(f"  #{c['rank']} score {c['score']:.3f} (cost {c['cost_sem']:.3f}, missing mass {c['r_miss']:.2f}, "
                  f"{c['kind']}): {'; '.join(c['triples'][:6]) or ', '.join(c['nodes'])}")
    print("Retrieved chunks:")
    for i, c in enumerate(s["chunks"][: top * 3], 1):
        print(f"  {i:>2}. {c['title']}  ({c['score']:.3f})")
    for f in s["fallbacks"]:
        print(f"  fallback — {f}")
    ctx = s.get("context")
    if ctx:
        print(f"  answer context — {ctx['chunks']} chunk(s), {ctx['tokens']:,} WordPiece tokens of evidence "
              f"(budget {ctx['budget']})")
    if s.get("llm", {}).get("failed_attempts") or s.get("llm", {}).get("skipped_calls"):
        u = s["llm"]
        print(f"  LLM: {u['calls']} call(s), {u['failed_attempts']} failed attempt(s), {u['skipped_calls']} "
              f"skipped, {u['spent_s']:.1f} s of a {u['budget_s']:g} s budget")
    if s.get("llm", {}).get("cache_hits"):
        u = s["llm"]
        print(f"  LLM cache: {u['cache_hits']} of {u['cache_hits'] + u['cache_misses']} LLM repl(ies) answered from "
              "the cache (no LLM time; --no-cache asks the LLM again)")
    print(f"\n{s['seconds']:.2f} s, {s['tokens']} LLM tokens, method {s['method']}")
