"""The passage methods (dense, Re2, PPR) never load the whole graph from a graph store.

On a FalkorDB workspace they read chunk rows, provenance and names from the store
(:class:`core.methods.passages.PassageSource`, PPR's region incidence) and must return exactly what they
return in memory: ranked passages with scores, the answer, and the answer step's evidence (the KG
triples of the top passages, as triples and as ReG chains)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.graph.stores.store import MemoryStore
from core.graph.view import StoreGraphView
from core.index.questions import load_questions
from core.index.workspace import Workspace
from core.methods.base import Backends
from core.methods.baselines.config import DenseConfig, PPRConfig, RerankConfig
from core.methods.baselines.ppr_graph import passage_incidence, region_incidence
from core.methods.run import run_method
from tests.methods.store_helpers import no_whole_graph, store_pair


def _answer_step(result: object) -> dict:
    step = result.trace.stage("answer")[0]  # type: ignore[attr-defined]
    return {k: v for k, v in step.data.items() if "seconds" not in k}


def _signature(result: object) -> tuple:
    r = result
    return (tuple((c.chunk_id, round(c.score, 9)) for c in r.ranked_chunks), r.answer,  # type: ignore[attr-defined]
            _answer_step(r))


def _pair(sample: str, root: Path, server, emb) -> tuple[Workspace, Workspace]:
    return store_pair(sample, root, server, emb, f"passages_{sample}")


@pytest.fixture(scope="module")
def demo_pair(tmp_path_factory, falkordb_server, hashing) -> tuple[Workspace, Workspace]:
    return _pair("demo", tmp_path_factory.mktemp("passages_demo"), falkordb_server, hashing)


CONFIGS = {  # method → (config in memory, config on the store)
    "dense": [(None, None), (DenseConfig(evidence_format="chains"),) * 2],
    "rerank": [(None, None), (RerankConfig(evidence_format="triples"),) * 2],
    # PPR: the store's default walks the 3-hop region of the seeds; in memory the same region is asked for
    "ppr": [(PPRConfig(region_hops=3), None), (PPRConfig(region_hops=2, node_specificity=False),) * 2,
            (PPRConfig(region_hops=3, evidence_format="chains"), PPRConfig(evidence_format="chains"))],
}


def _compare(mem: Workspace, remote: Workspace, questions: list[str], backends: Backends) -> dict[str, int]:
    evidence = dict.fromkeys(CONFIGS, 0)
    for q in questions:
        for method, pairs in CONFIGS.items():
            for cm, cr in pairs:
                a = run_method(method, q, mem, backends, config=cm)
                b = run_method(method, q, remote, backends, config=cr)
                assert _signature(a) == _signature(b), (method, q, cm)
                evidence[method] += bool(_answer_step(b).get("evidence_triples"))
                if method == "ppr":
                    assert "read from the graph store" in b.trace.stage("ppr_region")[0].fallback
                    assert b.details["seeds"] == a.details["seeds"]
    return evidence


def test_demo_passage_methods_read_only_rows_from_the_store(demo_pair, backends, monkeypatch):
    mem, remote = demo_pair
    no_whole_graph(monkeypatch)
    evidence = _compare(mem, remote, [q.question for q in load_questions(mem)], backends)
    assert all(evidence.values()), evidence  # the triple/chain evidence was really built from the store
    assert "graph" not in remote.__dict__  # Workspace.graph was never read


@pytest.mark.slow  # over a minute on 2 cores
def test_musique_passage_methods_same_results_from_the_store(tmp_path_factory, falkordb_server, hashing, backends,
                                                             monkeypatch):
    """The first 10 MuSiQue questions (1,890 passages, 16k nodes): rows, names and PPR's region
    incidence come from the store."""
    mem, remote = _pair("musique", tmp_path_factory.mktemp("passages_musique"), falkordb_server, hashing)
    questions = [q.question for q in load_questions(mem)][:10]
    no_whole_graph(monkeypatch)
    evidence = _compare(mem, remote, questions, backends)
    assert min(evidence.values()) >= len(questions), evidence


def test_chunk_rows_and_row_numbers_agree(demo_pair):
    mem, remote = demo_pair
    g = mem.graph
    rows = [3, 0, 3, g.n_chunks - 1]
    assert remote.store.chunk_rows(rows) == MemoryStore(g).chunk_rows(rows) == \
        [(g.chunks[r].id, g.chunks[r].title, g.chunks[r].text) for r in rows]
    ids = [g.chunks[5].id, "missing", g.chunks[1].id]
    assert remote.store.chunk_row_numbers(ids) == MemoryStore(g).chunk_row_numbers(ids) == {ids[0]: 5, ids[2]: 1}
    assert (remote.store.n_chunks, remote.store.kind) == (g.n_chunks, g.kind)


def test_chunk_row_beyond_the_store_is_a_clear_error(demo_pair):
    from core.errors import StoreError

    _, remote = demo_pair
    with pytest.raises(StoreError, match=r"no chunk at row\(s\) \[99999\].*Rebuild"):
        remote.store.chunk_rows([0, 99999])


def test_region_incidence_is_the_regions_columns_of_the_whole_incidence(demo_pair):
    """The oracle: PPR's store-side passage × node matrix equals the whole graph's, sliced to the region."""
    mem, remote = demo_pair
    g = mem.graph
    seeds = [0, g.n_nodes // 2]
    region = remote.store.region(seeds, hops=2, max_nodes=10_000)
    got = region_incidence(region.graph, StoreGraphView(remote.store)).toarray()
    want = passage_incidence(g)[:, region.nodes].toarray()
    assert got.shape == want.shape and np.array_equal(got, want) and got.sum() > 0


def test_in_memory_passage_methods_do_not_use_the_store(demo_pair, backends, monkeypatch):
    """The default store adds nothing: in memory the rows come from the graph's arrays."""
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("the in-memory path went through the store contract")

    for name in ("chunk_rows", "chunk_row_numbers", "chunks", "chunk_provenance", "node_rows", "nodes_named"):
        monkeypatch.setattr(MemoryStore, name, refuse)
    mem, _ = demo_pair
    q = load_questions(mem)[0].question
    for method in CONFIGS:
        r = run_method(method, q, mem, backends, config=replace(CONFIGS[method][1][0]))
        assert r.ranked_chunks


def test_questions_are_matched_against_the_store_chunk_rows(demo_pair, monkeypatch):
    """A workspace's questions file is matched to the store's chunks (rows read page by page), never
    to its whole graph, with the in-memory result (gold ids, unmatched titles)."""
    from core.index import questions

    mem, remote = demo_pair
    want = load_questions(mem)
    no_whole_graph(monkeypatch)
    monkeypatch.setattr(questions, "CHUNK_PAGE", 7)  # several pages even on the demo
    assert load_questions(remote) == want and any(q.gold_chunks for q in want)
    assert "graph" not in remote.__dict__
