"""ReG's retrievers on the questions no model was trained or validated on: triple R@30 and passage R@5.

Per held-out question (the model's manifest ``split.test``; the shipped model holds out the first 20 MuSiQue-sample
questions), three scorers of the ``reg`` method: the given ReG@Triple model (the shipped one is trained on S(I)),
optionally a model trained on weak shortest-path labels on the same split (the paper's "w/o S(I)"), and the
untrained cosine scorer. Figures (K = 30 triples, 5 passages):

* triple R@30 on the S(I) labels — recall of the question's S(I) triples (the shipped selections; the weak labels
  where the LLM gave none) among the scorer's top 30 of the 3-hop neighbourhood, the same target for every scorer;
* triple R@30 on gold-passage triples — recall of the neighbourhood triples extracted from the gold passages;
* passage R@5 — the ``reg`` method's top 5 passages (retrieval only, no LLM) against the gold passages.

Each comparison is paired over the questions both scorers have the target for, with the bootstrap interval of
the mean difference (:func:`core.eval.stats.paired_interval`).

Usage (EGX_HOME pointing at the built samples)::

    python benchmarks/reg_heldout.py --model sample_data/musique/reg/retriever [--weak DIR [--train-weak]] --out f.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

K_TRIPLES, K_PASSAGES = 30, 5


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(ROOT / "sample_data" / "musique" / "reg" / "retriever"))
    ap.add_argument("--weak", help="folder of a model trained on weak labels with the same split")
    ap.add_argument("--train-weak", action="store_true", help="train it there first (App. E defaults, same split)")
    ap.add_argument("--embedder", default="bge-small")
    ap.add_argument("--out")
    args = ap.parse_args()

    from core.backends.llm import NoLLM
    from core.backends.registry import get_embedder
    from core.eval.stats import paired_interval
    from core.fsio import atomic_write_json
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends
    from core.methods.reg.config import TrainConfig
    from core.methods.reg.supervision import build_supervision, load_qa
    from core.methods.reg.train import make_example, train_reg

    emb = get_embedder(args.embedder)
    ws = ensure_sample_workspace("musique", emb)
    graph = ws.graph
    manifest = json.loads((Path(args.model) / "manifest.json").read_text(encoding="utf-8"))
    cfg = manifest["config"]
    test_ids = list(manifest["split"]["test"])
    if args.weak and args.train_weak:
        train_reg(ws, ws.questions_path, backends=Backends(emb, NoLLM()), out=args.weak,
                  cfg=TrainConfig(supervision="weak", seed=cfg["seed"], hold_out_first=cfg["hold_out_first"],
                                  epochs=cfg["epochs"]))
    scorers = {"S(I)": Path(args.model), "cosine": ws.path / "reg" / "no-model-here"}
    if args.weak:
        weak_split = json.loads((Path(args.weak) / "manifest.json").read_text(encoding="utf-8"))["split"]["test"]
        if weak_split != test_ids:
            raise SystemExit("the weak model's test split is not the model's; train it with --train-weak")
        scorers["weak"] = Path(args.weak)

    items = {it.qid: it for it in load_qa(ws.questions_path, graph)}
    # the S(I) the shipped model was trained on: the sample's selections file, whatever prompts made them
    shipped = json.loads((ROOT / "sample_data" / "musique" / "reg" / "selections.json").read_text(encoding="utf-8"))
    prov = shipped.get("provenance", {})
    if (prov.get("model_id"), prov.get("selection")) != (manifest.get("llm"), manifest.get("selection")):
        raise SystemExit("the shipped S(I) selections were not made by this model's LLM and form: nothing to score "
                         "against")
    store = shipped["selections"]
    ws.ensure_index(emb)
    node_vecs, edge_vecs = ws.index("nodes").vectors, ws.index("edges").vectors
    # embedded in one batch in file order, as training embeds them (an int8 model's vector moves slightly with its
    # batch-mates, enough to reorder near-ties)
    qvecs = dict(zip(items, emb.embed_queries([it.question for it in items.values()])))

    from core.methods.reg.config import RegConfig
    from core.methods.reg.retriever import load_retriever
    from core.methods.run import run_method

    per: dict[str, dict[str, dict[str, float]]] = {s: {"triple_r30_labels": {}, "triple_r30_gold": {},
                                                       "passage_r5": {}} for s in scorers}
    for qid in test_ids:
        it = items[qid]
        sup = build_supervision(it, graph, NoLLM(), embedder=emb, node_vectors=node_vecs, refine=True,
                                max_len=cfg["max_path_len"], how=manifest.get("selection") or "stepwise",
                                cached=store.get(qid))
        labels = sup.refined if sup.selection.mode == "llm" else sup.weak
        qv = np.asarray(qvecs[qid], dtype=np.float32)
        ex = make_example(sup, labels, graph, qv, edge_vecs, hops=cfg["hops"], max_candidates=cfg["max_candidates"])
        for name, folder in scorers.items():
            if name == "cosine":
                scores = edge_vecs[ex.edges] @ qv
            else:
                ret = load_retriever(folder, workspace=ws, embedder_id=emb.model_id)
                scores = ret.score(qv, ex.edges, graph, node_vecs, edge_vecs, ex.topic)
            top = np.argsort(-scores, kind="stable")[:K_TRIPLES]
            if ex.labels.any():
                per[name]["triple_r30_labels"][qid] = float(ex.labels[top].sum() / ex.labels.sum())
            if ex.gold.any():
                per[name]["triple_r30_gold"][qid] = float(ex.gold[top].sum() / ex.gold.sum())
            res = run_method("reg", it.question, ws, Backends(emb, NoLLM()),
                             config=RegConfig(model=str(folder), evidence_format="passages"))
            gold = set(it.gold_chunks)
            if gold:
                got = {c.chunk_id for c in res.ranked_chunks[:K_PASSAGES]}
                per[name]["passage_r5"][qid] = len(got & gold) / len(gold)
        print(f"\r{test_ids.index(qid) + 1}/{len(test_ids)}", end="", file=sys.stderr)
    print(file=sys.stderr)

    out: dict = {"model": str(Path(args.model).relative_to(ROOT)) if Path(args.model).is_relative_to(ROOT)
                 else args.model, "held_out_questions": len(test_ids), "means": {}, "paired": []}
    for name in scorers:
        out["means"][name] = {m: {"mean": float(np.mean(list(v.values()))) if v else None, "n": len(v)}
                              for m, v in per[name].items()}
    pairs = [("S(I)", "cosine")] + ([("weak", "cosine"), ("S(I)", "weak")] if "weak" in scorers else [])
    for a, b in pairs:
        for metric in ("triple_r30_labels", "triple_r30_gold", "passage_r5"):
            shared = sorted(set(per[a][metric]) & set(per[b][metric]))
            iv = paired_interval([per[a][metric][q] for q in shared], [per[b][metric][q] for q in shared])
            out["paired"].append({"a": a, "b": b, "metric": metric, "n": iv.n, "mean_difference": iv.mean,
                                  "interval": [iv.low, iv.high]})
    out["per_question"] = per
    for name, means in out["means"].items():
        print(name, {m: (round(v["mean"], 3) if v["mean"] is not None else None, v["n"]) for m, v in means.items()})
    for p in out["paired"]:
        print(f"{p['a']} − {p['b']} {p['metric']}: {p['mean_difference']:+.3f} "
              f"[{p['interval'][0]:+.3f}, {p['interval'][1]:+.3f}] (n = {p['n']})")
    if args.out:
        atomic_write_json(Path(args.out), out)


if __name__ == "__main__":
    main()
