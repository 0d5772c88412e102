"""FastInsight's lazy node vectors (``node_vectors="lazy"``): the same run as the precompute wherever the
question's pool holds the precompute's initial search, only the reached nodes embedded, rows kept in the
workspace and reused across processes, concurrent writers and merges losing nothing, no preparation."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.errors import ConfigError
from core.index.questions import load_questions
from core.index.workspace import Workspace
from core.methods.base import Backends
from core.methods.fastinsight import METHOD, FastInsightConfig, run
from core.methods.fastinsight import lazy_vectors as lv
from core.methods.fastinsight.lazy_vectors import LazyNodeVectors, LazyVectorCache, top_passages
from core.methods.fastinsight.loop import vector_search
from core.methods.fastinsight.node_graph import node_graph
from core.methods.fastinsight.stex import stex
from core.methods.run import pending_preparations

LAZY = FastInsightConfig(node_vectors="lazy")


class Counting(HashingEmbedder):
    """The hashing embedder, counting the texts it embeds."""

    def __init__(self, dim: int = 128) -> None:
        super().__init__(dim=dim)
        self.texts = 0

    def embed(self, texts, *, batch_size=64):  # type: ignore[no-untyped-def]
        self.texts += len(texts)
        return super().embed(texts, batch_size=batch_size)


def _copy(demo_ws: Workspace, tmp_path: Path) -> Workspace:
    shutil.copytree(demo_ws.path, tmp_path / "demo")
    ws = Workspace.open(tmp_path / "demo")
    shutil.rmtree(ws.index_dir / "extra", ignore_errors=True)  # other tests of the session ran on demo_ws
    return ws


def _new_process() -> None:
    lv._OPEN.clear()  # what a new process starts with: no cache object, only the workspace's files


def test_lazy_equals_precomputed_when_the_pool_holds_the_initial_search(demo_ws, tmp_path):
    ws = _copy(demo_ws, tmp_path)
    emb = Counting()
    b = Backends(emb, NoLLM(), BiEncoderReranker(emb))
    ng = node_graph(ws.graph)
    full = emb.embed(list(ng.passages))
    compared = 0
    for q in load_questions(ws):
        kw = {"batch": 3, "b_max": 12, "lazy_pool_passages": 6}
        pre = run(q.question, ws, backends=b, config=FastInsightConfig(**kw))
        qv = b.embed_query(q.question)
        pool = ng.gold_nodes([ws.graph.chunks[int(r)].id for r in top_passages(ws.index("chunks").scores(qv), 6)])
        initial = pre.engine.rounds[0].added
        if not set(initial.tolist()) <= set(pool.tolist()) or any(r.fallback for r in pre.engine.rounds):
            continue  # the pool is an approximation: equal only where it holds the paper's initial search
        lazy = run(q.question, ws, backends=b, config=FastInsightConfig(node_vectors="lazy", **kw))
        assert lazy.node_ranking == pre.node_ranking
        assert [c.chunk_id for c in lazy.ranked_chunks] == [c.chunk_id for c in pre.ranked_chunks]
        # float32 rounding only: a row embedded in another batch is normalised in another BLAS blocking
        np.testing.assert_allclose([c.score for c in lazy.ranked_chunks], [c.score for c in pre.ranked_chunks],
                                   rtol=0, atol=1e-6)
        assert [r.added.tolist() for r in lazy.engine.rounds] == [r.added.tolist() for r in pre.engine.rounds]
        step = lazy.trace.stage("node_vectors")[0].data
        assert step["pool_nodes"] == pool.size and step["reached"] < ng.n  # not every node was needed
        np.testing.assert_allclose(LazyVectorCache.for_workspace(ws, emb, max_chars=512, n=ng.n).rows(
            pre.node_ranking)[pre.node_ranking[0]], full[pre.node_ranking[0]], rtol=0, atol=1e-6)
        compared += 1
    assert compared >= 3


def test_the_whole_graph_as_pool_is_the_precompute(demo_ws, tmp_path):
    ws = _copy(demo_ws, tmp_path)
    b = Backends(HashingEmbedder(dim=128), NoLLM(), BiEncoderReranker(HashingEmbedder(dim=128)))
    every = FastInsightConfig(node_vectors="lazy", lazy_pool_passages=ws.graph.n_chunks)
    for q in load_questions(ws)[:4]:
        assert run(q.question, ws, backends=b, config=every).node_ranking == run(q.question, ws, backends=b).node_ranking


def test_only_reached_nodes_are_embedded_and_a_new_process_reuses_them(demo_ws, tmp_path):
    ws = _copy(demo_ws, tmp_path)
    emb = Counting()
    b = Backends(emb, NoLLM(), BiEncoderReranker(emb))
    cfg = FastInsightConfig(node_vectors="lazy", lazy_pool_passages=3, b_max=10, batch=5)
    q = load_questions(ws)[0].question
    ws.ensure_index(emb)  # counted apart: the node, edge and chunk indexes are not the lazy vectors
    emb.texts = 0
    first = run(q, ws, backends=b, config=cfg)
    first_texts = emb.texts
    step = first.trace.stage("node_vectors")[0].data
    embedded = step["embedded_now"]
    n = ws.graph.n_nodes
    assert 0 < step["embedded_now"] == step["reached"] < n and step["from_workspace_cache"] == 0
    assert not any(p.suffix == ".faiss" for p in (ws.index_dir / "extra").iterdir())  # no full precompute
    shards = list((ws.index_dir / "extra").glob("*.lazy-*/rows-*.npz"))
    assert shards and all(not p.read_bytes().startswith(b"\x80") for p in shards)  # npz, nothing pickled
    _new_process()
    emb.texts = 0
    again = run(q, Workspace.open(ws.path), backends=b, config=cfg)
    step = again.trace.stage("node_vectors")[0].data
    assert step["embedded_now"] == 0 and step["from_workspace_cache"] == step["reached"]
    assert emb.texts == first_texts - embedded and again.node_ranking == first.node_ranking  # no node text
    # another cut is other texts: its own folder, embedded again
    run(q, ws, backends=b, config=cfg.with_(node_text_chars=64))
    assert len(list((ws.index_dir / "extra").glob("fastinsight_nodes_64.lazy-*"))) == 1


def test_a_damaged_shard_is_embedded_again(demo_ws, tmp_path):
    ws = _copy(demo_ws, tmp_path)
    b = Backends(HashingEmbedder(dim=128), NoLLM(), BiEncoderReranker(HashingEmbedder(dim=128)))
    q = load_questions(ws)[0].question
    good = run(q, ws, backends=b, config=LAZY)
    for p in (ws.index_dir / "extra").glob("*.lazy-*/rows-*.npz"):
        p.write_bytes(p.read_bytes()[:50])
    _new_process()
    res = run(q, Workspace.open(ws.path), backends=b, config=LAZY)
    assert res.trace.stage("node_vectors")[0].data["embedded_now"] > 0 and res.node_ranking == good.node_ranking


def test_lazy_needs_no_preparation(demo_ws, tmp_path):
    ws = _copy(demo_ws, tmp_path)
    b = Backends(HashingEmbedder(dim=128), NoLLM(), None)
    ws.ensure_index(b.embedder)
    assert [p.key.split(":")[0] for p in pending_preparations(METHOD, ws, b)] == ["fastinsight-nodes"]
    assert pending_preparations(METHOD, ws, b, LAZY) == []


def test_concurrent_writers_and_merges_lose_no_row(tmp_path, monkeypatch):
    monkeypatch.setattr(lv, "MAX_SHARDS", 4)  # merge often
    n, dim = 400, 8
    truth = np.random.default_rng(0).standard_normal((n, dim)).astype(np.float32)
    folder = tmp_path / "cache"
    errors: list[BaseException] = []
    seen_wrong: list[int] = []

    def writer(w: int) -> None:
        try:
            cache = LazyVectorCache(folder, dim=dim, n=n)  # its own object: another process
            for lo in range(w * 10, n, 40):
                ids = np.arange(lo, min(lo + 10, n))
                cache.add(ids, truth[ids])
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    def reader() -> None:
        cache = LazyVectorCache(folder, dim=dim, n=n)
        for _ in range(30):
            for i, v in cache.rows(np.arange(n)).items():
                if not np.array_equal(v, truth[i]):
                    seen_wrong.append(i)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)] + [threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and not seen_wrong
    fresh = LazyVectorCache(folder, dim=dim, n=n)
    got = fresh.rows(np.arange(n))
    assert sorted(got) == list(range(n))
    np.testing.assert_array_equal(np.stack([got[i] for i in range(n)]), truth)
    assert len(list(folder.glob("rows-*.npz"))) <= lv.MAX_SHARDS + 4  # merged as it went


def test_rows_and_search_match_the_full_matrix(demo_ws, tmp_path):
    """The lazy stand-in against the array it replaces: same rows, same STeX, and its search is the full
    search restricted to the pool (brute force)."""
    ws = _copy(demo_ws, tmp_path)
    emb = HashingEmbedder(dim=64)
    ng = node_graph(ws.graph)
    full = emb.embed(list(ng.passages))
    pool = np.arange(0, ng.n, 3)
    lazy = LazyNodeVectors(ng.passages, emb, LazyVectorCache(tmp_path / "c", dim=64, n=ng.n), pool)
    qv = emb.embed_queries(["Keanu Reeves film"])[0]
    ids, sims = vector_search(qv, lazy, 5)
    brute = sorted(pool.tolist(), key=lambda i: (-float(full[i] @ qv), i))[:5]
    assert ids.tolist() == brute
    np.testing.assert_allclose(sims, full[ids] @ qv, atol=1e-6)
    exclude = np.zeros(ng.n, dtype=bool)
    exclude[ids[:2]] = True
    assert vector_search(qv, lazy, 3, exclude=exclude)[0].tolist() == brute[2:5]
    a, b = stex(qv, lazy, ng, ids.tolist()), stex(qv, full, ng, ids.tolist())
    assert a.candidates.tolist() == b.candidates.tolist()
    np.testing.assert_allclose(a.scores, b.scores, atol=1e-6)
    with pytest.raises(IndexError, match=r"^node rows must be in 0\.\."):
        lazy[[ng.n]]


def test_top_passages_against_sorting():
    s = np.array([0.1, 0.9, 0.5, 0.9, -1.0])
    assert top_passages(s, 3).tolist() == [1, 3, 2] and top_passages(s, 99).tolist() == [1, 3, 2, 0, 4]
    with pytest.raises(ConfigError, match=r"^lazy_pool_passages must be at least 1, got 0\.$"):
        top_passages(s, 0)


@pytest.mark.parametrize(("kw", "msg"), [
    ({"node_vectors": "eager"},
     r"^FastInsightConfig\.node_vectors = 'eager' is out of range; use 'precomputed' or 'lazy'\.$"),
    ({"lazy_pool_passages": 0}, r"^FastInsightConfig\.lazy_pool_passages = 0 is out of range; use an integer >= 1\.$"),
])
def test_bad_lazy_settings_have_pinned_messages(kw, msg):
    with pytest.raises(ConfigError, match=msg):
        FastInsightConfig(**kw)
