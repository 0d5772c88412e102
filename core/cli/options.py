"""Options and inputs several ``egx`` commands share and no method's own command needs: ``--ray``,
``--set`` pairs, output files checked up front, and the inputs of ``egx bench`` / ``egx ablate``.
(The LLM flags, progress bars and workspace resolution are in :mod:`core.cli_support`.)"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.cli_support import llm_from_args, llm_spec, progress_bar

if TYPE_CHECKING:
    from core.backends.registry import LLMSpec
    from core.batch.ray_runner import RayRunner
    from core.index.questions import Question
    from core.index.workspace import Workspace
    from core.methods.base import Backends


def add_ray(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help=f"{what} on Ray (the optional extra: pip install '.[scale]'). No ADDRESS: a local Ray on this "
                        "machine's CPUs; HOST:PORT (the head node's GCS), ray://HOST:10001 (Ray Client) or 'auto': a "
                        "running cluster, whose nodes have this project installed and the workspace at the same path")
    p.add_argument("--ray-workers", type=int, metavar="N",
                   help="Ray actors, each holding the models once (default: one per GPU when the cluster has GPUs, "
                        "else one per CPU)")


def ray_runner(args: argparse.Namespace, llm: LLMSpec) -> RayRunner | None:
    """The Ray runner of ``--ray [ADDRESS]`` / ``--ray-workers N`` (None without --ray), whose workers each build
    ``llm`` (:func:`core.cli_support.llm_spec`); Ray is imported only when it starts (:mod:`core.batch.ray_runner`)."""
    if args.ray is None:
        if args.ray_workers is not None:
            raise SystemExit("egx: --ray-workers applies with --ray [ADDRESS] only")
        return None
    from core.batch.ray_runner import RayRunner

    return RayRunner(args.ray or None, workers=args.ray_workers, llm=llm)


def add_budget(p: argparse.ArgumentParser, *, alone: bool = False) -> None:
    """``--budget NAME|N|Ntok|N,Ntok``: the answer budget every method runs under (:mod:`core.methods.budget`)."""
    from core.methods.budget import BUDGETS

    presets = "; ".join(f"{b.name}: {b.label}" for b in BUDGETS.values())
    p.add_argument("--budget", default="own", metavar="NAME|N|Ntok",
                   help="answer budget: how much evidence " + ("the method hands" if alone else "every method hands")
                        + f" to its answer. Presets ({presets}); or N chunks (10), N tokens (1500tok), or both "
                          "(10,1500tok). Default own: each method's paper default"
                        + ("" if alone else "; the failure diagnosis' cut follows the budget's chunk count"))


def budget_cut(cut: int | None, chunks: int | None) -> int:
    """``--cut`` (``cut``), or when not given the budget's chunk count (the gold must be within what the answer may
    see), else 5."""
    return int(cut) if cut is not None else (chunks or 5)


def config_changes(pairs: Sequence[str]) -> dict[str, object]:
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


def method_configs(pairs: Sequence[str], methods: Sequence[str], *, node_level: bool = False) -> dict[str, Any]:
    """``--set METHOD.NAME=VALUE`` pairs (e.g. ``fastinsight.graph=passages``) as one config per method,
    each the method's defaults with the changes applied and checked.

    ``node_level`` (``egx bench --node-level``) also turns ``node_level`` on for every method in ``methods`` whose
    config has that setting (the others rank KG nodes without being asked, or cannot); a ``--set
    METHOD.node_level=false`` is overridden, since the flag asks for node-level figures from every method.
    Recorded in the run's settings like ``--set``, so a resumed run keeps it.

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
        changes.setdefault(method, {}).update(config_changes([f"{name}={pair.partition('=')[2]}"]))
    out = {m: get_method(m).make_config(**c) for m, c in changes.items()}
    for m in methods if node_level else ():
        spec = get_method(m)
        if spec.has_option("node_level"):
            out[m] = replace(out.get(m) or spec.make_config(), node_level=True)
    return out


def writable_file(name: str, flag: str) -> Path:
    """``name`` as an output file path, checked now (:func:`core.outputs.check_output_file`), so a long computation
    is never lost to a path that cannot take its output. A new option declares its path with
    :func:`core.cli_support.output_file_arg` instead, which checks it while the arguments are parsed.

    Raises
    ------
    OutputPathError
        When the path is a folder, a device, a named pipe, a socket or a symbolic link, or its folder
        cannot be written to.
    """
    from core.outputs import check_output_file

    return check_output_file(name, flag=flag, example="trace.json")


def bench_inputs(args: argparse.Namespace, specs: Sequence[Any]) -> tuple[Workspace, list[Question], Backends]:
    """The workspace, questions and backends of `egx ablate` / `egx reproduce` (:func:`core.eval.request.
    open_inputs`: the reranker only when a method needs it, or as the no-LLM answer's extractive scorer)."""
    from core.backends.registry import get_embedder
    from core.eval.request import open_inputs

    embedder = get_embedder(args.embedder)
    return open_inputs(args.workspace, args.questions, specs, embedder, llm_from_args(args), args.reranker,
                       bars=progress_bar)


def add_resume(p: argparse.ArgumentParser, what: str = "--out") -> None:
    """``--restart`` and ``--resume-unverified`` of `egx bench` / `egx ablate`: what to do with a run folder
    whose run cannot simply be resumed (:mod:`core.eval.identity`)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--restart", action="store_true",
                   help=f"replace the run {what} holds (when the workspace, a trained model or a setting changed "
                        "since) with a fresh one; the old results stay in place until the new run.json is written")
    g.add_argument("--resume-unverified", action="store_true",
                   help=f"resume a run {what} holds that was saved before runs recorded the workspace's content and "
                        "trained models, although nothing can tell whether they changed since (its results may be "
                        "stale)")


def add_keep_trained(p: argparse.ArgumentParser) -> None:
    """``--keep-trained``: keep the questions a method's trained model learned from (left out by default)."""
    p.add_argument("--keep-trained", action="store_true",
                   help="keep the questions a method's trained model (ReG's retriever) was trained or validated on; "
                        "by default they are left out, since a model's figures on its own training questions are "
                        "inflated. Kept, each such row is flagged 'trained on' in the report, summary and triage")


KEEP_TRAINED_HINT = "(--keep-trained keeps them, each row flagged)"


def add_judge(p: argparse.ArgumentParser) -> None:
    """``--judge-llm`` and ``--no-judge`` (one or the other) of `egx bench` / `egx ablate`."""
    from core.backends.registry import LLMS

    g = p.add_mutually_exclusive_group()
    g.add_argument("--judge-llm", metavar="NAME", choices=[n for n in LLMS if n != "none"] + ["same"],
                   help="the LLM that judges the answers for the papers' LLM-judged metrics (ACC_L, Emp.S, "
                        "FastInsight's pairwise win rate): " + ", ".join(n for n in LLMS if n != "none")
                        + ", or `same` (the generator judges itself; the run is labelled self-judged). "
                          "Default: no judge, and those metrics are not computed")
    g.add_argument("--no-judge", action="store_true",
                   help="no judge (the default): the LLM-judged metrics are not computed")


def judge_from_args(args: argparse.Namespace, generator: Any) -> Any:
    """The run's :class:`~core.eval.judge_choice.Judge` (None without ``--judge-llm``), under the same
    ``--llm-timeout`` / ``--llm-retries`` / ``--llm-budget`` limits as the generator."""
    from core.eval.judge_choice import choose_judge

    if getattr(args, "no_judge", False) or not getattr(args, "judge_llm", None):
        return None
    return choose_judge(args.judge_llm, generator, build=llm_spec(args).build)
