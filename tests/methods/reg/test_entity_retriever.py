"""ReG@Entity (App. E): a PNA learns planted entities, entity→triple scores, parallel merging, save/load, the method."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.errors import WorkspaceError
from core.graph.graph_builder import graph_from_triples
from core.methods.reg.config import TrainConfig
from core.methods.reg.entity_retriever import (
    EXTRA_K,
    degree_histogram,
    load_entity_retriever,
    merge_parallel,
    merged_relation,
    subgraph_inputs,
    triple_scores,
)
from core.methods.reg.retriever import load_retriever
from core.methods.reg.train import Example, evaluate, split_ids
from core.methods.reg.train_entity import entity_labels, fit_entity


def _toy(n_q: int = 40, n_noise: int = 6):
    """Question i: topic q{i} → m{i} → "golden key {i}" (the supervision triple) among noise entities.

    The query text carries no signal; the key entities' names share "golden key", so a model that
    learns entity relevance can find them, and cosine cannot.
    """
    triples = []
    for i in range(n_q):
        triples.append((f"q{i}", "links", f"m{i}"))
        triples.append((f"m{i}", "holds", f"golden key {i}"))
        triples += [(f"m{i}", f"noise{j}", f"stone {i} {j}") for j in range(n_noise)]
        triples += [(f"q{i}", f"noise{j}", f"pebble {i} {j}") for j in range(n_noise // 2)]
    g = graph_from_triples(triples)
    emb = HashingEmbedder(dim=64)
    nv = emb.embed(list(g.node_texts)).astype(np.float32)
    ev = emb.embed(list(g.edge_texts)).astype(np.float32)
    qvec = emb.embed(["what is it?"])[0].astype(np.float32)
    examples = []
    for i in range(n_q):
        q = g.node(f"q{i}")
        edges = g.induced_edges(g.khop([q], 2).tolist()).astype(np.int64)
        labels = np.array([g.edge_relation[e] == "holds" for e in edges])
        examples.append(Example(str(i), qvec, (q,), edges, labels, labels.copy(), (g.node(f"golden key {i}"),)))
    return g, nv, ev, examples


def _parts(ex):
    split = split_ids([e.qid for e in ex], val_fraction=0.2, test_fraction=0.25, seed=0)
    part = {q: k for k, ids in split.items() for q in ids}
    return [[e for e in ex if part[e.qid] == k] for k in ("train", "val", "test")]


@pytest.fixture(scope="module")
def trained():
    g, nv, ev, ex = _toy()
    train, val, test = _parts(ex)
    cfg = TrainConfig(epochs=12, hidden=32, lr=5e-3, recall_k=1, seed=0, device="cpu")
    ret, curves, best = fit_entity(train, val, g, nv, cfg)
    return SimpleNamespace(g=g, nv=nv, ev=ev, train=train, val=val, test=test, cfg=cfg, ret=ret, curves=curves,
                           best=best)


def test_pna_learns_the_planted_entities_and_ranks_their_triple_first(trained) -> None:
    g, nv, ev, test, ret, curves, best = (trained.g, trained.nv, trained.ev, trained.test, trained.ret,
                                          trained.curves, trained.best)
    assert len(curves["train_loss"]) == 12 and curves["train_loss"][-1] < curves["train_loss"][0]
    assert 1 <= best <= 12
    scores = [ret.score(e.qvec, e.edges, g, nv, ev, e.topic) for e in test]
    m = evaluate(scores, test, g, 1)
    assert m["label_recall"] >= 0.9 and m["answer_hit"] >= 0.9  # held-out recall@1 of the planted triple
    base = evaluate([ev[e.edges] @ e.qvec for e in test], test, g, 1)
    assert base["label_recall"] < 0.5  # cosine cannot see it
    # the planted entities outscore every other entity of their subgraph
    e = test[0]
    sg = subgraph_inputs(e.qvec, e.edges, g, nv, e.topic)
    lg = ret.entity_logits(sg)
    y = entity_labels(e, g, sg).astype(bool)
    assert y.sum() == 2 and lg[y].min() > lg[~y].max()


def test_training_is_reproducible_under_the_seed(trained) -> None:
    t = trained
    _, curves2, best2 = fit_entity(t.train, t.val, t.g, t.nv, t.cfg)
    np.testing.assert_allclose(t.curves["train_loss"], curves2["train_loss"], rtol=1e-5)
    assert best2 == t.best


def test_save_load_round_trip_and_foreign_files_refused(trained, tmp_path) -> None:
    g, nv, ev, test, ret = trained.g, trained.nv, trained.ev, trained.test, trained.ret
    ret.manifest.update({"embedder": "hashing", "graph_hash": g.content_hash, "supervision": "weak"})
    ret.save(tmp_path / "m")
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert manifest["unit"] == "entity" and manifest["deg"] == ret.manifest["deg"]
    back = load_entity_retriever(tmp_path / "m", embedder_id="hashing", device="cpu")
    e = test[0]
    np.testing.assert_allclose(back.score(e.qvec, e.edges, g, nv, ev, e.topic), ret.score(e.qvec, e.edges, g, nv, ev,
                                                                                        e.topic), rtol=1e-5, atol=1e-6)
    with pytest.raises(WorkspaceError, match=r"trained with embedder 'hashing'.*--unit entity"):
        load_entity_retriever(tmp_path / "m", embedder_id="minilm")
    # the triple loader refuses an entity model, and the entity loader a triple one
    with pytest.raises(WorkspaceError, match=r"holds a ReG@Entity retriever, not ReG@Triple"):
        load_retriever(tmp_path / "m")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "model.safetensors").write_bytes((tmp_path / "m" / "model.safetensors").read_bytes())
    (tmp_path / "t" / "manifest.json").write_text(json.dumps({**manifest, "unit": "triple"}))
    with pytest.raises(WorkspaceError, match=r"holds a ReG@Triple retriever, not ReG@Entity.*--unit entity"):
        load_entity_retriever(tmp_path / "t")
    (tmp_path / "t" / "manifest.json").write_text(json.dumps({"format": "something else"}))
    with pytest.raises(WorkspaceError, match=r"is not a ReG retriever manifest"):
        load_entity_retriever(tmp_path / "t")
    # damaged weights, or a pickle that is not a plain state dict: refused with the fix, never half-loaded
    (tmp_path / "m" / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(WorkspaceError, match=r"model.safetensors was rejected .*egx train-reg --workspace W --unit entity"):
        load_entity_retriever(tmp_path / "m")
    with pytest.raises(WorkspaceError, match=r"No trained ReG@Entity retriever in"):
        load_entity_retriever(tmp_path / "none")


def test_triple_score_is_the_product_of_the_ends_probabilities_brute_force() -> None:
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 4, size=12)
    logits[0], logits[1] = 60.0, -60.0  # saturated ends stay finite
    head, tail = rng.integers(0, 12, size=40), rng.integers(0, 12, size=40)
    got = triple_scores(logits, head, tail)
    sig = [1.0 / (1.0 + np.exp(-float(v))) for v in logits]
    want = [np.log(sig[h] * sig[t]) if sig[h] * sig[t] > 0 else -np.inf for h, t in zip(head, tail)]
    assert np.all(np.isfinite(got))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], np.array(want)[finite], rtol=1e-5, atol=1e-5)
    # the same order as the product of probabilities, brute force over all pairs
    prod = np.array([sig[h] * sig[t] for h, t in zip(head, tail)])
    for i in range(40):
        for j in range(40):
            if prod[i] > prod[j] * (1 + 1e-6):
                assert got[i] > got[j]


def test_parallel_relations_are_merged_into_one_triple_and_k_counts_units() -> None:
    g = graph_from_triples([("A", "born in", "B"), ("A", "lives in", "B"), ("B", "part of", "C"), ("B", "near", "A"),
                            ("C", "capital of", "D")])
    edges = np.arange(g.n_edges, dtype=np.int64)
    scores = np.array([0.9, 0.8, 0.5, 0.7, 0.1], dtype=np.float32)
    units = merge_parallel(g, edges, scores, k=2)
    rel = [merged_relation(g, u) for u in units]
    assert len(units) == 2 and rel == ["born in | lives in", "near"]  # (B, near, A) is the reverse pair: its own unit
    assert units[0] == (0, 1)  # best edge first
    assert [merged_relation(g, u) for u in merge_parallel(g, edges, scores, k=10)] == [
        "born in | lives in", "near", "part of", "capital of"]
    assert EXTRA_K == 200


def test_degree_histogram_matches_pyg() -> None:
    from torch_geometric.data import Data
    from torch_geometric.nn import PNAConv

    g, nv, _, ex = _toy(n_q=3)
    sgs = [subgraph_inputs(e.qvec, e.edges, g, nv, e.topic) for e in ex]
    import torch

    data = [Data(edge_index=torch.from_numpy(sg.edge_index), num_nodes=int(sg.nodes.size)) for sg in sgs]
    assert degree_histogram(sgs) == PNAConv.get_degree_histogram(data).tolist()


def test_reg_method_with_retriever_entity_uses_the_entity_model(tmp_path) -> None:
    from core.cli import main
    from core.index.samples import ensure_sample_workspace
    from core.methods.base import Backends
    from core.methods.reg.config import RegConfig
    from core.methods.reg.pipeline import WEAK_NOTICE, run
    from tests.fakes import ScriptedLLM

    hashing = HashingEmbedder()
    ws = ensure_sample_workspace("demo", hashing, root=tmp_path / "ws")
    g = ws.graph
    qs = [{"id": f"q{e}", "question": f"What is {g.node_names[int(g.edge_head[e])]} {g.edge_relation[e]}?",
           "answer": g.node_names[int(g.edge_tail[e])]} for e in range(0, g.n_edges, 2)]
    (tmp_path / "qa.json").write_text(json.dumps(qs), encoding="utf-8")
    assert main(["train-reg", "--workspace", str(ws.path), "--questions", str(tmp_path / "qa.json"), "--embedder",
                 "hashing", "--epochs", "2", "--unit", "entity", "--json"]) == 0
    assert (ws.path / "reg" / "retriever-entity" / "model.safetensors").exists()
    assert not (ws.path / "reg" / "retriever").exists()
    b = Backends(hashing, ScriptedLLM("Hugo Weaving", name="recording", tokens=(9, 2)))
    q = "Who played Agent Smith?"
    r = run(q, ws, config=RegConfig(retriever="entity", top_k=5), backends=b)
    step = r.trace.stage("score")[0]
    assert step.data["retriever"] == "ReG@Entity" and r.scorer.startswith("ReG@Entity w/o S(I)")
    assert step.data["top_k"] == 5 + EXTRA_K and not step.fallback
    assert step.data["notice"] == WEAK_NOTICE  # trained on weak labels: the paper's "w/o S(I)", said in every view
    pairs = [(t.head, t.tail) for t in r.kept]
    assert len(pairs) == len(set(pairs))  # parallel relations merged: one triple per ordered pair
    # the triple retriever is not trained here: the default method falls back to cosine, as before
    r2 = run(q, ws, config=RegConfig(top_k=5), backends=b)
    assert r2.scorer.startswith("cosine") and r2.trace.stage("score")[0].data["retriever"] == "cosine"
    # pointing the triple retriever at the entity folder is refused visibly
    r3 = run(q, ws, config=RegConfig(top_k=5, model=str(ws.path / "reg" / "retriever-entity")), backends=b)
    assert "holds a ReG@Entity retriever" in r3.trace.stage("score")[0].fallback
