"""``egx train-reg``: train ReG's retriever (ReG@Triple, or ReG@Entity with ``--unit entity``) on a workspace's questions.

A method package's ``commands`` module is found by :func:`core.methods.registry.method_commands`,
which adds it to ``egx``: ``NAME``, ``add_parser(subparsers)`` returning its parser and
``run(args) -> int``. Imported only when ``egx`` builds its parser, so ``import core.methods.reg``
stays free of command-line code.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from core.backends.registry import DEFAULT_EMBEDDER
from core.cli_support import add_llm_limits, llm_from_args, output_folder_arg, progress_bar, resolve_workspace

if TYPE_CHECKING:
    from core.cli_support import Subparsers

NAME = "train-reg"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    tr = subparsers.add_parser(NAME, help="train the ReG@Triple retriever on weak or LLM-refined supervision",
                               description="ReG §4.1 / App. D-E: candidate pool, compression, LLM selection (refined) "
                                           "or shortest paths (weak); an MLP triple scorer with DDE; held-out recall.")
    tr.add_argument("--workspace", required=True, help="workspace folder, name, or sample (e.g. musique)")
    tr.add_argument("--questions", help="questions with answers (JSON list; MuSiQue format works); default: the "
                                        "workspace's own questions file")
    tr.add_argument("--supervision", choices=("weak", "refined"),
                    help="'refined' = ReG's S(I): the LLM selects the supervision (§4.1); 'weak' = query→answer "
                         "shortest paths, the paper's 'w/o S(I)' ablation. Default: refined when --llm names an "
                         "LLM, else weak")
    tr.add_argument("--unit", choices=("triple", "entity"), default="triple",
                    help="retrieval unit (ReG App. E): 'triple' = ReG@Triple (MLP), 'entity' = ReG@Entity (PNA GNN; "
                         "default folder <workspace>/reg/retriever-entity, used with the method's retriever='entity')")
    tr.add_argument("--llm", default="none", help="LLM for refined supervision (local, local-small, openai)")
    tr.add_argument("--selection", choices=("auto", "stepwise", "one-shot"), default="auto",
                    help="how refined supervision asks the LLM: 'one-shot' = App. F's single prompt; 'stepwise' = two "
                         "grammar-constrained choices for small local models; 'auto' = stepwise for local models")
    add_llm_limits(tr)
    tr.add_argument("--cosine-residual", action="store_true",
                    help="ours, not the paper's: learn a correction to the query–triple cosine instead of the "
                         "whole score (TrainConfig.cosine_residual)")
    tr.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    output_folder_arg(tr, "--out", what="model folder", ours=_model_folder,
                      help="model folder: new, empty, or one egx train-reg wrote (default <workspace>/reg/retriever, "
                           "which `egx ask --method reg` uses)")
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--hold-out-first", type=int, default=0, metavar="N",
                    help="hold the first N questions (file order) out as the test split, never trained or validated "
                         "on, and draw train / validation from the rest — so `egx bench --limit N` and recordings "
                         "of those questions test the model on questions it never saw (default 0: a seeded "
                         "60/20/20 split of all questions)")
    tr.add_argument("--use-anyway", action="store_true",
                    help="install the new model even when it loses on the held-out split to the untrained cosine "
                         "scorer or to the retriever active now (default: such a model is kept aside in "
                         "<folder>-kept-aside and the active scorer stays)")
    tr.add_argument("--epochs", type=int, default=80, help="training epochs (ReG App. E: 80)")
    tr.add_argument("--limit", type=int, help="use only the first N questions")
    tr.add_argument("--json", action="store_true", help="print the result (curves, held-out metrics) as JSON")
    return tr


def _model_folder(folder: Path) -> bool:
    from core.methods.reg.retriever import is_model_folder

    return is_model_folder(folder)


def run(args: argparse.Namespace) -> int:
    from core.backends.registry import get_embedder
    from core.methods.base import Backends
    from core.methods.reg.config import TrainConfig
    from core.methods.reg.train import train_reg
    from core.methods.reg.train_entity import train_reg_entity

    embedder = get_embedder(args.embedder)
    llm = llm_from_args(args)
    if args.supervision is None:
        args.supervision = "refined" if llm.available else "weak"
    if args.supervision == "refined" and not llm.available:
        from core.errors import ConfigError

        raise ConfigError("--supervision refined needs an LLM to select the supervision (ReG §4.1); with --llm none "
                          "it would be weak supervision saved as refined. Pass --llm local, local-small or openai, "
                          "or use --supervision weak.")
    ws = resolve_workspace(args.workspace, embedder)
    questions = args.questions or ws.questions_path
    if questions is None:
        raise SystemExit(f"egx train-reg: workspace {ws.name!r} has no questions file; pass --questions FILE")
    cfg = TrainConfig(supervision=args.supervision, selection=args.selection, seed=args.seed, epochs=args.epochs,
                      cosine_residual=args.cosine_residual, hold_out_first=args.hold_out_first)
    train = train_reg_entity if args.unit == "entity" else train_reg
    res = train(ws, questions, backends=Backends(embedder, llm), cfg=cfg, out=args.out, limit=args.limit,
                progress=progress_bar("train-reg"), use_anyway=args.use_anyway)
    if args.json:
        print(json.dumps(res.to_dict(), indent=2, default=str))
        return 0
    k = cfg.recall_k
    print(f"Trained ReG@{args.unit.title()} ({res.supervision} supervision) on {res.counts.get('train_examples', 0)} "
          f"questions ({res.counts.get('val_examples', 0)} validation, {res.counts.get('test_examples', 0)} test held out); "
          f"best epoch {res.best_epoch}, {res.seconds:.1f} s on {res.device}.")
    rows = [("trained", res.test), ("cosine baseline", res.baseline_test)]
    if res.current_test:
        rows.append(("current retriever", res.current_test))
    for name, m in rows:
        print(f"  test {name:<17} label recall@{k} {m['label_recall']:.3f}  gold-passage triple recall@{k} "
              f"{m['gold_passage_recall']:.3f}  answer hit@{k} {m['answer_hit']:.3f}")
    if res.kept_aside:
        print(f"Not installed: {res.verdict}. The active scorer is unchanged; the new model is kept aside in "
              f"{res.model_dir}. To install it anyway, rerun with --use-anyway (or use the \"Use it anyway\" button "
              "in the Train panel of the Evidence chains page).")
        return 0
    print(f"Saved to {res.model_dir} ({res.verdict}).")
    return 0
