"""BubbleRAG's answer context (§3.6) vs our "+dense fill" options and the §4.3 "w/o CEG ranking" row, on
the MuSiQue sample in `none` mode. Every question runs BubbleRAG once with the paper's
defaults; the "+preview fill" and "+dense fill" rows re-rank the chunks of that same G_final
(`rank_evidence_chunks`), the "w/o CEG ranking" row runs again with `ceg_ranking=False`, and dense
retrieval runs on the same workspace. Prints R@2/R@5/R@10 per row (percentages).

Usage: python benchmarks/bubblerag_context.py [--embedder minilm] [--root .cache/test-samples] [--limit N]
       [--out f.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from core.backends.registry import get_embedder, get_llm
from core.eval.metrics import recall_at_k
from core.index.samples import ensure_sample_workspace
from core.methods.base import Backends
from core.methods.baselines.dense import run as dense_run
from core.methods.bubblerag import BubbleConfig, run
from core.methods.bubblerag.answer import rank_evidence_chunks

ROWS = ("paper (G_final's chunks)", "+ preview fill", "+ dense fill (interleave)", "w/o CEG ranking", "dense")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--root", default=".cache/test-samples")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--out")
    a = ap.parse_args()
    emb = get_embedder(a.embedder)
    ws = ensure_sample_workspace("musique", emb, root=Path(a.root))
    qs = json.loads(ws.questions_path.read_text())[: a.limit]
    b = Backends(emb, get_llm("none"))
    by_content = {(c.title, c.text): c.id for c in ws.graph.chunks}
    cv = ws.index("chunks").vectors
    rec: dict[str, list[list[float]]] = {r: [] for r in ROWS}
    for q in qs:
        gold = {by_content[(p["title"], p["paragraph_text"])] for p in q["paragraphs"] if p["is_supporting"]}
        r = run(q["question"], ws, backends=b)
        ids = [c.chunk_id for c in r.ranked_chunks]
        qv = b.embed_query(q["question"])

        def again(ranking: str, fill: bool, _r=r, _ids=ids, _qv=qv) -> list[str]:
            if _r.evidence is None:  # an early exit has no G_final to re-rank
                return _ids
            return [c.chunk_id for c in rank_evidence_chunks(_r.evidence, ws.graph, cv, _qv, _r.pre.chunk_ids,
                                                             ranking=ranking, fill_with_preview=fill)]

        lists = {ROWS[0]: ids, ROWS[1]: again("support", True), ROWS[2]: again("interleave", False),
                 ROWS[3]: [c.chunk_id for c in run(q["question"], ws, config=BubbleConfig(ceg_ranking=False),
                                                   backends=b).ranked_chunks],
                 ROWS[4]: [c.chunk_id for c in dense_run(q["question"], ws, backends=b).ranked_chunks]}
        for name, ranked in lists.items():
            rec[name].append([recall_at_k(ranked, gold, k) for k in (2, 5, 10)])
    table = {name: dict(zip(("R@2", "R@5", "R@10"), (round(100 * float(x), 1) for x in np.mean(v, axis=0))))
             for name, v in rec.items()}
    print(f"{len(qs)} questions, embedder {a.embedder}, none mode")
    for name, m in table.items():
        print(f"  {name:<28} R@2 {m['R@2']:5.1f}  R@5 {m['R@5']:5.1f}  R@10 {m['R@10']:5.1f}")
    if a.out:
        Path(a.out).write_text(json.dumps({"questions": len(qs), "embedder": a.embedder, "rows": table}, indent=1))


if __name__ == "__main__":
    main()
