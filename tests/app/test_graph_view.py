"""components.graph_view: escaping of user text, offline HTML, fixed layouts, the node cap, exports."""

from __future__ import annotations

import io
import json
import re

import networkx as nx
import pytest

from components import graph_view as gv
from core.graph.graph_builder import GraphBuilder, graph_from_dict, graph_from_triples
from core.graph.model import KnowledgeGraph

XSS = "<script>alert(1)</script>"


def _vis_data(doc: str, kind: str) -> list[dict]:
    m = re.search(rf"{kind} = new vis\.DataSet\((\[.*?\])\);", doc, re.S)
    assert m, f"no {kind} DataSet in the generated HTML"
    return json.loads(m.group(1))


@pytest.fixture
def hostile_graph() -> KnowledgeGraph:
    return graph_from_triples([(XSS, "r&d <b>bold</b>", "AT&T"), ("AT&T", "near", "Keanu Reeves"),
                               ("Keanu Reeves", 'says "hi"', "<img src=x onerror=alert(2)>")])


def test_labels_and_titles_are_html_escaped(hostile_graph: KnowledgeGraph) -> None:
    doc = gv.network_html(hostile_graph, range(hostile_graph.n_nodes), edge_labels=True,
                          legend=[gv.LegendItem("<i>legend</i>", "#000")])
    assert XSS not in doc
    assert "<img src=x" not in doc
    assert "<b>bold</b>" not in doc
    assert "<i>legend</i>" not in doc and "&lt;i&gt;legend&lt;/i&gt;" in doc
    nodes = {n["id"]: n for n in _vis_data(doc, "nodes")}
    v = hostile_graph.node(XSS)
    assert nodes[v]["label"] == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert nodes[v]["title"].startswith("&lt;script&gt;alert(1)&lt;/script&gt;")
    assert nodes[hostile_graph.node("AT&T")]["label"] == "AT&amp;T"
    edges = _vis_data(doc, "edges")
    assert {e["label"] for e in edges} >= {"r&amp;d &lt;b&gt;bold&lt;/b&gt;", "says &quot;hi&quot;"}
    assert all("<" not in str(e.get("title", "")) for e in edges)


def test_html_is_self_contained_and_offline(hostile_graph: KnowledgeGraph) -> None:
    doc = gv.network_html(hostile_graph, range(hostile_graph.n_nodes))
    assert "cdn.jsdelivr.net" not in doc
    assert not re.search(r"<script[^>]+src=", doc), "every script must be inline (the iframe is offline)"
    assert "vis.Network" in doc and "egxPlainText(nodes)" in doc


def test_fixed_positions_switch_physics_off(matrix_graph: KnowledgeGraph) -> None:
    nodes = list(range(matrix_graph.n_nodes))
    pos = gv.layout_positions(matrix_graph, nodes, seed=3)
    assert pos == gv.layout_positions(matrix_graph, nodes, seed=3)  # deterministic
    doc = gv.network_html(matrix_graph, nodes, positions=pos)
    drawn = {n["id"]: n for n in _vis_data(doc, "nodes")}
    assert all(drawn[v]["x"] == pytest.approx(pos[v][0]) and drawn[v]["physics"] is False for v in nodes)
    assert '"physics": {"enabled": false' in doc


def test_colours_highlight_and_default_edges(matrix_graph: KnowledgeGraph) -> None:
    keanu = matrix_graph.node("Keanu Reeves")
    doc = gv.network_html(matrix_graph, [keanu, matrix_graph.node("The Matrix")], highlight=[keanu],
                          colors={keanu: gv.SELECTED_COLOR})
    drawn = {n["id"]: n for n in _vis_data(doc, "nodes")}
    assert drawn[keanu]["color"] == gv.SELECTED_COLOR and drawn[keanu]["borderWidth"] > 1
    assert len(_vis_data(doc, "edges")) == 1  # only the induced edge The Matrix -> Keanu Reeves


def test_limit_nodes_keeps_the_closest_to_the_centre(star_graph: KnowledgeGraph, path_graph: KnowledgeGraph) -> None:
    kept, capped = gv.limit_nodes(star_graph, range(star_graph.n_nodes), 10)
    assert not capped and kept == list(range(star_graph.n_nodes))
    a = path_graph.node("a")
    kept, capped = gv.limit_nodes(path_graph, range(path_graph.n_nodes), 3, center=[a])
    assert capped and [path_graph.node_names[v] for v in kept] == ["a", "b", "c"]
    hub = star_graph.node("hub")
    kept, capped = gv.limit_nodes(star_graph, range(star_graph.n_nodes), 1)
    assert capped and kept == [hub]  # best connected first when there is no centre


def test_exports_round_trip(matrix_graph: KnowledgeGraph) -> None:
    whole = graph_from_dict(json.loads(gv.graph_json_bytes(matrix_graph)))
    assert whole.to_dict() == matrix_graph.to_dict()
    keep = [matrix_graph.node(n) for n in ("The Matrix", "Keanu Reeves", "Hugo Weaving")]
    sub = graph_from_dict(json.loads(gv.graph_json_bytes(matrix_graph, keep)))
    assert sorted(sub.node_names) == ["Hugo Weaving", "Keanu Reeves", "The Matrix"]
    assert sub.n_edges == 2 and [c.id for c in sub.chunks] == ["matrix"]
    g = nx.read_graphml(io.BytesIO(gv.graphml_bytes(matrix_graph, keep)))
    assert g.number_of_nodes() == 3 and g.number_of_edges() == 2
    assert {d["relation"] for _, _, d in g.edges(data=True)} == {"starring"}


def test_subgraph_keeps_explicit_ids() -> None:
    b = GraphBuilder(name="mids")
    b.add_node("Paris", node_id="/m/05qtj")
    b.add_node("Paris", node_id="/m/0xyz")  # same name, different entity
    b.add_edge("/m/05qtj", "twinned with", "/m/0xyz")
    g = b.build()
    sub = gv.subgraph(g, [0, 1])
    assert sub.node_ids == ("/m/05qtj", "/m/0xyz") and sub.n_edges == 1


def test_short_label_and_sizes(star_graph: KnowledgeGraph) -> None:
    assert gv.short_label("x" * 100, 10) == "x" * 9 + "…"
    assert gv.short_label("  a \n b ") == "a b"
    sizes = gv.degree_sizes(star_graph, range(star_graph.n_nodes))
    assert sizes[star_graph.node("hub")] == max(sizes.values())


def test_per_node_shapes_and_their_legend_swatch(hostile_graph: KnowledgeGraph) -> None:
    """A shape overrides the dot for the nodes named (the BubbleRAG expansion's anchors); its legend row
    draws the same shape."""
    v = hostile_graph.node("AT&T")
    doc = gv.network_html(hostile_graph, range(hostile_graph.n_nodes), shapes={v: "diamond"},
                          legend=[gv.LegendItem("diamond: anchor", "#555555", "diamond")])
    shapes = {n["id"]: n.get("shape") for n in _vis_data(doc, "nodes")}
    assert shapes[v] == "diamond"
    assert all(s == "dot" for k, s in shapes.items() if k != v)  # the rest keep the dot
    assert 'class="egx-diamond"' in doc and ".egx-diamond" in doc  # the swatch and its style
    assert 'style="' in gv.legend_html([gv.LegendItem("a", "#000", "diamond")], inline=True)


def test_label_colors_name_the_step_s_nodes_in_their_highlight(matrix_graph: KnowledgeGraph) -> None:
    """The bubble replay's collision writes the CEG's names in its red: "The Matrix" placed above its red node, between
    other names, read as a neighbour's label (an audit). The colour survives the browser's label placement, which
    rewrites each label's font (its ``vadjust``)."""
    nodes = list(range(matrix_graph.n_nodes))
    v = nodes[0]
    doc = gv.network_html(matrix_graph, nodes, label_colors={v: "#d62728"})
    drawn = {n["id"]: n for n in _vis_data(doc, "nodes")}
    assert drawn[v]["font"] == {"color": "#d62728"} and drawn[v]["egxColor"] == "#d62728"
    assert all("font" not in n for i, n in drawn.items() if i != v)
    assert "font2.color = n.egxColor" in doc
