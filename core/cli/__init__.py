"""The ``egx`` command: build and list workspaces, ask, benchmark, start the app.

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
    egx reproduce --paper bubblerag --workspace musique --llm recorded
    egx app --port 8501

One module per command (``workspaces``, ``index``, ``ask``, ``bench``, ``ablate``, ``reproduce``, ``record``,
``make_erqa``, ``samples``, ``app``), each with ``NAME``, ``add_parser(subparsers)`` (its arguments;
returns its parser) and ``run(args) -> int`` (the exit status). A method package's own commands
(ReG's ``train-reg``) live in that package and come from
:func:`core.methods.registry.method_commands`. Shared flags and helpers: :mod:`core.cli_support`
(progress bars, the LLM flags, workspace resolution; usable by the methods' commands) and
:mod:`core.cli.options` (``--ray``, ``--set``, the inputs of bench/ablate).

:func:`main` runs a command and turns an :class:`~core.errors.EgxError` into ``egx: error: ...``
and exit status 2 (a Ctrl-C into 130).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from core.cli import ablate, app, ask, bench, index, make_erqa, record, reproduce, samples, workspaces
from core.cli.app import app_path
from core.cli.ask import summarize
from core.cli.samples import app_embedder, build_samples
from core.cli_support import close_bars, resolve_workspace
from core.errors import EgxError, NoQuestionsError

__all__ = ["app_embedder", "app_path", "build_parser", "build_samples", "main", "resolve_workspace", "summarize"]

#: The CLI's own commands.
COMMANDS: tuple[ModuleType, ...] = (workspaces, index, ask, bench, ablate, reproduce, record, make_erqa, samples, app)

#: The order ``egx --help`` lists the commands in; a method's command not named here comes last.
HELP_ORDER = ("workspaces", "index", "ask", "train-reg", "bench", "ablate", "reproduce", "record", "make-erqa", "samples",
              "app")


def build_parser() -> argparse.ArgumentParser:
    """The ``egx`` parser: the CLI's commands and those the method packages bring."""
    from core.methods.registry import method_commands

    p = argparse.ArgumentParser(prog="egx", description="Evidence Graph Explorer: graph-RAG retrieval you can watch.")
    sub = p.add_subparsers(dest="command", required=True)
    commands = [*COMMANDS, *method_commands()]
    rank = {name: i for i, name in enumerate(HELP_ORDER)}
    for cmd in sorted(commands, key=lambda c: rank.get(c.NAME, len(rank))):  # stable: the rest keep their order
        cmd.add_parser(sub).set_defaults(func=cmd.run)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    command = "egx"
    try:
        # output paths are checked while parsing (core.cli_support.OutputPath): a refusal is an EgxError
        args = build_parser().parse_args(argv)
        command = f"egx {args.command}"
        return int(args.func(args))
    except NoQuestionsError as exc:  # a usage error: said as the commands' own (`egx bench: ...`, exit status 1)
        close_bars(clear=True)
        raise SystemExit(f"{command}: {exc}") from None
    except EgxError as exc:
        close_bars(clear=True)  # the message starts its own line, not after a progress bar
        print(f"egx: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        close_bars(clear=True)
        print("egx: interrupted; nothing was left half-written.", file=sys.stderr)
        return 130
