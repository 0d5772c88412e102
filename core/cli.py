"""The ``egx`` command: build and list workspaces, start the app.

Examples
--------
::

    egx workspaces
    egx index triples.csv corpus.json --workspace ~/kg/mine --embedder minilm
    egx index ../shared/data/umls_named --workspace /tmp/umls --embedder hashing
    egx app --port 8501
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from core.errors import EgxError


def _progress_bar(desc: str):  # -> Callable[[str, float], None]
    from tqdm import tqdm

    bar = tqdm(total=1000, desc=desc, unit="‰", leave=True, file=sys.stderr,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}")

    def update(msg: str, frac: float) -> None:
        target = int(min(max(frac, 0.0), 1.0) * 1000)
        if target > bar.n:
            bar.update(target - bar.n)
        bar.set_postfix_str(msg[:60], refresh=True)
        if target >= 1000:
            bar.close()

    return update


def cmd_workspaces(args: argparse.Namespace) -> int:
    from core.index.workspace import list_workspaces, workspaces_root

    root = Path(args.root) if args.root else workspaces_root()
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
        print(f"  {r.name:<20} {'[sample] ' if r.sample else ''}{state}{size}\n      {r.title}")
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    from core.backends.registry import default_extractor, get_embedder, get_extractor, get_llm
    from core.index.workspace import Workspace, create_workspace, ensure_sample_workspace

    embedder = get_embedder(args.embedder)
    if not args.inputs:
        if args.sample:
            ws = ensure_sample_workspace(args.sample, embedder, progress=_progress_bar(f"sample {args.sample}"))
        elif args.workspace:
            ws = Workspace.open(args.workspace)
            ws.ensure_index(embedder, progress=_progress_bar("index"), rebuild=args.rebuild)
        else:
            raise SystemExit("egx index: give input files, --sample NAME, or --workspace DIR of an existing workspace")
    else:
        if not args.workspace:
            raise SystemExit("egx index: --workspace DIR is required when building from inputs")
        llm = get_llm(args.llm)
        extractor = get_extractor(args.extractor, llm=llm) if args.extractor else default_extractor(llm)
        ws = create_workspace(args.inputs, args.workspace, name=args.name, embedder=embedder,
                              extractor=extractor, questions=args.questions, overwrite=args.overwrite,
                              progress=_progress_bar("index"))
    g = ws.graph
    print(f"Workspace {ws.name!r} at {ws.path}: {g.n_nodes} nodes, {g.n_edges} edges, {g.n_chunks} chunks.")
    for b in ws.manifest.get("index", {}).get("builds", []):
        rate = b["items"] / b["seconds"] if b["seconds"] else float("inf")
        print(f"  index/{b['kind']}: {b['items']} items in {b['seconds']:.2f} s ({rate:.0f} items/s)")
    for w in ws.warnings:
        print(f"  note: {w}")
    return 0


def app_path() -> Path:
    return Path(__file__).resolve().parents[1] / "app.py"


def cmd_app(args: argparse.Namespace) -> int:
    cmd = [sys.executable, "-m", "streamlit", "run", str(app_path()), "--server.port", str(args.port),
           "--server.address", args.address, "--browser.gatherUsageStats", "false",
           "--server.headless", "true"]
    print(f"Starting Evidence Graph Explorer on http://{args.address}:{args.port}", file=sys.stderr)
    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")
    return subprocess.call(cmd, env=env)


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
    i.add_argument("--embedder", default="minilm", help="embedder name (minilm, hashing, st:<path-or-id>)")
    i.add_argument("--llm", default="none", help="LLM for triple extraction from a plain corpus (none, local, local-small, openai)")
    i.add_argument("--extractor", help="triple extractor (llm, rules); default: llm if an LLM is set, else rules")
    i.add_argument("--overwrite", action="store_true", help="replace an existing workspace")
    i.add_argument("--rebuild", action="store_true", help="rebuild the index even if it is up to date")
    i.set_defaults(func=cmd_index)

    a = sub.add_parser("app", help="start the Streamlit app")
    a.add_argument("--port", type=int, default=8501)
    a.add_argument("--address", default="127.0.0.1")
    a.set_defaults(func=cmd_app)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except EgxError as exc:
        print(f"egx: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("egx: interrupted; nothing was left half-written.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
