"""FastInsight never loads the whole graph from a graph store.

On a FalkorDB workspace FastInsight's KG-node search (§4.2.2, the default on KGs) reads the node
texts, neighbour rows and degrees Algorithm 1 touches (:class:`StoreNodeGraph`) and must return
exactly what it returns in memory: every round's STeX proposal and GRanker ranking, the ranked
passages, the answer and its evidence. The oracles: the in-memory node graph's CSR rows, degrees and
texts, and brute force over the graph's edges."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.graph.graph_builder import GraphBuilder
from core.graph.stores.falkor import FalkorStore
from core.graph.stores.falkor_load import load_graph_into
from core.graph.stores.store import MemoryStore, parse_store_url
from core.graph.view import StoreGraphView
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.index.workspace import Workspace
from core.methods.base import Backends
from core.methods.fastinsight import FastInsightConfig
from core.methods.fastinsight.node_graph import node_graph
from core.methods.fastinsight.node_vectors import has_node_vectors
from core.methods.fastinsight.pipeline import run
from core.methods.fastinsight.store_graph import StoreNodeGraph
from core.methods.kg_nodes import StoreNodeTexts
from tests.methods.store_helpers import no_whole_graph, store_pair


def _pair(sample: str, root: Path, server, emb) -> tuple[Workspace, Workspace]:
    # without the copied node vectors: the store embeds its own node texts
    return store_pair(sample, root, server, emb, f"fastinsight_{sample}", drop_method_vectors=True)


@pytest.fixture(scope="module")
def demo_pair(tmp_path_factory, falkordb_server, hashing) -> tuple[Workspace, Workspace]:
    return _pair("demo", tmp_path_factory.mktemp("fastinsight_store_demo"), falkordb_server, hashing)


def _signature(r) -> tuple:  # type: ignore[no-untyped-def]
    rounds = tuple((tuple(x.added.tolist()), tuple(x.granker.ranking.tolist()), np.round(x.granker.scores, 9).tolist(),
                    None if x.proposed is None else (tuple(x.proposed.candidates.tolist()),
                                                     np.round(x.proposed.scores, 9).tolist(),
                                                     x.proposed.c_max.tolist()), x.fallback)
                   for x in r.engine.rounds)
    answer = {k: v for k, v in r.trace.stage("answer")[0].data.items() if "seconds" not in k}
    return (tuple((c.chunk_id, round(c.score, 9)) for c in r.ranked_chunks), r.retrieved, r.node_ranking,
            r.answer, answer, rounds, r.searched)


CONFIGS = [FastInsightConfig(), FastInsightConfig(alpha=0.0), FastInsightConfig(batch=3, b_max=20, beta=2.0),
           FastInsightConfig(node_text_chars=80, evidence_format="triples")]


def _compare(mem: Workspace, remote: Workspace, questions: list[str], backends: Backends,
             configs: list[FastInsightConfig]) -> list[dict[str, int]]:
    reads = []
    for q in questions:
        for cfg in configs:
            a = run(q, mem, backends=backends, config=cfg)
            b = run(q, remote, backends=backends, config=cfg)
            assert _signature(a) == _signature(b), (q, cfg)
            step = b.trace.stage("node_graph")[0]
            assert step.data["store"] == remote.store_url and "isolated_nodes" not in step.data
            reads.append(b.trace.stage("node_passages")[0].data["store_reads"])
    return reads


def test_fastinsight_on_the_store_equals_memory_and_reads_only_what_it_touches(demo_pair, backends, monkeypatch):
    mem, remote = demo_pair
    no_whole_graph(monkeypatch)
    assert not has_node_vectors(remote, backends.embedder)
    # the bi-encoder over the index embedder reads its features from the vectors; another one reads texts
    other = HashingEmbedder(dim=96, seed=3)
    texts = Backends(backends.embedder, NoLLM(), BiEncoderReranker(other))
    reads = _compare(mem, remote, [q.question for q in load_questions(mem)], backends, CONFIGS)
    reads += _compare(mem, remote, [q.question for q in load_questions(mem)], texts, CONFIGS[:2])
    assert has_node_vectors(remote, backends.embedder)  # embedded from the store's pages on first use
    assert "graph" not in remote.__dict__  # Workspace.graph was never read
    assert all(r["neighbor_rows"] > 0 and r["degrees"] > 0 for r in reads)
    assert max(r["node_rows"] for r in reads[-10:]) > 0  # the text-reading reranker read node rows


def test_store_node_graph_is_the_node_graph(demo_pair, monkeypatch):
    """The oracle: item for item, :class:`StoreNodeGraph` is :func:`node_graph` of the whole graph."""
    mem, remote = demo_pair
    ng = node_graph(mem.graph, max_chars=200)
    no_whole_graph(monkeypatch)
    sg = StoreNodeGraph.open(remote.store, max_chars=200)
    every = np.arange(ng.n)
    assert sg.n == ng.n and sg.source == ng.source == "kg_nodes"
    assert list(sg.chunk_ids) == list(ng.chunk_ids) and list(sg.names) == list(ng.names)
    assert list(sg.passages) == list(ng.passages) and [tuple(x) for x in sg.linked] == list(ng.linked)
    lens_a, nb_a = ng.adjacent(every[::-1])
    lens_b, nb_b = sg.adjacent(every[::-1])
    assert np.array_equal(lens_a, lens_b) and np.array_equal(nb_a, nb_b)
    assert np.array_equal(sg.degrees_of(every), ng.degree)
    sub = every[::3]
    assert np.array_equal(sg.subgraph_adjacency(sub), ng.subgraph_adjacency(sub))
    gold = [mem.graph.chunks[0].id, mem.graph.chunks[-1].id]
    assert np.array_equal(sg.gold_nodes(gold), ng.gold_nodes(gold))
    assert sg.index_of(ng.chunk_ids[7]) == 7
    assert [t for page in StoreNodeTexts(remote.store, max_chars=200).pages() for t in page] == list(ng.passages)


def test_neighbour_rows_and_counts_against_brute_force(tmp_path, falkordb_server):
    """Self-loops add nothing, parallel and opposite edges count once, either direction counts."""
    b = GraphBuilder()
    c = b.add_chunk("T", "text", chunk_id="c")
    for h, r, t in [("a", "r", "b"), ("b", "s", "a"), ("a", "r2", "b"), ("a", "self", "a"), ("c", "r", "a"),
                    ("d", "r", "d"), ("e", "r", "b")]:
        b.add_triple(h, r, t, chunk_id=c)
    g = b.build()
    load_graph_into(g, parse_store_url(falkordb_server.url("nbr_oracle")), overwrite=True)
    remote = FalkorStore.open(parse_store_url(falkordb_server.url("nbr_oracle")))
    nodes = list(range(g.n_nodes))
    want = [sorted({int(x) for e in range(g.n_edges) for x in (g.edge_head[e], g.edge_tail[e])
                    if v in (int(g.edge_head[e]), int(g.edge_tail[e])) and int(x) != v}) for v in nodes]
    for store in (MemoryStore(g), remote):
        assert [r.tolist() for r in store.neighbor_lists(nodes[::-1])] == want[::-1]
        assert store.neighbor_counts(nodes).tolist() == [len(w) for w in want]
        assert store.node_table([1, 0]) == [(g.node_ids[v], g.node_names[v], g.node_descriptions[v],
                                             tuple(g.node_chunks[v])) for v in (1, 0)]
    d = g.node_index["d"]
    assert want[d] == [] and remote.neighbor_counts([d]).tolist() == [0]


@pytest.mark.slow  # 25 s on 2 cores
def test_musique_fastinsight_same_results_from_the_store(tmp_path_factory, falkordb_server, hashing, backends,
                                                         monkeypatch):
    """The first 10 MuSiQue questions (16k nodes): a question reads a small part of the store."""
    mem, remote = _pair("musique", tmp_path_factory.mktemp("fastinsight_store_musique"), falkordb_server, hashing)
    no_whole_graph(monkeypatch)
    questions = [q.question for q in load_questions(mem)][:10]
    reads = _compare(mem, remote, questions, backends, [FastInsightConfig()])
    n = remote.store.n_nodes
    assert max(r["neighbor_rows"] for r in reads) <= 100 < n  # b_max retrieved nodes
    assert max(r["degrees"] for r in reads) < n // 2


def test_node_vectors_survive_the_move_to_a_store(tmp_path, falkordb_server, hashing):
    """The cache key is the graph's content and provenance hashes (recorded in the manifest), not the
    texts: vectors embedded in memory are read, not embedded again, once the graph lives in FalkorDB."""
    from core.methods.fastinsight.node_vectors import node_texts_key, node_vectors

    ws = ensure_sample_workspace("demo", hashing, root=tmp_path / "mem")
    _, first = node_vectors(ws, hashing)
    key = node_texts_key(ws, 512)
    ws.move_to_store(falkordb_server.url("fastinsight_move"), overwrite=True)
    moved = Workspace.open(ws.path)
    assert moved.store.remote and node_texts_key(moved, 512) == key and has_node_vectors(moved, hashing)
    sg, again = node_vectors(moved, hashing)
    assert isinstance(sg, StoreNodeGraph) and not again.built
    assert np.array_equal(again.vectors, first.vectors)


def test_provenance_is_part_of_the_node_text_key():
    """Same triples and passages, a triple citing another passage: the node texts differ, so must the key."""
    def graph(cite: str):  # type: ignore[no-untyped-def]
        b = GraphBuilder()
        a = b.add_chunk("A", "Paris is in France.", chunk_id="a")
        c = b.add_chunk("C", "Lyon is in France.", chunk_id="c")
        b.add_triple("Paris", "in", "France", chunk_id=a if cite == "a" else c)
        return b.build()

    g1, g2 = graph("a"), graph("c")
    assert g1.content_hash == g2.content_hash and g1.provenance_hash != g2.provenance_hash
    assert node_graph(g1).passages != node_graph(g2).passages


def test_tr_and_the_granker_views_read_the_store_layer_by_layer(demo_pair, backends, monkeypatch):
    """TR / MissTR (§4.3.2) of a run on KG nodes, per round and in the bench record, and the GRanker page's
    tables are the in-memory ones, computed on the store's node graph without reading the whole graph."""
    from core.eval.metrics import round_metrics
    from core.eval.result_metrics import topological_metrics
    from core.methods.fastinsight.views import rank_comparison, smoothing_graph, stex_table

    mem, remote = demo_pair
    no_whole_graph(monkeypatch)
    measured = 0
    for q in [q for q in load_questions(mem) if q.gold_chunks]:
        a = run(q.question, mem, backends=backends)
        b = run(q.question, remote, backends=backends)
        pa, pb = a.search_graph(mem), b.search_graph(remote)
        assert isinstance(pb, StoreNodeGraph) and not isinstance(pa, StoreNodeGraph)
        gold = list(q.gold_chunks)
        assert round_metrics(b.engine, pb, gold) == round_metrics(a.engine, pa, gold)
        tm = topological_metrics(remote, [c.chunk_id for c in b.ranked_chunks], gold, result=b)
        assert tm == topological_metrics(mem, [c.chunk_id for c in a.ranked_chunks], gold, result=a)
        measured += bool(tm)
        view = StoreGraphView(remote.store)
        fa, fb = a.engine.rounds[-1].granker, b.engine.rounds[-1].granker
        assert rank_comparison(fb, pb, view, gold) == rank_comparison(fa, pa, mem.graph, gold)
        assert smoothing_graph(fb, pb, view, limit=12).to_dict() == smoothing_graph(fa, pa, mem.graph, limit=12).to_dict()
        for ra, rb in zip(a.engine.rounds, b.engine.rounds):
            assert stex_table(rb, pb, view) == stex_table(ra, pa, mem.graph)
    assert measured >= 3  # TR was defined (gold nodes exist) for most demo questions
    assert "graph" not in remote.__dict__


def test_the_failure_diagnosis_on_a_store_equals_memory(demo_pair, backends):
    """The diagnosis walks the whole node graph (BFS from N_ret, by definition): on a store it reads it
    once and gives the in-memory verdicts (the store's node graph has no CSR to walk)."""
    from core.eval.diagnose import diagnose
    from core.methods.base import Gold

    mem, remote = demo_pair
    lost = 0
    for q in [q for q in load_questions(mem) if q.gold_chunks]:
        gold = Gold(q.id, tuple(q.gold_chunks), (q.answer,) if q.answer else ())
        for cut in (1, 5):
            a = diagnose(run(q.question, mem, backends=backends), mem, gold, cut=cut)
            b = diagnose(run(q.question, remote, backends=backends), remote, gold, cut=cut)
            assert a == b, (q.id, cut)
            lost += a.stage not in ("ok", "answer_wrong", "no_gold")
    assert lost >= 1  # some verdict walked the node graph


def test_lazy_node_vectors_on_the_store_equal_memory_without_a_whole_graph_read(demo_pair, backends, monkeypatch):
    """``node_vectors="lazy"`` on a graph store: the pool's passages, their nodes and the reached node texts
    are read row by row, and every round is the in-memory lazy run's."""
    mem, remote = demo_pair
    no_whole_graph(monkeypatch)
    lazy = [FastInsightConfig(node_vectors="lazy", lazy_pool_passages=4, batch=3, b_max=20)]
    _compare(mem, remote, [q.question for q in load_questions(mem)][:3], backends, lazy)  # no_whole_graph guards
