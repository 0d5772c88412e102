"""The reranker-feature store shared across runs (GRanker page sliders): hits, keys, bound, faithfulness.

A rerun with another α or β must re-run GRanker and STeX in full on the features earlier runs computed,
encode only the candidates no earlier run reached, and give exactly what a run without the store gives.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.methods.base import Backends
from core.methods.fastinsight import FastInsightConfig, run
from core.methods.fastinsight.granker import granker
from core.methods.reranking import (
    FeatureCache,
    FeatureStore,
    active_feature_store,
    feature_store,
    reranker_identity,
    text_digest,
)
from tests.methods.fastinsight.helpers import CountingReranker, MLPReranker, random_graph

MATRIX_Q = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"


class NamedCounting(CountingReranker):
    """A counting reranker under another name / model id (a different reranker, same numbers)."""

    def __init__(self, model_id: str) -> None:
        super().__init__()
        self.model_id = model_id


def test_a_second_cache_reads_back_what_the_first_encoded():
    pg = random_graph(30, 0.2, seed=1)
    rr, store = CountingReranker(), FeatureStore()
    a = FeatureCache(rr, "q", pg.passages, store=store, scope="passages")
    ha = a.get([0, 1, 2, 3])
    assert a.computed == 4 and a.reused == 0 and len(rr.seen) == 4
    b = FeatureCache(rr, "q", pg.passages, store=store, scope="passages")
    hb = b.get([3, 2, 1, 0, 4, 5])  # 4 known, 2 new
    assert (b.encoded, b.computed, b.reused) == (6, 2, 4) and len(rr.seen) == 6
    np.testing.assert_array_equal(hb[:4], ha[::-1])
    s = store.stats()
    assert s.rows == 6 and s.hits == 4 and s.misses == 4 + 2 and s.bytes == sum(r.nbytes for r in hb)


def test_keys_never_return_another_rerankers_question_scope_or_text():
    pg = random_graph(10, 0.3, seed=2)
    store = FeatureStore()
    first = CountingReranker()
    FeatureCache(first, "q", pg.passages, store=store, scope="kg_nodes:512").get([0, 1])
    # another model id, another question, another graph mode: each encodes again
    for rr, query, scope in ((NamedCounting("other-model"), "q", "kg_nodes:512"),
                             (CountingReranker(), "another question", "kg_nodes:512"),
                             (CountingReranker(), "q", "passages:shared_entity")):
        c = FeatureCache(rr, query, pg.passages, store=store, scope=scope)
        c.get([0, 1])
        assert c.reused == 0 and len(rr.seen) == 2, (rr.model_id, query, scope)
    # the same node index with another text (a rebuilt workspace): encoded again, never the old row
    changed = list(pg.passages)
    changed[0] = changed[0] + " and something new"
    rr = CountingReranker()
    c = FeatureCache(rr, "q", changed, store=store, scope="kg_nodes:512")
    h = c.get([0, 1])
    assert rr.seen == [changed[0]] and c.reused == 1
    np.testing.assert_array_equal(h[0], CountingReranker().features("q", [changed[0]])[0])
    # the identity names class, registry name, model id and truncation length
    assert reranker_identity(first) != reranker_identity(NamedCounting("x"))
    assert text_digest("a") != text_digest("b") and len(text_digest("a")) == 32


def test_the_store_is_bounded_by_rows_and_bytes_least_recently_used_first():
    store = FeatureStore(max_rows=3)
    keys = [("r", "s", "q", str(i)) for i in range(4)]
    rows = np.arange(16, dtype=np.float32).reshape(4, 4)
    store.put(keys[:3], rows[:3])
    assert store.get([keys[0]])[0] is not None  # key 0 is now the most recent
    store.put([keys[3]], rows[3:])
    assert len(store) == 3 and store.get([keys[1]]) == [None] and store.stats().evicted == 1
    assert all(r is not None for r in store.get([keys[0], keys[2], keys[3]]))
    by_bytes = FeatureStore(max_bytes=2 * rows[0].nbytes)
    by_bytes.put(keys, rows)
    assert len(by_bytes) == 2 and by_bytes.stats().bytes == 2 * rows[0].nbytes
    assert by_bytes.get(keys[:2]) == [None, None]
    stored = by_bytes.get([keys[3]])[0]
    assert stored is not None and not stored.flags.writeable  # a caller cannot change a shared row
    with pytest.raises(ValueError, match="needs room for a row"):
        FeatureStore(max_rows=0)


def test_the_store_is_safe_across_threads():
    store = FeatureStore(max_rows=500)
    keys = [("r", "s", "q", str(i)) for i in range(200)]

    def work(offset: int) -> None:
        for i in range(0, 200, 10):
            ks = keys[(i + offset) % 200:(i + offset) % 200 + 10]
            store.put(ks, np.ones((len(ks), 8), dtype=np.float32))
            store.get(ks)

    threads = [threading.Thread(target=work, args=(k * 7,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store) == 200 and store.stats().bytes == 200 * 32


def test_the_active_store_is_scoped_to_the_with_block():
    store = FeatureStore()
    assert active_feature_store() is None
    with feature_store(store):
        assert active_feature_store() is store
        seen: list[object] = []
        t = threading.Thread(target=lambda: seen.append(active_feature_store()))
        t.start()
        t.join()
        assert seen == [None]  # another thread (a benchmark job) does not share it unasked
    assert active_feature_store() is None


def test_precomputed_index_features_are_not_stored():
    pg = random_graph(8, 0.3, seed=3)
    store = FeatureStore()
    c = FeatureCache(CountingReranker(), "q", pg.passages, store=store,
                     precomputed=lambda nodes: np.ones((len(nodes), 4), dtype=np.float32))
    c.get([0, 1, 2])
    assert len(store) == 0 and c.computed == 3


def _backends(reranker: object) -> Backends:
    return Backends(HashingEmbedder(dim=64), NoLLM(), reranker)  # type: ignore[arg-type]


@pytest.mark.parametrize("graph", ["kg_nodes", "passages"])
def test_an_alpha_or_beta_rerun_encodes_only_new_candidates_and_equals_a_fresh_run(demo_ws, graph: str) -> None:
    """The loop re-runs in full (GRanker each round, STeX with the new β) on stored features: same result
    as a run without the store, with only candidates no earlier run reached sent through the reranker."""
    class Counting(MLPReranker):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def features(self, query: str, passages: Sequence[str]) -> np.ndarray:
            self.seen.extend(passages)
            return super().features(query, passages)

    store = FeatureStore()
    budget = 30 if graph == "kg_nodes" else 15  # of 87 nodes / 23 passages: α and β change which are reached
    base = FastInsightConfig(graph=graph, b_max=budget)
    with feature_store(store):
        rr = Counting()
        first = run(MATRIX_Q, demo_ws, config=base, backends=_backends(rr))
        items = set(first.search_graph(demo_ws).passages)  # texts of the searched graph (not answer sentences)

        def encoded_items(r: Counting) -> int:
            return sum(1 for t in r.seen if t in items)

        assert first.engine.reused == 0 and encoded_items(rr) == first.engine.encoded == budget
        for cfg in (base.with_(alpha=0.6), base.with_(alpha=0.0), base.with_(beta=0.0), base.with_(alpha=1.0, beta=3.0)):
            rr_again = Counting()
            again = run(MATRIX_Q, demo_ws, config=cfg, backends=_backends(rr_again))
            with feature_store(None):
                fresh = run(MATRIX_Q, demo_ws, config=cfg, backends=_backends(Counting()))
            assert again.retrieved == fresh.retrieved and again.ranked_chunks == fresh.ranked_chunks
            assert again.answer == fresh.answer
            for a, b in zip(again.engine.rounds, fresh.engine.rounds, strict=True):
                np.testing.assert_array_equal(a.granker.scores, b.granker.scores)
                np.testing.assert_array_equal(a.granker.plain_scores, b.granker.plain_scores)
            new = set(again.retrieved if graph == "passages" else again.node_ranking) - set(
                first.retrieved if graph == "passages" else first.node_ranking)
            step = again.trace.stage("retrieved")[0].data
            computed = encoded_items(rr_again)
            assert step["features_computed"] == computed and step["features_reused"] == again.engine.reused
            assert computed + again.engine.reused == again.engine.encoded == budget
            assert computed <= len(new)  # only candidates never reached before are encoded
            assert again.engine.reused >= budget - len(new) > 0


def test_alpha_zero_on_stored_features_is_plain_reranking(demo_ws) -> None:
    store = FeatureStore()
    with feature_store(store):
        run(MATRIX_Q, demo_ws, config=FastInsightConfig(alpha=0.2), backends=_backends(MLPReranker()))
        res = run(MATRIX_Q, demo_ws, config=FastInsightConfig(alpha=0.0), backends=_backends(MLPReranker()))
    assert res.engine.reused > 0
    for rnd in res.engine.rounds:
        g = rnd.granker
        np.testing.assert_array_equal(g.scores, g.plain_scores)
        np.testing.assert_array_equal(g.ranking, g.plain_ranking)


def test_granker_reads_rows_from_the_store_not_the_reranker():
    pg = random_graph(20, 0.25, seed=4)
    store = FeatureStore()
    rr = CountingReranker(BiEncoderReranker(HashingEmbedder(dim=32)))
    a = granker("q", [0, 1, 2, 3, 4], pg, rr, alpha=0.3,
                features=FeatureCache(rr, "q", pg.passages, store=store, scope="p"))
    rr.seen.clear()
    b = granker("q", [4, 3, 2, 1, 0], pg, rr, alpha=0.3,
                features=FeatureCache(rr, "q", pg.passages, store=store, scope="p"))
    assert rr.seen == []
    np.testing.assert_allclose(np.sort(a.scores), np.sort(b.scores))
