"""ReG supervision and retriever on MuSiQue: compression (Table 1), weak vs refined labels, held-out recall@K.

For every question with an answer: the candidate pool (D.1), its compression (D.2, reported like the
paper's Table 1: mean / max candidates before and after, ratio) and, with ``--llm``, the LLM
selection (D.3; cached in ``<workspace>/reg/selections-<model>-<form>-<prompts>.json``, so a rerun reuses it). Then
the ReG@Triple retriever is trained on weak labels and, with ``--llm``, on refined labels with the
same seeded split, and both are evaluated on the same held-out test questions together with the
untrained cosine scorer (the baseline of the same run).

Each trained model and the cosine scorer are also run as the ``reg`` method (retrieval only, ``none`` LLM)
on the held-out test questions: passage R@5 against the gold supporting passages.

Usage: python benchmarks/reg_retriever.py [--llm local] [--selection auto] [--limit N] [--seeds 0 1 2] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def bench_workspace(src: Path) -> Path:
    """A private copy of the MuSiQue test sample (so training runs never land in the tests' cache)."""
    dst = ROOT / ".cache" / "reg-bench" / src.name
    if not (dst / "manifest.json").exists():
        shutil.copytree(src, dst, dirs_exist_ok=True)
    return dst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", default=str(ROOT / ".cache" / "test-samples" / "musique"))
    ap.add_argument("--questions", default=str(ROOT.parent / "shared" / "data" / "hipporag_musique_train100" /
                                               "musique_train.json"))
    ap.add_argument("--llm", default="none", help="LLM for refined supervision (none = weak only)")
    ap.add_argument("--selection", default="auto", choices=("auto", "stepwise", "one-shot"),
                    help="how refined supervision asks the LLM (TrainConfig.selection)")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--cosine-residual", action="store_true",
                    help="also train with TrainConfig.cosine_residual (ours), on refined labels (weak without an LLM)")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--epochs", type=int, default=80, help="training epochs (default: App. E's 80, as TrainConfig)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--supervision-only", action="store_true", help="build (and cache) supervision, skip training")
    ap.add_argument("--out")
    args = ap.parse_args()

    from core.backends.registry import get_embedder, get_llm
    from core.fsio import atomic_write_json
    from core.index.workspace import Workspace
    from core.methods.base import Backends
    from core.methods.reg.config import TrainConfig
    from core.methods.reg.supervision import build_supervision, load_qa
    from core.methods.reg.train import selection_how, selections_file, train_reg

    ws = Workspace.open(bench_workspace(Path(args.workspace)))
    emb = get_embedder(args.embedder)
    llm = get_llm(args.llm)
    ws.ensure_index(emb)
    g = ws.graph
    items = load_qa(args.questions, g)[: args.limit] if args.limit else load_qa(args.questions, g)
    out: dict = {"workspace": ws.name, "questions": len(items), "llm": llm.model_id, "embedder": emb.model_id}

    # ---- supervision: Table 1 analogue + weak vs refined label sets
    how = selection_how(args.selection, llm)
    out["selection"] = how if llm.available else ""
    cache_path = ws.path / "reg" / selections_file(llm.model_id, how)
    store = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    raw, comp, t_llm, n_llm, n_fb, sizes, jacc, fb_why = [], [], 0.0, 0, 0, [], [], {}
    node_vecs = ws.index("nodes").vectors
    for i, it in enumerate(items):
        t0 = time.perf_counter()
        s = build_supervision(it, g, llm, embedder=emb, node_vectors=node_vecs, refine=llm.available, how=how,
                              cached=store.get(it.qid))
        if llm.available and it.qid not in store and s.compression.candidates:
            store[it.qid] = s.to_dict()
            atomic_write_json(cache_path, store)
            t_llm += time.perf_counter() - t0
        if not s.pool.paths:
            continue
        raw.append(s.compression.raw)
        comp.append(len(s.compression.candidates))
        if llm.available and s.compression.candidates:
            if s.selection.mode == "llm":
                n_llm += 1
                w, r = set(s.weak), set(s.refined)
                sizes.append((len(w), len(r)))
                jacc.append(len(w & r) / len(w | r) if w | r else 1.0)
            else:
                n_fb += 1
                key = s.selection.fallback.split(";")[0][:60]
                fb_why[key] = fb_why.get(key, 0) + 1
        print(f"\rsupervision {i + 1}/{len(items)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    ratios = [c / r for c, r in zip(comp, raw) if r]
    out["compression"] = {"questions_with_candidates": len(raw), "raw_mean": statistics.mean(raw) if raw else 0,
                          "raw_max": max(raw, default=0), "compressed_mean": statistics.mean(comp) if comp else 0,
                          "compressed_max": max(comp, default=0),
                          "ratio_of_means": (sum(comp) / sum(raw)) if raw else None,
                          "mean_ratio": statistics.mean(ratios) if ratios else None}
    if llm.available:
        out["refinement"] = {"selected_by_llm": n_llm, "fell_back_to_weak": n_fb, "fallback_reasons": fb_why,
                             "llm_seconds_this_run": round(t_llm, 1),
                             "mean_weak_triples": statistics.mean(w for w, _ in sizes) if sizes else None,
                             "mean_refined_triples": statistics.mean(r for _, r in sizes) if sizes else None,
                             "mean_jaccard_weak_refined": statistics.mean(jacc) if jacc else None}
    print(json.dumps({k: out[k] for k in ("compression", "refinement") if k in out}, indent=1))
    if args.supervision_only:
        _write(out, args.out)
        return

    # ---- training: weak (and refined) with the same split per seed
    runs, cos_r5 = [], {}
    kinds = ["weak"] + (["refined"] if llm.available else [])
    # the residual (ours) is trained on the best supervision there is: refined with an LLM, else weak
    variants = [(k, False) for k in kinds] + ([(kinds[-1], True)] if args.cosine_residual else [])
    for seed in args.seeds:
        for kind, residual in variants:
            cfg = TrainConfig(supervision=kind, selection=args.selection, seed=seed, epochs=args.epochs,
                              cosine_residual=residual)
            name = f"{kind}{'-residual' if residual else ''}-seed{seed}"
            res = train_reg(ws, args.questions, backends=Backends(emb, llm), cfg=cfg, limit=args.limit,
                            out=ws.path / "reg" / name)
            test_items = [it for it in items if it.qid in set(res.split["test"])]
            r5 = passage_recall(ws, emb, test_items, ws.path / "reg" / name)
            if seed not in cos_r5:  # the split is the seed's: one cosine figure per seed
                cos_r5[seed] = passage_recall(ws, emb, test_items, ws.path / "reg" / "no-model")
            r5_cos = cos_r5[seed]
            runs.append({"supervision": kind, "cosine_residual": residual, "seed": seed, "best_epoch": res.best_epoch, "test": res.test,
                         "cosine_baseline_test": res.baseline_test, "passage_r5": r5, "cosine_passage_r5": r5_cos,
                         "counts": res.counts, "device": res.device,
                         "seconds": round(res.seconds, 1), "curves": res.curves})
            t, b = res.test, res.baseline_test
            print(f"{kind + (' +res' if residual else ''):<12} seed {seed}: test gold-passage recall@{cfg.recall_k} {t['gold_passage_recall']:.3f} "
                  f"(cosine {b['gold_passage_recall']:.3f}), answer hit {t['answer_hit']:.3f} "
                  f"(cosine {b['answer_hit']:.3f}), own-label recall {t['label_recall']:.3f} "
                  f"(cosine {b['label_recall']:.3f}), passage R@5 {r5:.3f} (cosine {r5_cos:.3f}); "
                  f"{res.counts['train_examples']} train / "
                  f"{res.counts['val_examples']} val / {res.counts['test_examples']} test questions")
    out["runs"] = runs
    _write(out, args.out)


def passage_recall(ws, emb, items, model_dir: Path, k: int = 5) -> float:
    """Mean passage R@k of the ``reg`` method (retrieval only, no LLM) with the model in ``model_dir`` (a folder
    without one: the cosine fallback) over the questions that have gold passages."""
    from core.backends.llm import NoLLM
    from core.eval.metrics import recall_at_k
    from core.methods.base import Backends
    from core.methods.reg.config import RegConfig
    from core.methods.run import run_method

    cfg = RegConfig(model=str(model_dir))
    vals = []
    for it in items:
        if not it.gold_chunks:
            continue
        res = run_method("reg", it.question, ws, Backends(emb, NoLLM()), config=cfg)
        vals.append(recall_at_k([c.chunk_id for c in res.ranked_chunks], it.gold_chunks, k))
    return statistics.mean(vals) if vals else float("nan")


def _write(out: dict, path: str | None) -> None:
    if path:
        Path(path).write_text(json.dumps(out, indent=1, default=str), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
