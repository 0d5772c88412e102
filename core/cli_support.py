"""What every ``egx`` command shares: terminal progress bars, the ``--llm-*`` flags and the LLM they
build, and finding a workspace by path, name or sample.

It sits outside :mod:`core.cli` because a method package's own commands use it too
(``core/methods/<name>/commands.py``, e.g. ReG's ``train-reg``): :mod:`core.cli` sits on
:mod:`core.methods`, so a method may not import :mod:`core.cli` (a test keeps ``core/`` free of
import cycles). Nothing here imports :mod:`core.methods`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.backends.base import LLM, Embedder
    from core.backends.registry import LLMSpec
    from core.index.workspace import Workspace

    #: what ``add_parser(subparsers)`` of a command receives: ``ArgumentParser.add_subparsers()``
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

#: Open tqdm bars, closed before an error is printed (so the message starts its own line).
BARS: list[Any] = []


def close_bars(*, clear: bool) -> None:
    """Close every open bar; ``clear`` also erases it from the terminal."""
    while BARS:
        bar = BARS.pop()
        if clear:
            bar.leave = False
        bar.close()


def progress_bar(desc: str) -> Callable[[str, float], None]:
    """A tqdm bar created on the first update, so work that needs no progress prints nothing."""
    from tqdm import tqdm

    state: dict[str, Any] = {}

    def update(msg: str, frac: float) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(total=1000, desc=desc, unit="‰", leave=True, file=sys.stderr,
                                      bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}")
            BARS.append(bar)
        target = int(min(max(frac, 0.0), 1.0) * 1000)
        if target > bar.n:
            bar.update(target - bar.n)
        bar.set_postfix_str(msg[:60], refresh=True)
        if target >= 1000:
            bar.close()
            if bar in BARS:
                BARS.remove(bar)

    return update


def run_bar(desc: str) -> Callable[[int, int, str], None]:
    """A ``progress(done, total, msg)`` drawing one tqdm bar, created on the first call (so an error
    before any run prints no bar)."""
    from tqdm import tqdm

    state: dict[str, Any] = {}

    def progress(done: int, total: int, msg: str) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(total=total, desc=desc, unit="run", file=sys.stderr)
            BARS.append(bar)
        bar.total = total
        bar.update(done - bar.n)
        bar.set_postfix_str(msg[:50])

    return progress


def add_llm_limits(p: argparse.ArgumentParser) -> None:
    """The ``--no-cache`` / ``--llm-timeout`` / ``--llm-retries`` / ``--llm-budget`` flags of every
    command that has ``--llm``."""
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


class OutputPath:
    """The argparse ``type=`` of an option naming a path egx writes to: the path is checked while the arguments
    are parsed, before any model loads, and returned as given (:func:`core.outputs.check_output_file` /
    :func:`core.outputs.check_output_folder`; nothing is created yet). A refusal is an
    :class:`~core.errors.OutputPathError`, which :func:`core.cli.main` prints as ``egx: error: ...``.

    Declare such options with :func:`output_file_arg` / :func:`output_folder_arg`: a test walks every
    command's options and fails on a path option declared without one."""

    def __init__(self, flag: str, kind: str, *, what: str = "output folder", example: str = "out.json",
                 ours: Callable[[Path], bool] | None = None) -> None:
        if kind not in ("file", "folder"):
            raise ValueError(f"OutputPath kind must be 'file' or 'folder', got {kind!r}")
        self.flag, self.kind, self.what, self.example, self.ours = flag, kind, what, example, ours
        self.__name__ = f"output {kind}"  # what argparse calls the type in its own messages

    def __call__(self, text: str) -> str:
        from core.outputs import check_output_file, check_output_folder

        if self.kind == "file":
            check_output_file(text, flag=self.flag, example=self.example)
        else:
            check_output_folder(text, flag=self.flag, what=self.what, ours=self.ours)
        return text


def output_file_arg(p: argparse.ArgumentParser, flag: str, *, help: str, example: str = "out.json",
                    **kw: Any) -> None:
    """Add ``flag`` naming an output file (checked when parsed: :class:`OutputPath`); write it with
    :func:`core.outputs.write_output_text` and friends."""
    p.add_argument(flag, type=OutputPath(flag, "file", example=example), metavar="FILE", help=help, **kw)


def output_folder_arg(p: argparse.ArgumentParser, flag: str, *, help: str, what: str = "output folder",
                      ours: Callable[[Path], bool] | None = None, **kw: Any) -> None:
    """Add ``flag`` naming an output folder (checked when parsed: :class:`OutputPath`): missing, empty, or one
    egx made (its marker file, or ``ours(folder)``); claim it with :func:`core.outputs.output_folder`."""
    p.add_argument(flag, type=OutputPath(flag, "folder", what=what, ours=ours), metavar="DIR", help=help, **kw)


def llm_spec(args: argparse.Namespace) -> LLMSpec:
    """The ``--llm`` backend under the ``--llm-timeout`` / ``--llm-retries`` / ``--llm-budget`` limits and
    ``--no-cache``, read once, not built yet (:class:`~core.backends.registry.LLMSpec`)."""
    from core.backends.llm_guard import LLMSettings
    from core.backends.registry import LLMSpec

    settings = LLMSettings.from_env(timeout=args.llm_timeout, retries=args.llm_retries, budget=args.llm_budget)
    return LLMSpec(args.llm, settings, False if getattr(args, "no_cache", False) else None)


def llm_from_args(args: argparse.Namespace) -> LLM:
    """The ``--llm`` backend under the ``--llm-timeout`` / ``--llm-retries`` / ``--llm-budget`` limits."""
    return llm_spec(args).build()


def resolve_workspace(ref: str, embedder: Embedder) -> Workspace:
    """A workspace by folder path, by name under $EGX_HOME/workspaces, or a sample by name
    (:func:`core.index.listing.find_workspace`), its indexing or build drawn as a terminal bar."""
    from core.index.listing import find_workspace

    return find_workspace(ref, embedder, bars=progress_bar)
