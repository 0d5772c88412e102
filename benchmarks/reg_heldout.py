"""ReG's retrievers on the questions no model was trained or validated on: triple R@30 and passage R@5.

Per held-out question (the model's manifest ``split.test``; the shipped model holds out the first 20 MuSiQue-sample
questions), the scorers of the ``reg`` method: the given ReG@Triple model (the shipped one is trained on S(I)),
optionally other models trained on the same split (``--compare NAME=DIR``, e.g. the shipped model beside one
retrained on new selections) and a model trained on weak shortest-path labels (the paper's "w/o S(I)"), and the
untrained cosine scorer. Figures (K = 30 triples, 5 passages):

* triple R@30 on the S(I) labels — recall of the question's S(I) triples (``--labels``: by default the selections
  shipped with the sample; the weak labels where the LLM gave none) among the scorer's top 30 of the 3-hop
  neighbourhood, the same target for every scorer; ``--also-labels NAME=FILE`` adds the recall on another
  selections file (``triple_r30_labels_NAME``): a model tends to score best on the labels it was trained on;
* triple R@30 on gold-passage triples — recall of the neighbourhood triples extracted from the gold passages (the
  same target whatever the supervision: the figure training's keep-the-better rule judges on);
* answer hit@30 — whether an answer entity is an end of one of the top 30 triples;
* passage R@5 — the ``reg`` method's top 5 passages (retrieval only, no LLM) against the gold passages.

Every pair of scorers is compared over the questions both have the target for, with the bootstrap interval of
the mean difference (:func:`core.eval.stats.paired_interval`).

Usage (EGX_HOME pointing at the built samples)::

    python benchmarks/reg_heldout.py --model sample_data/musique/reg/retriever [--name S(I)]
        [--compare NAME=DIR ...] [--labels FILE] [--also-labels NAME=FILE ...] [--weak DIR [--train-weak]] --out f.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

K_TRIPLES, K_PASSAGES = 30, 5
METRICS = ("triple_r30_labels", "triple_r30_gold", "answer_hit30", "passage_r5")
RESERVED = ("weak", "cosine")  #: scorer names the script gives itself


def named(text: str) -> tuple[str, str]:
    """``NAME=PATH`` of ``--compare`` and ``--also-labels``."""
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got {text!r}")
    return name.strip(), path.strip()


def label_metric(name: str) -> str:
    """The key of label recall on the ``--also-labels`` set ``name`` (the ``--labels`` set is ``triple_r30_labels``)."""
    return f"triple_r30_labels_{name}"


def recall_at(scores: np.ndarray, target: np.ndarray, k: int) -> float | None:
    """Share of the ``target`` (bool per candidate) among the ``k`` best ``scores``; None without a target."""
    if not target.any():
        return None
    top = np.argsort(-scores, kind="stable")[:k]
    return float(target[top].sum() / target.sum())


def summarise(per: Mapping[str, Mapping[str, Mapping[str, float]]]) -> dict[str, Any]:
    """Means per scorer and metric, and every pair of scorers (in the order given) compared per metric over the
    questions both have a figure for: mean difference ``a − b`` with its 95 % paired bootstrap interval."""
    from core.eval.stats import paired_interval

    out: dict[str, Any] = {"means": {}, "paired": []}
    for name, metrics in per.items():
        out["means"][name] = {m: {"mean": float(np.mean(list(v.values()))) if v else None, "n": len(v)}
                              for m, v in metrics.items()}
    for a, b in itertools.combinations(per, 2):
        for metric in per[a]:
            shared = sorted(set(per[a][metric]) & set(per.get(b, {}).get(metric, {})))
            if not shared:
                continue
            iv = paired_interval([per[a][metric][q] for q in shared], [per[b][metric][q] for q in shared])
            out["paired"].append({"a": a, "b": b, "metric": metric, "n": iv.n, "mean_difference": iv.mean,
                                  "interval": [iv.low, iv.high]})
    return out


def check_splits(test_ids: Sequence[str], folders: Mapping[str, Path]) -> None:
    """Every compared model must hold out exactly the questions scored (its manifest's ``split.test``)."""
    for name, folder in folders.items():
        split = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["split"]["test"]
        if list(split) != list(test_ids):
            hint = "; train it with --train-weak" if name == "weak" else ""
            raise SystemExit(f"the {name} model's test split ({folder}) is not the model's{hint}")


def read_selections(path: Path, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The S(I) selections of a selections file, refused unless made by the model's LLM in its selection form."""
    data = json.loads(path.read_text(encoding="utf-8"))
    prov = data.get("provenance", {})
    if (prov.get("model_id"), prov.get("selection")) != (manifest.get("llm"), manifest.get("selection")):
        raise SystemExit(f"the S(I) selections in {path} were not made by this model's LLM and form: nothing to "
                         "score against")
    return dict(data["selections"])


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(ROOT / "sample_data" / "musique" / "reg" / "retriever"))
    ap.add_argument("--name", default="S(I)", help="the model's name in the output (default S(I))")
    ap.add_argument("--compare", type=named, action="append", default=[], metavar="NAME=DIR",
                    help="another model trained with the same split, scored and paired too (repeatable)")
    ap.add_argument("--labels", default=str(ROOT / "sample_data" / "musique" / "reg" / "selections.json"),
                    help="the S(I) selections file of the label target (default: the sample's shipped one)")
    ap.add_argument("--also-labels", type=named, action="append", default=[], metavar="NAME=FILE",
                    help="another selections file: label recall on it too, as triple_r30_labels_NAME (repeatable)")
    ap.add_argument("--weak", help="folder of a model trained on weak labels with the same split")
    ap.add_argument("--train-weak", action="store_true", help="train it there first (App. E defaults, same split)")
    ap.add_argument("--embedder", default="bge-small")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    names = [args.name, *(n for n, _ in args.compare)]
    if len(set(names)) < len(names) or set(names) & set(RESERVED):
        ap.error(f"scorer names must differ from each other and from {', '.join(RESERVED)}: {names}")

    from core.backends.llm import NoLLM
    from core.backends.registry import get_embedder
    from core.fsio import atomic_write_json
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends
    from core.methods.reg.config import TrainConfig
    from core.methods.reg.supervision import build_supervision, load_qa
    from core.methods.reg.train import make_example, train_reg

    emb = get_embedder(args.embedder)
    ws = ensure_sample_workspace("musique", emb)
    graph = ws.graph
    questions = ws.questions_path
    if questions is None:
        raise SystemExit(f"the sample workspace {ws.path} has no questions file")
    manifest = json.loads((Path(args.model) / "manifest.json").read_text(encoding="utf-8"))
    cfg = manifest["config"]
    test_ids = list(manifest["split"]["test"])
    if args.weak and args.train_weak:
        train_reg(ws, questions, backends=Backends(emb, NoLLM()), out=args.weak,
                  cfg=TrainConfig(supervision="weak", seed=cfg["seed"], hold_out_first=cfg["hold_out_first"],
                                  epochs=cfg["epochs"]))
    models = {args.name: Path(args.model), **{n: Path(d) for n, d in args.compare}}
    if args.weak:
        models["weak"] = Path(args.weak)
    check_splits(test_ids, models)
    scorers = {**models, "cosine": ws.path / "reg" / "no-model-here"}

    items = {it.qid: it for it in load_qa(questions, graph)}
    # the label targets: S(I) selections files, whatever prompts made them (a selection's triples are stored)
    stores = {"triple_r30_labels": read_selections(Path(args.labels), manifest),
              **{label_metric(n): read_selections(Path(f), manifest) for n, f in args.also_labels}}
    ws.ensure_index(emb)
    node_vecs, edge_vecs = ws.index("nodes").vectors, ws.index("edges").vectors
    # embedded in one batch in file order, as training embeds them (an int8 model's vector moves slightly with its
    # batch-mates, enough to reorder near-ties)
    qvecs = dict(zip(items, emb.embed_queries([it.question for it in items.values()])))

    from core.methods.reg.config import RegConfig
    from core.methods.reg.retriever import load_retriever
    from core.methods.run import run_method

    metrics = [*stores, *METRICS[1:]]
    per: dict[str, dict[str, dict[str, float]]] = {s: {m: {} for m in metrics} for s in scorers}
    retrievers = {name: load_retriever(folder, workspace=ws, embedder_id=emb.model_id)
                  for name, folder in models.items()}
    for qid in test_ids:
        it = items[qid]
        qv = np.asarray(qvecs[qid], dtype=np.float32)
        exs = {}
        for metric, store in stores.items():
            sup = build_supervision(it, graph, NoLLM(), embedder=emb, node_vectors=node_vecs, refine=True,
                                    max_len=cfg["max_path_len"], how=manifest.get("selection") or "stepwise",
                                    cached=store.get(qid))
            labels = sup.refined if sup.selection.mode == "llm" else sup.weak
            exs[metric] = make_example(sup, labels, graph, qv, edge_vecs, hops=cfg["hops"],
                                       max_candidates=cfg["max_candidates"])
        ex = exs["triple_r30_labels"]  # the neighbourhood and gold do not depend on the labels
        for name, folder in scorers.items():
            if name == "cosine":
                scores = edge_vecs[ex.edges] @ qv
            else:
                scores = retrievers[name].score(qv, ex.edges, graph, node_vecs, edge_vecs, ex.topic)
            for metric, e in exs.items():
                if (r := recall_at(scores, e.labels, K_TRIPLES)) is not None:
                    per[name][metric][qid] = r
            if (r := recall_at(scores, ex.gold, K_TRIPLES)) is not None:
                per[name]["triple_r30_gold"][qid] = r
            if ex.answers:
                top = ex.edges[np.argsort(-scores, kind="stable")[:K_TRIPLES]]
                ends = set(graph.edge_head[top].tolist()) | set(graph.edge_tail[top].tolist())
                per[name]["answer_hit30"][qid] = float(bool(ends & set(ex.answers)))
            res = run_method("reg", it.question, ws, Backends(emb, NoLLM()),
                             config=RegConfig(model=str(folder), evidence_format="passages"))
            gold = set(it.gold_chunks)
            if gold:
                got = {c.chunk_id for c in res.ranked_chunks[:K_PASSAGES]}
                per[name]["passage_r5"][qid] = len(got & gold) / len(gold)
        print(f"\r{test_ids.index(qid) + 1}/{len(test_ids)}", end="", file=sys.stderr)
    print(file=sys.stderr)

    def shown(p: str) -> str:
        return str(Path(p).resolve().relative_to(ROOT)) if Path(p).resolve().is_relative_to(ROOT) else p

    out: dict[str, Any] = {"model": shown(args.model), "models": {n: shown(str(f)) for n, f in models.items()},
                           "labels": {"triple_r30_labels": shown(args.labels),
                                      **{label_metric(n): shown(f) for n, f in args.also_labels}},
                           "held_out_questions": len(test_ids), **summarise(per), "per_question": per}
    for name, means in out["means"].items():
        print(name, {m: (round(v["mean"], 3) if v["mean"] is not None else None, v["n"]) for m, v in means.items()})
    for p in out["paired"]:
        print(f"{p['a']} − {p['b']} {p['metric']}: {p['mean_difference']:+.3f} "
              f"[{p['interval'][0]:+.3f}, {p['interval'][1]:+.3f}] (n = {p['n']})")
    if args.out:
        atomic_write_json(Path(args.out), out)


if __name__ == "__main__":
    main()
