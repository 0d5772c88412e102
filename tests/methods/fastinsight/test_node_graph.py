"""FastInsight on KG nodes (FastInsight §4.2.2): the node graph, node → passage
mapping, TR / MissTR and the diagnosis on the graph searched (networkx / brute-force oracles), the
node-vector cache, and ``graph="passages"`` reproducing the pre-node-mode results exactly."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from core.backends.embedders import HashingEmbedder
from core.backends.llm import NoLLM
from core.backends.rerankers import BiEncoderReranker
from core.errors import ConfigError, EmptyGraphError
from core.eval.metrics import round_metrics
from core.eval.result_metrics import topological_metrics
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.index.workspace import Workspace
from core.methods.base import Backends, Gold
from core.methods.fastinsight import METHOD, FastInsightConfig, passage_graph, run
from core.methods.fastinsight.node_graph import (
    KGNodeGraph,
    node_graph,
    node_text,
    passages_of_nodes,
)
from core.methods.fastinsight.node_vectors import has_node_vectors, node_texts_key, node_vectors_name

MATRIX_Q = "Who played the main villain in the movie where Keanu Reeves and Laurence Fishburne starred together?"
GOLDEN = Path(__file__).parent / "data" / "passages_mode_demo_2dfdf92.json"


def _kg_nx(ws: Workspace) -> nx.Graph:
    """The KG as a simple undirected networkx graph on node indices (the oracle)."""
    kg = ws.graph
    g = nx.Graph()
    g.add_nodes_from(range(kg.n_nodes))
    g.add_edges_from((int(h), int(t)) for h, t in zip(kg.edge_head, kg.edge_tail) if h != t)
    return g


def _tr_brute(g: nx.Graph, retrieved: list[int], oracle: list[int]) -> tuple[float, float]:
    """TR and MissTR by Definition 7 / Corollary 1, enumerating every shortest path with networkx."""
    def u(target: int) -> float:
        if target in retrieved:
            return 0.0
        best = math.inf
        for s in retrieved:
            if not nx.has_path(g, s, target):
                continue
            for path in nx.all_shortest_paths(g, s, target):
                best = min(best, sum(math.log1p(g.degree[x]) for x in path if x != target))
        return best

    vals = {o: 1.0 / (1.0 + u(o)) for o in oracle}
    tr = float(np.mean(list(vals.values())))
    miss = [o for o in oracle if o not in set(retrieved)]
    miss_tr = len(miss) / len(oracle) * float(np.mean([vals[o] for o in miss])) if miss else 0.0
    return tr, miss_tr


# ------------------------------------------------------------------------------------ the node graph
def test_node_graph_is_the_kg_undirected_with_the_paper_node_texts(demo_ws):
    kg = demo_ws.graph
    ng = node_graph(kg)
    assert isinstance(ng, KGNodeGraph) and ng.source == "kg_nodes" and ng.n == kg.n_nodes
    assert ng.chunk_ids == kg.node_ids and ng.names == kg.node_names and ng.linked == kg.node_chunks
    oracle = _kg_nx(demo_ws)
    assert {tuple(sorted((int(a), int(b)))) for a in range(ng.n) for b in ng.neighbors(a)} == \
        {tuple(sorted(e)) for e in oracle.edges}
    assert ng.degree.tolist() == [oracle.degree[v] for v in range(ng.n)]
    for v in range(kg.n_nodes):
        texts = [kg.chunk(c).text for c in kg.node_chunks[v]]
        head = f"{kg.node_names[v]}: {kg.node_descriptions[v]}" if kg.node_descriptions[v] else kg.node_names[v]
        assert ng.passages[v] == "\n".join([head, " ".join(texts)])[:512]
        assert len(ng.passages[v]) <= 512
    assert node_graph(kg) is node_graph(kg) and node_graph(kg, max_chars=40) is not node_graph(kg)
    assert max(len(t) for t in node_graph(kg, max_chars=40).passages) == 40
    assert node_text(kg, 0, max_chars=5) == ng.passages[0][:5]


def test_passages_of_nodes_matches_brute_force(demo_ws):
    kg = demo_ws.graph
    ng = node_graph(kg)
    rng = np.random.default_rng(0)
    for _ in range(20):
        ranking = rng.permutation(ng.n)[:15]
        scores = np.sort(rng.random(15))[::-1]
        sims = {c.id: float(x) for c, x in zip(kg.chunks, rng.random(kg.n_chunks))}
        got = passages_of_nodes(ng, ranking, scores, passage_scores=sims)
        want: list[tuple[str, float, int]] = []
        for r, v in enumerate(ranking.tolist(), start=1):
            for c in sorted(kg.node_chunks[v], key=lambda c: -sims[c]):
                if c not in [w[0] for w in want]:
                    want.append((c, float(scores[r - 1]), r))
        assert got == want
    assert passages_of_nodes(ng, []) == []


# ------------------------------------------------------------------------------------ the run
def test_default_run_searches_kg_nodes_and_maps_them_to_passages(demo_ws, backends):
    res = run(MATRIX_Q, demo_ws, backends=backends)
    ng = node_graph(demo_ws.graph)
    assert res.searched == "kg_nodes" and res.config.graph == "kg_nodes"
    stages = [s.stage for s in res.trace.steps]
    assert stages[:4] == ["node_graph", "reranker", "vector_search", "granker"]
    assert stages[-3:] == ["node_passages", "retrieved", "answer"]
    step = res.trace.stage("node_graph")[0].data
    assert step["graph"] == "kg_nodes" and step["nodes"] == ng.n and step["edges"] == ng.n_edges
    assert res.trace.stage("retrieved")[0].data["graph"] == "kg_nodes"
    # the engine ranks nodes; the node ranking is kept, and its passages are what R@k sees
    assert len(res.node_ranking) == min(100, ng.n) == res.engine.ranking.size
    assert list(res.node_ranking) == res.engine.ranking.tolist()  # node rows of the graph (the eval contract)
    assert res.trace.stage("node_passages")[0].data["node_ranking"] == [ng.chunk_ids[v] for v in res.node_ranking[:50]]
    sims = demo_ws.index("chunks").scores(backends.embed_query(MATRIX_Q))
    want = passages_of_nodes(ng, res.engine.ranking, res.engine.scores,
                             passage_scores={c.id: float(x) for c, x in zip(demo_ws.graph.chunks, sims.tolist())})
    assert list(res.retrieved) == [c for c, _, _ in want]
    assert [(c.chunk_id, c.score) for c in res.ranked_chunks] == [(c, s) for c, s, _ in want[:10]]
    assert res.trace.stage("vector_search")[0].data["node_ids"] == [ng.chunk_ids[int(v)]
                                                                    for v in res.engine.rounds[0].added]
    assert res.search_graph(demo_ws) is ng


def test_stex_adds_only_kg_neighbours_of_retrieved_nodes(demo_ws, backends):
    ng = node_graph(demo_ws.graph)
    kg = _kg_nx(demo_ws)
    for q in load_questions(demo_ws):
        r = run(q.question, demo_ws, backends=backends, config=FastInsightConfig(batch=2, b_max=10))
        seen = set(r.engine.rounds[0].added.tolist())
        for rd in r.engine.rounds[1:]:
            if not rd.fallback:
                for v in rd.added.tolist():
                    assert set(kg.neighbors(v)) & seen, (q.id, rd.index, ng.names[v])
            seen |= set(rd.added.tolist())
        assert len(seen) == 10


def test_corpus_graph_is_searched_as_it_is_and_the_trace_says_so(corpus_ws, backends):
    res = run("Which prompting strategy does agentic RAG use?", corpus_ws,
              config=FastInsightConfig(batch=2, b_max=6, top_k=5), backends=backends)
    assert res.searched == "passages" and res.node_ranking == () and "corpus graph" in res.node_ranking_note
    step = res.trace.stage("passage_graph")[0]
    assert step.data["source"] == "corpus_graph" and step.data["graph"] == "passages"
    assert "corpus graph" in step.fallback and res.trace.stage("retrieved")[0].data["graph"] == "passages"


def test_kg_without_nodes_falls_back_to_passages_visibly(tmp_path, backends):
    """A KG workspace searches its nodes; a KG with passages but no node (nothing extracted) cannot,
    and says so (the run then searches passages, recorded as a fallback)."""
    from types import SimpleNamespace

    from core.graph.graph_builder import GraphBuilder
    from core.index.create import create_workspace
    from core.methods.fastinsight.pipeline import _searches_nodes

    src = tmp_path / "triples.csv"
    src.write_text("head,relation,tail,chunk\nParis,capital of,France,c1\n", encoding="utf-8")
    ws = create_workspace([src], tmp_path / "ws", embedder=backends.embedder)
    assert ws.graph.kind == "kg" and ws.graph.n_nodes > 0
    assert run("capital of France?", ws, backends=backends).searched == "kg_nodes"
    b = GraphBuilder(name="bare")
    b.add_chunk("Paris", "Paris is the capital of France.", chunk_id="c1")
    bare = b.build(allow_empty=True)
    assert bare.kind == "kg" and bare.n_nodes == 0 and bare.n_chunks == 1
    use, why = _searches_nodes(SimpleNamespace(graph=bare), FastInsightConfig())  # type: ignore[arg-type]
    assert not use and why.startswith("The workspace's KG has no nodes (a passage corpus without triples)")
    assert _searches_nodes(SimpleNamespace(graph=bare), FastInsightConfig(graph="passages")) == (False, "")  # type: ignore[arg-type]
    with pytest.raises(EmptyGraphError, match="has no nodes"):
        node_graph(bare)


def test_graph_config_validation_and_help():
    assert FastInsightConfig().graph == "kg_nodes" and FastInsightConfig().node_text_chars == 512
    assert "§4.2.2" in FastInsightConfig.help()["graph"]
    with pytest.raises(ConfigError, match=r"^FastInsightConfig\.graph = 'nodes' is out of range; "
                                          r"use 'kg_nodes' or 'passages'\.$"):
        FastInsightConfig(graph="nodes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^FastInsightConfig\.node_text_chars = 3 is out of range; "
                                          r"use an integer >= 16\.$"):
        FastInsightConfig(node_text_chars=3)
    assert METHOD.make_config(graph="passages").graph == "passages"


def test_passages_option_reproduces_the_results_before_node_mode(demo_ws, backends):
    """``graph="passages"`` gives exactly what FastInsight gave before node mode existed: the demo's
    questions under two configs, recorded with commit 2dfdf92 (hashing embedder dim 128, bi-encoder)."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert len(golden) == 10
    for rec in golden:
        r = run(rec["question"], demo_ws, backends=backends, config=FastInsightConfig(graph="passages", **rec["config"]))
        assert r.searched == "passages"
        assert [[c.chunk_id, round(c.score, 6)] for c in r.ranked_chunks] == rec["ranked"]
        assert list(r.retrieved) == rec["retrieved"]
        assert [x.ranking.tolist() for x in r.engine.rounds] == rec["rounds"]


# ------------------------------------------------------------------------------------ TR / MissTR, diagnosis
def test_tr_and_misstr_on_the_node_graph_match_networkx(demo_ws, backends):
    kg = _kg_nx(demo_ws)
    ng = node_graph(demo_ws.graph)
    checked = 0
    for q in load_questions(demo_ws):
        for b_max in (3, 10):
            r = run(q.question, demo_ws, backends=backends, config=FastInsightConfig(batch=3, b_max=b_max))
            got = topological_metrics(demo_ws, [c.chunk_id for c in r.ranked_chunks], q.gold_chunks, result=r)
            ret = list(r.node_ranking[:10])
            oracle = sorted({v for v in range(ng.n) if set(demo_ws.graph.node_chunks[v]) & set(q.gold_chunks)})
            tr, miss = _tr_brute(kg, ret, oracle)
            assert got["TR"] == pytest.approx(tr, abs=1e-12) and got["MissTR"] == pytest.approx(miss, abs=1e-12)
            checked += 1
    assert checked == 10
    # passages mode keeps the passage graph (TR over the top 10 passages, gold passages as oracle)
    q = load_questions(demo_ws)[0]
    r = run(q.question, demo_ws, backends=backends, config=FastInsightConfig(graph="passages"))
    pg = passage_graph(demo_ws.graph)
    g = pg.to_networkx()
    tr, miss = _tr_brute(g, [pg.index_of(c.chunk_id) for c in r.ranked_chunks[:10]],
                         [pg.index_of(c) for c in q.gold_chunks])
    got = topological_metrics(demo_ws, [c.chunk_id for c in r.ranked_chunks], q.gold_chunks, result=r)
    assert got == {"TR": pytest.approx(tr, abs=1e-12), "MissTR": pytest.approx(miss, abs=1e-12)}


def test_round_metrics_on_the_node_graph(demo_ws, backends):
    q = load_questions(demo_ws)[0]
    r = run(q.question, demo_ws, backends=backends, config=FastInsightConfig(batch=5, b_max=15))
    ng = r.search_graph(demo_ws)
    mets = round_metrics(r.engine, ng, q.gold_chunks, k=10)
    sizes = [m.retrieved for m in mets]
    assert sizes[::2] == sizes[1::2] == [rd.size for rd in r.engine.rounds] and sizes[0] == 5 and sizes[-1] == 15
    last = next(m for m in mets if m.round == r.engine.final.index and m.ranking == "GRanker")
    ids = [c for c, _, _ in passages_of_nodes(ng, r.engine.final.granker.ranking)]
    assert last.recall == pytest.approx(len(set(ids[:10]) & set(q.gold_chunks)) / min(10, len(q.gold_chunks)))
    assert 0 <= last.miss_tr <= last.tr <= 1


def test_diagnosis_reaches_gold_passages_through_their_nodes(demo_ws, backends):
    kg = _kg_nx(demo_ws)
    ng = node_graph(demo_ws.graph)
    stages = set()
    for q in load_questions(demo_ws):
        r = run(q.question, demo_ws, backends=backends, config=FastInsightConfig(batch=2, b_max=4, top_k=3))
        d = METHOD.diagnose(r, demo_ws, Gold(q.id, q.gold_chunks), cut=1)
        ret = set(r.node_ranking)
        for cid, info in d.evidence.get("lost", {}).items():
            linked = {v for v in range(ng.n) if cid in demo_ws.graph.node_chunks[v]}
            stages.add(info["stage"])
            if info["stage"] == "ranked_out":
                assert linked & ret and cid in r.retrieved
            elif info["stage"] == "not_expanded":
                assert not linked & ret and cid not in r.retrieved
                dist = min((nx.shortest_path_length(kg, s, t) for s in ret for t in linked
                            if nx.has_path(kg, s, t)), default=None)
                assert info["hops_from_n_ret"] == (dist if dist is not None and dist <= 6 else None)
    assert stages == {"ranked_out", "not_expanded"}


# ------------------------------------------------------------------------------------ the node-vector cache
def _copy_ws(demo_ws: Workspace, tmp_path: Path) -> Workspace:
    shutil.copytree(demo_ws.path, tmp_path / "demo")
    ws = Workspace.open(tmp_path / "demo")
    shutil.rmtree(ws.index_dir / "extra", ignore_errors=True)  # other tests of the session ran on demo_ws
    return ws


def test_node_vectors_are_embedded_once_and_reused(demo_ws, tmp_path):
    ws = _copy_ws(demo_ws, tmp_path)
    calls: list[int] = []

    class Counting(HashingEmbedder):
        def embed(self, texts, *, batch_size=64):  # type: ignore[no-untyped-def]
            calls.append(len(texts))
            return super().embed(texts, batch_size=batch_size)

    emb = Counting(dim=128)
    b = Backends(emb, NoLLM(), BiEncoderReranker(emb))
    name = node_vectors_name(512)
    assert not has_node_vectors(ws, emb)
    first = run(MATRIX_Q, ws, backends=b)
    assert first.trace.stage("node_graph")[0].data["node_vectors"] == "embedded now"
    assert sum(calls) >= ws.graph.n_nodes
    assert has_node_vectors(ws, emb)
    calls.clear()
    again = run(MATRIX_Q, Workspace.open(ws.path), backends=b)  # a new process would open it like this
    assert again.trace.stage("node_graph")[0].data["node_vectors"] == "read from the workspace cache"
    assert max(calls) < 20 and again.ranked_chunks == first.ranked_chunks  # queries and answer sentences only
    files = sorted(p.name for p in (ws.index_dir / "extra").iterdir() if not p.name.endswith(".lock"))
    assert files == [f"{name}.faiss", f"{name}.json", f"{name}.rows.npy"]  # FAISS, JSON, a plain .npy: no pickle
    for p in (ws.index_dir / "extra").glob(f"{name}.*"):
        assert not p.read_bytes().startswith(b"\x80"), p  # no pickle protocol header
    meta = json.loads((ws.index_dir / "extra" / f"{name}.json").read_text())
    assert meta["model_id"] == emb.model_id and meta["items"] == ws.graph.n_nodes
    assert meta["texts_key"] == node_texts_key(ws, 512)  # the graph's content hash: checked without a text
    # another cap is other texts: embedded into its own file
    run(MATRIX_Q, ws, backends=b, config=FastInsightConfig(node_text_chars=64))
    assert (ws.index_dir / "extra" / f"{node_vectors_name(64)}.faiss").exists()


def test_a_damaged_node_vector_file_is_rebuilt_with_a_note(demo_ws, backends, tmp_path):
    ws = _copy_ws(demo_ws, tmp_path)
    good = run(MATRIX_Q, ws, backends=backends)
    path = ws.index_dir / "extra" / f"{node_vectors_name(512)}.faiss"
    path.write_bytes(path.read_bytes()[:100])  # truncated
    res = run(MATRIX_Q, Workspace.open(ws.path), backends=backends)
    step = res.trace.stage("node_graph")[0]
    assert step.data["node_vectors"] == "embedded now"
    assert step.fallback.startswith(f"The cached vectors '{node_vectors_name(512)}' were damaged (This workspace is "
                                    f"damaged: {path} is 100 bytes") and step.fallback.endswith("embedded again.")
    assert res.ranked_chunks == good.ranked_chunks
    (ws.index_dir / "extra" / f"{node_vectors_name(512)}.json").write_text("{not json", encoding="utf-8")
    res = run(MATRIX_Q, Workspace.open(ws.path), backends=backends)
    assert "unreadable" in res.trace.stage("node_graph")[0].fallback and res.ranked_chunks == good.ranked_chunks
    assert run(MATRIX_Q, Workspace.open(ws.path), backends=backends).trace.stage("node_graph")[0].fallback == ""


def test_another_embedder_gets_its_own_node_vectors(demo_ws, tmp_path):
    ws = _copy_ws(demo_ws, tmp_path)
    emb = HashingEmbedder(dim=64)
    res = run(MATRIX_Q, ws, backends=Backends(emb, NoLLM(), BiEncoderReranker(emb)))
    assert res.trace.stage("node_graph")[0].data["node_vectors"] == "embedded now"
    meta = json.loads((ws.index_dir / "extra" / f"{node_vectors_name(512)}.json").read_text())
    assert meta["model_id"] == emb.model_id and meta["dim"] == 64


def test_sample_workspace_builds_no_node_vectors(tmp_path):
    """Node vectors are embedded on FastInsight's first use, not at index build (a MuSiQue build with a
    real model would otherwise always pay for 16k more texts)."""
    ws = ensure_sample_workspace("demo", HashingEmbedder(dim=32), root=tmp_path)
    assert not (ws.index_dir / "extra").exists()
