"""``egx workspaces``: list the sample workspaces and the user's own."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.cli_support import Subparsers

NAME = "workspaces"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    w = subparsers.add_parser(NAME, help="list sample and user workspaces")
    w.add_argument("--root", help="workspaces folder (default $EGX_HOME/workspaces)")
    w.add_argument("--json", action="store_true", help="machine-readable output")
    return w


def run(args: argparse.Namespace) -> int:
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
