"""A graph store in the app: a workspace whose graph lives in FalkorDB is shown without reading its whole graph.

The sidebar and the home page read the store's counts; the BubbleRAG pages and the GRanker page draw
through a per-run :class:`~core.graph.view.StoreGraphView` (``Active.graph``) that reads only what a
drawing shows, and those drawings equal the in-memory ones (the oracle below). Pages that need the whole graph read it
once with a caption saying so, and above ``EGX_APP_WHOLE_GRAPH_MAX_EDGES`` say why not and stop.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from components import graph_view
from components import state as S
from components.bubblerag.shared import DEMO_QUESTION
from core.backends.llm import NoLLM
from core.backends.registry import get_embedder
from core.backends.rerankers import BiEncoderReranker
from core.graph.stores.falkor import FalkorStore
from core.graph.view import StoreGraphView
from core.index.questions import load_questions
from core.index.workspace import Workspace
from core.methods.base import Backends
from core.methods.bubblerag import run
from tests.app.helpers import plain, run_page, switch
from tests.methods.store_helpers import no_whole_graph, store_pair, user_store_workspace

BUBBLE_PAGES = ("pages/bubble_anchors.py", "pages/bubble_expansion.py", "pages/bubble_ranking.py",
                "pages/bubble_ask.py")


def _texts(at) -> str:
    return " ".join(plain(str(m.value)) for m in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info])


@pytest.fixture
def stored(home: Path, falkordb_server, request) -> Workspace:
    """The demo sample (its questions included), copied into the app's home and moved into FalkorDB."""
    return user_store_workspace(home, falkordb_server, f"app_{request.node.name[:40]}", get_embedder("hashing"))


def test_home_and_bubblerag_pages_never_read_the_whole_graph(stored: Workspace, monkeypatch) -> None:
    no_whole_graph(monkeypatch)
    monkeypatch.setenv("EGX_APP_WHOLE_GRAPH_MAX_EDGES", "5")  # a part that needs the whole graph says so instead
    at = run_page(**{S.WORKSPACE: "stored", S.BUBBLE_QUESTION: DEMO_QUESTION})
    metrics = {m.label: m.value for m in at.metric}
    store = stored.store
    assert metrics["Nodes"] == f"{store.n_nodes:,}" and metrics["Edges"] == f"{store.n_edges:,}"
    assert "reads only its counts" in _texts(at)
    assert "graph store: FalkorDB" in plain(" ".join(c.value for c in at.sidebar.caption))
    for page in (*BUBBLE_PAGES, "pages/evidence_chains.py", "pages/granker.py"):
        switch(at, page)
        assert not at.exception, (page, [e.value for e in at.exception])
        assert not at.error, (page, [e.value for e in at.error])
        if page == "pages/evidence_chains.py":  # ReG's run, chains and kept-triple drawing from the store;
            assert "ReG evidence chains" in [h.value for h in at.subheader] and at.get("iframe")
            warned = " ".join(plain(w.value) for w in at.warning)  # only the supervision pool needs all of it
            assert "needs the whole graph (ReG's supervision candidate pool" in warned
        if page == "pages/bubble_ask.py":  # the evidence graph drawn, its exports offered, all through the view
            assert at.get("iframe") and "Answer" in _texts(at)
            assert {b.label for b in at.get("download_button")} >= {"Evidence graph (egx JSON)",
                                                                     "Evidence graph (GraphML)"}
    # GRanker on KG nodes (the paper's default) reads the store as FastInsight asks: its rank table, the
    # smoothing drawing and TR / MissTR per round, from the demo's own questions (matched to the store's chunks);
    # each tab is computed when it is open
    at.session_state[S.GRANKER_TAB] = "Candidate subgraph (P)"
    at.run()
    assert not at.exception and at.get("iframe") and "reads the whole graph" not in _texts(at)
    at.session_state[S.GRANKER_TAB] = "Metrics per round"
    at.run()
    assert not at.exception and any("MissTR" in d.value.columns for d in at.dataframe)


def test_whole_graph_pages_say_why_not_above_the_limit(stored: Workspace, monkeypatch) -> None:
    no_whole_graph(monkeypatch)
    monkeypatch.setenv("EGX_APP_WHOLE_GRAPH_MAX_EDGES", "5")
    at = run_page(**{S.WORKSPACE: "stored"})
    for page in ("pages/subgraph.py", "pages/compare.py", "pages/benchmark.py"):
        switch(at, page)
        assert not at.exception, (page, [e.value for e in at.exception])
        warned = " ".join(plain(w.value) for w in at.warning)
        assert "needs the whole graph" in warned and "more than the 5 edges" in warned, page
        assert "EGX_APP_WHOLE_GRAPH_MAX_EDGES" in warned
    switch(at, "pages/data.py")  # the Upload tab still works; the graph tabs say why they are empty
    assert not at.exception and "needs the whole graph" in " ".join(plain(w.value) for w in at.warning)
    assert [t.label for t in at.tabs] == ["Graph", "Statistics", "Upload", "Export"]
    monkeypatch.setenv("EGX_APP_WHOLE_GRAPH_MAX_EDGES", "ten")
    switch(at, "pages/data.py")
    assert any("is not a number of edges" in plain(e.value) for e in at.error)


def test_whole_graph_pages_read_it_once_with_a_caption(stored: Workspace) -> None:
    at = run_page(**{S.WORKSPACE: "stored"})
    # Evidence chains first: its supervision (the whole-graph read) needs a question with an answer, and the
    # question follows the user across pages — SG-RAG's default is one of its paper examples, which has none here
    for page in ("pages/evidence_chains.py", "pages/subgraph.py"):
        switch(at, page)
        assert not at.exception, (page, [e.value for e in at.exception])
        assert "reads the whole graph from the graph store" in _texts(at), page
        assert all("needs the whole graph" not in plain(w.value) for w in at.warning), page
        if page.endswith("evidence_chains.py"):  # ReG's supervision pool, on the graph read once
            assert "Candidate paths" in [m.label for m in at.metric]


def test_bad_limit_value_is_named(stored: Workspace, monkeypatch) -> None:
    monkeypatch.setenv("EGX_APP_WHOLE_GRAPH_MAX_EDGES", "-3")
    at = run_page(**{S.WORKSPACE: "stored"})
    switch(at, "pages/subgraph.py")
    assert not at.exception
    assert any("EGX_APP_WHOLE_GRAPH_MAX_EDGES='-3' is not a number of edges" in plain(e.value) for e in at.error)


# ------------------------------------------------------------------------ the drawings: store = memory
@pytest.fixture(scope="module")
def demo_pair(tmp_path_factory, falkordb_server):
    return store_pair("demo", tmp_path_factory.mktemp("drawings"), falkordb_server, get_embedder("hashing"),
                      "app_drawings_demo")


@pytest.fixture(scope="module")
def backends() -> Backends:
    emb = get_embedder("hashing")
    return Backends(emb, NoLLM(), BiEncoderReranker(emb))


def test_drawings_from_the_store_equal_the_in_memory_ones(demo_pair, backends, monkeypatch) -> None:
    """The oracle: every drawing helper the pages call gives the same output on the store's view as on
    the graph in memory, for each demo question's BubbleRAG evidence graph and for a capped
    neighbourhood; a drawing costs a few batched store reads, not one per node."""
    mem, remote = demo_pair
    g = mem.graph
    no_whole_graph(monkeypatch)
    calls: Counter[str] = Counter()
    for name in ("node_rows", "node_table", "degrees", "edge_rows", "incident_edges", "neighbor_lists",
                 "node_chunks", "edge_chunks", "chunks", "chunk_row_numbers"):
        real = getattr(FalkorStore, name)
        monkeypatch.setattr(FalkorStore, name, lambda self, *a, _r=real, _n=name, **k: calls.update([_n]) or _r(self, *a, **k))
    checked = 0
    for q in load_questions(mem):
        r = run(q.question, mem, backends=backends)
        if r.evidence is None or not r.evidence.nodes:
            continue
        nodes, edges = sorted(r.evidence.nodes), sorted(r.evidence.edges)
        view = StoreGraphView(remote.store)
        calls.clear()
        assert graph_view.network_html(view, nodes, edges=edges, edge_labels=True) == \
            graph_view.network_html(g, nodes, edges=edges, edge_labels=True)
        assert sum(calls.values()) <= 6, calls  # batched: names/descriptions, degrees, edge rows
        assert graph_view.network_html(view, nodes) == graph_view.network_html(g, nodes)  # induced edges
        assert graph_view.layout_positions(view, nodes) == graph_view.layout_positions(g, nodes)
        assert json.loads(graph_view.graph_json_bytes(view, nodes, edges)) == \
            json.loads(graph_view.graph_json_bytes(g, nodes, edges))
        assert graph_view.graphml_bytes(view, nodes, edges) == graph_view.graphml_bytes(g, nodes, edges)
        assert r.evidence.triples(view) == r.evidence.triples(g)
        checked += 1
    assert checked >= 3
    hub = int(g.degree.argmax())
    around = sorted({hub, *g.neighbors(hub).tolist(), *[u for v in g.neighbors(hub).tolist() for u in g.neighbors(v).tolist()]})
    assert len(around) > 12
    view = StoreGraphView(remote.store)
    assert graph_view.limit_nodes(view, around, 12, center=[hub]) == graph_view.limit_nodes(g, around, 12, center=[hub])
    assert graph_view.degree_sizes(view, around) == graph_view.degree_sizes(g, around)
    assert view.name == g.name and int(view.degree[hub]) == int(g.degree[hub])
    assert view.induced_edges(around).tolist() == g.induced_edges(around).tolist()


def test_data_page_explores_a_store_by_neighbourhoods(stored: Workspace, home: Path, monkeypatch) -> None:
    """The Data page on a graph store: the server's search and degree order, neighbourhoods read as regions,
    the node detail read item by item — the same nodes, names and edges as the graph in memory; the
    statistics and a whole-graph export need the whole graph and say so above the limit."""
    from tests.app.helpers import drawn_nodes

    g = Workspace.open(home.parent / "built" / "demo").graph  # the graph the store holds, in memory
    no_whole_graph(monkeypatch)
    monkeypatch.setenv("EGX_APP_WHOLE_GRAPH_MAX_EDGES", "5")
    at = run_page(**{S.WORKSPACE: "stored"})
    switch(at, "pages/data.py")
    assert not at.exception, [e.value for e in at.exception]
    assert any("lives in a graph store" in plain(i.value) for i in at.info)
    assert S.widget_key(S.DATA_VIEW_MODE) not in [r.key for r in at.radio]  # neighbourhoods only
    picker = at.selectbox(key=S.widget_key(S.DATA_NODE))
    top = sorted(range(g.n_nodes), key=lambda v: (-int(g.degree[v]), g.node_names[v], v))[:len(picker.options)]
    assert [o.split("  (")[0] for o in picker.options] == [g.node_names[v] for v in top]
    assert {n["title"].split("\n")[0] for n in drawn_nodes(at)} == {g.node_names[u] for u in g.khop([top[0]], 1)}
    at.text_input(key=S.widget_key(S.DATA_SEARCH)).input("keanu").run()
    assert not at.exception
    want = [g.node(name) for name in g.search_nodes("keanu", limit=100)]
    assert [o.split("  (")[0] for o in at.selectbox(key=S.widget_key(S.DATA_NODE)).options] == \
        [g.node_names[v] for v in want]
    assert plain(at.subheader[0].value) == "Node: Keanu Reeves"
    v = g.node("Keanu Reeves")
    edges = at.dataframe[0].value
    assert len(edges) == len(set(g.csr.row(v)[1].tolist()))
    assert set(edges["head"]) | set(edges["tail"]) <= {g.node_names[u] for u in g.khop([v], 1)}
    texts = [t.value for t in at.text]
    assert all(g.chunk(c).text in texts for c in g.node_chunks[v])
    at.slider(key=S.widget_key(S.DATA_HOPS)).set_value(2).run()
    assert not at.exception
    assert {n["title"].split("\n")[0] for n in drawn_nodes(at)} == {g.node_names[u] for u in g.khop([v], 2)}
    warned = " ".join(plain(w.value) for w in at.warning)
    assert "needs the whole graph (its statistics" in warned  # the Statistics tab, above the limit
    at.radio(key=S.widget_key(S.DATA_EXPORT_SCOPE)).set_value("Shown drawing").run()
    assert not at.exception
    assert {"Download egx JSON", "Download GraphML"} <= {b.label for b in at.get("download_button")}
