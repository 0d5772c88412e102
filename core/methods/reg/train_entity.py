"""Training the ReG@Entity retriever (ReG D.3 Eq. 34, App. E) on the triple retriever's split and examples.

The split, the examples (neighbourhood, labels, gold-passage triples, answers) and the held-out
metrics are :mod:`.train`'s, so a ReG@Entity run and a ReG@Triple run with the same seed and
supervision are tested on the same questions and their numbers compare directly:

* **Labels** — an entity of the neighbourhood is positive when it is the head or tail of one of the
  question's supervision triples (Eq. 34: "entities that appear in" the supervision); every other
  entity is a negative. Binary cross-entropy on the PNA logits over all entities of the training
  subgraphs, Adam, seeded mini-batches of subgraphs (joined as one disconnected graph).
* **Checkpoint** — 80 epochs by default, the epoch with the best validation triple recall@K kept
  (App. E: "the checkpoint with the highest retrieval recall on the validation set").
* **Metrics** — triple recall@K of the triple scores the entity scores convert to
  (:func:`.entity_retriever.triple_scores`), counted in single triples at the same K as ReG@Triple
  (``TrainConfig.recall_k``): comparable with it and with the cosine baseline. A parallel-merged unit
  can hold several triples, so at the pipeline's merged K + 200 ReG@Entity would keep more; that
  operating point is reported beside it (``test_at_paper_k``, cosine at the same edge budget).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.methods.reg.config import TrainConfig
from core.methods.reg.entity_retriever import (
    EXTRA_K,
    PNA_LAYERS,
    EntityRetriever,
    Subgraph,
    build_pna,
    default_entity_model_dir,
    degree_histogram,
    entity_in_dim,
    merge_parallel,
    subgraph_inputs,
    triple_scores,
)
from core.methods.reg.train import (
    Checkpoints,
    Example,
    Progress,
    TrainResult,
    evaluate,
    per_question,
    split_examples,
    train_reg,
)

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.methods.reg.supervision import Supervision

BATCH = 8  #: subgraphs per optimizer step


def entity_labels(ex: Example, graph: KnowledgeGraph, sg: Subgraph) -> np.ndarray:
    """Eq. 34's targets: 1.0 for the subgraph's entities that are an end of a supervision triple."""
    pos = np.union1d(graph.edge_head[ex.edges[ex.labels]], graph.edge_tail[ex.edges[ex.labels]])
    return np.isin(sg.nodes, pos).astype(np.float32)


def fit_entity(train: Sequence[Example], val: Sequence[Example], graph: KnowledgeGraph, node_vectors: np.ndarray,
               cfg: TrainConfig, *, progress: Progress | None = None) -> tuple[EntityRetriever, dict[str, list[float]], int]:
    """Train the PNA with BCE on entity labels; keep the epoch with the best validation triple recall@K."""
    import torch

    from core.backends.device import select_device

    device = select_device(cfg.device or None)
    torch.manual_seed(cfg.seed)
    rr = {"rounds": cfg.dde_rounds, "reverse_rounds": cfg.dde_reverse_rounds}
    tr = [subgraph_inputs(e.qvec, e.edges, graph, node_vectors, e.topic, **rr) for e in train]
    ys = [entity_labels(e, graph, sg) for e, sg in zip(train, tr)]
    deg = degree_histogram(tr)
    in_dim = entity_in_dim(node_vectors.shape[1], cfg.dde_rounds, cfg.dde_reverse_rounds)
    model = build_pna(in_dim, cfg.hidden, deg).to(device)
    ret = EntityRetriever(model, {"in_dim": in_dim, "hidden": cfg.hidden, "layers": PNA_LAYERS, "deg": deg,
                                  "dde_rounds": cfg.dde_rounds, "dde_reverse_rounds": cfg.dde_reverse_rounds}, device)
    val_sg = [ret.inputs(e.qvec, e.edges, graph, node_vectors, e.topic) for e in val]
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    lossf = torch.nn.BCEWithLogitsLoss()
    gen = torch.Generator(device="cpu").manual_seed(cfg.seed)
    ck = Checkpoints(cfg.recall_k, progress, cfg.epochs)
    n_nodes = sum(int(sg.nodes.size) for sg in tr)
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        total = 0.0
        order = torch.randperm(len(tr), generator=gen).tolist()
        for i in range(0, len(order), BATCH):
            x, ei, y = _join([tr[j] for j in order[i:i + BATCH]], [ys[j] for j in order[i:i + BATCH]])
            if x.shape[0] == 0:
                continue
            opt.zero_grad()
            loss = lossf(model(torch.from_numpy(x).to(device), torch.from_numpy(ei).to(device)),
                         torch.from_numpy(y).to(device))
            loss.backward()
            opt.step()
            total += float(loss.detach()) * x.shape[0]
        logits = [ret.entity_logits(sg) for sg in val_sg]
        scores = [triple_scores(lg, sg.head, sg.tail) if sg.nodes.size else np.zeros(0, np.float32)
                  for lg, sg in zip(logits, val_sg)]
        vl = [float(lossf(torch.from_numpy(lg), torch.from_numpy(entity_labels(e, graph, sg))))
              for lg, e, sg in zip(logits, val, val_sg) if sg.nodes.size]
        ck.epoch(model, epoch, total / max(1, n_nodes), vl, evaluate(scores, val, graph, cfg.recall_k)["label_recall"])
    return ret, ck.curves, ck.restore(model)


def _join(sgs: Sequence[Subgraph], ys: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Several subgraphs as one disconnected graph (node ids offset), for one optimizer step."""
    offs = np.cumsum([0] + [int(sg.nodes.size) for sg in sgs])
    x = np.concatenate([sg.x for sg in sgs])
    ei = np.concatenate([sg.edge_index + o for sg, o in zip(sgs, offs[:-1])], axis=1)
    return x, np.ascontiguousarray(ei), np.concatenate(ys)


def train_entity_retriever(sups: Sequence[Supervision], graph: KnowledgeGraph, qvecs: dict[str, np.ndarray],
                           node_vectors: np.ndarray, edge_vectors: np.ndarray, cfg: TrainConfig, *,
                           embedder_id: str = "", graph_hash: str = "",
                           progress: Progress | None = None) -> tuple[EntityRetriever, TrainResult]:
    """Split, examples (shared with ReG@Triple), fit the PNA, evaluate on the held-out test split."""
    t0 = time.perf_counter()
    split, ex, counts, notes = split_examples(sups, graph, qvecs, edge_vectors, cfg)
    ret, curves, best_epoch = fit_entity(ex["train"], ex["val"], graph, node_vectors, cfg, progress=progress)
    test_scores = [ret.score(e.qvec, e.edges, graph, node_vectors, edge_vectors, e.topic) for e in ex["test"]]
    base_scores = [edge_vectors[e.edges] @ e.qvec for e in ex["test"]]
    test = evaluate(test_scores, ex["test"], graph, cfg.recall_k)
    base = evaluate(base_scores, ex["test"], graph, cfg.recall_k)
    paper_k = paper_k_metrics(test_scores, base_scores, ex["test"], graph, cfg.recall_k + EXTRA_K)
    notes.append(f"ReG@Entity at App. E's K = {cfg.recall_k} + {EXTRA_K} merged triples: label recall "
                 f"{paper_k['entity']['label_recall']:.3f} on {paper_k['edges']:.0f} triples a question on average "
                 f"(cosine on as many triples: {paper_k['cosine']['label_recall']:.3f}).")
    ret.manifest.update({"embedder": embedder_id, "graph_hash": graph_hash, "supervision": cfg.supervision,
                         "hops": cfg.hops, "best_epoch": best_epoch,
                         "test": {**test, "per_question": per_question(test_scores, ex["test"], graph, cfg.recall_k)},
                         "baseline_test": {**base, "per_question": per_question(base_scores, ex["test"], graph,
                                                                                cfg.recall_k)},
                         "test_at_paper_k": paper_k, "split": split, "config": asdict(cfg), "counts": counts,
                         "notes": notes})
    res = TrainResult(cfg.supervision, {**asdict(cfg), "unit": "entity"}, curves, best_epoch, split, test, base,
                      counts, ret.device, time.perf_counter() - t0, notes=notes)
    return ret, res


def paper_k_metrics(scores: Sequence[np.ndarray], base: Sequence[np.ndarray], examples: Sequence[Example],
                    graph: KnowledgeGraph, k: int) -> dict[str, Any]:
    """Held-out metrics at the pipeline's operating point: the top-``k`` merged units' triples for
    ReG@Entity, and for cosine the same number of triples per question (a fair edge budget)."""
    ent, cos, sizes = [], [], []
    for s, b, ex in zip(scores, base, examples):
        keep = {e for u in merge_parallel(graph, ex.edges, s, k) for e in u}
        n = len(keep)
        sizes.append(n)
        ent.append(np.where(np.isin(ex.edges, list(keep)), 1.0, 0.0) if n else np.zeros(len(ex.edges)))
        cos.append(b)
    m_ent = _evaluate_budgets(ent, examples, graph, sizes)
    m_cos = _evaluate_budgets(cos, examples, graph, sizes)
    return {"k": k, "edges": float(np.mean(sizes)) if sizes else 0.0, "entity": m_ent, "cosine": m_cos}


def _evaluate_budgets(scores: Sequence[np.ndarray], examples: Sequence[Example], graph: KnowledgeGraph,
                      budgets: Sequence[int]) -> dict[str, float]:
    """:func:`.train.evaluate` with a per-question K (averaged the same way)."""
    per = [evaluate([s], [e], graph, max(1, n)) for s, e, n in zip(scores, examples, budgets)]
    out: dict[str, float] = {}
    for key, cnt in (("label_recall", "with_labels"), ("gold_passage_recall", "with_gold")):
        vals = [p[key] for p in per if p[cnt]]
        out[key] = float(np.mean(vals)) if vals else float("nan")
    hits = [p["answer_hit"] for p in per if not np.isnan(p["answer_hit"])]
    out["answer_hit"] = float(np.mean(hits)) if hits else float("nan")
    return out


def train_reg_entity(workspace: Any, questions: str | Path, **kwargs: Any) -> TrainResult:
    """``egx train-reg --unit entity``: :func:`.train.train_reg` with the ReG@Entity trainer and its
    default folder ``<workspace>/reg/retriever-entity``."""
    return train_reg(workspace, questions, trainer=train_entity_retriever, model_dir=default_entity_model_dir,
                     **kwargs)
