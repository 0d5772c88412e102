"""The ``egx`` command: build and list workspaces, start the app.

Examples
--------
::

    egx workspaces
    egx ask "When did Lothair II's mother die?" --workspace demo --method bubblerag --llm none
    egx index triples.csv corpus.json --workspace ~/kg/mine --embedder minilm
    egx index ../shared/data/umls_named --workspace /tmp/umls --embedder hashing
    egx make-erqa --kg ../shared/data/fb15k237_named --n 200 --seed 0 --out fb_erqa.json
    egx make-erqa --style paraphrase --kg ../shared/data/fb15k237_named --n 200 --out fb_para.json
    egx bench --workspace musique --methods dense,ppr,bubblerag --limit 20 --out runs/musique
    egx ablate --method bubblerag --workspace musique --limit 20 --out runs/ablate-bubblerag
    egx app --port 8501
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.backends.registry import DEFAULT_EMBEDDER, DEFAULT_RERANKER
from core.errors import EgxError

_BARS: list = []  # open tqdm bars, closed before an error is printed (so it starts its own line)


def _close_bars(*, clear: bool) -> None:
    while _BARS:
        bar = _BARS.pop()
        if clear:
            bar.leave = False
        bar.close()


def _progress_bar(desc: str):  # -> Callable[[str, float], None]
    """A tqdm bar created on the first update, so work that needs no progress prints nothing."""
    from tqdm import tqdm

    state: dict = {}

    def update(msg: str, frac: float) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(total=1000, desc=desc, unit="‰", leave=True, file=sys.stderr,
                                      bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}")
            _BARS.append(bar)
        target = int(min(max(frac, 0.0), 1.0) * 1000)
        if target > bar.n:
            bar.update(target - bar.n)
        bar.set_postfix_str(msg[:60], refresh=True)
        if target >= 1000:
            bar.close()
            if bar in _BARS:
                _BARS.remove(bar)

    return update


def _llm(args: argparse.Namespace):  # -> LLM
    """The ``--llm`` backend under the ``--llm-timeout`` / ``--llm-retries`` / ``--llm-budget`` limits."""
    from core.backends.llm import LLMSettings
    from core.backends.registry import get_llm

    settings = LLMSettings.from_env(timeout=args.llm_timeout, retries=args.llm_retries, budget=args.llm_budget)
    return get_llm(args.llm, settings=settings, cache=False if getattr(args, "no_cache", False) else None)


def _add_llm_limits(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-cache", action="store_true",
                   help="bypass the LLM response cache: ask the LLM again and store nothing (default: the cache "
                        "under $EGX_LLM_CACHE_DIR, else $EGX_CACHE_DIR/llm, answers a repeated request at once; "
                        "EGX_LLM_CACHE=0 does the same as this flag)")
    p.add_argument("--llm-timeout", type=float, metavar="SECONDS",
                   help="wall-clock seconds one LLM attempt may take (default: $EGX_LLM_TIMEOUT, else 60 for "
                        "openai, 120 for the local models)")
    p.add_argument("--llm-retries", type=int, metavar="N",
                   help="extra attempts after a timeout, connection error, HTTP 429/5xx or malformed reply "
                        "(default: $EGX_LLM_RETRIES, else 2)")
    p.add_argument("--llm-budget", type=float, metavar="SECONDS",
                   help="LLM seconds one question may use, then its remaining LLM steps take their fallback "
                        "(default: $EGX_LLM_BUDGET, else 300; 0 = no limit)")


def cmd_workspaces(args: argparse.Namespace) -> int:
    from core.index.listing import list_workspaces
    from core.index.paths import workspaces_root

    root = Path(args.root) if args.root else workspaces_root()
    if args.root and not root.is_dir():
        from core.errors import WorkspaceError

        raise WorkspaceError(f"--root {args.root} is {'not a folder' if root.exists() else 'no folder'}; give the "
                             "folder that holds the workspaces (default $EGX_HOME/workspaces).")
    rows = list_workspaces(root)
    if args.json:
        print(json.dumps([{"name": r.name, "title": r.title, "path": str(r.path), "built": r.built,
                           "sample": r.sample, **r.summary} for r in rows], indent=2))
        return 0
    print(f"Workspaces under {root}:")
    for r in rows:
        state = "built" if r.built else "not built yet (built on first open)"
        size = ""
        if r.summary:
            size = f"  {r.summary.get('nodes', 0)} nodes, {r.summary.get('edges', 0)} edges, {r.summary.get('chunks', 0)} chunks"
            if r.summary.get("store"):
                size += f" in {r.summary['store']}"
        print(f"  {r.name:<20} {'[sample] ' if r.sample else ''}{state}{size}\n      {r.title}")
    return 0


def _ray_runner(args: argparse.Namespace):  # -> RayRunner | None
    """The Ray runner of ``--ray [ADDRESS]`` / ``--ray-workers N`` (None without --ray); Ray is imported
    only when it starts (:mod:`core.scale`)."""
    if args.ray is None:
        if args.ray_workers is not None:
            raise SystemExit("egx: --ray-workers applies with --ray [ADDRESS] only")
        return None
    from core.backends.llm import LLMSettings
    from core.scale import LLMSpec, RayRunner

    llm = LLMSpec(args.llm, LLMSettings.from_env(timeout=args.llm_timeout, retries=args.llm_retries,
                                                 budget=args.llm_budget),
                  False if getattr(args, "no_cache", False) else None)
    return RayRunner(args.ray or None, workers=args.ray_workers, llm=llm)


def _add_ray(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help=f"{what} on Ray (the optional extra: pip install '.[scale]'). No ADDRESS: a local Ray on this "
                        "machine's CPUs; HOST:PORT (the head node's GCS), ray://HOST:10001 (Ray Client) or 'auto': a "
                        "running cluster, whose nodes have this project installed and the workspace at the same path")
    p.add_argument("--ray-workers", type=int, metavar="N",
                   help="Ray actors, each holding the models once (default: one per GPU when the cluster has GPUs, "
                        "else one per CPU)")


def cmd_index(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from core.backends.registry import get_embedder

    embedder = get_embedder(args.embedder)
    if args.store and args.sample:
        raise SystemExit("egx index: --store applies to a workspace of yours, not a bundled sample: build it from the "
                         "sample's inputs with `egx index INPUTS --workspace DIR --store URL`")
    if not args.inputs and not args.sample and not args.workspace:
        raise SystemExit("egx index: give input files, --sample NAME, or --workspace DIR of an existing workspace")
    if args.inputs and not args.workspace:
        raise SystemExit("egx index: --workspace DIR is required when building from inputs")
    runner = _ray_runner(args)
    with runner if runner is not None else nullcontext():
        ws = _index(args, embedder, runner)
    if runner is not None:
        print(f"Ray: {runner.workers} worker(s) at {runner.describe()['address']}"
              + (f", {runner.gpus_per_worker:g} GPU each" if runner.gpus_per_worker else "") + ".")
    return _index_report(args, ws)


def _index(args: argparse.Namespace, embedder, runner):  # -> Workspace
    from core.backends.registry import default_extractor, get_extractor
    from core.index.create import create_workspace
    from core.index.samples import ensure_sample_workspace
    from core.index.workspace import Workspace

    if not args.inputs:
        if args.sample:
            ws = ensure_sample_workspace(args.sample, embedder, progress=_progress_bar(f"sample {args.sample}"),
                                         force=args.rebuild, runner=runner)
        else:
            ws = Workspace.open(args.workspace)
            ws.ensure_index(embedder, progress=_progress_bar("index"), rebuild=args.rebuild, runner=runner)
            if args.store and args.store != ws.store_url:
                figures = ws.move_to_store(args.store, overwrite=args.overwrite, progress=_progress_bar("store"))
                print(f"Graph moved into {ws.store_url} in {figures['seconds']:.2f} s.")
    else:
        llm = _llm(args)
        extractor = get_extractor(args.extractor, llm=llm) if args.extractor else default_extractor(llm)
        ws = create_workspace(args.inputs, args.workspace, name=args.name, embedder=embedder,
                              extractor=extractor, questions=args.questions, overwrite=args.overwrite,
                              progress=_progress_bar("index"), synonym_threshold=args.synonyms, store=args.store,
                              runner=runner)
    return ws


def _index_report(args: argparse.Namespace, ws) -> int:
    g = ws.manifest.get("graph", {})
    print(f"Workspace {ws.name!r} at {ws.path}: {g.get('nodes')} nodes, {g.get('edges')} edges, {g.get('chunks')} chunks"
          f"; graph store: {ws.store_url}.")
    ex = ws.manifest.get("extraction") if args.inputs else None
    if ex:
        failed = ex.get("failed_chunks", 0)
        print(f"  extraction ({ex['extractor']}): {ex['triples']} triples; {ex['extracted']} chunk(s) extracted now, "
              f"{ex['from_cache']} from the cache, {failed} failed"
              + (f" ({', '.join(ex.get('failed_chunk_ids', [])[:10])})" if failed else ""))
    syn = ws.manifest.get("synonyms") if args.inputs else None
    if syn:
        print(f"  synonym edges: {syn['edges']} at cosine >= {syn['threshold']} ({syn['embedder']}, {syn['seconds']} s)")
    for b in ws.manifest.get("index", {}).get("builds", []):
        rate = b["items"] / b["seconds"] if b["seconds"] else float("inf")
        print(f"  index/{b['kind']}: {b['items']} items in {b['seconds']:.2f} s ({rate:.0f} items/s)")
    for w in ws.warnings:
        print(f"  note: {w}")
    return 0


def resolve_workspace(ref: str, embedder):  # -> Workspace
    """A workspace by folder path, by name under $EGX_HOME/workspaces, or a sample by name."""
    from core.errors import UnknownNameError
    from core.index.commit import recover
    from core.index.listing import workspace_names
    from core.index.manifest import MANIFEST
    from core.index.paths import workspaces_root
    from core.index.samples import ensure_sample_workspace, sample_recipes
    from core.index.workspace import Workspace

    p = Path(ref)
    if p.name not in ("", ".", ".."):
        recover(p)  # an interrupted commit is undone before we look
    if (p / MANIFEST).exists():
        ws = Workspace.open(p)
        ws.ensure_index(embedder, progress=_progress_bar("index"))
        return ws
    if ref in {r.name for r in sample_recipes()}:
        return ensure_sample_workspace(ref, embedder, progress=_progress_bar(f"sample {ref}"))
    named = workspaces_root() / ref
    if ref and "/" not in ref and not ref.startswith("."):
        recover(named)
        if (named / MANIFEST).exists():
            ws = Workspace.open(named)
            ws.ensure_index(embedder, progress=_progress_bar("index"))
            return ws
    known = [r.name for r in sample_recipes()]
    known += [n for n in workspace_names() if n not in known]  # never hidden folders or debris
    raise UnknownNameError("workspace", ref, known)


def summarize(result, workspace, *, top: int = 5) -> dict:  # JSON-ready
    """The fields `egx ask` prints: answer, retrieved chunks, and method-specific highlights."""
    g = workspace.graph
    out: dict = {
        "method": result.method, "query": result.query, "answer": result.answer,
        "chunks": [{"id": c.chunk_id, "title": g.chunk(c.chunk_id).title, "score": round(float(c.score), 4)}
                   for c in result.ranked_chunks],
        "seconds": round(result.trace.seconds, 3), "tokens": result.trace.tokens,
        "fallbacks": [f"{s.stage}: {s.fallback}" for s in result.trace.steps if s.fallback],
    }
    from core.methods.answering import describe_answer, method_notices

    out["notices"] = list(method_notices(result))
    if result.trace.replay:  # the recorded LLM: how completely this run replayed its recording
        from core.replay import replay_notice

        out["replay"] = result.trace.replay
        out["replay_notice"] = replay_notice(result.trace.replay)
    note = describe_answer(result)
    out["answer_note"] = {"kind": note.kind, "label": note.label, "how": note.how, "limits": list(note.limits)}
    ranked = getattr(result, "ranked", None)
    if ranked and hasattr(ranked[0], "ceg"):
        out["cegs"] = [{"rank": r.rank, "score": round(r.score, 4), "cost_sem": round(r.cost_sem, 4),
                        "r_miss": round(r.r_miss, 4), "kind": r.ceg.kind,
                        "nodes": [g.node_names[v] for v in r.ceg.nodes],
                        "triples": [g.edge_text(e) for e in r.ceg.edges]} for r in ranked[:top]]
    return out


def cmd_ask(args: argparse.Namespace) -> int:
    from core.backends.llm import question_scope
    from core.backends.registry import get_embedder, get_reranker
    from core.eval.runner import run_method
    from core.methods.base import Backends
    from core.methods.registry import get_method

    spec = get_method(args.method)
    embedder = get_embedder(args.embedder)
    llm = _llm(args)
    # the extractive answer (no LLM) scores sentences with the reranker, whatever the method
    wants = spec.needs_reranker or (not llm.available and args.reranker != "llm")
    reranker = get_reranker(args.reranker, embedder=embedder, llm=llm) if wants else None
    trace_path = _writable_file(args.trace, "--trace") if args.trace else None  # before computing anything
    ws = resolve_workspace(args.workspace, embedder)
    changes = _config_changes(getattr(args, "set", None) or [])
    if getattr(args, "evidence_format", None):
        changes["evidence_format"] = args.evidence_format
    config = spec.make_config(**changes) if changes else None
    with question_scope(llm) as scope:
        result = run_method(spec.name, args.question, ws, Backends(embedder, llm, reranker), config=config,
                            in_scope=True)
    s = summarize(result, ws, top=args.top)
    if llm.available:
        s["llm"] = scope.summary()
    if trace_path is not None:
        from core.fsio import atomic_write_text

        atomic_write_text(trace_path, result.trace.to_json(indent=1))
    if args.json:
        print(json.dumps(s, indent=2, ensure_ascii=False))
        return 0
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
    for i, c in enumerate(s["chunks"][: args.top * 3], 1):
        print(f"  {i:>2}. {c['title']}  ({c['score']:.3f})")
    for f in s["fallbacks"]:
        print(f"  fallback — {f}")
    if s.get("llm", {}).get("failed_attempts") or s.get("llm", {}).get("skipped_calls"):
        u = s["llm"]
        print(f"  LLM: {u['calls']} call(s), {u['failed_attempts']} failed attempt(s), {u['skipped_calls']} "
              f"skipped, {u['spent_s']:.1f} s of a {u['budget_s']:g} s budget")
    if s.get("llm", {}).get("cache_hits"):
        u = s["llm"]
        print(f"  LLM cache: {u['cache_hits']} of {u['cache_hits'] + u['cache_misses']} LLM repl(ies) answered from "
              "the cache (no LLM time; --no-cache asks the LLM again)")
    print(f"\n{s['seconds']:.2f} s, {s['tokens']} LLM tokens, method {s['method']}")
    return 0


def _config_changes(pairs: Sequence[str]) -> dict[str, object]:
    """``--set NAME=VALUE`` pairs as config changes (VALUE read as JSON when it is: 2, 0.5, true, "x")."""
    out: dict[str, object] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name.strip():
            raise SystemExit(f"egx: --set {pair!r} is not NAME=VALUE (e.g. --set d=2)")
        try:
            out[name.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[name.strip()] = raw
    return out


def _method_configs(pairs: Sequence[str], methods: Sequence[str]) -> dict[str, Any]:
    """``--set METHOD.NAME=VALUE`` pairs (e.g. ``fastinsight.graph=passages``) as one config per method,
    each the method's defaults with the changes applied and checked.

    Raises
    ------
    ConfigError
        A pair without a method, a method not being run, an unknown field (listing the fields), or a
        value out of range (naming the field and what is allowed).
    """
    from core.errors import ConfigError
    from core.methods.registry import get_method

    changes: dict[str, dict[str, object]] = {}
    for pair in pairs:
        target, sep, _ = pair.partition("=")
        method, dot, name = target.strip().partition(".")
        if not sep or not dot or not method or not name:
            raise ConfigError(f"--set {pair!r} is not METHOD.NAME=VALUE; e.g. --set fastinsight.graph=passages.")
        if method not in methods:
            raise ConfigError(f"--set {pair!r} names the method {method!r}, which this run does not include "
                              f"(--methods {','.join(methods)}).")
        changes.setdefault(method, {}).update(_config_changes([f"{name}={pair.partition('=')[2]}"]))
    return {m: get_method(m).make_config(**c) for m, c in changes.items()}


def _writable_file(name: str, flag: str) -> Path:
    """``name`` as an output file path, its folder created now, so a long computation is never
    lost to a missing folder at the end.

    Raises
    ------
    ConfigError
        When the path is a folder or its folder cannot be created.
    """
    from core.errors import ConfigError

    p = Path(name)
    if p.is_dir():
        raise ConfigError(f"{flag} {name} is a folder; give a file name, e.g. {flag} {p / 'trace.json'}.")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{flag} {name}: its folder cannot be created ({exc.strerror}); pick another path.") from None
    return p


def cmd_train_reg(args: argparse.Namespace) -> int:
    from core.backends.registry import get_embedder
    from core.methods.base import Backends
    from core.methods.reg.config import TrainConfig
    from core.methods.reg.train import train_reg

    embedder = get_embedder(args.embedder)
    llm = _llm(args)
    if args.supervision == "refined" and not llm.available:
        from core.errors import ConfigError

        raise ConfigError("--supervision refined needs an LLM to select the supervision (ReG §4.1); with --llm none "
                          "it would be weak supervision saved as refined. Pass --llm local, local-small or openai, "
                          "or use --supervision weak.")
    ws = resolve_workspace(args.workspace, embedder)
    questions = args.questions or ws.questions_path
    if questions is None:
        raise SystemExit(f"egx train-reg: workspace {ws.name!r} has no questions file; pass --questions FILE")
    cfg = TrainConfig(supervision=args.supervision, seed=args.seed, epochs=args.epochs)
    res = train_reg(ws, questions, backends=Backends(embedder, llm), cfg=cfg, out=args.out, limit=args.limit,
                    progress=_progress_bar("train-reg"))
    if args.json:
        print(json.dumps(res.to_dict(), indent=2, default=str))
        return 0
    k = cfg.recall_k
    print(f"Trained ReG@Triple ({res.supervision} supervision) on {res.counts.get('train_examples', 0)} questions "
          f"({res.counts.get('val_examples', 0)} validation, {res.counts.get('test_examples', 0)} test held out); "
          f"best epoch {res.best_epoch}, {res.seconds:.1f} s on {res.device}.")
    for name, m in (("trained", res.test), ("cosine baseline", res.baseline_test)):
        print(f"  test {name:<16} label recall@{k} {m['label_recall']:.3f}  gold-passage triple recall@{k} "
              f"{m['gold_passage_recall']:.3f}  answer hit@{k} {m['answer_hit']:.3f}")
    print(f"Saved to {res.model_dir}")
    return 0


def _bench_inputs(args: argparse.Namespace, specs: list, command: str):  # -> (Workspace, questions, Backends)
    """The workspace, questions and backends of `egx bench` / `egx ablate` (the reranker only when a
    method needs it, or as the no-LLM answer's extractive scorer)."""
    from core.backends.registry import get_embedder, get_reranker
    from core.eval.datasets import load_questions, load_questions_file
    from core.methods.base import Backends

    embedder = get_embedder(args.embedder)
    llm = _llm(args)
    wants = any(s.needs_reranker for s in specs) or (not llm.available and args.reranker != "llm")
    reranker = get_reranker(args.reranker, embedder=embedder, llm=llm) if wants else None
    ws = resolve_workspace(args.workspace, embedder)
    qs = load_questions_file(args.questions, ws.graph) if args.questions else load_questions(ws)
    if not qs:
        raise SystemExit(f"egx {command}: no questions; give --questions FILE or a workspace that has a questions file")
    return ws, qs, Backends(embedder, llm, reranker)


def _run_bar(desc: str):  # -> Callable[[int, int, str], None]
    """A ``progress(done, total, msg)`` drawing one tqdm bar, created on the first call (so an error
    before any run prints no bar)."""
    from tqdm import tqdm

    state: dict = {}

    def progress(done: int, total: int, msg: str) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(total=total, desc=desc, unit="run", file=sys.stderr)
            _BARS.append(bar)
        bar.total = total
        bar.update(done - bar.n)
        bar.set_postfix_str(msg[:50])

    return progress


def cmd_bench(args: argparse.Namespace) -> int:
    """`egx bench`: every method on every question; JSONL + summary + report + charts in --out."""
    from contextlib import nullcontext

    from core.eval.runner import run_benchmark
    from core.methods.registry import get_method

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    specs = [get_method(m) for m in methods]
    configs = _method_configs(args.set or [], methods)  # a bad --set fails before any model loads
    meta: dict[str, object] = {}
    if configs:  # recorded in run.json: a resumed run must use the same settings
        meta["config_changes"] = {m: c.overrides() for m, c in configs.items()}
    runner = _ray_runner(args)
    with runner if runner is not None else nullcontext():  # Ray first: a missing Ray or bad address fails at once
        ws, qs, backends = _bench_inputs(args, specs, "bench")
        rep = run_benchmark(ws, qs, methods, backends, out_dir=args.out, limit=args.limit,
                            seed=args.seed, cut=args.cut, progress=_run_bar("bench"), save_traces=args.traces,
                            meta={"questions_file": str(args.questions or ws.questions_path), **meta},
                            configs=configs, runner=runner, judge=not args.no_judge)
    _close_bars(clear=False)
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


def cmd_ablate(args: argparse.Namespace) -> int:
    """`egx ablate`: the paper's ablation rows of one method on a questions file, one table (resumable)."""
    from core.eval.ablation import ablation_rows, run_ablation
    from core.methods.registry import get_method

    rows = ablation_rows(args.method)  # an unknown method fails before any model loads
    ws, qs, backends = _bench_inputs(args, [get_method(r.method) for r in rows], "ablate")
    progress = _run_bar("ablate")

    names = [n.strip() for n in args.rows.split(",") if n.strip()] if args.rows else None
    rep = run_ablation(ws, qs, args.method, backends, out_dir=args.out, limit=args.limit,
                       seed=args.seed, cut=args.cut, rows=names, progress=progress,
                       meta={"questions_file": str(args.questions or ws.questions_path)})
    _close_bars(clear=False)
    if args.json:
        print(json.dumps({"method": rep.method, "rows": list(rep.rows)}, indent=1, ensure_ascii=False, default=str))
        return 0
    print(rep.markdown)
    print(f"{rep.ran} runs now, {rep.skipped} already done. Table: {rep.out_dir / 'ablation.md'}")
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    """`egx record`: record live-LLM runs of the questions into a replayable bundle (issue 18, item 2)."""
    from core.backends.llm import LLMSettings
    from core.backends.llm_bundles import RECORDINGS_DIR
    from core.backends.registry import get_embedder, get_llm, get_reranker
    from core.eval.datasets import load_questions, load_questions_file
    from core.methods.base import Backends
    from core.recording import record

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
    out = Path(args.out) if args.out else RECORDINGS_DIR / f"{ws.name}-{args.llm}.json"

    def progress(done: int, total: int, msg: str) -> None:
        print(f"[{done}/{total}] {msg}", file=sys.stderr, flush=True)

    runs = record(ws, qs, methods, Backends(embedder, llm, reranker), out, settings=settings,
                  embedder_name=args.embedder, reranker_name=args.reranker, redo=args.redo, progress=progress,
                  config_changes=_config_changes(args.set or []))
    new = [r for r in runs if not r.skipped]
    for r in new:
        print(f"recorded {r.method:<10} {r.seconds:7.1f} s  {r.question}")
    print(f"{len(new)} run(s) recorded, {len(runs) - len(new)} already in {out}")
    return 0


def cmd_make_erqa(args: argparse.Namespace) -> int:
    """SG-RAG App. G: bridge-star questions with gold answers from a KG folder or workspace
    (``--style template``), or paraphrased questions with oracle answer sets (``--style paraphrase``,
    issue 17 item 7: :mod:`core.eval.erqa_paraphrase`)."""
    from core.graph.loaders import load_inputs

    if args.style == "paraphrase" and args.llm != "none":
        raise SystemExit("egx make-erqa: --llm polishes template questions only; paraphrased questions are worded "
                         "from the lexicon (drop --llm or use --style template)")
    if args.style == "template" and args.relations:
        raise SystemExit("egx make-erqa: --relations applies to --style paraphrase only")
    src = Path(args.kg)
    if (src / "manifest.json").exists():
        from core.index.workspace import Workspace

        graph = Workspace.open(src).graph
    else:
        graph = load_inputs([src], name=src.name).graph
    kg = f"from {graph.name or src.name} ({graph.n_nodes} nodes, {graph.n_edges} edges)"
    if args.style == "paraphrase":
        from core.eval.erqa_paraphrase import build_paraphrased, write_paraphrased

        rels = [r.strip() for r in args.relations.split(",") if r.strip()] if args.relations else None
        pq = build_paraphrased(graph, args.n, seed=args.seed, max_answers=args.max_answers or 10, relations=rels)
        out = write_paraphrased(pq, args.out)
        sizes = [len(q.answers) for q in pq]
        print(f"Wrote {len(pq)} paraphrased questions (seed {args.seed}) {kg} to {out}; answer sets of "
              f"{min(sizes, default=0)}-{max(sizes, default=0)} answers, {sum(s > 1 for s in sizes)} with more than one"
              + ("" if len(pq) == args.n else f" — only {len(pq)} of {args.n} could be built; raise --max-answers"))
        return 0
    from core.eval.erqa import build_erqa, write_erqa

    llm = _llm(args) if args.llm != "none" else None
    qs = build_erqa(graph, args.n, seed=args.seed, min_degree=args.min_degree, max_answers=args.max_answers or 1,
                    llm=llm)
    out = write_erqa(qs, args.out)
    print(f"Wrote {len(qs)} bridge-star questions (seed {args.seed}) {kg} to {out}"
          + ("" if len(qs) == args.n else f" — only {len(qs)} of {args.n} could be built; lower --min-degree"))
    return 0


def app_path() -> Path:
    return Path(__file__).resolve().parents[1] / "app.py"


def app_embedder() -> str:
    """The embedder the app opens workspaces with: ``$EGX_EMBEDDER`` or the default (as the sidebar)."""
    return os.environ.get("EGX_EMBEDDER", "").strip() or DEFAULT_EMBEDDER


def build_samples(names: Sequence[str] = (), embedder_name: str | None = None, *, rebuild: bool = False) -> list[str]:
    """Build (or check) the bundled sample workspaces with the app's embedder, one terminal progress
    bar each (with an ETA); a sample already built for this embedder returns at once. Returns lines
    to print, one per sample."""
    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace, sample_recipes

    known = [r.name for r in sample_recipes()]
    for n in names:
        if n not in known:
            from core.errors import UnknownNameError

            raise UnknownNameError("sample workspace", n, known)
    emb_name = embedder_name or app_embedder()
    embedder = get_embedder(emb_name)
    lines = []
    for name in names or known:
        t0 = time.perf_counter()
        ws = ensure_sample_workspace(name, embedder, progress=_progress_bar(f"sample {name}"), force=rebuild)
        g = ws.graph
        lines.append(f"sample {name}: ready ({g.n_nodes:,} nodes, {g.n_edges:,} edges, {g.n_chunks:,} chunks, "
                     f"index: {emb_name}) in {time.perf_counter() - t0:.1f} s")
    return lines


def cmd_samples(args: argparse.Namespace) -> int:
    for line in build_samples(args.names, args.embedder, rebuild=args.rebuild):
        print(line)
    return 0


def cmd_app(args: argparse.Namespace) -> int:
    if args.prebuild:  # build the samples now, with a terminal bar, so nobody waits in the browser
        print(f"Preparing the bundled samples for the {app_embedder()} embedder "
              "(once; later starts only check them; --no-prebuild skips this)", file=sys.stderr)
        try:
            for line in build_samples():
                print(line, file=sys.stderr)
        except EgxError as exc:
            _close_bars(clear=True)
            print(f"egx: warning: the samples could not be prepared ({exc}); the app starts anyway and "
                  "builds them when they are picked.", file=sys.stderr)
    cmd = [sys.executable, "-m", "streamlit", "run", str(app_path()), "--server.port", str(args.port),
           "--server.address", args.address, "--browser.gatherUsageStats", "false",
           "--server.headless", "true",
           "--server.fileWatcherType", "none",  # no inotify flood from .venv/.egx/.cache (issue 16, item 8)
           # tracebacks (with server paths) go to this console, never to the browser
           "--client.showErrorDetails", os.environ.get("EGX_SHOW_ERROR_DETAILS", "none")]
    print(f"Starting Evidence Graph Explorer on http://{args.address}:{args.port}", file=sys.stderr)
    # Offline mode is not forced: the bundled models never touch the hub, and an explicit hub id
    # (st:<id>, cross-encoder:<id>) may download when the network allows (core/backends/hub.py).
    return subprocess.call(cmd, env=dict(os.environ))


def _port(text: str) -> int:
    """``--port``: an integer 1-65535 (argparse reports anything else as a usage error, exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number; give an integer 1-65535") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is out of range; give a port 1-65535")
    return port


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="egx", description="Evidence Graph Explorer: graph-RAG retrieval you can watch.")
    sub = p.add_subparsers(dest="command", required=True)

    w = sub.add_parser("workspaces", help="list sample and user workspaces")
    w.add_argument("--root", help="workspaces folder (default $EGX_HOME/workspaces)")
    w.add_argument("--json", action="store_true", help="machine-readable output")
    w.set_defaults(func=cmd_workspaces)

    i = sub.add_parser("index", help="build a workspace (graph + FAISS indexes) from input files",
                       description="Inputs: triples CSV/TSV/JSON/JSONL, GraphML, .txt/.md documents, JSON(L) "
                                   "corpora, HippoRAG corpus + OpenIE file, corpus graph (nodes JSONL + edges CSV), "
                                   "or a named-KG folder (UMLS / FB15k-237 layout).")
    i.add_argument("inputs", nargs="*", help="input files or folders")
    i.add_argument("--workspace", help="workspace folder to create (or re-index when no inputs are given)")
    i.add_argument("--sample", help="build/refresh a bundled sample workspace by name (demo, musique)")
    i.add_argument("--name", help="display name (default: folder name)")
    i.add_argument("--questions", help="questions file with gold evidence to keep in the workspace")
    i.add_argument("--embedder", default=DEFAULT_EMBEDDER,
                   help="embedder name (bge-small, minilm, hashing, st:<path-or-id>)")
    i.add_argument("--llm", default="none", help="LLM for triple extraction from a plain corpus (none, local, local-small, openai)")
    i.add_argument("--extractor", help="triple extractor (llm, spacy, rules); default: llm if an LLM is set, else spacy")
    i.add_argument("--synonyms", type=float, metavar="COSINE",
                   help="store HippoRAG synonymy edges ('synonym of') between nodes whose name embeddings have "
                        "cosine >= COSINE (HippoRAG: 0.8), so every method can walk them; default: none")
    _add_llm_limits(i)
    i.add_argument("--store", metavar="URL",
                   help="keep the graph in FalkorDB: falkordb://HOST:PORT/GRAPH (password from $EGX_FALKORDB_PASSWORD; "
                        "a local server: python -m core.graph.falkor_server); with --workspace DIR and no inputs, "
                        "moves that workspace's graph there. Default: in the workspace folder, loaded into memory")
    i.add_argument("--overwrite", action="store_true", help="replace an existing workspace (and its store graph)")
    _add_ray(i, "embed the nodes, edges and chunks and extract triples")
    i.add_argument("--rebuild", action="store_true", help="rebuild the index even if it is up to date (with --sample: "
                                                          "rebuild the whole sample workspace)")
    i.set_defaults(func=cmd_index)

    k = sub.add_parser("ask", help="answer a question with one retrieval method and show its evidence")
    k.add_argument("question")
    k.add_argument("--workspace", default="demo", help="workspace folder, name, or sample (demo, musique)")
    k.add_argument("--method", default="bubblerag", help="retrieval method (see core/methods/registry.py)")
    k.add_argument("--llm", default="none", help="none, local, local-small, openai, recorded (replay a shipped real-LLM recording)")
    _add_llm_limits(k)
    k.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    k.add_argument("--reranker", default=DEFAULT_RERANKER,
                   help="for methods that rerank (ms-marco-minilm, biencoder, llm, cross-encoder:<path-or-id>)")
    k.add_argument("--top", type=int, default=5, help="how many CEGs / chunks to print")
    k.add_argument("--json", action="store_true", help="print the answer, CEGs and chunks as JSON")
    k.add_argument("--trace", help="also write the full trace (JSON, reloadable) to this file")
    k.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="change a method setting for this question (repeatable), e.g. --set d=2 --set n=1")
    k.add_argument("--evidence-format", choices=("passages", "triples", "chains"),
                   help="answer prompt evidence: passages, raw KG triples, or ReG evidence chains (ReG §4.2)")
    k.set_defaults(func=cmd_ask)

    tr = sub.add_parser("train-reg", help="train the ReG@Triple retriever on weak or LLM-refined supervision",
                        description="ReG §4.1 / App. D-E: candidate pool, compression, LLM selection (refined) or "
                                    "shortest paths (weak); an MLP triple scorer with DDE; held-out recall.")
    tr.add_argument("--workspace", required=True, help="workspace folder, name, or sample (e.g. musique)")
    tr.add_argument("--questions", help="questions with answers (JSON list; MuSiQue format works); default: the "
                                        "workspace's own questions file")
    tr.add_argument("--supervision", choices=("weak", "refined"), default="weak")
    tr.add_argument("--llm", default="none", help="LLM for refined supervision (local, local-small, openai)")
    _add_llm_limits(tr)
    tr.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    tr.add_argument("--out", help="model folder (default <workspace>/reg/retriever, which `egx ask --method reg` uses)")
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--epochs", type=int, default=80, help="training epochs (ReG App. E: 80)")
    tr.add_argument("--limit", type=int, help="use only the first N questions")
    tr.add_argument("--json", action="store_true", help="print the result (curves, held-out metrics) as JSON")
    tr.set_defaults(func=cmd_train_reg)

    b = sub.add_parser("bench", help="benchmark methods on questions with gold evidence (metrics + failure diagnosis)",
                       description="Runs every method on every question in one process and writes results.jsonl "
                                   "(one line per question x method; a rerun resumes), summary.json, report.md and "
                                   "charts.html to --out.")
    b.add_argument("--workspace", default="musique", help="workspace folder, name, or sample (demo, musique)")
    b.add_argument("--questions", help="questions file (HippoRAG JSON/JSONL, or BEIR qrels .tsv with queries.jsonl "
                                       "beside it); default: the workspace's own questions")
    b.add_argument("--methods", default="dense,rerank,ppr,fastinsight,bubblerag",
                   help="comma-separated registered methods (see core/methods/registry.py)")
    b.add_argument("--llm", default="none", help="none, local, local-small, openai, recorded")
    _add_llm_limits(b)
    b.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    b.add_argument("--reranker", default=DEFAULT_RERANKER,
                   help="for methods that rerank (ms-marco-minilm, biencoder, llm, cross-encoder:<path-or-id>)")
    b.add_argument("--limit", type=int, help="run only the first N questions (after the seeded shuffle, if --seed)")
    b.add_argument("--seed", type=int, help="shuffle the questions with this seed and seed every generator")
    b.add_argument("--cut", type=int, default=5, help="rank cut of the failure diagnosis (default 5)")
    b.add_argument("--out", required=True, help="output folder (resumed if it holds a run with the same settings)")
    b.add_argument("--traces", action="store_true", help="also write every run's trace to OUT/traces/")
    b.add_argument("--no-judge", action="store_true",
                   help="with an LLM, skip the papers' LLM-judged metrics (ACC_L, Emp.S, the pairwise win rate): "
                        "they add 2 LLM calls per answer and 2 per pair of methods")
    b.add_argument("--set", action="append", metavar="METHOD.NAME=VALUE",
                   help="change one method's setting for this run (repeatable), e.g. --set fastinsight.graph=passages "
                        "--set fastinsight.b_max=50 (VALUE read as JSON when it is)")
    b.add_argument("--json", action="store_true", help="print the summary JSON instead of the markdown report")
    _add_ray(b, "run the question x method pairs")
    b.set_defaults(func=cmd_bench)

    a = sub.add_parser("ablate", help="run a paper's ablation rows of one method and write one table",
                       description="BubbleRAG §4.3 (w/o specialization, relaxation, CEG ranking, reasoning expansion), "
                                   "FastInsight (w/o GRanker, w/o STeX), ReG (weak vs refined supervision, chains vs "
                                   "triples), SG-RAG (w/o dominance filter, Alg. 5 as printed, NaiveRAG): every row is a "
                                   "resumable `egx bench` run in OUT/<row>/; the table goes to OUT/ablation.md.")
    a.add_argument("--method", required=True, choices=("bubblerag", "fastinsight", "reg", "sgrag"))
    a.add_argument("--workspace", default="musique", help="workspace folder, name, or sample (demo, musique)")
    a.add_argument("--questions", help="questions file; default: the workspace's own questions")
    a.add_argument("--rows", help="comma-separated row names to run (default: all; see core/eval/ablation.py)")
    a.add_argument("--llm", default="none", help="none, local, local-small, openai")
    _add_llm_limits(a)
    a.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    a.add_argument("--reranker", default=DEFAULT_RERANKER)
    a.add_argument("--limit", type=int, help="run only the first N questions (after the seeded shuffle, if --seed)")
    a.add_argument("--seed", type=int, help="shuffle the questions with this seed and seed every generator")
    a.add_argument("--cut", type=int, default=5, help="rank cut of the failure diagnosis (default 5)")
    a.add_argument("--out", required=True, help="output folder (each row's sub-folder resumes)")
    a.add_argument("--json", action="store_true", help="print the rows as JSON instead of the markdown table")
    a.set_defaults(func=cmd_ablate)
    rc = sub.add_parser("record", help="record live-LLM runs of the sample questions for the 'recorded' LLM (resumable)",
                        description="Runs each question x method with a live LLM and saves every LLM reply, the answer "
                                    "and seconds per stage into a JSON bundle that `--llm recorded` (and the app's "
                                    "'recorded LLM run') replays with no model. Saved after each run; running it "
                                    "again resumes.")
    rc.add_argument("--workspace", default="demo", help="workspace folder, name, or sample (demo, musique)")
    rc.add_argument("--methods", default="bubblerag,sgrag,reg", help="comma-separated methods")
    rc.add_argument("--llm", default="local", help="local (Qwen2.5-Coder-1.5B), local-small (0.5B) or openai")
    _add_llm_limits(rc)
    rc.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    rc.add_argument("--reranker", default=DEFAULT_RERANKER)
    rc.add_argument("--questions", help="questions file (default: the workspace's own)")
    rc.add_argument("--only", help="comma-separated question ids to record")
    rc.add_argument("--limit", type=int, help="record only the first N questions")
    rc.add_argument("--out", help="bundle file (default: sample_data/llm_recordings/<workspace>-<llm>.json)")
    rc.add_argument("--redo", action="store_true", help="record runs already in the bundle again")
    rc.add_argument("--set", action="append", metavar="NAME=VALUE",
                    help="change a method setting (repeatable; applied to the methods that have it). BubbleRAG's "
                         "wall-clock time_budget_s is always lifted while recording, so the replay is never cut short")
    rc.set_defaults(func=cmd_record)

    e = sub.add_parser("make-erqa", help="generate ERQA-style multi-constraint questions from a KG (SG-RAG App. G)")
    e.add_argument("--kg", required=True, help="a named-KG folder (UMLS/FB15k-237 layout), a triples file, or a workspace")
    e.add_argument("--n", type=int, default=200, help="number of questions")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--min-degree", type=int, default=8, help="star nodes have at least this many neighbours")
    e.add_argument("--style", choices=("template", "paraphrase"), default="template",
                   help="template: the paper's bridge-star questions quoting KG names (App. G); paraphrase: questions "
                        "worded from a lexicon of natural phrasings of FB15k-237 relations, with answer sets "
                        "computed by brute force over the whole KG (issue 17)")
    e.add_argument("--max-answers", type=int, default=None,
                   help="accept questions with up to this many gold answers (template default 1, dense KGs such as "
                        "UMLS need 2-3; paraphrase default 10)")
    e.add_argument("--relations", help="paraphrase: comma-separated Freebase relation paths to draw constraints from "
                                       "(default: every relation of the lexicon)")
    e.add_argument("--llm", default="none", help="none (template text) or an LLM to polish the template questions")
    _add_llm_limits(e)
    e.add_argument("--out", required=True, help="output questions JSON")
    e.set_defaults(func=cmd_make_erqa)

    sp = sub.add_parser("samples", help="build the bundled sample workspaces now (what `make app` does first)")
    sp_sub = sp.add_subparsers(dest="samples_command", required=True)
    sb = sp_sub.add_parser("build", help="build the samples for an embedder, with a progress bar; quick when built")
    sb.add_argument("names", nargs="*", help="sample names (default: all of them)")
    sb.add_argument("--embedder", default=None, help="default: $EGX_EMBEDDER or the app's default embedder")
    sb.add_argument("--rebuild", action="store_true", help="build again even when up to date")
    sb.set_defaults(func=cmd_samples)

    a = sub.add_parser("app", help="start the Streamlit app")
    a.add_argument("--port", type=_port, default=8501, help="TCP port, 1-65535 (default 8501)")
    a.add_argument("--address", default="127.0.0.1")
    a.add_argument("--no-prebuild", dest="prebuild", action="store_false",
                   help="start at once; the samples are built when first picked in the app (a background job)")
    a.set_defaults(func=cmd_app)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except EgxError as exc:
        _close_bars(clear=True)  # the message starts its own line, not after a progress bar
        print(f"egx: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _close_bars(clear=True)
        print("egx: interrupted; nothing was left half-written.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
