"""``egx make-erqa``: ERQA-style multi-constraint questions from a KG, SG-RAG's evaluation data
(sg_rag.txt §5.1, Appendix G). The generators are evaluation code (:mod:`core.eval.erqa`,
:mod:`core.eval.erqa_paraphrase`), which sits on the methods, so this command is the CLI's own rather
than SG-RAG's: a method package may not import :mod:`core.eval`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from core.cli_support import add_llm_limits, llm_from_args, output_file_arg

if TYPE_CHECKING:
    from core.cli_support import Subparsers

NAME = "make-erqa"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    e = subparsers.add_parser(NAME, help="generate ERQA-style multi-constraint questions from a KG (SG-RAG App. G)")
    e.add_argument("--kg", required=True, help="a named-KG folder (UMLS/FB15k-237 layout), a triples file, or a workspace")
    e.add_argument("--n", type=int, default=200, help="number of questions")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--min-degree", type=int, default=8, help="star nodes have at least this many neighbours")
    e.add_argument("--style", choices=("template", "paraphrase"), default="template",
                   help="template: the paper's bridge-star questions quoting KG names (App. G); paraphrase: questions "
                        "worded from a lexicon of natural phrasings of FB15k-237 relations, with answer sets "
                        "computed by brute force over the whole KG")
    e.add_argument("--max-answers", type=int, default=None,
                   help="accept questions with up to this many gold answers (template default 1, dense KGs such as "
                        "UMLS need 2-3; paraphrase default 10)")
    e.add_argument("--relations", help="paraphrase: comma-separated Freebase relation paths to draw constraints from "
                                       "(default: every relation of the lexicon)")
    e.add_argument("--llm", default="none", help="none (template text) or an LLM to polish the template questions")
    add_llm_limits(e)
    output_file_arg(e, "--out", required=True, example="questions.json", help="output questions JSON")
    return e


def run(args: argparse.Namespace) -> int:
    """SG-RAG App. G: bridge-star questions with gold answers from a KG folder or workspace
    (``--style template``), or paraphrased questions with oracle answer sets (``--style paraphrase``,
    :mod:`core.eval.erqa_paraphrase`): template questions quote exact KG names and have one answer by
    construction, so they cannot test how a method links natural wording to the graph."""
    from core.graph.formats.load import load_inputs

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
        out = write_paraphrased(pq, args.out, flag="--out")
        sizes = [len(q.answers) for q in pq]
        print(f"Wrote {len(pq)} paraphrased questions (seed {args.seed}) {kg} to {out}; answer sets of "
              f"{min(sizes, default=0)}-{max(sizes, default=0)} answers, {sum(s > 1 for s in sizes)} with more than one"
              + ("" if len(pq) == args.n else f" — only {len(pq)} of {args.n} could be built; raise --max-answers"))
        return 0
    from core.eval.erqa import build_erqa, write_erqa

    llm = llm_from_args(args) if args.llm != "none" else None
    qs = build_erqa(graph, args.n, seed=args.seed, min_degree=args.min_degree, max_answers=args.max_answers or 1,
                    llm=llm)
    out = write_erqa(qs, args.out, flag="--out")
    print(f"Wrote {len(qs)} bridge-star questions (seed {args.seed}) {kg} to {out}"
          + ("" if len(qs) == args.n else f" — only {len(qs)} of {args.n} could be built; lower --min-degree"))
    return 0
