"""``egx samples build``: build the bundled sample workspaces now, with the app's embedder (what
``egx app`` and ``make app`` do first, so nobody waits in the browser)."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from core.backends.registry import DEFAULT_EMBEDDER
from core.cli_support import progress_bar

if TYPE_CHECKING:
    from core.cli_support import Subparsers

NAME = "samples"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    sp = subparsers.add_parser(NAME, help="build the bundled sample workspaces now (what `make app` does first)")
    sp_sub = sp.add_subparsers(dest="samples_command", required=True)
    sb = sp_sub.add_parser("build", help="build the samples for an embedder, with a progress bar; quick when built")
    sb.add_argument("names", nargs="*", help="sample names (default: all of them)")
    sb.add_argument("--embedder", default=None, help="default: $EGX_EMBEDDER or the app's default embedder")
    sb.add_argument("--rebuild", action="store_true", help="build again even when up to date")
    sb.add_argument("--no-prepare", dest="prepare", action="store_false",
                    help="build the graphs and indexes only; the methods prepare what they keep in the workspace "
                         "(FastInsight's node vectors, PPR's synonymy edges, SG-RAG's dominance model) on first use")
    return sp


def run(args: argparse.Namespace) -> int:
    for line in build_samples(args.names, args.embedder, rebuild=args.rebuild, prepare=args.prepare):
        print(line)
    return 0


def app_embedder() -> str:
    """The embedder the app opens workspaces with: ``$EGX_EMBEDDER`` or the default (as the sidebar)."""
    return os.environ.get("EGX_EMBEDDER", "").strip() or DEFAULT_EMBEDDER


def _bar(sample: str, title: str) -> Callable[[str, float], None]:
    return progress_bar(f"sample {sample}: {title[:32]}")


def build_samples(names: Sequence[str] = (), embedder_name: str | None = None, *, rebuild: bool = False,
                  prepare: bool = True) -> list[str]:
    """Build (or check) the bundled sample workspaces with the app's embedder, one terminal progress
    bar each (with an ETA); a sample already built for this embedder returns at once. With ``prepare``,
    also what every method keeps in the workspace (:func:`~core.methods.run.prepare_workspace`), so no
    page starts a long job the user did not ask for. Returns lines to print, one per sample."""
    from core.backends.registry import get_embedder
    from core.index.samples import ensure_sample_workspace, sample_recipes
    from core.methods.run import prepare_workspace

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
        ws = ensure_sample_workspace(name, embedder, progress=progress_bar(f"sample {name}"), force=rebuild)
        done = prepare_workspace(ws, embedder, progress=partial(_bar, name)) if prepare else []
        g = ws.graph
        lines.append(f"sample {name}: ready ({g.n_nodes:,} nodes, {g.n_edges:,} edges, {g.n_chunks:,} chunks, "
                     f"index: {emb_name}) in {time.perf_counter() - t0:.1f} s"
                     + (f"; prepared {len(done)}: {'; '.join(done)}" if done else ""))
    return lines
