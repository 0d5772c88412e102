"""BubbleRAG never loads the whole graph from a graph store.

On a FalkorDB workspace every stage reads through a per-question :class:`~core.graph.view.StoreGraphView`
(pre-retrieval and candidates: rows and names; G': the h-hop region; reasoning-aware expansion: the
frontier's incident edges per hop; the answer: provenance and chunks), and the run must equal the
in-memory run stage by stage: ranked chunks, answer, CEGs, G', G_final and every trace step's data.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.graph.model import KnowledgeGraph
from core.graph.stores.falkor import FalkorStore
from core.graph.stores.store import MemoryStore
from core.graph.view import StoreGraphView
from core.index.questions import load_questions
from core.index.samples import ensure_sample_workspace
from core.index.workspace import Workspace
from core.methods.bubblerag import BubbleConfig, run
from core.methods.bubblerag.reasoning import reasoning_expansion
from tests.fakes import ScriptedLLM

#: configurations whose stages read the graph differently: the paper's context, ours (+dense fill, the
#: preview fill), the ReG chain format (entity linking, triples), no CEG ranking, a shallow reasoning
CONFIGS = [
    BubbleConfig(),
    BubbleConfig(chunk_ranking="interleave", fill_with_preview=True),
    BubbleConfig(evidence_format="chains", ceg_ranking=False),
    BubbleConfig(d=1, n=5, h=2),
]


def _no_whole_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: FalkorStore) -> None:
        raise AssertionError(f"the whole graph was read from {self.url}")

    monkeypatch.setattr(FalkorStore, "graph", refuse)
    monkeypatch.setattr(FalkorStore, "_read_all", refuse)


def _steps(result) -> list[tuple]:
    """Every trace step, without timings and the store's own fields (its URL, its read time)."""
    out = []
    for s in result.trace.steps:
        data = {k: v for k, v in (s.data or {}).items() if "seconds" not in k and k != "store"}
        out.append((s.stage, repr(data), s.fallback))
    return out


def _signature(result) -> tuple:
    r = result
    return (tuple((c.chunk_id, round(c.score, 9), c.source) for c in r.chunks), r.answer, r.answer_by,
            tuple((x.ceg.nodes, x.ceg.edges, round(x.score, 9)) for x in r.ranked),
            (r.evidence.nodes, r.evidence.edges) if r.evidence else None,
            tuple(r.local.nodes.tolist()) if r.local is not None else None, _steps(r))


@pytest.fixture(scope="module")
def demo_pair(tmp_path_factory, falkordb_server, hashing) -> tuple[Workspace, Workspace]:
    root: Path = tmp_path_factory.mktemp("bubble_store")
    mem = ensure_sample_workspace("demo", hashing, root=root / "mem")
    dst = root / "store" / "demo"
    shutil.copytree(mem.path, dst)
    Workspace.open(dst).move_to_store(falkordb_server.url("bubble_demo"), overwrite=True)
    return mem, Workspace.open(dst)


def test_bubblerag_reads_only_what_it_needs_from_the_store(demo_pair, backends, monkeypatch):
    mem, remote = demo_pair
    _no_whole_graph(monkeypatch)
    reached = 0
    for q in [q.question for q in load_questions(mem)]:
        for cfg in CONFIGS:
            a = run(q, mem, config=cfg, backends=backends)
            b = run(q, remote, config=cfg, backends=backends)
            assert _signature(a) == _signature(b), (q, cfg)
            if b.reasoning is not None and any(h.selected for x in b.reasoning.expanded for h in x.hops):
                reached += 1
    assert reached >= 5  # reasoning-aware expansion really walked store edges
    assert "graph" not in remote.__dict__  # Workspace.graph was never read


def test_llm_reasoning_reads_the_shown_triples_in_one_batch_per_hop(demo_pair, backends, monkeypatch):
    """§3.5 with an LLM shows the CEG's triples and up to 30 offered ones: on a store they are read in one
    batch per hop (not one round trip per triple), and the hops equal the in-memory ones."""
    mem, remote = demo_pair
    q = load_questions(mem)[0].question
    r = run(q, mem, backends=backends)  # `none` mode: the ranked CEGs to expand
    assert r.ranked
    node_vecs, edge_vecs = mem.index("nodes").vectors, mem.index("edges").vectors
    qvec = backends.embed_query(q)
    reply = json.dumps({"selected": ["n1", "n2"], "sufficient": False})
    a = reasoning_expansion(q, r.ranked, mem.graph, node_vecs, edge_vecs, qvec, ScriptedLLM(reply), n=2, d=2)
    calls: list[list[int]] = []
    read = FalkorStore.edge_rows
    monkeypatch.setattr(FalkorStore, "edge_rows", lambda self, es: calls.append(list(es)) or read(self, es))
    llm = ScriptedLLM(reply)
    b = reasoning_expansion(q, r.ranked, StoreGraphView(remote.store), node_vecs, edge_vecs, qvec, llm, n=2, d=2)
    assert b.expanded == a.expanded and b.source == "llm"
    hops = sum(len(x.hops) for x in b.expanded)
    assert hops >= 2 and all(h.by == "llm" and h.selected for x in b.expanded for h in x.hops)
    assert len(calls) <= hops  # at most one edge-row read per hop
    first = b.expanded[0].hops[0]
    assert all(mem.graph.edge_text(e) in llm.prompts[0] for e in first.offered)  # the triples shown, as in memory


# ----------------------------------------------------------------------------- the view itself
def test_view_answers_like_the_graph(demo_ws):
    """The oracle: on the in-memory store, every per-item read of the view equals the graph's."""
    g: KnowledgeGraph = demo_ws.graph
    view = StoreGraphView(MemoryStore(g))
    assert (view.n_nodes, view.n_edges, view.n_chunks, view.kind) == (g.n_nodes, g.n_edges, g.n_chunks, g.kind)
    for v in range(g.n_nodes):
        assert (view.node_ids[v], view.node_names[v], view.node_chunks[v]) == \
            (g.node_ids[v], g.node_names[v], tuple(g.node_chunks[v]))
    for e in range(g.n_edges):
        assert (view.edge_head[e], view.edge_relation[e], view.edge_tail[e], view.edge_chunks[e], view.edge_text(e)) == \
            (int(g.edge_head[e]), g.edge_relation[e], int(g.edge_tail[e]), tuple(g.edge_chunks[e]), g.edge_text(e))
    for r, c in enumerate(g.chunks):
        assert view.chunks[r] == c and view.chunk(c.id) == c and view.chunk_index[c.id] == r
    assert "no such chunk" not in view.chunk_index and len(view.chunks) == g.n_chunks
    with pytest.raises(KeyError):
        view.chunk_index["no such chunk"]
    nodes = [0, 3, g.n_nodes - 1]
    assert np.array_equal(view.incident_edges(nodes), g.incident_edges(nodes))


def test_incident_edges_against_brute_force(matrix_graph):
    g = matrix_graph
    for nodes in ([0], [1, 2], list(range(g.n_nodes)), []):
        want = sorted(e for e in range(g.n_edges) if int(g.edge_head[e]) in nodes or int(g.edge_tail[e]) in nodes)
        assert g.incident_edges(nodes).tolist() == want
        assert MemoryStore(g).incident_edges(nodes).tolist() == want


def test_falkordb_incident_edges_and_provenance_match_memory(demo_pair):
    mem, remote = demo_pair
    g, store, oracle = mem.graph, remote.store, MemoryStore(mem.graph)
    hub = int(np.argmax(g.degree))
    for nodes in ([hub], [0, 5, hub], []):
        assert store.incident_edges(nodes).tolist() == oracle.incident_edges(nodes).tolist()
    es, vs = [0, g.n_edges - 1, 7], [hub, 0]
    assert store.edge_chunks(es) == oracle.edge_chunks(es)
    assert store.node_chunks(vs) == oracle.node_chunks(vs)


def test_absorbed_region_is_not_read_again(demo_pair, monkeypatch):
    """What G' read is kept: the answer and reasoning stages then read nothing for those items."""
    _, remote = demo_pair
    store = remote.store
    view = StoreGraphView(store)
    region = store.region([0], hops=1, max_nodes=1000)
    view.absorb(region)

    def refuse(*_a: object) -> None:
        raise AssertionError("read again")

    monkeypatch.setattr(FalkorStore, "edge_rows", refuse)
    monkeypatch.setattr(FalkorStore, "node_rows", refuse)
    monkeypatch.setattr(FalkorStore, "edge_chunks", refuse)
    texts = [view.edge_text(int(e)) for e in region.edges]
    assert texts == [region.graph.edge_text(i) for i in range(region.graph.n_edges)]
    assert [view.edge_chunks[int(e)] for e in region.edges] == [tuple(c) for c in region.graph.edge_chunks]


@pytest.mark.slow  # about a minute on 2 cores: MuSiQue (16k nodes) loaded into FalkorDB
def test_musique_bubblerag_reads_only_what_it_needs(tmp_path_factory, falkordb_server, hashing, backends, monkeypatch):
    """The first 10 MuSiQue questions, paper defaults: G' regions of hundreds to thousands of nodes, hub
    frontiers in reasoning-aware expansion, G_final chunks cited by hubs."""
    root: Path = tmp_path_factory.mktemp("bubble_store_musique")
    mem = ensure_sample_workspace("musique", hashing, root=root / "mem")
    dst = root / "store" / "musique"
    shutil.copytree(mem.path, dst)
    Workspace.open(dst).move_to_store(falkordb_server.url("bubble_musique"), overwrite=True)
    remote = Workspace.open(dst)
    _no_whole_graph(monkeypatch)
    for q in [q.question for q in load_questions(mem)][:10]:
        a = run(q, mem, config=BubbleConfig(), backends=backends)
        b = run(q, remote, config=BubbleConfig(), backends=backends)
        assert _signature(a) == _signature(b), q
    assert "graph" not in remote.__dict__


def test_a_question_reads_the_store_in_batches(demo_pair, backends, monkeypatch):
    """Candidates, pre-retrieval, the answer's passages and triples are read in one batch per stage
    (``read_ahead``), not one round trip per item: a few reads of each kind per question, whatever the
    number of candidates, passages and triples."""
    from collections import Counter

    _, remote = demo_pair
    calls: Counter[str] = Counter()
    for name in ("edge_rows", "node_rows", "chunks", "chunk_rows", "chunk_row_numbers"):
        real = getattr(FalkorStore, name)
        monkeypatch.setattr(FalkorStore, name, lambda self, *a, _r=real, _n=name, **k: calls.update([_n]) or _r(self, *a, **k))
    worst: Counter[str] = Counter()
    for q in [q.question for q in load_questions(remote)]:
        calls.clear()
        r = run(q, remote, backends=backends)
        assert r.chunks
        worst |= calls
    assert worst["edge_rows"] <= 4 and worst["node_rows"] <= 4, worst
    assert worst["chunks"] <= 2 and worst["chunk_rows"] <= 1 and worst["chunk_row_numbers"] <= 2, worst
