"""Give a workspace's node and edge texts the vectors a baseline workspace has for the same texts.

Why: the bundled int8 encoder quantizes each batch's activations together (``core/backends/onnx_models.py``), and
batches are formed from length-sorted texts, so adding or removing a few node texts moves most other vectors a
little (MuSiQue spaCy KG v8 → v9: 75 % of the 16,653 unchanged node texts' vectors moved, cosine down to 0.983).
Methods that pick anchors by near-tied cosines (BubbleRAG's five candidates per keyword) then answer differently on
questions whose passages' triples did not change at all. Two extractor versions compared with this step applied to
the newer one differ only by their triples: a text both graphs have gets the baseline's vector, a new text keeps the
vector its own build gave it.

Usage (after ``benchmarks/kg_extractors.py`` built ``NEW/spacy``; then bench a copy with the same command)::

    cp -r NEW/spacy SAME/spacy
    .venv/bin/python benchmarks/same_vectors.py BASE/spacy SAME/spacy
    flock /tmp/egx-cpu.lock .venv/bin/python benchmarks/kg_extractors.py --kgs spacy --skip-timing --root SAME ...

The copy's manifest is left as it is (same content, same rows), so the bench reuses the index.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    import faiss
    import numpy as np

    from core.index.workspace import Workspace

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", type=Path, help="the baseline workspace (its vectors are kept)")
    ap.add_argument("workspace", type=Path, help="the workspace whose index is rewritten")
    args = ap.parse_args()
    base, ws = Workspace.open(args.base), Workspace.open(args.workspace)
    for kind, old, new in (("nodes", base.graph.node_texts, ws.graph.node_texts),
                           ("edges", base.graph.edge_texts, ws.graph.edge_texts)):
        a = faiss.read_index(str(base.index_dir / f"{kind}.faiss"))
        b = faiss.read_index(str(ws.index_dir / f"{kind}.faiss"))
        xa, xb = a.reconstruct_n(0, a.ntotal), b.reconstruct_n(0, b.ntotal)
        row = {t: i for i, t in enumerate(old)}
        same = [(j, row[t]) for j, t in enumerate(new) if t in row]
        for j, i in same:
            xb[j] = xa[i]
        out = faiss.IndexFlatIP(xb.shape[1])
        out.add(np.ascontiguousarray(xb, dtype=np.float32))
        faiss.write_index(out, str(ws.index_dir / f"{kind}.faiss"))
        print(f"{kind}: {len(new)} rows, {len(same)} from the baseline, {len(new) - len(same)} own")


if __name__ == "__main__":
    main()
