"""ReG reads only the region it needs from a graph store.

On a FalkorDB workspace ReG links the question by the store's batch name lookup and scores the
triples of the store's ``hops``-region of the query entities (ReG App. E); it must return what it
returns in memory (ranked passages, answer, kept triples with their global edge ids and scores),
untrained (cosine fallback) and trained, and never load the whole graph into the process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.backends.embedders import HashingEmbedder
from core.graph.stores.falkor import FalkorStore
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.index.workspace import Workspace
from core.methods.base import Backends
from core.methods.reg.config import RegConfig
from core.methods.reg.dde import dde_dim
from core.methods.reg.pipeline import run as run_reg
from core.methods.reg.retriever import TripleRetriever, build_mlp, default_model_dir
from core.methods.run import run_method


def _no_whole_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make reading the whole graph from a FalkorDB store fail the test (``Workspace.graph`` on a
    store workspace goes through ``FalkorStore.graph``)."""
    def refuse(self: FalkorStore) -> None:
        raise AssertionError(f"the whole graph was read from {self.url}")

    monkeypatch.setattr(FalkorStore, "graph", refuse)
    monkeypatch.setattr(FalkorStore, "_read_all", refuse)


def _signature(result: object) -> tuple:
    r = result
    return (tuple((c.chunk_id, round(c.score, 9)) for c in r.ranked_chunks),  # type: ignore[attr-defined]
            r.answer, r.scorer, r.candidates, r.linked.nodes, r.linked.names,  # type: ignore[attr-defined]
            tuple((t.text(), t.edge, round(t.score, 6)) for t in r.kept),  # type: ignore[attr-defined]
            tuple(c.text() for c in r.reorganization.chains))  # type: ignore[attr-defined]


def _pair(sample: str, root: Path, server, emb, *, train: bool) -> tuple[Workspace, Workspace]:
    mem = ensure_sample_workspace(sample, emb, root=root / "mem")
    if train:  # a fixture ReG@Triple retriever (seeded random weights: the features, DDE included, decide)
        _fixture_retriever(mem, emb)
    dst = root / "store" / sample
    shutil.copytree(mem.path, dst)
    remote = Workspace.open(dst)
    remote.move_to_store(server.url(f"regions_{sample}"), overwrite=True)
    return mem, Workspace.open(dst)


def _fixture_retriever(ws: Workspace, emb: HashingEmbedder) -> None:
    import torch

    torch.manual_seed(0)
    in_dim = 5 * emb.dim + 2 * dde_dim(2, 2)
    manifest = {"in_dim": in_dim, "hidden": 16, "embedder": emb.model_id, "graph_hash": ws.graph.content_hash,
                "supervision": "fixture", "dde_rounds": 2, "dde_reverse_rounds": 2}
    TripleRetriever(build_mlp(in_dim, 16), manifest).save(default_model_dir(ws))


@pytest.fixture(scope="module")
def demo_pair(tmp_path_factory, falkordb_server, hashing) -> tuple[Workspace, Workspace]:
    return _pair("demo", tmp_path_factory.mktemp("regions_demo"), falkordb_server, hashing, train=True)


def _compare_reg(mem: Workspace, remote: Workspace, questions: list[str], backends: Backends,
                 configs: list[RegConfig]) -> int:
    """Equal results on both stores; returns how many runs scored a non-empty region."""
    regions = 0
    for q in questions:
        for cfg in configs:
            a, b = run_reg(q, mem, config=cfg, backends=backends), run_reg(q, remote, config=cfg, backends=backends)
            assert _signature(a) == _signature(b), (q, cfg.model)
            step = b.trace.stage("neighbourhood")[0].data
            assert step["store"] == remote.store_url and step["hops_requested"] == cfg.hops
            assert step["capped"] is False and step["region_nodes"] < remote.store.n_nodes
            assert "store" not in a.trace.stage("neighbourhood")[0].data
            regions += bool(step["region_edges"])
    return regions


def test_reg_demo_same_results_from_region(demo_pair, backends, tmp_path, monkeypatch):
    mem, remote = demo_pair
    questions = [q.question for q in load_questions(mem)]
    _no_whole_graph(monkeypatch)
    untrained, trained = RegConfig(model=str(tmp_path / "no-model")), RegConfig()
    regions = _compare_reg(mem, remote, questions, backends, [untrained, trained])
    assert regions >= len(questions)  # most runs score a real region, not an empty one
    b = run_method("reg", questions[0], remote, backends)  # the entry `egx ask`, bench and the pages use
    assert b.scorer.startswith("ReG@Triple") and "graph" not in remote.__dict__  # type: ignore[attr-defined]


def test_reg_region_cap_is_visible_and_valid(demo_pair, backends, monkeypatch):
    mem, remote = demo_pair
    _no_whole_graph(monkeypatch)
    q = load_questions(mem)[0].question
    full = run_reg(q, remote, config=RegConfig(), backends=backends)
    cfg = RegConfig(region_max_nodes=20)  # the demo's first question: 13 nodes at hop 1, more at hop 2
    capped = run_reg(q, remote, config=cfg, backends=backends)
    step = capped.trace.stage("neighbourhood")[0]
    assert step.data["capped"] is True and step.data["region_hops"] < cfg.hops
    assert "region_max_nodes=20" in step.fallback and f"of {cfg.hops} requested" in step.fallback
    assert 0 < capped.candidates < full.candidates and capped.kept
    # still a valid result: kept triples are real edges of the store among the linked entities' region
    edges = [t.edge for t in capped.kept]
    rows = remote.store.edge_rows(edges)
    assert [(remote.store.node_rows([h])[0][1], r, remote.store.node_rows([t])[0][1]) for h, r, t in rows] == \
        [(t.head, t.relation, t.tail) for t in capped.kept]
    chunk_ids = {c for c, _, _ in remote.store.chunks([c.chunk_id for c in capped.ranked_chunks])}
    assert chunk_ids == {c.chunk_id for c in capped.ranked_chunks}


def test_reg_musique_same_results_from_region(tmp_path_factory, falkordb_server, hashing, backends, tmp_path,
                                              monkeypatch):
    """The first 20 MuSiQue questions, untrained (cosine fallback) in ``none`` mode."""
    n = 20
    mem, remote = _pair("musique", tmp_path_factory.mktemp("regions_musique"), falkordb_server, hashing, train=False)
    questions = [q.question for q in load_questions(mem)][:n]
    assert len(questions) == n
    _no_whole_graph(monkeypatch)
    assert _compare_reg(mem, remote, questions, backends, [RegConfig()]) >= n // 2


def test_store_name_lookup_and_chunks_agree(demo_pair):
    """The two contract methods ReG's store path adds: batch name lookup and chunk rows."""
    from core.graph.stores.store import MemoryStore
    from core.text import normalize_name

    mem, remote = demo_pair
    g = mem.graph
    keys = [normalize_name(n) for n in g.node_names[:40]] + ["no such entity", normalize_name(g.node_names[0])]
    assert remote.store.nodes_named(keys) == MemoryStore(g).nodes_named(keys)
    assert "no such entity" not in remote.store.nodes_named(keys)
    ids = [c.id for c in g.chunks[:7]] + ["missing"]
    assert remote.store.chunks(ids) == MemoryStore(g).chunks(ids) == [(c.id, c.title, c.text) for c in g.chunks[:7]]


def test_reg_in_memory_reads_the_graph_directly(demo_pair, backends, monkeypatch):
    """The default store adds nothing: no region query, no store name lookup, no store step data."""
    from core.graph.stores.store import MemoryStore

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("the in-memory path went through the store contract")

    for name in ("region", "nodes_named", "chunks"):
        monkeypatch.setattr(MemoryStore, name, refuse)
    mem, _ = demo_pair
    r = run_method("reg", load_questions(mem)[0].question, mem, backends)
    assert r.ranked_chunks and set(r.trace.stage("neighbourhood")[0].data) == {"hops", "triples", "before_cap"}
