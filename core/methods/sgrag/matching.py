"""σ: path-level retrieval through the index (sg_rag.txt §4.3 "Path-level Retrieval", Appendix K,
Algorithm 7), and the exact brute-force matcher that is its oracle.

For every label-complete query path set Q' ∈ P and every p_q ∈ Q': o_0(p_q) is the label sequence,
o(p_q) concatenates ℳ's embedding of each query node's star *in the query graph* (centre label +
its query neighbours' labels). A data path p_z is a candidate iff its labels equal p_q's and
``o(p_q) ⪯ o(p_z)`` (within ``tolerance``). ``use_index=False`` runs the same predicate as a scan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.methods.sgrag.dominance import DominanceModel
from core.methods.sgrag.index import PathIndex, brute_force_match
from core.methods.sgrag.query_graph import QueryGraph
from core.pinning import pin_ids
from core.trace import Trace


@dataclass(frozen=True)
class PathMatches:
    labels: dict[str, int]  #: the instantiation Q' (query node id → label id)
    paths: tuple[tuple[str, ...], ...]
    cand_rows: tuple[np.ndarray, ...]  #: p_q.cand_list as rows of the index, per query path


def query_node_embeddings(qg: QueryGraph, labels: dict[str, int], model: DominanceModel,
                          label_vecs: np.ndarray) -> dict[str, np.ndarray]:
    """o(q_i) for every labelled query node: ℳ over its star in the query graph."""
    ids = [q for q in qg.ids if q in labels]
    stars = [[labels[q]] + [labels[n] for n in qg.neighbors(q) if n in labels] for q in ids]
    emb = model.embed_stars(label_vecs, stars)
    return {q: emb[i] for i, q in enumerate(ids)}


def match_paths(qg: QueryGraph, paths: tuple[tuple[str, ...], ...], labels: dict[str, int], index: PathIndex,
                *, model: DominanceModel | None, label_vecs: np.ndarray, tolerance: float = 1e-4,
                use_index: bool = True, node_emb: dict[str, np.ndarray] | None = None) -> PathMatches:
    """Algorithm 7 lines 3-37 for one Q': the candidate list of every query path.

    Parameters
    ----------
    qg
        The query graph (its stars give o(p_q)).
    paths, labels
        The query paths and one full label instantiation.
    index
        I_l.
    model
        ℳ, or None to match on labels only.
    use_index
        False = brute-force scan with the identical predicate (the oracle / baseline).
    """
    o = node_emb if node_emb is not None else (
        query_node_embeddings(qg, labels, model, label_vecs) if model is not None and index.node_emb is not None else {})
    rows = []
    for p in paths:
        lab = np.array([labels[q] for q in p], dtype=np.int64)
        dom = np.concatenate([o[q] for q in p]) if o else None
        found = index.search(lab, dom, tol=tolerance) if use_index else brute_force_match(index, lab, dom, tol=tolerance)
        if dom is not None:  # ℳ's embeddings differ by machine (another CPU trains another ℳ): pin what passed,
            # keyed by the labels of the path and of each of its nodes' query stars (what o(p_q) is computed from)
            stars = ["+".join(map(str, sorted(labels[n] for n in qg.neighbors(q) if n in labels))) for q in p]
            found = pin_ids("sgrag.matching.paths", found, key=",".join(map(str, lab.tolist())) + "|" + "/".join(stars))
        rows.append(found)
    return PathMatches(dict(labels), paths, tuple(rows))


def retrieve(qg: QueryGraph, paths: tuple[tuple[str, ...], ...], instantiations: tuple[dict[str, int], ...],
             index: PathIndex, *, model: DominanceModel | None, label_vecs: np.ndarray, tolerance: float = 1e-4,
             use_index: bool = True, trace: Trace | None = None) -> tuple[PathMatches, ...]:
    """σ over every Q' ∈ P, recorded as one trace step."""
    tr = trace if trace is not None else Trace("sgrag", "")
    with tr.timed("matching", "Path-level retrieval through the R*-tree",
                  section="SG-RAG §4.3, App. K, Alg. 7") as step:
        embs = _batched_embeddings(qg, instantiations, model, label_vecs) if model is not None and \
            index.node_emb is not None else [{} for _ in instantiations]
        out = tuple(match_paths(qg, paths, inst, index, model=model, label_vecs=label_vecs, tolerance=tolerance,
                                use_index=use_index, node_emb=e) for inst, e in zip(instantiations, embs))
        step.data.update({"instantiations": len(out), "index_paths": len(index.paths), "dimension": index.dimension,
                          "dominance_filter": model is not None, "use_index": use_index,
                          "candidates_per_path": [[len(r) for r in m.cand_rows] for m in out[:50]],
                          "with_all_paths_matched": sum(all(len(r) for r in m.cand_rows) for m in out)})
    return out


def _batched_embeddings(qg: QueryGraph, instantiations: tuple[dict[str, int], ...], model: DominanceModel,
                        label_vecs: np.ndarray) -> list[dict[str, np.ndarray]]:
    """o(q_i) for every instantiation in one GNN pass (identical stars are embedded once)."""
    keys: dict[tuple[int, ...], int] = {}
    per: list[dict[str, tuple[int, ...]]] = []
    for labels in instantiations:
        d = {}
        for q in qg.ids:
            if q in labels:
                star = (labels[q], *sorted(labels[n] for n in qg.neighbors(q) if n in labels))
                keys.setdefault(star, len(keys))
                d[q] = star
        per.append(d)
    emb = model.embed_stars(label_vecs, list(keys)) if keys else np.zeros((0, 1), np.float32)
    return [{q: emb[keys[s]] for q, s in d.items()} for d in per]
