"""Training the ReG@Triple retriever on weak or refined supervision (ReG D.3 Eq. 33, Appendix E).

* **Split** — questions are split once, by a seeded permutation of *all* question ids, into train /
  validation / test (default 60/20/20), so weak and refined runs with the same seed see the same
  test questions; or, with ``hold_out_first=N`` (ours), the first N questions in file order are the test
  split and train / validation (the same sizes) are drawn from the rest, so the questions a benchmark's
  ``--limit N`` and the shipped recordings take are never trained on. Training never sees validation or test
  questions; the best epoch is chosen on validation recall (Appendix E: "the checkpoint with the highest
  retrieval recall on the validation set"); the reported numbers are on the test split. The split is saved in
  the model's manifest (``split``: train / val / test ids), the contract a benchmark reads to leave the
  questions a model saw out of its figures (:mod:`core.methods.reg.models`).
* **Examples** — per question, every triple of the ``hops``-hop neighbourhood of its query entities
  is a candidate; labels are the chosen supervision's triples. Questions without a positive in
  their neighbourhood are skipped (counted). Training uses every positive and ``neg_per_question``
  sampled negatives per question (seeded); evaluation scores the whole neighbourhood.
* **Loss** — binary cross-entropy on the MLP logit (Eq. 33), Adam, mini-batches; seeded; CUDA when
  :func:`core.backends.device.select_device` finds one.
* **Held-out metrics** (test split, at ``recall_k``):
  ``label_recall`` — recall of the run's own labels (not comparable across supervisions);
  ``gold_passage_recall`` — recall of the neighbourhood triples extracted from the question's gold
  supporting passages (the same target for weak and refined: comparable);
  ``answer_hit`` — share of questions with an answer entity among the top-K triples' entities.
  The untrained cosine scorer is evaluated on the same questions as the baseline.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.methods.reg.config import TrainConfig
from core.methods.reg.keep import active_retriever, aside_dir, judge
from core.methods.reg.retriever import TripleRetriever, build_mlp, neighbourhood, triple_features

if TYPE_CHECKING:
    from core.graph.model import KnowledgeGraph
    from core.methods.reg.selection import SelectHow
    from core.methods.reg.supervision import Supervision

Progress = Callable[[str, float], None]


class Checkpoints:
    """The training curves and the epoch with the best validation recall (App. E: "the checkpoint with the highest
    retrieval recall on the validation set"), shared by both retrieval units."""

    def __init__(self, recall_k: int, progress: Progress | None, epochs: int) -> None:
        self.curves: dict[str, list[float]] = {"epoch": [], "train_loss": [], "val_loss": [], "val_recall": []}
        self.best, self.best_epoch = -1.0, 0
        self.state: dict[str, Any] | None = None
        self.k, self.progress, self.epochs = recall_k, progress, epochs

    def keep(self, model: Any, epoch: int, recall: float) -> None:
        """``model`` as checkpoint ``epoch`` if its validation ``recall`` is the best so far."""
        if not np.isnan(recall) and recall > self.best:
            self.best, self.best_epoch = recall, epoch
            self.state = {k: v.detach().clone() for k, v in model.state_dict().items()}

    def epoch(self, model: Any, epoch: int, train_loss: float, val_losses: Sequence[float], recall: float) -> None:
        """Record one epoch's curves, keep it if best, report progress."""
        self.curves["epoch"].append(epoch)
        self.curves["train_loss"].append(train_loss)
        self.curves["val_loss"].append(float(np.mean(val_losses)) if val_losses else float("nan"))
        self.curves["val_recall"].append(recall)
        self.keep(model, epoch, recall)
        if self.progress is not None:
            self.progress(f"epoch {epoch}/{self.epochs}: val recall@{self.k} {recall:.3f}", epoch / self.epochs)

    def restore(self, model: Any) -> int:
        """Load the best checkpoint into ``model``; returns its epoch (the last one when none was better)."""
        if self.state is None:
            return self.epochs
        model.load_state_dict(self.state)
        return self.best_epoch


@dataclass(frozen=True)
class Example:
    qid: str
    qvec: np.ndarray
    topic: tuple[int, ...]
    edges: np.ndarray  #: the neighbourhood (candidate triples)
    labels: np.ndarray  #: bool per edge
    gold: np.ndarray  #: bool per edge: extracted from a gold supporting passage
    answers: tuple[int, ...]


@dataclass
class TrainResult:
    supervision: str
    config: dict[str, Any]
    curves: dict[str, list[float]]
    best_epoch: int
    split: dict[str, list[str]]
    test: dict[str, float]
    baseline_test: dict[str, float]
    counts: dict[str, int]
    device: str
    seconds: float
    model_dir: str = ""
    notes: list[str] = field(default_factory=list)
    #: the retriever that was active when training started, scored on the same held-out questions ({} when none)
    current_test: dict[str, float] = field(default_factory=dict)
    kept_aside: bool = False  #: True: it lost on the held-out split and was saved aside, not installed
    verdict: str = ""  #: the comparison that decided it (:func:`judge`), in words

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def split_ids(qids: Sequence[str], *, val_fraction: float, test_fraction: float, seed: int,
              hold_out_first: int = 0) -> dict[str, list[str]]:
    """Seeded train/val/test split of question ids (disjoint, covering all). With ``hold_out_first=N`` the test
    split is the first N ids as given (file order) and validation (``val_fraction`` of all) and train are a
    seeded permutation of the rest.

    Raises
    ------
    ConfigError
        When ``hold_out_first`` leaves fewer than two questions to train and validate on.
    """
    order = list(qids)
    n_val = max(1, round(len(order) * val_fraction))
    if hold_out_first:
        from core.errors import ConfigError

        if len(order) - hold_out_first < n_val + 1:
            raise ConfigError(f"hold_out_first = {hold_out_first} holds out too many of the {len(order)} questions: "
                              f"only {max(len(order) - hold_out_first, 0)} would be left to train and validate on ({n_val} "
                              "validation + at least 1 training question needed); hold out fewer, or add questions.")
        rest = order[hold_out_first:]
        perm = np.random.default_rng(seed).permutation(len(rest))
        ids = [rest[i] for i in perm]
        return {"test": order[:hold_out_first], "val": ids[:n_val], "train": ids[n_val:]}
    perm = np.random.default_rng(seed).permutation(len(order))
    n_test = max(1, round(len(order) * test_fraction))
    ids = [order[i] for i in perm]
    return {"test": ids[:n_test], "val": ids[n_test:n_test + n_val], "train": ids[n_test + n_val:]}


def make_example(sup: Supervision, labels: Sequence[int], graph: KnowledgeGraph, qvec: np.ndarray,
                 edge_vectors: np.ndarray, *, hops: int, max_candidates: int) -> Example:
    edges, _ = neighbourhood(graph, sup.query.nodes, hops, edge_vectors=edge_vectors, qvec=qvec,
                             max_candidates=max_candidates)
    lab = np.isin(edges, np.asarray(list(labels), dtype=np.int64))
    gold_chunks = set(sup.item.gold_chunks)
    gold = np.array([bool(gold_chunks.intersection(graph.edge_chunks[int(e)])) for e in edges], dtype=bool)
    return Example(sup.item.qid, qvec, sup.query.nodes, edges, lab, gold, sup.answer.nodes)


def evaluate(scores: Sequence[np.ndarray], examples: Sequence[Example], graph: KnowledgeGraph, k: int) -> dict[str, float]:
    """Held-out metrics at K (see the module docstring); averages over questions that have the target."""
    lab, gold, hit = [], [], []
    for s, ex in zip(scores, examples):
        top = np.argsort(-s, kind="stable")[:k]
        if ex.labels.any():
            lab.append(ex.labels[top].sum() / ex.labels.sum())
        if ex.gold.any():
            gold.append(ex.gold[top].sum() / ex.gold.sum())
        if ex.answers:
            ents = set(graph.edge_head[ex.edges[top]].tolist()) | set(graph.edge_tail[ex.edges[top]].tolist())
            hit.append(float(bool(ents & set(ex.answers))))
    return {"label_recall": float(np.mean(lab)) if lab else float("nan"),
            "gold_passage_recall": float(np.mean(gold)) if gold else float("nan"),
            "answer_hit": float(np.mean(hit)) if hit else float("nan"),
            "questions": len(examples), "with_labels": len(lab), "with_gold": len(gold)}


def per_question(scores: Sequence[np.ndarray], examples: Sequence[Example], graph: KnowledgeGraph,
                 k: int) -> dict[str, dict[str, float]]:
    """:func:`evaluate`'s figures per question id (where it has the target), kept beside each held-out figure for
    the pages' paired interval against cosine (:func:`core.methods.reg.keep.held_out_gap`)."""
    out: dict[str, dict[str, float]] = {"label_recall": {}, "gold_passage_recall": {}, "answer_hit": {}}
    for s, ex in zip(scores, examples):
        m = evaluate([s], [ex], graph, k)
        for key, values in out.items():
            if not np.isnan(m[key]):
                values[ex.qid] = float(m[key])
    return out


def fit(train: Sequence[Example], val: Sequence[Example], graph: KnowledgeGraph, node_vectors: np.ndarray,
        edge_vectors: np.ndarray, cfg: TrainConfig, *, neg_per_question: int = 300,
        progress: Progress | None = None) -> tuple[TripleRetriever, dict[str, list[float]], int]:
    """Train the MLP with BCE; keep the epoch with the best validation label recall@K."""
    import torch

    from core.backends.device import select_device

    device = select_device(cfg.device or None)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    feats, ys = [], []
    for ex in train:
        pos = np.flatnonzero(ex.labels)
        neg = np.flatnonzero(~ex.labels)
        if neg.size > neg_per_question:
            neg = np.sort(rng.choice(neg, neg_per_question, replace=False))
        idx = np.concatenate([pos, neg])
        feats.append(triple_features(ex.qvec, ex.edges[idx], graph, node_vectors, edge_vectors, ex.topic,
                                     rounds=cfg.dde_rounds, reverse_rounds=cfg.dde_reverse_rounds))
        ys.append(ex.labels[idx].astype(np.float32))
    X = torch.from_numpy(np.concatenate(feats)).to(device)
    Y = torch.from_numpy(np.concatenate(ys)).to(device)
    val_feats = [triple_features(ex.qvec, ex.edges, graph, node_vectors, edge_vectors, ex.topic,
                                 rounds=cfg.dde_rounds, reverse_rounds=cfg.dde_reverse_rounds) for ex in val]
    in_dim = int(X.shape[1])
    dim = int(node_vectors.shape[1])
    model = build_mlp(in_dim, cfg.hidden, cosine_residual=cfg.cosine_residual, dim=dim).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    lossf = torch.nn.BCEWithLogitsLoss()
    gen = torch.Generator(device="cpu").manual_seed(cfg.seed)
    ret = TripleRetriever(model, {"in_dim": in_dim, "hidden": cfg.hidden, "dde_rounds": cfg.dde_rounds,
                                  "dde_reverse_rounds": cfg.dde_reverse_rounds, "dim": dim,
                                  "cosine_residual": cfg.cosine_residual}, device)
    ck = Checkpoints(cfg.recall_k, progress, cfg.epochs)
    if cfg.cosine_residual:  # epoch 0 is the cosine ranking itself: a candidate checkpoint like any other
        ck.keep(model, 0, evaluate([ret.score_features(f) for f in val_feats], val, graph, cfg.recall_k)["label_recall"])
    batch = 256
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        perm = torch.randperm(X.shape[0], generator=gen).to(device)
        total = 0.0
        for i in range(0, X.shape[0], batch):
            b = perm[i:i + batch]
            opt.zero_grad()
            loss = lossf(model(X[b]).squeeze(-1), Y[b])
            loss.backward()
            opt.step()
            total += float(loss.detach()) * int(b.numel())
        scores = [ret.score_features(f) for f in val_feats]
        vl = [float(lossf(torch.from_numpy(s), torch.from_numpy(ex.labels.astype(np.float32))))
              for s, ex in zip(scores, val) if len(s)]
        ck.epoch(model, epoch, total / max(1, X.shape[0]), vl, evaluate(scores, val, graph, cfg.recall_k)["label_recall"])
    return ret, ck.curves, ck.restore(model)


def split_examples(sups: Sequence[Supervision], graph: KnowledgeGraph, qvecs: dict[str, np.ndarray],
                   edge_vectors: np.ndarray, cfg: TrainConfig) -> tuple[dict[str, list[str]], dict[str, list[Example]],
                                                                       dict[str, int], list[str]]:
    """The seeded split and each part's examples, counts and notes (module docstring); shared by every
    retrieval unit, so ReG@Triple and ReG@Entity runs with one seed are tested on the same questions.

    Raises
    ------
    ConfigError
        If no training or no validation question has a positive triple in its neighbourhood.
    """
    split = split_ids([s.item.qid for s in sups], val_fraction=cfg.val_fraction, test_fraction=cfg.test_fraction,
                      seed=cfg.seed, hold_out_first=cfg.hold_out_first)
    part = {qid: name for name, ids in split.items() for qid in ids}
    ex: dict[str, list[Example]] = {"train": [], "val": [], "test": []}
    counts = {"questions": len(sups), "refined_by_llm": 0, "weak_fallback": 0, "no_path": 0, "skipped_no_positive": 0}
    for s in sups:
        if cfg.supervision == "refined":
            labels = s.refined if s.selection.mode == "llm" else s.weak
            kind = "refined_by_llm" if s.selection.mode == "llm" else "weak_fallback" if s.weak else "no_path"
            counts[kind] += 1
        else:
            labels = s.weak
        e = make_example(s, labels, graph, qvecs[s.item.qid], edge_vectors, hops=cfg.hops,
                         max_candidates=cfg.max_candidates)
        name = part[s.item.qid]
        if name != "test" and not e.labels.any():
            counts["skipped_no_positive"] += 1
            continue
        ex[name].append(e)
    counts.update({f"{k}_examples": len(v) for k, v in ex.items()})
    notes: list[str] = []
    if cfg.supervision == "refined":
        _check_refined(counts)
        if counts["weak_fallback"]:
            notes.append(f"{counts['weak_fallback']} of {counts['questions']} questions kept the weak shortest-path "
                         "labels (no usable LLM selection for them).")
        if counts["no_path"]:
            notes.append(f"{counts['no_path']} of {counts['questions']} questions have no query→answer path within "
                         f"{cfg.max_path_len} hops, so no supervision at all (ReG's datasets drop such questions).")
    if not ex["train"] or not ex["val"]:
        from core.errors import ConfigError

        # the neighbourhood radius must match the method's query-time one (RegConfig.hops), so it is no training knob:
        # the fixes are more questions, or questions whose entities and answers the KG holds
        what = (f"Only {len(ex['train'])} training and {len(ex['val'])} validation questions have a positive triple "
                f"within {cfg.hops} hops of their question entities")
        raise ConfigError(f"{what}; add questions with answers (--questions), or check that the answers and the "
                          "question entities link to nodes of the workspace's graph.",
                          app=f"{what}, too few to train a retriever. Add questions with answers to the workspace, "
                              "or check on the Data page that the questions' entities and answers are nodes of "
                              "its graph.")
    return split, ex, counts, notes


def train_retriever(sups: Sequence[Supervision], graph: KnowledgeGraph, qvecs: dict[str, np.ndarray],
                    node_vectors: np.ndarray, edge_vectors: np.ndarray, cfg: TrainConfig, *,
                    embedder_id: str = "", graph_hash: str = "", progress: Progress | None = None,
                    neg_per_question: int = 300,
                    current: TripleRetriever | None = None) -> tuple[TripleRetriever, TrainResult]:
    """Split, build examples, fit, evaluate on the held-out test split (module docstring); ``current`` — the
    retriever active now — is scored on the same test questions (``TrainResult.current_test``)."""
    t0 = time.perf_counter()
    split, ex, counts, notes = split_examples(sups, graph, qvecs, edge_vectors, cfg)
    ret, curves, best_epoch = fit(ex["train"], ex["val"], graph, node_vectors, edge_vectors, cfg,
                                  neg_per_question=neg_per_question, progress=progress)
    test_scores = [ret.score(e.qvec, e.edges, graph, node_vectors, edge_vectors, e.topic) for e in ex["test"]]
    base_scores = [edge_vectors[e.edges] @ e.qvec for e in ex["test"]]
    test = evaluate(test_scores, ex["test"], graph, cfg.recall_k)
    base = evaluate(base_scores, ex["test"], graph, cfg.recall_k)
    ret.manifest.update({"embedder": embedder_id, "graph_hash": graph_hash, "supervision": cfg.supervision,
                         "hops": cfg.hops, "best_epoch": best_epoch,
                         "test": {**test, "per_question": per_question(test_scores, ex["test"], graph, cfg.recall_k)},
                         "baseline_test": {**base, "per_question": per_question(base_scores, ex["test"], graph,
                                                                                cfg.recall_k)},
                         "split": split, "config": asdict(cfg), "counts": counts, "notes": notes})
    cur: dict[str, float] = {}
    if current is not None:
        cur = evaluate([current.score(e.qvec, e.edges, graph, node_vectors, edge_vectors, e.topic) for e in ex["test"]],
                       ex["test"], graph, cfg.recall_k)
        ret.manifest["current_test"] = cur
    res = TrainResult(cfg.supervision, asdict(cfg), curves, best_epoch, split, test, base, counts, ret.device,
                      time.perf_counter() - t0, notes=notes, current_test=cur)
    return ret, res


def _check_refined(counts: dict[str, int]) -> None:
    """A "refined" run with no LLM selection at all is a weak run: refuse it rather than save it as refined."""
    if counts.get("refined_by_llm", 0) == 0:
        from core.errors import ConfigError

        raise ConfigError(f"Refined supervision (ReG §4.1) needs the LLM's selections, but none of the "
                          f"{counts.get('questions', 0)} questions got one (the LLM is 'none' or every call failed). "
                          "Nothing was saved. Pass --llm local, local-small or openai, or train with --supervision weak.",
                          app=f"Refined supervision (ReG §4.1) needs the LLM's selections, but none of the "
                              f"{counts.get('questions', 0)} questions got one (the LLM is “none”, the recorded LLM "
                              "has none recorded for them, or every call failed). Nothing was saved. Pick a live LLM "
                              "(local or openai) in the sidebar, or train on weak labels.")


def train_reg(workspace: Any, questions: str | Path, *, backends: Any, cfg: TrainConfig | None = None,
              out: str | Path | None = None, limit: int | None = None, cache: bool = True,
              progress: Progress | None = None, trainer: Callable[..., tuple[Any, TrainResult]] | None = None,
              model_dir: Callable[[Any], Path] | None = None, use_anyway: bool = False) -> TrainResult:
    """End to end (``egx train-reg``): supervision for every question, training, saving.

    ``trainer`` / ``model_dir`` default to ReG@Triple (:func:`train_retriever`, ``<workspace>/reg/retriever``);
    :func:`core.methods.reg.train_entity.train_reg_entity` passes ReG@Entity's, so both units train on
    the same supervision and split.

    Refined supervision calls ``backends.llm`` once per question with a usable candidate pool; the
    selections are cached in ``<workspace>/reg/selections-<model>-<form>-<prompts>.json`` so retraining reuses them.

    ``out`` (default: the unit's folder in the workspace) must be new, empty or a model folder of egx's
    (:func:`~core.methods.reg.retriever.is_model_folder`); anything else is refused before any work, with
    :class:`~core.errors.OutputPathError`, and nothing in it is touched.

    Training keeps the better scorer: into the workspace's own folder (no ``out``), a model that loses on the
    held-out split to the untrained cosine or to the retriever active now (:func:`judge`) is saved in
    :func:`aside_dir` instead and the active scorer stays (``TrainResult.kept_aside``); ``use_anyway`` installs
    it regardless. A named ``out`` is not the active folder: the model is written there either way.
    """
    import json

    from core.fsio import atomic_write_json
    from core.methods.reg.retriever import default_model_dir, is_model_folder
    from core.methods.reg.supervision import build_supervision, load_qa
    from core.outputs import check_output_folder

    cfg = cfg or TrainConfig()
    folder = Path(out) if out else (model_dir or default_model_dir)(workspace)
    check_output_folder(folder, what="model folder", ours=is_model_folder)  # before hours of training
    graph = workspace.graph
    workspace.ensure_index(backends.embedder)
    node_vecs = workspace.index("nodes").vectors
    edge_vecs = workspace.index("edges").vectors
    items = load_qa(questions, graph)[:limit] if limit else load_qa(questions, graph)
    refine = cfg.supervision == "refined"
    llm = backends.llm
    if refine and not llm.available:
        _check_refined({"questions": len(items), "refined_by_llm": 0})
    how = selection_how(cfg.selection, llm)
    cache_path = workspace.path / "reg" / selections_file(llm.model_id, how)
    store: dict[str, Any] = {}
    if refine and cache and cache_path.exists():
        from core.fsio import read_data_file

        store = json.loads(read_data_file(cache_path, max_bytes=MAX_SELECTIONS_BYTES, what="selections cache"))
    elif refine and cache:  # a sample's shipped selections: S(I) of this model and form, without the LLM calls
        store = shipped_selections(workspace, llm.model_id, how)
    sups = []
    for i, it in enumerate(items):
        sup = build_supervision(it, graph, llm, embedder=backends.embedder, node_vectors=node_vecs,
                                refine=refine, max_len=cfg.max_path_len, how=how,
                                cached=store.get(it.qid) if refine else None)
        if refine and it.qid not in store and sup.compression.candidates and llm.available:
            store[it.qid] = sup.to_dict()
            if cache:
                atomic_write_json(cache_path, store)
        sups.append(sup)
        if progress is not None:
            progress(f"supervision {i + 1}/{len(items)}", 0.5 * (i + 1) / len(items))
    qv = backends.embedder.embed_queries([s.item.question for s in sups])  # as the pipeline embeds them
    qvecs = {s.item.qid: np.asarray(v, dtype=np.float32) for s, v in zip(sups, qv)}

    def sub(msg: str, frac: float) -> None:
        if progress is not None:
            progress(msg, 0.5 + 0.5 * frac)

    kw: dict[str, Any] = {}
    if trainer is None:  # ReG@Triple: the retriever active now is scored on the same held-out questions
        kw["current"] = active_retriever(workspace, backends.embedder.model_id)
    ret, res = (trainer or train_retriever)(sups, graph, qvecs, node_vecs, edge_vecs, cfg,
                                            embedder_id=backends.embedder.model_id, graph_hash=graph.content_hash,
                                            progress=sub, **kw)
    ret.manifest["llm"] = llm.model_id if refine else ""
    ret.manifest["selection"] = how if refine else ""
    verdict = judge(res)
    res.verdict = verdict.text
    if out is None and not verdict.install and not use_anyway:
        folder = aside_dir(folder)
        check_output_folder(folder, what="model folder", ours=is_model_folder)
        res.kept_aside = True
    ret.save(folder)
    res.model_dir = str(folder)
    atomic_write_json(folder / "result.json", res.to_dict())
    return res


SELECTIONS_FORMAT = "egx-reg-selections"
MAX_SELECTIONS_BYTES = 256 * 2**20  #: the LLM's selections for every question of a workspace (~10 KB each)
MAX_RESULT_BYTES = 32 * 2**20  #: a training run's result.json (curves and metrics)


def shipped_selections(workspace: Any, model_id: str, how: str) -> dict[str, Any]:
    """The S(I) selections shipped with a bundled sample (``sample_data/<name>/reg/selections.json``) when
    they were made by ``model_id`` in form ``how`` under the current selection prompts; else ``{}``."""
    import json

    from core.methods.reg.prompts import selection_prompts_sha256

    if not workspace.meta.sample:
        return {}
    from core.index.samples import sample_recipes

    for r in sample_recipes():
        f = r.folder / "reg" / "selections.json"
        if r.name == workspace.name and f.exists():
            data = json.loads(f.read_text(encoding="utf-8"))
            prov = data.get("provenance", {})
            if (data.get("format") == SELECTIONS_FORMAT and prov.get("model_id") == model_id
                    and prov.get("selection") == how and prov.get("graph_hash") == workspace.content_hash
                    and prov.get("prompts_sha256") == selection_prompts_sha256()):
                return dict(data.get("selections", {}))
    return {}


def selection_how(setting: str, llm: Any) -> SelectHow:
    """``TrainConfig.selection`` resolved: ``auto`` asks the bundled local models stepwise, API models one-shot."""
    if setting in ("stepwise", "one-shot"):
        return setting  # type: ignore[return-value]
    return "stepwise" if getattr(llm, "name", "") in ("local", "local-small") else "one-shot"


def selections_file(model_id: str, how: str) -> str:
    """The cache of one model's selections in one form under the current selection prompts (the first 8 hex digits
    of :func:`~core.methods.reg.prompts.selection_prompts_sha256`): a prompt change starts a new cache."""
    from core.methods.reg.prompts import selection_prompts_sha256

    return f"selections-{_slug(model_id)}-{how}-{selection_prompts_sha256()[:8]}.json"


def _slug(s: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "_", s)[:80] or "llm"


def training_runs(workspace_path: str | Path, shipped: Path | None = None) -> dict[str, dict[str, Any]]:
    """Saved training results ``<workspace>/reg/<run>/result.json``, keyed ``"<run> (<supervision>)"``, and
    the one of a sample's ``shipped`` retriever (keyed ``"shipped (<supervision>)"``)."""
    import json

    out: dict[str, dict[str, Any]] = {}
    root = Path(workspace_path) / "reg"
    found = sorted(root.glob("*/result.json")) if root.exists() else []
    if shipped is not None and (shipped / "result.json").exists():
        found.insert(0, shipped / "result.json")
    from core.fsio import read_data_file

    for p in found:
        try:
            res = json.loads(read_data_file(p, max_bytes=MAX_RESULT_BYTES, what="training result"))
        except (OSError, ValueError, RecursionError):  # DataFileError is a ValueError: a file not to read
            continue
        run = "shipped" if shipped is not None and p.parent == shipped else p.parent.name
        out[f"{run} ({res.get('supervision', '?')})"] = res
    return out
