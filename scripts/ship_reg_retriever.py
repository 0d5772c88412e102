"""Ship ReG's retriever with the samples: S(I) selections + a ReG@Triple model trained on them.

ReG's retriever is trained on LLM-refined supervision S(I) (§4.1); without a shipped model, ``reg`` on the
samples would be the untrained cosine scorer. This script, run once by a maintainer with the local model,

1. makes (or reads from the workspace's cache, or from the selections already shipped — then no LLM is asked)
   the S(I) selections of every MuSiQue-sample question with a query→answer path — ``egx train-reg``'s
   supervision step, resumable — and writes them with their provenance (model, GGUF hash, selection form,
   prompt hash, graph hash, date, machine) to ``sample_data/musique/reg/selections.json``, so ``egx train-reg``
   on the sample reuses them without an LLM;
2. trains ReG@Triple on them with the paper's defaults (App. E: 80 epochs, best validation epoch) into
   ``sample_data/musique/reg/retriever/`` (safetensors + manifest + curves). The first 20 questions (file order)
   are the held-out test split (``--hold-out-first``): they are the questions the shipped recordings and
   ``egx bench --limit 20`` evaluate, so the shipped model must never have seen them; train and validation
   (60 / 20, split seed 0) come from the other 80. The script refuses to ship a model whose train or validation
   split holds a question of a shipped MuSiQue recording;
3. ships the same weights for the demo sample (``sample_data/demo/reg/retriever/``): its five questions are
   too few to train on, and the scorer's features (query, entity and triple embeddings, DDE) do not depend
   on the graph it was trained on; the manifest says where it was trained.

Usage (EGX_HOME pointing at the built samples): python scripts/ship_reg_retriever.py [--llm local]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--llm", default="local")
    ap.add_argument("--embedder", default="bge-small")
    ap.add_argument("--selection", default="auto", choices=("auto", "stepwise", "one-shot"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hold-out-first", type=int, default=20,
                    help="the first N questions are the test split (default 20: the recorded and `--limit 20` ones)")
    args = ap.parse_args()

    from core.backends.llm_guard import LLMSettings
    from core.backends.registry import get_embedder, get_llm
    from core.batch.recording import provenance
    from core.cli_support import progress_bar
    from core.fsio import atomic_write_json
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends
    from core.methods.reg.config import TrainConfig
    from core.methods.reg.prompts import selection_prompts_sha256
    from core.methods.reg.retriever import MANIFEST_FILE
    from core.methods.reg.train import SELECTIONS_FORMAT, selection_how, selections_file, train_reg

    emb = get_embedder(args.embedder)
    llm = get_llm(args.llm)
    how = selection_how(args.selection, llm)
    ws = ensure_sample_workspace("musique", emb)
    demo = ensure_sample_workspace("demo", emb)
    dest = ROOT / "sample_data" / "musique" / "reg"
    cfg = TrainConfig(supervision="refined", selection=how, seed=args.seed, hold_out_first=args.hold_out_first)
    staging = ws.path / "reg" / "ship"
    res = train_reg(ws, ws.questions_path, backends=Backends(emb, llm), cfg=cfg, out=staging,
                    progress=progress_bar("S(I) + training"))
    leaked = recorded_questions() & (set(res.split["train"]) | set(res.split["val"]))
    if leaked:  # the recordings (and `egx bench --limit 20`) would test the model on questions it learned from
        shutil.rmtree(staging)
        raise SystemExit(f"not shipped: the train / validation split holds {len(leaked)} question(s) of a shipped "
                         f"MuSiQue recording ({', '.join(sorted(leaked)[:5])}); hold them out with --hold-out-first")
    made = ws.path / "reg" / selections_file(llm.model_id, how)
    if made.exists():  # new selections were made here: ship them with this machine's provenance
        cache = json.loads(made.read_text(encoding="utf-8"))
        prov = {**provenance(llm, embedder=args.embedder, reranker="", settings=LLMSettings()), "selection": how,
                "prompts_sha256": selection_prompts_sha256(), "graph_hash": ws.content_hash, "workspace": ws.name}
        dest.mkdir(parents=True, exist_ok=True)
        atomic_write_json(dest / "selections.json", {"format": SELECTIONS_FORMAT, "version": 1, "provenance": prov,
                                                     "selections": cache})
    n = res.counts
    held = (f"the first {args.hold_out_first} questions — the recorded and `egx bench --limit {args.hold_out_first}` "
            "ones — held out as the test split" if args.hold_out_first else "the test split held out")
    trained_on = (f"trained on S(I) of {n.get('train_examples', 0)} MuSiQue-sample questions "
                  f"(split seed {args.seed}; {n.get('val_examples', 0)} validation; {held})")
    for name, target, graph_hash, note in (
            ("musique", dest / "retriever", ws.content_hash, f"shipped with the MuSiQue sample, {trained_on}"),
            ("demo", ROOT / "sample_data" / "demo" / "reg" / "retriever", demo.content_hash,
             f"shipped with the demo sample, {trained_on} (the demo's five questions are too few to train on)")):
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(staging, target)
        mf = target / MANIFEST_FILE
        manifest = json.loads(mf.read_text(encoding="utf-8"))
        manifest.update({"graph_hash": graph_hash, "trained_on_graph": ws.content_hash, "shipped": note})
        atomic_write_json(mf, manifest)
        result = json.loads((target / "result.json").read_text(encoding="utf-8"))
        result["model_dir"] = str(target.relative_to(ROOT))  # no path of this machine in a shipped file
        atomic_write_json(target / "result.json", result)
        print(f"{name}: {target.relative_to(ROOT)}")
    shutil.rmtree(staging)
    t, b = res.test, res.baseline_test
    k = cfg.recall_k
    for name, m in (("trained", t), ("cosine", b)):
        print(f"held-out test ({m['questions']} questions) {name:<8} label recall@{k} {m['label_recall']:.3f} "
              f"({m['with_labels']} with labels)  gold-passage triple recall@{k} {m['gold_passage_recall']:.3f} "
              f"({m['with_gold']} with gold)  answer hit@{k} {m['answer_hit']:.3f}")
    print(n)


def recorded_questions() -> set[str]:
    """The question ids of every shipped MuSiQue recording (``sample_data/llm_recordings/musique-*.json``)."""
    ids: set[str] = set()
    for f in sorted((ROOT / "sample_data" / "llm_recordings").glob("musique-*.json")):
        ids |= {str(r.get("question_id")) for r in json.loads(f.read_text(encoding="utf-8")).get("runs", [])
                if r.get("workspace") == "musique"}
    return ids


if __name__ == "__main__":
    main()
