"""A corpus build with every preparation: the time of each stage, and how honest the progress bars are.

Builds the MuSiQue corpus (``musique_train_corpus.json`` from ``$EGX_SHARED_DATA`` or ``/work/shared/data``: 1,890
passages, no triples, so spaCy extracts them) with bge-small into a temporary workspace, then runs every method's
preparation (``prepare_workspace``: PPR's synonymy pairs, FastInsight's node vectors, SG-RAG's dominance model) —
what ``egx index CORPUS --workspace W --prepare all`` does — in one process, recording every progress report.

Reported:

* each stage's wall seconds (the build's, as the manifest keeps them, and each preparation's);
* **the build bar at each stage's start** against the share of the build's time already spent, for the shipped
  split and, from the same run, for the split the bar had before (spaCy extraction counted at the LLM's 3 s a
  chunk, embedding at half its measured cost): the old bar's reading when embedding began is the "99 %" of the
  report this answers;
* **the preparations' bar** (one bar weighted by the estimates) at each preparation's start against the share
  of the preparations' time spent; before, each preparation drew a bar of its own from 0 to 100 %.

The spaCy triples are extracted cold (a temporary extraction cache), as for a new corpus.

Usage: python benchmarks/build_stages.py [--limit 0] [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: what the bar's split counted before: a spaCy chunk at the LLM extractor's 3 s, embedding at 2e-5 s a character
#: and 1 ms an item
BEFORE = {"spacy": 3.0, "per_char": 2e-5, "per_item": 1e-3}


def _corpus(limit: int, folder: Path) -> Path:
    src = Path(os.environ.get("EGX_SHARED_DATA", "/work/shared/data")) / "hipporag_musique_train100" / \
        "musique_train_corpus.json"
    docs = json.loads(src.read_text(encoding="utf-8"))
    out = folder / "musique_corpus.json"
    out.write_text(json.dumps(docs[:limit] if limit else docs), encoding="utf-8")
    return out


def _at(log: list[tuple[float, float, str]], prefix: str) -> tuple[float, float] | None:
    """(elapsed, bar) of the first report whose message starts with ``prefix``."""
    for t, f, m in log:
        if m.startswith(prefix):
            return t, f
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="first N passages (0 = all 1,890)")
    ap.add_argument("--out")
    args = ap.parse_args()

    from core.backends.registry import get_embedder
    from core.index import create
    from core.index.stages import StageTimes
    from core.methods.run import prepare_workspace

    tmp = Path(tempfile.mkdtemp(prefix="egx_build_stages_"))
    create.cache_dir = lambda: tmp / "cache"  # type: ignore[assignment]  # cold extraction, as for a new corpus
    corpus = _corpus(args.limit, tmp)
    emb = get_embedder("bge-small")
    build_log: list[tuple[float, float, str]] = []
    t0 = time.perf_counter()
    ws = create.create_workspace([corpus], tmp / "ws", embedder=emb,
                                 progress=lambda m, f: build_log.append((time.perf_counter() - t0, f, m)))
    build_s = time.perf_counter() - t0
    g = ws.graph
    # the old split, from this run's graph and the old figures
    from core.graph.formats.load import load_inputs

    loaded = load_inputs([corpus]).graph
    new_split = create._extraction_share(loaded, None, emb, extract=True)
    real = (create.EXTRACT_SECONDS["spacy"], create.EMBED_SECONDS_PER_CHAR, create.EMBED_SECONDS_PER_ITEM)
    create.EXTRACT_SECONDS["spacy"] = BEFORE["spacy"]
    create.EMBED_SECONDS_PER_CHAR, create.EMBED_SECONDS_PER_ITEM = BEFORE["per_char"], BEFORE["per_item"]
    old_split = create._extraction_share(loaded, None, emb, extract=True)
    create.EXTRACT_SECONDS["spacy"], create.EMBED_SECONDS_PER_CHAR, create.EMBED_SECONDS_PER_ITEM = real

    def old_bar(f: float) -> float:  # the same report under the old split: [0.03, split] extraction, then embedding
        lo, hi = create.LOAD_SHARE, new_split
        if f <= lo:
            return f
        if f <= hi:
            return lo + (f - lo) / (hi - lo) * (old_split - lo)
        return old_split + (f - hi) / (1 - hi) * (1 - old_split)

    build = []
    for label, prefix in (("triple extraction", "Extracting triples"), ("index/nodes", "Embedding nodes"),
                          ("index/edges", "Embedding edges"), ("index/chunks", "Embedding chunks")):
        hit = _at(build_log, prefix)
        if hit:
            build.append({"stage": label, "time_share": round(hit[0] / build_s, 3), "bar": round(hit[1], 3),
                          "bar_before": round(old_bar(hit[1]), 3)})
    prep_log: list[tuple[float, float, str]] = []
    times = StageTimes()
    t1 = time.perf_counter()
    prepare_workspace(ws, emb, overall=lambda m, f: prep_log.append((time.perf_counter() - t1, f, m)), times=times)
    prep_s = time.perf_counter() - t1
    prep = []
    spent = 0.0  # a preparation's first report can come late (SG-RAG imports torch first): its start is the end of
    for k, st in enumerate(times.done, 1):  # the one before
        hit = _at(prep_log, f"{k}/{len(times.done)} ")
        if hit:
            prep.append({"stage": st.stage.split(" (")[0], "seconds": round(st.seconds, 1),
                         "time_share": round(spent / prep_s, 3), "bar": round(hit[1], 3)})
        spent += st.seconds
    stages = [dict(r) for r in ws.meta.build_stages] + times.to_list()
    print(f"{g.n_chunks:,} passages -> {g.n_nodes:,} nodes, {g.n_edges:,} edges; build {build_s:.1f} s, "
          f"preparations {prep_s:.1f} s (load {os.getloadavg()[0]:.2f})")
    print("\nstage seconds:")
    for r in stages:
        print(f"  {r['stage'][:60]:<60} {r['seconds']:>8.1f}" + (f"  ({r['items']:,} items)" if r.get("items") else ""))
    print(f"\nbuild bar at each stage's start (split: {new_split:.3f} now, {old_split:.3f} before):")
    for r in build:
        print(f"  {r['stage']:<18} time spent {100 * r['time_share']:5.1f} %   bar now {100 * r['bar']:5.1f} %   "
              f"bar before {100 * r['bar_before']:5.1f} %")
    print("\npreparations' bar at each one's start (before: a bar of its own each, from 0 %):")
    for r in prep:
        print(f"  {r['stage'][:50]:<50} {r['seconds']:>7.1f} s   time spent {100 * r['time_share']:5.1f} %   "
              f"bar {100 * r['bar']:5.1f} %")
    if args.out:
        Path(args.out).write_text(json.dumps({
            "passages": g.n_chunks, "nodes": g.n_nodes, "edges": g.n_edges, "build_s": round(build_s, 1),
            "prepare_s": round(prep_s, 1), "split_now": round(new_split, 4), "split_before": round(old_split, 4),
            "stages": stages, "build_bar": build, "prepare_bar": prep}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
